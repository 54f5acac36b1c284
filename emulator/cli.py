"""`emulator serve`, `record`, `report` and `check`: thin shells over `create_app`, the recorder, uvicorn and
the scenario loader."""

from __future__ import annotations

import argparse
import json
import math
import os
import socket
import sys
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

from emulator import (
    admin,
    controls,
    drift,
    faults,
    journal,
    limits,
    profiles,
    recent,
    recorder,
    recordings,
    scenarios,
    server,
    watch,
)
from emulator.app import Settings, create_app

# The scenarios and cassettes the wheel carries; in a checkout, links to the top-level scenarios/ and recordings/.
BUNDLED = Path(__file__).parent / "bundled"
ENDPOINTS = (
    "POST /v1/chat/completions",
    "POST /v1/responses",
    "POST /v1/messages",
    "POST /v1/messages/count_tokens",
    "GET  /v1/models",
    "GET  /health",
    "POST /_emulator/reset",
    "GET  /_emulator/requests",
    "GET  /_emulator/report",
)


def parser() -> argparse.ArgumentParser:
    """The whole command line: every subcommand and flag, each with its help."""
    root = argparse.ArgumentParser(prog="emulator", description="Impersonate LLM inference upstreams locally.")
    root.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = root.add_subparsers(dest="command", required=True, metavar="COMMAND", help="what to do")

    def command(name: str, help: str) -> argparse.ArgumentParser:
        return commands.add_parser(name, help=help, description=f"{help[0].upper()}{help[1:]}.")

    _serve_arguments(command("serve", "serve the emulated APIs"))
    _record_arguments(command("record", "proxy to a real upstream and record each interaction to a cassette"))
    grade = command("report", "grade how clients behaved under the faults a running emulator served")
    grade.add_argument(
        "--url", type=_http_url, default="http://127.0.0.1:8000", help="the emulator (default: %(default)s)"
    )
    grade.add_argument("--test-id", metavar="ID", help="only this test's requests (x-emulator-test-id)")
    _admin_token_argument(
        grade, "the emulator's admin token, if it is bound beyond loopback (default: $EMULATOR_ADMIN_TOKEN)"
    )
    check = command("check", "validate scenario files and cassettes, print every mistake, exit non-zero on any")
    check.add_argument(
        "paths", type=Path, nargs="+", metavar="PATH", help="scenario file, cassette or directory of either"
    )
    drift.conform_arguments(command("conform", "compare the emulator's own answers with recorded ones, by shape"))
    drift.drift_arguments(command("drift", "re-send recorded requests to the live upstream and compare shapes"))
    controls.arguments(command("mcp", "serve the emulator's controls as MCP tools over stdio, for a coding agent"))
    return root


def main(argv: Sequence[str] | None = None) -> int:
    args = parser().parse_args(argv)
    if args.command == "check":
        return _check(args.paths)
    if args.command == "report":
        return _report(args.url, args.test_id, args.admin_token)
    if args.command == "record":
        return _record(args)
    if args.command == "conform":
        return drift.run_conform(args)
    if args.command == "drift":
        return drift.run_drift(args)
    if args.command == "mcp":
        return controls.main(args)
    return _serve(args)


def _version() -> str:
    try:
        return metadata.version("emulator")
    except metadata.PackageNotFoundError:  # run from a checkout that was never installed
        return "(not installed)"


def _scrub_argument(parser: argparse.ArgumentParser) -> None:
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


def _bounded(kind: type[float] | type[int], low: float, high: float, noun: str) -> Callable[[str], Any]:
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


def _http_url(text: str) -> str:
    """An argparse type: an http:// or https:// URL with a host."""
    parts = urllib.parse.urlsplit(text)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise argparse.ArgumentTypeError(f"expected an http:// or https:// URL, got {text!r}")
    return text


def _state_url(text: str) -> str:
    """An argparse type: a redis:// (or rediss://, unix://) URL, with a prefix of plain characters if any."""
    from emulator import shared_redis  # here, not above: redis takes a tenth of a second to import

    try:
        return shared_redis.address(text).url
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


_positive = _bounded(int, 1, math.inf, "a number")
_port = _bounded(int, 0, 65535, "a port")
_seconds = _bounded(float, 0.1, faults.MAX_PAUSE_MS / 1000, "seconds")  # a connection rule's duration
_speed = _bounded(float, 0, 100, "a factor")  # `--replay-speed`: 0 plays as fast as possible


# The connection rules of `server.Rules`: (flag, type, help), each defaulting to the rule's own default.
CONNECTION_FLAGS = (
    ("--request-timeout", _seconds, "seconds to receive a whole request, however slowly it trickles in"),
    ("--keep-alive", _seconds, "seconds an idle keep-alive connection stays open"),
    ("--max-connections", _positive, "connections open at once; past them a new one is closed at once"),
    ("--shutdown-grace", _seconds, "seconds running answers get at shutdown before they are cut"),
)


def _address_arguments(parser: argparse.ArgumentParser) -> None:
    """Where a command that serves listens."""
    parser.add_argument("--host", default="127.0.0.1", help="address to bind (default: 127.0.0.1, loopback only)")
    parser.add_argument(
        "--port", type=_port, default=8000, metavar="N", help="port to listen on; 0 picks a free one (default: 8000)"
    )


def _connection_arguments(parser: argparse.ArgumentParser) -> None:
    """The connection rules of `server.Rules`, for any command that serves."""
    rules = server.Rules()
    for flag, kind, help in CONNECTION_FLAGS:
        default = getattr(rules, flag.removeprefix("--").replace("-", "_"))
        parser.add_argument(flag, type=kind, default=default, metavar="N", help=f"{help} (default: %(default)s)")


def _rules(args: argparse.Namespace) -> server.Rules:
    return server.Rules(args.request_timeout, args.keep_alive, args.max_connections, args.shutdown_grace)


def _serve_arguments(serve: argparse.ArgumentParser) -> None:
    _address_arguments(serve)
    _connection_arguments(serve)
    _scrub_argument(serve)
    serve.add_argument(
        "--watch",
        action="store_true",
        help="scenario files and cassettes added, changed or removed take effect without a restart",
    )
    _admin_token_argument(
        serve, "the token the /_emulator/ routes need when bound beyond loopback (default: $EMULATOR_ADMIN_TOKEN)"
    )
    _answer_arguments(serve)
    _bound_arguments(serve)
    _replay_arguments(serve)
    _scale_arguments(serve)
    serve.add_argument("--no-access-log", action="store_true", help="do not log each request")


def _answer_arguments(serve: argparse.ArgumentParser) -> None:
    """What answers: the scenarios, the profile, the seed and clock, and the fault, pacing and limits for all."""
    serve.add_argument(
        "--scenarios",
        type=Path,
        action="append",
        metavar="PATH",
        help="scenario file or directory, repeatable (default: ./scenarios if it exists, else the bundled ones)",
    )
    serve.add_argument(
        "--profile",
        choices=sorted(profiles.PROFILES),
        default=profiles.DEFAULT,
        help="the upstream plain /v1 stands in for (default: inferam); /NAME/v1 serves each profile too",
    )
    serve.add_argument(
        "--model",
        action="append",
        metavar="NAME",
        help="a model the openai and anthropic profiles know beside their catalogs, repeatable; it takes every "
        "parameter",
    )
    serve.add_argument(
        "--lenient",
        action="store_true",
        help="the openai and anthropic profiles answer unknown models and fields (their model's parameter and range "
        "checks stay), and the journal says what they would have refused",
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
    serve.add_argument(
        "--fault",
        metavar="SPEC",
        help="a fault for every request, in the header grammar, e.g. 'status=503; retry_after=1' (see docs/faults.md)",
    )
    serve.add_argument(
        "--timing",
        metavar="SPEC",
        help="pacing for every request, e.g. 'ttft_ms=300; tokens_per_second=60' (default: as fast as possible)",
    )
    serve.add_argument(
        "--limits",
        metavar="SPEC",
        help="rate limits per API key, enforced with 429s, e.g. 'requests_per_minute=60; tokens_per_minute=40000; "
        "requests_per_day=1000'; 'off' for no rate-limit headers (default: generous limits that only report)",
    )


def _bound_arguments(serve: argparse.ArgumentParser) -> None:
    """How much the server keeps: the journal, and the clients whose counts it remembers."""
    serve.add_argument(
        "--journal-size",
        type=_positive,
        default=journal.CAPACITY,
        metavar="N",
        help="requests the journal keeps, the oldest going first (default: %(default)s)",
    )
    serve.add_argument(
        "--journal-bytes",
        type=_positive,
        default=journal.MAX_BYTES,
        metavar="N",
        help="bytes of request and answer bodies the journal keeps, the oldest entries going first; a body past "
        f"{journal.BODY_CAP} bytes is kept cut (default: %(default)s)",
    )
    serve.add_argument(
        "--max-clients",
        type=_positive,
        default=recent.CAPACITY,
        metavar="N",
        help="test ids, keys and conversations whose counts and rate limits are kept, the least recently seen "
        "forgotten first (default: %(default)s)",
    )


def _replay_arguments(serve: argparse.ArgumentParser) -> None:
    """The cassettes replayed, and how."""
    serve.add_argument(
        "--recordings",
        type=Path,
        action="append",
        metavar="PATH",
        help="cassette file or directory to replay, repeatable (an explicit scenario still wins); the bundled "
        f"cassettes are in {BUNDLED / 'recordings'}",
    )
    serve.add_argument(
        "--replay-speed",
        type=_speed,
        default=1.0,
        metavar="FACTOR",
        help="scale the recorded gaps between events (default: 1.0; 0: as fast as possible)",
    )
    serve.add_argument(
        "--strict",
        action="store_true",
        help="replay only: a request no recording matches gets an error naming the nearest recording",
    )


def _scale_arguments(serve: argparse.ArgumentParser) -> None:
    """Worker processes, and where what they share is kept."""
    serve.add_argument(
        "--workers",
        type=_positive,
        default=1,
        metavar="N",
        help="processes serving the one port (default: 1); without --state each keeps its own journal, counters "
        "and limits",
    )
    serve.add_argument(
        "--state",
        type=_state_url,
        metavar="URL",
        help="keep what requests share (journal, counters, rate limits, posted scenarios and faults, stored "
        "responses, metrics) in Redis, for every worker and replica: redis://HOST:PORT[/DB][?prefix=NAME] "
        "(default: in each process)",
    )


def _record_arguments(record: argparse.ArgumentParser) -> None:
    record.add_argument(
        "--upstream", required=True, type=_http_url, metavar="URL", help="the upstream, e.g. https://api.openai.com"
    )
    _address_arguments(record)
    _connection_arguments(record)
    _scrub_argument(record)
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
    record.add_argument(
        "--replay-speed",
        type=_speed,
        default=1.0,
        metavar="FACTOR",
        help="scale the recorded gaps of what is replayed (default: 1.0; 0: as fast as possible)",
    )
    record.add_argument("--no-access-log", action="store_true", help="do not log each request")


def _admin_token_argument(parser: argparse.ArgumentParser, help: str) -> None:
    parser.add_argument(
        "--admin-token", default=os.environ.get("EMULATOR_ADMIN_TOKEN") or None, metavar="TOKEN", help=help
    )


def _check(paths: list[Path]) -> int:
    """Validate scenario files and cassettes (told apart by a top-level `interactions`); print every mistake."""
    problems: list[str] = []
    try:
        files = scenarios.yaml_files(paths)
    except scenarios.ScenarioError as exc:
        print(exc, file=sys.stderr)
        return 1
    cassettes = [f for f in files if recordings.is_cassette_file(f)]
    book, library = scenarios.Book(()), recordings.Library(())
    try:
        book = scenarios.load([f for f in files if f not in cassettes])
    except scenarios.ScenarioError as exc:
        problems.append(str(exc))
    try:
        library = recordings.load(cassettes)
    except recordings.CassetteError as exc:
        problems.append(str(exc))
    if problems:
        print("\n".join(problems), file=sys.stderr)
        return 1
    print(f"ok: {len(book.scenarios)} scenarios, {len(library)} recordings in {len(cassettes)} cassettes")
    for s in book.scenarios:
        print(f"  {s.name}  ({s.source})")
    for file in cassettes:
        print(f"  {file}  (cassette)")
    return 0


def _report(url: str, test_id: str | None, token: str | None = None) -> int:
    """Print the client report; exit 1 when it has findings, 2 when the emulator cannot be reached."""
    query = f"?{urllib.parse.urlencode({'test_id': test_id})}" if test_id else ""
    try:
        asked = urllib.request.Request(f"{url.rstrip('/')}/_emulator/report{query}")
        if token:
            asked.add_header("authorization", f"Bearer {token}")
        with urllib.request.urlopen(asked, timeout=10) as response:
            graded = json.load(response)
    except (OSError, ValueError) as exc:
        print(f"emulator: could not read the report from {url}: {exc}", file=sys.stderr)
        return 2
    print(f"{graded['verdict']}: {len(graded['findings'])} findings over {graded['faulted_requests']} faulted requests")
    for f in graded["findings"]:
        print(f"  {f['rule']}: {f['detail']} (requests {', '.join(map(str, f['requests']))}): {f['means']}")
    return 1 if graded["findings"] else 0


def rate_limits(spec: str | None) -> limits.Limits:
    """`--limits`: none given, the default limits, which only report; `off`, none at all; else those enforced."""
    if spec is None:
        return limits.DEFAULT
    return limits.OFF if spec.strip() == "off" else limits.parse(faults.split_spec(spec), "--limits")


def _default_scenarios() -> Path:
    """With no `--scenarios`: ./scenarios if it exists, else the bundled ones, wherever the emulator runs."""
    local = Path("scenarios")
    return local if local.is_dir() else BUNDLED / "scenarios"


def _serve(args: argparse.Namespace) -> int:
    paths = args.scenarios or [_default_scenarios()]
    try:
        fault = faults.fault(faults.split_spec(args.fault), "--fault") if args.fault else None
        pace = faults.timing(faults.split_spec(args.timing), "--timing") if args.timing else None
        quota = rate_limits(args.limits)
    except ValueError as exc:
        print(f"emulator: {exc}", file=sys.stderr)
        return 2
    settings = Settings(
        scenarios=tuple(paths),
        seed=args.seed,
        frozen_time=args.freeze_time,
        fault=fault,
        timing=pace,
        limits=quota,
        profile=args.profile,
        recordings=tuple(args.recordings or ()),
        replay_speed=args.replay_speed,
        strict=args.strict,
        models=tuple(args.model or ()),
        lenient=args.lenient,
        max_clients=args.max_clients,
        journal_size=args.journal_size,
        journal_bytes=args.journal_bytes,
        host=args.host,
        admin_token=args.admin_token,
        scrub=tuple(args.scrub or ()),
        state=args.state,
    )
    try:
        app = create_app(settings)
    except ConnectionError as exc:  # --state names a store that does not answer
        print(f"emulator: {exc}", file=sys.stderr)
        return 1
    except scenarios.ScenarioError as exc:
        print(f"emulator: the scenarios are invalid:\n{exc}", file=sys.stderr)
        return 1
    except (OSError, ValueError) as exc:
        print(f"emulator: the recordings cannot be read: {exc}", file=sys.stderr)
        return 1
    sock = _listen(args.host, args.port)
    if sock is None:
        return 1
    base = _url(args.host, sock)
    state = app.state.emulator
    book = state.book
    frozen = ", frozen clock" if args.freeze_time is not None else ""
    lines = [f"emulator on {base}  (profile {args.profile}, seed {args.seed}{frozen})"]
    lines += [f"  {e.split()[0]:<5}{base}{e.split()[1]}" for e in ENDPOINTS]
    lines += [f"every request: {faults.describe(v)}" for v in (fault, pace) if v]
    lines += [f"rate limits per key: {quota}"] if quota.enforce and quota else []
    if not admin.loopback(args.host) and not args.admin_token:
        lines.append("warning: bound beyond loopback with no --admin-token: the /_emulator/ routes answer 401")
    lines.append(f"scenarios: {len(book.scenarios)} from {', '.join(map(str, paths))}")
    lines += [f"  {s.name}" for s in book.scenarios]
    if state.library is not None:
        lines.append(f"recordings: {len(state.library)} from {', '.join(map(str, settings.recordings))}")
    if args.watch:  # in each worker: a thread does not survive the fork
        lines.append(f"watching: {', '.join(map(str, [*paths, *settings.recordings])) or 'nothing'}")
    lines += _sharing(args.workers, args.state)
    print("\n".join(lines), flush=True)
    setup = (lambda: watch.start(state)) if args.watch else None
    server.run(
        app, sock, _rules(args), workers=args.workers, setup=setup, access_log=not args.no_access_log, log_level="info"
    )
    return 0


# What a worker keeps for itself when the state is not shared, in the banner's words.
PER_WORKER = (
    "the journal and its ids, call counts of `replies` scenarios, rate-limit buckets, chaos and retry attempts, "
    "stored responses and threads, posted scenarios and per-test faults, prompt caches, and /metrics"
)


def _sharing(workers: int, url: str | None) -> list[str]:
    """The banner's lines on where the shared state lives, and what each worker keeps for itself."""
    if url is not None:
        from emulator import shared_redis

        found = shared_redis.address(url)
        return [f"workers: {workers}, sharing state in {found.shown} (keys {found.prefix}:*)"]
    if workers == 1:
        return []
    return [f"workers: {workers}, each with its own state (no --state): per worker are {PER_WORKER}"]


def _listen(host: str, port: int) -> socket.socket | None:
    """The server's socket, bound; None, with the reason printed, when it cannot be (before any banner)."""
    try:
        return server.bind(host, port)
    except OSError as exc:
        print(f"emulator: cannot listen on {host}:{port}: {exc.strerror or exc}", file=sys.stderr)
        return None


def _url(host: str, sock: socket.socket) -> str:
    """The base URL of what listens on `sock`, bound to `host`: its real port, an IPv6 host in brackets."""
    return f"http://{f'[{host}]' if ':' in host else host}:{sock.getsockname()[1]}"


def _record(args: argparse.Namespace) -> int:
    try:
        proxy = recorder.Recorder(args.upstream, args.out, args.mode, args.replay_speed, tuple(args.scrub or ()))
    except (OSError, ValueError) as exc:
        print(f"emulator: the cassette {args.out} cannot be read: {exc}", file=sys.stderr)
        return 1
    sock = _listen(args.host, args.port)
    if sock is None:
        return 1
    held = f" ({proxy.loaded} held)" if proxy.loaded else ""
    doing = "replaying" if proxy.replay_only else "recording"
    where = f"{_url(args.host, sock)}/v1/… → {args.upstream}"
    print(f"{doing} {where}, mode {args.mode}, into {args.out}{held}", flush=True)
    options: dict[str, Any] = {"access_log": not args.no_access_log, "log_level": "info", **recorder.SERVER_OPTIONS}
    server.run(proxy, sock, _rules(args), **options)
    return 0


if __name__ == "__main__":
    sys.exit(main())
