"""The three dialects, one module each; what the answering path needs of every one of them.

Layer: above the rules and the core, all it imports; the dialects never import each other. A new provider family is a
new package here, reading into the one `Prompt` and rendering the one `Turn`. `error_bodies` renders an error in
the dialect's and the profile's shape; `operations` names the dialect of each of Google's and Bedrock's operations.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from emulator.core.conversation import Prompt, Reply, Turn
from emulator.core.errors import EmulatorError


class Dialect(Protocol):
    NAME: str  # as `Prompt.dialect` and profiles name it
    KEEPALIVE: bytes  # what the dialect's upstream sends during a long pause
    MALFORMED: bytes  # a frame its clients parse, with broken JSON in it
    OPENS: bool  # whether a stream's first event opens it before any token (Chat's role chunk) or is the first
    STREAM_HEADERS: dict[str, str]  # a stream's content type: SSE (`sse.EVENT_STREAM`), or Ollama's NDJSON

    def parse_request(
        self, body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = ""
    ) -> Prompt: ...
    def render(self, prompt: Prompt, turn: Turn) -> dict[str, Any]: ...
    def render_stream(self, prompt: Prompt, turn: Turn) -> Iterable[bytes]: ...  # made as it is read
    def render_error(self, error: EmulatorError) -> dict[str, Any]: ...
    def read_response(self, body: bytes, stream: bool) -> Reply: ...
