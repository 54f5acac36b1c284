-- KEYS: a test id's sequences of response ids (hash). ARGV: the sequence's field (key NUL body digest), the field of
-- the retry asked for ('' when none), seconds to keep the hash unused, the suffix of the field of the number issued
-- last. `Counts.issue`: a retry takes the number kept for it; else the sequence's next number, kept as the last issued
-- (and for the retry's field, when given).
if ARGV[2] ~= '' then
  local held = redis.call('HGET', KEYS[1], ARGV[2])
  if held then return tonumber(held) end
end
local number = redis.call('HINCRBY', KEYS[1], ARGV[1], 1) - 1
redis.call('HSET', KEYS[1], ARGV[1] .. ARGV[4], number)
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], ARGV[2], number) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return number
