"""`emulator record`: a proxy to the real upstream that writes each interaction to a cassette."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from emulator import server
from emulator.cli import flags
from emulator.http import recorder
from emulator.server import logs


def arguments(record: argparse.ArgumentParser) -> None:
    record.add_argument(
        "--upstream",
        required=True,
        type=flags.http_url,
        metavar="URL",
        help="the upstream, e.g. https://api.openai.com",
    )
    flags.address_arguments(record)
    flags.connection_arguments(record)
    flags.scrub_argument(record)
    record.add_argument(
        "--out",
        type=Path,
        default=Path("recordings/recorded.yaml"),
        metavar="PATH",
        help="the cassette (default: %(default)s)",
    )
    record.add_argument(
        "--mode",
        choices=tuple(recorder.MODES),
        default="new_episodes",
        help="vcrpy's record modes: "
        + "; ".join(f"{k}: {v}" for k, v in recorder.MODES.items())
        + " (default: %(default)s)",
    )
    flags.replay_speed_argument(record, "the recorded gaps of what is replayed")
    flags.log_arguments(record)


def run(args: argparse.Namespace) -> int:
    try:
        proxy = recorder.Recorder(args.upstream, args.out, args.mode, args.replay_speed, tuple(args.scrub or ()))
    except (OSError, ValueError) as exc:
        print(f"emulator: the cassette {args.out} cannot be read: {exc}", file=sys.stderr)
        return flags.ENVIRONMENT
    sock = flags.listen(args.host, args.port)
    if sock is None:
        return flags.ENVIRONMENT
    held = f" ({proxy.loaded} held)" if proxy.loaded else ""
    doing = "replaying" if proxy.replay_only else "recording"
    where = f"{flags.url(args.host, sock)}/v1/… → {args.upstream}"
    print(f"{doing} {where}, mode {args.mode}, into {args.out}{held}", flush=True)
    logs.setup(args.log_level, args.log_format)
    server.run(proxy, sock, flags.rules(args), **flags.served(args), **recorder.SERVER_OPTIONS)
    return 0
