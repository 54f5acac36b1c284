"""Ollama's `POST /api/chat` (reference providers-aws-azure-ollama.md §3): messages, tools, `think`, `format` and
`options` read into a `Prompt`; the answer as one JSON object, or (`stream`, on unless false) as NDJSON lines of
`message` pieces (thinking first, then content, then the tool calls), ending with `done: true`, the `done_reason`
and the counts and durations."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

from emulator.core import tokens
from emulator.core.conversation import Message, Prompt, Reply, Tool, ToolCall, Turn
from emulator.core.errors import EmulatorError
from emulator.core.fields import Fields
from emulator.core.sse import dumps, loads
from emulator.dialects.ollama import common
from emulator.dialects.ollama.common import KEEPALIVE as KEEPALIVE
from emulator.dialects.ollama.common import MALFORMED as MALFORMED
from emulator.dialects.ollama.common import NDJSON
from emulator.dialects.ollama.common import OPENS as OPENS
from emulator.rules import profiles

NAME = profiles.OLLAMA_CHAT
STREAM_HEADERS = NDJSON
ROLES = ("system", "user", "assistant", "tool")
DOING = {"done": False}


def parse_request(
    body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
) -> Prompt:
    f = Fields(body)
    messages = tuple(_message(m) for m in f.objects("messages"))
    tools = tuple(_tool(t) for t in f.objects("tools"))
    return common.asked(NAME, f, messages, tools, headers, fingerprint, profile)


def _message(m: Fields) -> Message:
    role = m.choice("role", ROLES) or m.need("role", str)
    calls = tuple(_call(c, i) for i, c in enumerate(m.objects("tool_calls")))
    images = m.data.get("images")
    return Message(
        role=role,  # type: ignore[arg-type]
        text=m.get("content", str, "") or "",
        reasoning=m.get("thinking", str, "") or "",
        tool_calls=calls,
        tool_call_id=(m.get("tool_call_id", str) or m.get("tool_name", str)) if role == "tool" else None,
        images=len(images) if isinstance(images, list) else 0,
    )


def _call(c: Fields, index: int) -> ToolCall:
    function = c.obj("function", required=True)
    assert function is not None
    arguments = function.data.get("arguments")
    text = dumps(arguments) if isinstance(arguments, dict) else arguments if isinstance(arguments, str) else "{}"
    return ToolCall(c.get("id", str) or function.need("name", str), function.need("name", str), text)


def _tool(t: Fields) -> Tool:
    function = t.obj("function", required=True)
    assert function is not None
    schema = function.get("parameters", dict)
    return Tool(function.need("name", str), description=function.get("description", str, "") or "", parameters=schema)


def _calls(turn: Turn) -> list[dict[str, Any]]:
    """The tool calls as Ollama sends them: arguments an object, not a string."""
    made = []
    for index, call in enumerate(turn.tool_calls):
        arguments = call.parsed_arguments()
        made.append({"id": call.id, "function": {"index": index, "name": call.name, "arguments": arguments}})
    return made


def _message_of(turn: Turn) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text}
    if turn.reasoning:
        message["thinking"] = turn.reasoning
    if turn.tool_calls:
        message["tool_calls"] = _calls(turn)
    return message


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    return {
        "model": turn.model,
        "created_at": common.created_at(turn),
        "message": _message_of(turn),
        "done_reason": common.done_reason(turn),
        "done": True,
    } | common.metrics(turn)


def render_stream(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    """NDJSON: a line per piece of thinking and of content, one with the tool calls, the final `done` line; made
    as they are read."""
    return common.finish(turn, _lines(turn))


def _lines(turn: Turn) -> Iterator[bytes]:
    at = 0.0
    step = 1000 / common.pace(turn).tokens_per_second

    def said(message: dict[str, Any]) -> bytes:
        return common.line({"model": turn.model, "created_at": common.created_at(turn, at), "message": message} | DOING)

    for piece in tokens.pieces(turn.reasoning):
        yield said({"role": "assistant", "content": "", "thinking": piece})
        at += step
    for piece in tokens.pieces(turn.text):
        yield said({"role": "assistant", "content": piece})
        at += step
    if turn.tool_calls:
        yield said({"role": "assistant", "content": "", "tool_calls": _calls(turn)})
    last = {
        "model": turn.model,
        "created_at": common.created_at(turn, at),
        "message": {"role": "assistant", "content": ""},
    }
    yield common.done(turn, last | {"done_reason": common.done_reason(turn), "done": True})


def render_error(error: EmulatorError) -> dict[str, Any]:
    return common.render_error(error)


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer, whole or as NDJSON lines: its thinking, content and tool calls."""
    objects = [loads(line) for line in body.splitlines() if line.strip()] if stream else [loads(body)]
    reasoning, text, calls = [], [], []
    for obj in objects:
        message = obj.get("message") or {}
        reasoning.append(message.get("thinking") or "")
        text.append(message.get("content") or "")
        for call in message.get("tool_calls") or ():
            function = call.get("function") or {}
            arguments = function.get("arguments")
            name = function.get("name") or ""
            calls.append(ToolCall(call.get("id") or "", name, dumps(arguments) if arguments is not None else "{}"))
    return Reply(reasoning="".join(reasoning), text="".join(text), tool_calls=tuple(calls))
