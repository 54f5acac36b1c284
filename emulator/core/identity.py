"""What makes two requests the same conversation, whichever dialect carries them: the conversation key.

One definition for everything that asks: it seeds the answer's text (the default's text, reasoning, tool
calls and their arguments, and a scenario's faker text), so that a conversation gets the same answer
streamed or not and through Chat Completions, Responses or Messages; replay finds a recording of the same
conversation by it; chaos counts a conversation's attempts by it, and the client report its retries.

In the key: the model; the system text wherever it came from (top-level `system`, `instructions`, system
or developer messages, in order; consecutive ones are one text, however many blocks or messages carry
it); each message's role, words and images, its tool calls (name and
arguments, canonical) and tool results; the tools (name, kind, description, schema); the tool choice; the
response format and its schema; `temperature` and `seed` when sent. Not in it: ids, key order, runs of
whitespace; limits (max tokens and stop sequences cut the same answer shorter); `stream` and its options;
metadata (`user`, `metadata`, `client_metadata`, `prompt_cache_key`, `safety_identifier`); the dialect and
the path.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from emulator.core import ids
from emulator.core.conversation import Message, Prompt, ResponseFormat, Tool, ToolChoice
from emulator.core.sse import canonical, loads


def conversation(prompt: Prompt, model: str | None = None, tool_results: bool = True) -> str:
    """The conversation key of `prompt` (with `model` for its model, if given): a digest, the same for the same
    conversation in any dialect. Without `tool_results`, what the tools printed is left out (`loose`)."""
    return key(
        model or prompt.model,
        prompt.messages,
        prompt.tools,
        prompt.tool_choice,
        prompt.response_format,
        prompt.temperature,
        prompt.seed,
        tool_results,
    )


def loose(prompt: Prompt) -> str:
    """The conversation key with the contents of tool results left out: the same agent session, step for step,
    whose tools printed something else this time (a replay's third and loosest tier)."""
    return conversation(prompt, tool_results=False)


def key(
    model: str,
    messages: Sequence[Message],
    tools: Sequence[Tool],
    choice: ToolChoice,
    form: ResponseFormat,
    temperature: float | None,
    seed: int | None,
    tool_results: bool = True,
) -> str:
    """The conversation key from a request's parts, for a dialect to set as it builds the `Prompt`: one text of
    them all, hashed once (each message's text is the costly part; the rest is short). Without `tool_results`,
    a tool result counts as a tool result but its content does not."""
    parts = [model, choice.mode, choice.name or "", form.type, _schema(form.schema), repr(temperature), repr(seed)]
    system = False  # whether the last part is a system text: consecutive ones are one system prompt
    for m in messages:  # each message's role, words (whitespace aside), tool calls and images
        words = _words(m.text) if tool_results or m.role != "tool" else ""
        role = "system" if m.role == "developer" else m.role
        if role == "system" and system and not m.images:  # Messages' `system` blocks, or two developer messages
            parts[-2] = f"{parts[-2]} {words}"
            continue
        parts += (role, words, str(m.images))
        parts += (f"{c.name}\x1d{_arguments(c.arguments)}" for c in m.tool_calls)
        system = role == "system" and not m.tool_calls and not m.images
    for t in tools:
        parts += (t.name, t.kind, " ".join(t.description.split()), _schema(t.parameters))
    # One text, its parts apart by a separator no JSON or word holds unescaped, hashed once.
    return ids.digest("\x1e".join(parts))


# Characters of a text split into words at a time: a 20 MB message took 140 ms in one `split`, a call that holds the
# interpreter throughout, so that the loop answered nothing else even with the parse in a worker thread.
SLICE = 1 << 20
_SPACE = re.compile(r"\s")  # what `str.split` splits at (`str.isspace`)


def _words(text: str) -> str:
    """`text`'s words one space apart (`" ".join(text.split())`), a slice at a time when it is long, each cut at a
    space so that no word is cut."""
    if len(text) <= SLICE:
        return " ".join(text.split())
    pieces, start, end = [], 0, len(text)
    while start < end:
        cut = min(start + SLICE, end)
        found = _SPACE.search(text, cut) if cut < end else None
        cut = found.start() if found else end
        piece = " ".join(text[start:cut].split())
        if piece:
            pieces.append(piece)
        start = cut
    return " ".join(pieces)


def _arguments(arguments: str) -> str:
    """Tool-call arguments as canonical JSON (key order and spacing aside); freeform input as it is."""
    try:
        return canonical(loads(arguments.encode()))
    except (ValueError, UnicodeError, RecursionError):
        return arguments


def _schema(schema: Mapping[str, Any] | None) -> str:
    return canonical(schema) if schema is not None else ""
