"""OpenAI Responses (`POST /v1/responses`), stateless, as Inferam serves it to Codex (seed 001).

Parse `input` (a string or a list of items) into a `Prompt`; render a `Turn` as a `Response` or as the
event stream of wire-formats.md §2.2: `event:` and `data:` lines, `sequence_number` from 0 in steps of
1, created, in_progress, each output item opened, streamed and closed, then exactly one terminal event
(`response.completed`, `response.incomplete` or `response.failed`), after which the body ends.

The parts: `request` (parse and validate), `rendering` (the answer, whole or streamed, and errors),
`recorded` (a recorded answer read back, for replay).
"""

from __future__ import annotations

from emulator.core.sse import EVENT_STREAM as STREAM_HEADERS
from emulator.dialects.openai_responses.recorded import read_response
from emulator.dialects.openai_responses.rendering import (
    KEEPALIVE,
    MALFORMED,
    finished,
    render,
    render_error,
    render_stream,
)
from emulator.dialects.openai_responses.request import NAME, compact, count_tokens, parse_request

OPENS = True  # the stream's first event opens it: the first token comes after

__all__ = [
    "OPENS",
    "STREAM_HEADERS",
    "KEEPALIVE",
    "MALFORMED",
    "NAME",
    "compact",
    "count_tokens",
    "finished",
    "parse_request",
    "read_response",
    "render",
    "render_error",
    "render_stream",
]
