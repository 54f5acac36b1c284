"""The client report: findings from the journal about how a client behaved under faults."""

from __future__ import annotations

import contextlib
import json
import time
import urllib.request
from collections.abc import Callable
from typing import Any, TypeVar

import anthropic
import httpx2
import openai
import pytest

from emulator.cli import main
from emulator.journal import Entry
from emulator.journal.findings import grade
from tests.conftest import Server, settled

USER: Any = [{"role": "user", "content": "hi"}]


def entry(id: int, time: float, kind: str | None, status: int | None = 200, **fields: Any) -> Entry:
    values: dict[str, Any] = {
        "method": "POST",
        "path": "/v1/chat/completions",
        "model": "m",
        "key": "…test",
        "stream": False,
        "source": "default",
        "fault": kind,
        "attempt": None,
        "test_id": "",
        "request": "r1",
    }
    return Entry(id=id, time=time, kind=kind, status=status, **(values | fields))


@pytest.mark.parametrize(
    ("entries", "rules"),
    [
        ([entry(1, 0.0, "status", 429, retry_after=1.0, retryable=True), entry(2, 1.2, None)], []),
        ([entry(1, 0.0, "status", 429, retry_after=2.0, retryable=True), entry(2, 0.5, None)], ["retried_too_soon"]),
        ([entry(1, 0.0, "status", 400, retryable=False), entry(2, 0.1, None)], ["retried_non_retryable"]),
        ([entry(1, 0.0, "status", 429, retryable=False)], []),  # x-should-retry: false, and it did not
        ([entry(1, 0.0, "status", 503, retryable=True)], ["gave_up_on_retryable"]),
        ([entry(1, 0.0, "truncate", stream=True)], ["no_comeback_after_midstream"]),
        ([entry(1, 0.0, "truncate", stream=True), entry(2, 0.3, None, stream=True)], []),
        ([entry(1, 0.0, "reset", None)], ["gave_up_on_retryable"]),
        (
            [entry(1, 0.0, "stall", stream=True, ended="server")],
            ["held_stalled_connection", "no_comeback_after_midstream"],
        ),
        ([entry(1, 0.0, "stall", stream=True, ended="client"), entry(2, 1.0, None, stream=True)], []),
        (
            [entry(1, 0.0, "status", 429, retryable=True), entry(2, 0.1, None, request="other")],
            ["gave_up_on_retryable"],
        ),
        # What the client says of its attempts: an equal idempotency-key is a retry, another key another call
        (
            [
                entry(1, 0.0, "status", 503, retryable=True, idempotency="a"),
                entry(2, 0.5, None, idempotency="a"),
            ],
            [],
        ),
        (
            [
                entry(1, 0.0, "status", 503, retryable=True, idempotency="a"),
                entry(2, 0.5, None, idempotency="b"),
            ],
            ["gave_up_on_retryable"],
        ),
        # x-stainless-retry-count counts the SDK's attempts only: after a retryable failure, the same conversation
        # again is a retry whatever it says (an application's own loop around an SDK with max_retries=0 sends 0)
        ([entry(1, 0.0, "status", 503, retryable=True, attempt=0), entry(2, 0.5, None, attempt=1)], []),
        ([entry(1, 0.0, "status", 503, retryable=True, attempt=0), entry(2, 0.5, None, attempt=0)], []),
        ([entry(1, 0.0, "status", 529, retryable=True, attempt=0), entry(2, 0.5, "reset", None, attempt=0)], []),
        ([entry(i, i, "status", 500, retryable=True, attempt=0) for i in range(4)], []),
        (  # the application's loop is held to the same rules: retry-after said 2 s
            [entry(1, 0.0, "status", 429, retry_after=2.0, retryable=True, attempt=0), entry(2, 0.3, None, attempt=0)],
            ["retried_too_soon"],
        ),
        (  # the SDK's three attempts, then the application's loop starts the SDK's count again: one call
            [entry(i, i, "status", 503, retryable=True, attempt=i % 3) for i in range(5)] + [entry(5, 5.0, None)],
            [],
        ),
        # after a failure that is not to be retried, the same conversation again is a retry of it all the same
        (
            [entry(1, 0.0, "status", 400, retryable=False, attempt=0), entry(2, 0.5, None, attempt=0)],
            ["retried_non_retryable"],
        ),
        (  # x-should-retry: false on a 503
            [entry(1, 0.0, "status", 503, retryable=False, attempt=0), entry(2, 0.5, None, attempt=0)],
            ["retried_non_retryable"],
        ),
        # after an answer, retry-count above 0 is a retry (the client timed out on a slow answer), 0 a new call
        ([entry(1, 0.0, "status", 503, retryable=True), entry(2, 0.5, None), entry(3, 1.5, None, attempt=1)], []),
        (
            [entry(1, 0.0, None, attempt=0), entry(2, 0.5, "status", 503, retryable=True, attempt=0)],
            ["gave_up_on_retryable"],
        ),
        # a stream cut, then the same conversation as a new call (Claude Code falls back to no stream): it came back
        ([entry(1, 0.0, "truncate", stream=True, attempt=0), entry(2, 0.4, None, attempt=0)], []),
        # came back after broken streams five times with backoff, every stream broken, then stopped (aider,
        # opencode): it ran out of retries, as a status retried and then abandoned does
        ([entry(i, 2.0**i, "truncate", stream=True, attempt=0) for i in range(6)], []),
        ([entry(i, i, k, stream=True) for i, k in enumerate(["stream_error", "malformed", "reset"])], []),
        ([entry(1, 0.0, "status", 503, retryable=True), entry(2, 0.5, "truncate", stream=True)], []),
        # a whole answer cut into odd writes is an answer: the same conversation after it is a new call
        ([entry(1, 0.0, "slice"), entry(2, 0.5, "status", 503, retryable=True)], ["gave_up_on_retryable"]),
        (
            [entry(1, 0.0, "drip", attempt=0), entry(2, 0.5, "truncate", stream=True, attempt=0)],
            ["no_comeback_after_midstream"],
        ),
        # without a word from the client, a request after a good answer is a new call
        ([entry(1, 0.0, None), entry(2, 0.5, "status", 503, retryable=True)], ["gave_up_on_retryable"]),
    ],
)
def test_rules(entries: list[Entry], rules: list[str]) -> None:
    report = grade(entries)
    assert [f["rule"] for f in report["findings"]] == rules
    assert report["verdict"] == ("fail" if rules else "pass")


def fetch_report(server: Server, test_id: str) -> dict[str, Any]:
    """The report on the test's requests, once each is complete (how a stream ended is known only then)."""
    settled(server.base_url, test_id)
    with urllib.request.urlopen(f"{server.base_url}/_emulator/report?test_id={test_id}", timeout=10) as response:
        return dict(json.load(response))


def test_a_well_behaved_sdk_passes(server: Server) -> None:
    with server.openai(max_retries=2) as client:
        client.chat.completions.create(model="flaky", messages=USER, extra_headers={"x-emulator-test-id": "good"})
    report = fetch_report(server, "good")
    assert report["verdict"] == "pass" and report["faulted_requests"] == 2 and report["findings"] == []
    assert [(c["attempts"], c["outcome"]) for c in report["calls"]] == [(3, "answered")]


def test_an_sdk_that_runs_out_of_retries_did_not_give_up_without_retrying(server: Server) -> None:
    """max_retries=2 against a 503 on every attempt: three attempts, then the SDK raises. That is the rule kept,
    not broken; the report says how many attempts the call made."""
    headers = {"x-emulator-test-id": "out-of-retries", "x-emulator-fault": "status=503; retry_after_ms=1"}
    with server.openai(max_retries=2) as client, pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="m", messages=USER, extra_headers=headers)
    report = fetch_report(server, "out-of-retries")
    assert report["verdict"] == "pass" and report["faulted_requests"] == 3
    assert [(c["attempts"], c["outcome"]) for c in report["calls"]] == [(3, "stopped")]


def test_the_anthropic_sdks_own_retries_are_judged_as_its_rules_say(server: Server) -> None:
    """Anthropic's SDK, max_retries=2: overloaded (529) twice, then the answer; and a 400 it rightly leaves alone."""
    test_id = "anthropic-sdk"
    direct(server, test_id, "status=529; retry_after_ms=5", times=2)
    with server.anthropic(max_retries=2) as claude:
        claude.messages.create(
            model="claude-sonnet-4-6", max_tokens=30, messages=USER, extra_headers={"x-emulator-test-id": test_id}
        )
        with pytest.raises(anthropic.BadRequestError):
            claude.messages.create(
                model="claude-sonnet-4-6",
                max_tokens=30,
                messages=[{"role": "user", "content": "another question"}],
                extra_headers={"x-emulator-test-id": test_id, "x-emulator-fault": "status=400"},
            )
    assert attempts_said(server, test_id) == [0, 1, 2, 0]
    report = fetch_report(server, test_id)
    assert report["findings"] == []
    assert [(c["attempts"], c["outcome"]) for c in report["calls"]] == [(3, "answered"), (1, "stopped")]


def test_a_retry_with_its_metadata_reordered_is_the_same_request(server: Server) -> None:
    """Codex retries a broken stream with the same JSON, the keys of `client_metadata` in another order (and
    no x-stainless-retry-count): the same conversation, so it came back."""
    headers = {"authorization": "Bearer sk-test", "x-emulator-test-id": "codex-retry"}
    body: dict[str, Any] = {"model": "gpt-5", "input": "hi", "stream": True, "store": False}
    with httpx2.Client(base_url=server.base_url, headers=headers, timeout=10) as client:
        fault = {"x-emulator-fault": "truncate; after_events=3"}
        first = body | {"client_metadata": {"a": "1", "b": "2"}, "prompt_cache_key": "x"}
        with pytest.raises(httpx2.RemoteProtocolError):
            client.post("/v1/responses", json=first, headers=fault).read()
        again = client.post("/v1/responses", json=body | {"client_metadata": {"b": "2", "a": "1"}})
        assert again.status_code == 200
    report = fetch_report(server, "codex-retry")
    assert report["findings"] == [] and report["calls"][0]["attempts"] == 2


def test_a_cut_stream_followed_by_the_same_conversation_unstreamed_came_back(server: Server) -> None:
    """Claude Code, after a cut stream, asks again for the same conversation without `stream` (a new call of the
    SDK, x-stainless-retry-count 0, with x-stainless-timeout): it came back."""
    headers = {"x-emulator-test-id": "claude-fallback"}
    with server.anthropic(max_retries=0) as claude:
        with (
            pytest.raises((anthropic.APIError, httpx2.HTTPError)),
            claude.messages.stream(
                model="claude-sonnet-4-6",
                max_tokens=50,
                messages=USER,
                extra_headers=headers | {"x-emulator-fault": "truncate; after_events=3"},
            ) as stream,
        ):
            stream.until_done()
        claude.messages.create(
            model="claude-sonnet-4-6", max_tokens=50, messages=USER, extra_headers=headers, timeout=30
        )
    report = fetch_report(server, "claude-fallback")
    assert report["verdict"] == "pass" and report["faulted_requests"] == 1


def direct(server: Server, test_id: str, spec: str, times: int | None = None) -> None:
    """A test's fault for `test_id`'s requests (the first `times` of them), as the pytest plugin sets it."""
    body = json.dumps({"spec": spec, "times": times}).encode()
    headers = {"x-emulator-test-id": test_id, "content-type": "application/json"}
    asked = urllib.request.Request(f"{server.base_url}/_emulator/faults", body, headers, method="POST")
    urllib.request.urlopen(asked, timeout=10).close()


def attempts_said(server: Server, test_id: str) -> list[int | None]:
    """What `x-stainless-retry-count` each of the test's requests carried, oldest first."""
    return [e["attempt"] for e in sorted(settled(server.base_url, test_id), key=lambda e: e["id"])]


def wait_as_told(exc: openai.APIStatusError | anthropic.APIStatusError, attempt: int) -> None:
    """An application's backoff: `retry-after-ms`, else `retry-after`, else 20 ms doubling."""
    headers = exc.response.headers
    told = headers.get("retry-after-ms")
    seconds = float(told) / 1000 if told else float(headers.get("retry-after") or 0.02 * 2**attempt)
    time.sleep(seconds)


T = TypeVar("T")


def own_retries(send: Callable[[], T], retried: tuple[type[Exception], ...], tries: int = 6) -> T:
    """An application's retry loop around an SDK that does not retry: each attempt is a new SDK call,
    `x-stainless-retry-count: 0`; a retryable status waits what it was told."""
    for attempt in range(tries):
        try:
            return send()
        except retried as exc:
            if attempt == tries - 1:
                raise
            if isinstance(exc, openai.APIStatusError | anthropic.APIStatusError):
                wait_as_told(exc, attempt)
            else:
                time.sleep(0.02 * 2**attempt)
    raise AssertionError("unreachable")


def test_an_applications_retry_loop_around_openai_passes(server: Server) -> None:
    """OpenAI(max_retries=0) in a loop of the application's own, as LangChain.js builds its client: two 503s,
    then an answer. Every attempt says `x-stainless-retry-count: 0`; they are still one call and its retries."""
    test_id = "app-loop-openai"
    direct(server, test_id, "status=503; retry_after_ms=40", times=2)
    with server.openai(max_retries=0) as client:
        reply = own_retries(
            lambda: client.chat.completions.create(
                model="m",
                messages=[{"role": "user", "content": "Summarise the release notes"}],
                extra_headers={"x-emulator-test-id": test_id},
            ),
            (openai.InternalServerError,),
        )
    assert reply.choices[0].message.content
    assert attempts_said(server, test_id) == [0, 0, 0]
    report = fetch_report(server, test_id)
    assert report["findings"] == [] and report["faulted_requests"] == 2
    assert [(c["attempts"], c["outcome"]) for c in report["calls"]] == [(3, "answered")]


def test_an_applications_retry_loop_around_anthropic_passes(server: Server) -> None:
    """Anthropic(max_retries=0) in the application's loop, overloaded twice (529), streamed."""
    test_id = "app-loop-anthropic"
    direct(server, test_id, "status=529; retry_after_ms=30", times=2)

    def send() -> str:
        with claude.messages.stream(
            model="claude-sonnet-4-6",
            max_tokens=60,
            messages=[{"role": "user", "content": "Plan a picnic"}],
            extra_headers={"x-emulator-test-id": test_id},
        ) as stream:
            return stream.get_final_text()

    with server.anthropic(max_retries=0) as claude:
        assert own_retries(send, (anthropic.OverloadedError,))
    assert attempts_said(server, test_id) == [0, 0, 0]
    report = fetch_report(server, test_id)
    assert report["verdict"] == "pass" and [c["attempts"] for c in report["calls"]] == [3]


def test_an_applications_retry_loop_is_held_to_retry_after(server: Server) -> None:
    """The same rules bind the application's layer: retrying at once a 429 that said wait 2 s is too soon."""
    test_id = "app-loop-impatient"
    direct(server, test_id, "status=429; retry_after=2", times=1)
    with server.openai(max_retries=0) as client:
        for _ in range(2):  # no wait between the two
            with contextlib.suppress(openai.RateLimitError):
                client.chat.completions.create(model="m", messages=USER, extra_headers={"x-emulator-test-id": test_id})
    assert [f["rule"] for f in fetch_report(server, test_id)["findings"]] == ["retried_too_soon"]


def test_an_applications_loop_that_retries_everything_is_flagged(server: Server) -> None:
    """A loop that retries any exception (a common mistake) retries a 400 it must not: flagged, though the SDK
    said `x-stainless-retry-count: 0` each time."""
    test_id = "app-loop-blind"
    direct(server, test_id, "status=400; message=bad tool schema", times=1)
    with server.anthropic(max_retries=0) as claude:
        own_retries(
            lambda: claude.messages.create(
                model="claude-sonnet-4-6", max_tokens=30, messages=USER, extra_headers={"x-emulator-test-id": test_id}
            ),
            (anthropic.APIError,),
        )
    assert attempts_said(server, test_id) == [0, 0]
    assert [f["rule"] for f in fetch_report(server, test_id)["findings"]] == ["retried_non_retryable"]


def test_an_applications_loop_around_the_sdks_own_retries_is_one_call(server: Server) -> None:
    """max_retries=2 inside an application's loop: the SDK's three attempts (0, 1, 2) fail, the application
    calls again and the SDK's count starts again at 0; four 503s, then the answer, make one call."""
    test_id = "app-loop-over-sdk"
    direct(server, test_id, "status=503; retry_after_ms=1", times=4)
    with server.openai(max_retries=2) as client:
        own_retries(
            lambda: client.chat.completions.create(
                model="m", messages=USER, extra_headers={"x-emulator-test-id": test_id}
            ),
            (openai.InternalServerError,),
        )
    assert attempts_said(server, test_id) == [0, 1, 2, 0, 1]
    report = fetch_report(server, test_id)
    assert report["findings"] == [] and [(c["attempts"], c["outcome"]) for c in report["calls"]] == [(5, "answered")]


def test_a_client_that_came_back_after_broken_streams_and_then_stopped_ran_out_of_retries(server: Server) -> None:
    """Every stream breaks mid-way; the application comes back five times with backoff, then stops (aider and
    opencode do): no finding. The client that never came back at all is still flagged (below)."""
    test_id = "app-loop-midstream"
    direct(server, test_id, "truncate; after_events=3")

    def send() -> str:
        chunks = client.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "Explain backoff"}],
            stream=True,
            extra_headers={"x-emulator-test-id": test_id},
        )
        return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)

    with server.openai(max_retries=0) as client, pytest.raises(openai.APIConnectionError):
        own_retries(send, (openai.APIConnectionError,))
    report = fetch_report(server, test_id)
    assert report["verdict"] == "pass" and report["faulted_requests"] == 6
    assert [(c["attempts"], c["outcome"]) for c in report["calls"]] == [(6, "stopped")]


def test_findings_from_real_clients(server: Server) -> None:
    headers = {"x-emulator-test-id": "bad"}
    with server.openai(max_retries=0) as client:
        with pytest.raises(openai.InternalServerError):  # no retries: gives up on a 503
            client.chat.completions.create(
                model="m", messages=USER, extra_headers=headers | {"x-emulator-fault": "status=503"}
            )
        with pytest.raises(openai.APIConnectionError):  # a broken stream, never resumed
            list(
                client.chat.completions.create(
                    model="m",
                    # another conversation: the same one again would be a retry of the 503, as a client's is
                    messages=[{"role": "user", "content": "a stream"}],
                    stream=True,
                    extra_headers=headers | {"x-emulator-fault": "truncate; after_events=2"},
                )
            )
    with server.openai(max_retries=0, timeout=5.0) as patient:  # the server gives up on its stall first
        _drain_stall(patient, headers)
    rules = sorted(f["rule"] for f in fetch_report(server, "bad")["findings"])
    assert rules == sorted(
        [
            "gave_up_on_retryable",
            "no_comeback_after_midstream",
            "held_stalled_connection",
            "no_comeback_after_midstream",
        ]
    )


def _drain_stall(client: openai.OpenAI, headers: dict[str, str]) -> None:
    with pytest.raises(openai.APIConnectionError):  # the server closes the stalled stream
        list(
            client.chat.completions.create(
                model="m",
                messages=[{"role": "user", "content": "x"}],
                stream=True,
                extra_headers=headers | {"x-emulator-fault": "stall; after_events=1; ms=300"},
            )
        )


def test_cli_prints_the_report(server: Server, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["report", "--url", server.base_url, "--test-id", "bad-cli"]) == 0
    assert capsys.readouterr().out.startswith("pass: 0 findings")
    with server.openai(max_retries=0) as client, pytest.raises(openai.InternalServerError):
        client.chat.completions.create(
            model="m", messages=USER, extra_headers={"x-emulator-test-id": "bad-cli", "x-emulator-fault": "status=500"}
        )
    assert main(["report", "--url", server.base_url, "--test-id", "bad-cli"]) == 1
    assert "gave_up_on_retryable: 500 was not retried" in capsys.readouterr().out
