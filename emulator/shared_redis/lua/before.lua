-- What a request's shape needs, in one round trip (`State.before_shape`): its attempt's number, and, where asked,
-- the prompt cache's hits and the rate-limit buckets' take, each by the script of its name (`cache`, `buckets`,
-- composed before this by `scripts.py` as functions of their own KEYS and ARGV). KEYS: the attempts (hash), then
-- the buckets' key if taken, then the cache's two keys if looked up. ARGV: the attempt's field, seconds to keep
-- the attempts unused, how many of the arguments after these are the buckets' (0: none), those, then the cache's
-- (none: no lookup). Returns the attempt's number (from 0), the buckets' answer (or false), the cache's hits
-- (or false).
local attempt = redis.call('HINCRBY', KEYS[1], ARGV[1], 1) - 1
redis.call('EXPIRE', KEYS[1], ARGV[2])
local n, at = tonumber(ARGV[3]), 2
local taken, hits = false, false
if n > 0 then
  taken = buckets({KEYS[at]}, {unpack(ARGV, 4, 3 + n)})
  at = at + 1
end
if #ARGV > 3 + n then
  hits = cache({KEYS[at], KEYS[at + 1]}, {unpack(ARGV, 4 + n)})
end
return {attempt, taken, hits}
