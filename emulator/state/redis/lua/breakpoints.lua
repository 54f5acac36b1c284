-- KEYS: a prompt's prefixes, one key each (`Prompt.prefixes`). ARGV: per prefix, its tokens and, for a breakpoint
-- long enough to cache, its lifetime in ms (else 0). `caches.BreakpointCache.read`: the longest prefix held is
-- read and its lifetime starts over; then every breakpoint is written for its lifetime. A key holds "tokens:ms".
local read, hit, life = 0, nil, 0
for i = 1, #KEYS do
  local held = redis.call('GET', KEYS[i])
  if held then
    local tokens, ms = string.match(held, '^(%d+):(%d+)$')
    if tonumber(tokens) > read then read, hit, life = tonumber(tokens), KEYS[i], tonumber(ms) end
  end
end
if hit then redis.call('PEXPIRE', hit, life) end
for i = 1, #KEYS do
  local ms = tonumber(ARGV[2 * i])
  if ms > 0 then redis.call('SET', KEYS[i], ARGV[2 * i - 1] .. ':' .. ms, 'PX', ms) end
end
return read
