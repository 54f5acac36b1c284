"""The state in Redis (`emulator.state.redis`) against the in-process one: the same arithmetic and the same
views, so that a client cannot tell which keeps the state. Against Debian's redis-server on a loopback port."""

from __future__ import annotations

import asyncio
import functools
import itertools
import json
import subprocess
import time
import types
from collections.abc import Awaitable, Callable
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest
import redis
import redis.asyncio.client
import redis.asyncio.connection
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator import journal
from emulator import state as state_module
from emulator.answering import rounds, stages
from emulator.core.conversation import Message, Prompt
from emulator.core.sse import encode
from emulator.dialects import openai_chat
from emulator.journal import Delivered, Journal, Note, at_once
from emulator.rules import caches, limits, profiles
from emulator.state import Directions, Settings, State
from emulator.state import redis as shared_redis
from emulator.state.kept import Bounds
from emulator.state.redis import RedisStores, batch
from emulator.state.redis import stores as stores_module
from emulator.state.redis.link import RedisLink
from emulator.state.redis.records import RedisRecords
from tests.conftest import REDIS_SERVER

T = TypeVar("T")
_prefixes = itertools.count()


def shared(redis_server: str, **options: Any) -> State:
    return shared_redis.shared_state(Settings(state=f"{redis_server}?prefix=unit{next(_prefixes)}", **options))


def stores(state: State) -> RedisStores:
    """A state's stores, in Redis."""
    assert isinstance(state.stores, RedisStores)
    return state.stores


def link(state: State) -> RedisLink:
    """A state's link to Redis, which its stores share."""
    return stores(state).link


def journal_of(state: State) -> RedisRecords:
    """A state's journal in Redis."""
    assert isinstance(state.journal, RedisRecords)
    return state.journal


def run(work: Callable[[], Awaitable[T]], *states: State) -> T:
    """`work` in an event loop of its own, the `states`' connections closed at its end: a state's client lives
    in the loop that first used it."""

    async def closing() -> T:
        try:
            return await work()
        finally:
            for state in states:
                await state.close()

    return asyncio.run(closing())


@pytest.mark.parametrize(
    ("url", "connect", "prefix", "shown"),
    [
        ("redis://127.0.0.1:6379", "redis://127.0.0.1:6379", "emulator", "redis://127.0.0.1:6379"),
        ("redis://h:1/2?prefix=ci-7", "redis://h:1/2", "ci-7", "redis://h:1/2"),
        (
            "redis://:secret@h:1/0?prefix=a&socket_timeout=3",
            "redis://:secret@h:1/0?socket_timeout=3",
            "a",
            "redis://***@h:1/0?socket_timeout=3",
        ),
        ("unix:///run/redis.sock", "unix:///run/redis.sock", "emulator", "unix:///run/redis.sock"),
    ],
)
def test_address_splits_off_the_prefix_and_hides_a_password(url: str, connect: str, prefix: str, shown: str) -> None:
    assert shared_redis.address(url) == shared_redis.Address(url, connect, prefix, shown)


@pytest.mark.parametrize(
    ("url", "words"),
    [("http://h:1", "expected a redis://"), ("redis://h:1?prefix=a*", "prefix: expected letters")],
)
def test_address_refuses_what_it_cannot_use(url: str, words: str) -> None:
    with pytest.raises(ValueError, match=words):
        shared_redis.address(url)


ENFORCED = limits.Limits(requests_per_minute=3, tokens_per_minute=100, requests_per_day=5)
STEPS = st.lists(st.tuples(st.integers(0, 150), st.floats(0, 40, allow_nan=False)), min_size=1, max_size=12)


@settings(max_examples=25, deadline=None)
@given(steps=STEPS, enforce=st.booleans())
def test_buckets_take_exactly_as_the_in_process_limiter(
    redis_server: str, steps: list[tuple[int, float]], enforce: bool
) -> None:
    """Verdicts equal to the float: the Lua script does `Limiter`'s arithmetic, in the same order."""
    quota = replace(ENFORCED, enforce=enforce)
    state, limiter = shared(redis_server, limits=quota), limits.Limiter(quota)

    async def compare() -> None:
        now = 1_000.0
        for tokens, later in steps:
            now += later
            assert await state.buckets.take(("t", "k"), tokens, now) == limiter.take(("t", "k"), tokens, now)

    run(compare, state)


@pytest.mark.parametrize("flavor", ["openai", "anthropic", "infercom"])
def test_reported_limits_render_as_the_in_process_ones(redis_server: str, flavor: str) -> None:
    state, limiter = shared(redis_server), limits.Limiter(limits.DEFAULT)

    async def compare() -> None:
        for i, tokens in enumerate([10, 5_000_000, 7, 9_000_000, 1]):
            now = 1_767_225_600.0 + 0.37 * i
            assert await state.buckets.report(("", "k"), tokens, now, flavor) == limiter.report(
                ("", "k"), tokens, now, flavor
            )

    run(compare, state)


def test_the_prompt_cache_serves_as_the_in_process_one(redis_server: str) -> None:
    profile = replace(profiles.PROFILES["inferel"], cache=caches.CacheModel(block=4, capacity=6, ttl=60))
    assert profile.cache is not None
    state, cache = shared(redis_server), caches.PromptCache(profile.cache)
    texts = ["a" * 40, "a" * 40, "a" * 80, "b" * 40, "a" * 80, "a" * 40]

    async def compare() -> None:
        for i, text in enumerate(texts):
            prompt = Prompt(dialect="t", model="m", messages=(Message("user", text),), cache_key="key")
            now = 10.0 + 30 * i  # the third step on sees blocks expire
            assert await state.caches.cached_tokens(profile, prompt, now) == cache.cached_tokens(prompt, now)

    run(compare, state)


def test_a_keyless_cache_with_a_least_serves_as_the_in_process_one(redis_server: str) -> None:
    """OpenAI's automatic caching: prompts with no key share one cache, and fewer tokens than the least are none."""
    model = caches.CacheModel(block=4, capacity=50, ttl=600, minimum=12, keyless="~automatic")
    profile = replace(profiles.PROFILES["openai"], cache=model)
    state, cache = shared(redis_server), caches.PromptCache(model)
    texts = ["q" * 40, "q" * 40, "q" * 60, "r" * 40, "q" * 24, "q" * 24]

    async def compare() -> None:
        for i, text in enumerate(texts):
            prompt = Prompt(dialect="t", model="m", messages=(Message("user", text),))
            now = 10.0 + i
            assert await state.caches.cached_tokens(profile, prompt, now) == cache.cached_tokens(prompt, now)

    run(compare, state)


def test_anthropics_breakpoints_serve_as_the_in_process_cache(redis_server: str) -> None:
    """The longest prefix held is read; breakpoints long enough are written, each for its lifetime."""
    state, cache = shared(redis_server), caches.BreakpointCache()
    least = caches.BREAKPOINT_LEAST
    five, hour = 300.0, 3600.0
    asked = [
        (("p1", least + 10, five), ("p2", least + 900, 0.0)),  # writes p1
        (("p1", least + 10, 0.0), ("p2", least + 900, five)),  # reads p1, writes p2
        (("p1", least + 10, 0.0), ("p2", least + 900, 0.0), ("p3", 2 * least, hour)),  # reads p2, writes p3
        (("p1", least + 10, 0.0), ("p2", least + 900, 0.0)),  # no breakpoint: reads nothing
        (("s1", 100, five), ("s2", 200, five)),  # too short to write
        (("s1", 100, five),),
        (("p1", least + 10, 0.0), ("p2", least + 900, 0.0), ("p3", 2 * least, 0.0), ("p4", 3 * least, hour)),
    ]

    async def compare() -> None:
        for i, prefixes in enumerate(asked):
            prompt = Prompt(dialect="t", model="m", messages=(), prefixes=prefixes)
            assert await state.caches.breakpoints(prompt, 1000.0 + i) == cache.read(prompt, 1000.0 + i), i

    run(compare, state)


async def records(state: State) -> list[bytes]:
    """The journal's records as Redis holds them, one key each."""
    client = link(state).client()
    keys = [key async for key in client.scan_iter(match=link(state).key("journal:entry:*"))]
    return [raw for raw in await client.mget(keys) if raw is not None] if keys else []


def note(model: str, test_id: str = "", body: bytes = b'{"hi": 1}') -> Note:
    """A streamed answer's note: journalled when it is opened (a whole answer's, with its delivery)."""
    return Note("POST", "/v1/chat/completions", model, "", True, "default", None, 200, None, test_id, body=body)


def test_journal_views_are_the_in_process_ones_with_the_worker(redis_server: str) -> None:
    state, local = shared(redis_server), Journal()

    async def compare() -> None:
        for i, test_id in enumerate(["a", "b", "a"]):
            delivered = at_once(200, [(b"content-type", b"application/json")], b'{"ok": true}', 0.001 * i)
            entry = await state.journal.open(note(f"m{i}", test_id))
            await state.journal.done(entry, delivered, "chat_completions", "inferam")
            local.complete(local.add(note(f"m{i}", test_id)), delivered)
        for where in ({}, {"test_id": "a"}, {"model": "m1"}, {"test_id": "a", "model": "m2"}):
            for bodies in (True, False):
                found, expected = await state.journal.find(where, 0, bodies), local.find(where, 0, bodies)
                assert [{**v, "time": 0} for v in found] == [
                    {**v, "time": 0, "worker": link(state).worker} for v in expected
                ]
        assert await state.journal.find({}, since=2) == [await state.journal.entry(3)]
        assert [e._replace(time=0) for e in await state.journal.entries("a")] == [
            e._replace(time=0, headers={}, body=b"") for e in local.entries("a")
        ]

    run(compare, state)


def test_views_of_streams_drips_and_odd_bodies_are_the_in_process_ones(redis_server: str) -> None:
    """Redis keeps an entry's request and answer as sent and builds its view as it is read (`RAW`): the views
    are the in-process journal's for a paced stream, a one-byte drip, bytes that are not UTF-8, a body that is
    not JSON, and bodies past the journal's cap, request and answer, listed or whole."""
    state, local = shared(redis_server), Journal()
    sse = [b'data: {"n": %d}\n\n' % i for i in range(20)] + [b"data: [DONE]\n\n"]
    drip = [bytes([b]) for b in b"".join(sse[:5])]
    stream = [(b"content-type", b"text/event-stream; charset=utf-8")]
    plain = [(b"content-type", b"application/json")]
    cap = journal.BODY_CAP
    cases = [
        (
            b'{"hi": 1}',
            Delivered(200, stream, tuple(sse), 21, sum(map(len, sse)), 0.01, 0.2, (0.01, 0.05), 0.0, (0, 3)),
        ),
        (b"\xff\xfe not json", Delivered(200, stream, tuple(drip), len(drip), len(drip), 0.0, 0.3, None, 0.0, None)),
        (b"x" * (cap + 1), at_once(200, plain, b"\x80" * 10 + b"y" * cap, 0.004)),
        (b'{"hi": 2}', at_once(503, plain, b"upstream said no", 0.002)),
        (b'{"hi": 3}', None),
    ]

    async def compare() -> None:
        for i, (body, delivered) in enumerate(cases):
            sent = {"authorization": f"Bearer sk-secret-{i}-abcdef", "x-api-key": "sk-ant-key", "accept": "*/*"}
            entry = await state.journal.open(note(f"m{i}", body=body)._replace(headers=sent))
            added = local.add(note(f"m{i}", body=body)._replace(headers=sent))
            if delivered is not None:
                await state.journal.done(entry, delivered, "chat_completions", "inferam")
                local.complete(added, delivered)
        for bodies in (True, False):
            found, expected = await state.journal.find({}, 0, bodies), local.find({}, 0, bodies)
            assert [{**v, "time": 0} for v in found] == [
                {**v, "time": 0, "worker": link(state).worker} for v in expected
            ]
        for view in await state.journal.find({}):
            assert {**(await state.journal.entry(view["id"]) or {}), "time": 0} == {**view, "time": 0}
        kept = b"".join(await records(state))
        assert b"sk-secret" not in kept and b"sk-ant-key" not in kept  # what Redis holds is masked too

    run(compare, state)


def test_the_journal_is_bounded_and_counts_what_it_dropped(redis_server: str) -> None:
    state = shared(redis_server, journal_size=3)

    async def check() -> None:
        for i in range(5):
            await state.journal.open(note(f"m{i}", "a" if i % 2 else "b"))
        assert [v["model"] for v in await state.journal.find({})] == ["m2", "m3", "m4"]
        assert await state.journal.dropped() == 2 and await state.journal.entry(1) is None
        assert [v["model"] for v in await state.journal.find({"test_id": "a"})] == ["m3"]
        await state.journal.clear("a")
        assert [v["model"] for v in await state.journal.find({})] == ["m2", "m4"]
        await state.journal.clear()
        assert await state.journal.find({}) == [] and await state.journal.open(note("m5")) == 6  # ids go on

    run(check, state)


def test_bytes_bound_the_journal_too(redis_server: str) -> None:
    state = shared(redis_server, journal_bytes=3000)

    async def check() -> None:
        for i in range(6):
            await state.journal.open(note(f"m{i}", body=b'{"x": "%s"}' % (b"y" * 900)))
        kept = [v["model"] for v in await state.journal.find({})]
        assert 1 <= len(kept) < 6 and kept == [f"m{i}" for i in range(6 - len(kept), 6)]
        assert await state.journal.dropped() == 6 - len(kept)

    run(check, state)


def test_the_journals_bytes_are_what_it_holds_through_completion_ending_and_forgetting(redis_server: str) -> None:
    """The journal counts the bytes of each record as written (its index keeps each one's size, so dropping one
    needs no lookup): opened, completed with a longer answer, ended after it was written, dropped or forgotten, the
    count is the sum over what is held; an entry ended after it was written shows how, as in process."""
    state, local = shared(redis_server, journal_size=4), Journal(capacity=4)
    delivered = at_once(200, [(b"content-type", b"application/json")], b'{"ok": "%s"}' % (b"z" * 300), 0.002)

    async def held() -> int:
        """The bytes counted, checked against the sizes the index keeps and the records held."""
        client = link(state).client()
        members = await client.zrange(link(state).key("journal:order"), 0, -1)
        sizes = [int(member.split(b" ")[1]) for member in members]
        held = await records(state)
        assert len(sizes) == len(held) and int(await client.get(link(state).key("journal:bytes")) or 0) == sum(sizes)
        assert 0 <= sum(map(len, held)) - sum(sizes) <= 20 * len(held)  # an ending adds its few bytes
        return sum(sizes)

    async def check() -> None:
        for i, test_id in enumerate(["a", "b", "a", "c a b", "b", "a"]):
            entry = await state.journal.open(note(f"m{i}", test_id))
            added = local.add(note(f"m{i}", test_id))
            await state.journal.done(entry, delivered, "chat_completions", "inferam")
            local.complete(added, delivered)
            if i % 2:
                await state.journal.end(entry, "client")
                local.end(added, "client")
            assert await held() > 0
        assert await state.journal.dropped() == 2
        views = await state.journal.find({})
        assert [v["ended"] for v in views] == [v["ended"] for v in local.find({})] == [None, "client", None, "client"]
        assert [v["test_id"] for v in views] == ["a", "c a b", "b", "a"]
        await state.journal.clear("a")
        assert [v["test_id"] for v in await state.journal.find({})] == ["c a b", "b"]
        await held()
        await state.journal.clear()
        assert await held() == 0 and await state.journal.find({"test_id": "b"}) == []

    run(check, state)


def test_entries_of_no_test_id_are_listed_and_forgotten_as_in_process(redis_server: str) -> None:
    """Entries of no test id have no index of their own (the journal's order has their test id): listed and
    forgotten as in process, beside test ids that end in a space or hold one."""
    state, local = shared(redis_server, journal_size=5), Journal(capacity=5)
    tests = ["", "x ", "", " ", "a b", "", "x "]

    async def check() -> None:
        for i, test_id in enumerate(tests):
            await state.journal.open(note(f"m{i}", test_id))
            local.add(note(f"m{i}", test_id))
        for scope in ("", "x ", " ", "a b", None):
            where = {} if scope is None else {"test_id": scope}
            assert [v["model"] for v in await state.journal.find(where)] == [v["model"] for v in local.find(where)]
            assert [e.model for e in await state.journal.entries(scope)] == [e.model for e in local.entries(scope)]
        await state.journal.clear("")
        local.clear("")
        assert (
            [v["model"] for v in await state.journal.find({})]
            == [v["model"] for v in local.find({})]
            == ["m3", "m4", "m6"]
        )
        client = link(state).client()
        assert int(await client.get(link(state).key("journal:bytes"))) == sum(len(raw) for raw in await records(state))

    run(check, state)


def test_a_counted_fault_and_the_calls_are_shared_by_states_on_one_redis(redis_server: str) -> None:
    """Two states with the same address are two workers: a fault for two requests strikes two, whichever asks."""
    url = f"{redis_server}?prefix=unit{next(_prefixes)}"
    one, other = (shared_redis.shared_state(Settings(state=url)) for _ in range(2))

    async def check() -> None:
        await one.directions.direct("t", Directions(spec="status=503", times=2, timing="latency_ms=5"))
        headers = [await state.directions.headers_for("t", {}) for state in (one, other, one, other)]
        assert [h.get("x-emulator-fault") for h in headers] == ["status=503", "status=503", None, None]
        assert all(h["x-emulator-timing"] == "latency_ms=5" for h in headers)
        assert await other.directions.of("t") == Directions(spec="status=503", times=0, timing="latency_ms=5")
        assert await other.directions.headers_for("t", {"x-emulator-fault": "status=500"}) == {
            "x-emulator-timing": "latency_ms=5"
        }
        assert [await s.counts.next_call(("t", "sc", "k")) for s in (one, other, one)] == [0, 1, 2]
        assert [await s.counts.next_attempt(("t", "k", "c")) for s in (other, one)] == [0, 1]

    run(check, one, other)


def test_reset_of_one_test_leaves_the_others(redis_server: str) -> None:
    state = shared(redis_server)

    async def check() -> None:
        for test_id in ("a", "b"):
            await state.journal.open(note("m", test_id))
            await state.counts.next_call((test_id, "sc", "k"))
            await state.kept.keep((test_id, "k"), {"response:1": {"id": 1}})
            await state.directions.direct(test_id, Directions(timing="latency_ms=1"))
        await state.reset("a")
        assert [v["test_id"] for v in await state.journal.find({})] == ["b"]
        assert (
            await state.counts.next_call(("a", "sc", "k")) == 0 and await state.counts.next_call(("b", "sc", "k")) == 1
        )
        assert await state.kept.recall(("a", "k"), ["response:1"]) == [None]
        assert await state.kept.recall(("b", "k"), ["response:1"]) == [{"id": 1}]
        assert await state.directions.of("a") is None and await state.directions.of("b") is not None
        await state.reset()
        assert await state.journal.find({}) == [] and await state.kept.recall(("b", "k"), ["response:1"]) == [None]
        # Each store forgets its own keys: what is left is what goes on across a reset (ids, versions, metrics).
        left = {key.decode() async for key in link(state).client().scan_iter(match=link(state).key("*"))}
        going_on = {"journal:next", "journal:dropped", "posted:version", "metrics", "metrics:sequence"}
        assert left <= {link(state).key(name) for name in going_on}, left

    run(check, state)


def test_kept_values_are_claimed_once(redis_server: str) -> None:
    state = shared(redis_server)

    async def check() -> None:
        assert await state.kept.claim(("", "k"), "continued:1", {"by": "first"}) == {"by": "first"}
        assert await state.kept.claim(("", "k"), "continued:1", {"by": "second"}) == {"by": "first"}
        assert await state.kept.forget(("", "k"), "continued:1") and not await state.kept.forget(
            ("", "k"), "continued:1"
        )

    run(check, state)


def test_posted_scenarios_reach_a_state_that_did_not_post_them(redis_server: str) -> None:
    url = f"{redis_server}?prefix=unit{next(_prefixes)}"
    one, other = (shared_redis.shared_state(Settings(state=url)) for _ in range(2))
    from emulator import scenarios

    document = {"scenarios": [{"name": "x", "reply": {"text": "one"}}, {"name": "y", "reply": {"text": "two"}}]}

    async def check() -> None:
        await one.posted.post("t", scenarios.parse(document), scenarios.sources(document))
        await other.posted.refresh()
        assert [s.name for s in other.book_for("t").scenarios] == ["y", "x"]  # newest first
        assert [s.name for s in other.book_for("u").scenarios] == []
        assert await one.posted.unpost("t", "x") and not await one.posted.unpost("t", "x")
        await other.posted.refresh()
        assert [s.name for s in other.book_for("t").scenarios] == ["y"]
        listing = await other.posted.listing()
        assert listing == [{"name": "y", "source": "posted", "test_id": "t"}]

    run(check, one, other)


def test_response_id_sequences_are_the_in_process_ones_and_shared(redis_server: str) -> None:
    """Each worker takes the next number of a body's sequence; a retry keeps the number it had, by the SDK's count
    (the last issued) or by its idempotency key; a test's reset starts its sequences again."""
    url = f"{redis_server}?prefix=unit{next(_prefixes)}"
    one, other = (shared_redis.shared_state(Settings(state=url)) for _ in range(2))
    alone = State(Settings())
    body, retry, key = ("t", "sk", "digest"), state_module.LAST, "key\0abc"
    asks = [(body, None), (body, None), (body, retry), (body, key), (body, None), (body, key), (body, retry)]
    asks += [(("t", "other-key", "digest"), None), (("u", "sk", "digest"), retry)]

    async def check() -> None:
        shared_numbers = [await (one, other)[i % 2].counts.issue(*ask) for i, ask in enumerate(asks)]
        in_process = [await alone.counts.issue(*ask) for ask in asks]
        assert shared_numbers == in_process == [0, 1, 1, 2, 3, 2, 3, 0, 0]
        await one.reset("t")
        await alone.reset("t")
        assert await other.counts.issue(body, None) == await alone.counts.issue(body, None) == 0
        assert (
            await other.counts.issue(("u", "sk", "digest"), None)
            == await alone.counts.issue(("u", "sk", "digest"), None)
            == 1
        )

    run(check, one, other)


def test_lists_of_kept_values_are_the_in_process_ones(redis_server: str) -> None:
    """Stored chat completions are listed in the order made, each once, within the store's bounds; a test's reset
    forgets its lists."""
    state, alone = shared(redis_server, kept=Bounds(entries=3)), State(Settings(kept=Bounds(entries=3)))

    async def check() -> None:
        for each in (state, alone):
            for item in ("a", "b", "c", "b", "d"):
                await each.kept.enlist(("t", "k"), "chat", item)
            await each.kept.enlist(("u", "k"), "chat", "x")
            await each.kept.delist(("t", "k"), "chat", "c")
        assert (
            await state.kept.enlisted(("t", "k"), "chat") == await alone.kept.enlisted(("t", "k"), "chat") == ["b", "d"]
        )
        assert await state.kept.enlisted(("t", "other"), "chat") == []
        await state.reset("t")
        assert await state.kept.enlisted(("t", "k"), "chat") == [] and await state.kept.enlisted(
            ("u", "k"), "chat"
        ) == ["x"]

    run(check, state)


def test_a_workers_counts_land_in_the_order_they_were_taken(redis_server: str) -> None:
    """Two publications of one worker's counts landing in the wrong order (on two connections of redis-py's pool
    before issue 32; across a reconnect since) left its counts one short for good (`/metrics` 665 of 666): the
    older one is refused. Read by another worker, they are whole."""
    worker = shared(redis_server)
    other = shared_redis.shared_state(worker.settings)  # another worker, reading the same keys

    async def work() -> tuple[float, float]:
        link(worker).client()
        sent = at_once(200, [], b"{}", 0.01)
        worker.meter.count("chat_completions", "inferam", sent, None)
        older = journal_of(worker)._publication()
        worker.meter.count("chat_completions", "inferam", sent, None)
        newer = journal_of(worker)._publication()
        assert await link(worker).run("publish", *newer) == 1
        assert await link(worker).run("publish", *older) == 0  # landed last, refused
        link(other).client()
        link(other).worker = "elsewhere:1"
        meter = await other.journal.metered()
        return sum(meter.requests.values()), sum(worker.meter.requests.values())

    seen, counted = run(work, worker, other)
    assert counted == 2 and seen == 2


@pytest.mark.parametrize(
    "quota",
    [limits.DEFAULT, ENFORCED, replace(ENFORCED, enforce=False), limits.OFF],
    ids=["default", "enforced", "reported", "off"],
)
@pytest.mark.parametrize("name", ["inferel", "inferam", "infercom"])  # a keyed cache, OpenAI's automatic one, none
def test_what_a_shape_needs_is_taken_in_one_trip_as_in_process(
    redis_server: str, monkeypatch: pytest.MonkeyPatch, quota: limits.Limits, name: str
) -> None:
    """`before_shape`: the attempt, the prompt cache's tokens, the buckets' verdict and headers, in one script, equal
    to the in-process state's own, request after request: conversations repeated, tokens past a bucket, prompts
    sharing a prefix, a test id and a key of their own."""
    profile = profiles.PROFILES[name]
    state, alone = shared(redis_server, limits=quota), State(Settings(limits=quota))
    clock = iter(1_767_225_600.0 + 2.5 * i for i in range(100))
    now = 0.0
    monkeypatch.setattr(state_module.time, "time", lambda: now)
    long = 6 if profile.cache and profile.cache.minimum else 1  # past the 1,024 tokens an automatic cache wants
    said = "the quick brown fox jumps over the lazy dog " * 20 * long
    asked = [("t", "k", said, 30), ("t", "k", said * 2, 60), ("t", "k", said, 30), ("u", "k", "other " * 90, 5)]
    asked += [("t", "j", said * 2, 120), ("t", "k", said, 1), ("t", "k", "brief", 0)]
    rounds = []

    async def compare() -> None:
        nonlocal now
        for test_id, key, text, tokens in asked:
            now = next(clock)
            prompt = Prompt(dialect="t", model="m", messages=(Message("user", text),), cache_key=key)
            identity = (test_id, key, str(len(text)))
            flavor = "anthropic" if tokens % 2 else "openai"
            got = await state.stores.before_shape(profile, prompt, identity, tokens, flavor)
            assert got == await alone.stores.before_shape(profile, prompt, identity, tokens, flavor)
            rounds.append(got)

    trips = count_trips(monkeypatch)
    run(compare, state)
    assert loaded(trips) == ["EVALSHA"] * len(asked)  # one each
    assert [r.attempt for r in rounds] == [0, 0, 1, 0, 0, 2, 0]  # by (test id, key, conversation)
    assert any(r.cached for r in rounds) == (profile.cache is not None)
    assert any(r.verdict and not r.verdict.allowed for r in rounds) == (quota is ENFORCED)
    assert all(bool(r.rates) == bool(quota) for r in rounds)


SETUP = ("HELLO", "CLIENT", "SELECT", "AUTH")  # what redis-py sends on a new connection


def loaded(trips: list[str]) -> list[str]:
    """The round trips but those of a new connection's set-up and of a script's first call in this Redis: refused
    (NOSCRIPT), it goes again in the next write, behind the script's load, and that write is not counted."""
    return [trip for trip in trips if trip not in SETUP and trip != "SCRIPT LOAD"]


def count_trips(monkeypatch: pytest.MonkeyPatch, scripts: list[int] | None = None) -> list[str]:
    """Count round trips to Redis from here on: what a connection writes at once (a command, or a whole pipeline,
    or one turn's scripts on the scripts' own connection), counted at the socket's transport, whatever client wrote
    it (and compiled or not); the list names the first command of each. `scripts`, if given, gets the number of
    scripts each write calls (EVALSHA commands): this test's own, where Redis's counts hold every test's."""
    trips: list[str] = []
    transport = asyncio.selector_events._SelectorSocketTransport
    write, writelines = transport.write, transport.writelines

    def note(packed: bytes) -> None:
        if packed.startswith(b"*"):  # a command (the tests' event loops write nothing else)
            first = packed.split(b"\r\n")[2].decode()  # *N, $length, then the command's name
            if first == "SET" and b":journal:staged:" in packed[:200]:  # records staged ahead of their script
                first = "EVALSHA"
            trips.append(first + (" LOAD" if first == "SCRIPT" and b"LOAD" in packed[:40] else ""))
            if scripts is not None:
                scripts.append(packed.count(b"\r\n$7\r\nEVALSHA\r\n"))

    within = [False]  # in `writelines`, which may write through `write` (Python 3.11's does)

    def writing(self: Any, data: Any) -> None:
        if not within[0]:
            note(bytes(data))
        write(self, data)

    def writing_lines(self: Any, lines: Any) -> None:
        lines = list(lines)
        note(b"".join(lines))
        within[0] = True
        try:
            writelines(self, lines)
        finally:
            within[0] = False

    monkeypatch.setattr(transport, "write", writing)
    monkeypatch.setattr(transport, "writelines", writing_lines)
    return trips


def ask(state: State, content: str, *headers: tuple[bytes, bytes], stream: bool = False) -> Any:
    """A Chat Completions request through the answering path (`rounds.answer`), delivered at once; its answer."""
    endpoint = stages.Endpoint(openai_chat, profiles.PROFILES[profiles.DEFAULT])
    body = encode({"model": "m", "messages": [{"role": "user", "content": content}], "stream": stream})
    sent = [(b"content-type", b"application/json"), (b"authorization", b"Bearer sk-trips"), *headers]
    scope = {"method": "POST", "path": "/v1/chat/completions", "headers": sent}

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": body, "more_body": False}

    async def answered() -> Any:
        answer = await rounds.answer(state, endpoint, scope, receive)
        delivered = at_once(answer.status, answer.headers, getattr(answer, "body", b""), 0.001)
        await state.journal.done(answer.entry, delivered, endpoint.name, endpoint.profile.name)
        return answer

    return answered()


def steady(view: dict[str, Any]) -> dict[str, Any]:
    """A journal view without what depends on when it was taken: its times, and the rate-limit headers' remaining
    and reset values (the two states' buckets refill over the moments between their requests)."""
    response = view.get("response")
    if response:
        headers = {
            k: "…" if k.startswith(("x-ratelimit-remaining", "x-ratelimit-reset")) else v
            for k, v in response["headers"].items()
        }
        response = {**response, "headers": headers}
    return {**view, "time": 0, "duration_ms": 0, "response": response}


def test_a_plain_answer_takes_two_round_trips_and_journals_as_in_process(
    redis_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Four before (the test's directions, what the shape needs, redis-py's SCRIPT EXISTS ahead of a pipeline's
    scripts, the pipeline with the entry and the counts; the counter then, at the outage guard, missed the third):
    now what the shape needs with the directions (one script), and the entry written whole with its delivery and the
    counts (one script). A streamed answer's entry is still written before it is played. The journal reads as the
    in-process one's, ids in order."""
    state, alone = shared(redis_server), State()
    trips = count_trips(monkeypatch)

    async def compare() -> list[list[str]]:
        each = []
        await state.posted.refresh()  # the posted scenarios, none, read once: a worker does it on its first request
        for i, (content, stream) in enumerate([("hi 1", False), ("hi 2", False), ("hi 3", True), ("hi 1", False)]):
            before = len(trips)
            mine = await ask(state, content, stream=stream)
            await ask(alone, content, stream=stream)
            assert mine.entry > 0 if stream else mine.entry < 0  # a whole answer's entry: written with its delivery
            each.append(loaded(trips[before:]))
            assert [steady(v) for v in await state.journal.find({})] == [
                steady(v) | {"worker": link(state).worker} for v in await alone.journal.find({})
            ]
            assert [v["id"] for v in await state.journal.find({})] == list(range(1, i + 2))
        return each

    each = run(compare, state)
    plain = ["EVALSHA", "EVALSHA"]  # directions, attempt and buckets; the entry and the counts
    assert each == [plain, plain, ["EVALSHA", "EVALSHA", "EVALSHA"], plain]


def test_directions_set_on_one_worker_reach_another_in_the_before_shaping_trip(
    redis_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: a request looks up its test's directions in the script that takes what its shape needs. Where
    there are none (and no posted scenario changed) that is its only trip before shaping; where another worker set
    some (a scenario it posted, a fault for one request), nothing was taken, and the request goes round again with
    them: the posted scenario answers, and the fault strikes exactly one request whichever worker answers."""
    from emulator import scenarios

    url = f"{redis_server}?prefix=unit{next(_prefixes)}"
    one, other = (shared_redis.shared_state(Settings(state=url)) for _ in range(2))
    document = {"scenarios": [{"name": "mine", "reply": {"text": "from the posted one"}}]}
    test = (b"x-emulator-test-id", b"t-dir")
    trips = count_trips(monkeypatch)

    def said(answer: Any) -> tuple[int, str | None]:
        body = json.loads(answer.body)
        return answer.status, body["choices"][0]["message"]["content"] if answer.status == 200 else None

    async def check() -> None:
        await other.posted.refresh()
        await one.posted.post("t-dir", scenarios.parse(document), scenarios.sources(document))
        await one.directions.direct("t-dir", Directions(scenario="mine"))
        before = len(trips)
        assert said(await ask(other, "hi 1", test)) == (200, "from the posted one")
        # looked (nothing taken), caught up with the posted scenarios, taken, left
        assert loaded(trips[before:]) == ["EVALSHA", "MULTI", "EVALSHA", "EVALSHA"]
        before = len(trips)
        assert said(await ask(other, "hi 2", (b"x-emulator-test-id", b"t-none")))[0] == 200
        assert loaded(trips[before:]) == ["EVALSHA", "EVALSHA"]  # no directions: one trip before, one after
        await one.directions.direct("t-dir", Directions(spec="status=503", times=1))
        statuses = [said(await ask(state, f"hi {i}", test))[0] for i, state in enumerate((other, one, other, one))]
        assert statuses == [503, 200, 200, 200]
        journalled = await other.journal.find({"test_id": "t-dir"})  # each request once, though some went round again
        assert [v["response"]["status"] for v in journalled] == [200, 503, 200, 200, 200]

    run(check, one, other)


def test_scripts_sent_in_one_turn_go_in_one_trip_each_with_its_own_reply(
    redis_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 32: what concurrent requests take from the store in the same turn of the event loop is one pipeline
    (`batch.Batcher`): one round trip for all, each its own answer, every count exact; a command that fails fails
    alone."""
    state = shared(redis_server)
    profile = profiles.PROFILES["inferam"]
    trips = count_trips(monkeypatch)

    async def check() -> None:
        await state.posted.refresh()
        prompt = Prompt(dialect="t", model="m", messages=(Message("user", "hi"),))
        await state.stores.before_shape(profile, prompt, ("t", "k", "warm"), 1, "openai")  # the scripts loaded, once
        await state.counts.issue(("t", "k", "warm"), None)
        before = len(trips)
        # One clock for the nine: on a loaded machine two of them, started more than 6 ms apart, saw the bucket
        # refill a request between them (10,000 a minute) and reported the same level (once in CI).
        frozen = time.time()
        monkeypatch.setattr(stores_module, "time", types.SimpleNamespace(time=lambda: frozen))
        got = await asyncio.gather(
            *(state.stores.before_shape(profile, prompt, ("t", "k", "c"), 1, "openai") for _ in range(9))
        )
        monkeypatch.setattr(stores_module, "time", time)
        assert loaded(trips[before:]) == ["EVALSHA"]  # nine scripts, one trip
        assert sorted(b.attempt for b in got) == list(range(9))  # each counted once, none lost
        levels = sorted(float(dict(b.rates)[b"x-ratelimit-remaining-requests"]) for b in got)
        assert len(set(levels)) == 9  # each took its own request from the bucket
        await link(state).client().set(link(state).key("attempts"), "not a hash")  # the attempts' script fails on it
        wrong = state.stores.before_shape(profile, prompt, ("t", "k", "c"), 1, "openai")
        right = state.counts.issue(("t", "k", "digest"), None)  # another script, in the same pipeline
        before = len(trips)
        failed, issued = await asyncio.gather(wrong, right, return_exceptions=True)
        assert isinstance(failed, redis.ResponseError) and "WRONGTYPE" in str(failed) and issued == 0
        assert loaded(trips[before:]) == ["EVALSHA"]

    run(check, state)


@given(
    st.sampled_from(["EVALSHA", "HSET", "SCRIPT LOAD", "GET"]),
    st.lists(st.one_of(st.text(), st.binary(), st.integers(), st.floats(allow_nan=False), st.booleans()), max_size=8),
)
@settings(max_examples=200, deadline=None)
def test_commands_are_packed_as_redis_py_packs_them(name: str, args: list[Any]) -> None:
    """`batch.pack` packs a command of text, bytes, whole numbers and floats byte for byte as redis-py does, and
    refuses a bool as redis-py does."""
    plain = redis.asyncio.connection.Connection()

    def packed(pack: Callable[[], Any]) -> bytes | type[Exception]:
        try:
            found = pack()
        except redis.DataError:
            return redis.DataError
        return found if isinstance(found, bytes) else b"".join(found)

    command = (*name.split(), *args)
    assert packed(lambda: batch.pack(command)) == packed(lambda: plain.pack_command(*command))


# --- the batches' own connection (`batch.Batcher`) --------------------------------------------------------------

PROFILE = profiles.PROFILES["inferam"]
BUSY = """local began = redis.call('TIME')
repeat
  local now = redis.call('TIME')
until (now[1] - began[1]) * 1000000 + (now[2] - began[2]) > tonumber(ARGV[1])
return 'slow'"""


def test_a_turns_write_does_not_wait_for_the_replies_to_the_one_before(
    redis_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One connection, written to at each turn that has commands, whether or not the replies to the last write are
    in: Redis answers a connection's commands in order, so each reply still reaches its own command."""
    state = shared(redis_server)
    trips = count_trips(monkeypatch)
    replied: list[str] = []

    async def check() -> None:
        await state.posted.refresh()
        await link(state).batch.send("PING")  # connected
        before = len(trips)
        slow = link(state).batch.send("EVAL", BUSY, 0, 200_000)  # Redis busy 0.2 s on it
        slow.add_done_callback(lambda f: replied.append(f.result().decode()))
        await asyncio.sleep(0.05)  # written, and Redis at work on it
        quick = link(state).batch.send("ECHO", "quick")
        quick.add_done_callback(lambda f: replied.append(f.result().decode()))
        await asyncio.sleep(0)  # the next turn writes it
        assert len(trips) == before + 2 and not slow.done()  # written behind the slow one, not after its reply
        assert await quick == b"quick"
        assert replied == ["slow", "quick"]

    run(check, state)


def test_scripts_missing_after_a_restart_are_loaded_once_for_a_whole_burst(
    redis_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A Redis that lost its scripts (restarted, flushed) answers NOSCRIPT to every request in flight: the next
    write loads the script once, ahead of all the requests refused in the last turn, and each request's script runs
    again behind it. (Each loaded
    it through redis-py's pool before: a burst of 300 met its 100 connections, and was answered 503.)"""
    state = shared(redis_server)
    profile = profiles.PROFILES["inferam"]
    trips = count_trips(monkeypatch)
    prompt = Prompt(dialect="t", model="m", messages=(Message("user", "hi"),))

    async def check() -> None:
        await state.posted.refresh()
        await state.stores.before_shape(profile, prompt, ("t", "k", "warm"), 1, "openai")
        await link(state).client().script_flush()
        before = len(trips)
        got = await asyncio.gather(
            *(state.stores.before_shape(profile, prompt, ("t", "k", f"c{i}"), 1, "openai") for i in range(300))
        )
        assert [b.attempt for b in got] == [0] * 300  # each ran once
        # All refused in one write; then, in each turn their refusals came back in, the load ahead of them again.
        again = trips[before + 1 :]
        assert trips[before] == "EVALSHA" and set(again) == {"SCRIPT LOAD"} and len(again) <= 10, trips[before:]

    run(check, state)


def test_a_turns_journal_entries_go_in_one_script_and_are_written_once_when_it_was_lost(
    redis_server: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The journal's entries of one turn are one script call, each given its own id in order; when Redis lost the
    script, the same write goes once more behind its load: every entry written once, none twice."""
    state = shared(redis_server)
    scripts: list[int] = []

    async def check() -> None:
        await state.journal.open(note("warm"))
        trips = count_trips(monkeypatch, scripts)
        ids = await asyncio.gather(*(state.journal.open(note(f"m{i}", "t" if i % 3 else "")) for i in range(100)))
        assert ids == list(range(ids[0], ids[0] + 100)) and trips == ["EVALSHA"] and scripts == [1]
        await link(state).client().script_flush()
        again = await asyncio.gather(*(state.journal.open(note(f"n{i}")) for i in range(100)))
        assert again == list(range(ids[-1] + 1, ids[-1] + 101))
        models = [v["model"] for v in await state.journal.find({})]
        assert models == ["warm", *(f"m{i}" for i in range(100)), *(f"n{i}" for i in range(100))]
        assert [v["model"] for v in await state.journal.find({"test_id": "t"})] == [
            f"m{i}" for i in range(100) if i % 3
        ]

    run(check, state)


@pytest.mark.parametrize("name", ["inferel", "inferam", "infercom"])  # a keyed cache, OpenAI's automatic one, none
def test_the_shapes_of_one_turn_are_taken_in_one_call_as_one_by_one(
    redis_server: str, monkeypatch: pytest.MonkeyPatch, name: str
) -> None:
    """Requests of one turn share one call of the before-script: each gets what it would alone, in order (the
    in-process state's attempts, cache and buckets), and those whose test has directions go round again, a fault
    given `times` striking as many of them as it says, whichever comes first."""
    profile = profiles.PROFILES[name]
    quota = limits.Limits(requests_per_minute=5, tokens_per_minute=400, enforce=True)
    state, alone = shared(redis_server, limits=quota), State(Settings(limits=quota))
    monkeypatch.setattr(state_module.time, "time", lambda: 1_767_225_600.0)
    long = 6 if profile.cache and profile.cache.minimum else 1  # past the 1,024 tokens an automatic cache wants
    said = "the quick brown fox jumps over the lazy dog " * 20 * long
    asked = [("t", "k", said, 30), ("", "k", said, 60), ("t", "k", said, 30), ("u", "k", said * 2, 300)]
    asked += [
        ("d", "k", said, 1),
        ("", "k", said, 100),
        ("d", "k", "brief", 0),
        ("t", "j", said, 1),
        ("d", "k", said, 1),
    ]
    asked += [("t", "k", said, 30)] * 4  # past the bucket of requests
    scripts: list[int] = []

    def prompt_of(text: str, key: str) -> Prompt:
        return Prompt(dialect="t", model="m", messages=(Message("user", text),), cache_key=key)

    async def compare() -> None:
        await state.directions.direct("d", Directions(spec="status=503", times=2))
        await state.posted.refresh()
        await state.stores.before_shape(profile, prompt_of("warm", "w"), ("w", "w", "w"), 1, "openai")  # loaded, once
        trips = count_trips(monkeypatch, scripts)
        got = await asyncio.gather(
            *(
                state.stores.before_shape(
                    profile, prompt_of(text, key), (test_id, key, text), tokens, "openai", (test_id, {})
                )
                for test_id, key, text, tokens in asked
            )
        )
        assert trips == ["EVALSHA"] and scripts == [1]  # one write, one script called
        faults = [(g.again or {}).get("x-emulator-fault") for g in got]
        assert faults == [None] * 4 + ["status=503", None, "status=503", None, None] + [None] * 4
        assert [g.again is not None for g in got] == [test_id == "d" for test_id, *_ in asked]
        for (test_id, key, text, tokens), mine in zip(asked, got, strict=True):
            if test_id != "d":
                assert mine == await alone.stores.before_shape(
                    profile, prompt_of(text, key), (test_id, key, text), tokens, "openai"
                )
        assert any(g.verdict and not g.verdict.allowed for g in got)  # the bucket of requests ran dry within the turn

    run(compare, state)


def test_a_burst_beyond_the_pools_connections_waits_for_one(redis_server: str) -> None:
    """Commands that go through redis-py (stored responses, here) beyond its pool's connections wait for one: the
    default pool refused the 101st at once with "Too many connections", a 503."""
    state = shared(redis_server)
    scope = ("t-burst", "k")

    async def check() -> None:
        await asyncio.gather(*(state.kept.keep(scope, {f"r{i}": {"n": i}}) for i in range(300)))
        found = await asyncio.gather(*(state.kept.recall(scope, [f"r{i}"]) for i in range(300)))
        assert [held[0]["n"] for held in found] == list(range(300))

    run(check, state)


def test_the_batches_connection_logs_in_and_picks_the_database_as_the_url_says(
    redis_server: str, tmp_path: Path
) -> None:
    """The scripts' connection is made from the `--state` URL as redis-py's are: a user and password, a database;
    and a unix socket with a password alone. What a request takes lands in the database named."""
    admin = redis.Redis.from_url(redis_server)
    admin.acl_setuser("batcher", enabled=True, passwords=["+s3cret"], keys=["*"], commands=["+@all"])
    host = redis_server.removeprefix("redis://").partition("/")[0]
    private = tmp_path / "redis.sock"
    assert REDIS_SERVER is not None  # else `redis_server` skipped the test
    command = [REDIS_SERVER, "--port", "0", "--unixsocket", str(private), "--requirepass", "pw", "--save", ""]
    process = subprocess.Popen([*command, "--appendonly", "no"], cwd=tmp_path, stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while not private.exists():
            assert process.poll() is None and time.monotonic() < deadline, "redis-server did not start"
            time.sleep(0.05)
        for url, db, client in [
            (f"redis://batcher:s3cret@{host}/5", 5, lambda db: redis.Redis.from_url(f"redis://{host}/{db}")),
            (
                f"unix://:pw@{private}?db=3",
                3,
                lambda db: redis.Redis(unix_socket_path=str(private), password="pw", db=db),
            ),
        ]:
            prefix = f"unit{next(_prefixes)}"
            state = shared_redis.shared_state(Settings(state=f"{url}{'&' if '?' in url else '?'}prefix={prefix}"))
            prompt = Prompt(dialect="t", model="m", messages=())
            got = run(
                functools.partial(state.stores.before_shape, PROFILE, prompt, ("t", "k", "c"), 1, "openai"), state
            )
            assert got.attempt == 0
            assert client(db).hlen(f"{prefix}:attempts") == 1 and client(0).hlen(f"{prefix}:attempts") == 0
    finally:
        process.terminate()
        process.wait(timeout=10)
        admin.acl_deluser("batcher")


def test_the_chaos_attempts_are_bounded_by_max_clients_as_in_process(redis_server: str) -> None:
    """After 200,000 conversations the attempts hash held one field each, with no expiry per field, Redis growing
    with traffic. Counted in two generations of at most `--max-clients` requests each, it holds at most twice that
    many, however many come; and a request asked again after its generation turned over counts on."""
    state = shared(redis_server, max_clients=50)
    profile = profiles.PROFILES["inferam"]
    prompt = Prompt(dialect="t", model="m", messages=(Message("user", "hi"),))

    async def attempt(conversation: str) -> int:
        found = await state.stores.before_shape(profile, prompt, ("t", "k", conversation), 1, "openai")
        return found.attempt

    async def check() -> None:
        client = link(state).client()
        assert [await attempt("kept") for _ in range(3)] == [0, 1, 2]
        sizes = []
        for n in range(1_000):
            await attempt(f"conversation {n}")
            if n % 100 == 99:
                sizes.append(
                    await client.hlen(link(state).key("attempts"))
                    + await client.hlen(link(state).key("attempts:before"))
                )
        assert max(sizes) <= 2 * 50 + 1, sizes
        assert [await attempt("fresh") for _ in range(2)] == [0, 1]
        for n in range(40):  # fewer than a generation: "fresh" turns over into the one before, and counts on
            await attempt(f"later {n}")
        assert await attempt("fresh") == 2

    run(check, state)
