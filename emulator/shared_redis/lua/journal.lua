-- KEYS: the entries (hash: id -> record), their order (sorted set by id, each member "id size test-id": what dropping
-- it needs, with no lookup), the bytes held, the count dropped, the next id, this entry's test's ids (sorted set).
-- ARGV: the entry's record, its id (0: a new entry, given the next id), the journal's capacity and bytes, the prefix
-- of a test's ids' key, the test id. Returns the id; 0 when the entry to complete is no longer held.
local id, size = tonumber(ARGV[2]), #ARGV[1]
local grown = size
if id == 0 then
  id = redis.call('INCR', KEYS[5])
  redis.call('ZADD', KEYS[6], id, id)
else
  local held = redis.call('ZRANGEBYSCORE', KEYS[2], id, id)[1]
  if not held then return 0 end
  redis.call('ZREM', KEYS[2], held)
  grown = size - tonumber(string.match(held, ' (%d+) '))
end
redis.call('ZADD', KEYS[2], id, id .. ' ' .. size .. ' ' .. ARGV[6])
redis.call('HSET', KEYS[1], id, ARGV[1])
local bytes = redis.call('INCRBY', KEYS[3], grown)
local count, dropped = redis.call('ZCARD', KEYS[2]), 0
while count > 1 and (count > tonumber(ARGV[3]) or bytes > tonumber(ARGV[4])) do
  local gone, held, test = string.match(redis.call('ZPOPMIN', KEYS[2])[1], '^(%d+) (%d+) (.*)$')
  bytes = bytes - tonumber(held)
  redis.call('HDEL', KEYS[1], gone)
  redis.call('ZREM', ARGV[5] .. test, gone)
  count, dropped = count - 1, dropped + 1
end
if dropped > 0 then
  redis.call('SET', KEYS[3], bytes)
  redis.call('INCRBY', KEYS[4], dropped)
end
return id
