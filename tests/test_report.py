"""The client report: findings from the journal about how a client behaved under faults."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

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
    assert report == {"verdict": "pass", "faulted_requests": 2, "findings": []}


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
