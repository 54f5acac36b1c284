-- What an answer leaves, in one round trip (`State.done`): this worker's counts published (the `publish` script),
-- and, when given, its journal entry written (the `journal` script), both composed before this by `scripts.py`.
-- KEYS: publish's two keys, then journal's seven if it writes. ARGV: publish's three arguments, then journal's six
-- if it writes. Returns the entry's id (0: none written).
publish({KEYS[1], KEYS[2]}, {ARGV[1], ARGV[2], ARGV[3]})
if #KEYS > 2 then
  return journal({unpack(KEYS, 3)}, {unpack(ARGV, 4)})
end
return 0
