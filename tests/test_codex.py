"""The real Codex CLI (`codex exec`) against the emulator: a tool-calling turn that creates a file.

Codex is installed with npm, pinned to the version agent-clients.md verified, into a cache directory
outside the repository (`$XDG_CACHE_HOME` or `~/.cache`, then `emulator-tests/codex-<version>`), so only
the first run downloads it. No npm, or no way to the npm registry (offline): the test is skipped, and says so;
any other install failure fails it.

The emulator runs as the README starts it (`emulator serve` from the repository root: the bundled
`scenarios/`, loopback). Codex may talk to nothing else: its outbound extras are off in its config
(`[analytics]`, `[features] plugins`), and where we can (root, with `unshare` and `ip`), both processes
also run in a network namespace of their own with only loopback up, on the README's default port 8000.
The install and the run are in tests/agent_cli.py.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

import pytest

from tests import agent_cli

CODEX_VERSION = "0.169.0"  # the version agent-clients.md was verified with; bump both together
CODEX_PACKAGE = f"@openai/codex@{CODEX_VERSION}"
SCENARIO = "codex-create-file"
PROMPT = "create a file named hello.txt containing hi"
SESSION = "codex-create-and-read"  # three steps, for record-then-replay
SESSION_PROMPT = "create a file named hello.txt containing hi, then read it back"
RUN_TIMEOUT = 120

CONFIG = """\
model = "gpt-5"
model_provider = "emu"

[model_providers.emu]
name = "Emulator"
base_url = "{base_url}"
env_key = "EMU_API_KEY"
wire_api = "responses"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 15000

[analytics]
enabled = false

[features]
plugins = false
"""

# The driver's agent step: Codex in the work dir with only PATH, HOME and its key.
AGENT = r"""
(cd "$WORK" && exec env -i PATH="$CODEX_PATH" HOME="$CODEX_HOME_DIR" EMU_API_KEY=sk-test \
    "$CODEX" exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox "$PROMPT" </dev/null)
"""


@pytest.fixture(scope="session")
def codex() -> Path:
    """The `codex` launcher of the pinned version, installed on first use; skips only without npm."""
    return agent_cli.npm_launcher(
        "Codex CLI",
        CODEX_PACKAGE,
        directory=f"codex-{CODEX_VERSION}",
        launcher="codex",
        version=f"codex-cli {CODEX_VERSION}",
    )


def codex_home(tmp_path: Path, port: int) -> Path:
    """A HOME whose ~/.codex/config.toml points Codex at the emulator on `port`."""
    home = tmp_path / "home"
    (home / ".codex").mkdir(parents=True)
    (home / ".codex" / "config.toml").write_text(CONFIG.format(base_url=f"http://127.0.0.1:{port}/v1"))
    return home


def codex_run(
    agent: str, environment: dict[str, str], tmp_path: Path, placed: tuple[bool, int], timeout: float = RUN_TIMEOUT
) -> tuple[agent_cli.Run, Path]:
    """`codex exec` (the driver fragment `agent`) in a new work dir against `emulator serve`; fails unless it
    exits 0. The run, and its work dir."""
    work = tmp_path / "work"
    work.mkdir()
    serve = [sys.executable, "-m", "emulator", "serve"]
    run = agent_cli.run_agent(
        agent,
        environment,
        tmp_path,
        placed=placed,
        work=work,
        timeout=timeout,
        what="codex exec",
        name="codex",
        serve=serve,
    )
    return run, work


def test_codex_exec_runs_a_tool_and_answers(codex: Path, tmp_path: Path) -> None:
    placed = agent_cli.placement()
    environment = agent_cli.environment("CODEX", codex, codex_home(tmp_path, placed[1]), PROMPT)
    run, work = codex_run(AGENT, environment, tmp_path, placed)
    hello = work / "hello.txt"
    assert hello.is_file(), f"Codex did not create hello.txt\n{run.report}"
    assert hello.read_text() == "hi\n", run.report
    assert run.out.strip() == agent_cli.final_answer(SCENARIO), run.report
    assert run.requests() == [("POST /v1/responses", "200")] * 2, run.report


def test_a_recorded_codex_session_replays_offline(codex: Path, tmp_path: Path) -> None:
    """Recorded once through `emulator record`, a three-step task replays under `--strict` with the upstream
    gone, from another working directory: the same file, the same answer, every answer from the recording
    (its tool output's chunk id and wall time, and its environment context, are scrubbed)."""
    placed = agent_cli.placement()
    environment = agent_cli.environment("CODEX", codex, codex_home(tmp_path, placed[1]), SESSION_PROMPT)
    recorded, replayed = agent_cli.record_then_replay(
        AGENT, environment, tmp_path, placed=placed, timeout=RUN_TIMEOUT, what="codex exec", name="codex"
    )
    assert replayed.out.strip() == recorded.out.strip() == agent_cli.final_answer(SESSION), replayed.report
    assert replayed.requests() == [("POST /v1/responses", "200")] * 3, replayed.report  # strict: a miss is a 404


def test_codex_calls_no_shell_or_edit_tool_for_ordinary_prompts(codex: Path, tmp_path: Path) -> None:
    """Five prompts of our own that ask for nothing to be done, one `codex exec` each against one emulator,
    with Codex's real tool list (`exec_command`, which runs and edits, and `write_stdin` on every request): each is one
    request, answered in words with no tool called, and each run prints its answer."""
    placed = agent_cli.placement()
    (answers := tmp_path / "answers").mkdir()
    turns, prompts = agent_cli.in_turn(AGENT, agent_cli.ORDINARY)
    environment = agent_cli.environment("CODEX", codex, codex_home(tmp_path, placed[1]), "")
    environment |= prompts | {"ANSWERS": str(answers)}
    run, work = codex_run(turns, environment, tmp_path, placed, timeout=len(prompts) * RUN_TIMEOUT)
    agent_cli.check_ordinary(run, answers, shell_and_edit={"exec_command", "write_stdin"})
    assert list(work.iterdir()) == [], run.report  # nothing written


# Greetings and small talk: with Codex's tools on offer (`view_image` among them, and a working directory in its
# environment context), a reply in words, no tool called: "say hi" once viewed the working folder as an image.
GREETINGS = ("say hi", "Hey, how are you?", "thanks, that's all")


def test_codex_answers_a_greeting_in_words_with_no_tool_call(codex: Path, tmp_path: Path) -> None:
    placed = agent_cli.placement()
    (answers := tmp_path / "answers").mkdir()
    turns, prompts = agent_cli.in_turn(AGENT, GREETINGS)
    environment = agent_cli.environment("CODEX", codex, codex_home(tmp_path, placed[1]), "")
    environment |= prompts | {"ANSWERS": str(answers)}
    run, work = codex_run(turns, environment, tmp_path, placed, timeout=len(prompts) * RUN_TIMEOUT)
    agent_cli.check_ordinary(run, answers, shell_and_edit={"exec_command", "view_image"}, prompts=GREETINGS)
    assert list(work.iterdir()) == [], run.report


def test_offline_the_install_skips_and_says_why(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the npm registry out of reach (here a closed loopback port in its place), installing the agent
    skips its tests, naming npm's error, where it used to fail them with ECONNREFUSED. Claude Code's
    install is the same function."""
    npm = agent_cli.find_npm("Codex CLI", CODEX_PACKAGE)
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        registry = f"http://127.0.0.1:{closed.getsockname()[1]}/"
    environment = {"registry": registry, "fetch_retries": "0", "cache": str(tmp_path / "cache")}
    for key, value in environment.items():
        monkeypatch.setenv(f"npm_config_{key}", value)
    with pytest.raises(pytest.skip.Exception, match=r"the npm registry cannot be reached \(ECONNREFUSED\)"):
        agent_cli.npm_install(
            npm, CODEX_PACKAGE, root=tmp_path, directory="codex", launcher="codex", version=CODEX_VERSION
        )
