-- KEYS: the journal's order, the bytes held, one test's ids. ARGV: the prefix of an entry's key, the test id.
-- Forgets that test's entries (those of no test id are found in the order: they have no sorted set of their own).
local ids, freed = {}, 0
if ARGV[2] == '' then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    if string.match(member, '^%d+ %d+ $') then ids[#ids + 1] = string.match(member, '^%d+') end
  end
else
  ids = redis.call('ZRANGE', KEYS[3], 0, -1)
end
for _, id in ipairs(ids) do
  local held = redis.call('ZRANGEBYSCORE', KEYS[1], id, id)[1]
  if held then
    freed = freed + tonumber(string.match(held, ' (%d+) '))
    redis.call('ZREM', KEYS[1], held)
  end
  redis.call('UNLINK', ARGV[1] .. id)
end
redis.call('DEL', KEYS[3])
if freed > 0 then redis.call('DECRBY', KEYS[2], freed) end
return #ids
