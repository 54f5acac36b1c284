"""Record through the recorder with the official SDKs, then replay from the cassette with the upstream gone.

The "real" upstream is the emulator itself, on loopback, with paced scenarios. Timing is asserted in
generous ranges, never exactly.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import stat
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable, Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import anthropic
import httpx2
import openai
import pytest
from vcr.cassette import Cassette

from emulator import recordings
from emulator.answering import conformance
from emulator.cli import main as cli_main
from emulator.http import recorder
from emulator.http.app import Settings
from emulator.recordings.cassette import document_of
from emulator.rules.limits import Limits
from tests.conftest import FROZEN, SCENARIOS, Server, launch, serve, serve_app

REPO = Path(__file__).parent.parent
SECRET = "sk-proj-" + "Zq7" * 12  # a key-shaped value the cassette must never hold
KEY_LIKE = re.compile(r"sk-[A-Za-z0-9_-]{16,}|sk-ant-[A-Za-z0-9_-]+|Bearer [A-Za-z0-9._-]{20,}|set-cookie", re.I)
TIMING = {"x-emulator-timing": "ttft_ms=150; tokens_per_second=80"}
TOOLS: Any = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
RESPONSES_TOOLS: Any = [{"type": "function", "name": "get_weather", "parameters": {"type": "object"}}]
MESSAGES_TOOLS: Any = [{"name": "get_weather", "input_schema": {"type": "object"}}]
USER: Any = [{"role": "user", "content": "hi"}]
FLASH, CLAUDE = "gemini-2.5-flash", "claude-sonnet-5"  # models the strict profiles know
BEDROCK_CLAUDE = "anthropic.claude-sonnet-4-5-20250929-v1:0"


def scripted(scenario: str) -> dict[str, str]:
    """The header that picks a scenario of the upstream's, whatever the model."""
    return {"x-emulator-scenario": scenario}


class Chain:
    """An upstream emulator, a recorder in front of it and the cassette it writes; `stop_upstream` ends the first."""

    def __init__(self, tmp: Path) -> None:
        self.cassette = tmp / "recorded.yaml"
        self._upstream = serve(Settings(scenarios=(SCENARIOS,), frozen_time=FROZEN))
        self.upstream = next(self._upstream)
        # `all`: every request goes through to the upstream, none is answered from what was just recorded
        self._recorder = serve_app(recorder.Recorder(self.upstream.base_url, self.cassette, "all"), lifespan=True)
        self.recorder = next(self._recorder)

    def stop_upstream(self) -> None:
        next(self._upstream, None)

    def close(self) -> None:
        next(self._recorder, None)
        next(self._upstream, None)


@pytest.fixture
def chain(tmp_path: Path) -> Iterator[Chain]:
    running = Chain(tmp_path)
    yield running
    running.close()


def call(server: Server, dialect: str, model: str, stream: bool) -> tuple[list[Any], list[float]]:
    """What the SDK saw (each event, or the one response, dumped) and when each arrived."""
    started = time.monotonic()
    seen: list[Any] = []
    arrivals: list[float] = []
    headers = TIMING if model != "paced" else {}
    with server.openai(api_key=SECRET) as client, server.anthropic(api_key=SECRET) as claude:
        if dialect == "chat":
            options: dict[str, Any] = {"stream_options": {"include_usage": True}} if stream else {}
            options |= {"model": model, "messages": [{"role": "user", "content": "hi"}], "tools": TOOLS}
            answer: Any = client.chat.completions.create(
                stream=stream, extra_headers=headers, user="volatile", **options
            )
        elif dialect == "responses":
            answer = client.responses.create(model=model, input="hi", stream=stream, extra_headers=headers)
        else:
            answer = claude.messages.create(
                model=model,
                max_tokens=100,
                messages=[{"role": "user", "content": "hi"}],
                stream=stream,
                extra_headers=headers,
            )
        for item in answer if stream else [answer]:
            seen.append(item.model_dump())
            arrivals.append(time.monotonic() - started)
        if stream:
            answer.close()
    return seen, arrivals


def scan(path: Path) -> list[str]:
    return KEY_LIKE.findall(path.read_text(encoding="utf-8", errors="replace"))


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "whole"])
@pytest.mark.parametrize("model", ["paced", "two-calls"])
@pytest.mark.parametrize("dialect", ["chat", "responses", "messages"])
def test_record_then_replay_gives_the_same_answer_at_the_same_pace(
    chain: Chain, make_server: Callable[[Settings], Server], dialect: str, model: str, stream: bool
) -> None:
    direct, _ = call(chain.upstream, dialect, model, stream)  # first: it warms the SDK's lazy imports up
    recorded, recorded_at = call(chain.recorder, dialect, model, stream)
    assert recorded == direct  # the recorder is transparent
    chain.stop_upstream()
    assert chain.cassette.is_file() and not scan(chain.cassette)
    assert SECRET not in chain.cassette.read_text()

    replayer = make_server(Settings(recordings=(chain.cassette,)))
    replayed, replayed_at = call(replayer, dialect, model, stream)
    assert replayed == recorded  # text, tool calls, usage and ids: all of it
    assert len(replayed_at) == len(recorded_at)
    if stream:
        assert recorded_at[-1] - recorded_at[0] > 0.1  # the upstream did pace it
        # Each event when it came after the first, replayed against recorded: the client's own start-up, slower
        # on a loaded machine, is no part of the pace.
        for then, now in zip(recorded_at, replayed_at, strict=True):
            then, now = then - recorded_at[0], now - replayed_at[0]
            assert abs(now - then) < 0.1 + 0.3 * then, (recorded_at, replayed_at)


def test_replay_speed_zero_plays_at_once_and_volatile_fields_are_ignored(
    chain: Chain, make_server: Callable[[Settings], Server]
) -> None:
    recorded, recorded_at = call(chain.recorder, "chat", "paced", True)
    chain.stop_upstream()
    replayer = make_server(Settings(recordings=(chain.cassette,), replay_speed=0))
    with replayer.openai() as client:
        started = time.monotonic()
        chunks = client.chat.completions.create(
            model="paced",
            messages=[{"role": "user", "content": "hi"}],
            tools=TOOLS,
            stream=True,
            stream_options={"include_usage": True},
            user="someone-else",
        )
        text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        elapsed = time.monotonic() - started
    assert text == "Twenty characters!! and twenty more...."
    assert elapsed < recorded_at[-1] / 2


def test_an_explicit_scenario_wins_over_a_recording_and_a_miss_falls_through(
    chain: Chain, make_server: Callable[[Settings], Server]
) -> None:
    call(chain.recorder, "chat", "paced", False)
    chain.stop_upstream()
    replayer = make_server(Settings(scenarios=(SCENARIOS,), recordings=(chain.cassette,)))
    with replayer.openai() as client:
        hit = client.chat.completions.with_raw_response.create(
            model="other", messages=[{"role": "user", "content": "hi"}], tools=TOOLS, user="x"
        )
        assert hit.headers["x-emulator-source"] == "default"  # another model: no recording matches
        named = client.chat.completions.with_raw_response.create(
            model="paced", messages=[{"role": "user", "content": "hi"}], tools=TOOLS, user="x"
        )
        assert named.headers["x-emulator-source"] == "paced"  # the scenario of that name is loaded: it wins
    replayer = make_server(Settings(recordings=(chain.cassette,)))
    with replayer.openai() as client:
        replayed = client.chat.completions.with_raw_response.create(
            model="paced", messages=[{"role": "user", "content": "hi"}], tools=TOOLS, user="x"
        )
        assert replayed.headers["x-emulator-source"].startswith("recording recorded.yaml#0")
        assert replayed.parse().choices[0].message.content == "Twenty characters!! and twenty more...."
    # The journal says what answered, as the header does: it was null for a recording replayed by exact match.
    with urllib.request.urlopen(f"{replayer.base_url}/_emulator/requests", timeout=10) as response:
        journalled = json.load(response)["requests"]
    assert [e["source"] for e in journalled] == [replayed.headers["x-emulator-source"]]


def ask_everywhere(server: Server, model: str, stream: bool) -> dict[str, Any]:
    """The same conversation (one user message, the weather tool) through each dialect's SDK: what each saw."""
    seen: dict[str, Any] = {}
    messages: Any = [{"role": "user", "content": "hi"}]
    done: Any
    response: Any
    message: Any
    with server.openai() as client, server.anthropic() as claude:
        if stream:
            with client.chat.completions.stream(model=model, messages=messages, tools=TOOLS) as chat:
                done = chat.get_final_completion()
            with client.responses.stream(model=model, input="hi", tools=RESPONSES_TOOLS) as responses:
                response = responses.get_final_response()
            with claude.messages.stream(model=model, max_tokens=500, messages=messages, tools=MESSAGES_TOOLS) as m:
                message = m.get_final_message()
        else:
            done = client.chat.completions.create(model=model, messages=messages, tools=TOOLS)
            response = client.responses.create(model=model, input="hi", tools=RESPONSES_TOOLS)
            message = claude.messages.create(model=model, max_tokens=500, messages=messages, tools=MESSAGES_TOOLS)
    choice = done.choices[0]
    seen["chat"] = (
        choice.message.content or "",
        [(c.function.name, json.loads(c.function.arguments)) for c in choice.message.tool_calls or ()],
        choice.finish_reason,
    )
    calls = [(i.name, json.loads(i.arguments)) for i in response.output if i.type == "function_call"]
    seen["responses"] = (response.output_text, calls, "tool_calls" if calls else "stop")
    text = "".join(b.text for b in message.content if b.type == "text")
    uses = [(b.name, b.input) for b in message.content if b.type == "tool_use"]
    seen["messages"] = (text, uses, {"end_turn": "stop", "tool_use": "tool_calls"}[message.stop_reason or ""])
    return seen


@pytest.mark.parametrize("recorded_as", ["stream", "whole"])
@pytest.mark.parametrize("model", ["paced", "two-calls"])
def test_a_chat_recording_answers_the_same_conversation_in_every_dialect(
    chain: Chain, make_server: Callable[[Settings], Server], model: str, recorded_as: str
) -> None:
    stream = recorded_as == "stream"
    call(chain.recorder, "chat", model, stream)  # recorded through Chat Completions only
    chain.stop_upstream()
    direct = make_server(Settings(scenarios=(SCENARIOS,)))
    expected = ask_everywhere(direct, model, stream=not stream)  # what the scenario says, in each dialect
    replayer = make_server(Settings(recordings=(chain.cassette,), strict=True, replay_speed=0))
    for asked_stream in (True, False):  # the recording answers both ways, whichever way it was recorded
        assert ask_everywhere(replayer, model, asked_stream) == expected
    with replayer.openai() as client:
        raw = client.responses.with_raw_response.create(model=model, input="hi", tools=RESPONSES_TOOLS)
    assert raw.headers["x-emulator-source"] == "recording recorded.yaml#0"


def test_a_recording_played_as_recorded_keeps_its_own_rate_limit_headers(
    chain: Chain, make_server: Callable[[Settings], Server]
) -> None:
    """The upstream's rate-limit headers are recorded and replayed as they were; the replayer adds none of
    its own (the upstream reports 10000 requests a minute, the replayer would report 3)."""
    with chain.recorder.openai() as client:
        recorded = client.chat.completions.with_raw_response.create(model="m", messages=USER).headers
    chain.stop_upstream()
    replayer = make_server(Settings(recordings=(chain.cassette,), limits=Limits(requests_per_minute=3)))
    with replayer.openai() as client:
        replayed = client.chat.completions.with_raw_response.create(model="m", messages=USER).headers
    names = [name for name in recorded if name.startswith("x-ratelimit-")]
    assert names and {n: replayed[n] for n in names} == {n: recorded[n] for n in names}
    assert replayed["x-ratelimit-limit-requests"] == "10000"


def test_twenty_parallel_streams_are_all_recorded(chain: Chain) -> None:
    failures: list[BaseException] = []

    def one(i: int) -> None:
        try:
            with chain.recorder.openai(api_key=SECRET) as client:
                stream = client.chat.completions.create(
                    model="paced", messages=[{"role": "user", "content": f"hi {i}"}], stream=True
                )
                assert "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
        except BaseException as exc:  # reported below, from the test's thread
            failures.append(exc)

    started = time.monotonic()
    one(20)  # the baseline: one stream alone (~0.5 s of pacing), on this machine as loaded as it is now
    alone = time.monotonic() - started
    threads = [threading.Thread(target=one, args=(i,)) for i in range(20)]
    started = time.monotonic()
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not failures
    assert time.monotonic() - started < 10 * alone  # in parallel: one after another would take 20 times as long
    # The SDK stops reading at `[DONE]`, before the recorder's save: wait a little for the last ones.
    library = recordings.load([chain.cassette])
    deadline = time.monotonic() + 5
    while len(library) < 21 and time.monotonic() < deadline:
        time.sleep(0.05)
        library = recordings.load([chain.cassette])
    assert len(library) == 21
    assert {r.key for r in library.recordings.values()} == {
        recordings.match_key(
            f'{{"messages":[{{"role":"user","content":"hi {i}"}}],"model":"paced","stream":true}}'.encode()
        )
        for i in range(21)
    }
    assert all(len(r.event_gaps) > 3 for r in library.recordings.values())
    assert not scan(chain.cassette)


def _first_byte(server: Server) -> float:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    body = b'{"model":"plain-text","messages":[{"role":"user","content":"hi"}],"stream":true}'
    try:
        started = time.perf_counter()
        conn.request("POST", "/v1/chat/completions", body, {"content-type": "application/json", "x-api-key": "k"})
        response = conn.getresponse()
        assert response.status == 200 and response.getheader("content-type", "").startswith("text/event-stream")
        response.read(1)
        elapsed = time.perf_counter() - started
        response.read()
        return elapsed
    finally:
        conn.close()


def test_time_to_first_byte_through_the_recorder_is_close_to_direct(chain: Chain) -> None:
    for server in (chain.upstream, chain.recorder):  # warm up both
        _first_byte(server)
    direct = statistics.median(_first_byte(chain.upstream) for _ in range(15))
    recorded = statistics.median(_first_byte(chain.recorder) for _ in range(15))
    print(f"time to first byte: direct {direct * 1000:.1f} ms, through the recorder {recorded * 1000:.1f} ms")
    assert -0.005 < recorded - direct < 0.05  # measured 1.5-2 ms; the range leaves room for a loaded machine


def test_a_recording_streams_as_the_upstream_sends(chain: Chain) -> None:
    """The first events arrive through the recorder long before the upstream's stream ends."""
    _, at = call(chain.recorder, "chat", "paced", True)
    assert at[-1] - at[1] > 0.1
    # The first event came before the upstream's 300 ms wait for the next was over: passed on, not held back.
    # (Against the next event's arrival, not the clock: a loaded machine's slow client start does not count.)
    assert at[1] - at[0] > 0.2


def test_the_cassette_code_is_a_package_of_small_modules() -> None:
    """`recordings.py` had grown to 796 lines holding six jobs; now one job a module, none over 400 lines, and
    vcrpy imported by one of them alone."""
    package = REPO / "emulator" / "recordings"
    modules = sorted(package.glob("*.py"))
    assert not (REPO / "emulator" / "recordings.py").exists() and len(modules) >= 8
    for module in modules:
        text = module.read_text(encoding="utf-8")
        assert len(text.splitlines()) <= 400, module.name
        imports_vcr = re.search(r"^(from vcr[ .]|import vcr\b)", text, re.MULTILINE) is not None
        assert imports_vcr == (module.name == "vcr_format.py"), module.name


def test_only_allowed_headers_are_kept() -> None:
    assert recordings.allowed("X-Stainless-Retry-Count") and recordings.allowed("anthropic-ratelimit-tokens-limit")
    for name in ("authorization", "x-api-key", "cookie", "set-cookie", "openai-organization", "openai-project"):
        assert not recordings.allowed(name)


@pytest.mark.parametrize("path", sorted(p for p in (REPO / "recordings").rglob("*") if p.is_file()), ids=str)
def test_committed_recordings_hold_no_secrets(path: Path) -> None:
    assert not scan(path), f"{path} holds something key-like"


def test_committed_recordings_replay(make_server: Callable[[Settings], Server]) -> None:
    library = recordings.load([REPO / "recordings"])
    assert len(library) >= 2
    make_server(Settings(recordings=(REPO / "recordings",)))  # loads


def test_vcrpy_reads_the_cassettes_the_recorder_writes() -> None:
    for path in sorted((REPO / "recordings").glob("*.yaml")):
        cassette = Cassette.load(path=str(path), record_mode="none")
        assert len(cassette) >= 1
        assert cassette.get_metadata(recordings.PACING, None)


MALFORMED = {
    "interactions: [{request: {}}]": [
        "interactions[0].request.method: missing; expected a string such as POST",
        "interactions[0].request.uri: missing",
        "interactions[0].request.body: missing",
        "interactions[0].request.headers: missing",
        "interactions[0].response.status.code: missing; expected an integer HTTP status",
        "interactions[0].response.headers: missing",
        "interactions[0].response.body.string: missing",
    ],
    "scenarios: []": ["not a cassette: expected a mapping with 'interactions'"],
    "interactions: {}": ["interactions: expected a list of {request, response}, got dict"],
    "interactions: [3]": ["interactions[0]: expected a mapping with request and response, got int"],
    (
        "interactions: [{request: {method: POST, uri: /v1/x, body: null, headers: {}},"
        " response: {status: {code: ok}, headers: {a: b}, body: {string: ''}}}]\n"
        "metadata: {emulator_pacing: [{event_gaps: [-1]}]}"
    ): [
        "interactions[0].response.status.code: expected an integer HTTP status, got str ('ok')",
        "interactions[0].response.headers.a: expected a list of strings, got str ('b')",
        "metadata.emulator_pacing[0].event_gaps: expected a list of seconds",
    ],
    "interactions: [{request: {}": ["not a readable YAML file"],
}


@pytest.mark.parametrize(("text", "mistakes"), MALFORMED.items(), ids=range(len(MALFORMED)))
def test_a_malformed_cassette_is_refused_with_every_mistake_named(
    tmp_path: Path, text: str, mistakes: list[str]
) -> None:
    cassette = tmp_path / "c.yaml"
    cassette.write_text(text)
    with pytest.raises(recordings.CassetteError) as caught:
        recordings.load([tmp_path])
    lines = str(caught.value).splitlines()
    assert len(lines) == len(mistakes)
    for line, mistake in zip(lines, mistakes, strict=True):
        assert line.startswith(f"{cassette}: {mistake}"), line
    with pytest.raises(recordings.CassetteError):  # and nothing is recorded into it
        recordings.Tape(cassette)
    assert cassette.read_text() == text


# 5,000 interactions by default, to keep the suite quick; with EMULATOR_RELIABILITY=long 50,000 (the figure
# docs/reliability.md gives), past the ceiling of about 14,500 that the alias bound set when it counted every value.
BIG = 50_000 if os.environ.get("EMULATOR_RELIABILITY") == "long" else 5_000
# Run in a process of its own, so that its peak memory is its own: a bare parse by libyaml's safe loader, or
# the cassette loaded as `emulator serve --recordings` loads it (imports included); prints processor seconds
# (what a shared machine's load changes least), wall seconds, peak MiB, recordings.
MEASURE = """
import resource, sys, time
from pathlib import Path
path = Path(sys.argv[2])
cpu, wall = time.process_time(), time.perf_counter()
if sys.argv[1] == "bare":
    import yaml
    count = len(yaml.load(path.read_text(encoding="utf-8"), Loader=yaml.CSafeLoader)["interactions"])
else:
    from emulator.http.app import Settings, create_app
    count = len(create_app(Settings(recordings=(path,))).state.emulator.library)
peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
print(time.process_time() - cpu, time.perf_counter() - wall, peak, count)
"""


def big_cassette(path: Path, count: int) -> None:
    """A cassette of `count` small distinct interactions (about 1 kB each, with the headers an SDK sends and
    an upstream answers with), as the recorder writes them."""
    method, uri, body, _, response, pacing = interaction(0)
    sent = {"content-type": "application/json", "user-agent": "OpenAI/Python 3.57.0", "accept": "application/json"}
    sent |= {f"x-stainless-{name}": "x" for name in ("arch", "async", "lang", "os", "package-version", "runtime")}
    response["headers"] |= {name: ["1"] for name in ("x-request-id", "openai-processing-ms", "x-ratelimit-limit")}
    item = recordings.vcr_format.serialize([recordings.vcr_format.stored(method, uri, body, sent, response, pacing)])
    item = item.replace("question 0", "question {i}").replace('"answer": 0}', '"answer": {i}}')
    assert item.count("{i}") == 2
    with path.open("w", encoding="utf-8") as f:
        f.write("version: 1\ninteractions:\n")
        for i in range(count):
            f.write(item.replace("{i}", str(i)))


def test_a_cassette_of_any_realistic_size_loads(tmp_path: Path) -> None:
    """A cassette of 20,000 small interactions (22.5 MB, no alias) was refused at start with "its aliases
    expand to more than 1,000,000 values". One of `BIG` loads, in less than three times a bare parse's processor
    time and under 2 GiB (`test_yamlfile` holds the bound to aliases with a bound lowered to fit 5,000)."""
    cassette = tmp_path / "big.yaml"
    big_cassette(cassette, BIG)

    def measured(how: str) -> tuple[float, float, float, int]:
        out = subprocess.run([sys.executable, "-c", MEASURE, how, str(cassette)], capture_output=True, text=True)
        assert out.returncode == 0, out.stderr[-2000:]
        cpu, wall, peak, count = out.stdout.split()
        return float(cpu), float(wall), float(peak), int(count)

    bare, bare_wall, _, held = measured("bare")
    seconds, wall, peak, loaded = measured("serve")
    print(
        f"{BIG} interactions, {cassette.stat().st_size / 1e6:.1f} MB, processor (wall) seconds: bare parse {bare:.1f}"
        f" ({bare_wall:.1f}), loaded {seconds:.1f} ({wall:.1f}): {seconds / bare:.2f}x, peak {peak:.0f} MiB"
    )
    assert held == loaded == BIG
    assert seconds < 3 * bare
    assert peak < 2048


def test_empty_cassettes_hold_nothing(tmp_path: Path) -> None:
    (tmp_path / "empty.yaml").write_text("")
    (tmp_path / "comment.yaml").write_text("# recorded later\n")
    (tmp_path / "none.yaml").write_text("interactions: []\n")
    assert len(recordings.load([tmp_path])) == 0


def test_strict_replay_names_the_nearest_recording(make_server: Callable[[Settings], Server]) -> None:
    server = make_server(Settings(recordings=(REPO / "recordings",), strict=True))
    recorded: Any = [{"role": "user", "content": "Say hello."}]
    with server.openai() as client:
        hit = client.chat.completions.create(
            model="gpt-4o-mini",
            messages=recorded,
            max_completion_tokens=80,
            stream=True,
            stream_options={"include_usage": True},
        )
        assert "".join(c.choices[0].delta.content or "" for c in hit if c.choices)  # the recording answers
        with pytest.raises(openai.NotFoundError) as caught:
            client.chat.completions.create(
                model="gpt-4o-mini",
                messages=[{"role": "user", "content": "Say goodbye."}],
                max_completion_tokens=80,
                stream=True,
                stream_options={"include_usage": True},
            )
    assert caught.value.code == "recording_not_found"
    assert "nearest is chat-stream.yaml#0" in caught.value.message
    assert "body.messages[0].content" in caught.value.message and "body.model" not in caught.value.message
    with server.anthropic() as claude, pytest.raises(anthropic.NotFoundError, match="No recording matches"):
        claude.messages.create(model="nothing-like-it", max_tokens=5, messages=recorded)


def test_nearest_reports_route_then_body_differences() -> None:
    library = recordings.load([REPO / "recordings"])
    body = b'{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say hello."}], "temperature": 1}'
    recording, differs = library.nearest("POST", "/inferam/v1/chat/completions", body) or (None, [])
    assert recording is not None and recording.path == "/v1/chat/completions"
    assert "method" not in differs and "path" not in differs and "body.temperature" in differs


def test_a_killed_recorder_keeps_what_it_captured(tmp_path: Path, make_server: Callable[[Settings], Server]) -> None:
    """Each interaction is saved as it completes: SIGKILL after two requests leaves both in the cassette."""
    upstream = make_server(Settings(scenarios=(SCENARIOS,)))
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    cassette = tmp_path / "killed.yaml"
    command = [sys.executable, "-m", "emulator", "record", "--upstream", upstream.base_url, "--out", str(cassette)]
    recorder = subprocess.Popen([*command, "--port", str(port), "--no-access-log"], stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 60  # a hang guard: startup imports take long on a loaded machine
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the recorder did not start"
                time.sleep(0.05)
        through = Server(f"http://127.0.0.1:{port}", "127.0.0.1", port)
        with through.openai() as client:
            for text in ("one", "two"):
                client.chat.completions.create(model="plain-text", messages=[{"role": "user", "content": text}])
        deadline = time.monotonic() + 5  # the save follows the response by a moment
        while len(recordings.load([cassette])) < 2 and time.monotonic() < deadline:
            time.sleep(0.05)
        # A third, paced stream is under way when the recorder is killed: it is not recorded, nor does it harm
        # the two before it.
        with through.openai(timeout=30) as client:
            stream = client.chat.completions.create(
                model="plain-text",
                messages=[{"role": "user", "content": "three"}],
                stream=True,
                extra_headers={"x-emulator-timing": "ttft_ms=100; tokens_per_second=5"},
            )
            next(iter(stream))
            recorder.send_signal(signal.SIGKILL)
            with pytest.raises(openai.APIError):
                for _ in stream:
                    pass
    finally:
        recorder.send_signal(signal.SIGKILL)
        recorder.wait(timeout=10)
    assert len(recordings.load([cassette])) == 2
    assert not list(tmp_path.glob("*.tmp*"))  # no half-written file left beside it


# --- record modes, profile prefixes, upstream failures -------------------------------------------------


def ask(server: Server, text: str, prefix: str = "") -> tuple[str, str]:
    """Who answered (`x-emulator-source`: the upstream's scenario, or a recording) and what."""
    with openai.OpenAI(base_url=f"{server.base_url}{prefix}/v1", api_key=SECRET, max_retries=0, timeout=10) as client:
        raw = client.chat.completions.with_raw_response.create(
            model="plain-text", messages=[{"role": "user", "content": text}]
        )
    return raw.headers["x-emulator-source"], raw.parse().choices[0].message.content or ""


class Through:
    """A recorder in `mode` in front of `upstream_url`, writing `cassette`; replays at full speed."""

    def __init__(self, upstream_url: str, cassette: Path, mode: str) -> None:
        self.recorder = recorder.Recorder(upstream_url, cassette, mode, speed=0)
        self._running = serve_app(self.recorder, lifespan=True)
        self.server = next(self._running)

    def ask(self, text: str, prefix: str = "") -> tuple[str, str]:
        return ask(self.server, text, prefix)

    def close(self) -> None:
        next(self._running, None)


@pytest.fixture
def through(tmp_path: Path, make_server: Callable[[Settings], Server]) -> Iterator[Callable[[str], Through]]:
    upstream = make_server(Settings(scenarios=(SCENARIOS,)))
    opened: list[Through] = []

    def open_one(mode: str) -> Through:
        if opened:
            opened[-1].close()
        opened.append(Through(upstream.base_url, tmp_path / "modes.yaml", mode))
        return opened[-1]

    yield open_one
    for one in opened:
        one.close()


def test_new_episodes_replays_what_it_holds_and_records_the_rest(through: Callable[[str], Through]) -> None:
    recorder = through("new_episodes")
    first = recorder.ask("one")
    assert first[0] == "plain-text"  # forwarded: the upstream's scenario answered
    assert recorder.ask("one") == ("recording modes.yaml#0", first[1])  # held: replayed, the upstream not asked
    assert recorder.ask("two")[0] == "plain-text"
    assert len(recordings.load([recorder.recorder.out])) == 2
    again = through("new_episodes")  # a new session replays what the last one recorded
    assert again.ask("two")[0] == "recording modes.yaml#1"


def test_all_records_every_request_and_a_new_recording_replaces_the_old(through: Callable[[str], Through]) -> None:
    recorder = through("all")
    assert recorder.ask("one")[0] == recorder.ask("one")[0] == "plain-text"
    assert len(Cassette.load(path=str(recorder.recorder.out), record_mode="none")) == 2  # every request is kept
    recorder = through("all")
    assert recorder.ask("one")[0] == "plain-text"
    assert recorder.ask("two")[0] == "plain-text"
    held = recordings.load([recorder.recorder.out])
    assert len(held) == 2  # "one" re-recorded replaced the first match it had (the duplicate stays unmatched)
    assert len(Cassette.load(path=str(recorder.recorder.out), record_mode="none")) == 3


def test_two_recorder_processes_on_one_cassette_lose_nothing(
    tmp_path: Path, make_server: Callable[[Settings], Server]
) -> None:
    """Two `emulator record --mode all --out same.yaml`: A appended a new interaction, then B re-recorded one it
    had loaded at start and rewrote the whole file from its stale copy; A's was gone (10 on disk, not 11)."""
    upstream = make_server(Settings(scenarios=(SCENARIOS,)))
    cassette = tmp_path / "same.yaml"
    command = [sys.executable, "-m", "emulator", "record", "--upstream", upstream.base_url, "--out", str(cassette)]
    command += ["--mode", "all", "--port", "0", "--no-access-log"]
    started: list[subprocess.Popen[str]] = []

    def recorder_process() -> Server:
        process, port = launch(command, tmp_path)
        started.append(process)
        return Server(f"http://127.0.0.1:{port}", "127.0.0.1", port)

    try:
        a = recorder_process()
        for i in range(10):
            ask(a, f"question {i}")
        b = recorder_process()  # loads the ten
        ask(a, "question 10")  # appended by A
        ask(b, "question 3")  # re-recorded by B
    finally:
        for process in started:
            process.kill()
            process.communicate(timeout=10)
    held = [json.loads(r.request)["messages"][0]["content"] for r in recordings.read(cassette)]
    assert sorted(held) == sorted(f"question {i}" for i in range(11))  # 11, each once: the re-recording replaced


def test_once_records_a_new_cassette_then_only_replays_it(through: Callable[[str], Through]) -> None:
    recorder = through("once")
    assert recorder.ask("one")[0] == "plain-text"
    recorder = through("once")
    assert recorder.ask("one")[0] == "recording modes.yaml#0"
    with pytest.raises(openai.NotFoundError) as caught:
        recorder.ask("three")
    assert caught.value.code == "recording_not_found" and "modes.yaml#0" in caught.value.message
    assert len(recordings.load([recorder.recorder.out])) == 1


def test_none_only_replays_and_never_writes(through: Callable[[str], Through]) -> None:
    recorder = through("none")
    with pytest.raises(openai.NotFoundError, match="none are loaded"):
        recorder.ask("one")
    assert not recorder.recorder.out.exists()


def test_the_recorder_answers_health_saying_what_it_is(tmp_path: Path) -> None:
    """`until curl -sf …/health` never ended against `emulator record` (a 404: it forwards /v1/ paths only), and
    the image's HEALTHCHECK marked compose's `record` service unhealthy."""
    cassette = tmp_path / "health.yaml"
    upstream = "http://someone:sk-in-the-url@127.0.0.1:9/base"  # nothing there: /health asks nothing of it
    command = [sys.executable, "-m", "emulator", "record", "--upstream", upstream, "--out", str(cassette)]
    process, port = launch([*command, "--port", "0", "--no-access-log"], tmp_path)
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=10) as answer:
            assert answer.status == 200 and answer.headers["content-type"] == "application/json"
            health = json.loads(answer.read())
        head = urllib.request.Request(f"http://127.0.0.1:{port}/health", method="HEAD")
        with urllib.request.urlopen(head, timeout=10) as answer:
            assert answer.status == 200 and answer.read() == b""
    finally:
        process.kill()
        process.communicate(timeout=10)
    assert health == {
        "status": "ok",
        "role": "recorder",
        "upstream": "http://127.0.0.1:9/base",  # its credentials left out: /health is open to all
        "cassette": str(cassette),
        "mode": "new_episodes",
        "recordings": 0,
    }
    assert not cassette.exists()


def test_a_profile_prefix_is_not_forwarded(through: Callable[[str], Through], make_server: Any) -> None:
    recorder = through("all")
    source, _ = recorder.ask("one", prefix="/infercom")
    assert source == "plain-text"
    cassette = Cassette.load(path=str(recorder.recorder.out), record_mode="none")
    assert [r.path for r in cassette.requests] == ["/v1/chat/completions"]


def test_an_upstream_that_refuses_ends_the_connection_and_records_nothing(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        closed = f"http://127.0.0.1:{probe.getsockname()[1]}"
    cassette = tmp_path / "refused.yaml"
    recorder = Through(closed, cassette, "all")
    try:
        with pytest.raises(openai.APIConnectionError):  # as if the client had met the refusal itself
            recorder.ask("one")
    finally:
        recorder.close()
    assert not cassette.exists()


def test_an_upstream_that_breaks_off_mid_stream_breaks_the_client_off_too(
    through: Callable[[str], Through], make_server: Callable[[Settings], Server]
) -> None:
    def broken(server: Server, prefix: str = "") -> type[BaseException]:
        base = f"{server.base_url}{prefix}/v1"
        with openai.OpenAI(base_url=base, api_key=SECRET, max_retries=0, timeout=10) as client:
            stream = client.chat.completions.create(
                model="cut-short", messages=[{"role": "user", "content": "hi"}], stream=True
            )
            with pytest.raises(Exception) as caught:
                for _ in stream:
                    pass
            stream.close()
        return caught.type

    recorder = through("all")
    recorder.ask("one")
    direct = make_server(Settings(scenarios=(SCENARIOS,)))
    assert broken(recorder.server) is broken(direct) is openai.APIConnectionError
    assert len(recordings.load([recorder.recorder.out])) == 1  # the broken stream is not recorded


def echoing_upstream() -> Any:
    """An upstream that sets a cookie, and echoes the credentials and cookies it was sent (as some do in errors)."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    seen: list[str] = []

    async def answer(request: Request) -> JSONResponse:
        seen.append(request.url.path)
        echo = {"auth": request.headers.get("authorization", ""), "cookie": request.headers.get("cookie", "")}
        response = JSONResponse(echo | {"query": str(request.query_params)})
        response.set_cookie("session", "upstream-session-for-one-client")
        return response

    app = Starlette(routes=[Route("/{path:path}", answer, methods=["GET", "POST"])])
    app.state.seen = seen
    return app


@pytest.fixture
def echoing(tmp_path: Path) -> Iterator[tuple[Server, Path, list[str]]]:
    upstream_app = echoing_upstream()
    cassette = tmp_path / "echo.yaml"
    for upstream in serve_app(upstream_app):
        proxied = recorder.Recorder(upstream.base_url, cassette, "all")
        for proxy in serve_app(proxied, **recorder.SERVER_OPTIONS):
            yield proxy, cassette, upstream_app.state.seen


def test_the_recorder_keeps_no_cookies_and_scrubs_every_form_of_the_key(
    echoing: tuple[Server, Path, list[str]],
) -> None:
    """An upstream's set-cookie was sent back on every later request, from every client, and recorded; a key
    after `bearer ` (lower case) or in the query string was recorded in clear."""
    proxy, cassette, _ = echoing
    with httpx2.Client(base_url=proxy.base_url, timeout=10) as one, httpx2.Client(base_url=proxy.base_url) as other:
        first = one.post("/v1/chat/completions", json={"n": 1}, headers={"authorization": f"bearer {SECRET}"})
        assert first.json()["auth"] == f"bearer {SECRET}"  # forwarded as sent
        second = other.post(f"/v1/chat/completions?api_key={SECRET}x", json={"n": 2})
        assert second.json()["cookie"] == ""  # another client's request does not carry the first one's cookie
    text = cassette.read_text()
    assert SECRET not in text and "upstream-session" not in text
    assert stat.S_IMODE(cassette.stat().st_mode) == 0o600  # prompts and answers: readable by their owner only


# What a client may send as secrets, each where a client sends it, and what it sends that is no secret.
COOKIES = "session_id=s3ss10nV4lueZ; auth=k9x2; consent=true; theme=dark; tracking=abcdef0123456789"
SENT_SECRETS = ("s3ss10nV4lueZ", "k9x2", "abcdef0123456789", "AIzaQueryKey0123", "second-key-val", "goog-header-k3y")


def echoing_everything() -> Any:
    """An upstream that answers with everything it was sent (cookies, query, headers, body) in JSON strings,
    beside JSON words and numbers, whole or as a stream of events, and sets a session cookie."""
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    async def answer(request: Request) -> Response:
        sent = (await request.body()).decode()
        echo: dict[str, Any] = {"cookie": request.headers.get("cookie", ""), "query": str(request.query_params)}
        echo["body"] = sent
        echo |= {"headers": dict(request.headers), "consent": True, "count": 12345678}
        cookie = {"set-cookie": "upstream_sid=UpstreamSession42; Path=/; HttpOnly"}
        if json.loads(sent).get("stream"):

            async def events() -> Any:
                for i in range(3):
                    yield f"data: {json.dumps(echo | {'i': i})}\n\n"
                yield "data: [DONE]\n\n"

            return StreamingResponse(events(), media_type="text/event-stream", headers=cookie)
        return Response(json.dumps(echo), media_type="application/json", headers=cookie)

    return Starlette(routes=[Route("/{path:path}", answer, methods=["POST"])])


@pytest.mark.parametrize("stream", [False, True], ids=["whole", "stream"])
def test_no_secret_a_client_sent_reaches_disk_and_short_values_leave_json_whole(tmp_path: Path, stream: bool) -> None:
    """A cookie value echoed in the upstream's answer was written to the cassette. Every secret value a client
    sent is redacted wherever it appears (request, response, headers, bodies, streamed or not); a short cookie
    value that is also a JSON word (`consent=true`) is none, and inside JSON only strings are ever touched."""
    cassette = tmp_path / "secrets.yaml"
    for upstream in serve_app(echoing_everything()):
        for proxy in serve_app(recorder.Recorder(upstream.base_url, cassette, "all"), **recorder.SERVER_OPTIONS):
            with httpx2.Client(base_url=proxy.base_url, timeout=10) as client:
                asked = {"model": "m", "stream": stream, "messages": [{"role": "user", "content": "hi true 1"}]}
                answer = client.post(
                    "/v1/chat/completions?key=AIzaQueryKey0123&api_key=second-key-val",
                    json=asked,
                    headers={
                        "cookie": COOKIES,
                        "x-goog-api-key": "goog-header-k3y",
                        "authorization": f"Bearer {SECRET}",
                    },
                )
                assert "s3ss10nV4lueZ" in answer.text  # the client sees what the upstream sent, as it sent it
    text = cassette.read_text()
    for secret in (*SENT_SECRETS, SECRET, "UpstreamSession42"):
        assert secret not in text
    assert "REDACTED" in text
    (recorded,) = recordings.read(cassette)
    assert json.loads(recorded.request) == asked  # nothing in the request body was a secret
    if stream:
        lines = [line[6:] for line in recorded.body.decode().split("\n") if line.startswith("data: {")]
        assert len(lines) == 3
        echoed = [json.loads(line) for line in lines][-1]  # each event still JSON
    else:
        echoed = json.loads(recorded.body)
    assert echoed["consent"] is True and echoed["count"] == 12345678  # JSON words and numbers untouched
    assert "consent=true; theme=dark" in echoed["cookie"] and "session_id=REDACTED" in echoed["cookie"]
    assert echoed["query"] == "key=REDACTED&api_key=REDACTED"
    assert json.loads(echoed["body"]) == asked
    assert len(recordings.load([cassette])) == 1


def test_the_recorder_refuses_paths_outside_the_api_and_oversized_bodies(
    echoing: tuple[Server, Path, list[str]],
) -> None:
    """`/v1/../_emulator/requests` reached the upstream's admin API, and was recorded."""
    proxy, cassette, seen = echoing
    with socket.create_connection((proxy.host, proxy.port), timeout=10) as sock:  # as sent, not normalised
        sock.sendall(b"GET /v1/../_emulator/requests HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n")
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 404") and b"unknown_url" in answer
    with httpx2.Client(base_url=proxy.base_url, timeout=30) as client:
        too_big = client.post("/v1/chat/completions", content=b"x" * (recorder.MAX_BODY + 1))
    assert too_big.status_code == 413
    assert seen == [] and not cassette.exists()


def interaction(i: int) -> tuple[Any, ...]:
    """What the recorder hands `Tape.add`: request (method, uri, body, headers), response, pacing."""
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": f"question {i}"}]})
    response = {"status": {"code": 200, "message": "OK"}, "headers": {"content-type": ["application/json"]}}
    response["body"] = {"string": json.dumps({"answer": i})}
    return ("POST", "http://up/v1/chat/completions", body, {}, response, {"headers_after": 0.01, "event_gaps": []})


def test_the_recorder_appends_each_interaction_at_a_constant_cost(tmp_path: Path) -> None:
    """Saving rewrote the whole cassette on every interaction: 10.7 ms at first, 147 ms after 632."""
    cassette = tmp_path / "long.yaml"
    tape = recordings.Tape(cassette)

    def timed(first: int, count: int) -> float:
        started = time.perf_counter()
        for i in range(first, first + count):
            tape.add(*interaction(i))
        return time.perf_counter() - started

    early = timed(0, 20)
    timed(20, 400)
    late = timed(420, 20)
    assert late < 4 * early + 0.05  # a rewrite would make the 421st save twenty times the first
    text = cassette.read_text()
    assert text.startswith("version: 1\ninteractions:\n") and text.count("\n- ") == 440
    held = recordings.load([cassette])
    assert len(held) == 440 and held.find("POST", "/v1/chat/completions", interaction(439)[2].encode())
    loaded = Cassette.load(path=str(cassette), record_mode="none")  # vcrpy reads it, the pacing key ignored
    assert len(loaded) == 440
    assert recordings.Tape(cassette).loaded == 440


def test_a_cassette_in_the_older_layout_is_rewritten_once_then_appended_to(tmp_path: Path) -> None:
    older = tmp_path / "chat-stream.yaml"
    older.write_text((REPO / "recordings" / "chat-stream.yaml").read_text())
    before = [(r.request, r.body, r.event_gaps) for r in recordings.read(older)]
    assert "metadata:" in older.read_text()
    tape = recordings.Tape(older)
    assert "metadata:" not in older.read_text() and older.read_text().startswith("version: 1\ninteractions:\n")
    tape.add(*interaction(1))
    after = [(r.request, r.body, r.event_gaps) for r in recordings.read(older)]
    assert after[: len(before)] == before and len(after) == len(before) + 1  # pacing kept, one more


def test_an_interaction_cut_short_while_written_is_left_out_with_a_warning(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    cassette = tmp_path / "cut.yaml"
    tape = recordings.Tape(cassette)
    for i in range(3):
        tape.add(*interaction(i))
    whole = cassette.read_text()
    cassette.write_text(whole[: whole.rindex("\n- ") + 80])  # the recorder killed mid-write
    with caplog.at_level("WARNING"):
        assert len(recordings.load([cassette])) == 2
    assert "its last interaction is incomplete" in caplog.text


def tool_turn(result: str) -> Any:
    """A chat conversation one tool step in: the call, then what the tool printed."""
    call = {"id": "call_1", "type": "function", "function": {"name": "exec_command", "arguments": '{"cmd": "ls"}'}}
    return [
        {"role": "user", "content": "list the files"},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": "call_1", "content": result},
    ]


def test_an_agent_step_replays_when_only_what_its_tool_printed_differs(chain: Chain, make_server: Any) -> None:
    """Codex's tool output carries `Chunk ID:` and `Wall time:` lines that change on every run: the second
    step matched neither exactly nor as the same conversation, and replay fell through to the default."""
    with chain.recorder.openai(api_key=SECRET) as client:
        recorded = client.chat.completions.create(
            model="plain-text", messages=tool_turn("Chunk ID: 290e19\nWall time: 0.0031 seconds\nhello.txt")
        )
    (held,) = [r.request for r in recordings.read(chain.cassette)]
    assert "Chunk ID: …" in held and "290e19" not in held and "0.0031 seconds" not in held  # scrubbed when written
    replayer = make_server(Settings(recordings=(chain.cassette,), strict=True))
    with replayer.openai() as client:
        raw = client.chat.completions.with_raw_response.create(
            model="plain-text", messages=tool_turn("Chunk ID: c2f8a4\nWall time: 0.0007 seconds\nhello.txt notes.md")
        )
        assert raw.headers["x-emulator-source"] == "recording recorded.yaml#0"
        assert raw.headers["x-emulator-match"] == "tool-results-differ"
        assert raw.parse().choices[0].message.content == recorded.choices[0].message.content
        again = client.chat.completions.with_raw_response.create(  # only Codex's volatile lines differ: scrubbed
            model="plain-text", messages=tool_turn("Chunk ID: c2f8a4\nWall time: 0.0007 seconds\nhello.txt")
        )
        assert again.headers["x-emulator-match"] == "exact"
        streamed = client.chat.completions.with_raw_response.create(
            model="plain-text",
            messages=tool_turn("Chunk ID: 290e19\nWall time: 0.0031 seconds\nhello.txt"),
            stream=True,
        )
        assert streamed.headers["x-emulator-match"] == "conversation"
        streamed.parse().close()
        with pytest.raises(openai.NotFoundError):  # another step entirely is still a miss
            client.chat.completions.create(model="plain-text", messages=[*tool_turn("x")[:2]])
    with urllib.request.urlopen(f"{replayer.base_url}/_emulator/requests", timeout=10) as response:
        tiers = [e["tier"] for e in json.load(response)["requests"]]
    assert tiers == ["tool-results-differ", "exact", "conversation", None]


def test_two_recorded_sessions_alike_but_for_their_tool_output_are_ambiguous(chain: Chain, make_server: Any) -> None:
    """A looser tier never picks a recording from another conversation: when two are that alike, it is a miss."""
    with chain.recorder.openai(api_key=SECRET) as client:
        for result in ("one file", "two files"):
            client.chat.completions.create(model="plain-text", messages=tool_turn(result))
    replayer = make_server(Settings(recordings=(chain.cassette,), strict=True))
    with replayer.openai() as client:
        assert (
            client.chat.completions.with_raw_response.create(
                model="plain-text", messages=tool_turn("two files")
            ).headers["x-emulator-match"]
            == "exact"
        )
        with pytest.raises(openai.NotFoundError):
            client.chat.completions.create(model="plain-text", messages=tool_turn("three files"))


def test_a_cassettes_own_scrubbers_are_written_once_and_applied_on_replay(tmp_path: Path, make_server: Any) -> None:
    upstream = make_server(Settings(scenarios=(SCENARIOS,)))
    cassette = tmp_path / "scrubbed.yaml"
    proxy = recorder.Recorder(upstream.base_url, cassette, "all", scrubs=[(r"build [0-9]+", "build N")])
    for through in serve_app(proxy, lifespan=True):
        with through.openai(api_key=SECRET) as client:
            for build in ("build 41", "build 42"):
                client.chat.completions.create(model="plain-text", messages=[{"role": "user", "content": build}])
    text = cassette.read_text()
    assert text.count("emulator_scrub") == 1 and "build 41" not in text
    assert [json.loads(r.request)["messages"][0]["content"] for r in recordings.read(cassette)] == ["build N"] * 2
    replayer = make_server(Settings(recordings=(cassette,), strict=True))  # no --scrub: the cassette's own
    with replayer.openai() as client:
        raw = client.chat.completions.with_raw_response.create(
            model="plain-text", messages=[{"role": "user", "content": "build 77"}]
        )
    assert raw.headers["x-emulator-match"] == "exact"
    with pytest.raises(SystemExit):
        cli_main(["serve", "--scrub", "(unclosed=>x"])


def test_a_miss_names_the_recording_of_the_same_conversation_and_its_first_difference(
    chain: Chain, make_server: Any, caplog: pytest.LogCaptureFixture
) -> None:
    """The nearest was chosen by raw body, so step 2 of a session was said to be nearest to step 1."""
    with chain.recorder.openai(api_key=SECRET) as client:
        client.chat.completions.create(model="plain-text", messages=tool_turn("A")[:1])  # step 1: #0
        client.chat.completions.create(model="plain-text", messages=tool_turn("hello.txt"))  # step 2: #1
    step3 = [*tool_turn("hello.txt notes.md"), {"role": "user", "content": "and now?"}]
    strict = make_server(Settings(recordings=(chain.cassette,), strict=True))
    with strict.openai() as client, pytest.raises(openai.NotFoundError) as caught:
        client.chat.completions.create(model="plain-text", messages=step3)
    assert (
        'nearest is recorded.yaml#1, which differs in body.messages[2].content: "hello.txt" vs "hello.txt notes.md"'
        in (caught.value.message)
    )
    lenient = make_server(Settings(recordings=(chain.cassette,)))
    with caplog.at_level("WARNING", logger="emulator.recordings"), lenient.openai() as client:
        for _ in range(2):
            raw = client.chat.completions.with_raw_response.create(model="plain-text", messages=step3)
            assert raw.headers["x-emulator-source"] == "default"
    assert caplog.text.count("no recording matches a request") == 1  # once per conversation
    with urllib.request.urlopen(f"{lenient.base_url}/_emulator/requests", timeout=10) as response:
        (first, _) = json.load(response)["requests"]
    assert first["nearest"].startswith("recorded.yaml#1, which differs in body.messages[2].content")


def test_the_recorder_passes_the_upstreams_date_and_server_headers_once(
    echoing: tuple[Server, Path, list[str]],
) -> None:
    """Through the recorder, a client saw two `date` and two `server` headers: the upstream's and uvicorn's. The
    upstream here is the emulator, whose server sends a `date` and no `server`: the recorder adds neither."""
    proxy, _, _ = echoing
    with socket.create_connection((proxy.host, proxy.port), timeout=10) as sock:
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-length: 2\r\nconnection: close\r\n\r\n{}"
        )
        answer = b""
        while chunk := sock.recv(65536):
            answer += chunk
    head = answer.split(b"\r\n\r\n", 1)[0].lower().split(b"\r\n")
    assert [line.split(b":")[0] for line in head].count(b"date") == 1
    assert [line.split(b":")[0] for line in head].count(b"server") == 0


def test_embeddings_azure_and_ollama_are_recorded_and_replayed(chain: Chain, make_server: Any) -> None:
    """The recorder forwards Azure's (`/openai/deployments/…?api-version=…`) and Ollama's (`/api/…`) paths as it
    does `/v1/`; a server given the cassette plays each back as recorded, an NDJSON stream included."""
    import ollama

    base = chain.recorder.base_url
    asked: Any = [{"role": "user", "content": "a question worth recording"}]
    with openai.OpenAI(base_url=f"{base}/v1", api_key=SECRET, max_retries=0) as client:
        vectors = client.embeddings.create(model="text-embedding-3-small", input="tide", encoding_format="float")
    azure = openai.AzureOpenAI(azure_endpoint=base, api_key=SECRET, api_version="2024-10-21", max_retries=0)
    with azure as client:
        deployed = client.chat.completions.create(model="dep", messages=asked).choices[0].message.content
    with ollama.Client(host=base) as local:
        streamed = "".join(p.message.content for p in local.chat(model="llama3.2", messages=asked, stream=True))
    text = chain.cassette.read_text()
    assert "/v1/embeddings" in text and "/openai/deployments/dep/chat/completions" in text and "/api/chat" in text
    assert not scan(chain.cassette)
    # `emulator conform`: each recorded answer against the emulator's own rendering of its request, by shape
    recorded = list(conformance.interactions("recorded", document_of(chain.cassette)))
    assert [conformance.profile_for(i, None) for i in recorded] == [None, "azure", "ollama"]
    for interaction, profile in zip(recorded, ["inferam", "azure", "ollama"], strict=True):
        assert conformance.conform(interaction, profile) == [], interaction.path
    chain.stop_upstream()
    replaying = make_server(Settings(recordings=(chain.cassette,), strict=True))
    with openai.OpenAI(base_url=f"{replaying.base_url}/v1", api_key="k", max_retries=0) as client:
        again = client.embeddings.create(model="text-embedding-3-small", input="tide", encoding_format="float")
    azure = openai.AzureOpenAI(azure_endpoint=replaying.base_url, api_key="k", api_version="2024-10-21", max_retries=0)
    with azure as client:
        assert client.chat.completions.create(model="dep", messages=asked).choices[0].message.content == deployed
    with ollama.Client(host=replaying.base_url) as local:
        assert "".join(p.message.content for p in local.chat(model="llama3.2", messages=asked, stream=True)) == streamed
    assert again.data[0].embedding == vectors.data[0].embedding


def test_a_full_disk_leaves_the_cassette_valid_and_recording_resumes(
    chain: Chain, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """A write that runs out of room partway (simulated: half the bytes written, then ENOSPC, as a nearly full
    filesystem does) is taken back: the cassette stays valid YAML with every earlier interaction, the client's
    connection is ended (its answer was not kept), the log says so in one line, and once there is room again the
    next interaction is appended."""
    import errno

    from emulator.recordings import tape

    def ask(text: str) -> str:
        with chain.recorder.openai() as client:
            return client.chat.completions.create(model="m", messages=[{"role": "user", "content": text}]).id

    ask("first")
    ask("second")
    before = chain.cassette.read_bytes()
    real_write = os.write

    def full(fd: int, data: Any) -> int:
        if Path(f"/proc/self/fd/{fd}").resolve() != chain.cassette.resolve():
            return real_write(fd, data)
        real_write(fd, bytes(data[: len(data) // 2]))
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(tape.os, "write", full)
    with pytest.raises(openai.APIConnectionError):
        ask("third, when the disk is full")
    monkeypatch.setattr(tape.os, "write", real_write)
    assert chain.cassette.read_bytes() == before  # all or nothing
    assert len(recordings.load([chain.cassette])) == 2
    (said,) = [r.getMessage() for r in caplog.records if "not saved" in r.getMessage()]
    assert "No space left on device" in said and "\n" not in said
    ask("fourth, with room again")
    assert len(recordings.load([chain.cassette])) == 3


def test_a_miss_over_a_large_library_finds_the_nearest_at_once() -> None:
    """Thirty thousand recordings: the nearest to a miss took over half a second, the loop answering nothing
    meanwhile. Indexed by route and by each prefix of the conversation, it costs what a small library's does:
    compared with a library of thirty, in the same run, within 20 times (holding at four times slower)."""
    from emulator.recordings.library import Library
    from emulator.recordings.matching import match_key
    from emulator.recordings.recording import Recording

    def library(size: int) -> Library:
        made = []
        for i in range(size):
            turns = [
                {"role": "user", "content": f"question {i} on topic {i % 97}"},
                {"role": "user", "content": f"more {i}"},
            ]
            body = json.dumps({"model": "m", "messages": turns})
            made.append(
                Recording(f"c.yaml#{i}", "POST", "/v1/chat/completions", match_key(body), body, 200, {}, b"{}", 0, ())
            )
        return Library(made)

    def miss(held: Library) -> tuple[float, str | None]:
        asked = {
            "model": "m",
            "messages": [{"role": "user", "content": "question 7 on topic 7"}, {"role": "user", "content": "x"}],
        }
        started = time.perf_counter()
        said = held.nearest_words("POST", "/v1/chat/completions", json.dumps(asked).encode())
        return time.perf_counter() - started, said

    small, large = library(30), library(30_000)
    baseline = min(miss(small)[0] for _ in range(5))
    took, said = min(miss(large) for _ in range(5))
    assert said is not None and said.startswith("c.yaml#7, which differs in body.messages[1].content")
    assert took < 20 * baseline + 0.01, (took, baseline)


def test_a_large_upstream_answer_is_recorded_holding_few_copies_of_it(tmp_path: Path) -> None:
    """A 200 MB answer cost the recorder 950 MB at its peak: its chunks, their join and its text were all held while
    the cassette was written. One at a time, the peak is the text and what YAML makes of it."""
    import tracemalloc

    piece = b'{"embedding": [' + b"0.0123456789, " * 70 + b"0.1]}, "
    count = 40_000_000 // len(piece) // 100 * 100
    size = len(piece) * count + len(b'{"data": [{}]}')

    async def big(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        headers = [(b"content-type", b"application/json"), (b"content-length", b"%d" % size)]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        await send({"type": "http.response.body", "body": b'{"data": [', "more_body": True})
        for _ in range(count // 100):
            await send({"type": "http.response.body", "body": piece * 100, "more_body": True})
        await send({"type": "http.response.body", "body": b"{}]}"})

    cassette = tmp_path / "big.yaml"
    for upstream in serve_app(big):
        for proxy in serve_app(recorder.Recorder(upstream.base_url, cassette, "all"), lifespan=True):
            tracemalloc.start()
            try:
                with httpx2.stream("POST", f"{proxy.base_url}/v1/embeddings", json={"input": "x"}, timeout=60) as got:
                    received = sum(len(chunk) for chunk in got.iter_bytes())
                peak = tracemalloc.get_traced_memory()[1]
            finally:
                tracemalloc.stop()
    assert received == size
    assert peak < 3.7 * size, peak / size  # 3.2: the text, and YAML's 2.2 while it writes; once all held: 4.2


def test_a_compressed_upstream_answer_reaches_the_client_and_the_cassette_decoded(tmp_path: Path) -> None:
    """An upstream that gzips despite `accept-encoding: identity`: the client got the compressed bytes without
    their `content-encoding`, and the cassette held them as text full of replacement characters."""
    import gzip

    answer = json.dumps({"id": "x", "object": "chat.completion", "note": "squeezed " * 50}).encode()

    async def gzipping(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        while (await receive()).get("more_body"):
            pass
        squeezed = gzip.compress(answer)
        headers = [(b"content-type", b"application/json"), (b"content-encoding", b"gzip")]
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [*headers, (b"content-length", b"%d" % len(squeezed))],
            }
        )
        await send({"type": "http.response.body", "body": squeezed})

    cassette = tmp_path / "gzip.yaml"
    for upstream in serve_app(gzipping):
        for proxy in serve_app(recorder.Recorder(upstream.base_url, cassette, "all"), lifespan=True):
            got = httpx2.post(f"{proxy.base_url}/v1/chat/completions", json={"model": "m"}, timeout=10)
    assert got.status_code == 200 and got.json()["note"].startswith("squeezed")
    assert "content-encoding" not in got.headers
    (recording,) = recordings.load([cassette]).recordings.values()
    assert json.loads(recording.body) == json.loads(answer)


def test_gemini_and_vertex_are_recorded_and_replay_in_another_family(chain: Chain, make_server: Any) -> None:
    """The recorder forwards Google's paths (`/v1beta/models/{model}:…`, Vertex's `…:rawPredict`) with their
    keys kept out of the cassette; a Gemini answer conforms, replays to google-genai, and answers the same
    conversation asked through Chat Completions."""
    from anthropic import AnthropicVertex
    from google import genai
    from google.genai import types

    key = "AIza" + "Xy9" * 11 + "Q1"  # shaped as Google's keys are
    base = chain.recorder.base_url
    declared = types.FunctionDeclaration(name="get_weather", parameters_json_schema={"type": "object"})
    config = types.GenerateContentConfig(
        tools=[types.Tool(function_declarations=[declared])],
        automatic_function_calling=types.AutomaticFunctionCallingConfig(disable=True),
    )
    options = types.HttpOptions(base_url=base, api_version="v1beta")
    # Real models, as the strict profiles' `conform` wants them; the upstream's scenarios picked by header.
    calling = config.model_copy(update={"http_options": types.HttpOptions(headers=scripted("two-calls"))})
    pacing = types.GenerateContentConfig(http_options=types.HttpOptions(headers=scripted("paced")))
    with genai.Client(api_key=key, http_options=options) as gemini:
        called = gemini.models.generate_content(model=FLASH, contents="hi", config=calling)
        streamed = [
            c.text or "" for c in gemini.models.generate_content_stream(model=FLASH, contents="hi", config=pacing)
        ]
    vertex = AnthropicVertex(
        region="us-east5",
        project_id="p",
        access_token=SECRET,
        base_url=f"{base}/v1",
        default_headers=scripted("plain-text"),
    )
    with vertex:
        said = vertex.messages.create(model=CLAUDE, max_tokens=100, messages=USER).content
    text = chain.cassette.read_text()
    assert ":generateContent" in text and ":streamGenerateContent" in text and ":rawPredict" in text
    assert key not in text and SECRET not in text and not scan(chain.cassette)
    recorded = list(conformance.interactions("recorded", document_of(chain.cassette)))
    assert [conformance.profile_for(i, None) for i in recorded] == ["gemini", "gemini", "vertex"]
    for interaction, profile in zip(recorded, ["gemini", "gemini", "vertex"], strict=True):
        assert conformance.conform(interaction, profile) == [], interaction.path
    chain.stop_upstream()
    replaying = make_server(Settings(recordings=(chain.cassette,), strict=True, replay_speed=0))
    options = types.HttpOptions(base_url=replaying.base_url, api_version="v1beta")
    with genai.Client(api_key="other", http_options=options) as gemini:
        again = gemini.models.generate_content(model=FLASH, contents="hi", config=config)
        assert [c.text or "" for c in gemini.models.generate_content_stream(model=FLASH, contents="hi")] == streamed
    calls = [(c.name, c.args) for c in called.function_calls or []]
    assert len(calls) == 2 and [(c.name, c.args) for c in again.function_calls or []] == calls
    with AnthropicVertex(region="us-east5", project_id="p", access_token="t", base_url=f"{replaying.base_url}/v1") as v:
        assert v.messages.create(model=CLAUDE, max_tokens=100, messages=USER).content == said
    with replaying.openai() as client:  # the same conversation in another family: Gemini's recording answers
        chat = client.chat.completions.with_raw_response.create(model=FLASH, messages=USER, tools=TOOLS)
    assert chat.headers["x-emulator-source"].startswith("recording recorded.yaml#0")
    made = chat.parse().choices[0].message.tool_calls or []
    assert [(c.function.name, json.loads(c.function.arguments)) for c in made] == calls


def test_bedrock_is_recorded_and_replays_in_another_family(chain: Chain, make_server: Any) -> None:
    """The recorder forwards Bedrock's `/model/{modelId}/…` (a whole answer and an event stream); its signature is
    not kept; a Converse answer conforms, replays to boto3, and answers the same conversation through Messages."""
    import boto3

    def runtime(base: str, scenario: str = "") -> Any:
        made = boto3.client(
            "bedrock-runtime",
            endpoint_url=base,
            region_name="us-east-1",
            aws_access_key_id="AKIDRECORDER",
            aws_secret_access_key=SECRET,
        )
        if scenario:  # the upstream's scenario, picked by header: the model is a real one, as `conform` wants

            def pick(request: Any, **_: Any) -> None:
                request.headers["x-emulator-scenario"] = scenario

            made.meta.events.register_first("before-sign.*.*", pick)
        return made

    asked = [{"role": "user", "content": [{"text": "hi"}]}]
    tools = {"tools": [{"toolSpec": {"name": "get_weather", "inputSchema": {"json": {"type": "object"}}}}]}
    with closing(runtime(chain.recorder.base_url, "two-calls")) as client:
        called = client.converse(modelId=BEDROCK_CLAUDE, messages=asked, toolConfig=tools)
    with closing(runtime(chain.recorder.base_url, "paced")) as client:
        streamed = [e for e in client.converse_stream(modelId=BEDROCK_CLAUDE, messages=asked)["stream"]]
    text = chain.cassette.read_text()
    assert f"/model/{BEDROCK_CLAUDE}/converse" in text and f"/model/{BEDROCK_CLAUDE}/converse-stream" in text
    assert SECRET not in text and "Signature=" not in text and not scan(chain.cassette)
    recorded = list(conformance.interactions("recorded", document_of(chain.cassette)))
    assert [conformance.profile_for(i, None) for i in recorded] == ["bedrock", "bedrock"]
    for interaction in recorded:
        assert conformance.conform(interaction, "bedrock") == [], interaction.path
    chain.stop_upstream()
    replaying = make_server(Settings(recordings=(chain.cassette,), strict=True, replay_speed=0))
    again = runtime(replaying.base_url)
    assert again.converse(modelId=BEDROCK_CLAUDE, messages=asked, toolConfig=tools)["output"] == called["output"]
    replayed = [e for e in again.converse_stream(modelId=BEDROCK_CLAUDE, messages=asked)["stream"]]
    assert [next(iter(e)) for e in replayed] == [next(iter(e)) for e in streamed]
    again.close()
    calls = [(b["toolUse"]["name"], b["toolUse"]["input"]) for b in called["output"]["message"]["content"]]
    with replaying.anthropic() as claude:  # the same conversation through Messages: Bedrock's recording answers
        message = claude.messages.with_raw_response.create(
            model=BEDROCK_CLAUDE, max_tokens=100, messages=USER, tools=MESSAGES_TOOLS
        )
    assert message.headers["x-emulator-source"].startswith("recording recorded.yaml#0")
    assert [(b.name, b.input) for b in message.parse().content if b.type == "tool_use"] == calls
