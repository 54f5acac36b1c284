-- KEYS: the posted scenarios' version, the directions (hash: test id -> JSON). ARGV: the test id, whether the
-- request sent its own fault (1/0). Every request's first look: the version (has a posted scenario changed?)
-- and what its test (else everyone) set; a fault given `times` strikes this request unless it sent its own, and
-- is counted down here. Returns the version, the directions as they were (nil: none) and whether it struck.
local version = redis.call('GET', KEYS[1]) or '0'
local field = ARGV[1]
local held = redis.call('HGET', KEYS[2], field)
if not held and field ~= '' then
  field = ''
  held = redis.call('HGET', KEYS[2], field)
end
if not held then return {version, false, 0} end
local struck = 0
if ARGV[2] == '0' then
  local directions = cjson.decode(held)
  local spec, times = directions['spec'], directions['times']
  if type(spec) == 'string' and spec ~= '' and times ~= 0 then
    struck = 1
    if type(times) == 'number' then
      directions['times'] = times - 1
      redis.call('HSET', KEYS[2], field, cjson.encode(directions))
    end
  end
end
return {version, held, struck}
