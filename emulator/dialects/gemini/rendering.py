"""A `Turn` as Gemini answers it (reference providers-google.md §3 to §5): a `GenerateContentResponse` whole, or
streamed as `data: <one-line JSON>` events with no event names, comments or `[DONE]` (the Python SDK fails on each),
every chunk a whole response of its own piece with the usage so far; and errors in Google's shape."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from emulator.core import ids, tokens
from emulator.core.conversation import Prompt, Turn
from emulator.core.errors import EmulatorError, UpstreamError
from emulator.core.sse import dumps
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


def response_id(turn: Turn) -> str:
    return ids.make("", turn.id, "response", length=23)


Progress = tuple[int | None, int | None]  # a candidate's thought and answer tokens so far; None: all of them


def _usage(turns: list[Turn], so_far: list[Progress] | None = None) -> dict[str, Any]:
    """`usageMetadata`: the candidates' tokens apart from the thoughts', the total their sum with the prompt's;
    so far in a stream (each candidate's `Progress`), else the turns'."""
    usage = turns[0].usage
    thinking = answered = 0
    for at, turn in enumerate(turns):
        thoughts, said = so_far[at] if so_far else (None, None)
        spent = turn.usage.reasoning_tokens
        thinking += spent if thoughts is None else min(thoughts, spent)
        final = turn.usage.output_tokens - spent
        answered += final if said is None else min(said, final)
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
        args = call.parsed_arguments()
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
        said[0] = said[0] | {"thoughtSignature": ids.signature(turn.id)}
    return parts + said or [{"text": ""}]


def _candidate(turn: Turn, parts: list[dict[str, Any]], finished: bool, index: int = 0) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts, "role": "model"}}
    if finished:
        candidate["finishReason"] = FINISH[turn.finish_reason]
        if turn.tool_calls:
            candidate["finishMessage"] = CALLED
    candidate["index"] = index
    return candidate


def _turns(prompt: Prompt, turn: Turn) -> list[Turn]:
    """One turn per candidate (`candidateCount`): the alternatives, or the one turn again (a scenario's script)."""
    return [turn, *turn.alternatives] if turn.alternatives else [turn] * prompt.choices


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    turns = _turns(prompt, turn)
    return {
        "candidates": [_candidate(t, _parts(prompt, t), True, i) for i, t in enumerate(turns)],
        "usageMetadata": _usage(turns),
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


Step = tuple[list[dict[str, Any]], int | None, int]  # a chunk's parts, and the thought and answer tokens so far


def _chunks(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    """Each chunk holds a piece of every candidate that has one left (`candidateCount`: side by side, each with its
    `index`), `finishReason` on a candidate's last; the usage so far of them all."""
    tail = f',"modelVersion":{dumps(turn.model)},"responseId":"{response_id(turn)}"}}'
    turns = _turns(prompt, turn)
    steps = [_steps(prompt, t) for t in turns]
    so_far: list[Progress] = [(0, 0)] * len(turns)
    for at in range(max(len(s) for s in steps)):
        candidates = []
        for index, (each, taken) in enumerate(zip(turns, steps, strict=True)):
            if at >= len(taken):
                so_far[index] = (None, None)
                continue
            parts, thoughts, said = taken[at]
            finished = at == len(taken) - 1
            so_far[index] = (None, None) if finished else (thoughts, said)
            candidates.append(_candidate(each, parts, finished, index))
        usage = _usage(turns, None if all(p == (None, None) for p in so_far) else so_far)
        yield frame(dumps({"candidates": candidates, "usageMetadata": usage})[:-1] + tail)


def _steps(prompt: Prompt, turn: Turn) -> list[Step]:
    """One candidate's chunks: a thought part a token (when thoughts are asked for), a text part a token, the calls
    whole in one; the thought signature on the first part after the thoughts."""
    steps: list[Step] = []
    if turn.reasoning and prompt.echo.get("include_thoughts"):
        steps += [([{"text": p, "thought": True}], n, 0) for n, p in enumerate(tokens.pieces(turn.reasoning), 1)]
    signed = bool(turn.reasoning)  # the first part after the thoughts carries their signature
    said = 0
    for said, piece in enumerate(tokens.pieces(turn.text), 1):
        part: dict[str, Any] = {"text": piece}
        if signed:
            part, signed = part | {"thoughtSignature": ids.signature(turn.id)}, False
        steps.append(([part], None, said))
    if turn.tool_calls:
        calls = _calls(turn)
        if signed:
            calls[0] = calls[0] | {"thoughtSignature": ids.signature(turn.id)}
        steps.append((calls, None, said))
    return steps or [([{"text": ""}], None, 0)]


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
