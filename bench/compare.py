"""Two checkouts of the emulator side by side in one run: the requests/s of each under the same load, round
after round alternating which goes first, and the ratio new/old of each adjacent pair. For an issue's rule
"no figure drops by more than N%": the shared machine's drift hits both sides of a pair alike, where two
separate runs of `throughput.py` differ by 10-15% on their own.

    git worktree add /tmp/before <commit>       # the checkout to compare with
    python bench/compare.py /tmp/before         # this checkout against it; about 2 minutes
    python bench/compare.py /tmp/before --rounds 3 --duration 2    # a quick look

The cases, the load generator (`wrk`, else the asyncio client) and the servers' settings are
`throughput.py`'s; everything stays on 127.0.0.1.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import throughput as bench  # a script beside this one, not a package


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0] if __doc__ else None)
    parser.add_argument("old", type=Path, help="the checkout to compare with (its emulator/ and scenarios/)")
    parser.add_argument("--new", type=Path, default=bench.ROOT, help="the other checkout (default: this one)")
    parser.add_argument("--duration", type=float, default=3.0, help="seconds of load per run (default: 3)")
    parser.add_argument("--rounds", type=int, default=6, help="old/new run pairs per case (default: 6)")
    parser.add_argument("--connections", type=int, default=16, help="keep-alive connections (default: 16)")
    args = parser.parse_args(argv)
    wrk = bench._wrk()

    def run(port: int, case: bench.Case, duration: float) -> float:
        if wrk:
            return bench._run_wrk(wrk, port, case, duration, args.connections).requests_per_second
        return bench._run_python_load(port, case, duration, args.connections).requests_per_second

    pairs: dict[str, list[tuple[float, float]]] = {case.name: [] for case in bench.CASES}
    with tempfile.TemporaryDirectory(prefix="compare-") as tmp:
        servers = bench.Servers(Path(tmp))
        try:
            sides = {"old": servers.start("old", "emulator", tree=args.old.resolve())}
            sides["new"] = servers.start("new", "emulator", tree=args.new.resolve())
            for case in bench.CASES:
                for side, port in sides.items():
                    answered = bench._post(port, case.raw())
                    if answered.status != 200:
                        raise RuntimeError(f"{case.name}: {side} answered {answered.status}: {answered.body[:300]!r}")
                    run(port, case, 1)  # warm-up, not counted
                for i in range(args.rounds):
                    order = ["old", "new"] if i % 2 == 0 else ["new", "old"]
                    rates = {side: run(sides[side], case, args.duration) for side in order}
                    pairs[case.name].append((rates["old"], rates["new"]))
                    print(f"  {case.name:<16} old {rates['old']:>9,.0f}  new {rates['new']:>9,.0f} req/s", flush=True)
        finally:
            servers.stop()

    print(f"\n{args.new} against {args.old}: {args.rounds} pairs of {args.duration:g} s each, medians")
    print(f"{'case':<16}{'old req/s':>11}{'new req/s':>11}{'new/old':>9}{'pairs, lowest..highest':>26}")
    for name, measured in pairs.items():
        ratios = sorted(new / old for old, new in measured)
        old = statistics.median(o for o, _ in measured)
        new = statistics.median(n for _, n in measured)
        spread = f"{ratios[0]:.1%}..{ratios[-1]:.1%}"
        print(f"{name:<16}{old:>11,.0f}{new:>11,.0f}{statistics.median(ratios):>9.1%}{spread:>26}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
