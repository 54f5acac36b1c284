"""Anthropic Messages (`POST /v1/messages`, `/v1/messages/count_tokens`), as Inferam serves it (seed 004).

Parse and validate the request into a `Prompt`; render a `Turn` as a `message` (thinking blocks, then
text, then tool_use) or as the named SSE events of wire-formats.md §3.2: message_start,
content_block_start / ping / content_block_delta / content_block_stop per block, message_delta with
the stop reason and cumulative usage, message_stop. `event:` lines are required: the Python SDK
skips data without one and Claude Code reads nothing without them (agent-clients.md).

The parts: `request` (parse and validate), `rendering` (the answer, whole or streamed, and errors),
`recorded` (a recorded answer read back, for replay).
"""

from __future__ import annotations

from emulator.core.sse import EVENT_STREAM as STREAM_HEADERS
from emulator.dialects.anthropic_messages.recorded import read_response
from emulator.dialects.anthropic_messages.rendering import (
    KEEPALIVE,
    MALFORMED,
    error_type,
    render,
    render_error,
    render_stream,
    render_stream_error,
)
from emulator.dialects.anthropic_messages.request import NAME, count_tokens, parse_request

OPENS = True  # the stream's first event opens it: the first token comes after

__all__ = [
    "OPENS",
    "STREAM_HEADERS",
    "KEEPALIVE",
    "MALFORMED",
    "NAME",
    "count_tokens",
    "error_type",
    "parse_request",
    "read_response",
    "render",
    "render_error",
    "render_stream",
    "render_stream_error",
]
