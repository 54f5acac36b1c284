"""Responses: a `Turn` rendered as the answer, whole or streamed, and errors in the dialect's shape."""

from __future__ import annotations

from collections.abc import Iterator
from itertools import islice
from typing import Any

from emulator.core import ids, logprobs, sealed, tokens
from emulator.core.conversation import Prompt, Turn, Usage
from emulator.core.errors import EmulatorError, UpstreamError, openai_body
from emulator.core.sse import comment, dumps, frame, quote
from emulator.dialects.openai_responses.request import ENCRYPTED
from emulator.rules import profiles

# A frame cut short, as its clients parse it: broken JSON.
MALFORMED = b'event: response.output_text.delta\ndata: {"type": "response.output_text.delta", "delta": "unt\n\n'
KEEPALIVE = comment("keep-alive")  # an SSE comment: clients skip it, idle timers see bytes


def _items(prompt: Prompt, turn: Turn) -> list[dict[str, Any]]:
    """The finished output items, in order: reasoning, message, then each tool call. OpenAI shows no raw
    reasoning: its item has a summary only when `reasoning.summary` asks for one."""
    items: list[dict[str, Any]] = []
    if turn.reasoning:
        shown = not profiles.PROFILES[prompt.profile].hidden_reasoning
        summarised = shown or prompt.echo.get("reasoning", {}).get("summary")
        item: dict[str, Any] = {"id": ids.make("rs_", turn.id), "type": "reasoning"}
        item["summary"] = [{"type": "summary_text", "text": turn.reasoning}] if summarised else []
        if shown:
            item["content"] = [{"type": "reasoning_text", "text": turn.reasoning}]
        items.append(item | {"encrypted_content": _sealed(prompt, turn), "status": "completed"})
    if turn.text:
        text = {"type": "output_text", "text": turn.text, "annotations": [], "logprobs": _logprobs(prompt, turn)}
        items.append(
            {
                "id": ids.make("msg_", turn.id),
                "type": "message",
                "status": "completed",
                "role": "assistant",
                "content": [text],
            }
        )
    for call in turn.tool_calls:
        if call.kind == "custom":
            items.append(
                {
                    "id": ids.make("ctc_", turn.id, call.id),
                    "type": "custom_tool_call",
                    "status": "completed",
                    "call_id": call.id,
                    "name": call.name,
                    "input": call.arguments,
                }
            )
        else:
            items.append(
                {
                    "id": ids.make("fc_", turn.id, call.id),
                    "type": "function_call",
                    "status": "completed",
                    "call_id": call.id,
                    "name": call.name,
                    "arguments": call.arguments,
                }
            )
    if turn.finish_reason in ("length", "content_filter") and items:
        items[-1]["status"] = "incomplete"
    return items


def _sealed(prompt: Prompt, turn: Turn) -> str | None:
    """The reasoning sealed, where `include` asks for it (OpenAI's; Inferam shows its reasoning as text, seed 001)."""
    if ENCRYPTED not in prompt.echo.get("include", ()) or not profiles.PROFILES[prompt.profile].hidden_reasoning:
        return None
    return sealed.seal(turn.reasoning, turn.id, turn.created)


def _logprobs(prompt: Prompt, turn: Turn) -> list[dict[str, Any]]:
    """The output text's token logprobs when `include` asks for them, seeded by the conversation: the same
    streamed or not, and as Chat's first choice has them."""
    if prompt.logprobs is None:
        return []
    return logprobs.entries(turn.text, ids.digest(prompt.root, 0), prompt.logprobs)


def _status(turn: Turn) -> tuple[str, dict[str, str] | None]:
    if turn.finish_reason == "length":
        return "incomplete", {"reason": "max_output_tokens"}
    if turn.finish_reason == "content_filter":
        return "incomplete", {"reason": "content_filter"}
    return "completed", None


def _response(
    prompt: Prompt, turn: Turn, status: str, output: list[dict[str, Any]], *, usage: bool = True
) -> dict[str, Any]:
    echo = prompt.echo
    u = turn.usage
    return (
        {
            "id": ids.make("resp_", turn.id),
            "object": "response",
            "created_at": turn.created,
            "status": status,
            "error": None,
            "incomplete_details": None,
            "instructions": echo.get("instructions"),
            "max_output_tokens": echo.get("max_output_tokens"),
            "model": turn.model,
            "output": output,
            "parallel_tool_calls": echo.get("parallel_tool_calls", True),
            "previous_response_id": echo.get("previous_response_id"),
            "reasoning": echo.get("reasoning", {"effort": None, "summary": None}),
            "store": echo.get("store", False),  # Inferam's: always false (seed 001)
            "temperature": echo.get("temperature"),
            "text": echo.get("text", {"format": {"type": "text"}}),
            "tool_choice": echo.get("tool_choice", "auto"),
            "tools": echo.get("tools", []),
            "top_p": echo.get("top_p"),
            "truncation": "disabled",
            "usage": {
                "input_tokens": u.input_tokens,
                "input_tokens_details": {"cached_tokens": u.cached_tokens, "cache_write_tokens": 0},
                "output_tokens": u.output_tokens,
                "output_tokens_details": {"reasoning_tokens": _reasoning_tokens(prompt, u)},
                "total_tokens": u.total_tokens,
            }
            if usage
            else None,
            "user": echo.get("user"),
            "metadata": echo.get("metadata", {}),
        }
        | {key: echo[key] for key in ("top_logprobs", "background") if key in echo}
        | _tier(prompt)
    )


def _tier(prompt: Prompt) -> dict[str, str]:
    """The tier the answer ran on, where the profile says (OpenAI's `default`)."""
    tier = profiles.PROFILES[prompt.profile].service_tier
    return {"service_tier": tier} if tier else {}


def _reasoning_tokens(prompt: Prompt, usage: Usage) -> int:
    """OpenAI's count; Inferam always reports 0, its reasoning being in `output_tokens` (seed 001)."""
    return usage.reasoning_tokens if profiles.PROFILES[prompt.profile].hidden_reasoning else 0


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    """The `Response` object for a non-streamed request; for one in background mode, as it starts: queued."""
    if prompt.echo.get("background"):
        return _response(prompt, turn, "queued", [], usage=False)
    return finished(prompt, turn)


def finished(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    """The `Response` object once answered: what a non-streamed request gets, and what is stored."""
    status, details = _status(turn)
    return _response(prompt, turn, status, _items(prompt, turn)) | {"incomplete_details": details}


def render_stream(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    """Every SSE event of the streamed answer, in order, numbered from 0, made as they are read."""
    return (
        f'{p[0]}{p[1]},"sequence_number":{n}}}\n\n'.encode()
        if isinstance(p, tuple)
        else frame(dumps(p | {"sequence_number": n}), p["type"])
        for n, p in enumerate(_payloads(prompt, turn))
    )


Payload = dict[str, Any] | tuple[str, str]  # an event's fields, or a delta spliced (`_deltas`)


def _payloads(prompt: Prompt, turn: Turn) -> Iterator[Payload]:
    """The events' fields, the last one `response.completed` (or its kin), or, with a `stream_error` fault,
    `response.failed` (or the flat `error` event) after as many as the fault lets out."""
    done: list[dict[str, Any]] = []  # the items whose output_item.done has gone out
    answer = _answer(prompt, turn, done)
    fault = turn.fault
    if fault and fault.kind == "stream_error":
        yield from islice(answer, fault.after_events or 0)
        error = UpstreamError.of(fault)
        if fault.event == "error":  # the flat `error` event of the SDK's type; nothing follows it
            yield {"type": "error", "code": error.code, "message": error.message, "param": None}
        else:
            failed = _response(prompt, turn, "failed", done, usage=False)
            error_fields = {"error": {"code": error.code, "message": error.message}}
            yield {"type": "response.failed", "response": failed | error_fields}
        return
    yield from answer
    status, details = _status(turn)
    final = _response(prompt, turn, status, done) | {"incomplete_details": details}
    yield {"type": f"response.{status}", "response": final}


def _answer(prompt: Prompt, turn: Turn, done: list[dict[str, Any]]) -> Iterator[Payload]:
    """The events before the last, each item added to `done` as its output_item.done goes out."""

    def event(kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, **fields}

    started = _response(prompt, turn, "in_progress", [], usage=False)
    if prompt.echo.get("background"):  # queued first, as the public API starts a background response
        queued = _response(prompt, turn, "queued", [], usage=False)
        yield event("response.created", response=queued)
        yield event("response.queued", response=queued)
    else:
        yield event("response.created", response=started)
    yield event("response.in_progress", response=started)
    for index, item in enumerate(_items(prompt, turn)):
        at = {"item_id": item["id"], "output_index": index}
        yield event("response.output_item.added", output_index=index, item=_opened(item))
        if item["type"] == "reasoning":
            yield from _stream_reasoning(at, item)
        elif item["type"] == "message":
            text, entries = item["content"][0]["text"], item["content"][0]["logprobs"]
            part = {"type": "output_text", "text": "", "annotations": [], "logprobs": []}
            yield event("response.content_part.added", **at, content_index=0, part=part)
            if entries:  # each delta is one token: its logprobs ride with it
                kind, where = "response.output_text.delta", at | {"content_index": 0}
                for e in entries:
                    yield {"type": kind, **where, "delta": e["token"], "logprobs": [logprobs.brief(e)]}
            else:
                yield from _deltas("response.output_text.delta", at | {"content_index": 0}, text, ',"logprobs":[]')
            brief = [logprobs.brief(e) for e in entries]
            yield event("response.output_text.done", **at, content_index=0, text=text, logprobs=brief)
            whole = part | {"text": text, "logprobs": entries}
            yield event("response.content_part.done", **at, content_index=0, part=whole)
        elif item["type"] == "function_call":
            yield from _deltas("response.function_call_arguments.delta", at, item["arguments"])
            # `name` as OpenAI's spec has it on the event (the SDK keeps it as an extra field)
            yield event("response.function_call_arguments.done", **at, name=item["name"], arguments=item["arguments"])
        else:
            yield from _deltas("response.custom_tool_call_input.delta", at, item["input"])
            yield event("response.custom_tool_call_input.done", **at, input=item["input"])
        done.append(item)  # before its event goes: a stream cut right after it counts it done
        yield event("response.output_item.done", output_index=index, item=item)


def _deltas(kind: str, at: dict[str, Any], text: str, tail: str = "") -> Iterator[tuple[str, str]]:
    """The events of `text` in deltas, one a token: the hot loop of every stream. Each is spliced as text rather
    than dumped, the same bytes `dumps` writes for `{"type": kind, **at, "delta": piece}` with `tail`'s fields
    after; `render_stream` closes each with its sequence number."""
    head = f'event: {kind}\ndata: {dumps({"type": kind, **at})[:-1]},"delta":'
    return ((head, quote(piece) + tail) for piece in tokens.pieces(text))


def _opened(item: dict[str, Any]) -> dict[str, Any]:
    """An output item as `output_item.added` announces it: in progress, its content still empty."""
    reasoning: dict[str, Any] = {"summary": [], "content": []} if "content" in item else {"summary": []}
    empty: dict[str, dict[str, Any]] = {"reasoning": reasoning, "message": {"content": []}}
    blank = {"function_call": {"arguments": ""}, "custom_tool_call": {"input": ""}}
    opened = item | empty.get(item["type"], {}) | blank.get(item["type"], {}) | {"status": "in_progress"}
    return opened


# The events that stream one part of a reasoning item (opened, its text in deltas, the text done, closed),
# and the key that numbers the part.
SUMMARY_EVENTS = (
    "reasoning_summary_part.added",
    "reasoning_summary_text.delta",
    "reasoning_summary_text.done",
    "reasoning_summary_part.done",
    "summary_index",
)
REASONING_EVENTS = (
    "content_part.added",
    "reasoning_text.delta",
    "reasoning_text.done",
    "content_part.done",
    "content_index",
)


def _stream_reasoning(at: dict[str, Any], item: dict[str, Any]) -> Iterator[Payload]:
    """Reasoning streams twice: as its summary (what the seed documents) and as raw reasoning text; each
    only where the item has it."""
    for parts, events in ((item["summary"], SUMMARY_EVENTS), (item.get("content", ()), REASONING_EVENTS)):
        added, delta, done, closed, index = events
        for part in parts:
            text, opened = part["text"], part | {"text": ""}
            yield {"type": f"response.{added}", **at, index: 0, "part": opened}
            yield from _deltas(f"response.{delta}", at | {index: 0}, text)
            yield {"type": f"response.{done}", **at, index: 0, "text": text}
            yield {"type": f"response.{closed}", **at, index: 0, "part": opened | {"text": text}}


def render_error(error: EmulatorError) -> dict[str, Any]:
    return openai_body(error)
