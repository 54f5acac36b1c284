"""The reliability suite: hostile and careless inputs against a real server in a subprocess with a memory cap.

Each probe asserts the answer, that the event loop stayed responsive while it ran (`/health`'s worst latency
during the probe, against its p99 measured just before under ordinary traffic), and that the process is alive
afterwards. CI runs the short version; `EMULATOR_RELIABILITY=long pytest tests/test_reliability.py` runs more
repetitions and 500 concurrent paced streams (docs/reliability.md has the last figures).
"""

from __future__ import annotations

import http.client
import json
import os
import resource
import socket
import statistics
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytestmark = pytest.mark.alone  # wall-clock measurements: run apart (conftest.py)

LONG = os.environ.get("EMULATOR_RELIABILITY") == "long"
MEMORY_CAP = 2 * 1024**3  # bytes of address space the server may map: a runaway allocation kills it, visibly
HEADERS = {"content-type": "application/json", "authorization": "Bearer sk-test", "x-api-key": "sk-test"}
SCENARIO = 'scenarios: [{name: backtracking, match: {last_user: {regex: "^(a+)+$"}}, reply: {text: matched}}]\n'


class Emulator:
    """`emulator serve` in a subprocess whose address space is capped at MEMORY_CAP."""

    def __init__(self, tmp: Path, *options: str) -> None:
        (tmp / "scenarios").mkdir()
        (tmp / "scenarios" / "probes.yaml").write_text(SCENARIO)
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            self.port = probe.getsockname()[1]
        command = [sys.executable, "-m", "emulator", "serve", "--port", str(self.port), "--no-access-log"]
        command += ["--scenarios", str(tmp / "scenarios"), *options]
        self.log = tmp / "server.log"
        with self.log.open("wb") as log:  # a file, not a pipe: a full pipe would block the server
            self.process = subprocess.Popen(
                command,
                stdout=subprocess.DEVNULL,
                stderr=log,
                preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP)),
            )
        deadline = time.monotonic() + 300  # a give-up bound, not a measure: a loaded machine imports slowly
        while not self.answers():
            assert self.alive(), self.log.read_text()[-2000:]
            assert time.monotonic() < deadline, "the server did not start"
            time.sleep(0.05)

    def answers(self) -> bool:
        try:
            return self.request("GET", "/health", timeout=2)[0] == 200
        except OSError:
            return False

    def alive(self) -> bool:
        return self.process.poll() is None

    def request(self, method: str, path: str, body: bytes | None = None, **options: Any) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=options.pop("timeout", 30))
        try:
            conn.request(method, path, body=body, headers=HEADERS | options.pop("headers", {}))
            response = conn.getresponse()
            return response.status, response.read()
        finally:
            conn.close()

    def cpu_seconds(self) -> float:
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def stop(self) -> None:
        self.process.kill()
        self.process.wait()


class Health:
    """Polls `/health` on one keep-alive connection from a thread, noting each answer's latency."""

    def __init__(self, port: int) -> None:
        self.port, self._stop = port, threading.Event()
        self.latencies: list[float] = []
        self.started: list[float] = []  # when each of them was asked (`time.perf_counter`)
        self._thread = threading.Thread(target=self._poll, daemon=True)

    def _poll(self) -> None:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=30)
        while not self._stop.is_set():
            started = time.perf_counter()
            conn.request("GET", "/health")
            conn.getresponse().read()
            self.latencies.append(time.perf_counter() - started)
            self.started.append(started)
            time.sleep(0.01)
        conn.close()

    def between(self, start: float, end: float) -> list[float]:
        """The latencies of the polls asked in [start, end)."""
        return [lat for at, lat in zip(self.started, self.latencies, strict=True) if start <= at < end]

    def __enter__(self) -> Health:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=60)


def ordinary(emulator: Emulator) -> None:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "What is a token bucket?"}]})
    assert emulator.request("POST", "/v1/chat/completions", body.encode())[0] == 200


@pytest.fixture(scope="module")
def emulator(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Emulator]:
    running = Emulator(tmp_path_factory.mktemp("reliability"), "--request-timeout", "2", "--max-connections", "600")
    yield running
    running.stop()


def responsive(emulator: Emulator, probe: Callable[[], Any]) -> Any:
    """Run `probe` while `/health` is polled; assert the loop stayed responsive and the server alive; the
    probe's result. The yardstick is `/health`'s p99 just before, while ordinary requests are answered."""
    with Health(emulator.port) as before:
        for _ in range(40):
            ordinary(emulator)
    p99 = statistics.quantiles(before.latencies, n=100)[98] if len(before.latencies) > 2 else max(before.latencies)
    with Health(emulator.port) as during:
        result = probe()
        time.sleep(0.1)
    worst = max(during.latencies)
    print(f"  /health worst {worst * 1000:.1f} ms during the probe (p99 before {p99 * 1000:.1f} ms)")
    assert worst < 1.0, f"/health waited {worst:.3f} s during the probe"
    assert worst < max(4 * p99, 0.5), f"/health waited {worst:.3f} s during the probe; p99 before: {p99:.3f} s"
    assert emulator.alive() and emulator.answers()
    return result


def chat(**fields: Any) -> bytes:
    return json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]} | fields).encode()


def nested_arrays(depth: int, items: int) -> dict[str, Any]:
    schema: dict[str, Any] = {"type": "integer"}
    for _ in range(depth):
        schema = {"type": "array", "minItems": items, "items": schema}
    return {"type": "object", "properties": {"x": schema}, "required": ["x"]}


def tool(schema: dict[str, Any]) -> list[dict[str, Any]]:
    return [{"type": "function", "function": {"name": "f", "parameters": schema}}]


# (path, body, headers, the status expected): the findings of the hostile-client review, each a probe.
PROBES: dict[str, tuple[str, bytes, dict[str, str], int]] = {
    "tokens_per_second=1e-320": (
        "/v1/chat/completions",
        chat(stream=True),
        {"x-emulator-timing": "tokens_per_second=1e-320"},
        400,
    ),
    "ttft_ms=1e11": ("/v1/chat/completions", chat(stream=True), {"x-emulator-timing": "ttft_ms=100000000000"}, 400),
    "jitter_ms=1e13": ("/v1/chat/completions", chat(), {"x-emulator-timing": "jitter_ms=10000000000000"}, 400),
    "retry_after=nan": ("/v1/chat/completions", chat(), {"x-emulator-fault": "status=429; retry_after=nan"}, 400),
    "minItems 1000, three deep": (
        "/v1/chat/completions",
        chat(tools=tool(nested_arrays(3, 1000)), tool_choice="required"),
        {},
        400,
    ),
    "minLength 50,000,000": (
        "/v1/chat/completions",
        chat(
            tools=tool(
                {"type": "object", "properties": {"s": {"type": "string", "minLength": 50_000_000}}, "required": ["s"]}
            ),
            tool_choice="required",
        ),
        {},
        400,
    ),
    "Messages input_schema, tool_choice any": (
        "/v1/messages",
        json.dumps(
            {
                "model": "m",
                "max_tokens": 10,
                "messages": [{"role": "user", "content": "hi"}],
                "tools": [{"name": "f", "input_schema": nested_arrays(3, 1000)}],
                "tool_choice": {"type": "any"},
            }
        ).encode(),
        {},
        400,
    ),
    "response_format minItems 20,000,000": (
        "/v1/chat/completions",
        chat(
            response_format={
                "type": "json_schema",
                "json_schema": {"name": "x", "schema": {"type": "array", "minItems": 20_000_000, "items": {}}},
            }
        ),
        {},
        400,
    ),
    "a self-referencing schema": (
        "/v1/responses",
        json.dumps(
            {
                "model": "m",
                "input": "hi",
                "tool_choice": "required",
                "tools": [
                    {
                        "type": "function",
                        "name": "f",
                        "parameters": {
                            "$defs": {
                                "N": {
                                    "type": "object",
                                    "properties": {"next": {"anyOf": [{"$ref": "#/$defs/N"}, {"type": "null"}]}},
                                    "required": ["next"],
                                }
                            },
                            "$ref": "#/$defs/N",
                        },
                    }
                ],
            }
        ).encode(),
        {},
        200,
    ),
    "nested 1,000 levels in metadata": (
        "/v1/messages",
        b'{"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "hi"}], "metadata": '
        + b'{"a": ' * 1000
        + b"1"
        + b"}" * 1000
        + b"}",
        {},
        400,
    ),
    "a lone surrogate": ("/v1/responses", b'{"model": "m", "input": "h\xed\xa0\x80"}', {}, 400),
    "a backtracking regex": (
        "/v1/chat/completions",
        chat(messages=[{"role": "user", "content": "a" * 40 + "b"}]),
        {},
        200,
    ),
    "a 1 MB model name": ("/v1/chat/completions", chat(model="m" * 1_000_000), {}, 200),
}


@pytest.mark.parametrize("name", PROBES)
def test_no_probe_stalls_or_kills_the_server(emulator: Emulator, name: str) -> None:
    path, body, headers, expected = PROBES[name]

    def probe() -> list[int]:
        return [emulator.request("POST", path, body, headers=headers)[0] for _ in range(10 if LONG else 2)]

    assert responsive(emulator, probe) == [expected] * (10 if LONG else 2)


def test_idle_and_trickling_connections_are_closed_and_cost_the_loop_nothing(emulator: Emulator) -> None:
    def probe() -> int:
        idle = [socket.create_connection(("127.0.0.1", emulator.port)) for _ in range(200 if LONG else 100)]
        for i, sock in enumerate(idle[::2]):
            sock.sendall(b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n"[: 5 + i % 20])
        time.sleep(3.5)  # past the 2 s request deadline and its once-a-second check
        closed = 0
        for sock in idle:
            sock.settimeout(2)
            try:
                closed += sock.recv(4096) in (
                    b"",
                    b"HTTP/1.1 408 Request Timeout\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
            except OSError:
                closed += 1
            sock.close()
        return closed

    assert responsive(emulator, probe) == (200 if LONG else 100)


def test_clients_that_leave_paced_streams_leave_the_server_idle(emulator: Emulator) -> None:
    """200 clients that hung up on paced streams left the server at 82% CPU five seconds later. Measured against
    two idle seconds just before, in the same test: the server's CPU time, and `/health`'s latency (polled
    throughout, on its own connection) in the two seconds after the clients left. An absolute bound on
    `/health` failed here on a busy machine; a ratio to a window of the same length, measured a few seconds
    earlier, holds when the whole machine is four times slower."""
    body = chat(stream=True, messages=[{"role": "user", "content": "Tell me a long story about rivers."}])
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        b"authorization: Bearer sk-test\r\nx-emulator-timing: ttft_ms=200; tokens_per_second=20\r\n"
        b"content-length: %d\r\n\r\n%s" % (len(body), body)
    )
    with Health(emulator.port) as health:
        time.sleep(0.2)  # the poll's connection open and warm
        used, idle_from = emulator.cpu_seconds(), time.perf_counter()
        time.sleep(2.0)
        idle, idle_to = emulator.cpu_seconds() - used, time.perf_counter()
        socks = [socket.create_connection(("127.0.0.1", emulator.port)) for _ in range(200)]
        try:
            for sock in socks:
                sock.sendall(request)
            for sock in socks:
                sock.settimeout(10)
                assert sock.recv(4096).startswith(b"HTTP/1.1 200")
        finally:
            for sock in socks:
                sock.close()
        time.sleep(1.0)  # every stream notices within its current pause (50 ms at 20 tokens/s)
        used, after_from = emulator.cpu_seconds(), time.perf_counter()
        time.sleep(2.0)
        after, after_to = emulator.cpu_seconds() - used, time.perf_counter()
    quiet, left = health.between(idle_from, idle_to), health.between(after_from, after_to)
    assert len(quiet) > 10 and len(left) > 10, (len(quiet), len(left))
    quiet_p90, left_p90 = statistics.quantiles(quiet, n=10)[8], statistics.quantiles(left, n=10)[8]
    print(
        f"  CPU {after:.2f} s in 2 s after 200 clients left (idle: {idle:.2f} s); /health p90 {left_p90 * 1000:.1f}"
        f" ms after, {quiet_p90 * 1000:.1f} ms idle; worst {max(health.latencies) * 1000:.0f} ms throughout"
    )
    assert after < 4 * idle + 0.2, (idle, after)  # the health poll's share, not 200 streams playing on
    assert left_p90 < 4 * quiet_p90, (quiet_p90, left_p90)  # the loop as free as before the streams came
    assert emulator.alive() and emulator.answers()


# Faults that keep a stream going for as long as its client stays: one-byte drips (a pause per byte), slices of a
# paced stream, a stall. Each must stop with its client, within the pause it is in.
ABANDONED: dict[str, list[tuple[str, str | None]]] = {
    "drip": [("drip; size=1; ms=5", None)],
    "slice, stall, drip": [
        ("slice; size=1", "tokens_per_second=50"),
        ("stall; after_events=3", None),
        ("drip; size=7; ms=20", None),
    ],
}


@pytest.mark.parametrize("case", ABANDONED)
def test_clients_that_leave_faulted_streams_leave_the_server_idle(emulator: Emulator, case: str) -> None:
    """200 clients that left `drip; size=1; ms=5` streams kept the server at 70% of a core for two to three
    seconds: the server's CPU time over the one to three seconds after the last left must be under 5% of that
    window, above what it used in two idle seconds measured just before."""
    kinds = ABANDONED[case]
    body = chat(stream=True, messages=[{"role": "user", "content": "Tell me a long story about rivers."}])

    def request(fault: str, timing: str | None) -> bytes:
        paced = b"x-emulator-timing: %s\r\n" % timing.encode() if timing else b""
        return (
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"authorization: Bearer sk-test\r\nx-emulator-fault: %s\r\n%scontent-length: %d\r\n\r\n%s"
            % (fault.encode(), paced, len(body), body)
        )

    used = emulator.cpu_seconds()
    time.sleep(2.0)
    idle = emulator.cpu_seconds() - used
    socks = [socket.create_connection(("127.0.0.1", emulator.port)) for _ in range(200)]
    try:
        for i, sock in enumerate(socks):
            sock.sendall(request(*kinds[i % len(kinds)]))
        refused = []
        for i, sock in enumerate(socks):
            sock.settimeout(60)
            try:
                first = sock.recv(4096)
            except OSError as exc:  # seen once in a run of the suite, unexplained: say which and what the log says
                first = repr(exc).encode()
            if not first.startswith(b"HTTP/1.1 200"):
                refused.append((i, first[:80]))
        assert not refused, (len(refused), refused[:5], emulator.log.read_text()[-3000:])
        time.sleep(0.5)  # streaming, every one of them
    finally:
        for sock in socks:
            sock.close()
    time.sleep(1.0)
    used = emulator.cpu_seconds()
    time.sleep(2.0)
    after = emulator.cpu_seconds() - used
    print(f"  CPU over the 1-3 s after 200 clients left: {after:.2f} s (idle: {idle:.2f} s)")
    assert after - idle < 0.05 * 2.0, (idle, after)
    assert emulator.alive() and emulator.answers()


def test_a_yaml_alias_bomb_is_refused_by_check(tmp_path: Path) -> None:
    lines = ["scenarios: []", "l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 10)]
    (tmp_path / "bomb.yaml").write_text("\n".join(lines))
    started = time.monotonic()
    checked = subprocess.run(
        [sys.executable, "-m", "emulator", "check", str(tmp_path / "bomb.yaml")],
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=lambda: resource.setrlimit(resource.RLIMIT_AS, (MEMORY_CAP, MEMORY_CAP)),
    )
    assert checked.returncode == 1 and "aliases expand to more than 1,000,000 values" in checked.stderr
    assert time.monotonic() - started < 60


def paced_streams(emulator: Emulator, count: int) -> dict[str, float]:
    """`count` concurrent streams asked for 500 ms to the first token and 50 tokens/s; the errors."""
    import asyncio

    body = chat(stream=True, max_tokens=40, messages=[{"role": "user", "content": "Tell me about rivers."}])
    request = (
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        b"authorization: Bearer sk-test\r\nx-emulator-timing: ttft_ms=500; tokens_per_second=50\r\n"
        b"connection: close\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
    )

    async def one() -> tuple[float, float, int]:
        """(seconds to the first token, seconds from it to the last event, events after the first token)."""
        reader, writer = await asyncio.open_connection("127.0.0.1", emulator.port)
        started = time.perf_counter()
        writer.write(request)
        arrivals = [time.perf_counter() async for line in reader if line.startswith(b"data: {")]
        writer.close()
        assert len(arrivals) > 3  # the opening event, then the paced ones: tokens, finish, usage
        return arrivals[1] - started, arrivals[-1] - arrivals[1], len(arrivals) - 2

    async def run() -> list[tuple[float, float, int]]:
        return await asyncio.gather(*(one() for _ in range(count)))

    results = asyncio.run(run())
    ttft = sorted(r[0] for r in results)
    rates = [r[2] / r[1] for r in results if r[1] > 0]
    return {
        "ttft_p50": statistics.median(ttft) - 0.5,
        "ttft_p99": ttft[int(0.99 * (len(ttft) - 1))] - 0.5,
        "tokens_per_second": statistics.median(rates),
    }


def test_paced_streams_keep_their_pace_at_scale(emulator: Emulator) -> None:
    """One stream and many, in one run: the many may be late by the loop's share, not by the pace's drift."""
    one = paced_streams(emulator, 1)
    many = paced_streams(emulator, 500 if LONG else 100)
    assert one["tokens_per_second"] > 50 * 0.9  # scheduled from the start: no drift per token
    assert many["tokens_per_second"] > 50 * 0.5
    assert many["ttft_p99"] < 4 * max(one["ttft_p50"], 0.05) + 1.0
    print(f"\npaced streams: one {one}; many {many}")
