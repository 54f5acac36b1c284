-- KEYS: the posted scenarios (hash: test id NUL name -> "version index" LF source), their version. ARGV: field,
-- source, field, source, …. One of a name already posted for the test is replaced, and becomes the newest.
local version = redis.call('INCR', KEYS[2])
for i = 1, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], version .. ' ' .. (i + 1) / 2 .. '\n' .. ARGV[i + 1])
end
return version
