"""The emulator against its peers and the bare stack, in one run: aimock (npm), LLMock and fakellm (PyPI).

Every server answers "hi" with "Hello", and a stream of `--tokens` tokens ("tok tok ...", one event per
token on every server) to "stream please". Every figure is also given as a ratio to the bare stack of the
same run: a bare Starlette endpoint on plain uvicorn with httptools and uvloop (bench/throughput.py's
baseline), replaying the emulator's own bytes. The servers take turns, round after round (A B C, B C A,
...), and each figure is the median of its rounds. Sections:

* non-stream: requests/s and latency p50/p99 (wrk --latency) at 1, 16 and 64 connections;
* unpaced streams, each dialect a server speaks: SSE events/s at 1 and 64 concurrent streams;
* paced fidelity: 500 and 1,000 concurrent paced streams, started together or spread over one second,
  measured by an asyncio client in processes of its own: time to first token and tokens/s against the script;
* the recorder: time to first byte through `emulator record` in front of an emulator, against it direct;
* scaling: `emulator serve --workers 2` against one worker, where this checkout has the flag; and the two workers
  with their state in Redis (`--state redis://…`, a redis-server of its own) against them in process.

The peers are installed into a scratch folder outside the repository (default ~/.cache/emulator-peers) the
first time, with npm and pip; a peer that fails to install or start is reported in the table, with why.

    python bench/peers.py                  # everything; about 11 minutes on 2 cores
    python bench/peers.py --quick          # one short round of each; about 3 minutes
    python bench/peers.py --only emulator,aimock --sections nonstream,streams --markdown
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import hashlib
import http.client
import json
import os
import re
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
import throughput as bench  # a script beside this one, not a package

HOST = bench.HOST
ROOT = bench.ROOT
SCRATCH = Path.home() / ".cache" / "emulator-peers"
PEERS = ("aimock", "llmock", "fakellm")
SECTIONS = ("nonstream", "streams", "paced", "recorder", "scaling")
WORD = "tok"  # one token on every server: the emulator cuts 4 characters a token, aimock 4 a chunk, the others a word
HELLO, STREAM, PACED = "hi", "stream please", "paced please"
COUNTED = " #N#"  # after wrk's prompts: post.lua counts the requests there, so that each body is a new one
AIMOCK = "node_modules/@copilotkit/aimock"
LOGGED = "emulator-logged"  # the emulator as `emulator serve` starts it: its access log on
STOCK = "emulator-uvicorn"  # the emulator's app on stock uvicorn (httptools, uvloop): what its own server buys
# The stock server: the emulator's app (the same wheel) under `uvicorn.run`, the bare stack's options.
STOCK_SCRIPT = """
import sys
from pathlib import Path
import uvicorn
from emulator.http.app import Settings, create_app
app = create_app(Settings(scenarios=tuple(Path(p) for p in sys.argv[2:])))
uvicorn.run(app, host="127.0.0.1", port=int(sys.argv[1]), http="httptools", loop="uvloop", lifespan="off",
            access_log=False, log_level="warning")
"""
EMULATOR_PEER = {"anthropic-version": "2023-06-01", "x-api-key": "sk-bench"}  # besides post.lua's Authorization


# --- what is asked, and of whom ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Dialect:
    name: str
    path: str

    def body(self, prompt: str, stream: bool) -> bytes:
        messages = [{"role": "user", "content": prompt}]
        if self.name == "responses":
            body: dict[str, Any] = {"model": "gpt-4o", "input": prompt}
        elif self.name == "messages":
            body = {"model": "claude-sonnet-4-5", "max_tokens": 4096, "messages": messages}
        else:
            body = {"model": "gpt-4o", "messages": messages}
        return json.dumps(body | ({"stream": True} if stream else {}), separators=(",", ":")).encode()


CHAT = Dialect("chat", "/v1/chat/completions")
DIALECTS = (CHAT, Dialect("responses", "/v1/responses"), Dialect("messages", "/v1/messages"))
HEADERS = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench", **EMULATOR_PEER}


@dataclass
class Server:
    """One server under test: where each dialect is served, or why it is not running."""

    name: str
    paths: dict[str, str]  # dialect name -> path, for the dialects it speaks
    port: int = 0
    ports: dict[str, int] = field(default_factory=dict)  # the baseline: a process per case
    problem: str = ""
    version: str = ""
    events: dict[str, int] = field(default_factory=dict)  # dialect -> SSE events in one stream of STREAM
    seconds: dict[str, float] = field(default_factory=dict)  # dialect -> how long that one stream took

    def port_for(self, case: str) -> int:
        return self.ports.get(case, self.port)


def _text(tokens: int) -> str:
    return " ".join([WORD] * tokens)


# --- installing and starting the peers -----------------------------------------------------------------------------


def _run(cmd: Sequence[str], timeout: float = 600) -> str:
    """Run an installer; its output's tail if it failed, else ""."""
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return str(exc)
    if done.returncode == 0:
        return ""
    lines = [line for line in (done.stderr + done.stdout).splitlines() if line.strip() and "WARNING" not in line]
    return f"`{' '.join(cmd[:3])} ...` exited {done.returncode}: " + " / ".join(lines[-3:])[:300]


def install(scratch: Path, names: Sequence[str]) -> dict[str, str]:
    """Install the peers that are missing from `scratch`; for each peer, why it could not be, or ""."""
    problems: dict[str, str] = {}
    if "aimock" in names and not (scratch / "aimock" / AIMOCK / "dist" / "cli.js").exists():
        if not (shutil.which("npm") and shutil.which("node")):
            problems["aimock"] = "node and npm are needed (apt-get install nodejs npm)"
        else:
            print(f"installing aimock into {scratch / 'aimock'} ...", file=sys.stderr, flush=True)
            problems["aimock"] = _run(["npm", "install", "--prefix", str(scratch / "aimock"), "@copilotkit/aimock"])
    venv = scratch / "venv"
    for name in ("llmock", "fakellm"):
        if name not in names or (venv / "bin" / name).exists():
            continue
        print(f"installing {name} into {venv} ...", file=sys.stderr, flush=True)
        python = shutil.which("python3") or sys.executable
        problems[name] = ("" if (venv / "bin" / "pip").exists() else _run([python, "-m", "venv", str(venv)])) or _run(
            [str(venv / "bin" / "pip"), "install", "-q", name]
        )
    return {name: problem for name, problem in problems.items() if problem}


# The emulator as measured: this checkout's wheel, compiled (setup.py), installed in a venv of the scratch folder and
# run from a folder without the checkout; the checkout itself runs beside it as `emulator-pure`.
EMULATOR = [sys.executable, "-m", "emulator"]
EMULATOR_CWD = [ROOT]


def compiled_python(scratch: Path) -> tuple[Path | None, str]:
    """The python of a venv in `scratch` holding this checkout's wheel, compiled, built once for each state of the
    sources (EMULATOR_COMPILED=1: a build that cannot compile fails); None and why, when it cannot be."""
    digest = hashlib.sha256()
    sources = [ROOT / "setup.py", ROOT / "pyproject.toml", *(ROOT / "emulator").rglob("*")]
    for path in sorted(p for p in sources if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".so"):
        digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    venv = scratch / "compiled" / digest.hexdigest()[:16]
    python = venv / "bin" / "python"
    if python.exists():
        return python, ""
    print(f"building the compiled wheel into {venv} (minutes) ...", file=sys.stderr, flush=True)
    wheels = Path(tempfile.mkdtemp(prefix="wheel-", dir=scratch))
    try:
        build = [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "--wheel-dir", str(wheels), str(ROOT)]
        built = subprocess.run(build, env=os.environ | {"EMULATOR_COMPILED": "1"}, capture_output=True, text=True)
        if built.returncode != 0:
            return None, f"the compiled build failed: {built.stderr.strip().splitlines()[-1:]}"
        subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
        purelib = subprocess.run(
            [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"], capture_output=True, text=True
        ).stdout.strip()
        Path(purelib, "borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n")  # this venv's packages
        install = [sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps", "--no-index"]
        installed = subprocess.run([*install, "--ignore-installed", *map(str, wheels.glob("*.whl"))], text=True)
        if installed.returncode != 0:
            shutil.rmtree(venv, ignore_errors=True)
            return None, "the compiled wheel did not install"
        return python, ""
    finally:
        shutil.rmtree(wheels, ignore_errors=True)


def _version(scratch: Path, name: str) -> str:
    try:
        if name == "aimock":
            return str(json.loads((scratch / "aimock" / AIMOCK / "package.json").read_text())["version"])
        python = scratch / "venv" / "bin" / "python"
        code = f"import importlib.metadata as m; print(m.version({name!r}))"
        return subprocess.run([str(python), "-c", code], capture_output=True, text=True, check=True).stdout.strip()
    except (OSError, KeyError, ValueError, subprocess.CalledProcessError):
        return "?"


def write_fixtures(run: Path, tokens: int, paced: Pacing) -> None:
    """Each server's own fixture: "hi" -> "Hello", STREAM -> `tokens` tokens, PACED -> `paced.tokens` tokens."""
    run.mkdir(parents=True, exist_ok=True)
    stream, slow = json.dumps(_text(tokens)), json.dumps(_text(paced.tokens))
    (run / "emulator.yaml").write_text(
        "scenarios:\n"
        f"  - {{name: bench-stream, match: {{last_user: {STREAM}}}, reply: {{text: {stream}}}}}\n"
        f"  - {{name: bench-paced, match: {{last_user: {PACED}}}, reply: {{text: {slow}}}}}\n"
        f'  - {{name: bench-hello, match: {{last_user: {{regex: "^{HELLO}( [0-9]+)?$"}}}}, reply: {{text: Hello}}}}\n'
    )
    # aimock: first match wins and userMessage is a substring, so "hi" goes last; chunks of 4 characters
    # are its tokens ("tok "), as the emulator's. Its pacing delays the role chunk by `ttft` and every
    # chunk after it by 1/tps, so the first token is due at ttft + 1/tps: asked for ttft - 1/tps.
    ttft = max(0.0, paced.ttft_ms - 1000 / paced.tps)
    fixtures = [
        {"match": {"userMessage": STREAM}, "response": {"content": _text(tokens)}, "chunkSize": 4},
        {
            "match": {"userMessage": PACED},
            "response": {"content": _text(paced.tokens)},
            "chunkSize": 4,
            "streamingProfile": {"ttft": ttft, "tps": paced.tps},
        },
        {"match": {"userMessage": HELLO}, "response": {"content": "Hello"}},
    ]
    (run / "aimock.json").write_text(json.dumps({"fixtures": fixtures}))
    (run / "fakellm.yaml").write_text(
        "version: 1\nrules:\n"
        f"  - {{name: stream, when: {{messages_contain: {STREAM}}}, respond: {{content: {stream}}}}}\n"
        f"  - {{name: hello, when: {{messages_contain: {HELLO}}}, respond: {{content: Hello}}}}\n"
    )


def _llmock_script(port: int, tokens: int) -> None:
    """LLMock matches no content: its scripted replies go by stream or not, forever (`times: null`)."""
    behaviors = [
        {"type": "reply", "text": "Hello", "match": {"stream": False}, "times": None},
        {"type": "reply", "text": _text(tokens), "match": {"stream": True}, "times": None},
    ]
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        conn.request("POST", "/_llmock/scenario", json.dumps({"behaviors": behaviors}), HEADERS)
        resp = conn.getresponse()
        if resp.status >= 300:
            raise RuntimeError(f"LLMock refused the scenario: {resp.status} {resp.read()[:200]!r}")
        resp.read()
    finally:
        conn.close()


def _post(port: int, path: str, body: bytes, headers: dict[str, str] = HEADERS) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        conn.request("POST", path, body=body, headers=headers)
        resp = conn.getresponse()
        return resp.status, resp.read()
    finally:
        conn.close()


def _capture(port: int, dialect: Dialect, prompt: str, stream: bool) -> bench.Captured:
    """The emulator's answer, bytes and headers, for the bare stack to replay."""
    conn = http.client.HTTPConnection(HOST, port, timeout=30)
    try:
        conn.request("POST", dialect.path, body=dialect.body(prompt, stream), headers=HEADERS)
        resp = conn.getresponse()
        body = resp.read()
    finally:
        conn.close()
    headers = {k.lower(): v for k, v in resp.getheaders()}
    if resp.status != 200:
        raise RuntimeError(f"the emulator answered {dialect.name} {prompt!r} with {resp.status}: {body[:300]!r}")
    kept = {k: v for k, v in headers.items() if k not in bench.SERVER_HEADERS}
    return bench.Captured(resp.status, headers.get("content-type", ""), kept, body)


def _events(body: bytes) -> list[bytes]:
    return [event for event in body.replace(b"\r\n", b"\n").split(b"\n\n") if event.strip()]


def _check(server: Server, tokens: int) -> None:
    """Ask each dialect the server speaks "hi" and STREAM once, with a real client; drop the dialects that do
    not answer as expected (noted in `problem`), and count each stream's SSE events."""
    dropped = []
    for dialect in DIALECTS:
        path = server.paths.get(dialect.name)
        if path is None:
            continue
        status, body = _post(server.port, path, dialect.body(HELLO, stream=False))
        started = time.monotonic()
        s_status, stream = _post(server.port, path, dialect.body(STREAM, stream=True))
        server.seconds[dialect.name] = time.monotonic() - started
        got = stream.count(WORD.encode())
        if status != 200 or b"Hello" not in body or s_status != 200 or got < tokens:
            dropped.append(f"{dialect.name}: {status}/{s_status}, {got} of {tokens} tokens")
            del server.paths[dialect.name]
            continue
        server.events[dialect.name] = len(_events(stream))
    if dropped:
        server.problem = "; ".join(dropped)


@dataclass(frozen=True)
class Pacing:
    ttft_ms: float
    tps: float
    tokens: int

    def header(self) -> str:
        return f"ttft_ms={self.ttft_ms:g}; tokens_per_second={self.tps:g}"


def start_all(
    servers: bench.Servers, scratch: Path, run: Path, names: Sequence[str], tokens: int, problems: dict[str, str]
) -> list[Server]:
    """The bare stack (one process per case, each replaying the emulator's bytes), the emulator and the peers."""
    all_paths = {d.name: d.path for d in DIALECTS}
    python, why = compiled_python(scratch)
    if python is not None:
        EMULATOR[:] = [str(python), "-m", "emulator"]  # the compiled wheel's, from a folder without the checkout
        EMULATOR_CWD[0] = run
    emulator = Server("emulator", dict(all_paths))
    emulator.version = "this checkout's wheel, compiled" if python else f"this checkout, pure ({why})"
    pure = Server("emulator-pure", dict(all_paths), version="this checkout, pure (editable)")
    # As a user starts it: the access log on, written to a file (the plain answers only).
    logged = Server(LOGGED, {"chat": CHAT.path}, version=f"{emulator.version}, access log on")
    for each in (emulator, logged, pure) if python else (emulator, logged):
        each.port = bench._free_port()
        own = each is not pure
        command, cwd = (EMULATOR, EMULATOR_CWD[0]) if own else ([sys.executable, "-m", "emulator"], ROOT)
        cmd = [*command, "serve", "--port", str(each.port), *([] if each is logged else ["--no-access-log"])]
        cmd += ["--scenarios", str(ROOT / "scenarios"), "--scenarios", str(run / "emulator.yaml")]
        servers.spawn(each.name, cmd, each.port, cwd=cwd, env=dict(os.environ))
        _check(each, tokens)
        if each.problem:
            raise RuntimeError(f"{each.name} does not answer as the benchmark expects: {each.problem}")

    stock = Server(STOCK, {"chat": CHAT.path}, version=f"{emulator.version}, its app on stock uvicorn")
    stock.port = bench._free_port()
    scenarios = [str(ROOT / "scenarios"), str(run / "emulator.yaml")]
    cmd = [EMULATOR[0], "-c", STOCK_SCRIPT, str(stock.port), *scenarios]
    servers.spawn(stock.name, cmd, stock.port, cwd=EMULATOR_CWD[0], env=dict(os.environ))
    _check(stock, tokens)

    baseline = Server("bare", dict(all_paths), version="starlette on uvicorn, httptools, uvloop")
    cases = [(CHAT, HELLO, False)] + [(dialect, STREAM, True) for dialect in DIALECTS]
    cases.append((CHAT, PACED, True))
    for dialect, prompt, stream in cases:
        spec = run / f"bare-{dialect.name}-{prompt.split()[0]}.json"
        captured = _capture(emulator.port, dialect, prompt, stream)
        spec.write_text(json.dumps(captured.spec() | {"path": dialect.path}))
        key = _case(dialect, prompt)
        port = baseline.ports[key] = servers.start(
            f"bare {key}", "baseline", "--spec", str(spec), *["--stream"] * stream
        )
        status, replayed = _post(port, dialect.path, dialect.body(prompt, stream))
        if status != 200 or replayed != captured.body:
            raise RuntimeError(f"the bare stack does not replay the emulator's {key}: {status} {replayed[:200]!r}")
    baseline.port = baseline.ports[_case(CHAT, HELLO)]
    baseline.events = dict(emulator.events)
    found = [baseline, emulator, logged, *([stock] if not stock.problem else []), *([pure] if python else [])]

    venv = scratch / "venv" / "bin"
    commands: dict[str, tuple[list[str], dict[str, str]]] = {
        "aimock": (
            ["node", str(scratch / "aimock" / AIMOCK / "dist" / "cli.js"), "-h", HOST, "-f", str(run / "aimock.json")]
            + ["--log-level", "silent", "-p"],
            dict(all_paths),
        ),
        "llmock": (
            [str(venv / "llmock"), "serve", "--host", HOST, "--log-level", "warning", "--port"],
            {"chat": CHAT.path, "responses": "/v1/responses", "messages": "/anthropic/v1/messages"},
        ),
        "fakellm": (
            [str(venv / "fakellm"), "serve", "--config", str(run / "fakellm.yaml"), "--host", HOST, "--port"],
            {"chat": CHAT.path, "messages": "/v1/messages"},
        ),
    }
    for name in PEERS:
        if name not in names:
            continue
        cmd, paths = commands[name]
        peer = Server(name, paths, problem=problems.get(name, ""), version=_version(scratch, name))
        found.append(peer)
        if peer.problem:  # not installed: nothing to measure
            peer.paths = {}
            continue
        try:
            peer.port = bench._free_port()
            servers.spawn(name, [*cmd, str(peer.port)], peer.port, cwd=run, env=dict(os.environ))
            if name == "llmock":
                _llmock_script(peer.port, tokens)
            _check(peer, tokens)
        except (RuntimeError, OSError, http.client.HTTPException) as exc:
            peer.problem, peer.paths = f"did not start: {str(exc).splitlines()[0][:200]}", {}
    return found


def _case(dialect: Dialect, prompt: str) -> str:
    return f"{dialect.name} {prompt.split()[0]}"


# --- load: wrk -----------------------------------------------------------------------------------------------------


@dataclass
class Run:
    rate: float  # responses/s
    p50: float  # ms
    p99: float  # ms
    errors: str = ""
    done: int = 0  # responses completed
    cpu: float = 0.0  # the server process's CPU time (user and system) a response, in microseconds; 0: unknown


_UNITS = {"us": 0.001, "ms": 1.0, "s": 1000.0}


def listener(port: int) -> int | None:
    """The process listening on `port` of 127.0.0.1 (Linux's /proc), None when it cannot be told."""
    try:
        inodes = {
            fields[9]
            for line in Path("/proc/net/tcp").read_text().splitlines()[1:]
            if (fields := line.split())[1].endswith(f":{port:04X}") and fields[3] == "0A"  # 0A: LISTEN
        }
        for pid in filter(str.isdigit, os.listdir("/proc")):
            with contextlib.suppress(OSError):
                if any(os.readlink(f"/proc/{pid}/fd/{fd}")[8:-1] in inodes for fd in os.listdir(f"/proc/{pid}/fd")):
                    return int(pid)
    except OSError:
        pass
    return None


def cpu_seconds(pid: int | None) -> float | None:
    """The CPU time (user and system) process `pid` has used, in seconds."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()
    except (OSError, TypeError):
        return None
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def wrk(port: int, path: str, body: bytes, connections: int, duration: float) -> Run:
    """`connections` keep-alive connections POSTing `body` for `duration` seconds, one wrk thread; with the CPU time
    the server listening on `port` spent a response (a figure the load generator's share of the cores moves less
    than requests/s)."""
    seconds = max(1, round(duration))
    pid = listener(port)
    before = cpu_seconds(pid)
    url = f"http://{HOST}:{port}"
    cmd = ["wrk", "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "10s", "--latency", "-s", str(bench.LUA)]
    extra = "".join(f"{k}: {v}\n" for k, v in EMULATOR_PEER.items())
    env = os.environ | {"BENCH_BODY": body.decode(), "BENCH_PATH": path, "BENCH_HEADERS": extra}
    out = subprocess.run([*cmd, url], env=env, capture_output=True, text=True, timeout=seconds + 60, check=False).stdout
    rate = re.search(r"Requests/sec:\s*([\d.]+)", out)
    if not rate:
        raise RuntimeError(f"wrk printed no Requests/sec:\n{out}")
    latency = {
        q: float(v) * _UNITS[unit] for q, v, unit in re.findall(r"^\s+(50|99)%\s+([\d.]+)(us|ms|s)\s*$", out, re.M)
    }
    errors = [line.strip() for line in out.splitlines() if "Non-2xx" in line or "Socket errors" in line]
    done = re.search(r"(\d+) requests in", out)
    p50, p99 = latency.get("50", 0.0), latency.get("99", 0.0)
    answered, after = int(done.group(1)) if done else 0, cpu_seconds(pid)
    cpu = (after - before) / answered * 1e6 if before is not None and after is not None and answered else 0.0
    return Run(float(rate.group(1)), p50, p99, "; ".join(errors), answered, cpu)


def rounds(label: str, servers: Sequence[Server], n: int, measure: Callable[[Server], Run]) -> dict[str, list[Run]]:
    """`n` rounds in which every server takes its turn, the first one moving down a place each round."""
    runs: dict[str, list[Run]] = {s.name: [] for s in servers}
    for i in range(n):
        for server in [*servers[i % len(servers) :], *servers[: i % len(servers)]]:
            result = measure(server)
            runs[server.name].append(result)
            note = f"  ({result.errors})" if result.errors else ""
            print(f"  {label:<28} {server.name:<9} {result.rate:>10,.1f}/s{note}", file=sys.stderr, flush=True)
    return runs


def _median(runs: list[Run], key: Callable[[Run], float]) -> float:
    return statistics.median(key(r) for r in runs)


# --- tables --------------------------------------------------------------------------------------------------------


@dataclass
class Table:
    title: str
    head: list[str]
    rows: list[list[str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def render(self, markdown: bool) -> str:
        if markdown:
            lines = [f"**{self.title}**", "", "| " + " | ".join(self.head) + " |", "|" + "---|" * len(self.head)]
            lines += ["| " + " | ".join(row) + " |" for row in self.rows]
            return "\n".join([*lines, "", *self.notes])
        columns = list(zip(*[self.head, *self.rows], strict=True))
        widths = [max(map(len, column)) for column in columns]
        numeric = [all(c[:1] in "0123456789+-" for c in column[1:] if c) for column in columns]

        def line(row: list[str]) -> str:
            cells = zip(row, widths, numeric, strict=True)
            return "  ".join(c.rjust(w) if right else c.ljust(w) for c, w, right in cells).rstrip()

        rule = "-" * len(line(self.head))
        return "\n".join([self.title, line(self.head), rule, *map(line, self.rows), *self.notes])


def _ratio(value: float, base: float) -> str:
    return f" ({value / base:.2f}x)" if base else ""


def _num(value: float, base: float | None = None, digits: int = 0) -> str:
    text = f"{value:,.{digits}f}"
    return text + (_ratio(value, base) if base is not None else "")


# --- sections ------------------------------------------------------------------------------------------------------


@dataclass
class Options:
    rounds: int
    duration: float
    tokens: int
    pacing: Pacing
    paced_counts: tuple[int, ...]
    recorder_requests: int
    markdown: bool


def nonstream(servers: list[Server], opts: Options, targets: list[str]) -> Table:
    table = Table(
        f'non-stream: POST {CHAT.path} "hi" -> "Hello"; wrk, 1 thread, {opts.duration:g} s a run, '
        f"median of {opts.rounds} rounds; (x) = ratio to bare",
        ["connections", "server", "requests/s", "p50 ms", "p99 ms", "server CPU us/req", "note"],
        notes=[
            "server CPU us/req: the user and system time of the server's process over the run, by the responses "
            "wrk completed (from /proc): what one answer costs the server, whatever share of the cores wrk takes."
        ],
    )
    body = CHAT.body(HELLO + COUNTED, stream=False)
    running = [s for s in servers if "chat" in s.paths]
    for server in running:  # warm-up, not counted
        wrk(server.port_for(_case(CHAT, HELLO)), server.paths["chat"], body, 16, 1)
    for connections in (1, 16, 64):

        def measure(server: Server, c: int = connections) -> Run:
            return wrk(server.port_for(_case(CHAT, HELLO)), server.paths["chat"], body, c, opts.duration)

        runs = rounds(f"non-stream c={connections}", running, opts.rounds, measure)
        base = runs["bare"]
        b = (_median(base, lambda r: r.rate), _median(base, lambda r: r.p50), _median(base, lambda r: r.p99))
        for server in running:
            mine = runs[server.name]
            rate, p50, p99 = (
                _median(mine, lambda r: r.rate),
                _median(mine, lambda r: r.p50),
                _median(mine, lambda r: r.p99),
            )
            errors = "; ".join({r.errors for r in runs[server.name] if r.errors})
            cpu = _median(mine, lambda r: r.cpu)
            used = _num(cpu, _median(base, lambda r: r.cpu) or None, 1) if cpu else "n/a"
            times = [_num(p50, b[1], 2), _num(p99, b[2], 2)]
            table.rows.append([str(connections), server.name, _num(rate, b[0]), *times, used, errors])
        rates = {name: _median(each, lambda r: r.rate) for name, each in runs.items()}
        ours, theirs = rates["emulator"] / b[0], rates.get("aimock", 0.0) / b[0]
        verdict = "met" if ours >= 0.6 and ours >= theirs else "missed"
        pure = f", pure {rates['emulator-pure'] / b[0]:.2f}x" if "emulator-pure" in rates else ""
        targets.append(
            f"non-stream c={connections}: {ours:.2f}x bare{pure}; aimock {theirs:.2f}x "
            f"(target >= 0.6x and >= aimock's): {verdict}"
        )
        if STOCK in rates:
            targets.append(
                f"non-stream c={connections}: the emulator's app on stock uvicorn {rates[STOCK] / b[0]:.2f}x bare, "
                f"on its own server {ours:.2f}x"
            )
        if LOGGED in rates:
            logged, cost = rates[LOGGED] / b[0], 1 - rates[LOGGED] / rates["emulator"]
            met = "met" if logged >= 0.6 and logged >= theirs and cost <= 0.10 else "missed"
            targets.append(
                f"non-stream c={connections}, as started (access log on): {logged:.2f}x bare, the log costs "
                f"{cost:.0%} (target >= 0.6x, >= aimock's, <= 10%): {met}"
            )
    return table


def streams(servers: list[Server], opts: Options, targets: list[str]) -> Table:
    table = Table(
        f"unpaced streams: {opts.tokens} tokens a stream; events/s = streams/s (wrk) x SSE events in one stream "
        f"(counted once per server and dialect with a real client); {opts.duration:g} s a run, "
        f"median of {opts.rounds} rounds; (x) = ratio to bare",
        ["dialect", "streams", "server", "events/stream", "streams/s", "events/s", "note"],
        notes=[
            "wrk counts a response once its last chunk is in, and every stream of a server is the same, so "
            "streams/s x events/stream is the events delivered per second. A slow server's runs are longer (up to 15 "
            "s) so that each connection completes two streams or more (fakellm sleeps 10 ms a word).",
            "bare replays the emulator's own stream bytes, one event per write (StreamingResponse); the emulator "
            "writes an unpaced stream in a few large writes.",
        ],
    )
    for dialect in DIALECTS:
        running = [s for s in servers if dialect.name in s.paths and s.name not in (LOGGED, STOCK)]
        body = dialect.body(STREAM + COUNTED, stream=True)
        key = _case(dialect, STREAM)
        for server in running:  # warm-up, not counted
            wrk(server.port_for(key), server.paths[dialect.name], body, 16, 1)
        single: dict[str, float] = {}  # streams/s on one connection
        for connections in (1, 64):

            def measure(
                server: Server,
                c: int = connections,
                d: str = dialect.name,
                b: bytes = body,
                one: dict[str, float] = single,
            ) -> Run:
                # Long enough for a few whole streams a connection: a slow server's partial streams are not counted.
                slow = max(3 * server.seconds.get(d, 0.0), 2 * c / one.get(server.name, 1e9))
                return wrk(server.port_for(f"{d} stream"), server.paths[d], b, c, min(15, max(opts.duration, slow)))

            runs = rounds(f"{dialect.name} stream c={connections}", running, opts.rounds, measure)
            rates = {name: _median(r, lambda run: run.rate) for name, r in runs.items()}
            if not single:
                single.update(rates)
            per_second = {s.name: rates[s.name] * s.events[dialect.name] for s in running}
            base = per_second["bare"]
            for server in running:
                errors = {r.errors for r in runs[server.name] if r.errors}
                few = min(r.done for r in runs[server.name]) < 2 * connections
                note = "; ".join([*errors, *["fewer than 2 streams a connection"] * few])
                row = [dialect.name, str(connections), server.name, str(server.events[dialect.name])]
                row += [_num(rates[server.name], digits=1), _num(per_second[server.name], base), note]
                table.rows.append(row)
            if "aimock" in per_second:
                e, a = per_second["emulator"], per_second["aimock"]
                verdict = "met" if e > a else "missed"
                targets.append(
                    f"{dialect.name} stream events/s at {connections}: emulator {e:,.0f}, aimock {a:,.0f} "
                    f"({e / a:.2f}x; target > aimock): {verdict}"
                )
    return table


# --- paced fidelity: the client, in processes of its own -----------------------------------------------------------


async def _paced_client(spec: dict[str, Any]) -> list[list[float]]:
    """Open every connection, say "ready", wait for the start time on stdin, then send each request at its
    offset and time its tokens: per stream [sent, first token, last token, tokens, status]."""
    request: bytes = spec["request"].encode("latin-1")
    marker, offsets = spec["marker"].encode(), spec["offsets"]
    conns = await asyncio.gather(*(asyncio.open_connection(HOST, spec["port"]) for _ in offsets))
    print("ready", flush=True)
    start = float(await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline))

    async def one(offset: float, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> list[float]:
        await asyncio.sleep(max(0.0, start + offset - time.monotonic()))
        sent = time.monotonic()
        writer.write(request)
        first = last = 0.0
        count, status, head, tail = 0, 0, b"", b""
        while True:
            data = await reader.read(65536)
            if not data:
                break
            now = time.monotonic()
            if not status:  # the head first: its rate-limit headers say "tokens"
                head += data
                if b"\r\n\r\n" not in head:
                    continue
                top, _, data = head.partition(b"\r\n\r\n")
                status = int(top[9:12]) if top.startswith(b"HTTP/1.1 ") else -1
                if not marker:  # the floor: the answer's first bytes are all it times
                    first = last = now
                    break
            chunk = tail + data
            found = chunk.count(marker)
            if found:
                first = first or now
                last, count = now, count + found
            if b"[DONE]" in chunk:
                break
            tail = chunk[-(len(b"[DONE]") - 1) :]
        writer.close()
        return [sent, first, last, count, status]

    return await asyncio.gather(*(one(o, r, w) for o, (r, w) in zip(offsets, conns, strict=True)))


def _client_main(spec_json: str) -> int:
    spec = json.loads(spec_json)
    try:
        import uvloop

        runner = asyncio.Runner(loop_factory=uvloop.new_event_loop)
    except ImportError:
        runner = asyncio.Runner()
    with runner:
        print(json.dumps(runner.run(_paced_client(spec))), flush=True)
    return 0


def paced_streams(
    port: int, path: str, timing: str, count: int, spread: float, floor: bool = False, processes: int = 2
) -> list[list[float]]:
    """`count` streams of PACED from `processes` client processes, their starts spread over `spread` seconds;
    with `floor`, "hi" answered at once, timed to its first bytes."""
    body = CHAT.body(HELLO, stream=False) if floor else CHAT.body(PACED, stream=True)
    headers = HEADERS | ({"x-emulator-timing": timing} if timing else {})
    head = f"POST {path} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n"
    request = (head + "".join(f"{k}: {v}\r\n" for k, v in headers.items()) + "\r\n").encode() + body
    offsets = [spread * i / count for i in range(count)]
    clients = []
    for p in range(processes):
        spec = {"port": port, "request": request.decode("latin-1"), "offsets": offsets[p::processes]}
        spec["marker"] = "" if floor else WORD  # counted in the body: the head's rate-limit headers say "tokens"
        cmd = [sys.executable, str(Path(__file__).resolve()), "--paced-client", json.dumps(spec)]
        clients.append(subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    try:
        for client in clients:  # every connection is open before any request goes
            assert client.stdout and client.stdout.readline().strip() == "ready", "a paced client failed to connect"
        start = time.monotonic() + 0.2
        for client in clients:
            assert client.stdin
            client.stdin.write(f"{start}\n")
            client.stdin.flush()
        results: list[list[float]] = []
        for client in clients:
            out, _ = client.communicate(timeout=120)
            results += json.loads(out)
        return results
    finally:
        for client in clients:
            if client.poll() is None:
                client.kill()


def _pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))] if ordered else float("nan")


@dataclass
class Fidelity:
    ok: int
    total: int
    ttft: list[float]  # ms late against the script (the floor: ms, the script being 0)
    rate: list[float]  # % against the script's tokens/s


def fidelity(results: list[list[float]], pacing: Pacing | None) -> Fidelity:
    ttft, rate = [], []
    ok = 0
    for sent, first, last, count, status in results:
        if status != 200 or not first:
            continue
        ok += 1
        ttft.append((first - sent) * 1000 - (pacing.ttft_ms if pacing else 0))
        if pacing and count > 1 and last > first:
            rate.append(((count - 1) / (last - first) / pacing.tps - 1) * 100)
    return Fidelity(ok, len(results), ttft, rate)


def paced(servers: list[Server], opts: Options, targets: list[str]) -> Table:
    p = opts.pacing
    table = Table(
        f"paced fidelity: {p.tokens} tokens, script ttft {p.ttft_ms:g} ms and {p.tps:g} tokens/s; chat streams from "
        f"2 asyncio client processes (connections opened first); median of {opts.rounds} rounds' percentiles",
        [
            "streams",
            "starts",
            "server",
            "complete",
            "TTFT err p50 ms",
            "TTFT err p99 ms",
            "tok/s err p50",
            "tok/s err p99",
        ],
        notes=[
            "TTFT err: first token's arrival after the request was written, minus the script's ttft (late > 0); "
            "tok/s err: (tokens - 1) / (last - first arrival) against the script's tokens/s.",
            'bare (floor): the same client and burst against the bare stack answering "hi" (non-stream), timed '
            "to its first bytes: the client's and the stack's own delay under that burst (not an error).",
            "aimock paces per chunk by sleeps; it is asked for ttft - 1/tps, its first token coming one gap after it.",
        ],
    )
    by_name = {s.name: s for s in servers}
    candidates = [
        by_name["bare"],
        by_name["emulator"],
        *(s for s in servers if s.name == "aimock" and "chat" in s.paths),
    ]
    for count in opts.paced_counts:
        for spread, starts in ((0.0, "together"), (1.0, "over 1 s")):
            measured: dict[str, list[Fidelity]] = {s.name: [] for s in candidates}
            for i in range(opts.rounds):
                for server in [*candidates[i % len(candidates) :], *candidates[: i % len(candidates)]]:
                    timing = p.header() if server.name == "emulator" else ""
                    floor = server.name == "bare"
                    case = _case(CHAT, HELLO if floor else PACED)
                    results = paced_streams(server.port_for(case), server.paths["chat"], timing, count, spread, floor)
                    f = fidelity(results, None if server.name == "bare" else p)
                    measured[server.name].append(f)
                    print(
                        f"  paced {count} {starts:<9} {server.name:<9} {f.ok}/{f.total} complete, "
                        f"ttft p50 {_pct(f.ttft, 0.5):.1f} ms, p99 {_pct(f.ttft, 0.99):.1f} ms",
                        file=sys.stderr,
                        flush=True,
                    )
                    time.sleep(0.5)
            for server in candidates:
                fs = measured[server.name]

                def med(values: Callable[[Fidelity], list[float]], q: float, fs: list[Fidelity] = fs) -> float:
                    return statistics.median(_pct(values(f), q) for f in fs)

                ttft50, ttft99 = med(lambda f: f.ttft, 0.5), med(lambda f: f.ttft, 0.99)
                has_rate = server.name != "bare"
                rate50 = med(lambda f: f.rate, 0.5) if has_rate else float("nan")
                rate99 = med(lambda f: [abs(x) for x in f.rate], 0.99) if has_rate else float("nan")
                complete = f"{min(f.ok for f in fs)}/{count}"
                name = "bare (floor)" if server.name == "bare" else server.name
                row = [str(count), starts, name, complete, f"{ttft50:+.1f}", f"{ttft99:+.1f}"]
                row += [f"{rate50:+.2f}%", f"{rate99:.2f}%"] if has_rate else ["n/a", "n/a"]
                table.rows.append(row)
                if server.name == "emulator" and count == 500 and spread == 0.0:
                    ok = abs(rate50) <= 2 and abs(ttft50) <= 20
                    targets.append(
                        f"500 paced streams together: tokens/s {rate50:+.2f}% at p50 (target within 2%), TTFT "
                        f"{ttft50:+.1f} ms at p50 (target within 20 ms): {'met' if ok else 'missed'}"
                    )
                if server.name == "emulator" and count == 500 and spread == 1.0:
                    ok = abs(ttft99) <= 20
                    targets.append(
                        f"500 paced streams over 1 s: TTFT {ttft99:+.1f} ms at p99 (target within 20 ms): "
                        f"{'met' if ok else 'missed'}"
                    )
    table.notes.append("tok/s err p99 is of the error's size, either way.")
    return table


# --- the recorder --------------------------------------------------------------------------------------------------


def _ttfb(conn: http.client.HTTPConnection, path: str, body: bytes) -> float:
    """ms from the request's first byte out to the response's head in (its first bytes), then read it all."""
    started = time.perf_counter()
    conn.request("POST", path, body=body, headers=HEADERS)
    resp = conn.getresponse()
    took = (time.perf_counter() - started) * 1000
    resp.read()
    if resp.status != 200:
        raise RuntimeError(f"answered {resp.status}")
    return took


def recorder(servers: list[Server], opts: Options, harness: bench.Servers, run: Path, targets: list[str]) -> Table:
    emulator = next(s for s in servers if s.name == "emulator")
    bare = next(s for s in servers if s.name == "bare")
    (run / "recorded.yaml").unlink(missing_ok=True)  # the recorder appends: a new cassette each run
    port = bench._free_port()
    cmd = [*EMULATOR, "record", "--upstream", f"http://{HOST}:{emulator.port}"]
    cmd += ["--port", str(port), "--out", str(run / "recorded.yaml"), "--mode", "all", "--no-access-log"]
    harness.spawn("recorder", cmd, port, cwd=run, env=dict(os.environ))
    table = Table(
        f"recorder: time to first byte (the response head), one keep-alive connection each, "
        f"{opts.recorder_requests} requests a side, in turns; `emulator record --mode all` in front of the emulator; "
        "(x) = ratio to bare",
        [
            "request",
            "bare p50 ms",
            "direct p50 ms",
            "direct p99 ms",
            "recorded p50 ms",
            "recorded p99 ms",
            "added p50 ms",
        ],
    )
    for label, body in (("chat, non-stream", CHAT.body(HELLO, False)), ("chat, stream", CHAT.body(STREAM, True))):
        key = _case(CHAT, HELLO if body == CHAT.body(HELLO, False) else STREAM)
        sides = {"bare": bare.port_for(key), "direct": emulator.port, "recorded": port}
        conns = {side: http.client.HTTPConnection(HOST, p, timeout=30) for side, p in sides.items()}
        times: dict[str, list[float]] = {side: [] for side in sides}
        try:
            for conn in conns.values():  # warm-up: the recorder's first upstream connection, the cassette
                for _ in range(5):
                    _ttfb(conn, CHAT.path, body)
            for i in range(opts.recorder_requests):
                for side in [*sides][i % 3 :] + [*sides][: i % 3]:
                    times[side].append(_ttfb(conns[side], CHAT.path, body))
        finally:
            for conn in conns.values():
                conn.close()
        d50, d99 = _pct(times["direct"], 0.5), _pct(times["direct"], 0.99)
        r50, r99 = _pct(times["recorded"], 0.5), _pct(times["recorded"], 0.99)
        b50 = _pct(times["bare"], 0.5)
        row = [label, f"{b50:.2f}", f"{d50:.2f}{_ratio(d50, b50)}", f"{d99:.2f}", f"{r50:.2f}{_ratio(r50, b50)}"]
        table.rows.append([*row, f"{r99:.2f}", f"{r50 - d50:+.2f}"])
        targets.append(
            f"recorder, {label}: adds {r50 - d50:+.2f} ms to TTFB at p50 (target < 2 ms): "
            f"{'met' if r50 - d50 < 2 else 'missed'}"
        )
    print(f"  recorder: {table.rows}", file=sys.stderr, flush=True)
    return table


# --- scaling -------------------------------------------------------------------------------------------------------


def _has_workers() -> bool:
    out = subprocess.run(
        [sys.executable, "-m", "emulator", "serve", "--help"], capture_output=True, text=True, cwd=ROOT
    )
    return "--workers" in out.stdout


def scaling(servers: list[Server], opts: Options, harness: bench.Servers, run: Path, targets: list[str]) -> Table:
    table = Table(
        f"scaling: `emulator serve --workers 2` against 1 worker, 64 connections, {opts.duration:g} s a run, median of "
        f"{opts.rounds} rounds; wrk shares the 2 cores; (x) = ratio to bare",
        ["case", "bare", "1 worker", "2 workers", "2 / 1", "2 on Redis", "Redis / in process"],
    )
    if not _has_workers():
        table.rows.append(["non-stream and streams", "", "", "n/a (no --workers in this checkout)", "", "", ""])
        targets.append("scaling 1 -> 2 workers: n/a (no --workers in this checkout)")
        return table
    by_name = {s.name: s for s in servers}
    two = Server("2 workers", dict(by_name["emulator"].paths), events=dict(by_name["emulator"].events))
    two.port = bench._free_port()
    cmd = [*EMULATOR, "serve", "--port", str(two.port), "--no-access-log", "--workers", "2"]
    cmd += ["--scenarios", str(ROOT / "scenarios"), "--scenarios", str(run / "emulator.yaml")]
    harness.spawn("emulator-2-workers", cmd, two.port, cwd=EMULATOR_CWD[0], env=dict(os.environ))
    sides = [by_name["bare"], by_name["emulator"], two]
    if shutil.which("redis-server"):  # the same, its state in Redis (`--state`): issue 32 asks at least half
        store = bench._free_port()
        command = ["redis-server", "--port", str(store), "--bind", HOST, "--save", "", "--appendonly", "no"]
        harness.spawn("redis", command, store, cwd=run, env={})
        on_redis = Server("2 on Redis", dict(two.paths), events=dict(two.events))
        on_redis.port = bench._free_port()
        at = cmd.index("--port") + 1
        cmd = [*cmd[:at], str(on_redis.port), *cmd[at + 1 :], "--state", f"redis://{HOST}:{store}/0"]
        harness.spawn("emulator-2-on-redis", cmd, on_redis.port, cwd=EMULATOR_CWD[0], env=dict(os.environ))
        sides.append(on_redis)
    time.sleep(1)  # the second worker
    for label, prompt, stream in (("non-stream req/s", HELLO, False), ("chat stream events/s", STREAM, True)):
        body, key = CHAT.body(prompt + COUNTED, stream), _case(CHAT, prompt)

        def measure(server: Server, body: bytes = body, key: str = key) -> Run:
            return wrk(server.port_for(key), CHAT.path, body, 64, opts.duration)

        runs = rounds(f"scaling {label}", sides, opts.rounds, measure)
        per = 1 if not stream else by_name["emulator"].events["chat"]
        rate = {name: _median(r, lambda x: x.rate) * per for name, r in runs.items()}
        b, one, both = rate["bare"], rate["emulator"], rate["2 workers"]
        shared = rate.get("2 on Redis")
        row = [label, _num(b), _num(one, b), _num(both, b), f"{both / one:.2f}x"]
        table.rows.append(row + ([_num(shared, b), f"{shared / both:.2f}x"] if shared else ["n/a", "no redis-server"]))
        targets.append(f"scaling 1 -> 2 workers, {label}: {both / one:.2f}x (reported)")
        if shared:
            met = "met" if shared >= 0.5 * both else "MISSED"
            targets.append(f"2 workers on Redis / in process, {label}: {shared / both:.2f}x (target 0.5x: {met})")
    return table


# --- the run -------------------------------------------------------------------------------------------------------


def peers_table(servers: list[Server], scratch: Path) -> Table:
    table = Table(f"servers (peers installed in {scratch})", ["server", "version", "dialects measured", "status"])
    for s in servers:
        events = ", ".join(f"{d} ({n} events)" for d, n in s.events.items() if d in s.paths)
        table.rows.append([s.name, s.version, events or "-", s.problem or "runs"])
    return table


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--scratch", type=Path, default=SCRATCH, help=f"where the peers are installed ({SCRATCH})")
    parser.add_argument("--quick", action="store_true", help="one round of 1 s, 500 paced streams; about 3 minutes")
    parser.add_argument("--only", help=f"the peers to run, comma-separated, of {','.join(PEERS)} (default: all)")
    parser.add_argument("--sections", default=",".join(SECTIONS), help=f"of {','.join(SECTIONS)} (default: all)")
    parser.add_argument("--markdown", action="store_true", help="print the tables as Markdown")
    parser.add_argument("--rounds", type=int, help="rounds of each measurement (default: 3; --quick: 1)")
    parser.add_argument("--duration", type=float, help="seconds of wrk a run (default: 3; --quick: 1)")
    parser.add_argument("--tokens", type=int, default=200, help="tokens in an unpaced stream (default: 200)")
    parser.add_argument("--paced", default="300,20,40", help="paced script: ttft ms,tokens/s,tokens (300,20,40)")
    parser.add_argument("--paced-client", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.paced_client:
        return _client_main(args.paced_client)

    names = [n.strip() for n in (args.only or ",".join(PEERS)).split(",") if n.strip()]
    sections = [s.strip() for s in args.sections.split(",") if s.strip()]
    for bad in {*names} - {*PEERS} | {*sections} - {*SECTIONS}:
        parser.error(f"unknown name {bad!r}")
    if not shutil.which("wrk"):
        parser.error("wrk is needed (apt-get install wrk)")
    ttft, tps, ptokens = (float(x) for x in args.paced.split(","))
    opts = Options(
        rounds=args.rounds or (1 if args.quick else 3),
        duration=args.duration or (1.0 if args.quick else 3.0),
        tokens=args.tokens,
        pacing=Pacing(ttft, tps, int(ptokens)),
        paced_counts=(500,) if args.quick else (500, 1000),
        recorder_requests=100 if args.quick else 300,
        markdown=args.markdown,
    )
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)  # 1,000 streams: the servers inherit it
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, min(hard, 65536)), hard))
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that `finally` stops the servers
    signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl-C too, even when started in the background

    scratch = args.scratch.expanduser().resolve()
    if scratch.is_relative_to(ROOT):
        parser.error(f"the scratch folder must be outside the repository: {scratch}")
    problems = install(scratch, names)
    run = scratch / "run"
    write_fixtures(run, opts.tokens, opts.pacing)
    started = time.monotonic()
    cores = os.cpu_count()
    print(
        f"{time.strftime('%Y-%m-%d')}, {cores} cores; {opts.rounds} rounds, {opts.duration:g} s a run; "
        f"everything on {HOST}",
        flush=True,
    )
    targets: list[str] = []
    with tempfile.TemporaryDirectory(prefix="peers-") as logs:
        harness = bench.Servers(Path(logs))
        try:
            servers = start_all(harness, scratch, run, names, opts.tokens, problems)
            print("\n" + peers_table(servers, scratch).render(opts.markdown) + "\n", flush=True)
            servers = [s for s in servers if s.paths]
            steps: dict[str, Callable[[], Table]] = {
                "nonstream": lambda: nonstream(servers, opts, targets),
                "streams": lambda: streams(servers, opts, targets),
                "paced": lambda: paced(servers, opts, targets),
                "recorder": lambda: recorder(servers, opts, harness, run, targets),
                "scaling": lambda: scaling(servers, opts, harness, run, targets),
            }
            for section in SECTIONS:
                if section in sections:
                    print(steps[section]().render(opts.markdown) + "\n", flush=True)
        finally:
            harness.stop()
    print("targets (the emulator, one process unless said):")
    for line in targets:
        print(f"- {line}")
    print(f"\ntook {time.monotonic() - started:.0f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    bench.run(main)
