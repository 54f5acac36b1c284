"""`emulator serve --fallback-upstream URL`: a second emulator stands in for the real model. It answers what no
scenario or recording answers on the first, in every dialect, under the first's faults and journal; the client's key
never reaches it; its answers go into a cassette when asked; beyond loopback it needs the admin token."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from emulator.http.fallback import dialects
from emulator.rules import profiles
from emulator.state import Settings
from tests.conftest import Server

DISTINCT = "Llamas hum quietly when the moon is full."
UPSTREAM_SCENARIO = f"""scenarios:
  - name: upstream-busy
    match: {{model: "busy"}}
    reply: {{fault: {{kind: status, status: 429, message: "Slow down, said the upstream."}}}}
  - name: real-model
    match: {{model: "*"}}
    reply: {{text: "{DISTINCT}"}}
"""
CLIENT_KEY = "sk-client-secret-0123456789"
OPERATOR_KEY = "sk-operator-key-9876543210"


@pytest.fixture(autouse=True)
def operator_key(monkeypatch: pytest.MonkeyPatch) -> None:
    """The operator's key for the upstream, in the environment `serve` runs in (the upstream emulator wants one)."""
    monkeypatch.setenv("EMULATOR_FALLBACK_API_KEY", OPERATOR_KEY)


@pytest.fixture
def upstream(make_server: Callable[[Settings], Server], tmp_path: Path) -> Server:
    """The 'real model': an emulator whose one scenario answers every request with `DISTINCT`."""
    scenarios = tmp_path / "upstream.yaml"
    scenarios.write_text(UPSTREAM_SCENARIO)
    return make_server(Settings(scenarios=(scenarios,)))


@pytest.fixture
def fronted(make_server: Callable[[Settings], Server], upstream: Server) -> Server:
    """The emulator under test: no scenarios, the upstream as its fallback, the operator's key in its environment."""
    return make_server(Settings(fallback_upstream=upstream.base_url))


@pytest.fixture
def gpt(fronted: Server) -> Iterator[openai.OpenAI]:
    with fronted.openai(api_key=CLIENT_KEY) as client:
        yield client


@pytest.fixture
def claude(fronted: Server) -> Iterator[anthropic.Anthropic]:
    with fronted.anthropic(api_key=CLIENT_KEY) as client:
        yield client


def journal(server: Server, test_id: str = "") -> list[dict[str, Any]]:
    query = f"?test_id={test_id}" if test_id else ""
    with urllib.request.urlopen(f"{server.base_url}/_emulator/requests{query}") as response:
        entries: list[dict[str, Any]] = json.load(response)["requests"]
    return entries


ASK = [{"role": "user", "content": "Tell me something about llamas."}]


@pytest.mark.parametrize("stream", [False, True])
def test_chat_gets_the_upstream_answer(gpt: openai.OpenAI, stream: bool) -> None:
    if stream:
        chunks = gpt.chat.completions.create(model="llama3.2", messages=ASK, stream=True)  # type: ignore[arg-type]
        with chunks:
            text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    else:
        text = gpt.chat.completions.create(model="llama3.2", messages=ASK).choices[0].message.content or ""  # type: ignore[arg-type]
    assert text == DISTINCT


@pytest.mark.parametrize("stream", [False, True])
def test_responses_and_messages_get_it_too(gpt: openai.OpenAI, claude: anthropic.Anthropic, stream: bool) -> None:
    """Responses and Messages, which the upstream (chat only, the default) does not speak: translated to Chat."""
    if stream:
        with gpt.responses.stream(model="llama3.2", input="Tell me about llamas.") as events:
            said = events.get_final_response().output_text
        with claude.messages.stream(model="llama3.2", max_tokens=200, messages=ASK) as stream_:  # type: ignore[arg-type]
            told = stream_.get_final_text()
    else:
        said = gpt.responses.create(model="llama3.2", input="Tell me about llamas.").output_text
        message = claude.messages.create(model="llama3.2", max_tokens=200, messages=ASK)  # type: ignore[arg-type]
        told = "".join(b.text for b in message.content if b.type == "text")
    assert said == DISTINCT and told == DISTINCT


def test_the_upstream_is_asked_in_its_own_dialect_with_the_operators_key(
    gpt: openai.OpenAI, claude: anthropic.Anthropic, upstream: Server
) -> None:
    """Chat forwarded as Chat (its body as sent, but `stream`), Messages written as Chat; the upstream sees the
    operator's key and none of the client's."""
    gpt.chat.completions.create(model="llama3.2", messages=ASK, stream=True, temperature=0.25).close()  # type: ignore[arg-type]
    claude.messages.create(model="llama3.2", max_tokens=64, messages=ASK)  # type: ignore[arg-type]
    seen = journal(upstream)
    assert [e["path"] for e in seen] == ["/v1/chat/completions", "/v1/chat/completions"]
    for entry in seen:
        headers = {k.lower(): v for k, v in entry["headers"].items()}
        assert "x-api-key" not in headers and "api-key" not in headers
        assert headers["authorization"].endswith(OPERATOR_KEY[-4:])  # the journal masks all but the end
        assert CLIENT_KEY[-4:] not in json.dumps(entry)
        assert not any(k.startswith("x-stainless") for k in headers)
    assert "stream" not in seen[0]["body"] and seen[0]["body"]["temperature"] == 0.25
    assert seen[1]["body"]["max_tokens"] == 64 and seen[1]["body"]["messages"][0]["role"] == "user"


def test_the_journal_marks_it_not_deterministic(gpt: openai.OpenAI, fronted: Server) -> None:
    gpt.chat.completions.create(model="llama3.2", messages=ASK)  # type: ignore[arg-type]
    (entry,) = journal(fronted)
    assert entry["source"] == "fallback" and entry["source_kind"] == "fallback"
    assert entry["deterministic"] is False


def test_faults_still_apply(gpt: openai.OpenAI, fronted: Server, upstream: Server) -> None:
    """A stream fault breaks the fallback's answer as it would the default's; an error status answers before the
    upstream is asked at all."""
    broken = {"x-emulator-fault": "stream_error; after_events=3"}
    with pytest.raises(openai.APIError):
        chunks = gpt.chat.completions.create(model="llama3.2", messages=ASK, stream=True, extra_headers=broken)  # type: ignore[arg-type]
        with chunks:
            for _ in chunks:
                pass
    with pytest.raises(openai.InternalServerError) as failed:
        gpt.chat.completions.create(model="llama3.2", messages=ASK, extra_headers={"x-emulator-fault": "status=503"})  # type: ignore[arg-type]
    assert failed.value.status_code == 503
    assert len(journal(upstream)) == 1  # the stream's, not the 503's
    assert [e["fault"] is not None for e in journal(fronted)] == [True, True]


def test_a_scenario_still_wins(make_server: Callable[[Settings], Server], upstream: Server, tmp_path: Path) -> None:
    own = tmp_path / "own.yaml"
    own.write_text('scenarios:\n  - name: mine\n    match: {model: "mine"}\n    reply: {text: "Scripted."}\n')
    first = make_server(Settings(scenarios=(own,), fallback_upstream=upstream.base_url))
    with first.openai() as client:
        scripted = client.chat.completions.create(model="mine", messages=ASK)  # type: ignore[arg-type]
        fallen = client.chat.completions.create(model="other", messages=ASK)  # type: ignore[arg-type]
    assert scripted.choices[0].message.content == "Scripted."
    assert fallen.choices[0].message.content == DISTINCT
    assert len(journal(upstream)) == 1


def test_messages_forwarded_as_messages(
    make_server: Callable[[Settings], Server], upstream: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An upstream that speaks Messages gets a Messages request as it came, with the operator's `x-api-key`, and
    a Chat request written as Messages."""
    monkeypatch.setenv("MY_KEY", OPERATOR_KEY)
    speaks = dialects("anthropic")
    first = make_server(
        Settings(fallback_upstream=upstream.base_url, fallback_dialects=speaks, fallback_key_env="MY_KEY")
    )
    with first.anthropic(api_key=CLIENT_KEY) as claude, first.openai(api_key=CLIENT_KEY) as gpt:
        with claude.messages.stream(model="claude-x", max_tokens=100, messages=ASK) as stream:  # type: ignore[arg-type]
            assert stream.get_final_text() == DISTINCT
        assert gpt.chat.completions.create(model="m", messages=ASK).choices[0].message.content == DISTINCT  # type: ignore[arg-type]
    seen = journal(upstream)
    assert [e["path"] for e in seen] == ["/v1/messages", "/v1/messages"]
    for entry in seen:
        headers = {k.lower(): v for k, v in entry["headers"].items()}
        assert headers["x-api-key"].endswith(OPERATOR_KEY[-4:]) and "authorization" not in headers
        assert CLIENT_KEY[-4:] not in json.dumps(entry)


def test_an_unreachable_upstream_is_the_clients_error(make_server: Callable[[Settings], Server]) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    first = make_server(Settings(fallback_upstream=f"http://127.0.0.1:{port}"))
    with first.openai() as gpt, first.anthropic() as claude:
        with pytest.raises(openai.APIStatusError) as failed:
            gpt.chat.completions.create(model="m", messages=ASK)  # type: ignore[arg-type]
        assert failed.value.status_code == 502
        assert f"fallback upstream http://127.0.0.1:{port}" in failed.value.message
        with pytest.raises(anthropic.APIStatusError) as refused:
            claude.messages.create(model="m", max_tokens=10, messages=ASK)  # type: ignore[arg-type]
        assert refused.value.status_code == 502 and "could not be reached" in refused.value.message


def test_an_upstream_error_is_the_clients_error(make_server: Callable[[Settings], Server], upstream: Server) -> None:
    """A dialect the upstream cannot be asked in is a 501; the upstream's own 429 is a 502 naming it and what it
    said."""
    first = make_server(Settings(fallback_upstream=upstream.base_url, fallback_dialects=dialects("responses")))
    with first.openai() as gpt, pytest.raises(openai.APIStatusError) as untranslatable:  # Chat is not Responses
        gpt.chat.completions.create(model="m", messages=ASK)  # type: ignore[arg-type]
    assert untranslatable.value.status_code == 501 and "speaks /v1/responses only" in untranslatable.value.message
    first = make_server(Settings(fallback_upstream=upstream.base_url))
    with first.openai() as gpt, pytest.raises(openai.APIStatusError) as failed:
        gpt.chat.completions.create(model="busy", messages=ASK)  # type: ignore[arg-type]
    assert failed.value.status_code == 502
    assert failed.value.message.endswith(
        f"The fallback upstream {upstream.base_url} answered 429: Slow down, said the upstream."
    )


def test_without_the_operators_key_the_clients_is_no_substitute(
    make_server: Callable[[Settings], Server], upstream: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("EMULATOR_FALLBACK_API_KEY")
    first = make_server(Settings(fallback_upstream=upstream.base_url))
    with first.openai(api_key=CLIENT_KEY) as gpt, pytest.raises(openai.APIStatusError) as failed:
        gpt.chat.completions.create(model="m", messages=ASK)  # type: ignore[arg-type]
    assert failed.value.status_code == 502 and "answered 401: You didn't provide an API key" in failed.value.message


def test_recording_writes_the_answer(
    make_server: Callable[[Settings], Server], upstream: Server, tmp_path: Path
) -> None:
    """`--fallback-record`: each answer goes into the cassette, which then answers offline."""
    cassette = tmp_path / "cassettes" / "fallback.yaml"
    first = make_server(Settings(fallback_upstream=upstream.base_url, fallback_record=cassette))
    with first.openai(api_key=CLIENT_KEY) as gpt:
        gpt.chat.completions.create(model="llama3.2", messages=ASK)  # type: ignore[arg-type]
    written = cassette.read_text()
    assert (
        DISTINCT in " ".join(written.split())
        and CLIENT_KEY not in written
        and OPERATOR_KEY not in written
        and "/v1/chat/completions" in written
    )
    offline = make_server(Settings(recordings=(cassette,), strict=True))
    with offline.openai() as gpt:
        chunks = gpt.chat.completions.create(model="llama3.2", messages=ASK, stream=True)  # type: ignore[arg-type]
        with chunks:
            assert "".join(c.choices[0].delta.content or "" for c in chunks if c.choices) == DISTINCT


def test_the_fixture_default_has_no_fallback() -> None:
    assert Settings().fallback_upstream is None


def test_dialect_words() -> None:
    assert dialects("openai,messages") == (profiles.CHAT, profiles.MESSAGES)
    assert dialects("chat, responses") == (profiles.CHAT, profiles.RESPONSES)
    with pytest.raises(ValueError, match="gemini"):
        dialects("gemini")


def test_serve_refuses_beyond_loopback_without_the_admin_token(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "emulator", "serve", "--host", "0.0.0.0", "--port", "0"]
    command += ["--fallback-upstream", "http://127.0.0.1:9"]
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(command, capture_output=True, text=True, cwd=tmp_path, env=env, timeout=120)
    assert done.returncode == 2
    assert "--fallback-upstream with --host 0.0.0.0 needs --admin-token" in done.stderr


def test_beyond_loopback_each_request_needs_the_token(
    make_server: Callable[[Settings], Server], upstream: Server
) -> None:
    """Bound beyond loopback (as the settings say), a request the fallback would answer must carry the admin token."""
    first = make_server(Settings(fallback_upstream=upstream.base_url, host="0.0.0.0", admin_token="tok-123"))
    with first.openai() as gpt:
        with pytest.raises(openai.AuthenticationError) as refused:
            gpt.chat.completions.create(model="m", messages=ASK)  # type: ignore[arg-type]
        assert "x-admin-token" in refused.value.message
        answer = gpt.chat.completions.create(model="m", messages=ASK, extra_headers={"x-admin-token": "tok-123"})  # type: ignore[arg-type]
    assert answer.choices[0].message.content == DISTINCT
