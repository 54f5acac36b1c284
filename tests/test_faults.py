"""Faults and pacing: the vocabulary, the plan, and what each SDK sees when the server misbehaves.

One row per fault in the parametrized tables: adding a fault is adding a row. Timing is asserted in
ranges, never exactly.
"""

from __future__ import annotations

import json
import time
import urllib.parse
import urllib.request
from collections.abc import Iterator
from typing import Any, Literal

import anthropic
import httpx2
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.core import wire
from emulator.core.conversation import Fault, Timing
from emulator.core.recent import Recent
from emulator.core.wire import Hangup, Pause
from emulator.http.app import Settings
from emulator.rules import faults
from emulator.rules.faults import FaultError
from tests.conftest import Server

USER: Any = [{"role": "user", "content": "hi"}]
TEXT = "Hello from the emulator. It streams in token-sized pieces."  # the `plain-text` scenario


def journal(server: Server, **where: str) -> list[dict[str, Any]]:
    query = urllib.parse.urlencode(where)
    with urllib.request.urlopen(f"{server.base_url}/_emulator/requests?{query}", timeout=10) as response:
        return list(json.load(response)["requests"])


@pytest.fixture
def fresh(server: Server) -> Iterator[Server]:
    """The shared server with its journal and counters cleared before the test."""
    urllib.request.urlopen(urllib.request.Request(f"{server.base_url}/_emulator/reset", method="POST"), timeout=10)
    yield server


# --- the vocabulary --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("status; status=429; retry_after=2", Fault("status", status=429, retry_after=2.0)),
        ("status=503", Fault("status", status=503)),
        ("kind=truncate; after_events=5", Fault("truncate", after_events=5)),
        ("stall;after_events=3;ms=250", Fault("stall", after_events=3, ms=250)),
        (
            "status=429; should_retry=false; retry_after_ms=1500",
            Fault("status", status=429, should_retry=False, retry_after_ms=1500),
        ),
        (
            "stream_error; after_events=2; event=error; code=server_error",
            Fault("stream_error", after_events=2, event="error", code="server_error"),
        ),
        ("hang", Fault("hang")),
    ],
)
def test_header_grammar(spec: str, expected: Fault) -> None:
    fault = faults.fault(faults.split_spec(spec), "x-emulator-fault")
    assert fault == expected
    assert faults.fault(faults.split_spec(faults.describe(fault)), "again") == fault  # describe reads back


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("teapot", "'teapot' is not a fault kind"),
        ("status", "h.status: missing"),
        ("status=200", "h.status: expected an integer from 400 to 599, got 200"),
        ("status=429; retry_after=nan", "h.retry_after: expected a number from 0 to 86,400, got nan"),
        ("status=429; retry_after=inf", "h.retry_after: expected a number from 0 to 86,400, got inf"),
        ("status=429; retry_after=-5", "h.retry_after: expected a number from 0 to 86,400, got -5"),
        ("status=429; retry_after_ms=-1", "h.retry_after_ms: expected an integer from 0 to 86,400,000"),
        ("stall; after_events=1; ms=600001", "h.ms: expected an integer from 0 to 600,000, got 600001"),
        ("drip; size=1; ms=100000000000", "h.ms: expected an integer from 0 to 600,000"),
        ("status=500; rate=nan", "h.rate: expected a number from 0 to 1, got nan"),
        ("truncate", "exactly one of after_events, after_bytes"),
        ("hang; ms=5", "h.ms: not a parameter of 'hang'"),
        ("stall; after_events=x", "h.after_events: expected an integer, got 'x'"),
        ("status=429; should_retry=maybe", "h.should_retry: expected true or false"),
        ("slice; size=0", "h.size: expected an integer from 1 to 1,000,000,000, got 0"),
    ],
)
def test_bad_specs_say_what_is_wrong(spec: str, message: str) -> None:
    with pytest.raises(FaultError, match=message.replace("(", r"\(")):
        faults.fault(faults.split_spec(spec), "h")


def test_timing_grammar() -> None:
    assert faults.timing(faults.split_spec("ttft_ms=300; tokens_per_second=60"), "t") == Timing(
        ttft_ms=300, tokens_per_second=60.0
    )
    with pytest.raises(FaultError, match="t.speed: unknown timing key"):
        faults.timing({"speed": 3}, "t")


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("tokens_per_second=1e-320", "t.tokens_per_second: expected a number from 0.1 to 100,000, got 1e-320"),
        ("tokens_per_second=0", "t.tokens_per_second: expected a number from 0.1 to 100,000, got 0"),
        ("tokens_per_second=inf", "t.tokens_per_second: expected a number from 0.1 to 100,000, got inf"),
        ("tokens_per_second=nan", "t.tokens_per_second: expected a number from 0.1 to 100,000, got nan"),
        ("ttft_ms=100000000000", "t.ttft_ms: expected an integer from 0 to 600,000, got 100000000000"),
        ("jitter_ms=10000000000000", "t.jitter_ms: expected an integer from 0 to 600,000, got 10000000000000"),
        ("latency_ms=-1", "t.latency_ms: expected an integer from 0 to 600,000, got -1"),
    ],
)
def test_timing_out_of_range_names_the_key_and_the_range(spec: str, message: str) -> None:
    with pytest.raises(FaultError) as caught:
        faults.timing(faults.split_spec(spec), "t")
    assert str(caught.value) == message
    assert faults.timing(faults.split_spec("ttft_ms=600000; tokens_per_second=0.1; jitter_ms=0"), "t")


# --- the plan ------------------------------------------------------------------------------------------

EVENTS = [b"data: 1\n\n", b"data: 2\n\n", b"data: 3\n\n", b"data: [DONE]\n\n"]


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (Fault("truncate", after_events=2), [*EVENTS[:2], Hangup()]),
        (Fault("truncate", after_bytes=13), [EVENTS[0], b"data", Hangup()]),
        (Fault("stall", after_events=1), [EVENTS[0], Hangup(after=None)]),
        (Fault("stall", after_events=1, ms=500), [EVENTS[0], Hangup(after=0.5)]),
        (Fault("malformed", after_events=3), [*EVENTS[:3], b'data: {"unterminated\n\n', Hangup()]),
        (Fault("reset", after_events=0), [Hangup(reset=True)]),
        # past the end: before the last event or byte, never the whole answer
        (Fault("truncate", after_events=9), [*EVENTS[:3], Hangup()]),
        (Fault("stall", after_events=4), [*EVENTS[:3], Hangup(after=None)]),
        (Fault("truncate", after_bytes=400), [*EVENTS[:3], b"data: [DONE]\n", Hangup()]),
        (
            Fault("slice", size=4),
            [
                b"data",
                b": 1\n",
                b"\n",
                b"data",
                b": 2\n",
                b"\n",
                b"data",
                b": 3\n",
                b"\n",
                b"data",
                b": [D",
                b"ONE]",
                b"\n\n",
            ],
        ),
        (
            Fault("drip", size=9, ms=20),
            [
                EVENTS[0],
                Pause(0.02),
                EVENTS[1],
                Pause(0.02),
                EVENTS[2],
                Pause(0.02),
                b"data: [DO",
                Pause(0.02),
                b"NE]\n\n",
                Pause(0.02),
            ],
        ),
        (Fault("stream_error"), EVENTS),  # the dialect renders it into the events
    ],
)
def test_plan_breaks_the_stream(fault: Fault, expected: list[Any]) -> None:
    assert list(faults.plan(EVENTS, fault, None)) == expected


def test_plan_paces_with_keepalives_and_seeded_jitter() -> None:
    steps = list(faults.plan(EVENTS, None, Timing(ttft_ms=25_000, tokens_per_second=10), keepalive=b": ka\n\n"))
    assert steps == [EVENTS[0], Pause(10.0), b": ka\n\n", Pause(10.0), b": ka\n\n", Pause(5.0), EVENTS[1]] + [
        Pause(0.1),
        EVENTS[2],
        Pause(0.1),
        EVENTS[3],
    ]
    jittery = Timing(tokens_per_second=10, jitter_ms=50)
    first, again = (list(faults.plan(EVENTS, None, jittery, seed=7)) for _ in range(2))
    assert first == again != list(faults.plan(EVENTS, None, jittery, seed=8))
    assert all(0.05 <= s.seconds <= 0.15 for s in first if isinstance(s, Pause))


# --- what the clients see --------------------------------------------------------------------------------

OPENAI_STREAM_FAULTS = [
    ("truncate; after_events=3", openai.APIConnectionError, 3),
    ("truncate; after_bytes=100", openai.APIConnectionError, 0),
    ("reset; after_events=2", openai.APIConnectionError, 2),
    ("malformed; after_events=2", json.JSONDecodeError, 2),
    ("stall; after_events=2", openai.APITimeoutError, 2),
    ("reset", openai.APIConnectionError, 0),
    ("empty", openai.APIConnectionError, 0),
    ("garbage", openai.APIConnectionError, 0),
    ("hang", openai.APITimeoutError, 0),
    ("status=429; retry_after=3", openai.RateLimitError, 0),
    ("status=503", openai.InternalServerError, 0),
    ("stream_error; after_events=2", openai.APIError, 2),
]


@pytest.mark.parametrize(("spec", "raised", "received"), OPENAI_STREAM_FAULTS)
def test_chat_stream_faults(server: Server, spec: str, raised: type[Exception], received: int) -> None:
    got: list[Any] = []
    with server.openai(timeout=1.0) as client, pytest.raises(raised):
        stream = client.chat.completions.create(
            model="plain-text", messages=USER, stream=True, extra_headers={"x-emulator-fault": spec}
        )
        got.extend(stream)
    assert len(got) == received


@pytest.mark.parametrize("spec", ["truncate; after_events=100000", "truncate; after_bytes=10000000"])
def test_a_break_asked_past_the_end_still_strikes(server: Server, spec: str) -> None:
    """The whole answer but its terminator, then the close: the client sees the stream cut."""
    with server.openai(timeout=5.0) as client:
        whole = list(client.chat.completions.create(model="plain-text", messages=USER, stream=True))
        got: list[Any] = []
        with pytest.raises(openai.APIConnectionError):
            stream = client.chat.completions.create(
                model="plain-text", messages=USER, stream=True, extra_headers={"x-emulator-fault": spec}
            )
            got.extend(stream)
    assert len(got) == len(whole) and got[-1].choices == whole[-1].choices


# Responses' in-band error is an event (`response.failed`), not an exception: test_responses_in_band_errors.
@pytest.mark.parametrize(
    ("spec", "raised", "received"), [row for row in OPENAI_STREAM_FAULTS if not row[0].startswith("stream_error")]
)
def test_responses_stream_faults(server: Server, spec: str, raised: type[Exception], received: int) -> None:
    got: list[Any] = []
    with server.openai(timeout=1.0) as client, pytest.raises(raised):
        stream = client.responses.create(
            model="plain-text", input="hi", stream=True, extra_headers={"x-emulator-fault": spec}
        )
        got.extend(stream)
    assert len(got) == received


# anthropic 2.14 does not wrap a transport failure once the stream is being read: httpx2's own error escapes
# (openai 3.57 wraps the same as APIConnectionError / APITimeoutError).
ANTHROPIC_STREAM_FAULTS = [
    ("truncate; after_events=3", httpx2.RemoteProtocolError, 2),  # the third event is a ping, which the SDK skips
    ("reset; after_events=2", httpx2.ReadError, 2),
    ("stall; after_events=2", httpx2.ReadTimeout, 2),
    ("truncate; after_bytes=100", httpx2.RemoteProtocolError, 0),
    ("malformed; after_events=4", json.JSONDecodeError, 3),
    ("reset", anthropic.APIConnectionError, 0),
    ("empty", anthropic.APIConnectionError, 0),
    ("garbage", anthropic.APIConnectionError, 0),
    ("hang", anthropic.APITimeoutError, 0),
    ("status=429; retry_after=3", anthropic.RateLimitError, 0),
    ("status=529", anthropic.OverloadedError, 0),
    ("status=503", anthropic.ServiceUnavailableError, 0),
    ("stream_error; after_events=2; status=529", anthropic.APIStatusError, 2),
]


@pytest.mark.parametrize(("spec", "raised", "received"), ANTHROPIC_STREAM_FAULTS)
def test_messages_stream_faults(server: Server, spec: str, raised: type[Exception], received: int) -> None:
    got: list[Any] = []
    with server.anthropic(timeout=1.0) as client, pytest.raises(raised):
        stream = client.messages.create(
            model="plain-text", max_tokens=100, messages=USER, stream=True, extra_headers={"x-emulator-fault": spec}
        )
        got.extend(stream)
    assert len(got) == received


@pytest.mark.parametrize("spec", ["slice; size=3", "drip; size=40; ms=5"])
@pytest.mark.parametrize("dialect", ["chat", "responses", "messages"])
def test_slice_and_drip_deliver_everything(server: Server, dialect: str, spec: str) -> None:
    headers = {"x-emulator-fault": spec}
    with server.openai() as client, server.anthropic() as claude:
        if dialect == "chat":
            with client.chat.completions.stream(model="plain-text", messages=USER, extra_headers=headers) as chat:
                text = chat.get_final_completion().choices[0].message.content
        elif dialect == "responses":
            with client.responses.stream(model="plain-text", input="hi", extra_headers=headers) as responses:
                text = responses.get_final_response().output_text
        else:
            with claude.messages.stream(
                model="plain-text", max_tokens=100, messages=USER, extra_headers=headers
            ) as messages:
                text = messages.get_final_message().content[0].text
    assert text == TEXT


def test_non_stream_truncation_and_status_headers(server: Server) -> None:
    with server.openai() as client:
        with pytest.raises(openai.APIConnectionError):
            client.chat.completions.create(
                model="plain-text", messages=USER, extra_headers={"x-emulator-fault": "truncate; after_bytes=50"}
            )
        raw = client.chat.completions.with_raw_response
        with pytest.raises(openai.RateLimitError) as caught:
            raw.create(
                model="plain-text",
                messages=USER,
                extra_headers={
                    "x-emulator-fault": "status=429; retry_after=7; retry_after_ms=7000; should_retry=false"
                },
            )
    headers = caught.value.response.headers
    assert (headers["retry-after"], headers["retry-after-ms"], headers["x-should-retry"]) == ("7", "7000", "false")
    assert caught.value.code == "rate_limit_exceeded" and "try again in 7s" in caught.value.message


def test_responses_in_band_errors(server: Server) -> None:
    with server.openai() as client:
        failed = list(
            client.responses.create(
                model="plain-text",
                input="hi",
                stream=True,
                extra_headers={"x-emulator-fault": "stream_error; after_events=4; status=429; retry_after=2"},
            )
        )
        flat = list(
            client.responses.create(
                model="plain-text",
                input="hi",
                stream=True,
                extra_headers={"x-emulator-fault": "stream_error; after_events=4; event=error"},
            )
        )
    assert failed[-1].type == "response.failed" and failed[-1].response.error.code == "rate_limit_exceeded"
    assert "try again in 2s" in failed[-1].response.error.message  # what Codex parses its delay from
    assert flat[-1].type == "error" and flat[-1].sequence_number == 4 and flat[-1].code == "server_error"


def test_sdk_retries_a_scripted_429_and_the_journal_counts_attempts(fresh: Server) -> None:
    started = time.monotonic()
    with fresh.openai(max_retries=2) as client:
        completion = client.chat.completions.create(model="flaky", messages=USER)
    elapsed = time.monotonic() - started
    assert completion.choices[0].message.content == "third time lucky"
    assert 1.8 <= elapsed < 10  # two waits of `retry-after: 1`
    attempts = journal(fresh, source="flaky")
    assert [(a["status"], a["attempt"]) for a in attempts] == [(429, 0), (429, 1), (200, 2)]
    assert attempts[0]["fault"] == "status=429; retry_after=1.0"


def test_journal_records_before_the_fault_runs(fresh: Server) -> None:
    with fresh.openai(timeout=0.5) as client, pytest.raises(openai.APITimeoutError):
        client.chat.completions.create(model="plain-text", messages=USER, extra_headers={"x-emulator-fault": "hang"})
    (entry,) = journal(fresh, fault="hang")
    assert entry["status"] is None and entry["source"] == "plain-text" and entry["key"] == "…test"


def test_bad_fault_header_is_a_400(server: Server) -> None:
    with server.openai() as client, pytest.raises(openai.BadRequestError, match="x-emulator-fault.kind"):
        client.chat.completions.create(model="m", messages=USER, extra_headers={"x-emulator-fault": "kind=teapot"})


# --- pacing ----------------------------------------------------------------------------------------------


def test_scenario_timing_paces_the_stream(server: Server) -> None:
    with server.openai() as client:
        started = time.monotonic()
        stream = client.chat.completions.create(model="paced", messages=USER, stream=True)
        arrivals = [time.monotonic() - started for _ in stream]
    content = arrivals[1]  # the role chunk opens the stream at once; the first token waits ttft_ms
    assert 0.25 <= content < 2.0
    assert arrivals[-1] - content >= 0.8 * (len(arrivals) - 3) / 50  # 50 tokens/s between the rest


@pytest.mark.parametrize("dialect", ["chat", "responses", "messages"])
def test_header_timing_delays_headers_and_first_token(server: Server, dialect: str) -> None:
    headers = {"x-emulator-timing": "latency_ms=200; ttft_ms=200; tokens_per_second=200"}
    with server.openai() as client, server.anthropic() as claude:
        started = time.monotonic()
        if dialect == "chat":
            stream: Any = client.chat.completions.create(
                model="plain-text", messages=USER, stream=True, extra_headers=headers
            )
        elif dialect == "responses":
            stream = client.responses.create(model="plain-text", input="hi", stream=True, extra_headers=headers)
        else:
            stream = claude.messages.create(
                model="plain-text", max_tokens=100, messages=USER, stream=True, extra_headers=headers
            )
        headers_at = time.monotonic() - started
        arrivals = [time.monotonic() - started for _ in stream]
    assert 0.18 <= headers_at < 3  # latency before the status line
    assert arrivals[-1] >= 0.18 + 0.18 + 0.8 * 14 / 200  # then the first token, then 15 tokens at 200/s


# --- chaos and isolation -----------------------------------------------------------------------------------


def _chaos_run(server: Server, count: int = 30) -> list[int]:
    statuses = []
    with server.openai() as client:
        for i in range(count):
            try:
                client.chat.completions.create(model="m", messages=[{"role": "user", "content": f"question {i}"}])
                statuses.append(200)
            except openai.APIStatusError as exc:
                statuses.append(exc.status_code)
    return statuses


def test_chaos_is_seeded_and_repeats_exactly(make_server: Any) -> None:
    chaos = Fault("status", status=503, rate=0.3)
    first = _chaos_run(make_server(Settings(seed=5, fault=chaos)))
    again = _chaos_run(make_server(Settings(seed=5, fault=chaos)))
    other = _chaos_run(make_server(Settings(seed=6, fault=chaos)))
    assert first == again != other
    assert 3 <= first.count(503) <= 18  # about 30% of 30, give or take what chance allows
    assert set(first) == {200, 503}


def test_chaos_lets_a_retry_through(make_server: Any) -> None:
    server = make_server(Settings(seed=1, fault=Fault("status", status=503, rate=0.5, retry_after_ms=20)))
    with server.openai(max_retries=6) as client:
        for i in range(10):  # each struck attempt is rolled again: the retries get through
            client.chat.completions.create(model="m", messages=[{"role": "user", "content": f"q{i}"}])
    assert any(entry["attempt"] for entry in journal(server, status="503"))


def test_test_id_scopes_counters_and_journal(fresh: Server) -> None:
    def ask(test_id: str) -> str | None:
        with fresh.openai() as client:
            completion = client.chat.completions.create(
                model="per-call", messages=USER, extra_headers={"x-emulator-test-id": test_id}
            )
        return completion.choices[0].message.content

    assert [ask("a"), ask("a"), ask("b"), ask("a")] == ["call one", "call two", "call one", "call three and after"]
    assert len(journal(fresh, test_id="a")) == 3 and len(journal(fresh, test_id="b")) == 1
    request = urllib.request.Request(f"{fresh.base_url}/_emulator/reset?test_id=a", method="POST")
    urllib.request.urlopen(request, timeout=10)
    assert journal(fresh, test_id="a") == [] and len(journal(fresh, test_id="b")) == 1
    assert [ask("a"), ask("b")] == ["call one", "call two"]


def test_faults_from_a_scenario_file(server: Server) -> None:
    got: list[Any] = []
    with server.openai() as client, pytest.raises(openai.APIConnectionError):
        got.extend(client.chat.completions.create(model="cut-short", messages=USER, stream=True))
    assert len(got) == 3
    with server.anthropic() as claude, pytest.raises(anthropic.APITimeoutError):
        claude.with_options(timeout=0.5).messages.create(model="silent", max_tokens=10, messages=USER)


RETRIED = [
    ("chat", "status=503; retry_after_ms=10"),
    ("chat", "reset"),
    ("responses", "status=429; retry_after_ms=10"),
    ("responses", "empty"),
    ("messages", "status=529; retry_after_ms=10"),
    ("messages", "garbage"),
]


@pytest.mark.parametrize(("dialect", "spec"), RETRIED)
def test_sdk_retry_attempts_show_in_the_journal(fresh: Server, dialect: str, spec: str) -> None:
    """Each SDK makes three attempts (max_retries=2) at a retryable failure: the journal counts them."""
    headers = {"x-emulator-fault": spec, "x-emulator-test-id": f"retry-{dialect}-{spec}"}
    with pytest.raises((openai.APIError, anthropic.APIError)):
        if dialect == "messages":
            with fresh.anthropic(max_retries=2) as claude:
                claude.messages.create(model="m", max_tokens=10, messages=USER, extra_headers=headers)
        else:
            with fresh.openai(max_retries=2) as client:
                if dialect == "chat":
                    client.chat.completions.create(model="m", messages=USER, extra_headers=headers)
                else:
                    client.responses.create(model="m", input="hi", extra_headers=headers)
    attempts = journal(fresh, test_id=headers["x-emulator-test-id"])
    assert [a["attempt"] for a in attempts] == [0, 1, 2]
    assert {a["kind"] for a in attempts} == {spec.split(";")[0].split("=")[0]}


REQUEST_ID = {"chat": "x-request-id", "responses": "x-request-id", "messages": "request-id"}


@pytest.mark.parametrize("dialect", ["chat", "responses", "messages"])
def test_every_attempt_has_its_own_request_id_the_same_from_run_to_run(server: Server, dialect: str) -> None:
    """An SDK retries a 503 twice: three attempts, three request ids (users search their logs by them), and
    the same three again in the next run, for the ids derive from the seed, the request and the attempt."""

    def run() -> list[str]:
        seen: list[str] = []
        hook = {"response": [lambda response: seen.append(response.headers[REQUEST_ID[dialect]])]}
        headers = {"x-emulator-fault": "status=503; retry_after_ms=1", "x-emulator-test-id": f"ids-{dialect}"}
        with pytest.raises((openai.InternalServerError, anthropic.InternalServerError)):
            if dialect == "messages":
                options = {"http_client": anthropic.DefaultHttpxClient(event_hooks=hook)}
                with server.anthropic(max_retries=2, **options) as claude:
                    claude.messages.create(model="m", max_tokens=10, messages=USER, extra_headers=headers)
            else:
                with server.openai(max_retries=2, http_client=openai.DefaultHttpxClient(event_hooks=hook)) as client:
                    if dialect == "chat":
                        client.chat.completions.create(model="m", messages=USER, extra_headers=headers)
                    else:
                        client.responses.create(model="m", input="hi", extra_headers=headers)
        return seen

    first = run()
    assert len(first) == 3 and len(set(first)) == 3
    assert run() == first  # x-stainless-retry-count names the attempt, whatever the server saw before


def test_a_client_that_does_not_count_its_retries_gets_a_new_request_id_per_attempt(fresh: Server) -> None:
    """Without `x-stainless-retry-count`, the attempt is how often the server has seen the same test id, key
    and conversation; after a reset the count starts again, and so do the ids."""
    body = {"model": "m", "messages": USER}
    headers = {"authorization": "Bearer sk-test", "x-emulator-test-id": "uncounted"}

    def ids() -> list[str]:
        with httpx2.Client(base_url=fresh.base_url, headers=headers) as client:
            return [client.post("/v1/chat/completions", json=body).headers["x-request-id"] for _ in range(3)]

    first = ids()
    assert len(set(first)) == 3
    urllib.request.urlopen(urllib.request.Request(f"{fresh.base_url}/_emulator/reset", method="POST"), timeout=10)
    assert ids() == first
    counted = {**headers, "x-stainless-retry-count": "0"}
    with httpx2.Client(base_url=fresh.base_url, headers=counted) as client:  # the client's count wins
        assert client.post("/v1/chat/completions", json=body).headers["x-request-id"] == first[0]


def test_counts_forget_the_least_recently_used_past_capacity() -> None:
    attempts: Recent[tuple[str], int] = Recent(capacity=2)
    assert [attempts.count(("a",)), attempts.count(("a",)), attempts.count(("b",))] == [0, 1, 0]
    attempts.count(("a",))  # "a" is now the most recently used
    attempts.count(("c",))  # a third request: the least recently used, "b", is forgotten
    assert attempts.count(("a",)) == 3 and attempts.count(("b",)) == 0
    attempts.forget(lambda key: key == ("a",))
    assert attempts.count(("a",)) == 0


def test_a_full_recent_forgets_in_batches_and_keeps_its_pace() -> None:
    """A server past `max_clients` conversations (100,000 by default: a long benchmark gets there) forgot one key per
    new one, and found it by walking every slot the deleted keys had left: 23 times the cost of a count while it
    filled, at 20,000 keys. Measured against filling it, in the same test: the quickest of three tries of each, so
    that a preemption or a collection on a loaded machine does not count as the structure's cost."""
    capacity = 20_000
    keys = [("k", f"{i:064x}") for i in range(2 * capacity)]
    fills, fulls = [], []
    for _ in range(3):
        counts: Recent[tuple[str, str], int] = Recent(capacity)
        started = time.perf_counter()
        for key in keys[:capacity]:
            counts.count(key)
        fills.append(time.perf_counter() - started)
        started = time.perf_counter()
        for key in keys[capacity:]:
            counts.count(key)
        fulls.append(time.perf_counter() - started)
    filling, full = min(fills), min(fulls)
    assert full < 4 * filling, (fulls, fills)
    assert capacity - capacity // 64 <= len(counts) <= capacity  # never past capacity, a batch at most below
    assert keys[-1] in counts and keys[capacity - 1] not in counts  # the newest kept, the oldest gone


def test_an_unpaced_unbroken_stream_is_written_in_bulk_and_a_paced_or_sliced_one_event_by_event() -> None:
    events = [b'data: {"n": %d, "pad": "%s"}\n\n' % (i, b"x" * 200) for i in range(300)]
    written = list(faults.plan(events, None, None))
    assert b"".join(written) == b"".join(events)  # type: ignore[arg-type]
    assert len(written) == -(-sum(map(len, events)) // faults.BULK) and all(w.endswith(b"\n\n") for w in written)
    assert list(faults.plan(events[:1], None, None)) == events[:1]
    paced = list(faults.plan(events, None, Timing(tokens_per_second=1000)))
    assert [s for s in paced if isinstance(s, bytes)] == events
    sliced = list(faults.plan(events[:3], Fault("slice", size=7), None))
    assert all(len(s) <= 7 for s in sliced if isinstance(s, bytes))


@settings(max_examples=200, deadline=None)
@given(
    steps=st.lists(st.one_of(st.binary(max_size=40), st.sampled_from([Pause(0.5), Hangup()])), max_size=8),
    size=st.integers(1, 12),
    ms=st.sampled_from([0, 5]),
    kind=st.sampled_from(["slice", "drip"]),
)
def test_slice_and_drip_cut_as_they_are_played(
    steps: list[Any], size: int, ms: int, kind: Literal["slice", "drip"]
) -> None:
    """A sliced or dripped script is cut as it is played, never up front (see `wire.Pieces`): what it plays,
    the pieces cut in full, and played twice it plays the same."""
    fault = Fault(kind, size=size, ms=ms)
    script = faults.plan(steps, fault, None)
    gap = Pause(ms / 1000) if kind == "drip" and ms else None
    cut: list[Any] = []
    for step in steps:
        if not isinstance(step, bytes):
            cut.append(step)
            continue
        for at in range(0, len(step), size):
            cut += [step[at : at + size], *([gap] if gap else [])]
    assert list(script) == list(script) == cut
    assert isinstance(script, wire.Pieces) and len(script.steps) == len(steps)  # holds the uncut steps only


class _Left:
    """A client's transport that closes after `after` writes, and the loop's sends to it (which, once it has
    closed, return without yielding, as uvicorn's do)."""

    def __init__(self, after: int) -> None:
        self.after, self.sent = after, 0

    def is_closing(self) -> bool:
        return self.sent >= self.after

    async def send(self, message: dict[str, Any]) -> None:
        if message["type"] == "http.response.body" and not self.is_closing():
            self.sent += 1


def _played(steps: Any, left: _Left) -> int:
    """How many of `steps`' writes `player.play` made (sent or not) to a client that leaves after `left.after`."""
    import asyncio

    from emulator.core.wire import Script
    from emulator.http.player import Sent, play
    from emulator.server import TRANSPORT

    async def never() -> dict[str, Any]:
        await asyncio.sleep(3600)
        return {"type": "http.disconnect"}

    async def run() -> int:
        sent = Sent(time.perf_counter() - 60)  # arrived a minute ago: every pause is overdue, as on a busy loop
        scope = {"extensions": {TRANSPORT: left}}
        await play(Script(steps, 200, []), scope, never, left.send, sent)
        return sent.writes

    return asyncio.run(run())


def test_a_stream_cut_in_pieces_stops_at_the_piece_its_client_left_at() -> None:
    """Sends to a client that left return at once and give the loop no turn to say it went: a `slice` of a
    stream that fell behind played its every remaining piece to nobody (200 such clients kept a server busy
    for seconds after they left). The socket says so at the next piece."""
    from emulator.core.wire import Pieces

    events = [b"data: %d\n\n" % i * 20 for i in range(200)]
    sliced = Pieces(list(events), 1, None)
    assert _played(sliced, _Left(after=37)) == 37  # and not one piece more
    paced = Pieces([s for e in events for s in (e, Pause(0.02))], 3, None)
    assert _played(paced, _Left(after=500)) == 500


def test_an_overdue_pause_stops_a_stream_whose_client_left() -> None:
    """A paced stream behind its schedule does not wait at its pauses, so the loop never said its client went:
    the pause asks the socket."""
    steps = [s for i in range(300) for s in (b"data: %d\n\n" % i, Pause(0.02))]
    assert _played(steps, _Left(after=120)) == 120  # the pause after its last write noticed


@pytest.mark.parametrize(
    ("spec", "said"),
    [
        ("stauts=503", "x-emulator-fault.stauts: unknown key; did you mean 'status'?"),
        ("retry_aftr=2", "x-emulator-fault.retry_aftr: unknown key; did you mean 'retry_after'?"),
        ("zzz=1", "x-emulator-fault.zzz: unknown key; a spec starts with a kind: status"),
    ],
)
def test_a_misspelt_key_is_named(spec: str, said: str) -> None:
    with pytest.raises(faults.FaultError) as refused:
        faults.fault(faults.split_spec(spec), "x-emulator-fault")
    assert str(refused.value).startswith(said)


def test_a_status_fault_is_described_with_its_kind_once() -> None:
    assert faults.describe(Fault("status", status=503, rate=0.2)) == "status=503; rate=0.2"
    assert faults.describe(Fault("truncate", after_events=3)) == "truncate; after_events=3"
    for spec in ("status=503; rate=0.2", "truncate; after_events=3", "reset"):
        assert faults.describe(faults.fault(faults.split_spec(spec), "x")) == spec  # read back as written
