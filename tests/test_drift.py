"""`emulator drift`: recorded requests re-sent to a live upstream (here a second emulator, on loopback) and the
answers' shapes compared with the recorded ones; `--update` re-records only the drifted interactions."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from emulator.cli import conform as conform_command
from emulator.cli import main as cli_main
from emulator.http import recorder
from emulator.http.app import Settings
from tests.conftest import Server, call, serve, serve_app

MODEL = "DeepSeek-V4.1-Flash-1017"
AUTH = {"authorization": "Bearer sk-recording-client-key"}
CHAT: Any = [{"role": "user", "content": "Describe a harbour at dawn."}]


@pytest.fixture(scope="module")
def first() -> Iterator[Server]:
    yield from serve(Settings())


@pytest.fixture(scope="module")
def reseeded() -> Iterator[Server]:
    yield from serve(Settings(seed=7))


@pytest.fixture(autouse=True)
def keys(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-drift-test-openai-key")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-drift-test-key")


def _record(upstream: str, cassette: Path, every_dialect: bool = True) -> None:
    for through in serve_app(recorder.Recorder(upstream, cassette, "new_episodes"), lifespan=True):
        with through.openai() as client:
            client.chat.completions.create(model=MODEL, messages=CHAT)
            list(client.chat.completions.create(model=MODEL, messages=CHAT, stream=True))
            if every_dialect:
                list(client.responses.create(model=MODEL, input="Name three rivers.", stream=True))
                with (
                    through.anthropic() as claude,
                    claude.messages.stream(model=MODEL, max_tokens=1024, messages=CHAT) as s,
                ):
                    s.until_done()


def _drift(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli_main(["drift", "--rate", "50", *args])
    return code, capsys.readouterr().out


def _upstreams(*routes: str) -> list[str]:
    """`--upstream ROUTE` for each route."""
    return [arg for route in routes for arg in ("--upstream", route)]


def test_a_recording_drifts_by_nothing_from_its_upstream_or_one_with_another_seed(
    first: Server, reseeded: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "drift.yaml"
    _record(first.base_url, cassette)
    before = cassette.read_text()
    for upstream in (first, reseeded):
        code, out = _drift(capsys, "--upstream", upstream.base_url, str(cassette))
        assert out.splitlines()[-1] == "drift: 0 of 4 interactions differ", out
        assert code == 0
    assert cassette.read_text() == before  # nothing is written without --update
    assert "sk-drift-test" not in before


def test_another_profile_drifts_and_the_differences_are_listed(
    first: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "drift.yaml"
    _record(first.base_url, cassette, every_dialect=False)
    code, out = _drift(capsys, "--upstream", f"{first.base_url}/infercom", str(cassette))
    assert code == 1, out
    assert out.splitlines()[-1] == "drift: 2 of 2 interactions differ"
    # Infercom's shapes (seed 003): UUID ids, float timestamps, `reasoning`, per-day rate limits, no x-request-id.
    for line in (
        "~ id: id(chatcmpl-, base62) -> id(uuid)",
        "~ created: integer -> number",
        "+ choices[].message.reasoning (string)",
        "- choices[].message.reasoning_content",
        "+ header x-ratelimit-limit-requests-day",
        "- header x-request-id",
        "- event delta.reasoning_content: choices[].delta.reasoning_content (string)",
    ):
        assert f"  {line}\n" in out, line
    code, out = _drift(capsys, "--json", "--limit", "1", "--upstream", f"{first.base_url}/infercom", str(cassette))
    report = json.loads(out)
    assert code == 1 and report["compared"] == 1 and report["differ"] == 1
    assert {"kind": "-", "what": "header", "path": "x-request-id", "recorded": "", "live": ""} in (
        report["interactions"][0]["differences"]
    )


def test_update_rewrites_only_the_drifted_interactions(
    first: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "mixed.yaml"
    live = f"{first.base_url}/infercom"
    for through in serve_app(recorder.Recorder(live, cassette, "new_episodes"), lifespan=True):
        assert (
            call(through.port, "POST", "/v1/chat/completions", {"model": "MiniMax-M2.7", "messages": CHAT}, AUTH)[0]
            == 200
        )
    for through in serve_app(recorder.Recorder(first.base_url, cassette, "new_episodes"), lifespan=True):
        ask: Any = {"model": "MiniMax-M2.7", "messages": [{"role": "user", "content": "Say hi."}]}
        assert call(through.port, "POST", "/v1/chat/completions", ask, AUTH)[0] == 200
    kept = next(conform_command.recorded([cassette]))
    code, out = _drift(capsys, "--update", "--upstream", live, str(cassette))
    assert code == 1 and "drift: 1 of 2 interactions differ" in out and "mixed.yaml#0: same" in out, out
    assert "re-recorded 1 interactions" in out
    now = list(conform_command.recorded([cassette]))
    assert len(now) == 2
    assert now[0].answer == kept.answer  # the one that had not drifted is as it was
    assert "sk-drift-test" not in cassette.read_text()  # the key sent was redacted from the re-recording
    code, out = _drift(capsys, "--upstream", live, str(cassette))
    assert code == 0, out


def test_without_a_key_drift_says_which_variable(
    first: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    cassette = tmp_path / "k.yaml"
    _record(first.base_url, cassette, every_dialect=False)
    monkeypatch.delenv("OPENAI_API_KEY")
    assert cli_main(["drift", "--upstream", first.base_url, str(cassette)]) == 2
    assert "OPENAI_API_KEY" in capsys.readouterr().err
    monkeypatch.setenv("MY_KEY", "sk-mine-0123456789")
    assert cli_main(["drift", "--rate", "50", "--key-env", "MY_KEY", "--upstream", first.base_url, str(cassette)]) == 0


def _paths_seen(server: Server) -> list[str]:
    """The paths of the requests an upstream emulator's journal holds, oldest first."""
    return [r["path"] for r in call(server.port, "GET", "/_emulator/requests?bodies=false")[1]["requests"]]


def test_each_interaction_goes_to_the_upstream_of_its_profile(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`--upstream PROFILE=URL`, repeatable: an interaction is re-sent to the upstream of the profile it was
    recorded under, a plain URL takes the rest; an interaction with nowhere to go is named before any is sent."""
    cassette = tmp_path / "two.yaml"
    for recording in serve(Settings()):
        for profile in ("inferam", "infercom"):
            live = f"{recording.base_url}/{profile}"
            for through in serve_app(recorder.Recorder(live, cassette, "new_episodes"), lifespan=True):
                ask: Any = {"model": "MiniMax-M2.7", "messages": [{"role": "user", "content": f"Hi from {profile}."}]}
                assert call(through.port, "POST", "/v1/chat/completions", ask, AUTH)[0] == 200
                if profile == "infercom":
                    assert call(through.port, "POST", "/v1/chat/completions", ask | {"stream": True}, AUTH)[0] == 200
    for one in serve(Settings(seed=3)):
        for two in serve(Settings(seed=4)):
            routed = _upstreams(f"inferam={one.base_url}/inferam", f"infercom={two.base_url}/infercom")
            code, out = _drift(capsys, *routed, str(cassette))
            assert code == 0 and out.splitlines()[-1] == "drift: 0 of 3 interactions differ", out
            assert _paths_seen(one) == ["/inferam/v1/chat/completions"]
            assert _paths_seen(two) == ["/infercom/v1/chat/completions"] * 2
            # Crossed, every interaction meets the other profile's shapes.
            crossed = _upstreams(f"infercom={one.base_url}/inferam", f"inferam={two.base_url}/infercom")
            code, out = _drift(capsys, *crossed, str(cassette))
            assert code == 1 and out.splitlines()[-1] == "drift: 3 of 3 interactions differ", out
            # A plain URL takes what no PROFILE= names.
            plain = _upstreams(f"infercom={two.base_url}/infercom", f"{one.base_url}/inferam")
            code, out = _drift(capsys, *plain, str(cassette))
            assert code == 0, out
            assert len(_paths_seen(one)) == 1 + 2 + 1 and len(_paths_seen(two)) == 2 + 1 + 2
            assert cli_main(["drift", "--upstream", f"infercom={two.base_url}/infercom", str(cassette)]) == 2
            assert "no --upstream for profile inferam" in capsys.readouterr().err
            assert len(_paths_seen(two)) == 5  # refused before anything was sent


def test_an_upstream_for_no_profile_is_refused(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        cli_main(["drift", "--upstream", "openia=http://127.0.0.1:9/", "x.yaml"])
    assert exited.value.code == 2
    assert "'openia' is no profile" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli_main(["drift", "--upstream", "ftp://127.0.0.1:9/", "x.yaml"])
    assert "expected an http:// or https:// URL" in capsys.readouterr().err
    code = cli_main(["drift", "--upstream", "http://127.0.0.1:9/a", "--upstream", "http://127.0.0.1:9/b", "x.yaml"])
    assert code == 2 and "two upstreams for every profile" in capsys.readouterr().err


def test_an_upstream_that_cannot_be_reached_is_no_drift(
    first: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str], caplog: pytest.LogCaptureFixture
) -> None:
    """A scheduled job must tell an outage from a change: one line saying so, exit 2, no traceback, and not the
    recorder's own line on the same failure above it."""
    cassette = tmp_path / "outage.yaml"
    _record(first.base_url, cassette, every_dialect=False)
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        closed = probe.getsockname()[1]
    code = cli_main(["drift", "--rate", "50", "--upstream", f"http://127.0.0.1:{closed}", str(cassette)])
    said = capsys.readouterr()
    assert code == 2
    (line,) = [line for line in said.err.splitlines() if line.startswith("emulator drift:")]
    assert "did not answer" in line and "drift is unknown" in line
    assert "Traceback" not in said.err + said.out
    assert not [r for r in caplog.records if r.name == "emulator.http.recorder"], caplog.text
