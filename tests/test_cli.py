"""The command line: `emulator check` and `emulator serve` as a user runs them."""

from __future__ import annotations

import argparse
import os
import signal
import socket
import subprocess
import sys
from importlib import metadata
from pathlib import Path

import pytest

import emulator
from emulator import cli, scenarios
from emulator.cli import main, serve
from emulator.cli.serve import rate_limits
from emulator.rules import limits
from tests.conftest import BUNDLED, call, launch, read_until

REPO = BUNDLED.parent
EMULATOR = [sys.executable, "-m", "emulator"]


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
    assert main(["serve", "--recordings", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"the recordings cannot be read: {tmp_path / 'notes.yaml'}: not a cassette" in err
    assert "Traceback" not in err


def test_serve_from_anywhere_serves_the_bundled_scenarios_on_the_port_it_bound(tmp_path: Path) -> None:
    """From an empty folder, with `--port 0`: the banner comes once the port is bound, shows it, and names the
    bundled folder it serves."""
    process, port = launch([*EMULATOR, "serve", "--port", "0"], cwd=tmp_path)
    try:
        banner = read_until(process, "scenarios:")
        count = len(scenarios.load([BUNDLED]).scenarios)
        assert f"  POST http://127.0.0.1:{port}/v1/chat/completions\n" in banner
        assert banner[-1] == f"scenarios: {count} from {serve.BUNDLED / 'scenarios'}\n"
        assert call(port, "GET", "/health") == (200, {"status": "ok", "scenarios": count, "state": "ok"})
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=60)


def test_serve_prefers_a_scenarios_folder_here_to_the_bundled_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert (serve.BUNDLED / "scenarios").resolve() == BUNDLED.resolve()  # in a checkout, the top-level folders
    assert (serve.BUNDLED / "recordings").resolve() == (REPO / "recordings").resolve()
    monkeypatch.chdir(tmp_path)
    assert serve.default_scenarios() == serve.BUNDLED / "scenarios"
    (tmp_path / "scenarios").mkdir()
    assert serve.default_scenarios() == Path("scenarios")


SERVING = [["serve"], ["record", "--upstream", "http://127.0.0.1:9"]]  # the recorder's upstream: nothing there


@pytest.mark.parametrize("stop", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
@pytest.mark.parametrize("command", SERVING, ids=lambda c: c[0])
def test_a_signal_stops_the_server_cleanly(tmp_path: Path, command: list[str], stop: signal.Signals) -> None:
    """Ctrl-C (SIGINT) and SIGTERM (`docker stop`): a graceful stop, status 0, no traceback."""
    process, port = launch([*EMULATOR, *command, "--port", "0"], cwd=tmp_path)
    try:
        call(port, "GET", "/health")  # answered (the recorder's is a 404): uvicorn holds the signals from here on
    finally:
        process.send_signal(stop)
        out, _ = process.communicate(timeout=60)
    assert process.returncode == 0, out
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out


@pytest.mark.parametrize("command", SERVING, ids=lambda c: c[0])
def test_a_busy_port_is_one_line_and_status_1(tmp_path: Path, command: list[str]) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        result = subprocess.run(
            [*EMULATOR, *command, "--port", str(port)],
            capture_output=True,
            text=True,
            timeout=60,
            cwd=tmp_path,
        )
    assert result.returncode == 2  # what it runs on is wrong
    assert result.stdout == ""  # no banner: no URL that would not answer
    assert result.stderr == f"emulator: cannot listen on 127.0.0.1:{port}: Address already in use\n"


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
    assert result.returncode == 2
    assert "scenarios[0]: expected exactly one of reply, steps, replies" in result.stderr


def test_serve_refuses_a_missing_cassette_and_a_negative_replay_speed(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["serve", "--recordings", "/nonexistent/cassette.yaml"]) == 2
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


def test_every_command_and_flag_has_help() -> None:
    """Walks the whole parser: a subcommand or flag added without help fails here."""
    missing: list[str] = []
    parsers = [("emulator", cli.parser())]
    while parsers:
        name, parser = parsers.pop()
        if not parser.description:
            missing.append(name)
        for action in parser._actions:
            if not action.help or action.help == argparse.SUPPRESS:
                missing.append(f"{name} {'/'.join(action.option_strings) or action.dest}")
            if isinstance(action, argparse._SubParsersAction):
                parsers += [(f"{name} {command}", sub) for command, sub in action.choices.items()]
                missing += [f"{name} {c.dest}" for c in action._choices_actions if not c.help]
    assert missing == []


def test_version_is_the_installed_distributions_and_says_whether_the_core_is_compiled(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`emulator --version`: the version of `llm-emulator` (the distribution's name), and `(compiled)` exactly when
    emulator.answering.stages, a module setup.py compiles, is an extension module; from `main` and from a process."""
    from emulator.answering import stages

    kind = "compiled" if stages.__file__.endswith((".so", ".pyd")) else "pure Python"
    expected = f"emulator {metadata.version('llm-emulator')} ({kind})\n"
    with pytest.raises(SystemExit) as exited:
        main(["--version"])
    assert exited.value.code == 0
    assert capsys.readouterr().out == expected
    ran = subprocess.run([*EMULATOR, "--version"], cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert (ran.returncode, ran.stdout, ran.stderr) == (0, expected, "")


def test_version_says_compiled_when_the_probed_module_is_an_extension(monkeypatch: pytest.MonkeyPatch) -> None:
    """The compiled branch, in a pure install too: orjson's own module (a dependency, always built) as the probe."""
    monkeypatch.setattr(emulator, "PROBE", "orjson.orjson")
    assert emulator.compiled() and emulator.version().endswith(" (compiled)")
    monkeypatch.setattr(emulator, "PROBE", "emulator.core.frozen")  # never compiled (setup.py says why)
    assert not emulator.compiled() and emulator.version().endswith(" (pure Python)")


@pytest.mark.parametrize(
    ("argv", "error"),
    [
        (["serve", "--port", "65536"], "argument --port: expected a port from 0 to 65535, got 65536"),
        (["record", "--upstream", "http://x", "--port", "-1"], "argument --port: expected a port from 0 to 65535"),
        (["record", "--upstream", ""], "argument --upstream: expected an http:// or https:// URL, got ''"),
        (["record", "--upstream", "api.openai.com"], "expected an http:// or https:// URL, got 'api.openai.com'"),
        (["report", "--url", "localhost:8000"], "argument --url: expected an http:// or https:// URL"),
    ],
)
def test_a_bad_port_or_url_is_a_usage_error(argv: list[str], error: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(argv)
    assert exited.value.code == 2
    assert error in capsys.readouterr().err


def test_a_crash_is_one_line_and_a_code_of_its_own(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Exit 1 means a difference or a failed check; a bug of the emulator's is 3, an environment's fault 2, each
    said in one line."""
    from emulator.cli import check

    def broken(paths: object) -> int:
        raise KeyError("messages")

    monkeypatch.setattr(check, "run", broken)
    assert main(["check", str(tmp_path)]) == 3
    (line,) = capsys.readouterr().err.splitlines()
    assert line.startswith("emulator check: internal error (KeyError: 'messages'); this is a bug")

    def refused(paths: object) -> int:
        raise PermissionError(13, "Permission denied", str(tmp_path / "locked.yaml"))

    monkeypatch.setattr(check, "run", refused)
    assert main(["check", str(tmp_path)]) == 2
    assert capsys.readouterr().err == f"emulator check: Permission denied: {tmp_path / 'locked.yaml'}\n"


def test_a_foreign_yaml_file_in_the_default_scenarios_folder_is_said_and_left_out(tmp_path: Path) -> None:
    """`./scenarios`, read unasked, holding a load test's YAML beside a scenario file: the server says which file
    is no scenario file, leaves it out and serves the rest (it exited 1 before)."""
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "greeting.yaml").write_text("scenarios: [{name: hello, match: {last_user: hello}, reply: {text: Hi.}}]\n")
    (folder / "load-test.yaml").write_text("stages:\n  - {duration: 30s, target: 20}\nthresholds: {p95: 500}\n")
    process, port = launch([*EMULATOR, "serve", "--port", "0"], tmp_path)
    try:
        banner = "".join(read_until(process, "  left out"))
        body = {"model": "m", "messages": [{"role": "user", "content": "hello there"}]}
        status, answer = call(port, "POST", "/v1/chat/completions", body, {"authorization": "Bearer k"})
        assert status == 200 and answer["choices"][0]["message"]["content"] == "Hi."
    finally:
        process.send_signal(signal.SIGINT)
        process.communicate(timeout=30)
    assert "scenarios: 1 from scenarios" in banner
    assert "  left out: scenarios/load-test.yaml is not a scenario file (no `scenarios:` list)" in banner
