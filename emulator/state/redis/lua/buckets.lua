-- KEYS: the hash of a test id's buckets. ARGV: the API key, now, the request's tokens, whether to enforce (1/0),
-- seconds to keep the hash unused, and the buckets: for each its size, its rate (per second) and whether it counts
-- tokens (1/0), as little-endian doubles. The arithmetic of `limits.Limiter.take` and `_report`. A key's levels and
-- when they were taken are kept as doubles too: exact, and read with no parsing (a value of another length, as an
-- older version kept it or another set of buckets, is a key seen first). Returns each level after the take, the
-- bucket that refused (1-based; 0: none) and the seconds until the request would fit: doubles, packed as they are.
local now, tokens, enforce = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local n = #ARGV[6] / 24
local plan = {struct.unpack('<' .. string.rep('d', 3 * n), ARGV[6])}
local kept = '<' .. string.rep('d', n + 1)
local levels, read, at = {}, redis.call('HGET', KEYS[1], ARGV[1]), now
if read and #read == 8 * (n + 1) then
  levels = {struct.unpack(kept, read)}
  at = levels[n + 1]
else
  for i = 1, n do levels[i] = plan[3 * i - 2] end
end
local elapsed = now - at
if elapsed < 0 then elapsed, now = 0, at end  -- another worker read the clock later: its reading stands
local wants, wait, spent = {}, 0, 0
for i = 1, n do
  local size, rate = plan[3 * i - 2], plan[3 * i - 1]
  local level = levels[i] + elapsed * rate
  if level > size then level = size end
  levels[i] = level
  wants[i] = plan[3 * i] == 1 and tokens or 1
  -- a request larger than the whole bucket goes through when the bucket is full, leaving it in debt
  if enforce and wants[i] > level and level < size then
    local needed = (math.min(wants[i], size) - level) / rate
    if needed > wait then wait, spent = needed, i end
  end
end
for i = 1, n do
  if spent == 0 then levels[i] = levels[i] - wants[i] end
  if not enforce and levels[i] < 0 then levels[i] = 0 end
end
levels[n + 1] = now
redis.call('HSET', KEYS[1], ARGV[1], struct.pack(kept, unpack(levels, 1, n + 1)))
redis.call('EXPIRE', KEYS[1], ARGV[5])
levels[n + 1], levels[n + 2] = spent, wait
return struct.pack('<' .. string.rep('d', n + 2), unpack(levels, 1, n + 2))
