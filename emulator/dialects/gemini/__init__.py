"""Gemini's `generateContent` and `streamGenerateContent` (reference providers-google.md), as google-genai and
`@google/genai` call them: a `GenerateContentRequest` (`contents` of `parts`, `systemInstruction`, `tools` of
`functionDeclarations`, `toolConfig`, `generationConfig` with `thinkingConfig`) read into a `Prompt`, and a `Turn`
rendered as a `GenerateContentResponse`, whole or as SSE chunks, with errors in Google's shape.

The parts: `proto` (proto3 JSON's field names), `request` (the request read, the model and the method from the path;
`countTokens`), `rendering` (the answer and errors), `recorded` (a recorded answer read back, for replay); and
`embed`, a dialect of its own: `embedContent` and `batchEmbedContents`."""

from __future__ import annotations

from emulator.core.sse import EVENT_STREAM
from emulator.dialects.gemini.recorded import read_response
from emulator.dialects.gemini.rendering import KEEPALIVE, MALFORMED, render, render_error, render_stream
from emulator.dialects.gemini.request import NAME, count_tokens, parse_request, placed

STREAM_HEADERS = EVENT_STREAM
OPENS = False  # the stream's first event is its first token: nothing opens it

__all__ = [
    "KEEPALIVE",
    "MALFORMED",
    "NAME",
    "OPENS",
    "STREAM_HEADERS",
    "count_tokens",
    "parse_request",
    "placed",
    "read_response",
    "render",
    "render_error",
    "render_stream",
]
