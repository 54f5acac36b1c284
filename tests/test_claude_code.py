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

# The driver's agent step: Claude Code in the work dir with a minimal environment (agent-clients.md's
# command line).
AGENT = r"""
(cd "$WORK" && exec env -i PATH="$CLAUDE_PATH" HOME="$CLAUDE_HOME_DIR" IS_SANDBOX=1 \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-test \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    "$CLAUDE" -p "$PROMPT" --dangerously-skip-permissions --model some-model </dev/null)
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


def test_claude_code_runs_the_bash_tool_and_answers(claude: Path, tmp_path: Path) -> None:
    netns, port = agent_cli.placement()
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    environment = agent_cli.environment("CLAUDE", claude, home, PROMPT)
    run = agent_cli.run(
        AGENT,
        environment,
        serve=agent_cli.serve_command(),
        netns=netns,
        port=port,
        work=work,
        log=tmp_path / "emulator.log",
        timeout=RUN_TIMEOUT,
        what="claude -p",
        name="claude",
    )
    assert run.returncode == 0, f"claude -p exited with {run.returncode}\n{run.report}"
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


def test_claude_code_asked_to_read_a_file_calls_read_with_its_path_and_answers_with_it(
    claude: Path, tmp_path: Path
) -> None:
    """No scenario answers this prompt: the default calls Claude Code's own Read tool with the file's absolute
    path (the working directory its system prompt gives, joined to the path the user wrote), and its answer
    quotes what the file holds; no Bash, Edit or Write on the way."""
    netns, port = agent_cli.placement()
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    (work / "notes").mkdir(parents=True)
    (work / "notes" / "plan.txt").write_text(PLAN + "\n")
    environment = agent_cli.environment("CLAUDE", claude, home, READ_PROMPT)
    run = agent_cli.run(
        AGENT,
        environment,
        serve=agent_cli.serve_command(),
        netns=netns,
        port=port,
        work=work,
        log=tmp_path / "emulator.log",
        timeout=RUN_TIMEOUT,
        what="claude -p",
        name="claude",
    )
    assert run.returncode == 0, f"claude -p exited with {run.returncode}\n{run.report}"
    assert PLAN in run.out, run.report
    assert sorted(p.name for p in work.rglob("*")) == ["notes", "plan.txt"], run.report  # nothing written
    requests = [r for r in run.requests() if r[0] != "HEAD /"]
    assert requests == [("POST /v1/messages?beta=true", "200")] * 2, run.report
