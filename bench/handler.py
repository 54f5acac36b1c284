"""The handler's own cost per request, in process: the ASGI app called directly, no server, no socket.

What it measures, for the `haiku` scenario and the default generator, each non-streamed and streamed, and the
default's `default mix` (instructions.py's ten prompts of different kinds, in turn):
microseconds per request from the ASGI call to the last `send`, the median of `--rounds` rounds of
`--requests` requests each. It is the figure issue work quotes as "the handler per request"; what the
server and the socket add is `throughput.py`'s to measure.

To compare two trees in one run, give each in turn on PYTHONPATH, alternating, e.g.:

    git worktree add /tmp/before HEAD~1
    for i in 1 2 3; do
        PYTHONPATH=/tmp/before python bench/handler.py; python bench/handler.py
    done

Instructions per request, the same figure whatever else the machine does, for every case in one run: under
callgrind with instrumentation off until the measured requests (start-up runs at full speed), each case counted
apart (`--callgrind` issues callgrind's requests through a small C helper it builds with `cc`):

    valgrind --tool=callgrind --instr-atstart=no python bench/handler.py --callgrind --requests 200
"""

from __future__ import annotations

import argparse
import asyncio
import ctypes
import json
import os
import re
import statistics
import subprocess
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from instructions import MIX  # bench/ is the script's folder, first on the path

import emulator
from emulator.http.app import Settings, create_app

ROOT = Path(emulator.__file__).resolve().parent.parent
# A checkout's scenarios/, or, for an installed wheel (compiled or not), the ones bundled in the package.
SCENARIOS = ROOT / "scenarios" if (ROOT / "scenarios").is_dir() else ROOT / "emulator" / "bundled" / "scenarios"
Body = bytes | tuple[bytes, ...]  # a case's body, or its bodies in turn
CASES: dict[str, Body] = {
    "haiku": b'{"model": "haiku", "messages": [{"role": "user", "content": "hi"}]}',
    "default": b'{"model": "m", "messages": [{"role": "user", "content": "Tell me about rate limits."}]}',
    "haiku stream": b'{"model": "haiku", "stream": true, "messages": [{"role": "user", "content": "hi"}]}',
    "default stream": b'{"model": "m", "stream": true, "messages": [{"role": "user", "content": "Tell me more."}]}',
}
# instructions.py's `default mix`: the default model's forms, one request each in turn.
CASES["default mix"] = tuple(
    json.dumps({"model": "m", "messages": [{"role": "user", "content": q}]}).encode() for q in MIX
)


def scope(body: bytes) -> dict[str, Any]:
    headers = [(b"content-type", b"application/json"), (b"authorization", b"Bearer sk-bench")]
    return {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "POST",
        "scheme": "http",
        "path": "/v1/chat/completions",
        "raw_path": b"/v1/chat/completions",
        "root_path": "",
        "query_string": b"",
        "headers": [*headers, (b"content-length", str(len(body)).encode())],
        "client": ("127.0.0.1", 50000),
        "server": ("127.0.0.1", 8000),
        "state": {},
    }


async def measure(app: Callable[..., Awaitable[None]], body: Body, requests: int) -> float:
    """Microseconds per request over `requests` requests of `body` (of each body in turn, for several)."""
    bodies = body if isinstance(body, tuple) else (body,)
    scopes = [scope(b) for b in bodies]

    def receiver(sent: bytes) -> Callable[[], Awaitable[dict[str, Any]]]:
        async def receive() -> dict[str, Any]:
            return {"type": "http.request", "body": sent, "more_body": False}

        return receive

    receives = [receiver(b) for b in bodies]

    async def send(message: dict[str, Any]) -> None:
        return None

    started = time.perf_counter()
    for i in range(requests):
        await app(dict(scopes[i % len(bodies)]), receives[i % len(bodies)], send)
    return (time.perf_counter() - started) / requests * 1e6


# callgrind's client requests (valgrind/callgrind.h), called from Python through ctypes.
HELPER = """#include <valgrind/callgrind.h>
void start(void) { CALLGRIND_START_INSTRUMENTATION; }
void zero(void) { CALLGRIND_ZERO_STATS; }
void dump(const char *what) { CALLGRIND_DUMP_STATS_AT(what); }
"""


def callgrind() -> ctypes.CDLL:
    """The helper, built with `cc` (and valgrind's headers) into a temporary folder."""
    folder = tempfile.mkdtemp()
    source, library = Path(folder, "helper.c"), Path(folder, "helper.so")
    source.write_text(HELPER)
    subprocess.run(["cc", "-O2", "-shared", "-fPIC", "-o", str(library), str(source)], check=True)
    return ctypes.CDLL(str(library))


async def count(app: Callable[..., Awaitable[None]], cases: dict[str, Body], requests: int) -> None:
    """Each case's instructions per request, from callgrind's dump of its `requests` requests (callgrind.out.PID.N
    in the working folder, callgrind's default name)."""
    helper = callgrind()
    helper.start()
    for part, (name, body) in enumerate(cases.items(), 1):
        await measure(app, body, 10)  # the code instrumented anew runs once before it is counted
        helper.zero()
        await measure(app, body, requests)
        helper.dump(name.encode())
        dumped = Path(f"callgrind.out.{os.getpid()}.{part}")
        found = re.search(r"^summary: (\d+)", dumped.read_text(), re.M) if dumped.is_file() else None
        said = f"{int(found[1]) / requests:12,.0f} instructions/request" if found else f"(see {dumped.name})"
        print(f"  {name:<16} {said}", flush=True)


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--case", action="append", choices=CASES, help="a case (default: all)")
    parser.add_argument("--callgrind", action="store_true", help="count instructions instead (see above)")
    args = parser.parse_args()
    cases = {name: CASES[name] for name in args.case or CASES}
    app = create_app(Settings(scenarios=(SCENARIOS,), frozen_time=1767225600))
    for body in cases.values():  # warm up: imports, caches, the first request's one-off work
        await measure(app, body, 50)
    if args.callgrind:
        print(f"{emulator.__file__}")
        return await count(app, cases, args.requests)
    results: dict[str, list[float]] = {name: [] for name in cases}
    for _ in range(args.rounds):
        for name, body in cases.items():
            results[name].append(await measure(app, body, args.requests))
    print(f"{emulator.__file__}")
    for name, figures in results.items():
        rounds = ", ".join(f"{f:.1f}" for f in figures)
        print(f"  {name:<16} {statistics.median(figures):7.1f} µs/request  (rounds: {rounds})")


if __name__ == "__main__":
    asyncio.run(main())
