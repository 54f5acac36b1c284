"""What the tests of real agent CLIs (Codex, Claude Code) share: installing one with npm, and running it
against the emulator.

An agent CLI is installed with npm, pinned, into a directory of its own under a root the test chooses,
so only the first run downloads it. No npm, or no way to the npm registry (offline): the test is skipped,
and says so; any other install failure fails it.

The emulator runs as the README starts it (`emulator serve` from the repository root: the bundled
`scenarios/`, loopback). Where we can (root, with `unshare` and `ip`), the emulator and the agent run
in a network namespace of their own with only loopback up, on the README's default port 8000; else
plainly, on a free port.
"""

from __future__ import annotations

import fcntl
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from emulator import scenarios
from tests.conftest import BUNDLED
from tests.side_venv import CACHE

REPO = BUNDLED.parent
INSTALL_TIMEOUT = 900  # seconds; the packages pull a native binary of some hundreds of MB
# npm's error codes when the registry cannot be reached at all (`npm error code ECONNREFUSED`): offline.
UNREACHABLE = re.compile(
    r"^npm (?:error|ERR!) code (ECONNREFUSED|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|ENETUNREACH|EHOSTUNREACH|ECONNRESET"
    r"|ERR_SOCKET_TIMEOUT)$",
    re.MULTILINE,
)

# Run inside the namespace (or plainly): bring loopback up, start the emulator in the background with
# its log in a file, wait for its port, run the agent (the fragment in {agent}: it runs in "$WORK" with
# a minimal environment), keep the emulator's journal (with previews) in "$JOURNAL", stop the emulator,
# and exit with the agent's status. "$@" serves.
DRIVER = r"""
if [ "$NETNS" = 1 ]; then ip link set lo up || exit 90; fi
"$@" >"$LOG" 2>&1 &
emulator=$!
"$PYTHON" -c '
import socket, sys, time
deadline = time.monotonic() + 120  # a start takes seconds; importing inflect alone took 20 s on a loaded 2-core machine
while True:
    try:
        socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("the emulator did not open its port within 120 s")
        time.sleep(0.05)
' "$PORT" || { kill "$emulator"; wait "$emulator" 2>/dev/null; exit 91; }
{agent}
status=$?
"$PYTHON" -c '
import sys, urllib.request
url = f"http://127.0.0.1:{sys.argv[1]}/_emulator/requests?preview=true"
sys.stdout.buffer.write(urllib.request.urlopen(url, timeout=30).read())
' "$PORT" >"$JOURNAL" || echo "could not read the journal" >&2
kill "$emulator"
wait "$emulator" 2>/dev/null  # no "Terminated" note, whatever ends it
exit $status
"""


def find_npm(tool: str, package: str) -> str:
    """The `npm` on PATH; without it the test is skipped, naming the tool and the package it needs."""
    npm = shutil.which("npm")
    if npm is None:
        pytest.skip(f"npm is not installed: the {tool} test installs {package} with it")
    return npm


def installed_version(launcher: Path) -> str | None:
    """What `launcher --version` prints, or None when it is missing or does not answer."""
    if not launcher.exists():
        return None
    try:
        result = subprocess.run([launcher, "--version"], capture_output=True, text=True, timeout=60, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return result.stdout.strip() if result.returncode == 0 else None


def npm_launcher(tool: str, package: str, *, directory: str, launcher: str, version: str) -> Path:
    """`npm_install` into the tests' cache, with the `npm` on PATH (skipped without one)."""
    return npm_install(
        find_npm(tool, package), package, root=CACHE, directory=directory, launcher=launcher, version=version
    )


def npm_install(npm: str, package: str, *, root: Path, directory: str, launcher: str, version: str) -> Path:
    """The launcher `root/directory/node_modules/.bin/<launcher>` of `package`, installed unless its
    `--version` already says `version`; under a lock, so concurrent test runs install once."""
    root.mkdir(parents=True, exist_ok=True)
    prefix = root / directory
    path = prefix / "node_modules" / ".bin" / launcher
    with open(root / f"{directory}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if installed_version(path) != version:
            shutil.rmtree(prefix, ignore_errors=True)
            install_into(npm, prefix, package)
            found = installed_version(path)
            if found != version:
                pytest.fail(f"installed {package} into {prefix}, but `{launcher} --version` says {found!r}")
    return path


def install_into(npm: str, prefix: Path, *packages: str) -> None:
    """`npm install` of `packages` into `prefix`: skipped when the registry cannot be reached, failed otherwise."""
    command = [npm, "install", "--prefix", str(prefix), "--no-audit", "--no-fund", *packages]
    shown = " ".join(command)
    try:
        result = subprocess.run(command, capture_output=True, timeout=INSTALL_TIMEOUT, check=False)
    except subprocess.TimeoutExpired as exc:
        output = (exc.stdout or b"") + (exc.stderr or b"")
        pytest.fail(f"`{shown}` did not finish in {INSTALL_TIMEOUT} s:\n{output.decode(errors='replace')}")
    if result.returncode != 0:
        said = (result.stdout + result.stderr).decode(errors="replace")
        offline = UNREACHABLE.search(said)
        if offline:
            pytest.skip(f"the npm registry cannot be reached ({offline[1]}): `{shown}` needs it once")
        pytest.fail(f"`{shown}` failed ({result.returncode}):\n{said}")


@cache
def netns() -> bool:
    """Whether `unshare -n` works here: root, `unshare` and `ip` present, and namespaces allowed."""
    if os.geteuid() != 0 or not shutil.which("unshare") or not shutil.which("ip"):
        return False
    probe = ["unshare", "-n", "ip", "link", "set", "lo", "up"]
    try:
        return subprocess.run(probe, capture_output=True, timeout=30, check=False).returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        return False


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def placement() -> tuple[bool, int]:
    """Whether to run in a network namespace, and the emulator's port there: in a namespace of our own
    the README's default port 8000 is free; plainly, a free one."""
    inside = netns()
    return inside, 8000 if inside else free_port()


def final_answer(scenario_name: str) -> str:
    """The text of the scenario's last step: what the agent must print."""
    scenario = next(s for s in scenarios.load([BUNDLED]).scenarios if s.name == scenario_name)
    text = scenario.steps[-1].text
    assert isinstance(text, str) and text
    return text


def serve_command() -> list[str]:
    """The README's `emulator serve`: the venv's console script, or the module when it is missing."""
    script = Path(sys.executable).with_name("emulator")
    return [str(script), "serve"] if script.exists() else [sys.executable, "-m", "emulator", "serve"]


@dataclass(frozen=True)
class Run:
    """How the agent's run ended: its status and output, the emulator's log, and all of it as a report."""

    returncode: int
    out: str
    err: str
    log: Path
    report: str

    def requests(self) -> list[tuple[str, str]]:
        """The requests the agent made, as the emulator logged them, in order: ("METHOD path", "status"); not
        the driver's own read of the journal."""
        logged = re.findall(r'"([A-Z]+ \S+) HTTP/1\.1" (\d+)', self.log.read_text())
        return [r for r in logged if not r[0].startswith("GET /_emulator/requests")]

    def journal(self) -> list[dict[str, Any]]:
        """The emulator's journal as the agent left it, oldest first, each entry with its `preview` (the
        prompt, the answer's first words, the tools it called)."""
        entries: list[dict[str, Any]] = json.loads(self.log.with_suffix(".journal.json").read_text())["requests"]
        return entries


def run(
    agent: str,
    environment: dict[str, str],
    *,
    serve: list[str],
    netns: bool,
    port: int,
    work: Path,
    log: Path,
    timeout: float,
    what: str,
    name: str,
) -> Run:
    """Run DRIVER with the shell fragment `agent` (which reads `environment`, and "$WORK", "$PORT") against
    `serve` (plus `--port` outside a namespace), from the repository root; fails the test after `timeout`
    seconds. `what` names the command in that failure, `name` the agent's output in the report."""
    serve = [*serve, *([] if netns else ["--port", str(port)])]
    shared = {
        "NETNS": "1" if netns else "0",
        "PYTHON": sys.executable,
        "PORT": str(port),
        "LOG": str(log),
        "JOURNAL": str(log.with_suffix(".journal.json")),
        "WORK": str(work),
    }
    # The emulator keeps this process's environment (its venv); the agent gets only what `agent` passes.
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()} | shared | environment
    driver = DRIVER.replace("{agent}", agent.strip())
    command = [*(["unshare", "-n"] if netns else []), "sh", "-c", driver, "driver", *serve]
    with subprocess.Popen(
        command,
        cwd=REPO,  # the README runs `emulator serve` from the repository root: ./scenarios
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        errors="replace",
        start_new_session=True,  # on a timeout the whole group goes: driver, emulator, agent
    ) as process:
        try:
            out, err = process.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            out, err = process.communicate()
            pytest.fail(f"{what} did not finish in {timeout} s\n{_report(name, out, err, log, netns)}")
    return Run(process.returncode, out, err, log, _report(name, out, err, log, netns))


def run_agent(
    agent: str,
    environment: dict[str, str],
    tmp_path: Path,
    *,
    placed: tuple[bool, int],
    work: Path,
    timeout: float,
    what: str,
    name: str,
    serve: list[str] | None = None,
    log: str = "emulator.log",
) -> Run:
    """`run` the agent in `work` against `serve` (the README's `emulator serve` unless given), placed as
    `placement()` said, its log `log` in `tmp_path`; fails the test unless the agent exits 0."""
    netns, port = placed
    done = run(
        agent,
        environment,
        serve=serve or serve_command(),
        netns=netns,
        port=port,
        work=work,
        log=tmp_path / log,
        timeout=timeout,
        what=what,
        name=name,
    )
    assert done.returncode == 0, f"{what} exited with {done.returncode}\n{done.report}"
    return done


# Prompts of our own that ask for nothing an agent would act on: a question, a list, a definition, a how-to,
# a poem. An agent CLI offers its shell and edit tools on every request; none of these may call one.
ORDINARY = (
    "What is the difference between a process and a thread?",
    "Suggest three names for a bakery that sells rye bread.",
    "Explain what a race condition is in two sentences.",
    "How do I convert a temperature from Celsius to Fahrenheit?",
    "Write a haiku about autumn rain.",
)


def in_turn(agent: str, prompts: tuple[str, ...]) -> tuple[str, dict[str, str]]:
    """`agent` run once for each prompt, one process each, against the one emulator, stopping at the first
    that fails: the driver fragment (each run's output in "$ANSWERS/N.out" and .err) and the variables
    ($PROMPT_N) it reads besides."""
    steps = [
        f'{{ PROMPT="$PROMPT_{n}"\n{agent.strip()} >"$ANSWERS/{n}.out" 2>"$ANSWERS/{n}.err"; }}'
        for n in range(1, len(prompts) + 1)
    ]
    return " &&\n".join(steps), {f"PROMPT_{n}": p for n, p in enumerate(prompts, 1)}


def offered(entry: dict[str, Any]) -> set[str]:
    """The names of the tools a journalled request offered (Chat's `function.name`, else `name`)."""
    tools = (entry.get("body") or {}).get("tools") or []
    return {t.get("name") or (t.get("function") or {}).get("name", "") for t in tools}


def check_ordinary(run: Run, answers: Path, *, shell_and_edit: set[str], prompts: tuple[str, ...] = ORDINARY) -> None:
    """After `in_turn(…, prompts)`: one request a prompt, in order, each offering the agent's shell and edit
    tools (`shell_and_edit`), none answered with a tool call, and each run's output holding its answer."""
    entries = run.journal()
    assert len(entries) == len(prompts), run.report
    for n, (prompt, entry) in enumerate(zip(prompts, entries, strict=True), 1):
        assert entry["status"] == 200 and json.dumps(prompt)[1:-1] in json.dumps(entry["body"]), run.report
        assert shell_and_edit <= offered(entry), f"{prompt!r}: offered {sorted(offered(entry))}"
        called = entry["preview"]["tools"]
        assert not called, f"{prompt!r} called {called}, of which shell or edit: {set(called) & shell_and_edit}"
        answer = entry["preview"]["answer"].rstrip("…").strip()
        assert answer, f"{prompt!r} got no answer\n{run.report}"
        said = (answers / f"{n}.out").read_text()
        assert " ".join(answer.split()[:6]) in " ".join(said.split()), f"{prompt!r}: printed {said!r}, not {answer!r}"


def _report(name: str, out: str, err: str, log: Path, netns: bool) -> str:
    where = f"(in a network namespace of its own: {'yes' if netns else 'no'})\n"
    served = log.read_text(errors="replace") if log.exists() else "(no log)"
    return f"{where}--- {name} stdout\n{out}\n--- {name} stderr\n{err}\n--- emulator log\n{served}"


# `emulator record` in front of an emulator serving the bundled scenarios, as one command for DRIVER: the
# recorder takes the port DRIVER waits on (`--port N` appended, else 8000), the upstream a free one. SIGTERM
# stops both. The cassette is $CASSETTE.
RECORD = r"""
import os, signal, socket, subprocess, sys, time
args = sys.argv[1:]
port = args[args.index("--port") + 1] if "--port" in args else "8000"
with socket.socket() as probe:
    probe.bind(("127.0.0.1", 0))
    upstream = str(probe.getsockname()[1])
serve = [sys.executable, "-m", "emulator", "serve", "--port", upstream, "--no-access-log"]
children = [subprocess.Popen(serve)]
deadline = time.monotonic() + 30
while True:
    try:
        socket.create_connection(("127.0.0.1", int(upstream)), timeout=1).close()
        break
    except OSError:
        if time.monotonic() > deadline:
            sys.exit("the upstream emulator did not start")
        time.sleep(0.05)
record = [sys.executable, "-m", "emulator", "record", "--upstream", "http://127.0.0.1:" + upstream]
children.append(subprocess.Popen([*record, "--out", os.environ["CASSETTE"], "--port", port]))
# The handler only signals: waiting in it on the child the main thread waits for would deadlock (Popen's lock).
signal.signal(signal.SIGTERM, lambda *_: [child.terminate() for child in children])
children[-1].wait()
for child in children:
    child.terminate()
    child.wait()
"""


def record_command() -> list[str]:
    """For `run`'s `serve`: the recorder in front of an emulator (RECORD), writing the cassette $CASSETTE."""
    return [sys.executable, "-c", RECORD]


def replay_command(cassette: Path, scenarios: Path) -> list[str]:
    """For `run`'s `serve`: replay only, from `cassette`, with no scenario of its own (`scenarios` is empty)."""
    return [*serve_command(), "--recordings", str(cassette), "--strict", "--scenarios", str(scenarios)]


def record_then_replay(
    agent: str,
    environment: dict[str, str],
    tmp_path: Path,
    *,
    placed: tuple[bool, int],
    timeout: float,
    what: str,
    name: str,
) -> tuple[Run, Run]:
    """Run `agent` through `emulator record` (RECORD) into a cassette, then again against `emulator serve
    --recordings … --strict` with no scenarios and the upstream gone, from another working directory (as
    another checkout or CI job would: the agents name it in their prompts, and the default scrubbers take it
    out). `placed`: `placement()`'s answer, which the agent's own configuration may name. Each run must exit 0
    and leave hello.txt holding "hi"; the two runs, recorded then replayed."""
    empty = tmp_path / "no-scenarios"
    empty.mkdir()
    cassette = tmp_path / "session.yaml"
    runs: list[Run] = []
    for serve, work in (
        (record_command(), tmp_path / "first"),
        (replay_command(cassette, empty), tmp_path / "again"),
    ):
        work.mkdir()
        done = run_agent(
            agent,
            environment | {"CASSETTE": str(cassette)},
            tmp_path,
            placed=placed,
            work=work,
            timeout=timeout,
            what=what,
            name=name,
            serve=serve,
            log=f"emulator-{len(runs)}.log",
        )
        assert (work / "hello.txt").read_text() == "hi\n", done.report
        runs.append(done)
    return runs[0], runs[1]


def environment(prefix: str, launcher: Path, home: Path, prompt: str) -> dict[str, str]:
    """What a driver's agent step reads, its variables named after the agent (`CODEX`, `CLAUDE`): the
    launcher, PATH, the agent's HOME and the prompt."""
    return {
        prefix: str(launcher),
        f"{prefix}_PATH": os.environ.get("PATH", os.defpath),
        f"{prefix}_HOME_DIR": str(home),
        "PROMPT": prompt,
    }
