"""A `Turn` as Gemini answers it (reference providers-google.md §3 to §5): a `GenerateContentResponse` whole, or
streamed as `data: <one-line JSON>` events with no event names, comments or `[DONE]` (the Python SDK fails on each),
every chunk a whole response of its own piece with the usage so far; and errors in Google's shape."""

from __future__ import annotations

import base64
import hashlib
from collections.abc import Iterator
from typing import Any

from emulator.core import ids, tokens
from emulator.core.conversation import Prompt, Turn
from emulator.core.errors import EmulatorError, UpstreamError
from emulator.core.sse import dumps, loads
from emulator.core.wire import broken_off

FINISH = {"stop": "STOP", "tool_calls": "STOP", "length": "MAX_TOKENS", "content_filter": "SAFETY"}
CALLED = "Model generated function call(s)."  # the `finishMessage` beside a call's STOP (§3.1)
# google.rpc codes by HTTP status, as the `status` of an error body names them (§5.2).
STATUSES = {
    400: "INVALID_ARGUMENT",
    401: "UNAUTHENTICATED",
    403: "PERMISSION_DENIED",
    404: "NOT_FOUND",
    409: "ABORTED",
    429: "RESOURCE_EXHAUSTED",
    499: "CANCELLED",
    500: "INTERNAL",
    501: "NOT_IMPLEMENTED",
    503: "UNAVAILABLE",
    504: "DEADLINE_EXCEEDED",
}
RPC = "type.googleapis.com/google.rpc."
# What Google's errors say where a scenario gives no words (§5.2; the 500's and 503's as widely reported).
WORDS = {
    429: "You exceeded your current quota, please check your plan and billing details.",
    500: "An internal error has occurred. Please retry or report in "
    "https://developers.generativeai.google/guide/troubleshooting",
    503: "The model is overloaded. Please try again later.",
    504: "Deadline expired before operation could complete.",
}
# A frame cut short, as its clients parse it: broken JSON. (Keep-alives: none; Google sends no comment.)
MALFORMED = b'data: {"candidates": [{"content": {"parts": [{"te\r\n\r\n'
KEEPALIVE = b""


def frame(data: str) -> bytes:
    """One event, as Google frames it: `data: ` and the JSON on one line, a CRLF blank line after."""
    return f"data: {data}\r\n\r\n".encode()


def _signature(turn: Turn) -> str:
    """A thought signature: opaque base64, the same for the same answer."""
    return base64.b64encode(hashlib.blake2b(turn.id.encode(), digest_size=48).digest()).decode()


def response_id(turn: Turn) -> str:
    return ids.make("", turn.id, "response", length=23)


def _usage(turn: Turn, thoughts: int | None = None, said: int | None = None) -> dict[str, Any]:
    """`usageMetadata`: the candidates' tokens apart from the thoughts', the total their sum with the prompt's;
    so far in a stream (`thoughts`, `said`), else the turn's."""
    usage = turn.usage
    thinking = usage.reasoning_tokens if thoughts is None else min(thoughts, usage.reasoning_tokens)
    final = usage.output_tokens - usage.reasoning_tokens
    answered = final if said is None else min(said, final)
    made: dict[str, Any] = {"promptTokenCount": usage.input_tokens}
    if answered:
        made["candidatesTokenCount"] = answered
    made["totalTokenCount"] = usage.input_tokens + answered + thinking
    if usage.cached_tokens:
        made["cachedContentTokenCount"] = usage.cached_tokens
    made["promptTokensDetails"] = [{"modality": "TEXT", "tokenCount": usage.input_tokens}]
    if thinking:
        made["thoughtsTokenCount"] = thinking
    return made


def _calls(turn: Turn) -> list[dict[str, Any]]:
    """The function calls as parts: `args` an object; an `id` where the model gives one (Gemini 3)."""
    parts = []
    for call in turn.tool_calls:
        try:
            args = loads(call.arguments.encode()) if call.arguments else {}
        except ValueError:
            args = {}
        named: dict[str, Any] = {"name": call.name, "args": args if isinstance(args, dict) else {}}
        if turn.model.startswith("gemini-3"):
            named = {"id": ids.make("", turn.id, "call", call.name, length=8).lower()} | named
        parts.append({"functionCall": named})
    return parts


def _parts(prompt: Prompt, turn: Turn) -> list[dict[str, Any]]:
    """The answer's parts: its thoughts when asked for, its text, its calls; the thought signature on the first
    part after the thoughts."""
    parts: list[dict[str, Any]] = []
    if turn.reasoning and prompt.echo.get("include_thoughts"):
        parts.append({"text": turn.reasoning, "thought": True})
    said = [{"text": turn.text}] if turn.text else []
    said += _calls(turn)
    if turn.reasoning and said:
        said[0] = said[0] | {"thoughtSignature": _signature(turn)}
    return parts + said or [{"text": ""}]


def _candidate(turn: Turn, parts: list[dict[str, Any]], finished: bool) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
    if finished:
        candidate["finishReason"] = FINISH[turn.finish_reason]
        if turn.tool_calls:
            candidate["finishMessage"] = CALLED
    candidate["index"] = 0
    return candidate


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    return {
        "candidates": [_candidate(turn, _parts(prompt, turn), True)],
        "usageMetadata": _usage(turn),
        "modelVersion": turn.model,
        "responseId": response_id(turn),
    }


def render_stream(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    """The answer's chunks, made as they are read: a thought part a token (when thoughts are asked for), a text
    part a token, the calls whole in one chunk; `finishReason` on the last, which still carries its part. A
    `stream_error` breaks it off with Google's error, its `error` key first (the Python SDK looks for it there)."""
    fault = turn.fault
    if fault and fault.kind == "stream_error":
        error = frame(dumps(render_error(UpstreamError.of(fault))))
        return broken_off(_chunks(prompt, turn), fault.after_events, error)
    return _chunks(prompt, turn)


def _chunks(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    tail = f',"modelVersion":{dumps(turn.model)},"responseId":"{response_id(turn)}"}}'

    def chunk(parts: list[dict[str, Any]], thoughts: int | None, said: int, finished: bool) -> bytes:
        usage = _usage(turn) if finished else _usage(turn, thoughts, said)
        head = {"candidates": [_candidate(turn, parts, finished)], "usageMetadata": usage}
        return frame(dumps(head)[:-1] + tail)

    pending: tuple[list[dict[str, Any]], int | None, int] | None = None  # held back: it may be the last
    if turn.reasoning and prompt.echo.get("include_thoughts"):
        for thought, piece in enumerate(tokens.pieces(turn.reasoning), 1):
            if pending is not None:
                yield chunk(*pending, False)
            pending = ([{"text": piece, "thought": True}], thought, 0)
    signed = bool(turn.reasoning)  # the first part after the thoughts carries their signature
    said = 0
    for said, piece in enumerate(tokens.pieces(turn.text), 1):
        if pending is not None:
            yield chunk(*pending, False)
        part: dict[str, Any] = {"text": piece}
        if signed:
            part, signed = part | {"thoughtSignature": _signature(turn)}, False
        pending = ([part], None, said)
    if turn.tool_calls:
        if pending is not None:
            yield chunk(*pending, False)
        calls = _calls(turn)
        if signed:
            calls[0] = calls[0] | {"thoughtSignature": _signature(turn)}
        pending = (calls, None, said)
    yield chunk(*(pending or ([{"text": ""}], None, 0)), True)


def render_error(error: EmulatorError) -> dict[str, Any]:
    """Google's error body: the HTTP status as `code`, the google.rpc code's name as `status`, and `details`
    where the service gives some (a 400's field violation, a 429's retry delay)."""
    message, delay = error.message, None
    if isinstance(error, UpstreamError):
        delay = error.retry_after
        if not error.worded and error.status in WORDS:  # a default: Google's words, not OpenAI's
            message = WORDS[error.status] + (f" Please retry in {delay:g}s." if delay is not None else "")
    body: dict[str, Any] = {
        "code": error.status,
        "message": message,
        "status": STATUSES.get(error.status, "INTERNAL" if error.status >= 500 else "FAILED_PRECONDITION"),
    }
    details: list[dict[str, Any]] = []
    if error.status == 400 and error.param:
        violation = {"field": error.param, "description": error.message}
        details.append({"@type": RPC + "BadRequest", "fieldViolations": [violation]})
    if error.status == 429 and delay is not None:
        details.append({"@type": RPC + "RetryInfo", "retryDelay": f"{float(delay):g}s"})
    if details:
        body["details"] = details
    return {"error": body}
