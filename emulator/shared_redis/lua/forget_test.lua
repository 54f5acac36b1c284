-- KEYS: the entries, their order, the bytes held, one test's ids. ARGV: the test id. Forgets that test's entries
-- (those of no test id are found in the order: they have no sorted set of their own).
local ids, freed = {}, 0
if ARGV[1] == '' then
  for _, member in ipairs(redis.call('ZRANGE', KEYS[2], 0, -1)) do
    if string.match(member, '^%d+ %d+ $') then ids[#ids + 1] = string.match(member, '^%d+') end
  end
else
  ids = redis.call('ZRANGE', KEYS[4], 0, -1)
end
for _, id in ipairs(ids) do
  local held = redis.call('ZRANGEBYSCORE', KEYS[2], id, id)[1]
  if held then
    freed = freed + tonumber(string.match(held, ' (%d+) '))
    redis.call('ZREM', KEYS[2], held)
  end
  redis.call('HDEL', KEYS[1], id)
end
redis.call('DEL', KEYS[4])
if freed > 0 then redis.call('DECRBY', KEYS[3], freed) end
return #ids
