"""`emulator mcp` driven by the `mcp` SDK's own stdio client: the tools against a real emulator (the session's, or
one `--serve` starts), the resources against the docs, the token beyond loopback, standard output kept for MCP
frames; and Claude Code setting a fault through it, its model the emulator.

Each session starts `python -m emulator mcp` as an agent would, which costs a few seconds of imports: the tests
share sessions and check several things in each.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anthropic
import anyio
import openai
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from emulator import cli, scenarios
from emulator.core import yamlfile
from emulator.http.app import Settings, create_app
from emulator.http.background import Background
from emulator.mcp import controls, guides
from emulator.rules import faults, profiles
from tests import agent_cli, test_claude_code
from tests.conftest import RUN, Server

REPO = Path(__file__).parent.parent
DOCS = REPO / "docs"
TOOLS = {
    "set_fault",
    "set_timing",
    "clear_faults",
    "post_scenario",
    "list_scenarios",
    "list_requests",
    "get_request",
    "get_report",
    "reset",
    "base_urls",
}


@asynccontextmanager
async def session(*flags: str, env: dict[str, str] | None = None) -> AsyncIterator[ClientSession]:
    """An MCP client session with `emulator mcp FLAGS`, started over stdio by the SDK's client."""
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "emulator", "mcp", *flags],
        env={RUN: os.environ[RUN]} | (env or {}),  # the SDK passes a minimal environment, and these
        cwd=REPO,
    )
    async with stdio_client(params) as (read, write), ClientSession(read, write) as client:
        await client.initialize()
        yield client


def run(flags: list[str], body: Callable[[ClientSession], Awaitable[None]], **env: str) -> None:
    async def main() -> None:
        async with session(*flags, env=env) as client:
            await body(client)

    anyio.run(main)


async def ok(client: ClientSession, tool: str, **arguments: Any) -> Any:
    """The tool's result, which must not be an error; the structured one, and the text that says the same."""
    result = await client.call_tool(tool, arguments)
    text = result.content[0].text
    assert not result.is_error, f"{tool}({arguments}): {text}"
    assert json.loads(text) == result.structured_content
    return result.structured_content


async def refuse(client: ClientSession, tool: str, **arguments: Any) -> str:
    """The tool error's text, which the call must end in."""
    result = await client.call_tool(tool, arguments)
    assert result.is_error, f"{tool}({arguments}) was not refused: {result.content}"
    text: str = result.content[0].text
    return text


def status(base_url: str, test_id: str | None = None, **body: Any) -> int:
    """The status of one chat completion (no retries) at `base_url`."""
    client = openai.OpenAI(base_url=base_url, api_key="sk-test", max_retries=0, timeout=30)
    messages: Any = [{"role": "user", "content": body.pop("say", "Hi")}]
    headers = {"x-emulator-test-id": test_id} if test_id else {}
    try:
        client.chat.completions.create(model=body.pop("model", "m"), messages=messages, extra_headers=headers)
    except openai.APIStatusError as exc:
        return exc.status_code
    return 200


def test_the_tools_set_a_fault_a_timing_beside_it_and_clear_it(server: Server) -> None:
    test_id = "mcp-faults"

    async def body(client: ClientSession) -> None:
        listed = (await client.list_tools()).tools
        assert {t.name for t in listed} == TOOLS
        for tool in listed:
            assert tool.description and len(tool.description) > 40, tool.name
            assert tool.input_schema["type"] == "object" and tool.input_schema["additionalProperties"] is False
        await ok(client, "reset", test_id=test_id)
        urls = await ok(client, "base_urls", test_id=test_id)
        # Twice, then answered; the faulted requests are the test's (its base URL), not another's.
        set_ = await ok(client, "set_fault", spec="status=502", times=2, test_id=test_id)
        assert set_ == {"test_id": test_id, "spec": "status=502", "times": 2, "timing": None} | {
            "scenario": None,
            "lenient": False,
        }
        assert status(server.base_url + "/v1", "mcp-other") == 200
        assert [status(urls["openai"]) for _ in range(3)] == [502, 502, 200]
        # A fault for every request, a timing beside it: both hold, neither lost.
        await ok(client, "set_fault", spec="stream_error; after_events=1; status=529", test_id=test_id)
        both = await ok(client, "set_timing", spec="latency_ms=20; tokens_per_second=5000", test_id=test_id)
        assert both["spec"] == "stream_error; after_events=1; status=529" and both["times"] is None
        assert both["timing"] == "latency_ms=20; tokens_per_second=5000"
        again = await ok(client, "set_fault", spec="status=418", times=1, test_id=test_id)
        assert again["timing"] == both["timing"], "set_fault dropped the timing"
        assert status(urls["openai"]) == 418
        # Spent, the fault goes; clearing keeps the timing, which the next request is paced by.
        cleared = await ok(client, "clear_faults", test_id=test_id)
        assert cleared["spec"] is None and cleared["timing"] == both["timing"]
        assert status(urls["openai"]) == 200
        journal = await ok(client, "list_requests", test_id=test_id, limit=1)
        (last,) = journal["requests"]
        assert last["status"] == 200 and last["fault"] is None and "latency_ms=20" in json.dumps(last["timing"])
        emptied = await ok(client, "clear_faults", test_id=test_id)  # nothing set but the timing: it stays
        assert emptied["timing"] == both["timing"]

        # Bad arguments: tool errors naming the argument (and the fault's own key), nothing set.
        assert (await refuse(client, "set_fault", spec="status=abc", test_id=test_id)).startswith("spec.status:")
        assert (await refuse(client, "set_fault", spec="explode", test_id=test_id)).startswith("spec:")
        assert (await refuse(client, "set_fault", spec="truncate", test_id=test_id)).startswith("spec:")
        assert (await refuse(client, "set_fault", spec="status=503", times=0)).startswith("times:")
        assert (await refuse(client, "set_fault", spec="status=503", times="2")).startswith("times:")
        assert (await refuse(client, "set_fault", times=2)).startswith("spec: missing")
        assert (await refuse(client, "set_timing", spec="ttft=30")).startswith("spec.ttft:")
        assert (await refuse(client, "set_timing", spec="ttft_ms=-1")).startswith("spec.ttft_ms:")
        assert (await refuse(client, "set_timing", spec="ttft_ms=1", test="x")).startswith("test:")
        assert (await refuse(client, "list_requests", limit=0)).startswith("limit:")
        assert (await refuse(client, "base_urls", profile="mistral")).startswith("profile:")
        assert "No journal entry" in await refuse(client, "get_request", id=10**9)
        assert (await ok(client, "clear_faults", test_id=test_id))["timing"] == both["timing"]
        await ok(client, "reset", test_id=test_id)

    run([f"--url={server.base_url}"], body)


def test_scenarios_the_journal_the_report_and_reset(server: Server) -> None:
    test_id = "mcp-scenarios"

    async def body(client: ClientSession) -> None:
        await ok(client, "reset", test_id=test_id)
        urls = await ok(client, "base_urls", test_id=test_id, profile="anthropic")
        assert urls["anthropic"] == f"{server.base_url}/_t/{test_id}/anthropic"
        assert urls["openai"] == f"{server.base_url}/_t/{test_id}/anthropic/v1"
        assert urls["azure"] == urls["ollama"] == f"{server.base_url}/_t/{test_id}"  # their own paths: no profile
        plain = await ok(client, "base_urls")
        assert (plain["openai"], plain["anthropic"]) == (f"{server.base_url}/v1", server.base_url)

        # YAML text that matches a word; then an object, used for every request of the test.
        text = "name: mcp-lighthouse\nmatch: {last_user: lighthouse}\nreply: {text: The lamp is lit.}\n"
        assert (await ok(client, "post_scenario", scenario=text, test_id=test_id))["scenarios"] == ["mcp-lighthouse"]
        mistake = await refuse(client, "post_scenario", scenario={"name": "x", "reply": {"txt": "typo"}})
        assert "scenario.reply.txt: unknown key" in mistake
        named = [s["name"] for s in (await ok(client, "list_scenarios"))["scenarios"]]
        assert "mcp-lighthouse" in named and "haiku" in named
        ask = anthropic.Anthropic(base_url=urls["anthropic"], api_key="sk-test", max_retries=0, timeout=30)
        reply = ask.messages.create(
            model="claude-haiku-4-5", max_tokens=100, messages=[{"role": "user", "content": "Is the lighthouse on?"}]
        )
        assert reply.content[0].text == "The lamp is lit."
        used = {"name": "mcp-always", "reply": {"text": "Always this.", "finish_reason": "stop"}}
        posted = await ok(client, "post_scenario", scenario=used, test_id=test_id, use=True)
        assert posted["directions"]["scenario"] == "mcp-always"
        reply = ask.messages.create(
            model="claude-haiku-4-5", max_tokens=100, messages=[{"role": "user", "content": "?"}]
        )
        assert reply.content[0].text == "Always this."
        assert status(server.base_url + "/v1", test_id, say="A lighthouse?") == 200

        # The journal: all three, the newest N, after an id, one in full with its transcript.
        everything = await ok(client, "list_requests", test_id=test_id)
        ids = [e["id"] for e in everything["requests"]]
        assert len(ids) == 3 and everything["last"] == ids[-1]
        assert [e["source"] for e in everything["requests"]] == ["mcp-lighthouse", "mcp-always", "mcp-always"]
        newest = await ok(client, "list_requests", test_id=test_id, limit=2, bodies=False)
        assert [e["id"] for e in newest["requests"]] == ids[1:] and "body" not in newest["requests"][0]
        after = await ok(client, "list_requests", test_id=test_id, since=ids[0])
        assert [e["id"] for e in after["requests"]] == ids[1:]
        one = await ok(client, "get_request", id=ids[0], transcript=True)
        assert one["body"]["messages"][0]["content"] == "Is the lighthouse on?"
        assert one["transcript"]["answer"]["text"] == "The lamp is lit."

        # The report grades a client that met a 429 and did not retry.
        await ok(client, "set_fault", spec="status=429; retry_after=0", times=1, test_id=test_id)
        assert status(server.base_url + "/v1", test_id) == 429
        graded = await ok(client, "get_report", test_id=test_id)
        assert graded["faulted_requests"] == 1 and "verdict" in graded

        reset = await ok(client, "reset", test_id=test_id)
        assert reset == {"reset": True, "test_id": test_id}
        assert (await ok(client, "list_requests", test_id=test_id))["requests"] == []
        named = [s["name"] for s in (await ok(client, "list_scenarios"))["scenarios"]]
        assert "mcp-lighthouse" not in named and "mcp-always" not in named

    run([f"--url={server.base_url}"], body)


def test_resources_are_the_guides_and_name_every_tool_argument(server: Server) -> None:
    async def body(client: ClientSession) -> None:
        listed = (await client.list_resources()).resources
        assert [r.uri for r in listed] == [g.uri for g in guides.GUIDES]
        for guide in guides.GUIDES:
            (content,) = (await client.read_resource(guide.uri)).contents
            assert content.text == guide.text()
        faults_text = (await client.read_resource("emulator://faults")).contents[0].text
        assert all(f"`{kind}`" in faults_text for kind in faults.KINDS)

    run([f"--url={server.base_url}"], body)


def test_serve_starts_an_emulator_of_its_own() -> None:
    async def body(client: ClientSession) -> None:
        urls = await ok(client, "base_urls", test_id="served")
        assert re.fullmatch(r"http://127\.0\.0\.1:\d+/_t/served/v1", urls["openai"])
        await ok(client, "set_fault", spec="status=503", times=1, test_id="served")
        statuses = [status(urls["openai"], say="What is the weather in Lyon?") for _ in range(2)]
        assert statuses == [503, 200]
        # The bundled scenarios are served (run from the checkout: ./scenarios).
        assert "weather-agent" in [s["name"] for s in (await ok(client, "list_scenarios"))["scenarios"]]
        entries = (await ok(client, "list_requests", test_id="served"))["requests"]
        assert [e["status"] for e in entries] == [503, 200]

    run(["--serve"], body)


def test_standard_output_carries_mcp_frames_only(server: Server) -> None:
    """Raw, without the SDK's client: every line on standard output is a JSON-RPC message, the logs (a tool error
    among them) go to standard error."""
    frames = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "raw", "version": "0"}}},
        {"jsonrpc": "2.0", "method": "notifications/initialized"},
        {"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "set_fault", "arguments": {"spec": ""}}},
        {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {"name": "list_scenarios", "arguments": {}}},
    ]  # fmt: skip
    env = {k: v for k, v in os.environ.items() if k != "EMULATOR_ADMIN_TOKEN"}
    command = [sys.executable, "-m", "emulator", "mcp", "--url", server.base_url]
    with subprocess.Popen(
        command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO, env=env
    ) as process:
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write("".join(json.dumps(f) + "\n" for f in frames))
        process.stdin.flush()
        lines: list[str] = []
        # Both calls answered (the SDK may answer them out of turn: on a busy machine 3 came before 2); then EOF
        # ends it, and an answer still in flight when stdin closes would be lost.
        while not all(any(f'"id":{i}' in line.replace(" ", "") for line in lines) for i in (2, 3)):
            lines.append(process.stdout.readline())
            assert lines[-1], "standard output ended before the last answer"
        out, err = process.communicate(timeout=60)
    assert process.returncode == 0, err
    answers = [json.loads(line) for line in [*lines, *out.splitlines()]]
    assert all(a["jsonrpc"] == "2.0" for a in answers), answers
    by_id = {a["id"]: a for a in answers if "id" in a}
    assert by_id[2]["result"]["isError"] is True and by_id[2]["result"]["content"][0]["text"].startswith("spec")
    assert by_id[3]["result"]["structuredContent"]["scenarios"]
    assert f"driving the emulator at {server.base_url}" in err
    assert "set_fault: spec" in err


def test_the_admin_token_beyond_loopback() -> None:
    """An emulator bound beyond loopback (as far as its admin API knows) answers the tools with the token only."""
    token = "mcp-s3cret"
    app = create_app(Settings(host="0.0.0.0", admin_token=token))
    with Background(app) as remote:
        with pytest.raises(controls.ToolError, match=r"\(401\).*token"):
            controls.call(controls.Admin(remote.url), "reset", {})
        with pytest.raises(controls.ToolError, match=r"\(401\)"):
            controls.call(controls.Admin(remote.url, "wrong"), "reset", {})

        async def body(client: ClientSession) -> None:
            await ok(client, "set_fault", spec="status=503", test_id="remote")
            assert status(f"{remote.url}/v1", "remote") == 503
            assert (await ok(client, "reset"))["reset"] is True

        run([f"--url={remote.url}"], body, EMULATOR_ADMIN_TOKEN=token)
        run([f"--url={remote.url}", "--admin-token", token], body)


def test_an_emulator_that_is_not_there_is_a_tool_error() -> None:
    with pytest.raises(controls.ToolError, match="Could not reach the emulator at http://127.0.0.1:9 .*--serve"):
        controls.call(controls.Admin("http://127.0.0.1:9"), "list_scenarios", {})
    with pytest.raises(controls.ToolError, match="No tool named 'explode'"):
        controls.call(controls.Admin(), "explode", {})


def test_the_command_line(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("EMULATOR_ADMIN_TOKEN", "from-the-environment")
    args = cli.parser().parse_args(["mcp"])
    assert (args.url, args.admin_token, args.serve) == ("http://127.0.0.1:8000", "from-the-environment", False)
    args = cli.parser().parse_args(["mcp", "--url", "https://emu.example:9000", "--admin-token", "t", "--serve"])
    assert (args.url, args.admin_token, args.serve) == ("https://emu.example:9000", "t", True)
    with pytest.raises(SystemExit):
        cli.parser().parse_args(["mcp", "--url", "emu.example"])


def test_without_the_extra_it_says_how_to_get_it(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import emulator

    for name in [n for n in sys.modules if n.split(".")[0] in ("mcp", "mcp_types")]:
        monkeypatch.setitem(sys.modules, name, None)  # as if not installed: importing it fails
    monkeypatch.delitem(sys.modules, "emulator.mcp.stdio", raising=False)
    monkeypatch.delattr(emulator, "mcp_server", raising=False)
    assert cli.main(["mcp"]) == 1
    assert "pip install 'llm-emulator[mcp]'" in capsys.readouterr().err


# --- the resources agree with the docs ---------------------------------------------------------------------


def _table(doc: Path, header: str) -> list[list[str]]:
    """The rows of the markdown table under the heading row that starts with `header`, as cells."""
    lines = doc.read_text().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_the_fault_grammar_agrees_with_the_docs() -> None:
    rows = _table(DOCS / "faults.md", "| fault | parameters |")
    documented = {row[0].strip("`"): set(re.findall(r"`(\w+)`", row[1])) for row in rows}
    assert documented == {kind: set(parameters) for kind, (parameters, _) in faults.KINDS.items()}
    text = (DOCS / "faults.md").read_text()
    pacing = text[text.index("## Pacing") :]
    assert all(f"`{key}`" in pacing[:600] for key in faults.TIMING)
    assert all(re.search(f"`{key}[`=]", text) for key in faults.COMMON)
    grammar = guides.fault_grammar()
    for kind, (parameters, what) in faults.KINDS.items():
        line = next(line for line in grammar.splitlines() if line.startswith(f"| `{kind}` |"))
        assert all(f"`{p}`" in line for p in parameters) and what in line
    # Its examples are specs the admin API takes.
    for spec in re.findall(r"`([a-z_]+(?:=[^`;]+)?(?:; [a-z_]+=[^`;]+)*)`", grammar.split("Examples:")[1]):
        read = faults.timing if spec.startswith("ttft_ms") else faults.fault
        read(faults.split_spec(spec), "spec")


def test_the_scenario_format_agrees_with_the_parser_and_the_docs() -> None:
    tables = {
        "scenario": (guides.SCENARIO_KEYS, scenarios.SCENARIO_KEYS),
        "match": (guides.MATCH_KEYS, scenarios.MATCH_KEYS),
        "reply": (guides.REPLY_KEYS, scenarios.REPLY_KEYS),
        "tool call": (guides.CALL_KEYS, scenarios.CALL_KEYS),
    }
    for what, (explained, parsed) in tables.items():
        assert tuple(explained) == parsed, f"the {what} keys the guide explains are not the parser's"
    docs = (DOCS / "scenarios.md").read_text() + (DOCS / "profiles.md").read_text()
    for explained, _ in tables.values():
        for key in explained:
            assert re.search(rf"\b{key}:", docs), f"docs/scenarios.md shows no `{key}:`"
    text = guides.scenario_format()
    for document in guides.EXAMPLES.split("\n---\n"):
        (scenario,) = scenarios.parse(yamlfile.load(document))
        assert scenario.name in text
    assert scenarios.load([REPO / "scenarios"]).scenarios  # the bundled file the guide quotes is valid
    assert (REPO / "scenarios" / "examples.yaml").read_text() in text


def test_the_profiles_agree_with_the_docs() -> None:
    rows = _table(DOCS / "profiles.md", "| profile | endpoints |")
    assert [row[0].strip("`") for row in rows] == list(profiles.PROFILES)
    table = guides.profile_table()
    for row, (name, profile) in zip(rows, profiles.PROFILES.items(), strict=True):
        named = {"Chat Completions": profiles.CHAT, "Responses": profiles.RESPONSES, "Messages": profiles.MESSAGES}
        named |= {"Embeddings": profiles.EMBEDDINGS, "legacy Completions": profiles.COMPLETIONS}
        named |= {"`/api/chat`": profiles.OLLAMA_CHAT, "`/api/generate`": profiles.OLLAMA_GENERATE}
        named |= {"`/api/embed`": profiles.OLLAMA_EMBED, "`:generateContent`": profiles.GEMINI}
        named |= {"`:embedContent`": profiles.GEMINI_EMBED, "`converse`": profiles.BEDROCK_CONVERSE}
        named |= {"`invoke`": profiles.BEDROCK_INVOKE}
        assert {d for words, d in named.items() if words in row[1]} == set(profile.dialects), name
        line = next(line for line in table.splitlines() if line.startswith(f"| `{name}` |"))
        assert all(guides.ENDPOINTS[d] in line for d in profile.dialects)


# --- Claude Code sets a fault through `emulator mcp` -------------------------------------------------------

CLAUDE_TEST_ID = "from-claude"
CLAUDE_PROMPT = "Make the next request of test from-claude fail with a 503, once."
# The scenarios Claude Code's model follows: call the MCP tool (offered as mcp__emulator__set_fault), then answer.
CLAUDE_SCENARIO = f"""
scenarios:
  - name: claude-sets-a-fault
    match: {{tool: mcp__emulator__set_fault, last_user: {{contains: "fail with a 503, once"}}}}
    replies:
      - reasoning: The emulator's MCP tool sets faults, so I call it.
        tool_calls:
          - name: mcp__emulator__set_fault
            arguments: {{spec: "status=503", times: 1, test_id: {CLAUDE_TEST_ID}}}
      - text: The next request of {CLAUDE_TEST_ID} gets a 503.
  # Claude Code asks the model before its MCP servers are up, offering WaitForMcpServers, which waits a few
  # seconds each time: the model waits until the tool is offered.
  - name: claude-waits-for-the-tools
    match: {{tool: WaitForMcpServers, last_user: {{contains: "fail with a 503, once"}}}}
    reply:
      reasoning: The emulator's tools are still connecting, so I wait for them.
      tool_calls: [{{name: WaitForMcpServers, arguments: {{servers: [emulator]}}}}]
"""
# Claude Code with the MCP server, then (the emulator still up) the test's directions and the journal, into $WORK.
CLAUDE_AGENT = r"""
(cd "$WORK" && exec env -i PATH="$CLAUDE_PATH" HOME="$CLAUDE_HOME_DIR" IS_SANDBOX=1 \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-test \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 MCP_TIMEOUT=$MCP_TIMEOUT \
    "$CLAUDE" -p "$PROMPT" --dangerously-skip-permissions --model some-model \
    --mcp-config "$MCP_CONFIG" --strict-mcp-config </dev/null)
code=$?
read='import sys, urllib.request; print(urllib.request.urlopen(sys.argv[1]).read().decode())'
"$PYTHON" -c "$read" "http://127.0.0.1:$PORT/_emulator/faults?test_id=from-claude" >"$WORK/directions.json"
"$PYTHON" -c "$read" "http://127.0.0.1:$PORT/_emulator/requests" >"$WORK/journal.json"
(exit $code)
"""


claude = test_claude_code.claude  # the pinned CLI, installed on first use (skipped, saying why, without npm)


def test_claude_code_sets_a_fault_through_emulator_mcp(claude: Path, tmp_path: Path) -> None:
    netns, port = agent_cli.placement()
    home, work = tmp_path / "home", tmp_path / "work"
    home.mkdir()
    work.mkdir()
    scenario = tmp_path / "claude-mcp.yaml"
    scenario.write_text(CLAUDE_SCENARIO)
    script = Path(sys.executable).with_name("emulator")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "emulator"]
    server = {"command": command[0], "args": [*command[1:], "mcp", "--url", f"http://127.0.0.1:{port}"]}
    config = tmp_path / "mcp.json"
    config.write_text(json.dumps({"mcpServers": {"emulator": server}}))
    # MCP_TIMEOUT: how long Claude Code waits for the server to start (ms); `emulator mcp` imports the emulator's
    # modules first, which takes a few seconds of CPU, and many on a loaded machine.
    environment = agent_cli.environment("CLAUDE", claude, home, CLAUDE_PROMPT) | {
        "MCP_CONFIG": str(config),
        "MCP_TIMEOUT": "240000",
    }
    done = agent_cli.run(
        CLAUDE_AGENT,
        environment,
        serve=[*agent_cli.serve_command(), "--scenarios", str(scenario), "--scenarios", str(REPO / "scenarios")],
        netns=netns,
        port=port,
        work=work,
        log=tmp_path / "emulator.log",
        timeout=test_claude_code.RUN_TIMEOUT * 2,  # the MCP server's start-up beside Claude Code's
        what="claude -p with emulator mcp",
        name="claude",
    )
    assert done.returncode == 0, f"claude -p exited with {done.returncode}\n{done.report}"
    assert done.out.strip() == f"The next request of {CLAUDE_TEST_ID} gets a 503.", done.report
    directions = json.loads((work / "directions.json").read_text())
    assert directions["spec"] == "status=503" and directions["times"] == 1, done.report
    requests = [r for r in done.requests() if r[0] != "HEAD /"]
    # The model's turns (waiting for the tools while they are not offered, then the call), the tool's read
    # and post, the model's last turn, the test's own read of the faults.
    model = ("POST /v1/messages?beta=true", "200")
    # (`Run.requests` leaves out the driver's own read of the journal.)
    waits = len(requests) - 4  # the last of them answered with the call
    assert waits >= 1 and requests == [
        *[model] * waits,
        ("GET /_emulator/faults", "200"),
        ("POST /_emulator/faults", "201"),
        model,
        (f"GET /_emulator/faults?test_id={CLAUDE_TEST_ID}", "200"),
    ], done.report
    # What the tool answered went back to the model: the admin API's own answer (and the server's instructions).
    messages = json.loads((work / "journal.json").read_text())["requests"][-1]["body"]["messages"]
    blocks = [b for m in messages if isinstance(m["content"], list) for b in m["content"]]
    result = [b for b in blocks if b.get("type") == "tool_result"][-1]
    content = result["content"]
    text = content if isinstance(content, str) else "".join(b.get("text", "") for b in content)
    answered = {"test_id": CLAUDE_TEST_ID, "spec": "status=503", "times": 1, "timing": None, "scenario": None}
    assert not result.get("is_error") and json.loads(text) == answered | {"lenient": False}, done.report
    assert "set_fault and set_timing" in json.dumps(messages), done.report


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("spec", "status=503; " + "message=x" * 200_000, "spec: expected at most 1,000 characters"),
        ("test_id", "line\r\nbreak", "test_id: expected printable ASCII without spaces"),
        ("test_id", "ünïcode", "test_id: expected printable ASCII without spaces"),
    ],
)
def test_a_tools_string_arguments_are_bounded(name: str, value: str, said: str) -> None:
    schema = {"properties": {name: {"type": "string"}}, "required": []}
    with pytest.raises(controls.ToolError, match=said):
        controls.check(schema, {name: value})


def test_a_scenario_too_deep_or_too_large_is_refused_at_once() -> None:
    deep: dict[str, object] = {}
    node = deep
    for _ in range(100_000):  # nested far past any recursion limit: refused without recursing
        node["x"] = {}
        node = node["x"]  # type: ignore[assignment]
    schema = {"properties": {"scenario": {"type": ["string", "object"]}}, "required": []}
    with pytest.raises(controls.ToolError, match="scenario: nested more than 32 levels deep"):
        controls.check(schema, {"scenario": deep})
    with pytest.raises(controls.ToolError, match="scenario: larger than 1,000,000 bytes"):
        controls.check(schema, {"scenario": "name: x\n" + "# padding\n" * 200_000})
    assert controls.check(schema, {"scenario": {"name": "ok", "reply": {"text": "hi"}}})
