"""Ollama's `POST /api/generate` (reference providers-aws-azure-ollama.md §3): a `prompt` (with its `system`),
answered as `response` text (and `thinking`), whole or as NDJSON lines ending with `done: true`."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from emulator.core import tokens
from emulator.core.conversation import Message, Prompt, Reply, Turn
from emulator.core.errors import EmulatorError
from emulator.core.fields import Fields
from emulator.core.sse import loads
from emulator.dialects.ollama import common
from emulator.dialects.ollama.common import KEEPALIVE as KEEPALIVE
from emulator.dialects.ollama.common import MALFORMED as MALFORMED
from emulator.dialects.ollama.common import NDJSON
from emulator.dialects.ollama.common import OPENS as OPENS
from emulator.rules import profiles

NAME = profiles.OLLAMA_GENERATE
STREAM_HEADERS = NDJSON


def parse_request(
    body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
) -> Prompt:
    f = Fields(body)
    system = f.get("system", str, "") or ""
    images = f.data.get("images")
    asked = Message("user", text=f.get("prompt", str, "") or "", images=len(images) if isinstance(images, list) else 0)
    messages = ((Message("system", text=system),) if system else ()) + (asked,)
    return common.asked(NAME, f, messages, (), headers, fingerprint, profile)


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    answer: dict[str, Any] = {"model": turn.model, "created_at": common.created_at(turn), "response": turn.text}
    if turn.reasoning:
        answer["thinking"] = turn.reasoning
    return answer | {"done": True, "done_reason": common.done_reason(turn)} | common.metrics(turn)


def render_stream(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    """NDJSON: a line per piece of thinking, then of the response, the final `done` line; made as they are read."""
    return common.finish(turn, _lines(turn))


def _lines(turn: Turn) -> Iterator[bytes]:
    at = 0.0
    step = 1000 / common.pace(turn).tokens_per_second
    for key, text in (("thinking", turn.reasoning), ("response", turn.text)):
        for piece in tokens.pieces(text):
            said = {"response": piece} if key == "response" else {"response": "", "thinking": piece}
            yield common.line({"model": turn.model, "created_at": common.created_at(turn, at)} | said | {"done": False})
            at += step
    last = {"model": turn.model, "created_at": common.created_at(turn, at), "response": "", "done": True}
    yield common.done(turn, last | {"done_reason": common.done_reason(turn)})


def render_error(error: EmulatorError) -> dict[str, Any]:
    return common.render_error(error)


def read_response(body: bytes, stream: bool) -> Reply:
    objects = [loads(line) for line in body.splitlines() if line.strip()] if stream else [loads(body)]
    reasoning = "".join(o.get("thinking") or "" for o in objects)
    return Reply(reasoning=reasoning, text="".join(o.get("response") or "" for o in objects))
