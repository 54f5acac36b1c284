-- KEYS: the hash of a test id's buckets. ARGV: the API key, now, the request's tokens, whether to enforce (1/0),
-- seconds to keep the hash unused, then for each bucket its size, its rate (per second) and whether it counts
-- tokens (1/0). The arithmetic of `limits.Limiter.take` and `_report`; levels as %.17g, exact. Returns each
-- level after the take, the bucket that refused (1-based; 0: none) and the seconds until the request would fit.
local now, tokens, enforce = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local n = (#ARGV - 5) / 3
local levels, read, at = {}, redis.call('HGET', KEYS[1], ARGV[1]), now
if read then
  for value in string.gmatch(read, '%S+') do levels[#levels + 1] = tonumber(value) end
  at = levels[n + 1]
else
  for i = 1, n do levels[i] = tonumber(ARGV[3 + 3 * i]) end
end
local elapsed = now - at
if elapsed < 0 then elapsed, now = 0, at end  -- another worker read the clock later: its reading stands
local wants, wait, spent = {}, 0, 0
for i = 1, n do
  local size, rate = tonumber(ARGV[3 + 3 * i]), tonumber(ARGV[4 + 3 * i])
  local level = levels[i] + elapsed * rate
  if level > size then level = size end
  levels[i] = level
  wants[i] = ARGV[5 + 3 * i] == '1' and tokens or 1
  -- a request larger than the whole bucket goes through when the bucket is full, leaving it in debt
  if enforce and wants[i] > level and level < size then
    local needed = (math.min(wants[i], size) - level) / rate
    if needed > wait then wait, spent = needed, i end
  end
end
local out = {}
for i = 1, n do
  if spent == 0 then levels[i] = levels[i] - wants[i] end
  if not enforce and levels[i] < 0 then levels[i] = 0 end
  out[i] = string.format('%.17g', levels[i])
end
out[n + 1] = string.format('%.17g', now)
redis.call('HSET', KEYS[1], ARGV[1], table.concat(out, ' '))
redis.call('EXPIRE', KEYS[1], ARGV[5])
out[n + 1] = tostring(spent)
out[n + 2] = string.format('%.17g', wait)
return out
