"""What requests share, kept in Redis (`emulator serve --state redis://…`), so that several worker processes, or
replicas behind a proxy, answer as one server. The home of the `redis` package.

`RedisStores` are the stores of a `State` (each the interface the answering path awaits) in Redis instead of this
process's memory. What is loaded (scenario files, cassettes, the writer of default answers) is
each process's own, built alike from the same settings. Every key begins with the prefix (`?prefix=NAME`,
default `emulator`), so that one Redis serves several emulators:

- call counts of `replies` scenarios (a hash per test id) and chaos attempts: HINCRBY;
- rate-limit buckets: each (test id, key)'s levels and when they were read (packed doubles), taken by one Lua
  script that does `limits.Limiter`'s token-bucket arithmetic, so that two workers never spend the same request
  twice;
- prompt caches: per cache key, the prefix blocks in the order last seen and when (a Lua script);
- the journal: ids from INCR; each entry a key holding its record (its fields, its request and its answer as sent:
  the views are built as it is read), written when it is opened and again when its answer is delivered (staged by a
  SET, renamed into place by a Lua script that also keeps the journal within its entries and bytes, oldest out
  first, and counts what it dropped); its order, a sorted set whose members carry each entry's size and test id
  (dropping one needs no lookup); a sorted set of ids per test id, so that a test reads its own;
- posted scenarios: as they were sent, with a version every change bumps; a process that finds the version
  moved parses them again (it looks on every request, in the script that takes what its shape needs);
- per-test faults: JSON in a hash; `times` is counted down in that script, so a fault strikes exactly that many
  requests whichever worker answers them;
- stored responses and threads: a key each, with the store's time to live;
- metrics: each worker publishes its counters once it has answered; `/metrics` sums every worker's.

Where the in-process state is bounded by count (`--max-clients`, the store's entries and bytes, the prompt
cache's keys), keys here expire instead: counters and buckets after a day unused (a bucket left a day is full
again), stored values with the store's time to live, a cache key's blocks with the cache's.

A plain request makes two round trips: one script before it is shaped (the test's directions, the attempt, the
buckets, the prompt cache: `before.lua`), one after it is answered (its journal entry, `journal.lua`, and this
worker's counts, `publish.lua`); the scripts that concurrent requests send in one turn of the event loop go as one
write on a connection of the worker's own: the before-scripts of the turn's requests as one call, their journal
entries as one call, and the counts published once however many answers the write carries.

Its modules, by job: `address` (the `--state` URL, and whether Redis answers at start), `outage` (the client, each
command through the guard that turns the store's failures into 503s and logs an outage once), `batch` (one turn's
scripts in one write), `scripts` (the Lua scripts, `lua/*.lua`, read once), `link` (what every store shares: the
client made after the fork, keys, scripts gathered by turn, `/health`); then one module a store, each the Redis
form of an interface of `emulator.state`: `counters` (counts, buckets, prompt caches), `records` (the journal and
the metrics), `kept`, `posted`, `directions`; and `stores`, the set of them (`RedisStores`: the one round trip
before a request's shape, the reset).
"""

from emulator.state import Settings, State
from emulator.state.redis.address import Address, Unreachable, address
from emulator.state.redis.stores import RedisStores

__all__ = ["Address", "RedisStores", "Unreachable", "address", "shared_state"]


def shared_state(settings: Settings) -> State:
    """A `State` whose stores are in Redis at `settings.state`; what was loaded is this process's own."""
    return State(settings, RedisStores)
