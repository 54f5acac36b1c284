"""OpenAI Chat Completions (`POST /v1/chat/completions`), as Inferam serves it (seed 000).

Parse and validate the request into a `Prompt`; render a `Turn` as a `chat.completion` or as the SSE
stream of `chat.completion.chunk`s (reference wire-formats.md §1.2): a role chunk, `reasoning_content`
deltas, content deltas, tool-call deltas (index, id and name first, argument fragments after), the
chunk that carries `finish_reason`, the usage chunk with `choices: []` when asked for, `[DONE]`.
The request's profile (`Prompt.profile`) reshapes it: Infercom's (seed 003) `reasoning` field, UUID ids,
float `created`, timing-rich usage, whole tool calls, `n` choices and its extra validation.

The parts: `request` (parse and validate), `rendering` (the answer, whole or streamed, and errors),
`recorded` (a recorded answer read back, for replay).
"""

from __future__ import annotations

from emulator.core.sse import EVENT_STREAM as STREAM_HEADERS
from emulator.dialects.openai_chat.recorded import read_response
from emulator.dialects.openai_chat.rendering import (
    KEEPALIVE,
    MALFORMED,
    render,
    render_error,
    render_stream,
    render_stream_error,
)
from emulator.dialects.openai_chat.request import NAME, parse_request

OPENS = True  # the stream's first event opens it: the first token comes after

__all__ = [
    "OPENS",
    "STREAM_HEADERS",
    "KEEPALIVE",
    "MALFORMED",
    "NAME",
    "parse_request",
    "read_response",
    "render",
    "render_error",
    "render_stream",
    "render_stream_error",
]
