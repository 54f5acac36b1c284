"""`emulator serve`: its flags (what answers, how much is kept, the cassettes replayed, the workers and their
shared state), the banner, and the server started on the app."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from emulator import journal, scenarios, server
from emulator.bundled import BUNDLED, default_scenarios
from emulator.cli import flags
from emulator.core import recent
from emulator.http import admin, fallback, watch
from emulator.http.app import Settings, create_app
from emulator.rules import faults, limits, profiles
from emulator.server import logs

# The scenarios and cassettes the wheel carries; in a checkout, links to the top-level scenarios/ and recordings/.
ENDPOINTS = (
    "POST /v1/chat/completions",
    "POST /v1/responses",
    "POST /v1/messages",
    "POST /v1/messages/count_tokens",
    "POST /v1/completions",
    "POST /v1/embeddings",
    "GET  /v1/models",
    "POST /api/chat",  # Ollama's, and the rest of its API under /api/
    "POST /v1beta/models/MODEL:generateContent",  # Gemini's, and its other methods; /v1/… too
    "GET  /health",
    "POST /_emulator/reset",
    "GET  /_emulator/requests",
    "GET  /_emulator/report",
)
# The other profiles' own paths, for the banner: each serves under /NAME/ too (docs/profiles.md)
ELSEWHERE = (
    "Azure OpenAI: {base}/openai/deployments/NAME/...?api-version=V (--profile azure, or under {base}/azure)",
    "Vertex AI: {base}/v1beta1/projects/P/locations/L/publishers/google/models/MODEL:generateContent "
    "(Claude: .../publishers/anthropic/models/MODEL:rawPredict)",
    "Bedrock: {base}/model/MODEL_ID/converse (and converse-stream, invoke, invoke-with-response-stream)",
)


def arguments(serve: argparse.ArgumentParser) -> None:
    flags.address_arguments(serve)
    flags.connection_arguments(serve)
    flags.scrub_argument(serve)
    serve.add_argument(
        "--watch",
        action="store_true",
        help="scenario files and cassettes added, changed or removed take effect without a restart",
    )
    flags.admin_token_argument(
        serve, "the token the /_emulator/ routes need when bound beyond loopback (default: $EMULATOR_ADMIN_TOKEN)"
    )
    _answer_arguments(serve)
    _bound_arguments(serve)
    _replay_arguments(serve)
    _scale_arguments(serve)
    _fallback_arguments(serve)
    flags.log_arguments(serve)


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
        "--cors-origin",
        action="append",
        metavar="ORIGIN",
        help="a web origin whose pages may call the API routes, besides loopback ones (e.g. https://demo.example); "
        "repeatable; `*` allows any. Never the admin API",
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
        type=flags.positive,
        default=journal.CAPACITY,
        metavar="N",
        help="requests the journal keeps, the oldest going first (default: %(default)s)",
    )
    serve.add_argument(
        "--journal-bytes",
        type=flags.positive,
        default=journal.MAX_BYTES,
        metavar="N",
        help="bytes of request and answer bodies the journal keeps, the oldest entries going first; a body past "
        f"{journal.BODY_CAP} bytes is kept cut (default: %(default)s)",
    )
    serve.add_argument(
        "--max-clients",
        type=flags.positive,
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
    flags.replay_speed_argument(serve, "the recorded gaps between events")
    serve.add_argument(
        "--strict",
        action="store_true",
        help="replay only: a request no recording matches gets an error naming the nearest recording",
    )


def _scale_arguments(serve: argparse.ArgumentParser) -> None:
    """Worker processes, and where what they share is kept."""
    serve.add_argument(
        "--workers",
        type=flags.positive,
        default=1,
        metavar="N",
        help="processes serving the one port (default: 1); without --state each keeps its own journal, counters "
        "and limits",
    )
    serve.add_argument(
        "--state",
        type=flags.state_url,
        metavar="URL",
        help="keep what requests share (journal, counters, rate limits, posted scenarios and faults, stored "
        "responses, metrics) in Redis, for every worker and replica: redis://HOST:PORT[/DB][?prefix=NAME] "
        "(default: in each process)",
    )


def _fallback_arguments(serve: argparse.ArgumentParser) -> None:
    """A real model in the default's place (docs/recording.md, "A real model as the fallback")."""
    serve.add_argument(
        "--fallback-upstream",
        type=flags.http_url,
        metavar="URL",
        help="an OpenAI- or Anthropic-compatible server's root (Ollama's http://127.0.0.1:11434, a llama.cpp server, "
        "vLLM) that answers what no scenario or recording does, instead of the rule-based default; its answers go "
        "through the same faults, pacing and journal, marked not deterministic (default: off)",
    )
    serve.add_argument(
        "--fallback-dialect",
        default="chat",
        metavar="LIST",
        help="what the fallback upstream speaks, comma-separated: chat (/v1/chat/completions), responses "
        "(/v1/responses), messages (/v1/messages); openai means chat, anthropic messages. A request in one of them "
        "is forwarded as it is; any other is translated into the first of chat or messages listed (default: chat)",
    )
    serve.add_argument(
        "--fallback-key-env",
        default="EMULATOR_FALLBACK_API_KEY",
        metavar="NAME",
        help="the environment variable holding the key sent to the fallback upstream; a client's own key is never "
        "forwarded (default: %(default)s)",
    )
    serve.add_argument(
        "--fallback-record",
        type=Path,
        metavar="PATH",
        help="a cassette each fallback answer is appended to, as `emulator record` writes them, for replay with "
        "--recordings (default: none)",
    )


def rate_limits(spec: str | None) -> limits.Limits:
    """`--limits`: none given, the default limits, which only report; `off`, none at all; else those enforced."""
    if spec is None:
        return limits.DEFAULT
    return limits.OFF if spec.strip() == "off" else limits.parse(faults.split_spec(spec), "--limits")


def run(args: argparse.Namespace) -> int:
    paths = args.scenarios or [default_scenarios()]
    # `./scenarios`, read unasked, may hold other YAML (a load test's): each such file is said and left out
    skipped = frozenset() if args.scenarios else frozenset(scenarios.foreign(paths[0]))
    try:
        fault = faults.fault(faults.split_spec(args.fault), "--fault") if args.fault else None
        pace = faults.timing(faults.split_spec(args.timing), "--timing") if args.timing else None
        quota = rate_limits(args.limits)
        speaks = fallback.dialects(args.fallback_dialect)
    except ValueError as exc:
        print(f"emulator: {exc}", file=sys.stderr)
        return 2
    settings = Settings(
        scenarios=tuple(paths),
        foreign=skipped,
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
        cors_origins=tuple(args.cors_origin or ()),
        max_clients=args.max_clients,
        journal_size=args.journal_size,
        journal_bytes=args.journal_bytes,
        host=args.host,
        admin_token=args.admin_token,
        scrub=tuple(args.scrub or ()),
        state=args.state,
        fallback_upstream=args.fallback_upstream,
        fallback_dialects=speaks,
        fallback_key_env=args.fallback_key_env,
        fallback_record=args.fallback_record,
    )
    refused = fallback.refusal(settings)
    if refused:
        print(f"emulator: {refused}", file=sys.stderr)
        return 2
    # What the watcher compares with: the files as they were before the load began, so that one changed while the
    # server starts (a CI script writes a scenario as soon as the port opens) is seen as changed, and loaded.
    before = watch.fingerprint([*settings.scenarios, *settings.recordings]) if args.watch else None
    try:
        app = create_app(settings)
    except ConnectionError as exc:  # --state names a store that does not answer
        print(f"emulator: {exc}", file=sys.stderr)
        return flags.ENVIRONMENT
    except scenarios.ScenarioError as exc:
        print(f"emulator: the scenarios are invalid:\n{exc}", file=sys.stderr)
        return flags.ENVIRONMENT
    except (OSError, ValueError) as exc:
        print(f"emulator: the recordings cannot be read: {exc}", file=sys.stderr)
        return flags.ENVIRONMENT
    sock = flags.listen(args.host, args.port)
    if sock is None:
        return flags.ENVIRONMENT
    logs.setup(args.log_level, args.log_format)
    base = flags.url(args.host, sock)
    state = app.state.emulator
    book = state.book
    frozen = ", frozen clock" if args.freeze_time is not None else ""
    lines = [f"emulator on {base}  (profile {args.profile}, seed {args.seed}{frozen})"]
    lines += [f"  {e.split()[0]:<5}{base}{e.split()[1]}" for e in ENDPOINTS]
    lines += [f"  {where.format(base=base)}" for where in ELSEWHERE]
    lines += flags.descriptors(args.max_connections)
    lines += [f"every request: {faults.describe(v)}" for v in (fault, pace) if v]
    lines += [f"rate limits per key: {quota}"] if quota.enforce and quota else []
    if args.fallback_upstream:
        keyed = "with" if os.environ.get(args.fallback_key_env) else "without"
        lines.append(f"fallback: {args.fallback_upstream} ({args.fallback_dialect}, {keyed} ${args.fallback_key_env})")
    if not admin.loopback(args.host) and not args.admin_token:
        lines.append("warning: bound beyond loopback with no --admin-token: the /_emulator/ routes answer 401")
    lines.append(f"scenarios: {len(book.scenarios)} from {', '.join(map(str, paths))}")
    lines += [f"  {s.name}" for s in book.scenarios]
    lines += [f"  left out: {file} is not a scenario file (no `scenarios:` list)" for file in sorted(skipped)]
    if state.library is not None:
        lines.append(f"recordings: {len(state.library)} from {', '.join(map(str, settings.recordings))}")
    if args.watch:  # in each worker: a thread does not survive the fork
        lines.append(f"watching: {', '.join(map(str, [*paths, *settings.recordings])) or 'nothing'}")
    lines += _sharing(args.workers, args.state)
    print("\n".join(lines), flush=True)
    setup = (lambda: watch.start(state, seen=before)) if args.watch else None
    server.run(
        app,
        sock,
        flags.rules(args),
        workers=args.workers,
        setup=setup,
        **flags.served(args),
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
        from emulator.state import redis

        found = redis.address(url)
        return [f"workers: {workers}, sharing state in {found.shown} (keys {found.prefix}:*)"]
    if workers == 1:
        return []
    return [f"workers: {workers}, each with its own state (no --state): per worker are {PER_WORKER}"]
