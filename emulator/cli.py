"""`emulator serve` and `emulator check`: thin shells over `create_app`, uvicorn and the scenario loader."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

import uvicorn

from emulator import scenarios
from emulator.app import Settings, create_app

ENDPOINTS = (
    "POST /v1/chat/completions",
    "POST /v1/responses",
    "POST /v1/messages",
    "POST /v1/messages/count_tokens",
    "GET  /v1/models",
    "GET  /health",
    "POST /emulator/reset",
)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="emulator", description="Impersonate LLM inference upstreams locally.")
    commands = parser.add_subparsers(dest="command", required=True)

    serve = commands.add_parser("serve", help="serve the emulated APIs")
    serve.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, loopback only)")
    serve.add_argument("--port", type=int, default=8000)
    serve.add_argument(
        "--scenarios",
        type=Path,
        action="append",
        help="scenario file or directory, repeatable (default: ./scenarios if it exists)",
    )
    serve.add_argument("--seed", type=int, default=0, help="seed of generated ids and text (default: 0)")
    serve.add_argument(
        "--freeze-time",
        type=int,
        metavar="EPOCH",
        nargs="?",
        const=1767225600,
        help="report this Unix time as `created` (default when given alone: 2026-01-01), for identical bytes",
    )
    serve.add_argument("--no-access-log", action="store_true", help="do not log each request")

    check = commands.add_parser("check", help="validate scenario files and exit non-zero on a mistake")
    check.add_argument("paths", type=Path, nargs="+", metavar="PATH")

    args = parser.parse_args(argv)
    if args.command == "check":
        return _check(args.paths)
    return _serve(args)


def _check(paths: list[Path]) -> int:
    try:
        book = scenarios.load(paths)
    except scenarios.ScenarioError as exc:
        print(exc, file=sys.stderr)
        return 1
    print(f"ok: {len(book.scenarios)} scenarios")
    for s in book.scenarios:
        print(f"  {s.name}  ({s.source})")
    return 0


def _serve(args: argparse.Namespace) -> int:
    paths = args.scenarios or ([Path("scenarios")] if Path("scenarios").is_dir() else [])
    settings = Settings(scenarios=tuple(paths), seed=args.seed, frozen_time=args.freeze_time)
    try:
        app = create_app(settings)
    except scenarios.ScenarioError as exc:
        print(f"emulator: the scenarios are invalid:\n{exc}", file=sys.stderr)
        return 1
    base = f"http://{args.host}:{args.port}"
    book = app.state.book
    lines = [f"emulator on {base}  (seed {args.seed}{', frozen clock' if args.freeze_time is not None else ''})"]
    lines += [f"  {e.split()[0]:<5}{base}{e.split()[1]}" for e in ENDPOINTS]
    lines.append(f"scenarios: {len(book.scenarios)} from {', '.join(map(str, paths)) or 'nowhere'}")
    lines += [f"  {s.name}" for s in book.scenarios]
    print("\n".join(lines), flush=True)
    uvicorn.run(app, host=args.host, port=args.port, access_log=not args.no_access_log, log_level="info")
    return 0


if __name__ == "__main__":
    sys.exit(main())
