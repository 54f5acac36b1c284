-- What the shape of each request of one turn of a worker needs, in one call (`RedisStores.before_shape`): first, when
-- asked to look, whether the request may go on as it began (the posted scenarios' version is the one this process
-- holds, and neither its test nor everyone has directions): else the `direct` script's answer, nothing taken, and the
-- request goes round again with the directions applied. Then its attempt's number, and, where asked, the rate-limit
-- buckets' take and the prompt cache's hits, each by the script of its name (`direct`, `buckets`, `cache`, composed
-- before this by `scripts.py` as functions of their own KEYS and ARGV). The version and each test's directions are
-- looked up once a call, however many of its requests ask.
-- The attempts are counted in two generations of a hash: the current one, and the one before it, read for a request
-- the current one has not seen. When the current one holds more than `--max-clients` requests it becomes the one
-- before (the older is dropped): at most twice that many are kept, however many come, as `Recent` keeps them in a
-- process; a request asked again within a generation or two counts on.
-- KEYS: the posted scenarios' version, the directions, the attempts (hash), the attempts before them (hash). ARGV:
-- the version this process holds, seconds to keep the attempts unused, the most requests a generation holds, then
-- for each request: whether to look (1/0), its test id, whether it sent
-- its own fault (1/0), its attempt's field; how many values the buckets take (0: none), then those (their key, then
-- their arguments); how many the cache takes (0: no lookup), then those (its two keys, then its arguments).
-- Returns, for each request: its attempt's number (from 0), the buckets' answer (or false), the cache's hits (or
-- false); or, when it goes round again, three falses and `direct`'s answer.
local held, current, directed, counted = ARGV[1], nil, {}, false
local answers, i = {}, 4
while i <= #ARGV do
  local test, field, taken = ARGV[i + 1], ARGV[i + 3], tonumber(ARGV[i + 4])
  local at = i + 5
  local cached = tonumber(ARGV[at + taken])
  local from = at + taken + 1
  local answer = nil
  if ARGV[i] == '1' then
    if current == nil then current = redis.call('GET', KEYS[1]) or '0' end
    if directed[test] == nil then
      local found = redis.call('HMGET', KEYS[2], test, '')
      directed[test] = (found[1] or found[2]) and true or false
    end
    if directed[test] or current ~= held then
      answer = {false, false, false, direct({KEYS[1], KEYS[2]}, {test, ARGV[i + 2]})}
    end
  end
  if answer == nil then
    local attempt = redis.call('HINCRBY', KEYS[3], field, 1) - 1
    if attempt == 0 then  -- new to this generation: the one before may have counted it
      local before = redis.call('HGET', KEYS[4], field)
      if before then
        attempt = tonumber(before)
        redis.call('HSET', KEYS[3], field, attempt + 1)
      end
    end
    local levels, hits = false, false
    if taken > 0 then levels = buckets({ARGV[at]}, {unpack(ARGV, at + 1, at + taken - 1)}) end
    if cached > 0 then hits = cache({ARGV[from], ARGV[from + 1]}, {unpack(ARGV, from + 2, from + cached - 1)}) end
    answer, counted = {attempt, levels, hits}, true
  end
  answers[#answers + 1] = answer
  i = from + cached
end
if counted then
  if redis.call('HLEN', KEYS[3]) > tonumber(ARGV[3]) then redis.call('RENAME', KEYS[3], KEYS[4]) end
  redis.call('EXPIRE', KEYS[3], ARGV[2])
  redis.call('EXPIRE', KEYS[4], ARGV[2])
end
return answers
