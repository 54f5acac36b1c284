"""The command line: `emulator check` and `emulator serve` as a user runs them."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from emulator import limits, scenarios
from emulator.cli import main, rate_limits
from tests.conftest import BUNDLED

REPO = BUNDLED.parent


def test_check_accepts_the_bundled_scenarios(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(BUNDLED)]) == 0
    assert "weather-agent" in capsys.readouterr().out


def test_check_rejects_a_bad_file_readably(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("scenarios:\n  - name: x\n    reply: {txt: hi}\n")
    assert main(["check", str(bad)]) == 1
    assert f"{bad}: scenarios[0].reply.txt: unknown key" in capsys.readouterr().err


def test_check_reports_every_mistake_of_a_scenario(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "scenarios:\n"
        "  - name: x\n"
        "    match: {last_user: {regex: '(unclosed'}}\n"
        "    reply: {finish_reason: done, fault: {kind: explode}}\n"
    )
    assert main(["check", str(bad)]) == 1
    err = capsys.readouterr().err.splitlines()
    assert [line.split(": ")[1] for line in err] == [
        "scenarios[0].reply.finish_reason",
        "scenarios[0].reply.fault.kind",
        "scenarios[0].match.last_user.regex",
    ]


def test_check_reads_cassettes_and_scenarios_together(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(BUNDLED), str(REPO / "recordings")]) == 0
    out = capsys.readouterr().out
    cassettes = sorted((REPO / "recordings").glob("*.yaml"))
    assert f"in {len(cassettes)} cassettes" in out and "weather-agent" in out
    assert all(f"{c}  (cassette)" in out for c in cassettes)
    (tmp_path / "broken.yaml").write_text("interactions: [{request: {}}]\n")
    (tmp_path / "scenario.yaml").write_text("scenarios: [{name: a}]\n")
    assert main(["check", str(tmp_path / "absent.yaml")]) == 1
    assert f"{tmp_path / 'absent.yaml'}: no such file or directory" in capsys.readouterr().err
    assert main(["check", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"{tmp_path / 'broken.yaml'}: interactions[0].request.method: missing" in err
    assert f"{tmp_path / 'scenario.yaml'}: scenarios[0]: expected exactly one of reply" in err


def test_serve_refuses_a_malformed_cassette_readably(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.yaml").write_text("title: not a cassette\n")
    assert main(["serve", "--recordings", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert f"the recordings cannot be read: {tmp_path / 'notes.yaml'}: not a cassette" in err
    assert "Traceback" not in err


def test_serve_starts_with_a_banner_and_answers(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    command = [sys.executable, "-m", "emulator", "serve", "--port", str(port), "--scenarios", str(BUNDLED)]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=tmp_path)
    try:
        banner = [process.stdout.readline() for _ in range(7)]
        assert banner[0].startswith(f"emulator on http://127.0.0.1:{port}")
        assert any("/v1/chat/completions" in line for line in banner)
        deadline = time.monotonic() + 10
        while True:
            try:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
                conn.request("GET", "/health")
                body = json.loads(conn.getresponse().read())
                conn.close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.05)
        assert body == {"status": "ok", "scenarios": len(scenarios.load([BUNDLED]).scenarios)}
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=10)


def test_serve_refuses_invalid_scenarios(tmp_path: Path) -> None:
    bad = tmp_path / "bad.yaml"
    bad.write_text("scenarios: [{name: x}]\n")
    result = subprocess.run(
        [sys.executable, "-m", "emulator", "serve", "--scenarios", str(bad)],
        capture_output=True,
        text=True,
        timeout=30,
        env=os.environ | {"PYTHONWARNINGS": "ignore"},
    )
    assert result.returncode == 1
    assert "scenarios[0]: expected exactly one of reply, steps, replies" in result.stderr


def test_serve_refuses_a_missing_cassette_and_a_negative_replay_speed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--recordings", "/nonexistent/cassette.yaml"]) == 1
    assert "no cassette or directory at /nonexistent/cassette.yaml" in capsys.readouterr().err
    for speed in ("-1", "nan", "inf", "1e9"):
        with pytest.raises(SystemExit) as exited:
            main(["serve", "--replay-speed", speed])
        assert exited.value.code == 2
        assert f"argument --replay-speed: expected a factor from 0 to 100, got {speed}" in capsys.readouterr().err
    for flag in ("--journal-size", "--journal-bytes", "--max-clients"):
        with pytest.raises(SystemExit):
            main(["serve", flag, "0"])
        assert f"argument {flag}: expected a number of at least 1, got 0" in capsys.readouterr().err


def test_limits_default_to_reporting_off_sends_none_and_a_spec_enforces(capsys: pytest.CaptureFixture[str]) -> None:
    assert rate_limits(None) == limits.DEFAULT and not limits.DEFAULT.enforce
    assert rate_limits("off") == limits.OFF and not limits.OFF
    assert rate_limits("requests_per_minute=60") == limits.Limits(requests_per_minute=60, enforce=True)
    assert main(["serve", "--limits", "requests_per_minute=0"]) == 2
    assert "--limits.requests_per_minute: expected a positive integer" in capsys.readouterr().err


def test_record_needs_an_upstream(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["record"])
    assert "--upstream" in capsys.readouterr().err
