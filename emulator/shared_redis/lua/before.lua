-- What a request's shape needs, in one round trip (`State.before_shape`): first, when asked to look, whether the
-- request may go on as it began (the posted scenarios' version is the one this process holds, and neither its
-- test nor everyone has directions): else the `direct` script's answer, nothing taken, and the request goes round
-- again with the directions applied. Then its attempt's number, and, where asked, the prompt cache's hits and the
-- rate-limit buckets' take, each by the script of its name (`direct`, `cache`, `buckets`, composed before this by
-- `scripts.py` as functions of their own KEYS and ARGV). KEYS: the posted scenarios' version, the directions, the
-- attempts (hash), then the buckets' key if taken, then the cache's two keys if looked up. ARGV: whether to look
-- (1/0), the test id, whether the request sent its own fault (1/0), the version held, the attempt's field, seconds
-- to keep the attempts unused, how many of the arguments after these are the buckets' (0: none), those, then the
-- cache's (none: no lookup). Returns the attempt's number (from 0), the buckets' answer (or false), the cache's
-- hits (or false), and `direct`'s answer when the request goes round again (then the first three are false).
if ARGV[1] == '1' then
  local held = redis.call('HMGET', KEYS[2], ARGV[2], '')
  if held[1] or held[2] or (redis.call('GET', KEYS[1]) or '0') ~= ARGV[4] then
    return {false, false, false, direct({KEYS[1], KEYS[2]}, {ARGV[2], ARGV[3]})}
  end
end
local attempt = redis.call('HINCRBY', KEYS[3], ARGV[5], 1) - 1
redis.call('EXPIRE', KEYS[3], ARGV[6])
local n, at = tonumber(ARGV[7]), 4
local taken, hits = false, false
if n > 0 then
  taken = buckets({KEYS[at]}, {unpack(ARGV, 8, 7 + n)})
  at = at + 1
end
if #ARGV > 7 + n then
  hits = cache({KEYS[at], KEYS[at + 1]}, {unpack(ARGV, 8 + n)})
end
return {attempt, taken, hits}
