"""What requests share, kept in Redis (`emulator serve --state redis://…`), so that several worker processes, or
replicas behind a proxy, answer as one server. The home of the `redis` package.

`SharedState` is a `State` whose store methods (the interface the pipeline's shell awaits) read and write Redis
instead of this process's memory. What is loaded (scenario files, cassettes, the writer of default answers) is
each process's own, built alike from the same settings. Every key begins with the prefix (`?prefix=NAME`,
default `emulator`), so that one Redis serves several emulators:

- call counts of `replies` scenarios (a hash per test id) and chaos attempts: HINCRBY;
- rate-limit buckets: each (test id, key)'s levels and when they were read, taken by one Lua script that does
  `limits.Limiter`'s token-bucket arithmetic, so that two workers never spend the same request twice;
- prompt caches: per cache key, the prefix blocks in the order last seen and when (a Lua script);
- the journal: ids from INCR; each entry as its JSON view, written when it is opened and again when its
  answer is delivered, by a Lua script that also keeps the journal within its entries and bytes, oldest out
  first, and counts what it dropped; a sorted set of ids per test id, so that a test reads its own;
- posted scenarios: as they were sent, with a version every change bumps; a process that finds the version
  moved parses them again (it looks on every request, in the same script that reads the test's faults);
- per-test faults: JSON in a hash; `times` is counted down in that script, so a fault strikes exactly that many
  requests whichever worker answers them;
- stored responses and threads: a key each, with the store's time to live;
- metrics: each worker publishes its counters once it has answered; `/metrics` sums every worker's.

Where the in-process state is bounded by count (`--max-clients`, the store's entries and bytes, the prompt
cache's keys), keys here expire instead: counters and buckets after a day unused (a bucket left a day is full
again), stored values with the store's time to live, a cache key's blocks with the cache's.
"""

from __future__ import annotations

import asyncio
import logging
import os
import platform
import re
import time
import urllib.parse
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import redis
import redis.asyncio
from redis.asyncio.retry import Retry
from redis.backoff import NoBackoff

from emulator import journal, limits, metrics, profiles, scenarios
from emulator.answer import CallKey
from emulator.conversation import Prompt
from emulator.errors import StateUnavailable
from emulator.faults import FAULT_HEADER, TIMING_HEADER
from emulator.journal import Delivered, Entry, Note
from emulator.sse import encode, loads
from emulator.state import LAST, Directions, Settings, State
from emulator.store import Scope
from emulator.validation import LENIENT_HEADER
from emulator.wire import Headers

PREFIX = "emulator"
IDLE = 86_400  # seconds a counter or a bucket is kept unused: a bucket left that long is full again
SCHEMES = ("redis", "rediss", "unix")
# Ids, versions and the metrics go on across a reset.
KEPT_ACROSS_RESET = ("journal:next", "journal:dropped", "posted:version", "metrics", "metrics:sequence")
# Seconds a command may take before the store counts as unreachable (a paused Redis never answers), unless the URL
# says otherwise (`?socket_timeout=`): long enough for a whole journal read, short beside a client's timeout.
TIMEOUT = 2.0
CONNECT_TIMEOUT = 1.0
HEALTH_TIMEOUT = 0.5  # `/health` answers within this, whatever the store does
# What a store that is down or full answers, besides a connection refused or a timeout: its refusals in words.
REFUSALS = ("OOM", "MISCONF", "LOADING", "BUSY", "READONLY", "MASTERDOWN", "EXECABORT", "TRYAGAIN")
_log = logging.getLogger("emulator.state")


@dataclass(frozen=True, slots=True)
class Address:
    """Where the shared state lives: the URL as given, the one redis-py connects to (without `prefix`), the
    prefix of every key, and the URL as the banner shows it (no password)."""

    url: str
    connect: str
    prefix: str
    shown: str


def address(url: str) -> Address:
    """`--state`: a redis://, rediss:// or unix:// URL, with `?prefix=NAME` of plain characters if any;
    ValueError, in words, for anything else."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"expected a redis://HOST:PORT[/DB] URL, got {url!r}")
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    prefix = next((v for k, v in query if k == "prefix"), PREFIX)
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", prefix):  # no glob characters: reset scans for `prefix:*`
        raise ValueError(f"prefix: expected letters, digits, '_', '.' or '-', got {prefix!r}")
    rest = parts._replace(query=urllib.parse.urlencode([(k, v) for k, v in query if k != "prefix"]))
    user, at, host = rest.netloc.rpartition("@")
    shown = rest._replace(netloc=f"{'***' if user else ''}{at}{host}")
    return Address(url, _unsplit(rest), prefix, _unsplit(shown))


def _unsplit(parts: urllib.parse.SplitResult) -> str:
    """A URL back from its parts, `unix:///path` kept so (urlunsplit writes `unix:/path` for no host)."""
    text = urllib.parse.urlunsplit(parts)
    return text if parts.netloc else text.replace(":", "://", 1)


class Unreachable(ConnectionError):
    """The Redis that `--state` names does not answer."""


class Outage:
    """Whether the store is failing, since when, and how many operations met it so: the log says so once when an
    outage begins and once when it ends, with the count, never a traceback per request. While the store does not
    answer in time (paused), one command at a time tries it (the probe) and the others fail at once, so that it
    does not hold every request for the timeout; a refused connection or a full store fail fast of themselves. It
    ends at the first success a `QUIET` second after the last failure: a full Redis still answers reads, and a read
    between two refused writes is no recovery."""

    QUIET = 1.0

    def __init__(self, shown: str) -> None:
        self.shown = shown
        self.since: float | None = None  # when the outage began (`time.monotonic`); None: the store answers
        self.last = 0.0  # the last failure the store itself gave
        self.failed = 0  # operations that failed since it began
        self.reason = ""
        self.probing = False
        self.slow = False  # the last failure was a timeout: the store holds what it is sent

    @property
    def down(self) -> bool:
        return self.since is not None

    def admit(self) -> bool:
        """Let a command try the store: whether it is the probe of an outage; `StateUnavailable` at once when
        another command is probing."""
        if self.since is None or not self.slow:
            return False
        if self.probing:
            self.failed += 1
            raise StateUnavailable(self.reason)
        self.probing = True
        return True

    def failure(self, exc: BaseException) -> StateUnavailable:
        """Count a failure the store gave; the error to answer with."""
        now = time.monotonic()
        self.reason = _reason(exc)
        self.slow = isinstance(exc, (redis.TimeoutError, TimeoutError))
        if self.since is None:
            self.since, self.failed = now, 0
            _log.warning(
                "the state store %s is unreachable (%s): answering 503 until it is back",
                self.shown,
                self.reason,
            )
        self.last = now
        self.failed += 1
        return StateUnavailable(self.reason)

    def success(self) -> None:
        if self.since is not None and time.monotonic() - self.last >= self.QUIET:
            took, failed = time.monotonic() - self.since, self.failed
            self.since = None
            _log.warning(
                "the state store %s is back after %.1f s; %d state operations failed meanwhile",
                self.shown,
                took,
                failed,
            )


def _reason(exc: BaseException) -> str:
    """A store's failure in a few words: its class and its message, on one line."""
    # Of a pipeline's failure, what Redis said, not the command it names (its keys and arguments).
    text = " ".join(str(exc).rpartition("caused error: ")[2].split())[:200]
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


_REFUSED = (redis.exceptions.OutOfMemoryError, redis.exceptions.ReadOnlyError, redis.exceptions.TryAgainError)


def _outage(exc: BaseException) -> bool:
    """Whether a command's failure is the store's (down, paused, full, loading) rather than a bug of ours."""
    if isinstance(exc, redis.exceptions.NoScriptError):  # not loaded yet: redis-py loads it and tries again
        return False
    if isinstance(exc, (redis.ConnectionError, redis.TimeoutError, OSError, *_REFUSED)):
        return True
    if isinstance(exc, RuntimeError) and "closed" in str(exc):  # uvloop's word for a connection Redis dropped
        return True
    # A pipeline names the command first: "Command # 1 (HINCRBY …) of pipeline caused error: OOM command not …".
    said = str(exc).rpartition("caused error: ")[2].lstrip()
    return isinstance(exc, redis.ResponseError) and said.startswith(REFUSALS)


class _Store(redis.asyncio.Redis):
    """redis-py's client, each command (and each pipeline) through the `Outage`: a failure of the store raises
    `StateUnavailable`, whatever state method sent it."""

    outage: Outage

    async def execute_command(self, *args: Any, **options: Any) -> Any:
        return await _guarded(self.outage, super().execute_command(*args, **options))  # type: ignore[no-untyped-call]

    def pipeline(self, transaction: bool = True, shard_hint: str | None = None) -> Any:
        pipe = _Pipeline(self.connection_pool, self.response_callbacks, transaction, shard_hint)
        pipe.outage = self.outage
        return pipe


class _Pipeline(redis.asyncio.client.Pipeline):
    outage: Outage

    async def execute(self, raise_on_error: bool = True) -> Any:
        return await _guarded(self.outage, super().execute(raise_on_error))


async def _guarded(outage: Outage, command: Any) -> Any:
    """Await a command through `outage`."""
    try:
        probe = outage.admit()
    except StateUnavailable:
        command.close()  # never awaited: the store is not asked
        raise
    try:
        result = await command
    except Exception as exc:
        if _outage(exc):
            raise outage.failure(exc) from None
        raise
    finally:
        if probe:
            outage.probing = False
    outage.success()
    return result


# --- the scripts: each runs atomically in Redis ------------------------------------------------------------

# KEYS: the hash of a test id's buckets. ARGV: the API key, now, the request's tokens, whether to enforce (1/0),
# seconds to keep the hash unused, then for each bucket its size, its rate (per second) and whether it counts
# tokens (1/0). The arithmetic of `limits.Limiter.take` and `_report`; levels as %.17g, exact. Returns each
# level after the take, the bucket that refused (1-based; 0: none) and the seconds until the request would fit.
BUCKETS = """
local now, tokens, enforce = tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4] == '1'
local n = (#ARGV - 5) / 3
local levels, read, at = {}, redis.call('HGET', KEYS[1], ARGV[1]), now
if read then
  for value in string.gmatch(read, '%S+') do levels[#levels + 1] = tonumber(value) end
  at = levels[n + 1]
else
  for i = 1, n do levels[i] = tonumber(ARGV[3 + 3 * i]) end
end
local elapsed = now - at
if elapsed < 0 then elapsed, now = 0, at end  -- another worker read the clock later: its reading stands
local wants, wait, spent = {}, 0, 0
for i = 1, n do
  local size, rate = tonumber(ARGV[3 + 3 * i]), tonumber(ARGV[4 + 3 * i])
  local level = levels[i] + elapsed * rate
  if level > size then level = size end
  levels[i] = level
  wants[i] = ARGV[5 + 3 * i] == '1' and tokens or 1
  -- a request larger than the whole bucket goes through when the bucket is full, leaving it in debt
  if enforce and wants[i] > level and level < size then
    local needed = (math.min(wants[i], size) - level) / rate
    if needed > wait then wait, spent = needed, i end
  end
end
local out = {}
for i = 1, n do
  if spent == 0 then levels[i] = levels[i] - wants[i] end
  if not enforce and levels[i] < 0 then levels[i] = 0 end
  out[i] = string.format('%.17g', levels[i])
end
out[n + 1] = string.format('%.17g', now)
redis.call('HSET', KEYS[1], ARGV[1], table.concat(out, ' '))
redis.call('EXPIRE', KEYS[1], ARGV[5])
out[n + 1] = tostring(spent)
out[n + 2] = string.format('%.17g', wait)
return out
"""

# KEYS: a cache key's blocks in the order they were last seen (a sorted set, by a sequence), and when each was
# (a hash; its field "" holds the sequence). ARGV: now, the cache's ttl and capacity, then the prompt's prefix
# blocks. `profiles.PromptCache.cached_tokens`: the expired go, oldest first; the blocks served are counted from
# the first until one is missing; then every block is seen now, in order, and the oldest go past the capacity.
CACHE = """
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
"""

# KEYS: the entries (hash: id -> JSON), their ids (sorted set), the bytes held, the count dropped, each entry's
# test id (hash), the next id, this entry's test's ids (sorted set). ARGV: the entry's JSON, its id (0: a new
# entry, given the next id), the journal's capacity and bytes, the prefix of a test's ids' key, the test id.
# Returns the id; 0 when the entry to complete is no longer held.
JOURNAL = """
local id = tonumber(ARGV[2])
if id == 0 then
  id = redis.call('INCR', KEYS[6])
  redis.call('ZADD', KEYS[2], id, id)
  redis.call('ZADD', KEYS[7], id, id)
  redis.call('HSET', KEYS[5], id, ARGV[6])
elseif not redis.call('ZSCORE', KEYS[2], id) then
  return 0
end
local bytes = redis.call('INCRBY', KEYS[3], #ARGV[1] - redis.call('HSTRLEN', KEYS[1], id))
redis.call('HSET', KEYS[1], id, ARGV[1])
local count, dropped = redis.call('ZCARD', KEYS[2]), 0
while count > 1 and (count > tonumber(ARGV[3]) or bytes > tonumber(ARGV[4])) do
  local oldest = redis.call('ZPOPMIN', KEYS[2])[1]
  bytes = bytes - redis.call('HSTRLEN', KEYS[1], oldest)
  redis.call('HDEL', KEYS[1], oldest)
  local test = redis.call('HGET', KEYS[5], oldest)
  if test then redis.call('ZREM', ARGV[5] .. test, oldest) end
  redis.call('HDEL', KEYS[5], oldest)
  count, dropped = count - 1, dropped + 1
end
if dropped > 0 then
  redis.call('SET', KEYS[3], bytes)
  redis.call('INCRBY', KEYS[4], dropped)
end
return id
"""

# KEYS: the entries, their ids, the bytes held, each entry's test id, one test's ids. Forgets that test's entries.
FORGET_TEST = """
local ids, freed = redis.call('ZRANGE', KEYS[5], 0, -1), 0
for _, id in ipairs(ids) do
  freed = freed + redis.call('HSTRLEN', KEYS[1], id)
  redis.call('HDEL', KEYS[1], id)
  redis.call('ZREM', KEYS[2], id)
  redis.call('HDEL', KEYS[4], id)
end
redis.call('DEL', KEYS[5])
if freed > 0 then redis.call('DECRBY', KEYS[3], freed) end
return #ids
"""

# KEYS: the posted scenarios' version, the directions (hash: test id -> JSON). ARGV: the test id, whether the
# request sent its own fault (1/0). Every request's first look: the version (has a posted scenario changed?)
# and what its test (else everyone) set; a fault given `times` strikes this request unless it sent its own, and
# is counted down here. Returns the version, the directions as they were (nil: none) and whether it struck.
DIRECT = """
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
"""

# KEYS: the posted scenarios (hash: test id NUL name -> "version index" LF source), their version. ARGV: field,
# source, field, source, …. One of a name already posted for the test is replaced, and becomes the newest.
POST = """
local version = redis.call('INCR', KEYS[2])
for i = 1, #ARGV, 2 do
  redis.call('HSET', KEYS[1], ARGV[i], version .. ' ' .. (i + 1) / 2 .. '\\n' .. ARGV[i + 1])
end
return version
"""

# KEYS: the posted scenarios, their version. ARGV: fields. Removes them; the version moves if any was there.
UNPOST = """
local removed = redis.call('HDEL', KEYS[1], unpack(ARGV))
if removed > 0 then redis.call('INCR', KEYS[2]) end
return removed
"""

# KEYS: the workers' counts (hash: worker -> JSON), the sequence number of each one's last publication. ARGV: the
# worker, this publication's number, its counts. A worker's counts are kept only if they are newer than those
# held: two publications in flight at once, on two connections, could land in either order, and the older one
# last left `/metrics` a request or two short for good (665 of 666).
PUBLISH = """
local held = tonumber(redis.call('HGET', KEYS[2], ARGV[1]) or '-1')
if tonumber(ARGV[2]) <= held then return 0 end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('HSET', KEYS[1], ARGV[1], ARGV[3])
return 1
"""

# KEYS: a test id's sequences of response ids (hash). ARGV: the sequence's field (key NUL body digest), the field of
# the retry asked for ('' when none), seconds to keep the hash unused, the suffix of the field of the number issued
# last. `State.issue`: a retry takes the number kept for it; else the sequence's next number, kept as the last issued
# (and for the retry's field, when given).
ISSUE = """
if ARGV[2] ~= '' then
  local held = redis.call('HGET', KEYS[1], ARGV[2])
  if held then return tonumber(held) end
end
local number = redis.call('HINCRBY', KEYS[1], ARGV[1], 1) - 1
redis.call('HSET', KEYS[1], ARGV[1] .. ARGV[4], number)
if ARGV[2] ~= '' then redis.call('HSET', KEYS[1], ARGV[2], number) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
return number
"""

SCRIPTS = {
    "publish": PUBLISH,
    "buckets": BUCKETS,
    "cache": CACHE,
    "journal": JOURNAL,
    "forget_test": FORGET_TEST,
    "direct": DIRECT,
    "post": POST,
    "unpost": UNPOST,
    "issue": ISSUE,
}


class SharedState(State):
    """A `State` whose shared part lives in Redis (see the module's doc). The client is made in the process that
    first uses it: a worker, after the fork; building this checks that Redis answers, or raises `Unreachable`."""

    def __init__(self, settings: Settings = Settings()) -> None:
        super().__init__(settings)
        if settings.state is None:
            raise ValueError("SharedState needs settings.state, a redis:// URL")
        self.address = address(settings.state)
        _ping(self.address)
        self.worker = ""  # host:pid of the process serving, once it serves: in the journal and the metrics
        # Any: redis-py types each reply as what either of its clients (sync, async) might return, bytes or str
        self._redis: Any = None
        self._pid = 0
        self._scripts: dict[str, Any] = {}
        self._version: bytes | None = None  # of the posted scenarios this process holds
        self._parsed: dict[bytes, tuple[bytes, scenarios.Scenario]] = {}  # field -> (its stamp, the scenario)
        self._open: dict[int, Entry] = {}  # journal entries opened here and not yet delivered
        self.outage = Outage(self.address.shown)
        self._published = 0  # this process's publications of its counts, numbered
        self._buckets = limits.sizes(settings.limits)
        # The buckets as the script takes them: size, rate and whether it counts tokens, for each.
        self._plan = [
            arg for name, size, rate in self._buckets for arg in (size, repr(rate), int(name == "tokens_per_minute"))
        ]

    # --- plumbing ------------------------------------------------------------------------------------------

    def _client(self) -> Any:
        """This process's client: made on first use, and again in a process forked after that."""
        if self._redis is None or self._pid != os.getpid():
            options: dict[str, Any] = {"socket_timeout": TIMEOUT, "socket_connect_timeout": CONNECT_TIMEOUT}
            # One try more for a connection found closed (Redis restarted since it was pooled), none for a timeout,
            # and no backoff: the caller answers 503 at once rather than wait seconds for the store.
            retry = Retry(NoBackoff(), 1, supported_errors=(redis.ConnectionError,))
            self._redis = _Store.from_url(self.address.connect, retry=retry, **options)  # the URL's options win
            self._redis.outage = self.outage
            self._pid = os.getpid()
            self.worker = f"{platform.node()}:{self._pid}"
            self._scripts = {name: self._redis.register_script(lua) for name, lua in SCRIPTS.items()}
        return self._redis

    async def close(self) -> None:
        """Close this process's connections (at the end of the loop they were made in)."""
        if self._redis is not None and self._pid == os.getpid():
            await self._redis.aclose()
        self._redis = None

    def _key(self, *parts: str) -> str:
        return f"{self.address.prefix}:{''.join(parts)}"

    async def _run(self, script: str, keys: Sequence[str], args: Sequence[Any], client: Any = None) -> Any:
        self._client()
        return await self._scripts[script](keys=keys, args=args, client=client)

    async def _count(self, key: str, field: str) -> int:
        """The count at `field` of the hash `key` before this one; counted once more, kept a day unused."""
        async with self._client().pipeline(transaction=False) as pipe:
            pipe.hincrby(key, field, 1)
            pipe.expire(key, IDLE)
            counted, _ = await pipe.execute()
        return int(counted) - 1

    # --- counters, buckets, caches ---------------------------------------------------------------------------

    async def next_call(self, key: CallKey) -> int:
        test_id, scenario, api_key = key
        return await self._count(self._key("calls:", test_id), f"{scenario}\0{api_key}")

    async def next_attempt(self, request: tuple[str, str, str]) -> int:
        return await self._count(self._key("attempts"), "\0".join(request))

    async def issue(self, sequence: tuple[str, str, str], retry: str | None) -> int:
        test_id, api_key, digest = sequence
        field = f"{api_key}\0{digest}"
        asked = "" if retry is None else field + retry
        return int(await self._run("issue", [self._key("issued:", test_id)], [field, asked, IDLE, LAST]))

    async def take(self, scope: tuple[str, str], tokens: int, now: float) -> limits.Verdict:
        return await self._take(scope, tokens, now, self.settings.limits.enforce)

    async def report(self, scope: tuple[str, str], tokens: int, now: float, flavor: str) -> Headers:
        return limits.headers(flavor, await self._take(scope, tokens, now, False), now)

    async def _take(self, scope: tuple[str, str], tokens: int, now: float, enforce: bool) -> limits.Verdict:
        args = [scope[1], repr(now), tokens, int(enforce), IDLE, *self._plan]
        out = await self._run("buckets", [self._key("buckets:", scope[0])], args)
        n = len(self._buckets)
        spent, wait = int(out[n]), float(out[n + 1])
        buckets = {}
        for (name, size, rate), raw in zip(self._buckets, out[:n], strict=True):
            buckets[name] = limits.bucket(size, float(raw), rate)
        return limits.Verdict(spent == 0, buckets, wait, self._buckets[spent - 1][0] if spent else None)

    async def cached_tokens(self, profile: profiles.Profile, prompt: Prompt, now: float) -> int:
        model, key = profile.cache, prompt.cache_key
        if model is None or not key:
            return 0
        blocks = profiles.prefix_blocks(prompt, model.block)
        args = [repr(now), repr(model.ttl), model.capacity, *blocks]
        keys = [self._key("cache:", profile.name, ":", key), self._key("cache-seen:", profile.name, ":", key)]
        return int(await self._run("cache", keys, args)) * model.block

    # --- the journal -------------------------------------------------------------------------------------------

    def _journal_keys(self, test_id: str) -> list[str]:
        names = ("entries", "ids", "bytes", "dropped", "tests", "next")
        return [*(self._key("journal:", name) for name in names), self._key("journal:test:", test_id)]

    def _journalled(self, entry: Entry, delivered: Delivered | None, client: Any = None) -> Any:
        """Write an entry's view (a new one when its id is 0); the script's answer, its id, awaited."""
        view = journal.view(entry, delivered)
        del view["id"]  # the script gives a new entry its id: it is the field the view is kept under
        view["worker"] = self.worker
        settings = self.settings
        args = [encode([entry.status, view]), entry.id, settings.journal_size, settings.journal_bytes]
        args += [self._key("journal:test:"), entry.test_id]
        return self._run("journal", self._journal_keys(entry.test_id), args, client)

    async def open(self, note: Note) -> int:
        self._client()
        entry = journal.noted(0, note, time.time())
        entry_id = int(await self._journalled(entry, None))
        self._open[entry_id] = entry._replace(id=entry_id)
        if len(self._open) > self.settings.journal_size:  # one never delivered (a bug's): not kept for ever
            del self._open[next(iter(self._open))]
        return entry_id

    async def end(self, entry: int, ended: str) -> None:
        held = self._open.get(entry)
        if held is not None:  # its delivery writes it, with this
            self._open[entry] = held._replace(ended=ended)
            return
        client = self._client()
        try:
            raw = await client.hget(self._key("journal:entries"), str(entry))
            if raw is not None:
                planned, view = loads(raw)
                await client.hset(self._key("journal:entries"), str(entry), encode([planned, view | {"ended": ended}]))
        except StateUnavailable:
            pass  # the answer went out; the outage is logged and counted

    async def done(self, entry: int | None, delivered: Delivered, endpoint: str, profile: str) -> None:
        """As `State.done`; the store failing here is counted in its outage, never raised: the answer went out."""
        held = self._open.pop(entry, None) if entry is not None else None
        self.meter.count(endpoint, profile, delivered, held and (held.source, held.kind, held.usage))
        try:
            async with self._client().pipeline(transaction=False) as pipe:
                if held is not None:
                    await self._journalled(held, delivered, pipe)
                await self._publish(pipe)
                await pipe.execute()
        except StateUnavailable:
            pass

    def _publish(self, client: Any = None) -> Any:
        """Publish this worker's counts as they stand, numbered, so that an older publication landing later
        does not replace them (`PUBLISH`); awaited."""
        self._published += 1
        args = [self.worker, self._published, encode(metrics.snapshot(self.meter))]
        return self._run("publish", [self._key("metrics"), self._key("metrics:sequence")], args, client)

    async def _views(self, test_id: str | None, since: int = 0) -> list[tuple[int | None, dict[str, Any]]]:
        """The journal's entries after id `since`, all or one test's, oldest first: (the status their note
        planned, their view)."""
        client = self._client()
        index = self._key("journal:ids") if test_id is None else self._key("journal:test:", test_id)
        ids = await client.zrangebyscore(index, f"({since}", "+inf")
        if not ids:
            return []
        found = []
        for entry_id, raw in zip(ids, await client.hmget(self._key("journal:entries"), ids), strict=True):
            if raw is not None:  # dropped meanwhile
                planned, view = loads(raw)
                found.append((planned, {"id": int(entry_id)} | view))
        return found

    async def entries(self, test_id: str | None = None) -> list[Entry]:
        return [_entry(planned, view) for planned, view in await self._views(test_id)]

    async def find(self, where: Mapping[str, str], since: int = 0, bodies: bool = True) -> list[dict[str, Any]]:
        found = []
        for _, view in await self._views(where.get("test_id"), since):
            summary = {k: v for k, v in view.items() if k not in journal.FULL_ONLY}
            if journal.matches(summary, where):
                found.append(view if bodies else summary)
        return found

    async def entry(self, entry: int) -> dict[str, Any] | None:
        raw = await self._client().hget(self._key("journal:entries"), str(entry))
        return None if raw is None else {"id": entry} | loads(raw)[1]

    async def dropped(self) -> int:
        return int(await self._client().get(self._key("journal:dropped")) or 0)

    async def clear(self, test_id: str | None = None) -> None:
        if test_id is not None:
            keys = self._journal_keys(test_id)
            await self._run("forget_test", [keys[0], keys[1], keys[2], keys[4], keys[6]], [])
            return
        client = self._client()
        tests = [key async for key in client.scan_iter(match=self._key("journal:test:*"), count=1000)]
        await client.delete(*(self._key("journal:", name) for name in ("entries", "ids", "bytes", "tests")), *tests)

    # --- posted scenarios and the tests' directions --------------------------------------------------------

    async def refresh(self) -> None:
        await self._catch_up(await self._client().get(self._key("posted:version")) or b"0")

    async def _catch_up(self, version: bytes) -> None:
        """Hold the posted scenarios of `version`, unless they are held already: each parsed again only when it
        changed."""
        if version == self._version:
            return
        async with self._client().pipeline(transaction=True) as pipe:  # the scenarios and their version, as one
            pipe.get(self._key("posted:version"))
            pipe.hgetall(self._key("posted"))
            version, held = await pipe.execute()
        parsed, found = {}, []
        for field, value in held.items():
            stamp, _, source = value.partition(b"\n")
            known = self._parsed.get(field)
            if known is None or known[0] != stamp:
                known = (stamp, scenarios.parse(loads(source))[0])
            parsed[field] = known
            found.append((tuple(map(int, stamp.split())), field.decode().partition("\0")[0], known[1]))
        posted: dict[str, dict[str, scenarios.Scenario]] = {}
        for _, test_id, scenario in sorted(found, key=lambda f: f[0]):  # oldest first, as `State.post` keeps them
            posted.setdefault(test_id, {})[scenario.name] = scenario
        self._posted, self._parsed, self._books = posted, parsed, {}
        self._version = version or b"0"

    async def post(self, test_id: str, posted: Sequence[scenarios.Scenario], sources: Sequence[Any] = ()) -> list[str]:
        if len(sources) != len(posted):
            raise ValueError("a shared state keeps posted scenarios as sent: give each one's source")
        args = [
            arg for s, source in zip(posted, sources, strict=True) for arg in (f"{test_id}\0{s.name}", encode(source))
        ]
        await self._run("post", [self._key("posted"), self._key("posted:version")], args)
        await self.refresh()
        return [s.name for s in posted]

    async def unpost(self, test_id: str, name: str) -> bool:
        removed = await self._run("unpost", [self._key("posted"), self._key("posted:version")], [f"{test_id}\0{name}"])
        await self.refresh()
        return bool(removed)

    async def listing(self) -> list[dict[str, Any]]:
        await self.refresh()
        return await super().listing()

    @property
    def directed(self) -> bool:
        """Always: another worker may have been told, so every request looks (`headers_for`)."""
        return True

    async def direct(self, test_id: str, directions: Directions) -> None:
        await self._client().hset(self._key("directions"), test_id, encode(asdict(directions)))

    async def undirect(self, test_id: str) -> bool:
        return bool(await self._client().hdel(self._key("directions"), test_id))

    async def directions(self, test_id: str) -> Directions | None:
        mine, everyone = await self._client().hmget(self._key("directions"), [test_id, ""])
        held = mine or everyone
        return None if held is None else Directions(**loads(held))

    async def headers_for(self, test_id: str, sent: Mapping[str, str]) -> dict[str, str]:
        """As `State.headers_for`, a fault's `times` counted down in Redis; and, since every request of a shared
        state comes here first, the posted scenarios are brought up to date on the way."""
        keys = [self._key("posted:version"), self._key("directions")]
        version, held, struck = await self._run("direct", keys, [test_id, int(FAULT_HEADER in sent)])
        await self._catch_up(version)
        if held is None:
            return {}
        directions = loads(held)
        added = {FAULT_HEADER: directions["spec"]} if struck else {}
        if directions.get("timing") and TIMING_HEADER not in sent:
            added[TIMING_HEADER] = directions["timing"]
        if directions.get("scenario") and scenarios.SCENARIO_HEADER not in sent:
            added[scenarios.SCENARIO_HEADER] = directions["scenario"]
        if directions.get("lenient"):
            added[LENIENT_HEADER] = "1"
        return added

    # --- stored responses and threads ------------------------------------------------------------------------

    def _kept_at(self, scope: Scope, key: str) -> str:
        return self._key("kept:", "\0".join((*scope, key)))

    async def recall(self, scope: Scope, keys: Sequence[str]) -> list[Any]:
        found = await self._client().mget([self._kept_at(scope, key) for key in keys])
        return [None if held is None else loads(held) for held in found]

    async def keep(self, scope: Scope, values: Mapping[str, Any]) -> None:
        bounds, index = self.settings.kept, self._key("kept-index:", scope[0])
        async with self._client().pipeline(transaction=False) as pipe:
            for key, value in values.items():
                encoded = encode(value)
                if len(encoded) <= bounds.size:  # as `Store.put`: a value larger than the whole store is not kept
                    pipe.set(self._kept_at(scope, key), encoded, px=_ms(bounds.ttl))
                    pipe.sadd(index, self._kept_at(scope, key))
            pipe.pexpire(index, _ms(bounds.ttl))
            await pipe.execute()

    async def claim(self, scope: Scope, key: str, value: Any) -> Any:
        encoded, kept = encode(value), self._kept_at(scope, key)
        client = self._client()
        held = await client.set(kept, encoded, nx=True, get=True, px=_ms(self.settings.kept.ttl))
        if held is None:
            await client.sadd(self._key("kept-index:", scope[0]), kept)
        return loads(held if isinstance(held, bytes) else encoded)

    async def forget(self, scope: Scope, key: str) -> bool:
        return bool(await self._client().delete(self._kept_at(scope, key)))

    def _list_at(self, scope: Scope, listing: str) -> str:
        return self._key("list:", "\0".join((*scope, listing)))

    async def enlist(self, scope: Scope, listing: str, item: str) -> None:
        at, bounds = self._list_at(scope, listing), self.settings.kept
        async with self._client().pipeline(transaction=True) as pipe:
            pipe.lrem(at, 0, item)
            pipe.rpush(at, item)
            pipe.ltrim(at, -bounds.entries, -1)
            pipe.pexpire(at, _ms(bounds.ttl))
            pipe.sadd(self._key("kept-index:", scope[0]), at)  # forgotten with the test's kept values
            await pipe.execute()

    async def enlisted(self, scope: Scope, listing: str) -> list[str]:
        return [item.decode() for item in await self._client().lrange(self._list_at(scope, listing), 0, -1)]

    async def delist(self, scope: Scope, listing: str, item: str) -> None:
        await self._client().lrem(self._list_at(scope, listing), 0, item)

    # --- metrics and reset -------------------------------------------------------------------------------------

    async def health(self) -> str:
        """ "ok", or "unreachable" while the store fails (asked with a PING, within `HEALTH_TIMEOUT`)."""
        try:
            await asyncio.wait_for(self._client().ping(), HEALTH_TIMEOUT)
        except StateUnavailable:
            return "unreachable"
        except TimeoutError as exc:
            self.outage.failure(exc)
            return "unreachable"
        return "unreachable" if self.outage.down else "ok"

    async def metered(self) -> metrics.Meter:
        client = self._client()
        await self._publish()
        return metrics.total(loads(raw) for raw in await client.hvals(self._key("metrics")))

    async def reset(self, test_id: str | None = None) -> None:
        client = self._client()
        if test_id is None:
            kept = {self._key(name).encode() for name in KEPT_ACROSS_RESET}
            found = [k async for k in client.scan_iter(match=self._key("*"), count=1000) if k not in kept]
            if found:
                await client.unlink(*found)
            await client.incr(self._key("posted:version"))
            await self.refresh()
            return
        await self.clear(test_id)
        index = self._key("kept-index:", test_id)
        caches = [k async for k in client.scan_iter(match=self._key("cache*"), count=1000)]
        held = [f for f in await client.hkeys(self._key("posted")) if f.startswith(f"{test_id}\0".encode())]
        async with client.pipeline(transaction=False) as pipe:
            pipe.delete(self._key("calls:", test_id), self._key("buckets:", test_id), self._key("attempts"), *caches)
            pipe.hdel(self._key("directions"), test_id)
            pipe.smembers(index)
            pipe.delete(index, self._key("issued:", test_id))
            stored = (await pipe.execute())[2]
        if stored:
            await client.delete(*stored)
        if held:
            await self._run("unpost", [self._key("posted"), self._key("posted:version")], held)
        await self.refresh()


def _ping(found: Address) -> None:
    """Raise `Unreachable` unless the Redis at `found` answers (asked once, at start, by a client of its own)."""
    client = redis.Redis.from_url(found.connect, socket_connect_timeout=5, socket_timeout=5)
    try:
        client.ping()
    except redis.RedisError as exc:
        raise Unreachable(f"the state store {found.shown} (--state) does not answer: {exc}") from None
    finally:
        client.close()


def _entry(planned: int | None, view: Mapping[str, Any]) -> Entry:
    """A journal entry back from its view, for the client report: bodies and headers are not needed there."""
    usage = view.get("usage")
    fields = {name: view.get(name) for name in Entry._fields}
    tokens = usage and tuple(usage[name] for name in journal.TOKENS)
    lenient = tuple(view.get("lenient") or ())
    return Entry(**fields | {"status": planned, "headers": {}, "body": b"", "usage": tokens, "lenient": lenient})


def _ms(seconds: float) -> int:
    return max(1, round(seconds * 1000))
