"""The real Codex CLI (`codex exec`) against the emulator: a tool-calling turn that creates a file.

Codex is installed with npm, pinned to the version agent-clients.md verified, into a cache directory
outside the repository (`$XDG_CACHE_HOME` or `~/.cache`, then `emulator-tests/codex-<version>`), so only
the first run downloads it. No npm: the test is skipped, and says so; any other install failure fails it.

The emulator runs as the README starts it (`emulator serve` from the repository root: the bundled
`scenarios/`, loopback). Codex may talk to nothing else: its outbound extras are off in its config
(`[analytics]`, `[features] plugins`), and where we can (root, with `unshare` and `ip`), both processes
also run in a network namespace of their own with only loopback up, on the README's default port 8000.
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
from functools import cache
from pathlib import Path

import pytest

from emulator import scenarios
from tests.conftest import BUNDLED

CODEX_VERSION = "0.169.0"  # the version agent-clients.md was verified with; bump both together
CODEX_PACKAGE = f"@openai/codex@{CODEX_VERSION}"
REPO = BUNDLED.parent
SCENARIO = "codex-create-file"
PROMPT = "create a file named hello.txt containing hi"
INSTALL_TIMEOUT = 900  # seconds; the package with its native binary is about 400 MB
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

# Run inside the namespace (or plainly): bring loopback up, start the emulator in the background with
# its log in a file, wait for its port, run Codex in the work dir with a minimal environment, stop the
# emulator, and exit with Codex's status. The emulator's command line is "$@".
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
' "$PORT" || { kill "$emulator"; wait "$emulator" 2>/dev/null; exit 91; }
(cd "$WORK" && exec env -i PATH="$CODEX_PATH" HOME="$CODEX_HOME_DIR" EMU_API_KEY=sk-test \
    "$CODEX" exec --skip-git-repo-check --dangerously-bypass-approvals-and-sandbox "$PROMPT" </dev/null)
status=$?
kill "$emulator"
wait "$emulator" 2>/dev/null  # uvicorn re-raises SIGTERM; no "Terminated" note
exit $status
"""


def _cache_root() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "emulator-tests"


def _installed_version(codex: Path) -> str | None:
    if not codex.exists():
        return None
    try:
        result = subprocess.run([codex, "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


@pytest.fixture(scope="session")
def codex() -> Path:
    """The `codex` launcher of the pinned version, installed on first use; skips only without npm."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"npm is not installed: the Codex CLI test installs {CODEX_PACKAGE} with it")
    root = _cache_root()
    root.mkdir(parents=True, exist_ok=True)
    prefix = root / f"codex-{CODEX_VERSION}"
    launcher = prefix / "node_modules" / ".bin" / "codex"
    wanted = f"codex-cli {CODEX_VERSION}"
    with open(root / f"codex-{CODEX_VERSION}.lock", "w") as lock:  # concurrent test runs install once
        fcntl.flock(lock, fcntl.LOCK_EX)
        if _installed_version(launcher) != wanted:
            shutil.rmtree(prefix, ignore_errors=True)
            command = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", CODEX_PACKAGE]
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
                pytest.fail(f"installed {CODEX_PACKAGE} into {prefix}, but `codex --version` says {found!r}")
    return launcher


@cache
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
    """The text of the scenario's last step: what Codex must print."""
    scenario = next(s for s in scenarios.load([BUNDLED]).scenarios if s.name == SCENARIO)
    text = scenario.steps[-1].text
    assert isinstance(text, str) and text
    return text


def test_codex_exec_runs_a_tool_and_answers(codex: Path, tmp_path: Path) -> None:
    netns = _netns()
    port = 8000 if netns else _free_port()  # a namespace of our own: the README's default port is free
    codex_home = tmp_path / "home"
    (codex_home / ".codex").mkdir(parents=True)
    (codex_home / ".codex" / "config.toml").write_text(CONFIG.format(base_url=f"http://127.0.0.1:{port}/v1"))
    work = tmp_path / "work"
    work.mkdir()
    log = tmp_path / "emulator.log"
    serve = [sys.executable, "-m", "emulator", "serve", *([] if netns else ["--port", str(port)])]
    environment = {
        "NETNS": "1" if netns else "0",
        "PYTHON": sys.executable,
        "PORT": str(port),
        "LOG": str(log),
        "WORK": str(work),
        "CODEX": str(codex),
        "CODEX_PATH": os.environ.get("PATH", os.defpath),
        "CODEX_HOME_DIR": str(codex_home),
        "PROMPT": PROMPT,
    }
    # The emulator keeps this process's environment (its venv); Codex gets only PATH, HOME and its key.
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
        start_new_session=True,  # on a timeout the whole group goes: driver, emulator, Codex
    ) as process:
        try:
            out, err = process.communicate(timeout=RUN_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            pytest.fail(f"codex exec did not finish in {RUN_TIMEOUT} s\n{_report(out, err, log, netns)}")
    report = _report(out, err, log, netns)
    assert process.returncode == 0, f"codex exec exited with {process.returncode}\n{report}"
    hello = work / "hello.txt"
    assert hello.is_file(), f"Codex did not create hello.txt\n{report}"
    assert hello.read_text() == "hi\n", report
    assert out.strip() == _final_answer(), report
    requests = re.findall(r'"([A-Z]+ \S+) HTTP/1\.1" (\d+)', log.read_text())
    assert requests == [("POST /v1/responses", "200")] * 2, report


def _report(out: str, err: str, log: Path, netns: bool) -> str:
    where = f"(in a network namespace of its own: {'yes' if netns else 'no'})\n"
    served = log.read_text(errors="replace") if log.exists() else "(no log)"
    return f"{where}--- codex stdout\n{out}\n--- codex stderr\n{err}\n--- emulator log\n{served}"
