-- KEYS: the workers' counts (hash: worker -> JSON), the sequence number of each one's last publication. ARGV: the
-- worker, this publication's number, its counts. A worker's counts are kept only if they are newer than those
-- held: two publications in flight at once, on two connections, could land in either order, and the older one
-- last left `/metrics` a request or two short for good (665 of 666).
local held = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
if tonumber(ARGV[2]) <= held then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
