-- KEYS: a cache key's blocks in the order they were last seen (a sorted set, by a sequence), and when each was
-- (a hash; its field "" holds the sequence). ARGV: now, the cache's ttl and capacity, then the prompt's prefix
-- blocks. `caches.PromptCache.cached_tokens`: the expired go, oldest first; the blocks served are counted from
-- the first until one is missing; then every block is seen now, in order, and the oldest go past the capacity.
local now, ttl, capacity = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
while true do
  local oldest = redis.call('ZRANGE', KEYS[1], 0, 0)[1]
  if not oldest or now - tonumber(redis.call('HGET', KEYS[2], oldest)) <= ttl then break end
  redis.call('ZREM', KEYS[1], oldest)
  redis.call('HDEL', KEYS[2], oldest)
end
local hits, missed, seq = 0, false, tonumber(redis.call('HGET', KEYS[2], '') or '0')
for i = 4, #ARGV do
  if not missed and redis.call('ZSCORE', KEYS[1], ARGV[i]) then hits = hits + 1 else missed = true end
  seq = seq + 1
  redis.call('ZADD', KEYS[1], seq, ARGV[i])
  redis.call('HSET', KEYS[2], ARGV[i], ARGV[1])
end
redis.call('HSET', KEYS[2], '', seq)
for _ = capacity + 1, redis.call('ZCARD', KEYS[1]) do
  redis.call('HDEL', KEYS[2], redis.call('ZPOPMIN', KEYS[1])[1])
end
redis.call('PEXPIRE', KEYS[1], math.ceil(ttl * 1000))
redis.call('PEXPIRE', KEYS[2], math.ceil(ttl * 1000))
return hits
