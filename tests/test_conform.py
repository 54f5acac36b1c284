"""`emulator conform`: cassettes recorded from the emulator itself (through `emulator record`, a second
emulator as the upstream) conform in every dialect and profile, streamed and not, with tool calls and
reasoning; a cassette edited to carry a field and an event type the emulator never sends is reported."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from emulator.answering import conformance
from emulator.cli import conform as conform_command
from emulator.cli import main as cli_main
from emulator.cli import serve as serve_command
from emulator.http import recorder
from emulator.http.app import Settings
from emulator.rules import validation
from tests.conftest import Server, serve, serve_app

WEATHER = "get_weather"
CHAT_TOOLS: Any = [
    {"type": "function", "function": {"name": WEATHER, "parameters": {"type": "object", "properties": {}}}}
]
RESPONSES_TOOLS: Any = [{"type": "function", "name": WEATHER, "parameters": {"type": "object", "properties": {}}}]
MESSAGES_TOOLS: Any = [{"name": WEATHER, "input_schema": {"type": "object", "properties": {}}}]
KEY = {"authorization": "Bearer sk-conform-test"}
ASK = "What is the weather in Lisbon? Use get_weather."


@pytest.fixture(scope="module")
def upstream() -> Iterator[Server]:
    yield from serve(Settings())


def _recorder(upstream: Server, profile: str, cassette: Path) -> Iterator[Server]:
    """`emulator record` in front of the upstream emulator serving `profile` (its prefix in the upstream URL)."""
    yield from serve_app(recorder.Recorder(f"{upstream.base_url}/{profile}", cassette, "all"), lifespan=True)


def _record_openai(through: Server, model: str, responses: bool) -> None:
    with through.openai() as client:
        for stream in (False, True):
            chat: Any = [{"role": "user", "content": ASK}]
            if stream:
                list(client.chat.completions.create(model=model, messages=chat, tools=CHAT_TOOLS, stream=True))
                list(
                    client.chat.completions.create(
                        model=model, messages=[{"role": "user", "content": "Hi"}], stream=True
                    )
                )
            else:
                client.chat.completions.create(model=model, messages=chat, tools=CHAT_TOOLS)
                client.chat.completions.create(model=model, messages=[{"role": "user", "content": "Explain tides."}])
            if responses:
                reasoning: Any = {"effort": "low", "summary": "auto"}
                if stream:
                    list(client.responses.create(model=model, input=ASK, tools=RESPONSES_TOOLS, stream=True))
                    list(client.responses.create(model=model, input="Why?", reasoning=reasoning, stream=True))
                else:
                    client.responses.create(model=model, input=ASK, tools=RESPONSES_TOOLS)
                    client.responses.create(model=model, input="Why is the sky blue?", reasoning=reasoning)


def _record_anthropic(through: Server, model: str) -> None:
    with through.anthropic() as client:
        thinking: Any = {"type": "enabled", "budget_tokens": 1024}
        for stream in (False, True):
            ask: Any = [{"role": "user", "content": ASK}]
            think: Any = [{"role": "user", "content": "Think, then say hi."}]
            if stream:
                with client.messages.stream(model=model, max_tokens=2048, messages=ask, tools=MESSAGES_TOOLS) as s:
                    s.until_done()
                with client.messages.stream(model=model, max_tokens=2048, messages=think, thinking=thinking) as s:
                    s.until_done()
            else:
                client.messages.create(model=model, max_tokens=2048, messages=ask, tools=MESSAGES_TOOLS)
                client.messages.create(model=model, max_tokens=2048, messages=think, thinking=thinking)


def _conform(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    code = cli_main(["conform", *args])
    return code, capsys.readouterr().out


CASES = [("inferam", "DeepSeek-V4.1-Flash-1017"), ("openai", "gpt-5"), ("anthropic", "claude-haiku-4-5")]


@pytest.mark.parametrize(("profile", "model"), CASES, ids=[c[0] for c in CASES])
def test_recordings_of_the_emulator_conform(
    upstream: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str], profile: str, model: str
) -> None:
    cassette = tmp_path / f"{profile}.yaml"
    for through in _recorder(upstream, profile, cassette):
        if profile != "anthropic":
            _record_openai(through, model, responses=True)
        if profile != "openai":
            _record_anthropic(through, model)
    text = cassette.read_text()
    assert f"{conformance.PROFILE_KEY}: {profile}" in text  # the recorder noted the profile it recorded under
    assert "tool_calls" in text or "tool_use" in text or "function_call" in text
    code, out = _conform(capsys, str(cassette))
    count = len(list(conform_command.recorded([cassette])))
    assert count == {"inferam": 12, "openai": 8, "anthropic": 4}[profile]
    assert out.splitlines()[-1] == f"conform: 0 of {count} interactions differ", out
    assert code == 0
    assert out.count(": same (profile ") == count


def test_an_edited_cassette_reports_the_extra_field_and_event_and_exits_1(
    upstream: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "edited.yaml"
    for through in _recorder(upstream, "inferam", cassette):
        with through.openai() as client:
            client.responses.create(model="DeepSeek-V4.1-Flash-1017", input="Name a river.")
            list(client.responses.create(model="DeepSeek-V4.1-Flash-1017", input="Name a lake.", stream=True))
    assert _conform(capsys, str(cassette))[0] == 0
    document = cassette.read_text()
    # The provider's news: a new top-level field on the whole answer, a new event type mid-stream.
    edited = document.replace('{"id":"resp_', '{"service_tier":"default","id":"resp_', 1)
    at = edited.index("event: response.in_progress")
    edited = (
        edited[:at]
        + 'event: response.queued_note\n\n      data: {\\"type\\":\\"response.queued_note\\"}\\n\\n\\\n      '
        + edited[at:]
    )
    cassette.write_text(edited)
    code, out = _conform(capsys, str(cassette))
    assert code == 1, out
    assert "  - service_tier" in out  # only the recording has it
    assert "  - event response.queued_note" in out
    assert out.splitlines()[-1] == "conform: 2 of 2 interactions differ"
    code, out = _conform(capsys, "--json", str(cassette))
    report = json.loads(out)
    assert code == 1 and report["differ"] == 2
    paths = {d["path"] for line in report["interactions"] for d in line["differences"]}
    assert {"service_tier", "response.queued_note"} <= paths


def test_without_a_noted_profile_conform_asks_for_one(
    upstream: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = tmp_path / "plain.yaml"
    for through in serve_app(recorder.Recorder(upstream.base_url, cassette, "all"), lifespan=True):
        with through.openai() as client:
            client.chat.completions.create(
                model="DeepSeek-V4.1-Flash-1017", messages=[{"role": "user", "content": "Hi"}]
            )
    assert cli_main(["conform", str(cassette)]) == 2
    assert "--profile" in capsys.readouterr().err
    code, out = _conform(capsys, "--profile", "inferam", str(cassette))
    assert code == 0, out


def test_noted_profile_prefers_the_upstreams_own() -> None:
    assert conformance.noted_profile("/v1/chat/completions", "https://api.openai.com") == "openai"
    assert conformance.noted_profile("/v1/messages", "https://api.anthropic.com/") == "anthropic"
    assert conformance.noted_profile("/anthropic/v1/messages", "http://127.0.0.1:9000/infercom") == "infercom"
    assert conformance.noted_profile("/inferel/v1/chat/completions", "http://127.0.0.1:9000") == "inferel"
    assert conformance.noted_profile("/v1/chat/completions", "https://llm.example.internal") is None


def test_the_bundled_recordings_conform(capsys: pytest.CaptureFixture[str]) -> None:
    """The cassettes the wheel carries (recorded from the emulator) note the profile they were recorded under,
    as the recorder does, and look like what the emulator answers today, rate-limit headers and all: a bare
    `emulator conform` over them, with no `--profile`, exits 0 (it asked for `--profile` while they noted none)."""
    bundled = serve_command.BUNDLED / "recordings"
    recorded = list(conform_command.recorded([bundled]))
    assert len(recorded) >= 3
    assert {i.profile for i in recorded} == {"inferam"}, [i.profile for i in recorded]
    code, out = _conform(capsys, str(bundled))
    assert out.splitlines()[-1] == f"conform: 0 of {len(recorded)} interactions differ", out
    assert out.count(": same (profile inferam)") == len(recorded), out
    assert code == 0


def test_infercoms_inference_id_is_kept_and_compared(
    upstream: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Infercom names each answer by `inference-id` (a UUID, seed 003), not `x-request-id`: a cassette keeps it,
    replay gives it back, and conform notices when a recording lacks it."""
    cassette = tmp_path / "infercom.yaml"
    ask: Any = {"model": "MiniMax-M2.7", "messages": [{"role": "user", "content": "Name a mountain."}]}
    for through in _recorder(upstream, "infercom", cassette):
        sent = httpx.post(f"{through.base_url}/v1/chat/completions", json=ask, headers=KEY).headers["inference-id"]
        httpx.post(f"{through.base_url}/v1/chat/completions", json=ask | {"stream": True}, headers=KEY)
    kept = [i.headers.get("inference-id") for i in conform_command.recorded([cassette])]
    assert kept[0] == sent and kept[1] is not None and kept[1] != sent, kept
    assert all(re.fullmatch(r"[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}", k or "") for k in kept)
    for replaying in serve(Settings(recordings=(cassette,))):
        again = httpx.post(f"{replaying.base_url}/infercom/v1/chat/completions", json=ask, headers=KEY)
        assert again.status_code == 200 and again.headers["inference-id"] == sent
    assert _conform(capsys, str(cassette))[0] == 0
    cassette.write_text(re.sub(r"\n      inference-id:\n      - [^\n]+", "", cassette.read_text()))
    code, out = _conform(capsys, str(cassette))
    assert code == 1 and out.count("  + header inference-id\n") == 2, out


def _post(through: Server, path: str, body: Any, headers: dict[str, str] | None = None) -> int:
    sent = KEY | {"x-api-key": "sk-conform-test", "anthropic-version": "2023-06-01"} | (headers or {})
    return httpx.post(f"{through.base_url}{path}", json=body, headers=sent, timeout=30).status_code


HI: Any = [{"role": "user", "content": "Hi"}]
ERRORS = [  # profile, path, body, fault header (None: a request the profile itself refuses), the status
    (
        "inferam",
        "/v1/chat/completions",
        {"model": "m", "messages": [{"role": "user", "content": "Hi"}]},
        "status=429; retry_after=2",
        429,
    ),
    (
        "inferam",
        "/v1/messages",
        {"model": "m", "max_tokens": 64, "messages": [{"role": "user", "content": "Hi"}]},
        "status=529",
        529,
    ),
    ("openai", "/v1/responses", {"model": "gpt-5", "input": "Hi"}, "status=500", 500),
    ("openai", "/v1/chat/completions", {"model": "gpt-5", "messages": [], "colour": "red"}, None, 400),
    ("openai", "/v1/responses", {"model": "gpt-nowhere-9", "input": "Hi"}, None, 404),
    (
        "anthropic",
        "/v1/messages",
        {"model": "claude-haiku-4-5", "messages": [{"role": "user", "content": "Hi"}]},
        None,
        400,
    ),
    (
        "infercom",
        "/v1/chat/completions",
        {"model": "MiniMax-M2.7", "messages": [{"role": "user", "content": "Hi"}]},
        "status=503",
        503,
    ),
    ("infercom", "/v1/chat/completions", {"model": "MiniMax-M2.7", "messages": HI}, "status=404", 404),
    ("infercom", "/v1/chat/completions", {"model": "MiniMax-M2.7", "messages": HI}, "status=400", 400),
]


def test_error_answers_are_compared_too(upstream: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A recorded error is compared like any answer: a refusal with the emulator's own refusal of the same
    request, a status the request did not earn with that status as a scripted fault renders it, in each
    profile's shape (Infercom's plain text and `{"error": …}` included)."""
    cassette = tmp_path / "errors.yaml"
    for n, (profile, path, body, fault, status) in enumerate(ERRORS):
        own = json.loads(json.dumps(body).replace('"Hi"', f'"Hi {n}"'))  # each its own, so none replaces another
        for through in _recorder(upstream, profile, cassette):
            assert _post(through, path, own, {"x-emulator-fault": fault} if fault else {}) == status
    code, out = _conform(capsys, str(cassette))
    assert out.splitlines()[-1] == f"conform: 0 of {len(ERRORS)} interactions differ", out
    assert code == 0 and "skipped" not in out
    # The provider's news in an error: a field the emulator's error body lacks, a header it no longer sends.
    edited = cassette.read_text().replace('{"error":{"message":', '{"error":{"request_trace":"t1","message":', 1)
    edited = re.sub(r"\n      request-id:\n      - req_[^\n]+", "", edited, count=1)  # Anthropic's, on its 400
    cassette.write_text(edited)
    code, out = _conform(capsys, str(cassette))
    assert code == 1 and "  - error.request_trace\n" in out and "  + header request-id\n" in out, out
    assert out.splitlines()[-1] == "conform: 2 of 9 interactions differ", out


def test_a_recorded_request_the_profile_refuses_is_reported(
    upstream: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An answered request the public profile would refuse (a field its API does not take, a model its catalog
    lacks) differs, and the report says what the profile refuses."""
    cassette = tmp_path / "lenient.yaml"
    hi: Any = [{"role": "user", "content": "Hi"}]
    asks: Any = [
        ("/v1/chat/completions", {"model": "gpt-4.1", "messages": hi, "colour": "red"}),
        ("/v1/chat/completions", {"model": "gpt-nowhere-9", "messages": hi}),
        ("/v1/responses", {"model": "gpt-5", "input": "Hi", "shade": "blue"}),
        ("/v1/chat/completions", {"model": "gpt-4.1", "messages": hi}),
    ]
    for through in _recorder(upstream, "openai", cassette):  # lenient: the upstream answers what it would refuse
        for path, ask in asks:
            assert _post(through, path, ask, {validation.LENIENT_HEADER: "1"}) == 200
    code, out = _conform(capsys, str(cassette))
    assert code == 1 and out.splitlines()[-1] == "conform: 3 of 4 interactions differ", out
    lines = out.splitlines()
    refused = [line for line in lines if "it refuses the recorded request" in line]
    assert len(refused) == 3, out
    assert "colour" in refused[0] and "400" in refused[0]
    assert "gpt-nowhere-9" in refused[1] and "404" in refused[1]
    assert "shade" in refused[2] and "400" in refused[2]
    assert "  ~ status: 200 -> 400" in out and "  ~ status: 200 -> 404" in out
    assert any(line.startswith("lenient.yaml#3: same") for line in lines)


def test_what_the_profile_does_not_serve_is_skipped_and_said(
    upstream: Server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A folder of Chat and Messages cassettes, none noted with a profile, under `--profile openai` and
    `anthropic`: each skips what it does not serve, says so, and compares the rest."""
    cassette = tmp_path / "mixed.yaml"
    for through in serve_app(recorder.Recorder(upstream.base_url, cassette, "all"), lifespan=True):
        with through.openai() as client, through.anthropic() as claude:
            client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "Hi"}])
            claude.messages.create(model="claude-sonnet-5", max_tokens=64, messages=[{"role": "user", "content": "Hi"}])
    for profile, skipped in (("openai", "/v1/messages"), ("anthropic", "/v1/chat/completions")):
        code, out = _conform(capsys, "--profile", profile, str(cassette))
        assert f"skipped: the {profile} profile does not serve {skipped}" in out, out
        assert "(1 skipped)" in out and code in (0, 1)
