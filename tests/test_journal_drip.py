"""An answer written in many small pieces (slice and drip faults) is kept merged by the journal, one write per
server-sent event: a one-byte drip kept a write, a time and a mark per byte (some 76 bytes of objects a byte,
17 GB for 200 streams of a long scenario). What the journal shows from it is unchanged."""

from __future__ import annotations

import gc
import json
import time
import tracemalloc
import urllib.request
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator import journal
from emulator.http.app import Settings
from emulator.journal import Delivered, Note, delivery
from tests.conftest import FROZEN, Server

SSE = ((b"content-type", b"text/event-stream"),)
JSON = ((b"content-type", b"application/json"),)
STREAMS = 8  # of each kind, at once: what the journal keeps grows with them, the rest of the heap does not


def note() -> Note:
    return Note("POST", "/v1/chat/completions", "m", "", True, "default", None, 200, None, "t")


# Bytes as streams carry them, line ends of both kinds among them.
PIECE = st.lists(st.sampled_from([b"data: ", b"{}", b"x", b"\n", b"\r\n", b"\r", b"event: e", b": ka", b"\xc3"]))


@st.composite
def answers(draw: st.DrawFn) -> Delivered:
    """An answer written in small pieces, with pauses (marks) between some of them, and a body cap of its own."""
    data = b"".join(draw(PIECE))
    cuts = sorted(draw(st.sets(st.integers(1, max(len(data) - 1, 1)), max_size=len(data))))
    steps = tuple(data[i:j] for i, j in zip([0, *cuts], [*cuts, len(data)], strict=False) if i < j)
    writes = draw(st.integers(0, len(steps)))
    arrived = 100.0
    marks = (0, *sorted(draw(st.sets(st.integers(1, max(writes, 1)), max_size=writes))))
    times = tuple(arrived + 0.001 * (i + 1) * draw(st.integers(1, 9)) for i in range(len(marks)))
    timed = draw(st.booleans())
    size = sum(map(len, steps[:writes]))
    headers = draw(st.sampled_from([SSE, JSON]))
    return Delivered(200, headers, steps, writes, size, 0.001, 0.5, times if timed else None, arrived, marks)


@settings(max_examples=400, deadline=None)
@given(answers(), st.integers(1, 60))
def test_a_merged_answer_reads_back_as_written(delivered: Delivered, cap: int) -> None:
    """The view of an answer kept merged equals that of the answer as written: its events, their times, its
    body, cut at the same byte."""
    entry = journal.noted(1, note(), 0.0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "BODY_CAP", cap)
        patch.setattr(delivery, "MERGED_FROM", 0)
        merged = delivery.compact(delivered)
        assert journal.view(entry, merged) == journal.view(entry, delivered)
    assert merged.size == delivered.size


def test_an_answer_written_an_event_at_a_time_is_kept_as_written() -> None:
    """A plain stream's writes (an event each, a hundred bytes and more) are kept by reference, not copied."""
    steps = tuple(b"data: " + json.dumps({"i": i, "pad": "x" * 100}).encode() + b"\n\n" for i in range(200))
    size = sum(map(len, steps))
    delivered = Delivered(200, SSE, steps, len(steps), size, 0.01, 1.0, (1.0,), 0.0, (0,))
    assert delivery.compact(delivered) is delivered


@pytest.fixture
def dripped(make_server: Callable[[Settings], Server], tmp_path: Path) -> Server:
    """A server whose scenario answers "drip me" with a short reply (a stream of a couple of kilobytes)."""
    reply = "Rivers carry water downhill."
    (tmp_path / "drip.yaml").write_text(
        f"scenarios:\n  - name: dripped\n    match:\n      last_user: drip me\n    reply:\n      text: {reply}\n"
    )
    return make_server(Settings(scenarios=(tmp_path,), frozen_time=FROZEN))


def stream(server: Server, test_id: str, fault: str | None = None) -> bytes:
    body = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "drip me"}]}
    headers = {"content-type": "application/json", "authorization": "Bearer sk-drip", "x-emulator-test-id": test_id}
    headers |= {"x-emulator-fault": fault} if fault else {}
    request = urllib.request.Request(f"{server.base_url}/v1/chat/completions", json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=120) as response:
        return bytes(response.read())


def settled(server: Server, test_id: str) -> None:
    """Wait until the server has completed the entries of `test_id`'s answers: a client has its last byte before the
    server's task lets go of the answer's script and completes its entry, and under load (a parallel test run) that
    was still to come when the heap was measured (163 KB kept against 68 KB plain, once in CI)."""
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        with urllib.request.urlopen(f"{server.base_url}/_emulator/requests?test_id={test_id}", timeout=10) as answer:
            entries = json.load(answer)["requests"]
        if all(entry["duration_ms"] is not None for entry in entries):
            return
        time.sleep(0.01)
    pytest.fail(f"the answers of {test_id} were not completed in 30 s")


def retained(server: Server, test_id: str, fault: str | None = None) -> tuple[int, list[bytes]]:
    """The bytes of heap `STREAMS` answers at once leave behind (the journal's entries, mostly), and the answers."""
    with ThreadPoolExecutor(STREAMS) as pool:
        gc.collect()
        before = tracemalloc.get_traced_memory()[0]
        got = list(pool.map(lambda _: stream(server, test_id, fault), range(STREAMS)))
        settled(server, test_id)
        gc.collect()
        return tracemalloc.get_traced_memory()[0] - before, got


def test_a_one_byte_drip_keeps_about_what_the_plain_stream_keeps(dripped: Server) -> None:
    """Streams of one answer, plain and dripped a byte a millisecond: the dripped ones leave the heap about as
    much as the plain ones (16 times as much before writes were merged), and the journal shows the same events."""
    tracemalloc.start()
    try:
        retained(dripped, "warm-up")  # the first answers of a server fill its caches
        retained(dripped, "warm-up", "drip; size=1; ms=1")
        plain, sent = retained(dripped, "plain")
        drip, dripped_sent = retained(dripped, "drip", "drip; size=1; ms=1")
    finally:
        tracemalloc.stop()
    assert dripped_sent == sent and len(sent[0]) > 1000
    assert drip < 2 * plain, (drip, plain)
    assert events(dripped, "drip") == events(dripped, "plain")


def events(server: Server, test_id: str) -> list[list[dict[str, Any]]]:
    """Each of the test's streams' events as the journal shows them, without their times."""
    url = f"{server.base_url}/_emulator/requests?test_id={test_id}"
    with urllib.request.urlopen(url, timeout=30) as response:
        found = json.load(response)["requests"]
    assert len(found) == STREAMS
    return [[{k: v for k, v in e.items() if k != "t"} for e in entry["response"]["events"]] for entry in found]


def test_carriage_returns_written_apart_read_back_as_written() -> None:
    """CR, CR, LF in three writes (Hypothesis found it): a CR that ends a write keeps its place when merged."""
    delivered = journal.Delivered(
        200,
        ((b"content-type", b"text/event-stream"),),
        (b"\r", b"\r", b"\n", b"d", b"ata: "),
        4,
        4,
        0.001,
        0.5,
        None,
        100.0,
        (0,),
    )
    entry = journal.noted(1, note(), 0.0)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(journal, "BODY_CAP", 4)
        patch.setattr(delivery, "MERGED_FROM", 0)
        assert journal.view(entry, delivery.compact(delivered)) == journal.view(entry, delivered)
