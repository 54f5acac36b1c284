"""`emulator drift` on the command line: re-send each recorded request to the live upstream through the
recorder's own code, compare the live answer's shape with the recorded one, print `same` or each difference per
interaction, then the count; exit 1 on any difference. `--update` re-records what drifted.
"""

from __future__ import annotations

import argparse
import asyncio
import math
import os
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from emulator import scenarios
from emulator.answering import conformance
from emulator.cli import flags
from emulator.cli.conform import DEFAULT_PATH, report
from emulator.http import recorder
from emulator.recordings import CassetteError, Tape, is_cassette_file
from emulator.recordings.cassette import document_of, items
from emulator.recordings.shapes import Difference, Shape, compare, shape_of
from emulator.recordings.vcr_format import PACING, parts
from emulator.rules import profiles

Routes = dict[str | None, str]  # profile (None: every other) → the upstream its interactions are re-sent to


def arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--upstream",
        required=True,
        action="append",
        type=_route,
        metavar="[PROFILE=]URL",
        help="the live upstream's base URL, before /v1/; PROFILE=URL sends there only the interactions recorded "
        "under that profile, repeatable (a plain URL takes the rest)",
    )
    parser.add_argument(
        "paths", type=Path, nargs="*", metavar="PATH", help="cassettes or directories of them (default: ./recordings)"
    )
    parser.add_argument(
        "--key-env",
        metavar="NAME",
        help="the environment variable holding the key (default: OPENAI_API_KEY, or ANTHROPIC_API_KEY for Messages)",
    )
    parser.add_argument("--limit", type=int, metavar="N", help="re-send at most N interactions")
    parser.add_argument("--rate", type=float, default=1.0, metavar="R", help="requests per second (default: 1)")
    parser.add_argument("--update", action="store_true", help="re-record the interactions that drifted")
    parser.add_argument("--json", action="store_true", help="write the report as JSON")


class Unreachable(Exception):
    """The live upstream gave no answer at all (refused, unresolved, timed out): nothing can be compared."""

    def __init__(self, upstream: str, cause: Exception) -> None:
        super().__init__(
            f"the upstream {upstream} did not answer ({type(cause).__name__}: {cause or 'no reason given'}); "
            "nothing was compared, so drift is unknown: check the URL and the network, then run again"
        )


def run(args: argparse.Namespace) -> int:
    """`emulator drift`: 0 when the live upstream answers every recorded request in the recorded shape, 1 when
    any differs, 2 when the cassettes cannot be read, a key is missing or the upstream cannot be reached."""
    if args.rate <= 0 or (args.limit is not None and args.limit < 1):
        print("emulator drift: --rate must be above 0 and --limit at least 1", file=sys.stderr)
        return 2
    routes: Routes = {}
    for profile, url in args.upstream:
        if routes.setdefault(profile, url) != url:
            print(f"emulator drift: two upstreams for {profile or 'every profile'}", file=sys.stderr)
            return 2
    try:
        found = [(file, i) for file in _cassettes(args.paths) for i in conformance.interactions(file.name, _doc(file))]
    except (CassetteError, scenarios.ScenarioError) as exc:
        print(exc, file=sys.stderr)
        return 2
    found = found[: args.limit] if args.limit else found
    unrouted = sorted({i.profile or "(none noted)" for _, i in found if _upstream(routes, i) is None})
    if unrouted:
        print(f"emulator drift: no --upstream for profile {', '.join(unrouted)}", file=sys.stderr)
        return 2
    names = {args.key_env or _key_variable(i) for _, i in found}
    missing = sorted(n for n in names if not os.environ.get(n))
    if missing:
        print(f"emulator drift: no key in {', '.join(missing)} (or say which variable with --key-env)", file=sys.stderr)
        return 2
    with tempfile.TemporaryDirectory(prefix="emulator-drift-") as scratch:
        try:
            outcomes = asyncio.run(_resend_all(found, args, routes, Path(scratch)))
        except Unreachable as exc:  # no answer is no drift: an outage is told apart from a change
            print(f"emulator drift: {exc}", file=sys.stderr)
            return 2
        results: list[tuple[str, list[Difference] | None, str]] = []
        drifted: dict[Path, list[dict[str, Any]]] = {}
        for (file, interaction), (live, item) in zip(found, outcomes, strict=True):
            if live is None or item is None:
                results.append((interaction.source, None, "skipped: the upstream did not answer"))
                continue
            differences = compare(interaction.shape(), live)
            results.append((interaction.source, differences, f"status {live.status}"))
            if differences:
                drifted.setdefault(file, []).append(item)
        if args.update:
            for file, items_ in drifted.items():
                tape = Tape(file)
                for item in items_:
                    request, _, _ = parts(item)
                    body = request.body.decode() if isinstance(request.body, bytes) else request.body or ""
                    headers = {k: v[0] if isinstance(v, list) else v for k, v in item["request"]["headers"].items()}
                    response = dict(item["response"])
                    tape.add(request.method, request.uri, body, headers, response, item[PACING], replace=True)
    code = report("drift", results, args.json)
    if args.update and drifted and not args.json:
        print(f"drift: re-recorded {sum(map(len, drifted.values()))} interactions")
    return code


def _cassettes(paths: Sequence[Path]) -> list[Path]:
    return [f for f in scenarios.yaml_files(paths or [DEFAULT_PATH]) if is_cassette_file(f)]


def _doc(file: Path) -> Any:
    return document_of(file)


def _route(text: str) -> tuple[str | None, str]:
    """An argparse type: `--upstream URL` (every interaction) or `--upstream PROFILE=URL` (those recorded under
    PROFILE, as the recorder noted it or the recorded host says)."""
    profile, equals, url = text.partition("=")
    if not equals or "/" in profile:  # a URL's query may hold `=`; a profile holds no `/`
        return None, flags.http_url(text)
    if profile not in profiles.PROFILES:
        known = ", ".join(sorted(profiles.PROFILES))
        raise argparse.ArgumentTypeError(f"{profile!r} is no profile (known: {known})")
    return profile, flags.http_url(url)


def _upstream(routes: Routes, interaction: conformance.Interaction) -> str | None:
    """Where an interaction is re-sent: the upstream given for its profile, else the plain one."""
    return routes.get(interaction.profile) or routes.get(None)


def _key_variable(interaction: conformance.Interaction) -> str:
    return "ANTHROPIC_API_KEY" if interaction.path.startswith("/v1/messages") else "OPENAI_API_KEY"


async def _resend_all(
    found: list[tuple[Path, conformance.Interaction]],
    args: argparse.Namespace,
    routes: Routes,
    scratch: Path,
) -> list[tuple[Shape | None, dict[str, Any] | None]]:
    """Each recorded request re-sent through the recorder's own code (into a scratch cassette each, keys
    redacted as every recording is), `--rate` a second at most; the live answer's shape and its recording."""
    out: list[tuple[Shape | None, dict[str, Any] | None]] = []
    gap, last = 1.0 / args.rate, -math.inf
    for n, (_, interaction) in enumerate(found):
        wait = last + gap - time.monotonic()
        if wait > 0:
            await asyncio.sleep(wait)
        last = time.monotonic()
        key = os.environ[args.key_env or _key_variable(interaction)]
        upstream = _upstream(routes, interaction)
        assert upstream is not None, "routed before any is sent"
        out.append(await _resend(interaction, upstream, key, scratch / f"{n}.yaml"))
    return out


async def _resend(
    interaction: conformance.Interaction, upstream: str, key: str, cassette: Path
) -> tuple[Shape | None, dict[str, Any] | None]:
    proxy = recorder.Recorder(upstream, cassette, "all")
    proxy.says_unreachable = False  # the verdict says it, in one line
    auth = ("x-api-key", key) if interaction.path.startswith("/v1/messages") else ("authorization", f"Bearer {key}")
    headers = [(k, v) for k, v in interaction.request_headers.items() if k not in ("authorization", "x-api-key")]
    path, _, query = interaction.path.partition("?")
    scope = {
        "type": "http",
        "method": interaction.method,
        "path": path,
        "query_string": query.encode(),
        "headers": [(k.encode("latin-1"), v.encode("latin-1")) for k, v in [*headers, auth]],
    }
    sent = False

    async def receive() -> dict[str, Any]:
        nonlocal sent
        if sent:
            await asyncio.Event().wait()  # the client stays until the answer ends
        sent = True
        return {"type": "http.request", "body": interaction.body, "more_body": False}

    status, answered, body = 0, {}, b""

    async def send(message: dict[str, Any]) -> None:
        nonlocal status, answered, body
        if message["type"] == "http.response.start":
            status = message["status"]
            answered = {k.decode("latin-1"): v.decode("latin-1") for k, v in message["headers"]}
        elif message["type"] == "http.response.body":
            body += message.get("body", b"")

    try:
        await asyncio.wait_for(proxy(scope, receive, send), timeout=600)
    except RuntimeError:  # the recorder hangs up on a client it cannot answer: here there is no connection to end
        if proxy.unreachable is None:
            raise
    finally:
        if proxy.client:
            await proxy.client.aclose()
    if proxy.unreachable is not None:
        raise Unreachable(upstream, proxy.unreachable)
    if not status or not cassette.exists():
        return None, None
    stored = items(document_of(cassette))
    return (shape_of(status, answered, body), stored[-1]) if stored else (None, None)
