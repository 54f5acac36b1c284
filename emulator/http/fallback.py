"""A real model where you have one (`emulator serve --fallback-upstream URL`): an OpenAI- or Anthropic-compatible
server (Ollama, a llama.cpp server, vLLM, another emulator) answers what no scenario or recording answers, in the
rule-based default's place. Its answer is read back into a `Reply` and goes the default's way from there: the
request's limits, faults, pacing, journal and the client's own dialect, streamed or not.

A request in a dialect the upstream speaks (`--fallback-dialect`) is forwarded in it, its body as the client sent it
but for `stream` (the upstream answers whole; the emulator streams it at its own pace); one in another dialect is
written from its `Prompt` in the first of Chat or Messages the upstream speaks. The key sent is the operator's, from
the environment variable `Settings.fallback_key_env` names: no header of the client's goes upstream but Anthropic's
version and betas. Bound beyond loopback, a request the fallback answers must carry the admin token (`x-admin-token`),
or the emulator would be an open proxy to a paid model. What fails upstream is the client's error, in its dialect,
naming the upstream; with `Settings.fallback_record`, each answer goes into that cassette, for replay offline.
"""

from __future__ import annotations

import asyncio
import hmac
import os
import time
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import httpx

from emulator.core.conversation import Prompt, Reply
from emulator.core.errors import EmulatorError, Unauthorized, UpstreamError
from emulator.core.sse import encode, loads
from emulator.dialects import anthropic_messages, openai_chat, openai_responses
from emulator.dialects.anthropic_messages import upstream as messages_upstream
from emulator.dialects.openai_chat import upstream as chat_upstream
from emulator.http.admin import loopback
from emulator.recordings import Tape, allowed, redact
from emulator.rules import profiles
from emulator.server import in_task
from emulator.state import Settings

SOURCE = "fallback"  # the answer's source, as the journal and `x-emulator-source` say it
TOKEN_HEADER = "x-admin-token"  # beyond loopback: the admin token, on each request the fallback answers
ANTHROPIC_VERSION = "2023-06-01"
# `--fallback-dialect`'s words: a dialect's path name, or a family's (its Chat or Messages).
WORDS = {
    "chat": profiles.CHAT,
    "responses": profiles.RESPONSES,
    "messages": profiles.MESSAGES,
    "openai": profiles.CHAT,
    "anthropic": profiles.MESSAGES,
}
PATHS = {profiles.CHAT: "/v1/chat/completions", profiles.RESPONSES: "/v1/responses", profiles.MESSAGES: "/v1/messages"}
READERS: dict[str, Callable[[bytes, bool], Reply]] = {
    profiles.CHAT: openai_chat.read_response,
    profiles.RESPONSES: openai_responses.read_response,
    profiles.MESSAGES: anthropic_messages.read_response,
}
WRITERS = {profiles.CHAT: chat_upstream.write_request, profiles.MESSAGES: messages_upstream.write_request}
_FORWARDED = ("anthropic-version", "anthropic-beta")  # the client's headers that go upstream: no credentials


def dialects(spec: str) -> tuple[str, ...]:
    """`--fallback-dialect`: `chat`, `responses`, `messages` (or `openai`, `anthropic`), comma-separated, as the
    dialects' names, in the order given; `ValueError` naming a word it does not know."""
    found: list[str] = []
    for word in (w.strip().lower() for w in spec.split(",") if w.strip()):
        if word not in WORDS:
            raise ValueError(f"--fallback-dialect: {word!r} is none of {', '.join(WORDS)}")
        if WORDS[word] not in found:
            found.append(WORDS[word])
    if not found:
        raise ValueError("--fallback-dialect: name at least one of chat, responses, messages")
    return tuple(found)


def refusal(settings: Settings) -> str | None:
    """Why `serve` must not start with this fallback (None: it may): beyond loopback, it needs the admin token."""
    if settings.fallback_upstream and not loopback(settings.host) and not settings.admin_token:
        return (
            f"--fallback-upstream with --host {settings.host} needs --admin-token (or EMULATOR_ADMIN_TOKEN): "
            "bound beyond loopback without one, anyone who reaches the port would use the upstream's model, and "
            "its key, through the emulator; each request it answers must then send the token as x-admin-token"
        )
    return None


class Fallback:
    """`State.fallback`: called with the dialect's name, the prompt, the body as read and the request's headers, the
    upstream's answer as a `Reply`; an `EmulatorError` (in the client's dialect, once refused) when it cannot."""

    def __init__(self, settings: Settings) -> None:
        assert settings.fallback_upstream
        self.url = settings.fallback_upstream.rstrip("/").removesuffix("/v1")
        self.speaks: Sequence[str] = tuple(settings.fallback_dialects)
        self.key = os.environ.get(settings.fallback_key_env, "")
        self.timeout = settings.fallback_timeout
        self.token = None if loopback(settings.host) else settings.admin_token or ""
        self.tape = None
        if settings.fallback_record is not None:
            settings.fallback_record.parent.mkdir(parents=True, exist_ok=True)
            self.tape = Tape(settings.fallback_record, settings.scrub)

    async def __call__(self, dialect: str, prompt: Prompt, body: Any, headers: Mapping[str, str]) -> Reply:
        if self.token is not None:
            given = headers.get(TOKEN_HEADER, "")
            if not self.token or not hmac.compare_digest(given.encode(), self.token.encode()):
                raise Unauthorized(
                    f"The fallback upstream {self.url} answers requests to an emulator bound beyond loopback only "
                    f"with the emulator's admin token in the {TOKEN_HEADER} header.",
                    code="fallback_needs_token",
                )
        speaks, sent = self._request(dialect, prompt, body)
        out = {"content-type": "application/json"}
        if speaks == profiles.MESSAGES:
            out |= {k: headers[k] for k in _FORWARDED if k in headers}
            out.setdefault("anthropic-version", ANTHROPIC_VERSION)
            if self.key:
                out["x-api-key"] = self.key
        elif self.key:
            out["authorization"] = f"Bearer {self.key}"
        url = self.url + PATHS[speaks]
        content = encode(sent)
        await in_task()  # httpx (anyio) needs one: an answer starts outside any (`server.in_task`)
        started = time.monotonic()
        try:
            async with httpx.AsyncClient(timeout=httpx.Timeout(self.timeout, connect=10.0)) as client:
                response = await client.post(url, content=content, headers=out)
        except httpx.TimeoutException:
            raise self._error(f"did not answer within {self.timeout:g}s", 504) from None
        except httpx.HTTPError as exc:
            raise self._error(f"could not be reached ({type(exc).__name__}: {exc})") from None
        if response.status_code >= 400:
            said = _message(response.content)
            raise self._error(f"answered {response.status_code}{': ' + said if said else ''}")
        try:
            reply = READERS[speaks](response.content, False)
        except (ValueError, KeyError, TypeError, IndexError) as exc:
            raise self._error(f"answered something that is not a {PATHS[speaks]} answer ({exc})") from None
        if self.tape is not None:
            await asyncio.to_thread(self._record, url, content, out, response, time.monotonic() - started)
        return reply

    def _request(self, dialect: str, prompt: Prompt, body: Any) -> tuple[str, dict[str, Any]]:
        """The dialect the upstream is asked in and the body it is sent: the client's own, not streamed, where the
        upstream speaks its dialect; else the prompt written in the first of Chat or Messages the upstream speaks."""
        if dialect in self.speaks and isinstance(body, Mapping):
            return dialect, {k: v for k, v in body.items() if k not in ("stream", "stream_options")}
        for speaks in self.speaks:
            if speaks in WRITERS:
                return speaks, WRITERS[speaks](prompt)
        said = ", ".join(PATHS[d] for d in self.speaks)
        raise UpstreamError(
            501,
            f"The fallback upstream {self.url} speaks {said} only, which a {dialect} request cannot be written in "
            "(--fallback-dialect chat or messages lets the emulator translate it).",
            code="fallback_dialect",
        )

    def _error(self, what: str, status: int = 502) -> EmulatorError:
        said = f"The fallback upstream {self.url} {what.rstrip('.')}."
        return UpstreamError(status, said, code="fallback_upstream_error")

    def _record(
        self, url: str, content: bytes, headers: Mapping[str, str], response: httpx.Response, took: float
    ) -> None:
        """The interaction, as `emulator record` writes one: allowlisted headers, the operator's key nowhere."""
        assert self.tape is not None
        secrets = frozenset({self.key}) if self.key else frozenset()
        kept: dict[str, list[str]] = {}
        for name, value in response.headers.multi_items():
            if allowed(name):
                kept.setdefault(name.lower(), []).append(redact.text(value, secrets))
        recorded = {
            "status": {"code": response.status_code, "message": response.reason_phrase},
            "headers": kept,
            "body": {"string": redact.body(response.text, secrets, response.headers.get("content-type", ""))},
        }
        sent = {k: v for k, v in headers.items() if allowed(k)}
        text = redact.body(content.decode(), secrets, "application/json")
        self.tape.add("POST", url, text, sent, recorded, {"headers_after": round(took, 4), "event_gaps": []})


def _message(body: bytes) -> str:
    """An error body's message (OpenAI's and Anthropic's `error.message`), else its first characters."""
    try:
        found = loads(body)
    except (ValueError, UnicodeError, RecursionError):
        return body[:200].decode("utf-8", "replace").strip()
    error = found.get("error") if isinstance(found, dict) else None
    if isinstance(error, dict) and isinstance(error.get("message"), str):
        return str(error["message"])[:500]
    return str(found)[:200]
