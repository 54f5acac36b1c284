"""The client report: findings from the journal about how a client behaved under faults."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

import anthropic
import httpx2
import openai
import pytest

from emulator.cli import main
from emulator.journal import Entry
from emulator.report import grade
from tests.conftest import Server

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
        # x-stainless-retry-count: above 0 a retry of the latest call, 0 a new call
        ([entry(1, 0.0, "status", 503, retryable=True, attempt=0), entry(2, 0.5, None, attempt=1)], []),
        (
            [entry(1, 0.0, "status", 503, retryable=True, attempt=0), entry(2, 0.5, None, attempt=0)],
            ["gave_up_on_retryable"],
        ),
        # retried twice, then stopped: it ran out of retries, it did not give up without retrying
        ([entry(i, i, "status", 503, retryable=True, attempt=i) for i in range(3)], []),
        ([entry(1, 0.0, "reset", None), entry(2, 0.5, "reset", None)], []),
        # a stream cut, then the same conversation as a new call (Claude Code falls back to no stream): it came back
        ([entry(1, 0.0, "truncate", stream=True, attempt=0), entry(2, 0.4, None, attempt=0)], []),
        # without a word from the client, a request after a good answer is a new call
        ([entry(1, 0.0, None), entry(2, 0.5, "status", 503, retryable=True)], ["gave_up_on_retryable"]),
    ],
)
def test_rules(entries: list[Entry], rules: list[str]) -> None:
    report = grade(entries)
    assert [f["rule"] for f in report["findings"]] == rules
    assert report["verdict"] == ("fail" if rules else "pass")


def fetch_report(server: Server, test_id: str) -> dict[str, Any]:
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
