"""`emulator serve --workers 2` with its state in Redis (`--state redis://…`) against the same in process, in one
run, rounds alternating: plain Chat Completions requests ("hi N" -> "Hello", a new body each) and streamed ones,
from `wrk` on 64 connections. Issue 32 asks the Redis side for at least half the in-process requests/s.

    python bench/shared_state.py                       # 3 rounds of 3 s runs; about a minute
    python bench/shared_state.py --rounds 5 --duration 5 --connections 16
    git archive <commit> | tar -x -C /tmp/before       # an older tree (no .git needed) ...
    python bench/shared_state.py --base /tmp/before    # ... served both ways too, in the same rounds

It starts its own redis-server (Debian's, persisting nothing) on a free loopback port, and stops everything it
started at the end (Ctrl-C too)."""

from __future__ import annotations

import argparse
import itertools
import os
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import peers  # scripts beside this one, not a package
import throughput as bench

MODES = ("in process", "redis")


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--duration", type=float, default=3.0, help="seconds a run")
    parser.add_argument("--connections", type=int, default=64)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--no-stream", action="store_true", help="plain requests only")
    parser.add_argument("--base", type=Path, help="another checkout (a tree), served both ways too, as `base`")
    opts = parser.parse_args(argv)
    if not shutil.which("redis-server") or not shutil.which("wrk"):
        print("needs redis-server and wrk (apt-get install redis-server wrk)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="emulator-shared-state-") as scratch:
        run = Path(scratch)
        peers.write_fixtures(run, 64, peers.Pacing(100, 1000, 64))
        harness = bench.Servers(run)
        try:
            return _measure(opts, run, harness)
        finally:
            harness.stop()


def _measure(opts: argparse.Namespace, run: Path, harness: bench.Servers) -> int:
    store = bench._free_port()
    redis_cmd = ["redis-server", "--port", str(store), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    harness.spawn("redis", redis_cmd, store, cwd=run, env={})
    ports = {}
    trees = [("", peers.ROOT)] + ([("base ", opts.base.resolve())] if opts.base else [])
    for (tree, root), mode in itertools.product(trees, MODES):
        port = bench._free_port()
        cmd = [*peers.EMULATOR, "serve", "--port", str(port), "--no-access-log", "--workers", str(opts.workers)]
        cmd += ["--scenarios", str(run / "emulator.yaml")]
        if mode == "redis":
            cmd += ["--state", f"redis://127.0.0.1:{store}/0?prefix={tree.strip() or 'this'}"]
        env = os.environ | {"PYTHONPATH": str(root)}
        name = tree + mode
        ports[name] = harness.spawn(f"emulator-{name}", cmd, port, cwd=root, env=env, wait=300)
    time.sleep(2)  # the other workers
    cases = [("non-stream", peers.HELLO, False)] + ([] if opts.no_stream else [("stream", peers.STREAM, True)])
    print(f"workers {opts.workers}, {opts.connections} connections, {opts.duration:g} s a run, {opts.rounds} rounds")
    for label, prompt, stream in cases:
        body = peers.CHAT.body(prompt + peers.COUNTED, stream)
        rates: dict[str, list[float]] = {name: [] for name in ports}
        for i in range(opts.rounds):
            order = [*ports][i % len(ports) :] + [*ports][: i % len(ports)]  # each first in turn
            for name in order:
                done = peers.wrk(ports[name], peers.CHAT.path, body, opts.connections, opts.duration)
                rates[name].append(done.rate)
                note = f"  ({done.errors})" if done.errors else ""
                print(f"  {label:<10} {name:<15} {done.rate:>9,.1f} req/s  p99 {done.p99:.1f} ms{note}", flush=True)
        for tree, _ in trees:
            ratios = [r / p for r, p in zip(rates[tree + "redis"], rates[tree + "in process"], strict=True)]
            mid = {mode: statistics.median(rates[tree + mode]) for mode in MODES}
            print(
                f"{label}: {tree}in process {mid['in process']:,.0f} req/s, redis {mid['redis']:,.0f} req/s; redis / "
                f"in process {statistics.median(ratios):.2f}x (rounds: {', '.join(f'{r:.2f}' for r in ratios)})",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())
