"""The real Claude Code CLI (`claude -p`) against the emulator: a Bash tool turn that creates a file.

Claude Code is installed with npm, pinned to the version agent-clients.md verified, into a cache
directory under the running venv (the repository's `.venv` when `.ci/run` runs the tests; a pytest
temporary directory outside a venv), so only the first run downloads it. No npm, or no way to the npm
registry (offline): the test is skipped, and says so; any other install failure fails it.

The emulator runs as the README starts it (`emulator serve` from the repository root: the bundled
`scenarios/`, loopback). Claude Code may talk to nothing else: `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`
as agent-clients.md runs it, and where we can (root, with `unshare` and `ip`), both processes also run
in a network namespace of their own with only loopback up, on the README's default port 8000.
The install and the run are in tests/agent_cli.py.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests import agent_cli

CLAUDE_VERSION = "2.1.197"  # the version agent-clients.md was verified with; bump both together
CLAUDE_PACKAGE = f"@anthropic-ai/claude-code@{CLAUDE_VERSION}"
SCENARIO = "claude-code-create-file"
PROMPT = "create a file named hello.txt containing hi"
SESSION = "claude-code-create-and-read"  # three steps, for record-then-replay
SESSION_PROMPT = "create a file named hello.txt containing hi, then read it back"
RUN_TIMEOUT = 180
# The public profile Claude Code targets, with a model of Anthropic's catalog.
PROFILES = pytest.mark.parametrize(
    "profile", [{}, {"CLAUDE_PROFILE": "/anthropic", "CLAUDE_MODEL": "claude-sonnet-4-5"}], ids=["default", "anthropic"]
)

# The driver's agent step: Claude Code in the work dir with a minimal environment (agent-clients.md's
# command line); $CLAUDE_PROFILE (e.g. `/anthropic`) and $CLAUDE_MODEL pick a profile and a model of its.
AGENT = r"""
(cd "$WORK" && exec env -i PATH="$CLAUDE_PATH" HOME="$CLAUDE_HOME_DIR" IS_SANDBOX=1 \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT${CLAUDE_PROFILE:-}" ANTHROPIC_API_KEY=sk-test \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    "$CLAUDE" -p "$PROMPT" --dangerously-skip-permissions --model "${CLAUDE_MODEL:-some-model}" </dev/null)
"""


@pytest.fixture(scope="session")
def claude(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `claude` launcher of the pinned version, installed on first use; skips only without npm."""
    npm = agent_cli.find_npm("Claude Code CLI", CLAUDE_PACKAGE)
    in_venv = sys.prefix != sys.base_prefix
    root = Path(sys.prefix) / "share" / "emulator-tests" if in_venv else tmp_path_factory.mktemp("npm")
    return agent_cli.npm_install(
        npm,
        CLAUDE_PACKAGE,
        root=root,
        directory=f"claude-code-{CLAUDE_VERSION}",
        launcher="claude",
        version=f"{CLAUDE_VERSION} (Claude Code)",
    )


def claude_run(
    agent: str, environment: dict[str, str], tmp_path: Path, work: Path, timeout: float = RUN_TIMEOUT
) -> agent_cli.Run:
    """`claude -p` (the driver fragment `agent`) in `work` against `emulator serve`; fails unless it exits 0."""
    placed = agent_cli.placement()
    return agent_cli.run_agent(
        agent, environment, tmp_path, placed=placed, work=work, timeout=timeout, what="claude -p", name="claude"
    )


def test_claude_code_runs_the_bash_tool_and_answers(claude: Path, tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    environment = agent_cli.environment("CLAUDE", claude, home, PROMPT)
    run = claude_run(AGENT, environment, tmp_path, work)
    hello = work / "hello.txt"
    assert hello.is_file(), f"Claude Code did not create hello.txt\n{run.report}"
    assert hello.read_text() == "hi\n", run.report
    assert run.out.strip() == agent_cli.final_answer(SCENARIO), run.report
    # Two streamed turns (the tool call, then the answer); a third POST would be Claude Code's
    # non-stream fallback, taken when it cannot read a stream. Its `HEAD /` probe ignores the status.
    requests = [r for r in run.requests() if r[0] != "HEAD /"]
    assert requests == [("POST /v1/messages?beta=true", "200")] * 2, run.report


def test_a_recorded_claude_code_session_replays_offline(claude: Path, tmp_path: Path) -> None:
    """Recorded once through `emulator record`, a three-step task replays under `--strict` with the upstream
    gone, from another working directory: the same file, the same answer, every answer from the recording."""
    placed = agent_cli.placement()
    home = tmp_path / "home"
    home.mkdir()
    environment = agent_cli.environment("CLAUDE", claude, home, SESSION_PROMPT)
    recorded, replayed = agent_cli.record_then_replay(
        AGENT, environment, tmp_path, placed=placed, timeout=RUN_TIMEOUT, what="claude -p", name="claude"
    )
    assert replayed.out.strip() == recorded.out.strip() == agent_cli.final_answer(SESSION), replayed.report
    posts = [r for r in replayed.requests() if r[0] != "HEAD /"]
    assert posts == [("POST /v1/messages?beta=true", "200")] * 3, replayed.report  # strict: a miss is a 404


READ_PROMPT = "Read notes/plan.txt and tell me what it says"
PLAN = "Ship the kiln firmware on Thursday; Wren reviews the UART patch."


@PROFILES
def test_claude_code_asked_to_read_a_file_calls_read_with_its_path_and_answers_with_it(
    claude: Path, tmp_path: Path, profile: dict[str, str]
) -> None:
    """No scenario answers this prompt: the default calls Claude Code's own Read tool with the file's absolute
    path (the working directory its system prompt gives, joined to the path the user wrote), and its answer
    quotes what the file holds; no Bash, Edit or Write on the way. Under the default profile and Anthropic's."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    (work / "notes").mkdir(parents=True)
    (work / "notes" / "plan.txt").write_text(PLAN + "\n")
    environment = agent_cli.environment("CLAUDE", claude, home, READ_PROMPT) | profile
    run = claude_run(AGENT, environment, tmp_path, work)
    assert PLAN in run.out, run.report
    assert sorted(p.name for p in work.rglob("*")) == ["notes", "plan.txt"], run.report  # nothing written
    base = profile.get("CLAUDE_PROFILE", "")
    requests = [r for r in run.requests() if r[0] != f"HEAD {base or '/'}"]  # its probe of the base URL
    path = f"POST {base}/v1/messages?beta=true"
    assert requests == [(path, "200")] * 2, run.report
    first, second = run.journal()
    assert first["preview"]["tools"] == ["Read"], run.report
    # The call as Claude Code sent it back: the path the user wrote, made absolute, and nothing else.
    (call,) = [
        b
        for m in second["body"]["messages"]
        if m["role"] == "assistant"
        for b in m["content"]
        if b["type"] == "tool_use"
    ]
    assert (call["type"], call["name"], call["input"]) == (
        "tool_use",
        "Read",
        {"file_path": str(work / "notes" / "plan.txt")},
    )
    assert second["preview"]["tools"] == [] and PLAN in second["preview"]["answer"], run.report


def test_claude_code_calls_no_shell_or_edit_tool_for_ordinary_prompts(claude: Path, tmp_path: Path) -> None:
    """Five prompts of our own that ask for nothing to be done, one `claude -p` each against one emulator, with
    Claude Code's real tool list (Bash, Edit, Write and the rest on every request): each is one request, answered
    in words with no tool called, and each run prints its answer."""
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    (answers := tmp_path / "answers").mkdir()
    work.mkdir()
    turns, prompts = agent_cli.in_turn(AGENT, agent_cli.ORDINARY)
    environment = agent_cli.environment("CLAUDE", claude, home, "") | prompts | {"ANSWERS": str(answers)}
    run = claude_run(turns, environment, tmp_path, work, timeout=len(prompts) * RUN_TIMEOUT)
    agent_cli.check_ordinary(run, answers, shell_and_edit={"Bash", "Edit", "Write", "NotebookEdit"})
    assert sorted(p.name for p in work.rglob("*")) == [], run.report  # nothing written
