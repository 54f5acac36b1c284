"""The real Claude Code CLI (`claude -p`) against the emulator: a Bash tool turn that creates a file.

Claude Code is installed with npm, pinned to the version agent-clients.md verified, into a cache
directory under the running venv (the repository's `.venv` when `.ci/run` runs the tests; a pytest
temporary directory outside a venv), so only the first run downloads it. No npm: the test is skipped,
and says so; any other install failure fails it.

The emulator runs as the README starts it (`emulator serve` from the repository root: the bundled
`scenarios/`, loopback). Claude Code may talk to nothing else: `CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1`
as agent-clients.md runs it, and where we can (root, with `unshare` and `ip`), both processes also run
in a network namespace of their own with only loopback up, on the README's default port 8000.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from emulator import scenarios
from tests.conftest import BUNDLED

CLAUDE_VERSION = "2.1.197"  # the version agent-clients.md was verified with; bump both together
CLAUDE_PACKAGE = f"@anthropic-ai/claude-code@{CLAUDE_VERSION}"
REPO = BUNDLED.parent
SCENARIO = "claude-code-create-file"
PROMPT = "create a file named hello.txt containing hi"
INSTALL_TIMEOUT = 900  # seconds; the package pulls a native binary of about 250 MB
RUN_TIMEOUT = 180

# Run inside the namespace (or plainly): bring loopback up, start the emulator in the background with
# its log in a file, wait for its port, run Claude Code in the work dir with a minimal environment
# (agent-clients.md's command line), stop the emulator, exit with Claude Code's status. "$@" serves.
DRIVER = r"""
if [ "$NETNS" = 1 ]; then ip link set lo up || exit 90; fi
"$@" >"$LOG" 2>&1 &
emulator=$!
"$PYTHON" -c '
import socket, sys, time
deadline = time.monotonic() + 30
while True:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("the emulator did not open its port within 30 s")
        time.sleep(0.05)
' "$PORT" || { kill "$emulator"; wait "$emulator"; exit 91; }
(cd "$WORK" && exec env -i PATH="$CLAUDE_PATH" HOME="$CLAUDE_HOME_DIR" IS_SANDBOX=1 \
    ANTHROPIC_BASE_URL="http://127.0.0.1:$PORT" ANTHROPIC_API_KEY=sk-test \
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 \
    "$CLAUDE" -p "$PROMPT" --dangerously-skip-permissions --model some-model </dev/null)
status=$?
kill "$emulator"
wait "$emulator" 2>/dev/null  # uvicorn re-raises SIGTERM; no "Terminated" note
exit $status
"""


def _installed_version(claude: Path) -> str | None:
    if not claude.exists():
        return None
    try:
        result = subprocess.run([claude, "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


@pytest.fixture(scope="session")
def claude(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The `claude` launcher of the pinned version, installed on first use; skips only without npm."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"npm is not installed: the Claude Code CLI test installs {CLAUDE_PACKAGE} with it")
    in_venv = sys.prefix != sys.base_prefix
    root = Path(sys.prefix) / "share" / "emulator-tests" if in_venv else tmp_path_factory.mktemp("npm")
    root.mkdir(parents=True, exist_ok=True)
    prefix = root / f"claude-code-{CLAUDE_VERSION}"
    launcher = prefix / "node_modules" / ".bin" / "claude"
    wanted = f"{CLAUDE_VERSION} (Claude Code)"
    with open(root / f"claude-code-{CLAUDE_VERSION}.lock", "w") as lock:  # concurrent test runs install once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed_version(launcher) != wanted:
            shutil.rmtree(prefix, ignore_errors=True)
            command = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", CLAUDE_PACKAGE]
            shown = " ".join(command)
            try:
                result = subprocess.run(command, capture_output=True, timeout=INSTALL_TIMEOUT, check=False)
            except subprocess.TimeoutExpired as exc:
                output = (exc.stdout or b"") + (exc.stderr or b"")
                pytest.fail(f"`{shown}` did not finish in {INSTALL_TIMEOUT} s:\n{output.decode(errors='replace')}")
            if result.returncode != 0:
                output = result.stdout + result.stderr
                pytest.fail(f"`{shown}` failed ({result.returncode}):\n{output.decode(errors='replace')}")
            found = _installed_version(launcher)
            if found != wanted:
                pytest.fail(f"installed {CLAUDE_PACKAGE} into {prefix}, but `claude --version` says {found!r}")
    return launcher


def _netns() -> bool:
    """Whether `unshare -n` works here: root, `unshare` and `ip` present, and namespaces allowed."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return False
    probe = ["unshare", "-n", "ip", "link", "set", "lo", "up"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=30, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _final_answer() -> str:
    """The text of the scenario's last step: what Claude Code must print."""
    scenario = next(s for s in scenarios.load([BUNDLED]).scenarios if s.name == SCENARIO)
    text = scenario.steps[-1].text
    assert isinstance(text, str) and text
    return text


def _serve_command() -> list[str]:
    """The README's `emulator serve`: the venv's console script, or the module when it is missing."""
    script = Path(sys.executable).with_name("emulator")
    return [str(script), "serve"] if script.exists() else [sys.executable, "-m", "emulator", "serve"]


def test_claude_code_runs_the_bash_tool_and_answers(claude: Path, tmp_path: Path) -> None:
    netns = _netns()
    port = 8000 if netns else _free_port()  # a namespace of our own: the README's default port is free
    home = tmp_path / "home"
    home.mkdir()
    work = tmp_path / "work"
    work.mkdir()
    log = tmp_path / "emulator.log"
    serve = [*_serve_command(), *([] if netns else ["--port", str(port)])]
    environment = {
        "NETNS": "1" if netns else "0",
        "PYTHON": sys.executable,
        "PORT": str(port),
        "LOG": str(log),
        "WORK": str(work),
        "CLAUDE": str(claude),
        "CLAUDE_PATH": os.environ.get("PATH", os.defpath),
        "CLAUDE_HOME_DIR": str(home),
        "PROMPT": PROMPT,
    }
    # The emulator keeps this process's environment (its venv); Claude Code gets only what the driver passes.
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()} | environment
    command = [*(["unshare", "-n"] if netns else []), "sh", "-c", DRIVER, "driver", *serve]
    with subprocess.Popen(
        command,
        cwd=REPO,  # the README runs `emulator serve` from the repository root: ./scenarios
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,  # on a timeout the whole group goes: driver, emulator, Claude Code
    ) as process:
        try:
            out, err = process.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            pytest.fail(f"claude -p did not finish in {RUN_TIMEOUT} s\n{_report(out, err, log, netns)}")
    report = _report(out, err, log, netns)
    assert process.returncode == 0, f"claude -p exited with {process.returncode}\n{report}"
    hello = work / "hello.txt"
    assert hello.is_file(), f"Claude Code did not create hello.txt\n{report}"
    assert hello.read_text() == "hi\n", report
    assert out.strip() == _final_answer(), report
    requests = re.findall(r'"([A-Z]+ \S+) HTTP/1\.1" (\d+)', log.read_text())
    # Two streamed turns (the tool call, then the answer); a third POST would be Claude Code's
    # non-stream fallback, taken when it cannot read a stream. Its `HEAD /` probe ignores the status.
    assert [r for r in requests if r[0] != "HEAD /"] == [("POST /v1/messages?beta=true", "200")] * 2, report


def _report(out: str, err: str, log: Path, netns: bool) -> str:
    served = log.read_text(errors="replace") if log.exists() else "(no log)"
    return (
        f"(network namespace: {'yes' if netns else 'no'})\n"
        f"--- claude stdout\n{out}\n--- claude stderr\n{err}\n--- emulator log\n{served}"
    )
