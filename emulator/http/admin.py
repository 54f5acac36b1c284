"""The emulator's own routes: `/health`, `/metrics`, and under `/_emulator/` the inspector page, the journal,
the client report, scenarios posted at run time and reset.

Each call may name a test's scope (`x-emulator-test-id`, or `?test_id=`); without one it covers everything.

Who may call the `/_emulator/` routes and `/metrics` (`/health` and the answering endpoints are open to all):
- bound to loopback (127.0.0.0/8, ::1, localhost), anyone who reaches them, but only with a `Host` of
  `localhost`, `127.x.x.x` or `[::1]` (any port) and no foreign `Origin`, else 403: a web page cannot reach
  them by DNS rebinding or reset them cross-origin;
- bound to any other address (a container), only with the admin token (`--admin-token`, or
  `EMULATOR_ADMIN_TOKEN`) as `Authorization: Bearer …` or `?token=`, else 401; with no token configured,
  always 401, naming the flag.
The inspector's shell and files hold no data: its files are served to all, and its shell with the refusal's status
when the refusal is for want of the token (its script then asks for the token, or finds it in the tab).
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import asdict
from typing import Any
from urllib.parse import urlsplit

from starlette.requests import Request
from starlette.routing import Route

from emulator import scenarios
from emulator.core import yamlfile
from emulator.core.fields import bearer
from emulator.core.sse import encode, loads
from emulator.core.wire import TEST_ID, Whole, whole
from emulator.http import inspector
from emulator.journal import findings
from emulator.rules import faults
from emulator.state import Directions, State, metrics


def routes(state: State) -> list[Route]:
    """Every admin route: health, the journal and the report, the scenarios and faults set at run time, the
    inspector page and `/metrics`; all but health guarded (`guard`)."""
    guarded = guard(state.settings.host, state.settings.admin_token)
    readings = inspector.Readings(state.settings.journal_size)
    refusal = refuser(state.settings.host, state.settings.admin_token)
    pages = _page_routes(state, guarded, refusal)
    return [*_journal_routes(state, guarded, readings), *_scenario_routes(state, guarded), *pages]


def _journal_routes(state: State, guarded: Callable[[Handler], Handler], readings: inspector.Readings) -> list[Route]:
    """The journal (read, one entry, cleared), the client report graded from it, and reset."""

    async def reset(request: Request) -> Whole:
        test_id = _test_id(request)
        await state.reset(test_id)
        return whole(encode({"reset": True, "test_id": test_id}))

    async def client_report(request: Request) -> Whole:
        return whole(encode(findings.grade(await state.journal.entries(_test_id(request)))))

    async def requests(request: Request) -> Whole:
        """GET: journal entries, filtered by any field (`?source=flaky`), after `?since=ID`, with their bodies
        unless `?bodies=false`; and how many were dropped to make room. `?q=WORDS` keeps those whose request or
        answer holds every word, `?limit=N` the newest N, `?preview=true` adds each one's preview (the
        inspector's list). DELETE: forget them."""
        if request.method == "DELETE":
            await state.journal.clear(_test_id(request))
            return whole(encode({"cleared": True}))
        params = request.query_params
        numbers = {name: params.get(name, "0") for name in ("since", "limit", "before")}
        for name, value in numbers.items():
            if not value.isdigit():
                what = "a journal entry's id, a whole number" if name != "limit" else "a whole number"
                return _refused(400, f"{name} must be {what}, not {value!r}.", "invalid_request_error")
        since, limit, before = (int(v) for v in numbers.values())
        bodies, preview, query = _flag(params, "bodies", True), _flag(params, "preview", False), params.get("q", "")
        if preview or query or limit or before:
            found = await inspector.listing(
                state, readings, _where(request), since, bodies, preview, query, limit, before
            )
        else:
            found = await state.journal.find(_where(request), since, bodies)
        last = found[-1]["id"] if found else int(since)
        return whole(encode({"requests": found, "last": last, "dropped": await state.journal.dropped()}))

    async def one(request: Request) -> Whole:
        number = request.path_params["id"]
        entry = await state.journal.entry(int(number)) if number.isdigit() else None
        if entry is None:
            return _refused(
                404, f"No journal entry {number!r}: it never was, or was dropped to make room.", "not_found_error"
            )
        if _flag(request.query_params, "transcript", False):
            entry = entry | {"transcript": inspector.read(entry)}
        return whole(encode(entry))

    async def conversations(request: Request) -> Whole:
        """GET: the conversations the journal's entries make (`journal.previews`), filtered as the journal is; with
        `?request=ID`, the one holding that entry."""
        holding = request.query_params.get("request", "")
        where = _where(request, ("request",))
        summaries = await state.journal.find(where, 0, False)
        read = await inspector.read_all(state, readings, where, summaries)
        return whole(encode(inspector.conversations(summaries, read, int(holding) if holding.isdigit() else None)))

    return [
        Route("/_emulator/reset", guarded(reset), methods=["POST"]),
        Route("/_emulator/requests", guarded(requests), methods=["GET", "DELETE"]),
        Route("/_emulator/requests/{id}", guarded(one), methods=["GET"]),
        Route("/_emulator/report", guarded(client_report), methods=["GET"]),
        Route("/_emulator/conversations", guarded(conversations), methods=["GET"]),
    ]


def _scenario_routes(state: State, guarded: Callable[[Handler], Handler]) -> list[Route]:
    """Scenarios posted at run time, and the faults, pacing and scenario a test sets for its requests."""

    async def posted(request: Request) -> Whole:
        """POST: scenarios at run time, JSON or YAML, for the request's test id (else everyone); GET: all."""
        if request.method == "GET":
            return whole(encode({"scenarios": await state.posted.listing()}))
        raw = await _body(request, ADMIN_BODY)
        if raw is None:
            return _refused(
                413, f"The body is larger than the admin API's limit of {ADMIN_BODY:,} bytes.", "invalid_request_error"
            )
        try:
            document = _json_or_yaml(raw)
            found = scenarios.parse(document)
        except (UnicodeDecodeError, yamlfile.DocumentError) as exc:
            return _refused(400, f"The body is neither JSON nor YAML: {exc}", "invalid_request_error")
        except scenarios.ScenarioError as exc:
            mistakes = str(exc).splitlines()
            message = f"The scenarios have {len(mistakes)} mistake(s): " + "; ".join(mistakes)
            return _refused(400, message, "invalid_request_error", mistakes=mistakes)
        names = await state.posted.post(_test_id(request) or "", found, scenarios.sources(document))
        return whole(encode({"scenarios": names, "test_id": _test_id(request)}), status=201)

    async def directed(request: Request) -> Whole:
        """POST: what the scope's requests get unless they say otherwise: `{spec, times, timing, scenario}`,
        each optional (a fault spec and how many requests it strikes, a timing spec, a scenario's name);
        GET: what is set; DELETE: forget it."""
        test_id = _test_id(request) or ""
        if request.method == "DELETE":
            return whole(encode({"deleted": await state.directions.undirect(test_id), "test_id": test_id or None}))
        if request.method == "GET":
            found = await state.directions.of(test_id)
            return whole(encode({"test_id": test_id or None} | (asdict(found) if found else {})))
        raw = await _body(request, ADMIN_BODY)
        if raw is None:
            return _refused(
                413, f"The body is larger than the admin API's limit of {ADMIN_BODY:,} bytes.", "invalid_request_error"
            )
        try:
            document = loads(raw)
            await state.posted.refresh()  # a scenario it names may have been posted through another worker
            directions = _directions(document, state.book_for(test_id))
        except (ValueError, UnicodeError, RecursionError) as exc:
            return _refused(400, str(exc), "invalid_request_error")
        await state.directions.direct(test_id, directions)
        return whole(encode({"test_id": test_id or None} | asdict(directions)), status=201)

    async def unpost(request: Request) -> Whole:
        name = request.path_params["name"]
        if not await state.posted.unpost(_test_id(request) or "", name):
            return _refused(404, f"No scenario named {name!r} was posted for this test id.", "not_found_error")
        return whole(encode({"deleted": name, "test_id": _test_id(request)}))

    return [
        Route("/_emulator/scenarios", guarded(posted), methods=["GET", "POST"]),
        Route("/_emulator/scenarios/{name}", guarded(unpost), methods=["DELETE"]),
        Route("/_emulator/faults", guarded(directed), methods=["GET", "POST", "DELETE"]),
    ]


def _page_routes(
    state: State, guarded: Callable[[Handler], Handler], refusal: Callable[[Request], Whole | None]
) -> list[Route]:
    """Health (open to all), the inspector page and `/metrics`."""

    async def health(request: Request) -> Whole:
        # 200 whatever the shared state does: the emulator itself is up, and an orchestrator should not restart it
        # for Redis's sake; the body says how the store is.
        return whole(encode({"status": "ok", "scenarios": len(state.book.scenarios), "state": await state.health()}))

    async def page(request: Request) -> Whole:
        """The page's shell. Refused for want of the token it is still sent, with the refusal's status: it holds
        no data, and its script asks for the token (or finds it in `sessionStorage`, where the page keeps it
        once opened with `?token=`, so that a reload works with the token out of the address bar)."""
        refused = refusal(request)
        if refused is not None and refused.status != 401:
            return refused
        status = refused.status if refused else 200
        return whole(inspector.page(), NO_STORE, status=status, content_type=b"text/html; charset=utf-8")

    async def asset(request: Request) -> Whole:
        """The page's files (its script and style): our own code, no data, open to all as the shell is."""
        found = inspector.asset(request.path_params["name"])
        if found is None:
            return _refused(404, f"The inspector has no file {request.path_params['name']!r}.", "not_found_error")
        return whole(found[0], NO_STORE, content_type=found[1].encode())

    async def scraped(request: Request) -> Whole:
        return whole(metrics.exposition(await state.journal.metered()), content_type=metrics.CONTENT_TYPE.encode())

    return [
        Route("/health", health, methods=["GET"]),
        Route("/_emulator/", page, methods=["GET"]),
        Route("/_emulator/static/{name}", asset, methods=["GET"]),
        Route("/metrics", guarded(scraped), methods=["GET"]),
    ]


Handler = Callable[[Request], Awaitable[Whole]]
# The journal's query parameters that filter no field.
NOT_FIELDS = ("since", "bodies", "token", "q", "limit", "before", "preview")
NO_STORE = {"cache-control": "no-store"}


def _flag(params: Mapping[str, str], name: str, default: bool) -> bool:
    """A yes-or-no query parameter: `false`, `0` and `no` say no; any other value yes."""
    value = params.get(name)
    return default if value is None else value.lower() not in ("false", "0", "no")


def _where(request: Request, more: tuple[str, ...] = ()) -> dict[str, str]:
    """The journal fields a call filters by: its query's (but the journal's own parameters), and its test id."""
    where = {k: v for k, v in request.query_params.items() if k not in NOT_FIELDS + more}
    if TEST_ID in request.headers:  # a test's own entries, as its other admin calls are scoped
        where.setdefault("test_id", request.headers[TEST_ID])
    return where


def guard(host: str, token: str | None) -> Callable[[Handler], Handler]:
    """The admin routes' rule (see the module's doc) for a server bound to `host`, with `token` or none."""
    refusal = refuser(host, token)

    def wrap(handler: Handler) -> Handler:
        async def guarded(request: Request) -> Whole:
            return refusal(request) or await handler(request)

        return guarded

    return wrap


def refuser(host: str, token: str | None) -> Callable[[Request], Whole | None]:
    """The admin routes' refusal of a request (None: let in), for a server bound to `host` with `token`."""
    on_loopback = loopback(host)

    def refusal(request: Request) -> Whole | None:
        if on_loopback:
            name = request.headers.get("host", "")
            if not loopback(_without_port(name)):
                return _refused(403, f"The admin API answers only a loopback Host, not {name!r}.")
            origin = request.headers.get("origin")
            if origin is not None and not loopback(urlsplit(origin).hostname or ""):
                return _refused(403, f"The admin API answers no cross-origin request (Origin {origin!r}).")
            return None
        if not token:
            return _refused(
                401,
                "Bound beyond loopback, the admin API needs a token: start the emulator with "
                "--admin-token TOKEN (or EMULATOR_ADMIN_TOKEN) and send it as a Bearer token.",
            )
        given = (bearer(request.headers), request.query_params.get("token", ""))
        if not any(hmac.compare_digest(g.encode(), token.encode()) for g in given):
            return _refused(401, "The admin API needs its token: Authorization: Bearer TOKEN, or ?token=TOKEN.")
        return None

    return refusal


def _directions(document: Any, book: scenarios.Book) -> Directions:
    """The directions a `POST /_emulator/faults` body gives, each checked as its header would be; a
    `ValueError` names what is wrong."""
    if not isinstance(document, dict) or not document:
        raise ValueError(
            'The body must be a JSON object with any of "spec", "times", "timing", "scenario" and "lenient".'
        )
    unknown = sorted(set(document) - {"spec", "times", "timing", "scenario", "lenient"})
    if unknown:
        raise ValueError(f"Unknown field(s) {', '.join(unknown)}: expected spec, times, timing, scenario, lenient.")
    lenient = document.get("lenient", False)
    if type(lenient) is not bool:
        raise ValueError(f"lenient: expected true or false, got {lenient!r}.")
    spec, times, timing, name = (document.get(k) for k in ("spec", "times", "timing", "scenario"))
    for key, value in (("spec", spec), ("timing", timing), ("scenario", name)):
        if value is not None and not isinstance(value, str):
            raise ValueError(f"{key}: expected a string, got {type(value).__name__}.")
    if times is not None and (type(times) is not int or times < 1):
        raise ValueError(f"times: expected a whole number of at least 1, or null for every request; got {times!r}.")
    if times is not None and spec is None:
        raise ValueError("times: counts the requests a fault strikes, and no fault (spec) was given.")
    try:
        if spec is not None:
            faults.fault(faults.split_spec(spec), "spec")
        if timing is not None:
            faults.timing(faults.split_spec(timing), "timing")
    except faults.FaultError as exc:
        raise ValueError(str(exc)) from None
    if name is not None and name not in {s.name for s in book.scenarios}:
        known = ", ".join(s.name for s in book.scenarios) or "none are loaded"
        raise ValueError(f"scenario: no scenario is named {name!r} (known: {known}).")
    return Directions(spec, times, timing, name, lenient)


def loopback(host: str) -> bool:
    """Whether a host name or address is this machine's loopback: `localhost`, 127.0.0.0/8, `::1`."""
    host = host.strip("[]").lower()
    if host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _json_or_yaml(raw: bytes) -> Any:
    """A body as JSON if it is JSON, else as YAML (with `yamlfile`'s bounds)."""
    try:
        return loads(raw)
    except (ValueError, UnicodeError, RecursionError):
        return yamlfile.load(raw.decode("utf-8"))


def _without_port(host: str) -> str:
    """`localhost:8000` → `localhost`, `[::1]:8000` → `::1`, `127.0.0.1` as it is."""
    if host.startswith("["):
        return host[1 : host.find("]")]
    return host.rpartition(":")[0] if host.count(":") == 1 else host


ADMIN_BODY = 1024 * 1024  # what a posted scenario or direction may weigh: a scenario is a few kilobytes


async def _body(request: Request, limit: int) -> bytes | None:
    """The body, read as it comes; None past `limit` bytes (said by its length, or counted as it arrives), with
    no more of it kept."""
    declared = request.headers.get("content-length", "")
    if declared.isdigit() and int(declared) > limit:
        return None
    taken = bytearray()
    async for chunk in request.stream():
        taken += chunk
        if len(taken) > limit:
            return None
    return bytes(taken)


def _refused(status: int, message: str, kind: str | None = None, **more: Any) -> Whole:
    kind = kind or ("authentication_error" if status == 401 else "permission_error")
    return whole(encode({"error": {"message": message, "type": kind, **more}}), status=status)


def _test_id(request: Request) -> str | None:
    """The test scope an admin call names: `x-emulator-test-id`, or `?test_id=`; None for everything."""
    return request.headers.get(TEST_ID) or request.query_params.get("test_id")
