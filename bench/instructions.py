"""Instructions per request of the whole server, counted by valgrind: the same figure on every run, whatever
else the machine does, where requests per second move 10-15% between runs of the same code.

For each checkout and case, `emulator serve` runs under `valgrind --tool=cachegrind` and answers `--few`
requests, then, in a second run, `--many`; the difference divided by `--many - --few` is the instructions
one more request costs, the server's start and stop cancelled out. One client on one keep-alive connection,
on 127.0.0.1. A ratio new/old of these is what a throughput ratio would be without the noise, as long as
the instructions are where the time goes (the socket's system calls are not counted).

    git worktree add /tmp/before <commit>
    python bench/instructions.py /tmp/before          # this checkout against it; a few minutes
    python bench/instructions.py /tmp/before --new /tmp/other --case haiku

Needs valgrind (Debian's package: `apt-get install valgrind`).
"""

from __future__ import annotations

import argparse
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CHAT = "/v1/chat/completions"
WAIT = 600  # default seconds for a server under valgrind to start or stop: seconds when idle, minutes when busy
# A request as an application sends it to OpenAI: a catalog model and a handful of the fields it knows.
REALISTIC = {
    "model": "gpt-4.1",
    "messages": [
        {"role": "system", "content": "You are a concise assistant for a billing team."},
        {"role": "user", "content": "Tell me about rate limits."},
    ],
    "temperature": 0.7,
    "top_p": 1,
    "max_completion_tokens": 512,
    "seed": 7,
    "user": "bench",
}
# Each case: the path it posts to and its body. `openai` (the public profile, which validates the body against its
# model catalog) against `inferam` (the same body, which Inferam takes as it is) is what validation costs.
CASES: dict[str, tuple[str, dict[str, object] | list[dict[str, object]]]] = {
    "haiku": (CHAT, {"model": "haiku", "messages": [{"role": "user", "content": "hi"}]}),
    "haiku stream": (CHAT, {"model": "haiku", "stream": True, "messages": [{"role": "user", "content": "hi"}]}),
    "default": (CHAT, {"model": "m", "messages": [{"role": "user", "content": "Tell me about rate limits."}]}),
    "default stream": (
        CHAT,
        {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Tell me more."}]},
    ),
    # The same scenario through Gemini's and Bedrock's paths, which the app finds by their route's template.
    "haiku gemini": ("/v1beta/models/haiku:generateContent", {"contents": [{"parts": [{"text": "hi"}]}]}),
    "haiku converse": ("/model/haiku/converse", {"messages": [{"role": "user", "content": [{"text": "hi"}]}]}),
    "openai": (f"/openai{CHAT}", REALISTIC),
    "inferam": (f"/inferam{CHAT}", REALISTIC),
}
# The default model's forms, one request each in turn: what a demo asks of it.
MIX = (
    "Write a short story about a lighthouse keeper.",
    "Write a Python function that reverses a linked list.",
    "Compare renting and buying a home.",
    "How do I make a sourdough starter?",
    "Hello there!",
    "Write a haiku about autumn.",
    "Write an email to my landlord about a broken heater.",
    "Why does bread go stale?",
    "What is a hash table?",
    "What are the benefits of drinking water?",
)
CASES["default mix"] = (CHAT, [{"model": "m", "messages": [{"role": "user", "content": text}]} for text in MIX])


def count(
    tree: Path, path: str, body: dict[str, object] | list[dict[str, object]], requests: int, wait: float = WAIT
) -> int:
    """Instructions of one server run from `tree` that answered `requests` requests of `body` to `path` (of each
    body in turn, for a list), waiting up to `wait` seconds for it to start and to stop."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch, "valgrind.log")
        command = [
            *("valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null"),
            f"--log-file={log}",
            *(sys.executable, "-m", "emulator", "serve", "--port", str(port), "--no-access-log"),
            *("--scenarios", str(tree / "scenarios")),
        ]
        # From the tree's own folder, with it first on the path: `python -m` puts the working folder first.
        env = os.environ | {"PYTHONPATH": str(tree)}
        server = subprocess.Popen(command, cwd=tree, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            bodies = body if isinstance(body, list) else [body]
            _drive(port, path, [json.dumps(b).encode() for b in bodies], requests, wait)
        finally:
            server.send_signal(signal.SIGINT)
            try:
                server.wait(timeout=wait)
            except subprocess.TimeoutExpired:  # never left behind, eating the CPU the next run is counted on
                server.kill()
                server.wait()
                raise
        found = re.search(r"I\s+refs:\s+([\d,]+)", log.read_text())
        if found is None:
            raise RuntimeError(f"valgrind printed no count for {tree}:\n{log.read_text()[-2000:]}")
        return int(found[1].replace(",", ""))


def _drive(port: int, path: str, bodies: list[bytes], requests: int, wait: float) -> None:
    deadline = time.monotonic() + wait
    while True:
        try:
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
            conn.request("GET", "/health")
            conn.getresponse().read()
            break
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.5)
    headers = {"content-type": "application/json", "authorization": "Bearer sk-bench"}
    for i in range(requests):
        conn.request("POST", path, bodies[i % len(bodies)], headers)
        answer = conn.getresponse()
        answer.read()
        if answer.status != 200:
            raise RuntimeError(f"the server answered {answer.status}")
    conn.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path, help="the checkout to compare with")
    parser.add_argument("--new", type=Path, default=ROOT, help="the checkout to measure (default: this one)")
    parser.add_argument("--case", action="append", choices=CASES, help="a case (default: all)")
    parser.add_argument("--few", type=int, default=100, help="requests of the first run (default: 100)")
    parser.add_argument("--many", type=int, default=1100, help="requests of the second run (default: 1100)")
    parser.add_argument(
        "--wait",
        type=float,
        default=WAIT,
        help=f"seconds a server under valgrind may take to start or stop (default: "
        f"{WAIT}; a loaded machine can take longer)",
    )
    args = parser.parse_args()
    if shutil.which("valgrind") is None:
        print("instructions.py needs valgrind (apt-get install valgrind)", file=sys.stderr)
        return 2
    print(f"{'case':<16}{'old':>14}{'new':>14}{'new/old':>9}   instructions per request")
    for name in args.case or CASES:
        path, body = CASES[name]
        each = {}
        for side, tree in (("old", args.old.resolve()), ("new", args.new.resolve())):
            few, many = (count(tree, path, body, n, args.wait) for n in (args.few, args.many))
            each[side] = (many - few) / (args.many - args.few)
        print(f"{name:<16}{each['old']:>14,.0f}{each['new']:>14,.0f}{each['new'] / each['old']:>9.1%}", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
