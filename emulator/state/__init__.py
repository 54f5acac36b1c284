"""The server's state, in one object built from `Settings`: what was loaded (scenarios, recordings, the
writer of default answers) and what requests share as they arrive (call counts, chaos attempts, rate-limit
buckets, prompt caches, the journal).

The methods over what requests share are async: they are the store interface that a shared store (for
several worker processes) implements. Only the pipeline's shell awaits them, before and after the pure
stages, which receive plain values.

Layer: above the journal and the sources, below the answering stages that await it. `kept` is the bounded store
of what the public APIs keep, `metrics` the counters `/metrics` shows, `redis/` the same state in Redis.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from emulator import journal, recordings, scenarios
from emulator.core import recent
from emulator.core.conversation import Fault, Prompt, Timing
from emulator.core.recent import Recent
from emulator.core.sse import encode, loads
from emulator.core.wire import Headers, Pairs
from emulator.default_model.generate import Writer
from emulator.dialects import anthropic_messages, openai_chat, openai_responses
from emulator.journal import Delivered, Entry, Journal, Note
from emulator.rules import limits, profiles
from emulator.rules.faults import FAULT_HEADER, TIMING_HEADER
from emulator.rules.validation import LENIENT_HEADER
from emulator.state import kept, metrics
from emulator.state.kept import Scope, Store

CallKey = tuple[str, str, str]  # what a `replies` scenario counts calls by: (test id, scenario, API key)
LAST = "\0last"  # `State.issue`'s retry that takes the number issued last (a retry the SDK counted)
# Which dialect reads a recording back, by its path from /v1/ on: for replay in another dialect.
READERS = {"/v1/chat/completions": openai_chat, "/v1/responses": openai_responses, "/v1/messages": anthropic_messages}


@dataclass(frozen=True)
class Settings:
    """What `emulator serve` configures; every field has a default that suits tests."""

    scenarios: Sequence[Path] = field(default_factory=tuple)
    seed: int = 0
    frozen_time: int | None = None  # `created` for every response; None follows the real clock
    max_body_bytes: int = 32 * 1024 * 1024
    fault: Fault | None = None  # for every request (`--fault`); a scenario's or a header's wins
    timing: Timing | None = None  # for every request (`--timing`)
    limits: limits.Limits = limits.DEFAULT  # per API key; by default they report and never refuse
    profile: str = profiles.DEFAULT  # the upstream plain /v1 stands in for; /NAME/v1 picks another
    recordings: Sequence[Path] = field(default_factory=tuple)  # cassettes (files or directories) to replay
    replay_speed: float = 1.0  # scales the recorded gaps: 0 replays as fast as possible
    strict: bool = False  # replay only: a request no recording matches is an error naming the nearest one
    models: Sequence[str] = ()  # more models the public profiles know (`--model`), beside their catalogs
    lenient: bool = False  # the public profiles accept unknown models and fields, and journal what they let by
    max_clients: int = recent.CAPACITY  # (test id, key, conversation)s whose counts are kept; least recent go
    journal_size: int = journal.CAPACITY  # entries the journal keeps; the oldest go first
    journal_bytes: int = journal.MAX_BYTES  # bytes of bodies the journal keeps; the oldest go first
    kept: kept.Bounds = kept.DEFAULT  # stored responses and threads: how many, how many bytes, how long
    scrub: Sequence[tuple[str, str]] = ()  # (pattern, replacement) for request bodies, before matching recordings
    host: str = "127.0.0.1"  # the address bound: beyond loopback, the admin API needs `admin_token`
    admin_token: str | None = None
    state: str | None = None  # where what requests share is kept: None in this process, else a redis:// URL


@dataclass
class Directions:
    """What a test set for its own requests (`POST /_emulator/faults`, these its fields), each in its header's
    grammar: a fault's spec and how many more requests it strikes (None: all), pacing, a scenario by name."""

    spec: str | None = None  # the fault
    times: int | None = None
    timing: str | None = None
    scenario: str | None = None
    lenient: bool = False  # the public profiles accept unknown models and fields (`x-emulator-lenient`)


Look = tuple[str, Mapping[str, str]]  # a request's test id and headers, for its test's directions to be looked up


class Before(NamedTuple):
    """`State.before_shape`: the prompt cache's tokens, the attempt's number, the rate limits' verdict (where
    enforced) and headers; or, when it was asked to look up the test's directions and found any (or posted
    scenarios changed), only the headers they add (`again`): nothing was taken, and the request goes round again."""

    cached: int
    attempt: int
    verdict: limits.Verdict | None = None
    rates: Pairs = ()
    again: dict[str, str] | None = None


_tuple = tuple.__new__


class State:
    """Scenario files are read and validated, and cassettes loaded, once: here."""

    # Its coroutines never wait, so a request can be answered outside any task (`server.in_task`); a shared store's
    # (RedisState) do.
    in_process = True

    def __init__(self, settings: Settings = Settings()) -> None:
        self.settings = settings
        self.book = scenarios.load(settings.scenarios)
        scrubber = recordings.Scrubber() + settings.scrub
        self.library = recordings.load(settings.recordings, READERS, scrubber) if settings.recordings else None
        self.writer = Writer(settings.seed)
        self.profile = profiles.PROFILES[settings.profile]  # what plain /v1 stands in for
        self.limited = bool(settings.limits)
        self._calls: Recent[CallKey, int] = Recent(settings.max_clients)  # → calls a `replies` scenario had
        self._attempts: Recent[tuple[str, str, str], int] = Recent(settings.max_clients)  # (test id, key, request)
        self._issued: Recent[tuple[str, ...], int] = Recent(settings.max_clients)  # response ids' sequences
        self._limiter = limits.Limiter(settings.limits, settings.max_clients)
        self._caches = {p.name: profiles.PromptCache(p.cache) for p in profiles.PROFILES.values() if p.cache}
        self._journal = Journal(settings.journal_size, settings.journal_bytes)
        self.meter = metrics.Meter()  # plain counters, per process: `/metrics` reads them
        self._kept = Store(settings.kept)
        self._lists: Recent[tuple[str, str, str], dict[str, float]] = Recent(settings.max_clients)  # → expiry
        # Scenarios posted at run time: by test id ("" for everyone), by name, newest last; and the book each
        # test id sees (its own, then everyone's, newest first, then the files' not shadowed), made on demand.
        self._posted: dict[str, dict[str, scenarios.Scenario]] = {}
        self._books: dict[str, scenarios.Book] = {}
        # What a test (or, under "", everyone) set for its own requests at run time: a fault (and how many
        # requests it strikes), pacing, a scenario by name; applied as the headers they stand for.
        self._directed: dict[str, Directions] = {}

    def reload(self) -> list[str]:
        """Read the scenario files and cassettes again (`--watch`): each scenario file that validates replaces
        its last version, one that does not keeps it; cassettes that fail keep the last good library. The
        mistakes, one line each."""
        problems: list[str] = []
        try:
            files = scenarios.yaml_files(self.settings.scenarios)
        except scenarios.ScenarioError as exc:
            files, problems = [p for p in self.settings.scenarios if p.is_file()], [str(exc)]
        good = self._good_files()
        for file in files:
            try:
                good[file] = scenarios.load([file]).scenarios
            except scenarios.ScenarioError as exc:
                problems += str(exc).splitlines()
        found = [scenario for file in files for scenario in good.get(file, ())]
        scenarios.unique(found, problems)
        combined = {s.name: s for s in reversed(found)}  # of a name given twice, the first serves
        self.book = scenarios.Book(tuple(s for s in found if combined[s.name] is s))
        if self.settings.recordings:
            try:
                self.library = recordings.load(
                    self.settings.recordings, READERS, self.library.scrubber if self.library else None
                )
            except (OSError, ValueError) as exc:
                problems += str(exc).splitlines()
        self._books.clear()
        return problems

    def _good_files(self) -> dict[Path, tuple[scenarios.Scenario, ...]]:
        """The scenarios in service, by the file they came from (their source names it)."""
        by_file: dict[Path, list[scenarios.Scenario]] = {}
        for scenario in self.book.scenarios:
            by_file.setdefault(Path(scenario.source.rsplit(": scenarios[", 1)[0]), []).append(scenario)
        return {file: tuple(found) for file, found in by_file.items()}

    def book_for(self, test_id: str) -> scenarios.Book:
        """The scenarios a request of `test_id` is answered from: the files' alone until any are posted."""
        if not self._posted:
            return self.book
        book = self._books.get(test_id)
        if book is None:
            own = reversed(self._posted.get(test_id, {}).values()) if test_id else ()
            everyone = reversed(self._posted.get("", {}).values())
            composed: dict[str, scenarios.Scenario] = {}
            for scenario in (*own, *everyone, *self.book.scenarios):  # in the order they are tried
                composed.setdefault(scenario.name, scenario)  # the first of a name shadows the rest
            book = self._books[test_id] = scenarios.Book(tuple(composed.values()))
        return book

    def created(self) -> int:
        """`created` for an answer: the frozen clock, else now."""
        frozen = self.settings.frozen_time
        return frozen if frozen is not None else int(time.time())

    # --- what requests share: the store interface ---------------------------------------------------------

    async def next_call(self, key: CallKey) -> int:
        """How many calls a `replies` scenario had from this test id and key before this one."""
        return self._calls.count(key)

    async def next_attempt(self, request: tuple[str, str, str]) -> int:
        """This attempt's number, from 0, at a request (test id, key, conversation): for chaos, and for the
        request id of a client that does not count its retries."""
        return self._attempts.count(request)

    async def issue(self, sequence: tuple[str, str, str], retry: str | None) -> int:
        """The number of a request's response id in its `sequence` (test id, API key, body digest): the next one, from
        0; or, for a retry, the one it had. `retry` names which: `LAST` (the SDK counted a retry: the number issued
        last), an idempotency key (the number issued to that key), or None (no retry)."""
        if retry is not None and (held := self._issued.get((*sequence, retry))) is not None:
            return held
        number = self._issued.count(sequence)
        for slot in [LAST] if retry is None or retry == LAST else [LAST, retry]:
            self._issued.pop((*sequence, slot))
            self._issued.use((*sequence, slot), number)
        return number

    async def take(self, scope: tuple[str, str], tokens: int, now: float) -> limits.Verdict:
        """Take a request and its tokens from the rate-limit buckets of (test id, key)."""
        return self._limiter.take(scope, tokens, now)

    async def report(self, scope: tuple[str, str], tokens: int, now: float, flavor: str) -> Headers:
        """Take from the buckets of (test id, key) that only report, and their headers in `flavor`."""
        return self._limiter.report(scope, tokens, now, flavor)

    async def before_shape(
        self,
        profile: profiles.Profile,
        prompt: Prompt,
        identity: tuple[str, str, str],
        tokens: int,
        flavor: str,
        look: Look | None = None,
    ) -> Before:
        """What requests share that a request's shape needs, taken at once (a shared store: in one round trip):
        the tokens of `prompt` the profile's prompt cache serves, this attempt's number at `identity` (test id,
        key, conversation), and, where limits are set, `tokens` taken from the buckets of (test id, key): the
        verdict where they are enforced, and the rate-limit headers in `flavor`. First, given `look`, the test's
        directions, as `look_up` does: if it finds any, nothing is taken (`Before.again`)."""
        if look is not None and (added := await self.look_up(*look)) is not None:
            return Before(0, 0, again=added)
        # This process's own stores, read directly: awaiting `cached_tokens`, `next_attempt` and `report` made a
        # coroutine of each, on every request. A store that keeps them elsewhere overrides this method too.
        now = time.time() if profile.cache or self.limited else 0.0
        cache = self._caches.get(profile.name) if profile.cache else None
        cached = cache.cached_tokens(prompt, now) if cache else 0
        attempt = self._attempts.count(identity)
        if not self.limited:
            return _tuple(Before, (cached, attempt, None, (), None))  # as the tuple it is: `Before(…)` is a Python call
        if self.settings.limits.enforce:
            verdict = self._limiter.take(identity[:2], tokens, now)
            return Before(cached, attempt, verdict, limits.headers(flavor, verdict, now))
        return _tuple(Before, (cached, attempt, None, self._limiter.report(identity[:2], tokens, now, flavor), None))

    async def cached_tokens(self, profile: profiles.Profile, prompt: Prompt, now: float) -> int:
        """Tokens of `prompt` the profile's prompt cache serves (0 for a profile without one)."""
        cache = self._caches.get(profile.name)
        return cache.cached_tokens(prompt, now) if cache else 0

    async def open(self, note: Note) -> int:
        """Journal a request now, before its answer is delivered; its entry's id."""
        return self._journal.add(note)

    async def end(self, entry: int, ended: str) -> None:
        """Note who ended a request's broken connection first: "client" or "server"."""
        self._journal.end(entry, ended)

    async def done(self, entry: int | None, delivered: Delivered, endpoint: str, profile: str) -> None:
        """An answer went out (`delivered`): complete its journal entry, and count it for `/metrics` by what
        the entry says of it (`endpoint` and `profile` name an answer that has none)."""
        found = self._journal.complete(entry, delivered) if entry is not None else None
        self.meter.count(endpoint, profile, delivered, found)

    async def health(self) -> str:
        """The store's state as `/health` reports it: "ok", or (a shared store that fails) "unreachable"."""
        return "ok"

    async def metered(self) -> metrics.Meter:
        """What `/metrics` shows: this process's counters (a shared store sums every worker's)."""
        return self.meter

    async def entries(self, test_id: str | None = None) -> list[Entry]:
        return self._journal.entries(test_id)

    async def find(self, where: Mapping[str, str], since: int = 0, bodies: bool = True) -> list[dict[str, Any]]:
        """Journal entries after id `since` whose fields equal the given values (as text), oldest first."""
        return self._journal.find(where, since, bodies)

    async def entry(self, entry: int) -> dict[str, Any] | None:
        """One journal entry in full, if the journal still holds it."""
        return self._journal.get(entry)

    async def dropped(self) -> int:
        """Journal entries dropped to make room."""
        return self._journal.dropped

    async def clear(self, test_id: str | None = None) -> None:
        """Forget the journal: all of it, or one test's."""
        self._journal.clear(test_id)

    async def refresh(self) -> None:
        """Catch up with what other worker processes changed that this one holds (the posted scenarios, which
        `book_for` reads): nothing, in one process."""

    async def post(self, test_id: str, posted: Sequence[scenarios.Scenario], sources: Sequence[Any] = ()) -> list[str]:
        """Add scenarios for `test_id` ("" for everyone); one of a name already posted there is replaced.
        `sources` are the scenarios as sent (JSON or YAML, decoded), one each: what a shared store keeps."""
        held = self._posted.setdefault(test_id, {})
        for scenario in posted:
            held.pop(scenario.name, None)
            held[scenario.name] = scenario
        self._books.clear()
        return [s.name for s in posted]

    async def unpost(self, test_id: str, name: str) -> bool:
        """Remove a posted scenario; whether there was one."""
        found = self._posted.get(test_id, {}).pop(name, None) is not None
        self._books.clear()
        return found

    async def listing(self) -> list[dict[str, Any]]:
        """Every scenario loaded: posted ones (with their test id) first, then the files'."""
        posted = [
            {"name": s.name, "source": "posted", "test_id": test_id or None}
            for test_id, held in self._posted.items()
            for s in reversed(held.values())
        ]
        return posted + [{"name": s.name, "source": s.source, "test_id": None} for s in self.book.scenarios]

    # --- what the public APIs keep between calls: stored responses and message threads (`answering/recall.py`)

    async def recall(self, scope: Scope, keys: Sequence[str]) -> list[Any]:
        """The values kept under `keys` in `scope`, each None when none is (or it expired)."""
        now = time.monotonic()
        return [None if (held := self._kept.get(scope, key, now)) is None else loads(held) for key in keys]

    async def keep(self, scope: Scope, values: Mapping[str, Any]) -> None:
        """Keep JSON values by key in `scope`, for the store's time to live; the oldest go past its bounds."""
        now = time.monotonic()
        for key, value in values.items():
            self._kept.put(scope, key, encode(value), now)

    async def claim(self, scope: Scope, key: str, value: Any) -> Any:
        """Keep `value` under `key` unless a value is kept there already: what is kept there now."""
        return loads(self._kept.add(scope, key, encode(value), time.monotonic()))

    async def forget(self, scope: Scope, key: str) -> bool:
        """Forget the value kept under `key`; whether there was one."""
        return self._kept.delete(scope, key, time.monotonic())

    async def enlist(self, scope: Scope, listing: str, item: str) -> None:
        """Add `item` at the end of the list `listing` in `scope` (stored chat completions, in the order made), for
        the store's time to live; at most the store's `entries` items, the oldest out first."""
        held = self._lists.use((*scope, listing), {})
        now = time.monotonic()
        held.pop(item, None)
        held[item] = now + self.settings.kept.ttl
        while held and (len(held) > self.settings.kept.entries or next(iter(held.values())) <= now):
            del held[next(iter(held))]

    async def enlisted(self, scope: Scope, listing: str) -> list[str]:
        """The items of the list `listing` in `scope`, oldest first (the values they name may be gone since)."""
        now = time.monotonic()
        return [item for item, expiry in (self._lists.get((*scope, listing)) or {}).items() if expiry > now]

    async def delist(self, scope: Scope, listing: str, item: str) -> None:
        """Take `item` out of the list `listing` in `scope`."""
        (self._lists.get((*scope, listing)) or {}).pop(item, None)

    @property
    def directed(self) -> bool:
        """Whether any test set a fault, pacing or scenario for its requests: else nothing to look up."""
        return bool(self._directed)

    async def direct(self, test_id: str, directions: Directions) -> None:
        """Set what `test_id`'s requests ("" for everyone's) get unless they say otherwise."""
        self._directed[test_id] = directions

    async def undirect(self, test_id: str) -> bool:
        """Forget what a test set for its requests; whether it had set anything."""
        return self._directed.pop(test_id, None) is not None

    async def directions(self, test_id: str) -> Directions | None:
        """What a test set for its requests, or else what was set for everyone."""
        return self._directed.get(test_id) or self._directed.get("")

    async def look_up(self, test_id: str, sent: Mapping[str, str]) -> dict[str, str] | None:
        """`headers_for`, or None when a request that began without them may go on as it is: its test (and
        everyone) has no directions, and nothing else it was answered from changed (a shared store: the posted
        scenarios)."""
        return None if await self.directions(test_id) is None else await self.headers_for(test_id, sent)

    async def headers_for(self, test_id: str, sent: Mapping[str, str]) -> dict[str, str]:
        """The headers a request of `test_id` gets from its test's directions, beside those it `sent` (which
        win); a fault given `times` strikes that many requests, counted here."""
        directions = await self.directions(test_id)
        if directions is None:
            return {}
        added = {}
        if directions.spec and FAULT_HEADER not in sent and directions.times != 0:
            added[FAULT_HEADER] = directions.spec
            if directions.times is not None:
                directions.times -= 1
        if directions.timing and TIMING_HEADER not in sent:
            added[TIMING_HEADER] = directions.timing
        if directions.scenario and scenarios.SCENARIO_HEADER not in sent:
            added[scenarios.SCENARIO_HEADER] = directions.scenario
        if directions.lenient:
            added[LENIENT_HEADER] = "1"
        return added

    async def reset(self, test_id: str | None = None) -> None:
        """Forget call counts, journal entries, rate-limit levels, stored responses and threads (all, or one
        test's); prompt caches and chaos attempts, which no test id scopes, all of them."""
        self._calls.forget(lambda key: test_id is None or key[0] == test_id)
        self._journal.clear(test_id)
        if test_id is None:
            self._posted.clear()
        else:
            self._posted.pop(test_id, None)
        self._books.clear()
        for cache in self._caches.values():
            cache.reset()
        self._limiter.reset(test_id)
        self._attempts.clear()
        self._issued.forget(lambda key: test_id is None or key[0] == test_id)
        self._kept.clear(test_id)
        self._lists.forget(lambda key: test_id is None or key[0] == test_id)
        if test_id is None:
            self._directed.clear()
        else:
            self._directed.pop(test_id, None)
