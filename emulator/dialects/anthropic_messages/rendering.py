"""Messages: a `Turn` rendered as the answer, whole or streamed, and errors in the dialect's shape."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from itertools import chain
from typing import Any

from emulator.core import ids, tokens
from emulator.core.conversation import FinishReason, Prompt, ToolCall, Turn
from emulator.core.errors import EmulatorError, UpstreamError
from emulator.core.sse import dumps, frame, quote
from emulator.core.wire import broken_off
from emulator.rules import profiles

STOP_REASONS: dict[FinishReason, str] = {
    "stop": "end_turn",  # a matched stop sequence too: the seed ends it as end_turn, stop_sequence null
    "length": "max_tokens",
    "tool_calls": "tool_use",
    # Anthropic's `refusal` is the stop reason when its safety classifiers cut the output off: the
    # same event that Chat Completions (what Inferam translates from) reports as `content_filter`.
    "content_filter": "refusal",
}
# Anthropic's `error.type` by HTTP status (wire-formats.md §4.2); a status not listed falls back by class.
ERROR_TYPES = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}


START_ONLY = ("cache_creation", "service_tier")  # in the message's usage, not in `message_delta`'s


def _usage(turn: Turn, profile: profiles.Profile | None = None) -> dict[str, Any]:
    """Anthropic's usage: `input_tokens` excludes the tokens read from cache and those written to it (the seed's
    Usage section; Anthropic's prompt caching guide). Anthropic's own also splits what was written by lifetime
    (`cache_creation`) and names the tier the answer ran on; Inferam's has the four counts alone (seed 004)."""
    usage = turn.usage
    counts: dict[str, Any] = {
        "input_tokens": max(usage.input_tokens - usage.cached_tokens - usage.written_tokens, 0),
        "cache_creation_input_tokens": usage.written_tokens,
        "cache_read_input_tokens": usage.cached_tokens,
        "output_tokens": usage.output_tokens,
    }
    if profile is not None and profile.service_tier:
        hour = usage.written_1h
        counts["cache_creation"] = {
            "ephemeral_1h_input_tokens": hour,
            "ephemeral_5m_input_tokens": usage.written_tokens - hour,
        }
        counts["service_tier"] = profile.service_tier
    return counts


def _tool_id(call: ToolCall, profile: profiles.Profile) -> str:
    """`toolu_01…` (Vertex's `toolu_vrtx_01…`), derived from the canonical id so it is the same in every rendering
    of the turn."""
    return call.id if call.id.startswith("toolu_") else ids.make(f"toolu_{profile.id_mark}01", call.id, length=22)


def _tool_input(arguments: str) -> tuple[dict[str, Any], str]:
    """A call's `input` object, and the JSON text whose `input_json_delta` pieces rebuild it.

    Complete arguments stream as they are. Arguments cut short by `max_tokens` stream as the cut text,
    and `input` is what the SDK's partial parser (jiter, `partial_mode=True`) makes of it; text that is
    not JSON at all (a freeform tool's input) is wrapped as `{"input": text}`.
    """
    try:
        value = json.loads(arguments, parse_constant=_no_constant) if arguments else {}
    except ValueError:
        value = _partial_object(arguments)
    if isinstance(value, dict):
        return value, arguments
    wrapped = {"input": arguments}
    return wrapped, dumps(wrapped)


def _no_constant(name: str) -> Any:
    raise ValueError(name)


_NUMBER = re.compile(r"-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?")
_NUMBER_START = re.compile(r"-?(?:0|[1-9]\d*)?(?:\.\d*)?(?:[eE][+-]?\d*)?")
_LITERALS = ("true", "false", "null")


def _partial_object(text: str) -> dict[str, Any] | None:
    """The object a prefix of a JSON object text stands for, as jiter's partial mode reads it: values
    cut short (a string, `tru`, `12.`) and keys without a value are dropped, open containers closed.
    None if `text` is not such a prefix."""
    stack: list[str] = []
    key_next = False  # in an object, the next string is a key
    safe: tuple[int, str] | None = None  # the last cut after which the text parses once closed
    i, n = 0, len(text)

    def closers() -> str:
        return "".join("}" if c == "{" else "]" for c in reversed(stack))

    while i < n:
        c = text[i]
        if c in " \t\r\n" or c == ":":
            i += 1
        elif not stack and safe is not None:
            return None  # text after the top-level value
        elif c in "{[":
            if not stack and c != "{":
                return None
            stack.append(c)
            key_next = c == "{"
            i += 1
            safe = (i, closers())
        elif c in "}]":
            if not stack:
                return None
            stack.pop()
            i += 1
            key_next = False
            safe = (i, closers())
        elif c == ",":
            key_next = bool(stack) and stack[-1] == "{"
            i += 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            if j >= n:
                break  # a string cut short: dropped, with its key
            i = j + 1
            if key_next:
                key_next = False
            else:
                safe = (i, closers())
        else:
            token = re.match(r"[^\s,:\]}]*", text[i:])
            word = token.group() if token else ""
            if i + len(word) < n:  # a complete scalar
                if not (word in _LITERALS or _NUMBER.fullmatch(word)):
                    return None
                safe = (i + len(word), closers())
            elif word in _LITERALS or _NUMBER.fullmatch(word):
                safe = (n, closers())  # at the end but whole: jiter keeps `1` of a cut `12`
            elif not (any(lit.startswith(word) for lit in _LITERALS) or _NUMBER_START.fullmatch(word)):
                return None
            i += len(word)
    if safe is None:
        return None
    try:
        value = json.loads(text[: safe[0]] + safe[1], parse_constant=_no_constant)
    except ValueError:
        return None
    return value if isinstance(value, dict) else None


def _signature(profile: profiles.Profile, turn: Turn) -> str:
    """Anthropic signs each thinking block (an opaque base64 string); Inferam's signatures are empty (seed)."""
    return (
        "Eq" + "".join(ids.make("", turn.id, "signature", i, length=32) for i in range(6)) if profile.signatures else ""
    )


def _stop(profile: profiles.Profile, turn: Turn) -> dict[str, Any]:
    """`stop_reason` and `stop_sequence`: Anthropic names the stop sequence that ended the text; Inferam
    ends it as `end_turn` with `stop_sequence` null (seed)."""
    if profile.stop_sequence and turn.stop_sequence is not None:
        return {"stop_reason": "stop_sequence", "stop_sequence": turn.stop_sequence}
    return {"stop_reason": STOP_REASONS[turn.finish_reason], "stop_sequence": None}


def _blocks(profile: profiles.Profile, turn: Turn) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if turn.reasoning:
        blocks.append({"type": "thinking", "thinking": turn.reasoning, "signature": _signature(profile, turn)})
    if turn.text:
        blocks.append({"type": "text", "text": turn.text})
    for call in turn.tool_calls:
        made = _tool_input(call.arguments)[0]
        blocks.append({"type": "tool_use", "id": _tool_id(call, profile), "name": call.name, "input": made})
    return blocks


def _message_head(turn: Turn, profile: profiles.Profile) -> dict[str, Any]:
    return {
        "id": ids.make(f"msg_{profile.id_mark}01", turn.id, length=22),
        "type": "message",
        "role": "assistant",
        "model": turn.model,
    }


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    """The `message` object for a non-streamed request."""
    profile = profiles.PROFILES[prompt.profile]
    return _message_head(turn, profile) | {
        "content": _blocks(profile, turn),
        **_stop(profile, turn),
        "usage": _usage(turn, profile),
    }


def _event(data: dict[str, Any]) -> bytes:
    return frame(dumps(data), data["type"])


def _deltas(index: int, kind: str, field: str, pieces: Iterable[str]) -> Iterator[bytes]:
    """A block's deltas, one a token: the hot loop of every stream. Spliced as text rather than dumped, the
    same bytes `_event` writes for `{"type": "content_block_delta", "index": index, "delta": {"type": kind,
    field: piece}}`."""
    head = f'event: content_block_delta\ndata: {{"type":"content_block_delta","index":{index},"delta":'
    head += f'{{"type":"{kind}","{field}":'
    return (f"{head}{quote(piece)}}}}}\n\n".encode() for piece in pieces)


def render_stream(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    """Every SSE event of the streamed answer, in order, made as they are read; a fault ends it with `event: error`
    instead, and nothing after it."""
    fault = turn.fault
    if fault and fault.kind == "stream_error":
        return broken_off(_events(prompt, turn), fault.after_events, render_stream_error(UpstreamError.of(fault)))
    return _events(prompt, turn)


def _events(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    profile = profiles.PROFILES[prompt.profile]
    usage = _usage(turn, profile)
    # message_start reports one output token so far, as Anthropic's does; message_delta then
    # carries the cumulative totals, which the SDK's accumulator writes over the start values.
    start = _message_head(turn, profile) | {"content": [], "stop_reason": None, "stop_sequence": None}
    start["usage"] = usage | {"output_tokens": 1}
    yield _event({"type": "message_start", "message": start})
    blocks: list[tuple[dict[str, Any], str, str, Iterable[str], Any]] = []  # opening, delta kind, field, pieces, last
    if turn.reasoning:
        signature = {"type": "signature_delta", "signature": _signature(profile, turn)}
        thinking = {"type": "thinking", "thinking": "", "signature": ""}
        blocks.append((thinking, "thinking_delta", "thinking", tokens.pieces(turn.reasoning), signature))
    if turn.text:
        blocks.append(({"type": "text", "text": ""}, "text_delta", "text", tokens.pieces(turn.text), None))
    for call in turn.tool_calls:
        # Claude Code takes a tool's input only from input_json_delta (agent-clients.md), so the
        # opening block's `input` is always empty and the JSON follows in pieces, an empty one first.
        text = _tool_input(call.arguments)[1]
        tool_use = {"type": "tool_use", "id": _tool_id(call, profile), "name": call.name, "input": {}}
        blocks.append((tool_use, "input_json_delta", "partial_json", chain(("",), tokens.pieces(text)), None))
    for index, (opening, kind, field, pieces, last) in enumerate(blocks):
        yield _event({"type": "content_block_start", "index": index, "content_block": opening})
        if index == 0:
            yield PING  # Anthropic sends one ping, right after the first block opens
        yield from _deltas(index, kind, field, pieces)
        if last:
            yield _event({"type": "content_block_delta", "index": index, "delta": last})
        yield _event({"type": "content_block_stop", "index": index})
    if not blocks:
        yield PING
    delta = {"type": "message_delta", "delta": _stop(profile, turn)}
    yield _event(delta | {"usage": {k: v for k, v in usage.items() if k not in START_ONLY}})
    yield _event({"type": "message_stop"})


PING = frame(dumps({"type": "ping"}), "ping")
# A frame cut short, as its clients parse it: broken JSON.
MALFORMED = b'event: content_block_delta\ndata: {"type": "content_block_delta", "index": 0, "delta": {"te\n\n'
KEEPALIVE = PING  # what Anthropic sends during long pauses


def error_type(error: EmulatorError) -> str:
    """Anthropic's `error.type`: a scripted code that names one, else by status (wire-formats.md §4.2)."""
    if error.code is not None and error.code in ERROR_TYPES.values():
        return error.code
    return ERROR_TYPES.get(error.status, "api_error" if error.status >= 500 else "invalid_request_error")


def render_error(error: EmulatorError) -> dict[str, Any]:
    """Anthropic's error body: `{"type": "error", "error": {"type", "message"}}`; the message names the field.
    An error with `details` carries them (`error.details.error_code`, which the SDKs' thread code reads)."""
    body: dict[str, Any] = {"type": error_type(error), "message": error.message}
    if error.details:
        body["details"] = dict(error.details)
    return {"type": "error", "error": body}


def render_stream_error(error: EmulatorError) -> bytes:
    """An error after the stream started: `event: error`, which the SDK raises as `APIStatusError`."""
    return _event(render_error(error))
