"""What the commands share: argparse types with their bounds, the flags of where a server listens and the
connection rules it keeps, `--scrub` and `--admin-token`, and the listening socket itself."""

from __future__ import annotations

import argparse
import math
import os
import socket
import sys
import urllib.parse
from collections.abc import Callable
from typing import Any

from emulator import recordings, server
from emulator.rules import faults
from emulator.server import logs

# The exit codes every command keeps apart: what it checked differs or fails (1, each command's own), what it was
# given or what it runs on is wrong (2: usage, unreadable files, a port taken, a store that does not answer), and a
# fault of the emulator's own (3: a bug, said in one line).
DIFFERENT, ENVIRONMENT, INTERNAL = 1, 2, 3


def replay_speed_argument(parser: argparse.ArgumentParser, what: str) -> None:
    """`--replay-speed`, which `serve` and `record` share: `what` names the gaps it scales."""
    parser.add_argument(
        "--replay-speed",
        type=speed,
        default=1.0,
        metavar="FACTOR",
        help=f"scale {what} (default: 1.0; 0: as fast as possible)",
    )


def scrub_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--scrub",
        type=_scrub,
        action="append",
        metavar="'REGEX=>REPLACEMENT'",
        help="replace volatile text in every string of a request body before matching and recording, "
        "repeatable (Codex's chunk ids and wall times are scrubbed by default)",
    )


def _scrub(text: str) -> tuple[str, str]:
    try:
        return recordings.scrub_spec(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--scrub: ")) from None


def bounded(kind: type[float] | type[int], low: float, high: float, noun: str) -> Callable[[str], Any]:
    """An argparse type: `kind` from `low` to `high` (nan and inf refused), the error in `noun`s."""

    def read(text: str) -> Any:
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {noun}, got {text!r}") from None
        if not low <= value <= high:  # nan and inf too
            span = f"of at least {low:g}" if high == math.inf else f"from {low:g} to {high:g}"
            raise argparse.ArgumentTypeError(f"expected {noun} {span}, got {text}")
        return value

    return read


def http_url(text: str) -> str:
    """An argparse type: an http:// or https:// URL with a host."""
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"expected an http:// or https:// URL, got {text!r}")
    return text


def state_url(text: str) -> str:
    """An argparse type: a redis:// (or rediss://, unix://) URL, with a prefix of plain characters if any."""
    from emulator.state import redis

    try:
        return redis.address(text).url
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


positive = bounded(int, 1, math.inf, "a number")
port = bounded(int, 0, 65535, "a port")
seconds = bounded(float, 0.1, faults.MAX_PAUSE_MS / 1000, "seconds")  # a connection rule's duration
speed = bounded(float, 0, 100, "a factor")  # `--replay-speed`: 0 plays as fast as possible


# The connection rules of `server.Rules`: (flag, type, help), each defaulting to the rule's own default.
CONNECTION_FLAGS = (
    ("--request-timeout", seconds, "seconds to receive a whole request, however slowly it trickles in"),
    ("--keep-alive", seconds, "seconds an idle keep-alive connection stays open"),
    ("--max-connections", positive, "connections open at once; past them a new one is closed at once"),
    ("--shutdown-grace", seconds, "seconds running answers get at shutdown before they are cut"),
    ("--write-timeout", seconds, "seconds a client may leave an answer unread before its connection is dropped"),
)


def address_arguments(parser: argparse.ArgumentParser) -> None:
    """Where a command that serves listens."""
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, loopback only)")
    parser.add_argument(
        "--port", type=port, default=8000, metavar="N", help="port to listen on; 0 picks a free one (default: 8000)"
    )


def connection_arguments(parser: argparse.ArgumentParser) -> None:
    """The connection rules of `server.Rules`, for any command that serves."""
    defaults = server.Rules()
    for flag, kind, help in CONNECTION_FLAGS:
        default = getattr(defaults, flag.removeprefix("--").replace("-", "_"))
        parser.add_argument(flag, type=kind, default=default, metavar="N", help=f"{help} (default: %(default)s)")


def rules(args: argparse.Namespace) -> server.Rules:
    return server.Rules(
        args.request_timeout, args.keep_alive, args.max_connections, args.shutdown_grace, args.write_timeout
    )


def log_arguments(parser: argparse.ArgumentParser) -> None:
    """What a command that serves logs, and how."""
    parser.add_argument("--no-access-log", action="store_true", help="do not log each request")
    parser.add_argument(
        "--log-level", choices=logs.LEVELS, default="info", help="the least level logged (default: %(default)s)"
    )
    parser.add_argument(
        "--log-format",
        choices=logs.FORMATS,
        default="text",
        help="text lines, or one JSON object a line for log shippers (default: %(default)s)",
    )


def served(args: argparse.Namespace) -> dict[str, Any]:
    """The server's logging options from `log_arguments`: the access log is an INFO line, off below that level."""
    access = not args.no_access_log and args.log_level in ("debug", "info")
    return {"access_log": access, "log_format": args.log_format}


def admin_token_argument(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument(
        "--admin-token", default=os.environ.get("EMULATOR_ADMIN_TOKEN") or None, metavar="TOKEN", help=help
    )


def descriptors(connections: int) -> list[str]:
    """Raise this process's soft limit on open descriptors to what `connections` need, up to its hard limit (as Go's
    runtime does for every server); the banner's warning, when even the hard limit is below."""
    try:
        import resource
    except ImportError:  # not a POSIX system
        return []
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    needed = connections + server.SPARE_DESCRIPTORS
    if soft == resource.RLIM_INFINITY or soft >= needed:
        return []
    raised = needed if hard == resource.RLIM_INFINITY else min(needed, hard)
    try:
        resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
    except (ValueError, OSError):
        raised = soft
    if raised >= needed:
        return []
    return [
        f"warning: this process may open {raised} files (ulimit -n), too few for --max-connections {connections}:"
        f" past about {max(raised - server.SPARE_DESCRIPTORS, 0)} connections new ones fail; raise the limit"
        f" (ulimit -n {needed}) or lower --max-connections"
    ]


def listen(host: str, port: int) -> socket.socket | None:
    """The server's socket, bound; None, with the reason printed, when it cannot be (before any banner)."""
    try:
        return server.bind(host, port)
    except OSError as exc:
        print(f"emulator: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return None


def url(host: str, sock: socket.socket) -> str:
    """The base URL of what listens on `sock`, bound to `host`: its real port, an IPv6 host in brackets."""
    return f"http://{f'[{host}]' if ':' in host else host}:{sock.getsockname()[1]}"
