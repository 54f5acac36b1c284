"""Gemini's `generateContent` and `streamGenerateContent` (reference providers-google.md), as google-genai and
`@google/genai` call them: a `GenerateContentRequest` (`contents` of `parts`, `systemInstruction`, `tools` of
`functionDeclarations`, `toolConfig`, `generationConfig` with `thinkingConfig`) read into a `Prompt`, and a `Turn`
rendered as a `GenerateContentResponse`, whole or as SSE chunks, with errors in Google's shape.

The parts: `request` (the request read, in either field spelling, the model and the method from the path),
`rendering` (the answer and errors), `recorded` (a recorded answer read back, for replay)."""

from __future__ import annotations

from emulator.core.sse import EVENT_STREAM as STREAM_HEADERS
from emulator.dialects.gemini.recorded import read_response
from emulator.dialects.gemini.rendering import KEEPALIVE, MALFORMED, render, render_error, render_stream
from emulator.dialects.gemini.request import NAME, parse_request, placed

OPENS = False  # the stream's first event is its first token: nothing opens it

__all__ = [
    "KEEPALIVE",
    "MALFORMED",
    "NAME",
    "OPENS",
    "STREAM_HEADERS",
    "parse_request",
    "placed",
    "read_response",
    "render",
    "render_error",
    "render_stream",
]
