-- KEYS: the entries, their ids, the bytes held, each entry's test id, one test's ids. Forgets that test's entries.
local ids, freed = redis.call('ZRANGE', KEYS[5], 0, -1), 0
for _, id in ipairs(ids) do
  freed = freed + redis.call('HSTRLEN', KEYS[1], id)
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[4], id)
end
redis.call('DEL', KEYS[5])
if freed > 0 then redis.call('DECRBY', KEYS[3], freed) end
return #ids
