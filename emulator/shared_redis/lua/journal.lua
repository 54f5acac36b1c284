-- KEYS: the entries (hash: id -> record), their order (sorted set by id, each member "id size test-id": what dropping
-- it needs, with no lookup), the bytes held, the count dropped, the next id. ARGV: the journal's capacity and bytes,
-- the prefix of a test's ids' key (a sorted set; none for requests with no test id, which a listing of them finds in
-- the order), then for each entry written in one turn of a worker: its record, its id (0: a new entry, given the
-- next id) and its test id. Returns each entry's id; 0 for an entry to complete that is no longer held.
local capacity, most, prefix = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3]
local new = 0
for i = 5, #ARGV, 3 do
  if ARGV[i] == '0' then new = new + 1 end
end
local next = new > 0 and redis.call('INCRBY', KEYS[5], new) - new or 0
local ids, grown = {}, 0
for i = 4, #ARGV, 3 do
  local record, id, test = ARGV[i], tonumber(ARGV[i + 1]), ARGV[i + 2]
  local size = #record
  if id == 0 then
    next = next + 1
    id, grown = next, grown + size
    if test ~= '' then redis.call('ZADD', prefix .. test, id, id) end
  else
    local held = redis.call('ZRANGEBYSCORE', KEYS[2], id, id)[1]
    if held then
      redis.call('ZREM', KEYS[2], held)
      grown = grown + size - tonumber(string.match(held, ' (%d+) '))
    else
      id = 0
    end
  end
  if id ~= 0 then
    redis.call('ZADD', KEYS[2], id, id .. ' ' .. size .. ' ' .. test)
    redis.call('HSET', KEYS[1], id, record)
  end
  ids[#ids + 1] = id
end
local bytes = redis.call('INCRBY', KEYS[3], grown)
local count, dropped = redis.call('ZCARD', KEYS[2]), 0
while count > 1 and (count > capacity or bytes > most) do
  local gone, held, test = string.match(redis.call('ZPOPMIN', KEYS[2])[1], '^(%d+) (%d+) (.*)$')
  bytes = bytes - tonumber(held)
  redis.call('HDEL', KEYS[1], gone)
  if test ~= '' then redis.call('ZREM', prefix .. test, gone) end
  count, dropped = count - 1, dropped + 1
end
if dropped > 0 then
  redis.call('SET', KEYS[3], bytes)
  redis.call('INCRBY', KEYS[4], dropped)
end
return ids
