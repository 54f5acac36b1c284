-- KEYS: the journal's order (sorted set by id, each member "id size test-id": what dropping an entry needs, with no
-- lookup), the bytes held, the count dropped, the next id. ARGV: the journal's capacity and bytes, the prefix of an
-- entry's key (then its id), the prefix of a test's ids' key (a sorted set; none for requests with no test id, which
-- a listing of them finds in the order), then for each entry written in one turn of a worker: the key its record was
-- staged under, the record's size, its id (0: a new entry, given the next id) and its test id. A record is written
-- by the worker (SET, with a time to live) and only renamed here: Redis hashes every byte of a script's arguments, a
-- 60 KB stream's record twice as long as the rest of its work. Returns each entry's id; 0 for an entry to complete
-- that is no longer held (its staged record deleted); -1 for one whose record was not staged (the store refused it).
local capacity, most, entries, tests = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
local new = 0
for i = 7, #ARGV, 4 do
  if ARGV[i] == '0' then new = new + 1 end
end
local next = new > 0 and redis.call('INCRBY', KEYS[4], new) - new or 0
local ids, grown = {}, 0
for i = 5, #ARGV, 4 do
  local staged, size, id, test = ARGV[i], tonumber(ARGV[i + 1]), tonumber(ARGV[i + 2]), ARGV[i + 3]
  local held = nil
  if id == 0 then
    next = next + 1
    id = next
  else
    held = redis.call('ZRANGEBYSCORE', KEYS[1], id, id)[1]
    if not held then
      redis.call('DEL', staged)
      id = 0
    end
  end
  if id ~= 0 then
    local moved = redis.pcall('RENAME', staged, entries .. id)
    if type(moved) == 'table' and moved.err then
      id = -1  -- its record was refused (the store full): not journalled, the entry as it was
    else
      redis.call('PERSIST', entries .. id)
      if held then
        redis.call('ZREM', KEYS[1], held)
        grown = grown + size - tonumber(string.match(held, ' (%d+) '))
      else
        grown = grown + size
        if test ~= '' then redis.call('ZADD', tests .. test, id, id) end
      end
      redis.call('ZADD', KEYS[1], id, id .. ' ' .. size .. ' ' .. test)
    end
  end
  ids[#ids + 1] = id
end
local bytes = redis.call('INCRBY', KEYS[2], grown)
local count, dropped = redis.call('ZCARD', KEYS[1]), 0
while count > 1 and (count > capacity or bytes > most) do
  local gone, held, test = string.match(redis.call('ZPOPMIN', KEYS[1])[1], '^(%d+) (%d+) (.*)$')
  bytes = bytes - tonumber(held)
  redis.call('UNLINK', entries .. gone)
  if test ~= '' then redis.call('ZREM', tests .. test, gone) end
  count, dropped = count - 1, dropped + 1
end
if dropped > 0 then
  redis.call('SET', KEYS[2], bytes)
  redis.call('INCRBY', KEYS[3], dropped)
end
return ids
