"""One recorded interaction as replay needs it (`Recording`), read from what vcrpy reads of a cassette, with
the headers a cassette keeps.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from emulator.recordings.matching import api_path, match_key
from emulator.recordings.scrub import text_of
from emulator.recordings.vcr_format import Request
from emulator.rules.faults import MAX_PAUSE_MS

# Request and response headers a cassette keeps (case-insensitive); every other one is dropped.
ALLOWED_HEADERS = frozenset(
    {
        "content-type",
        "accept",
        "anthropic-version",
        "anthropic-beta",
        "openai-beta",
        "openai-version",
        "openai-model",
        "openai-processing-ms",
        "user-agent",
        "request-id",
        "x-request-id",
        "inference-id",  # Infercom's name for it (seed 003), a UUID per answer
        "retry-after",
        "retry-after-ms",
        "x-should-retry",
        "cache-control",
    }
)
ALLOWED_PREFIXES = ("x-stainless-", "x-ratelimit-", "anthropic-ratelimit-")
MAX_GAP = MAX_PAUSE_MS / 1000  # seconds: the longest recorded pause a cassette may hold, as for any pause


def allowed(name: str) -> bool:
    name = name.lower()
    return name in ALLOWED_HEADERS or name.startswith(ALLOWED_PREFIXES)


@dataclass(frozen=True, slots=True)
class Recording:
    """One recorded interaction, as replay needs it."""

    source: str  # file name and index, for `x-emulator-source`
    method: str
    path: str  # from /v1/ on
    key: str  # `match_key` of the request body
    request: str  # the request body as recorded
    status: int
    headers: dict[str, str]
    body: bytes
    headers_after: float  # seconds from the request to the status line
    event_gaps: tuple[float, ...]  # seconds before each SSE event


def recordings_of(
    name: str, requests: Sequence[Request], responses: Sequence[Mapping[str, Any]], pacing: Sequence[Any]
) -> Iterator[Recording]:
    """A cassette's interactions, named `FILE#N`, each with its pacing where the cassette has it."""
    for i, (request, response) in enumerate(zip(requests, responses, strict=True)):
        yield recording_of(f"{name}#{i}", request, response, pacing[i] if i < len(pacing) else None)


def recording_of(
    source: str, request: Request, response: Mapping[str, Any], paced: Mapping[str, Any] | None
) -> Recording:
    """One cassette interaction, as replay needs it."""
    paced = paced or {}
    body = response["body"]["string"]
    return Recording(
        source=source,
        method=request.method.upper(),
        path=api_path(request.uri),
        key=match_key(request.body),
        request=text_of(request.body),
        status=int(response["status"]["code"]),
        headers={k.lower(): v[0] for k, v in response["headers"].items() if allowed(k) and v},
        body=body.encode() if isinstance(body, str) else body,
        headers_after=float(paced.get("headers_after", 0.0)),
        event_gaps=tuple(float(g) for g in paced.get("event_gaps", ())),
    )
