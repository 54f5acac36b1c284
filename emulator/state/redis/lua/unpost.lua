-- KEYS: the posted scenarios, their version. ARGV: fields. Removes them; the version moves if any was there.
local removed = redis.call('HDEL', KEYS[1], unpack(ARGV))
if removed > 0 then redis.call('INCR', KEYS[2]) end
return removed
