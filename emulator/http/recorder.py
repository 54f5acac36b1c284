"""Record a real upstream: an ASGI proxy that forwards each request, streams the answer back as it arrives
and appends the complete interaction to a cassette (`recordings.Tape`) when it ends.

The home of httpx. vcrpy's own httpx patch buffers whole responses, so vcrpy is only the cassette library
(in `recordings`): the proxy forwards with one `httpx.AsyncClient` and tees the upstream's chunks to the
client (reference: faults-and-recording.md §B.8). Credentials never reach disk: only allowlisted headers are
kept and the client's keys are scrubbed everywhere (§C.4). The gaps between SSE events are kept with each
interaction, for replay at the recorded pace.
"""

from __future__ import annotations

import asyncio
import http.cookiejar
import logging
import os
import posixpath
import threading
import time
import urllib.parse
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from emulator.answering import conformance
from emulator.core import wire
from emulator.core.errors import EmulatorError, NotFound, PayloadTooLarge, openai_body
from emulator.core.sse import encode
from emulator.dialects import anthropic_messages
from emulator.http import player
from emulator.recordings import API_MARKS, Library, Scrubber, Tape, allowed, api_path, miss, redact, script, sigv4

MAX_BODY = 32 * 1024 * 1024  # bytes of a request body the recorder forwards (the server's own limit)
# The recorder's server adds no `date` header of its own: the upstream's passes through, once.
SERVER_OPTIONS: dict[str, Any] = {"lifespan": True, "date_header": False}
_log = logging.getLogger("emulator.http.recorder")
# Not forwarded either way: hop-by-hop, or recomputed by the side that sends.
_HOP = frozenset({"host", "content-length", "transfer-encoding", "connection", "keep-alive", "accept-encoding"})

# vcrpy's record modes, as the recorder applies them (`emulator record --mode`).
MODES = {
    "none": "replay only: a request the cassette does not hold gets an error naming the nearest one",
    "once": "record into a new cassette; an existing one is replayed only, as with none",
    "new_episodes": "replay what the cassette holds, forward and record the rest",
    "all": "forward and record every request; a new recording replaces the one it matches",
}


def _kept(headers: Iterable[tuple[str, str]], secrets: frozenset[str]) -> dict[str, list[str]]:
    kept: dict[str, list[str]] = {}
    for name, value in headers:
        if allowed(name):
            kept.setdefault(name.lower(), []).append(redact.text(value, secrets))
    return kept


class Recorder:
    """An ASGI app: forwards every `/v1/…` request to `upstream` (any profile prefix before `/v1/`
    dropped), streams the answer back as it arrives, and appends each complete interaction to the
    cassette at `out` (under the cassette's lock, so other recorders may write it too: `recordings.tape`);
    `mode` is one of `MODES`."""

    def __init__(
        self,
        upstream: str,
        out: Path,
        mode: str = "new_episodes",
        speed: float = 1.0,
        scrubs: Sequence[tuple[str, str]] = (),
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"the record mode must be one of {', '.join(MODES)}, not {mode!r}")
        self.upstream = upstream.rstrip("/")
        self.out = out
        self.mode = mode
        self.speed = speed  # the pace of what is replayed
        self.tape = Tape(out, scrubs)
        self.loaded = self.tape.loaded  # interactions that were in the file before this session
        self.replay_only = mode == "none" or (mode == "once" and self.loaded > 0)
        held = [(s["pattern"], s["replace"]) for s in self.tape.scrubs]
        self.scrubber = Scrubber() + [*held, *scrubs]
        self.library = Library(self.tape.recordings(), scrubber=self.scrubber)
        self.lock = threading.Lock()
        self.client: httpx.AsyncClient | None = None
        self.unreachable: httpx.HTTPError | None = None  # the last upstream failure before any answer
        self.says_unreachable = True  # logs it: off where the caller says it itself (`emulator drift`)
        self.warned_unsigned = False  # that SigV4 requests go unsigned again, for want of the operator's keys

    async def __call__(self, scope: Mapping[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._proxy(scope, receive, send)

    async def _lifespan(self, receive: Any, send: Any) -> None:
        while True:
            message = await receive()
            if message["type"] == "lifespan.startup":
                self.client = self.client or _client()
                await send({"type": "lifespan.startup.complete"})
            elif message["type"] == "lifespan.shutdown":
                if self.client:
                    await self.client.aclose()
                await send({"type": "lifespan.shutdown.complete"})
                return

    async def _proxy(self, scope: Mapping[str, Any], receive: Any, send: Any) -> None:
        """Replay what the mode lets replay, else forward and record."""
        declared = next((v.decode("latin-1") for k, v in scope["headers"] if k == b"content-length"), "")
        try:
            body = await wire.body(receive, MAX_BODY, declared)
        except ConnectionError:
            return  # nobody to answer, nothing to forward
        if body is None:
            limit = f"The request body is larger than the recorder's limit of {MAX_BODY} bytes."
            await _error(send, scope["path"], PayloadTooLarge(limit))
            return
        method = scope["method"]
        if scope["path"] == "/health" and method in ("GET", "HEAD"):
            await self._health(send)
            return
        query = f"?{scope['query_string'].decode('latin-1')}" if scope["query_string"] else ""
        normal = posixpath.normpath(scope["path"])  # `/v1/../_emulator/…` is not an API path
        if not any(mark in normal for mark in API_MARKS) or ".." in scope["path"].split("/"):
            error = NotFound(
                f"The recorder forwards API paths only (/v1/, Azure's /openai/, Ollama's /api/), not {scope['path']}.",
                code="unknown_url",
            )
            await _error(send, scope["path"], error)
            return
        path = api_path(normal) + query
        if self.mode != "all":
            hit = self.library.find(method, path, body)
            if hit:
                await player.play(script(hit, self.speed), scope, receive, send)
                return
            if self.replay_only:
                await _error(send, path, miss(self.library, method, path, body))
                return
        headers = [(k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"]]
        await self._forward(scope, receive, send, method, path, headers, body)

    async def _health(self, send: Any) -> None:
        """`GET /health`, as `serve` answers it, so that a wait loop or a container's health check works the
        same on either: this one says it is a recorder, what it forwards to and what it records into."""
        body = encode(
            {
                "status": "ok",
                "role": "recorder",
                "upstream": _without_credentials(self.upstream),
                "cassette": str(self.out),
                "mode": self.mode,
                "recordings": len(self.library),
            }
        )
        await wire.whole(body)({}, None, send)  # (the server drops the body of an answer to HEAD)

    async def _forward(
        self, scope: Mapping[str, Any], receive: Any, send: Any, method: str, path: str, headers: Any, body: bytes
    ) -> None:
        """Forward to the upstream, tee its chunks to the client, and save the interaction once it ended well."""
        self.client = self.client or _client()
        forwarded = [(k, v) for k, v in headers if k.lower() not in _HOP] + [("accept-encoding", "identity")]
        url = self.upstream + _wire(path)
        signed = sigv4.scope_of(next((v for k, v in headers if k.lower() == "authorization"), ""))
        if signed is not None:  # SigV4 signs the host: signed again for the upstream, with the operator's keys
            operator = sigv4.credentials()
            if operator is not None:
                forwarded = sigv4.sign(method, url, forwarded, body, operator, *signed, datetime.now(UTC))
            elif not self.warned_unsigned:
                self.warned_unsigned = True
                _log.warning(
                    "recorder: %s %s is signed with SigV4 for the recorder's host, which AWS refuses: set "
                    "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN) where the recorder runs, "
                    "and it signs each request again for %s",
                    method,
                    path,
                    self.upstream,
                )
        started = time.monotonic()
        upstream = self.client.build_request(method, url, headers=forwarded, content=body)
        try:
            response = await self.client.send(upstream, stream=True)
        except httpx.HTTPError as exc:  # no answer at all: the client's connection ends without one too
            if self.says_unreachable:
                _log.warning("recorder: %s %s: the upstream failed before answering: %r", method, path, exc)
            self.unreachable = exc
            await player.hang_up(scope, receive)
            return
        arrived = time.monotonic()
        received = bytearray()  # grown in place: a list of chunks joined at the end held a large answer twice
        events: list[float] = []  # when each SSE event (ended by a blank line) was complete
        try:
            out = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers.multi_items()]
            out = [(k, v) for k, v in out if k.lower().decode() not in _HOP and k.lower() != b"content-encoding"]
            await send({"type": "http.response.start", "status": response.status_code, "headers": out})
            last = b""  # the previous chunk's last byte: a blank line may straddle two chunks
            # Decoded: an upstream may compress despite `accept-encoding: identity`; the client gets the bytes without
            # their `content-encoding` (dropped above), and the cassette readable text.
            async for chunk in response.aiter_bytes():
                now = time.monotonic()
                received += chunk
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
                events += [now] * (last + chunk).count(b"\n\n")
                last = chunk[-1:]
        except httpx.HTTPError as exc:  # the upstream broke off: so does the client's body, and nothing is saved
            _log.warning("recorder: %s %s: the upstream broke off mid-answer: %r", method, path, exc)
            await player.hang_up(scope, receive)
            return
        finally:
            await response.aclose()
        # What the client sent as credentials (and the cookies the upstream gave it) go nowhere on disk.
        environ = [os.environ.get(name, "") for name in redact.KEY_VARIABLES]
        sent = [*headers, *(("set-cookie", v) for v in response.headers.get_list("set-cookie"))]
        secrets = redact.secrets(sent, path.partition("?")[2], environ)
        request = (
            method,
            redact.text(self.upstream + path, secrets),
            redact.body(self.scrubber.body(body).decode("utf-8", "replace"), secrets, _type(headers)),
            {k: v[0] for k, v in _kept(headers, secrets).items()},
        )
        kind = response.headers.get("content-type", "")
        if kind.startswith(BINARY):  # kept as its bytes (YAML's `!!binary`): its frames' checksums hold them
            said: str | bytes = bytes(received)
        else:
            said = redact.body(received.decode("utf-8", "replace"), secrets, kind)
        del received  # one copy of a large answer at a time: a 200 MB body cost the recorder 950 MB at its peak
        recorded = {
            "status": {"code": response.status_code, "message": response.reason_phrase},
            "headers": _kept(response.headers.multi_items(), secrets),
            "body": {"string": said},
        }
        # The profile the client asked for (its prefix), else the upstream's: what `emulator conform` renders under.
        if noted := conformance.noted_profile(scope["path"], self.upstream):
            recorded[conformance.PROFILE_KEY] = noted
        marks = [arrived, *events]
        pacing = {
            "headers_after": round(arrived - started, 4),
            "event_gaps": [round(b - a, 4) for a, b in zip(marks, marks[1:], strict=False)],
        }
        try:
            await asyncio.to_thread(self._save, request, recorded, pacing)
        except OSError as exc:  # the disk full, say: the cassette is as it was, and the client is told by a hang-up
            _log.warning(
                "recorder: %s %s: not saved to %s (%s); the cassette keeps what it held, and recording "
                "carries on when it can be written",
                method,
                path,
                self.tape.path,
                exc.strerror or exc,
            )
            await player.hang_up(scope, receive)
            return
        # The body ends once the cassette holds it: a client that saw the end can replay it at once.
        await send({"type": "http.response.body", "body": b"", "more_body": False})

    def _save(self, request: tuple[str, str, str, dict[str, str]], response: dict[str, Any], pacing: Any) -> None:
        with self.lock:
            self.library.add(self.tape.add(*request, response, pacing, replace=self.mode == "all"))


# Answers whose bytes are not text: AWS's event-stream frames.
BINARY = ("application/vnd.amazon.eventstream",)


def _wire(path: str) -> str:
    """A path as it goes upstream: Bedrock's model id (`/model/{modelId}/converse`) percent-encoded again (an
    inference profile's ARN holds a `/`), its colons left as they are, as `AnthropicBedrock` sends them."""
    if "/model/" not in path:
        return path
    path, mark, query = path.partition("?")
    head, _, rest = path.partition("/model/")
    model, _, operation = rest.rpartition("/")
    return f"{head}/model/{urllib.parse.quote(model, safe=':')}/{operation}{mark}{query}"


def _type(headers: Iterable[tuple[str, str]]) -> str:
    """The content type among headers as sent."""
    return next((v for k, v in headers if k.lower() == "content-type"), "")


def _without_credentials(url: str) -> str:
    """A URL without the user and password it may carry (`https://user:key@host`): `/health` is open to all."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urllib.parse.urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def _client() -> httpx.AsyncClient:
    """The one client of every forwarded request: with a cookie jar that keeps nothing, so that an upstream's
    `set-cookie` to one client is never sent on another's request (nor recorded)."""
    jar = http.cookiejar.CookieJar(policy=http.cookiejar.DefaultCookiePolicy(allowed_domains=[]))
    return httpx.AsyncClient(timeout=httpx.Timeout(600.0, connect=10.0), follow_redirects=False, cookies=jar)


async def _error(send: Any, path: str, error: EmulatorError) -> None:
    """An error of the recorder's own, in the shape of the API the path belongs to."""
    if api_path(path).startswith("/v1/messages"):
        body = encode(anthropic_messages.render_error(error))
    else:
        body = encode(openai_body(error))
    await wire.whole(body, status=error.status)({}, None, send)
