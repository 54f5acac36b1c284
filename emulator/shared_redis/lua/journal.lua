-- KEYS: the entries (hash: id -> JSON), their ids (sorted set), the bytes held, the count dropped, each entry's
-- test id (hash), the next id, this entry's test's ids (sorted set). ARGV: the entry's JSON, its id (0: a new
-- entry, given the next id), the journal's capacity and bytes, the prefix of a test's ids' key, the test id.
-- Returns the id; 0 when the entry to complete is no longer held.
local id, held = tonumber(ARGV[2]), 0
if id == 0 then
  id = redis.call('INCR', KEYS[6])
  redis.call('ZADD', KEYS[2], id, id)
  redis.call('ZADD', KEYS[7], id, id)
  redis.call('HSET', KEYS[5], id, ARGV[6])
elseif not redis.call('ZSCORE', KEYS[2], id) then
  return 0
else
  held = redis.call('HSTRLEN', KEYS[1], id)  -- what the entry replaced held (a new one: nothing)
end
local bytes = redis.call('INCRBY', KEYS[3], #ARGV[1] - held)
redis.call('HSET', KEYS[1], id, ARGV[1])
local count, dropped = redis.call('ZCARD', KEYS[2]), 0
while count > 1 and (count > tonumber(ARGV[3]) or bytes > tonumber(ARGV[4])) do
  local oldest = redis.call('ZPOPMIN', KEYS[2])[1]
  bytes = bytes - redis.call('HSTRLEN', KEYS[1], oldest)
  redis.call('HDEL', KEYS[1], oldest)
  local test = redis.call('HGET', KEYS[5], oldest)
  if test then redis.call('ZREM', ARGV[5] .. test, oldest) end
  redis.call('HDEL', KEYS[5], oldest)
  count, dropped = count - 1, dropped + 1
end
if dropped > 0 then
  redis.call('SET', KEYS[3], bytes)
  redis.call('INCRBY', KEYS[4], dropped)
end
return id
