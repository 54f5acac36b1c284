"""The journal: bounded in entries and in bytes, whatever clients send."""

from __future__ import annotations

import concurrent.futures
import gc
import json
import threading
import time
import tracemalloc
import urllib.error
import urllib.request
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator import journal
from emulator.core import sse
from emulator.http.app import Settings
from emulator.journal import Journal, Note, delivery


def note(model: str = "m", test_id: str = "") -> Note:
    return Note("POST", "/v1/chat/completions", model, "", False, "default", None, 200, None, test_id)


def test_the_oldest_entries_go_past_the_journal_size() -> None:
    log = Journal(capacity=3)
    for i in range(5):
        log.add(note(f"m{i}"))
    assert [e.model for e in log.entries()] == ["m2", "m3", "m4"]


def test_long_texts_a_client_sent_are_cut_and_marked() -> None:
    """1,000 requests with a 1 MB model name added 959 MB to the journal."""
    log = Journal()
    log.add(note("x" * 1_000_000, test_id="t" * 5000))
    (entry,) = log.entries()
    assert entry.model == "x" * journal.LONG + f"…[{1_000_000 - journal.LONG} more]"
    assert entry.test_id.startswith("t" * journal.LONG) and len(entry.test_id) < journal.LONG + 20


def test_a_megabyte_model_name_is_journalled_cut(make_server: Any) -> None:
    server = make_server(Settings(journal_size=2))
    body = json.dumps({"model": "m" * 1_000_000, "messages": [{"role": "user", "content": "hi"}]}).encode()
    for _ in range(3):
        request = urllib.request.Request(
            f"{server.base_url}/v1/chat/completions",
            data=body,
            headers={"content-type": "application/json", "authorization": "Bearer sk-test"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
    with urllib.request.urlopen(f"{server.base_url}/_emulator/requests", timeout=10) as response:
        listed = json.load(response)
    entries = listed if isinstance(listed, list) else listed["requests"]
    assert len(entries) == 2
    assert all(len(e["model"]) < journal.LONG + 20 for e in entries)


# --- bodies, answers, bounds -----------------------------------------------------------------------------


def journal_of(server: Any, query: str = "", **headers: str) -> dict[str, Any]:
    asked = urllib.request.Request(f"{server.base_url}/_emulator/requests{query}", headers=headers)
    with urllib.request.urlopen(asked, timeout=10) as response:
        return dict(json.load(response))


def test_an_entry_holds_the_request_as_sent_and_the_answer_as_received(server: Any) -> None:
    test_id = "journal-bodies-chat"
    messages = [{"role": "user", "content": "What does the journal keep?"}]
    with server.openai(default_headers={"x-emulator-test-id": test_id}) as sdk:
        reply = sdk.chat.completions.create(model="DeepSeek-V4.1-Flash-1017", messages=messages, max_tokens=40)
    (entry,) = journal_of(server, f"?test_id={test_id}")["requests"]
    assert entry["body"] == {"model": "DeepSeek-V4.1-Flash-1017", "messages": messages, "max_tokens": 40}
    assert entry["headers"]["authorization"] == "Bearer …test"  # the key sk-test, as a hint
    assert entry["headers"]["content-type"] == "application/json"
    assert (entry["endpoint"], entry["profile"], entry["source_kind"]) == ("chat_completions", "inferam", "default")
    assert entry["truncated"] is False
    answer = entry["response"]
    assert answer["status"] == 200 and answer["headers"]["x-request-id"] == reply._request_id
    assert answer["body"]["choices"][0]["message"]["content"] == reply.choices[0].message.content
    assert answer["body"]["usage"]["completion_tokens"] == reply.usage.completion_tokens
    assert entry["usage"]["output_tokens"] == reply.usage.completion_tokens
    assert 0 < answer["ttft_ms"] <= answer["duration_ms"]


def test_a_streamed_answer_is_journalled_event_by_event_with_its_timing(server: Any) -> None:
    test_id = "journal-bodies-stream"
    with (
        server.anthropic(
            default_headers={"x-emulator-test-id": test_id, "x-emulator-timing": "tokens_per_second=400"}
        ) as sdk,
        sdk.messages.stream(
            model="claude-sonnet-4-6", max_tokens=30, messages=[{"role": "user", "content": "Say something."}]
        ) as stream,
    ):
        final = stream.get_final_message()
    (entry,) = journal_of(server, f"?test_id={test_id}")["requests"]
    assert entry["stream"] is True and entry["timing"] == "tokens_per_second=400.0"
    events = entry["response"]["events"]
    names = [e["event"] for e in events]
    assert names[0] == "message_start" and names[-1] == "message_stop"
    assert names.count("content_block_delta") >= 2
    text = "".join(e["data"]["delta"].get("text", "") for e in events if e["event"] == "content_block_delta")
    assert text == "".join(block.text for block in final.content if block.type == "text")
    times = [e["t"] for e in events]
    assert times == sorted(times)
    assert times[-1] - times[0] > 0  # paced: the events went out over time
    assert entry["response"]["ttft_ms"] == pytest.approx(times[0], abs=0.01)


def test_a_refused_body_is_kept_as_text_with_the_error_sent(server: Any) -> None:
    test_id = "journal-bodies-refused"
    asked = urllib.request.Request(
        f"{server.base_url}/v1/chat/completions",
        data=b'{"model": "m", "messages": [',
        headers={"content-type": "application/json", "authorization": "Bearer sk-test", "x-emulator-test-id": test_id},
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(asked, timeout=10)
    assert refused.value.code == 400
    refused.value.close()
    (entry,) = journal_of(server, f"?test_id={test_id}")["requests"]
    assert entry["body"] is None and entry["body_text"] == '{"model": "m", "messages": ['
    assert entry["status"] == 400 and entry["source"] is None and entry["source_kind"] is None
    assert entry["response"]["body"]["error"]["code"] == "invalid_json"


def test_the_journal_reads_incrementally_and_by_field_and_leaves_out_its_own_routes(server: Any) -> None:
    test_id = "journal-bodies-since"
    with server.openai(default_headers={"x-emulator-test-id": test_id}) as sdk:
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "one"}])
        first = journal_of(server, f"?test_id={test_id}")
        urllib.request.urlopen(f"{server.base_url}/health", timeout=10).close()
        urllib.request.urlopen(f"{server.base_url}/metrics", timeout=10).close()
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "two"}])
    later = journal_of(server, f"?since={first['last']}", **{"x-emulator-test-id": test_id})
    assert [e["body"]["messages"][0]["content"] for e in later["requests"]] == ["two"]
    assert later["last"] == later["requests"][0]["id"] > first["last"]
    listed = journal_of(server, f"?test_id={test_id}&bodies=false&source_kind=default")["requests"]
    assert len(listed) == 2 and not any("body" in e or "response" in e for e in listed)
    assert all(e["path"] == "/v1/chat/completions" for e in listed)  # no /health, /metrics or admin call


def test_one_entry_in_full_and_a_missing_one(server: Any) -> None:
    with server.openai(default_headers={"x-emulator-test-id": "journal-one"}) as sdk:
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "hello"}])
    (listed,) = journal_of(server, "?test_id=journal-one&bodies=false")["requests"]
    with urllib.request.urlopen(f"{server.base_url}/_emulator/requests/{listed['id']}", timeout=10) as response:
        entry = json.load(response)
    assert entry["id"] == listed["id"] and entry["body"]["messages"][0]["content"] == "hello"
    with pytest.raises(urllib.error.HTTPError) as missing:
        urllib.request.urlopen(f"{server.base_url}/_emulator/requests/999999999", timeout=10)
    with missing.value as answer:
        assert answer.code == 404 and "dropped" in json.load(answer)["error"]["message"]


def test_an_entry_is_opened_before_delivery_and_completed_when_it_ends(make_server: Any) -> None:
    """WireMock's rule: a request is seen while its answer is still on its way."""
    server = make_server(Settings())
    with server.openai(default_headers={"x-emulator-timing": "latency_ms=1500"}) as sdk:
        done = threading.Event()

        def call() -> None:
            sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
            done.set()

        caller = threading.Thread(target=call)
        caller.start()
        deadline = time.monotonic() + 10
        while not (found := journal_of(server)["requests"]) and time.monotonic() < deadline:
            time.sleep(0.02)
        assert found and found[0]["response"] is None and found[0]["duration_ms"] is None and not done.is_set()
        caller.join(timeout=20)
    (entry,) = journal_of(server)["requests"]
    assert entry["response"]["status"] == 200 and entry["duration_ms"] >= 1500


def test_a_client_with_its_answer_finds_its_entry_complete_however_many_call_at_once(server: Any) -> None:
    """In process, a plain answer is written (or held for the loop's turn) before its entry is completed, with nothing
    between that waits: a client that reads the journal the moment it has its answer finds the entry complete, with
    one connection and with several."""

    def calls(who: int) -> list[Any]:
        found = []
        test_id = f"complete-{who}-{time.monotonic_ns()}"  # the fixture's server is shared: this caller's own entries
        with server.openai(default_headers={"x-emulator-test-id": test_id}) as sdk:
            for i in range(8):
                sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": f"call {i}"}])
                last = journal_of(server, f"?test_id={test_id}")["requests"][-1]
                found.append(last["response"] and last["response"]["status"])
        return found

    assert calls(0) == [200] * 8
    with concurrent.futures.ThreadPoolExecutor(4) as pool:
        assert list(pool.map(calls, range(1, 5))) == [[200] * 8] * 4


def note_with_body(body: bytes) -> Note:
    return note()._replace(body=body, headers={"x-api-key": "sk-ant-secret-1234", "accept": "*/*"})


def test_a_large_body_is_cut_with_a_marker_and_credentials_are_masked() -> None:
    log = Journal()
    big = b'{"text": "' + b"x" * journal.BODY_CAP + b'"}'
    entry_id = log.add(note_with_body(big))
    entry = log.get(entry_id)
    assert entry is not None
    assert entry["body"] is None and entry["truncated"] is True
    assert entry["body_text"].startswith('{"text": "xxx') and entry["body_text"].endswith("more bytes]")
    assert entry["headers"] == {"x-api-key": "…1234", "accept": "*/*"}


def test_the_journal_is_bounded_in_bytes_the_oldest_going_first_and_counted() -> None:
    log = Journal(capacity=100, max_bytes=10_000)
    for i in range(10):
        log.add(note_with_body(b'{"n": %d, "pad": "%s"}' % (i, b"p" * 2_000)))
    kept = [e["body"]["n"] for e in log.find({})]
    assert kept == [6, 7, 8, 9] and log.dropped == 6
    answer = journal.at_once(200, [(b"content-type", b"application/json")], b"{}" * 2_500, 0.001)
    log.complete(log.entries()[-1].id, answer)
    assert [e["body"]["n"] for e in log.find({})] == [8, 9] and log.dropped == 8


def test_sse_chunks_are_read_back_as_events_whatever_their_split() -> None:
    chunks = [(0.001, b'event: a\ndata: {"x"'), (0.002, b": 1}\n\n: ping\n\ndata: [DON"), (0.003, b"E]\n\ndata: {")]
    assert list(delivery.events(chunks)) == [
        {"t": 2.0, "event": "a", "data": {"x": 1}},
        {"t": 2.0, "comment": "ping"},
        {"t": 3.0, "data": "[DONE]"},
        {"t": 3.0, "partial": "data: {"},
    ]


def test_a_plain_answer_is_kept_in_the_bytes_it_needs() -> None:
    """orjson's bytes hold the 4 KB it allocated to write in, whatever their length: a journal of 10,000 plain
    answers kept 40 MB of them. What the journal keeps of an answer is a copy of its own size."""
    headers = [(b"content-type", b"application/json")]
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        kept = [
            delivery.at_once(200, headers, sse.encode({"id": f"c-{i}", "content": "Hello"}), 0.1) for i in range(1000)
        ]
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert [k.steps for k in kept] == [(sse.encode({"id": f"c-{i}", "content": "Hello"}),) for i in range(1000)]
    assert grown < 1000 * 400, grown  # a body of some 40 bytes, its tuples and the answer's: not 4 KB apiece


def test_what_the_journal_keeps_is_out_of_the_collectors_sight_before_a_full_collection() -> None:
    """A full journal's records are walked by every collection of their generation while they are tracked. Headers
    kept as pairs (three levels of tuples) stayed tracked until a full collection, which at 5,000 answers a second
    came every second or two and took 10-50 ms (the p99 of a loaded server); kept flat, the second young collection
    lets them go, and the journal reads back the same."""
    kept = Journal()
    sent = [(b"x-request-id", b"req_1"), (b"content-type", b"application/json"), (b"content-length", b"2")]
    for i in range(50):
        asked = note()._replace(headers={"authorization": f"Bearer sk-{i}", "x-i": str(i)}, usage=(1, 2, 0, 0))
        entry = kept.add(asked)
        kept.complete(entry, delivery.at_once(200, [*sent, (b"x-i", str(i).encode())], b"{}", 0.01))
    gc.collect(0)
    gc.collect(1)
    assert not any(gc.is_tracked(record) for record in kept._entries)
    assert not any(gc.is_tracked(record) for record in kept._answers.values())
    last = kept.get(50)
    assert last is not None and last["headers"]["x-i"] == "49" and "sk-49" not in last["headers"]["authorization"]
    assert last["response"]["headers"] == {"x-request-id": "req_1", "content-type": "application/json"} | {
        "content-length": "2",
        "x-i": "49",
    }


header_texts = st.text(st.characters(min_codepoint=0, max_codepoint=0x2FF), max_size=12)  # NUL among them


@settings(max_examples=150, deadline=None)
@given(
    asked=st.dictionaries(header_texts, header_texts, max_size=5),
    sent=st.lists(st.tuples(st.binary(max_size=8), st.binary(max_size=8)), max_size=5),
)
def test_headers_read_back_as_they_came_whatever_they_hold(asked: dict[str, str], sent: list[Any]) -> None:
    """A record keeps its header values joined by NUL, and as they are when one holds a NUL: either way they read
    back as given, none, one empty, or many."""
    log = Journal()
    entry = log.add(note()._replace(headers=asked))
    log.complete(entry, delivery.at_once(200, sent, b"", 0.01))
    assert log.entries()[0].headers == asked
    delivered = log._delivered(entry)
    assert delivered is not None and delivered.headers == tuple(sent)


def test_a_record_keeps_its_headers_in_two_objects_the_names_shared_with_other_records() -> None:
    """20-40 objects a record, freed out of the caches 10,000 answers later, were a tenth of the CPU an answer:
    the names are one tuple for every record that has them, the values one text or bytes."""
    sent = [(b"x-request-id", b"req_1"), (b"content-type", b"application/json")]
    tracemalloc.start()
    try:
        log = Journal()
        before = tracemalloc.get_traced_memory()[0]
        for i in range(1000):
            headers = {"authorization": f"Bearer sk-{i}", "user-agent": "OpenAI/Python 2.8.0", "x-n": str(i)}
            entry = log.add(note()._replace(headers=headers))
            log.complete(entry, delivery.at_once(200, [*sent, (b"x-n", b"%d" % i)], b"{}", 0.01))
        grown = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    first, last = log._entries[0], log._entries[-1]
    assert first[journal._HEADERS] is last[journal._HEADERS]  # one tuple of names for all
    assert log._answers[1][journal._SENT] is log._answers[1000][journal._SENT]
    last_entry = log.get(1000)
    assert last_entry is not None and last_entry["headers"]["x-n"] == "999"
    # Kept as a tuple of names and one of values, each value its own object: 1,170 bytes a request and its answer
    # here. Now 911.
    assert grown < 1000 * 1040, grown
