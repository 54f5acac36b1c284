-- KEYS: the entries, their order, the bytes held, one test's ids. Forgets that test's entries.
local ids, freed = redis.call('ZRANGE', KEYS[4], 0, -1), 0
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
