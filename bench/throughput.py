"""Throughput of the emulator against a bare Starlette baseline that serves the same bytes, in one run.

What it measures, for four cases (the `haiku` scenario of scenarios/examples.yaml and the default
generator, each non-streamed and streamed with `stream_options.include_usage`):

* requests per second of `POST /v1/chat/completions` on the emulator;
* the same on a baseline: a bare Starlette app with one route that answers with the exact bytes and
  headers the emulator sent for that request (captured once at start-up); for a stream, the captured
  SSE events are yielded one per `yield` from an async generator into a `StreamingResponse`, as the
  emulator does;
* streamed tokens per second = requests/s x the number of content/reasoning delta events in one
  captured response;
* the ratio emulator/baseline of each, printed as a table. The target is at least 70% of the baseline.

Each server runs in its own subprocess: the emulator as `emulator serve` runs it (its own protocol on
httptools, uvloop), the baseline on the bare stack, plain uvicorn on httptools and uvloop (issue 19);
the load generator is `wrk` (installed with apt-get
when missing and running as root) with bench/post.lua, else a keep-alive asyncio load generator in a
separate process. Everything stays on 127.0.0.1. Baseline and emulator runs alternate, round after
round, and the median of each side is reported, because a shared 2-core machine is noisy.

Run from the project root (about 2 minutes with the defaults; the servers are stopped on exit):

    /tmp/venv/bin/python bench/throughput.py            # or: python bench/throughput.py in the project venv
    python bench/throughput.py --duration 2 --rounds 1  # a quick look
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HOST = "127.0.0.1"  # loopback only, for servers and load alike
PATH = "/v1/chat/completions"
ROOT = Path(__file__).resolve().parent.parent
LUA = Path(__file__).resolve().parent / "post.lua"
TARGET = 0.70
REQUEST_HEADERS = {"Content-Type": "application/json", "Authorization": "Bearer sk-bench"}
# Response headers that the server writes itself; every other captured header is replayed by the baseline.
SERVER_HEADERS = {"content-length", "content-type", "date", "server", "transfer-encoding", "connection"}


@dataclass(frozen=True)
class Case:
    name: str
    body: dict[str, Any]

    @property
    def stream(self) -> bool:
        return bool(self.body.get("stream"))

    def raw(self) -> bytes:
        return json.dumps(self.body, separators=(",", ":")).encode()

    def varied(self) -> bytes:
        """The body with a count after the last message's text: post.lua makes each request's its own."""
        *before, last = self.body["messages"]
        return json.dumps(self.body | {"messages": [*before, last | {"content": f"{last['content']} #N#"}]}).encode()


def _streamed(body: dict[str, Any]) -> dict[str, Any]:
    return body | {"stream": True, "stream_options": {"include_usage": True}}


HAIKU = {"model": "haiku", "messages": [{"role": "user", "content": "hi"}]}
DEFAULT = {
    "model": "DeepSeek-V4.1-Flash-1017",
    "messages": [{"role": "user", "content": "Why is my Go map iteration order random?"}],
}
CASES = (
    Case("haiku", HAIKU),
    Case("default", DEFAULT),
    Case("haiku stream", _streamed(HAIKU)),
    Case("default stream", _streamed(DEFAULT)),
)


@dataclass
class Captured:
    """One emulator response, replayed byte for byte by the baseline."""

    status: int
    content_type: str
    headers: dict[str, str]
    body: bytes

    def events(self) -> list[bytes]:
        """The SSE events, each with its closing blank line, as the emulator yields them."""
        parts = self.body.split(b"\n\n")
        assert parts[-1] == b"", "the stream does not end on an event boundary"
        return [part + b"\n\n" for part in parts[:-1]]

    def deltas(self) -> int:
        """How many events carry a content or reasoning delta (the streamed tokens)."""
        count = 0
        for event in self.events():
            data = event.strip().removeprefix(b"data: ")
            if not event.startswith(b"data: ") or data == b"[DONE]":
                continue
            deltas = [choice.get("delta") or {} for choice in json.loads(data).get("choices") or []]
            if any(delta.get("content") or delta.get("reasoning_content") for delta in deltas):
                count += 1
        return count

    def spec(self) -> dict[str, Any]:
        return {
            "content_type": self.content_type,
            "headers": self.headers,
            "body": base64.b64encode(self.body).decode(),
        }


@dataclass
class Result:
    requests_per_second: float
    errors: str = ""


@dataclass
class Samples:
    baseline: list[float] = field(default_factory=list)
    emulator: list[float] = field(default_factory=list)


# --- servers (each runs in a subprocess started by `_serve`) -----------------------------------------------------


def _watch_parent(parent: int) -> None:
    """Exit when the benchmark that started this server is gone, however it ended."""

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(0.5)
        os._exit(0)

    threading.Thread(target=watch, daemon=True).start()


def _emulator_app() -> Any:
    from emulator.http.app import Settings, create_app

    return create_app(Settings(scenarios=(Path.cwd() / "scenarios",)))  # the tree it was started in


def _baseline_app(spec: dict[str, Any], stream: bool) -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response, StreamingResponse
    from starlette.routing import Route

    captured = Captured(200, spec["content_type"], spec["headers"], base64.b64decode(spec["body"]))
    media_type, headers, body = captured.content_type, captured.headers, captured.body

    if stream:
        events = captured.events()

        async def play() -> AsyncIterator[bytes]:
            for event in events:
                yield event

        async def handle(request: Request) -> Response:
            return StreamingResponse(play(), media_type=media_type, headers=headers)

    else:

        async def handle(request: Request) -> Response:
            return Response(body, media_type=media_type, headers=headers)

    return Starlette(routes=[Route(spec.get("path", PATH), handle, methods=["POST"])])  # peers.py: any dialect's


def _serve(args: argparse.Namespace) -> int:
    from emulator import server

    _watch_parent(args.parent)
    if args.serve == "baseline":  # the bare stack: plain uvicorn on httptools and uvloop, nothing of ours
        import uvicorn

        app = _baseline_app(json.loads(Path(args.spec).read_text()), args.stream)
        options: dict[str, Any] = {"http": "httptools", "loop": "uvloop", "lifespan": "off"}
        uvicorn.run(app, host=HOST, port=args.port, access_log=False, log_level="warning", **options)
        return 0
    app = _emulator_app()
    if hasattr(server, "bind"):  # as `emulator serve` runs it
        server.run(app, server.bind(HOST, args.port), access_log=False)
    else:  # an older checkout, compared by compare.py: its run binds the port itself
        server.run(app, HOST, args.port, access_log=False, log_level="warning")  # type: ignore[arg-type]
    return 0


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        port: int = s.getsockname()[1]
        return port


class Servers:
    """The server subprocesses; all of them are stopped on exit, on Ctrl-C and on exceptions.

    Their stderr goes to a log file each, summarized on stop (a load generator that closes its connections
    mid-stream makes asyncio log `socket.send() raised exception.` once per write, on both sides).
    """

    def __init__(self, logs: Path) -> None:
        self.logs = logs
        self.procs: list[tuple[str, subprocess.Popen[bytes], Path]] = []

    def start(self, label: str, *extra: str, tree: Path = ROOT) -> int:
        """Start a server; `tree`: the checkout whose `emulator` and `scenarios` it serves."""
        port = _free_port()
        cmd = [sys.executable, str(Path(__file__).resolve()), "--serve", *extra]
        cmd += ["--port", str(port), "--parent", str(os.getpid())]
        return self.spawn(label, cmd, port, cwd=tree, env=os.environ | {"PYTHONPATH": str(tree)})

    def spawn(self, label: str, cmd: Sequence[str], port: int, cwd: Path, env: dict[str, str], wait: float = 30) -> int:
        """Run `cmd` (a server that listens on `port`) in a session of its own, so that stopping it stops
        whatever it started; returns once the port accepts connections."""
        log = self.logs / f"{label.replace(' ', '-')}.log"
        with log.open("wb") as out:
            proc = subprocess.Popen(
                cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True
            )
        self.procs.append((label, proc, log))
        deadline = time.monotonic() + wait
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise RuntimeError(f"server {label} exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            with contextlib.suppress(OSError), socket.create_connection((HOST, port), timeout=1):
                return port
            time.sleep(0.05)
        raise RuntimeError(f"server {label} did not listen on {HOST}:{port} within {wait:g} s")

    def stop(self) -> None:
        for _, proc, _ in self.procs:
            if proc.poll() is None:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGTERM)  # its own session: the group is the server and its children
        for _, proc, _ in self.procs:
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()

    def stderr(self) -> Iterator[str]:
        """Each server's distinct stderr lines, counted."""
        for label, _, log in self.procs:
            lines = Counter(line for line in log.read_text(errors="replace").splitlines() if line.strip())
            for line, n in lines.most_common(5):
                yield f"{label}: {n} x {line[:150]}"


def _post(port: int, body: bytes) -> Captured:
    conn = http.client.HTTPConnection(HOST, port, timeout=10)
    try:
        conn.request("POST", PATH, body=body, headers=REQUEST_HEADERS)
        resp = conn.getresponse()
        data = resp.read()
        headers = {k.lower(): v for k, v in resp.getheaders()}
    finally:
        conn.close()
    kept = {k: v for k, v in headers.items() if k not in SERVER_HEADERS}
    return Captured(resp.status, headers.get("content-type", ""), kept, data)


# --- load generators -----------------------------------------------------------------------------------------------


def _wrk() -> str | None:
    """The path of wrk, installed with apt-get when missing and allowed; None to use the Python generator."""
    found = shutil.which("wrk")
    if found or os.geteuid() != 0 or not shutil.which("apt-get"):
        return found
    print("wrk is missing: apt-get install -y wrk ...", file=sys.stderr)
    env = os.environ | {"DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "install", "-y", "wrk"], ["apt-get", "update"], ["apt-get", "install", "-y", "wrk"]):
        try:
            subprocess.run(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=180, check=False)
        except subprocess.TimeoutExpired:
            break
        if shutil.which("wrk"):
            break
    return shutil.which("wrk")


def _run_wrk(wrk: str, port: int, case: Case, duration: float, connections: int) -> Result:
    seconds = max(1, round(duration))
    cmd = [wrk, "-t1", f"-c{connections}", f"-d{seconds}s", "--timeout", "5s", "-s", str(LUA), f"http://{HOST}:{port}"]
    env = os.environ | {"BENCH_BODY": case.varied().decode(), "BENCH_PATH": PATH}
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=seconds + 30, check=False).stdout
    match = re.search(r"Requests/sec:\s*([\d.]+)", out)
    if not match:
        raise RuntimeError(f"wrk printed no Requests/sec:\n{out}")
    errors = [line.strip() for line in out.splitlines() if "Non-2xx" in line or "Socket errors" in line]
    return Result(float(match.group(1)), "; ".join(errors))


async def _one_connection(port: int, request: bytes, stop_at: float, counts: list[int]) -> None:
    reader, writer = await asyncio.open_connection(HOST, port)
    try:
        while time.monotonic() < stop_at:
            writer.write(request)
            head = await reader.readuntil(b"\r\n\r\n")
            lines = head.decode("latin-1").split("\r\n")
            status = int(lines[0].split()[1])
            headers = dict(line.lower().split(": ", 1) for line in lines[1:] if ": " in line)
            if "content-length" in headers:
                await reader.readexactly(int(headers["content-length"]))
            elif headers.get("transfer-encoding") == "chunked":
                while True:
                    size = int((await reader.readline()).split(b";")[0], 16)
                    await reader.readexactly(size + 2)
                    if size == 0:
                        break
            counts[0 if status == 200 else 1] += 1
    finally:
        writer.close()


async def _load(port: int, body: bytes, duration: float, connections: int) -> tuple[int, int, float]:
    head = f"POST {PATH} HTTP/1.1\r\nHost: {HOST}:{port}\r\nContent-Length: {len(body)}\r\n"
    head += "".join(f"{k}: {v}\r\n" for k, v in REQUEST_HEADERS.items())
    request = head.encode() + b"\r\n" + body
    counts = [0, 0]
    start = time.monotonic()
    tasks = [_one_connection(port, request, start + duration, counts) for _ in range(connections)]
    await asyncio.gather(*tasks)
    return counts[0], counts[1], time.monotonic() - start


def _run_python_load(port: int, case: Case, duration: float, connections: int) -> Result:
    cmd = [sys.executable, str(Path(__file__).resolve()), "--load", str(port), "--body", case.raw().decode()]
    cmd += ["--duration", str(duration), "--connections", str(connections)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=duration + 30, check=True).stdout
    ok, failed, seconds = json.loads(out)
    return Result(ok / seconds, f"{failed} non-200 responses" if failed else "")


# --- the benchmark -------------------------------------------------------------------------------------------------


def _ratio(emulator: float, baseline: float) -> str:
    return f"{emulator / baseline:6.1%}" if baseline else "  n/a"


def _table(cases: Sequence[Case], samples: dict[str, Samples], deltas: dict[str, int]) -> Iterator[str]:
    head = (
        f"{'case':<16}{'baseline req/s':>15}{'emulator req/s':>15}{'ratio':>8}"
        f"{'tokens/resp':>12}{'baseline tok/s':>15}{'emulator tok/s':>15}{'ratio':>8}"
    )
    yield head
    yield "-" * len(head)
    for case in cases:
        b, e = statistics.median(samples[case.name].baseline), statistics.median(samples[case.name].emulator)
        row = f"{case.name:<16}{b:>15,.0f}{e:>15,.0f}{_ratio(e, b):>8}"
        if case.stream:
            n = deltas[case.name]
            row += f"{n:>12}{b * n:>15,.0f}{e * n:>15,.0f}{_ratio(e, b):>8}"
        flag = "" if b and e / b >= TARGET else "   <-- below target"
        yield row + flag


def _uvicorn_stack() -> str:
    """What uvicorn's defaults pick on this machine (the same for both servers)."""
    import importlib.util

    http = "httptools" if importlib.util.find_spec("httptools") else "h11"
    loop = "uvloop" if importlib.util.find_spec("uvloop") else "asyncio"
    return f"uvicorn {http}/{loop}, 1 process each"


def _measure(
    servers: Servers, tmp: Path, run: Callable[[int, Case, float], Result], rounds: int, duration: float
) -> tuple[dict[str, Samples], dict[str, int]]:
    """Start the servers, capture and check the replayed bytes, then run baseline and emulator alternately."""
    emulator_port = servers.start("emulator", "emulator")
    baseline_ports: dict[str, int] = {}
    deltas: dict[str, int] = {}
    for case in CASES:
        captured = _post(emulator_port, case.raw())
        if captured.status != 200:
            raise RuntimeError(f"{case.name}: the emulator answered {captured.status}: {captured.body[:300]!r}")
        spec = tmp / f"{case.name.replace(' ', '-')}.json"
        spec.write_text(json.dumps(captured.spec()))
        stream = ["--stream"] if case.stream else []
        baseline_ports[case.name] = servers.start(f"baseline {case.name}", "baseline", "--spec", str(spec), *stream)
        replayed = _post(baseline_ports[case.name], case.raw())
        if replayed.body != captured.body or replayed.headers != captured.headers:
            raise RuntimeError(f"{case.name}: the baseline does not replay the emulator's bytes")
        if case.stream:
            deltas[case.name] = captured.deltas()

    samples = {case.name: Samples() for case in CASES}
    for case in CASES:
        sides = {"baseline": baseline_ports[case.name], "emulator": emulator_port}
        for port in sides.values():  # warm-up, not counted
            run(port, case, 1)
        for i in range(rounds):
            order = ["baseline", "emulator"] if i % 2 == 0 else ["emulator", "baseline"]
            for side in order:
                result = run(sides[side], case, duration)
                getattr(samples[case.name], side).append(result.requests_per_second)
                rate = f"{result.requests_per_second:>10,.0f} req/s"
                note = f"  ({result.errors})" if result.errors else ""
                print(f"  {case.name:<16} {side:<9} {rate}{note}", flush=True)
    return samples, deltas


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--duration", type=float, default=4.0, help="seconds of load per run (default: 4)")
    parser.add_argument("--connections", type=int, default=16, help="concurrent keep-alive connections (default: 16)")
    parser.add_argument("--rounds", type=int, default=3, help="baseline/emulator run pairs per case (default: 3)")
    parser.add_argument("--loadgen", choices=("auto", "wrk", "python"), default="auto", help="default: wrk if usable")
    # Internal: the server and load-generator subprocesses.
    parser.add_argument("--serve", choices=("emulator", "baseline"), help=argparse.SUPPRESS)
    parser.add_argument("--spec", help=argparse.SUPPRESS)
    parser.add_argument("--stream", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--parent", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--load", type=int, metavar="PORT", help=argparse.SUPPRESS)
    parser.add_argument("--body", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)

    if args.serve:
        return _serve(args)
    if args.load:
        print(json.dumps(asyncio.run(_load(args.load, args.body.encode(), args.duration, args.connections))))
        return 0

    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # so that `finally` stops the servers
    wrk = _wrk() if args.loadgen != "python" else None
    if args.loadgen == "wrk" and not wrk:
        parser.error("wrk is not installed")
    loadgen = f"wrk -t1 -c{args.connections}" if wrk else f"python asyncio, {args.connections} connections"

    def run(port: int, case: Case, duration: float) -> Result:
        if wrk:
            return _run_wrk(wrk, port, case, duration, args.connections)
        return _run_python_load(port, case, duration, args.connections)

    notes: list[str] = []
    with tempfile.TemporaryDirectory(prefix="bench-") as tmp:
        servers = Servers(Path(tmp))
        try:
            total = len(CASES) * (2 * args.rounds * args.duration + 2)
            print(f"load: {loadgen}, {args.duration:g} s a run, {args.rounds} rounds; about {total:.0f} s", flush=True)
            samples, deltas = _measure(servers, Path(tmp), run, args.rounds, args.duration)
        finally:
            servers.stop()
            notes = list(servers.stderr())

    print()
    print(f"median of {args.rounds} runs of {args.duration:g} s each; load: {loadgen}; {_uvicorn_stack()}")
    for line in _table(CASES, samples, deltas):
        print(line)
    print(f"target: the emulator reaches at least {TARGET:.0%} of the baseline in every row")
    print("tokens/resp = content/reasoning delta events in one streamed response; tok/s = req/s x tokens/resp")
    if notes:
        print("\nserver stderr (a load generator stopping mid-stream makes asyncio log failed sends):", file=sys.stderr)
        for line in notes:
            print(f"  {line}", file=sys.stderr)
    return 0


def run(entry: Callable[[], int]) -> None:
    """Exit with what `entry` returns; on Ctrl-C, after its servers stopped (they stop in its `finally`), 130."""
    try:
        sys.exit(entry())
    except KeyboardInterrupt:
        print("interrupted; the servers are stopped", file=sys.stderr)
        sys.exit(130)


if __name__ == "__main__":
    run(main)
