"""Replay: a recorded answer as it was sent (`script`), its pacing for an answer rendered afresh (`pace`),
and the error of a replay-only miss (`miss`).
"""

from __future__ import annotations

from emulator.core.conversation import Timing
from emulator.core.errors import NotFound
from emulator.core.wire import Pause, Script, Step, raw
from emulator.recordings.library import Library
from emulator.recordings.recording import Recording

MATCH_HEADER = "x-emulator-match"  # how a recording matched: exact, conversation, tool-results-differ


def pace(recording: Recording, speed: float) -> Timing | None:
    """A recording's pacing, as a `Timing` for an answer rendered afresh: its wait for the status line and
    for the first event, then its average rate over the events after that; None at speed 0."""
    gaps = recording.event_gaps
    if speed == 0 or not gaps:
        return None
    rest = sum(gaps[2:])
    rate = (len(gaps) - 2) / (rest * speed) if rest > 0 else 0.0
    return Timing(
        latency_ms=round(recording.headers_after * speed * 1000),
        ttft_ms=round(sum(gaps[:2]) * speed * 1000),
        tokens_per_second=rate,
    )


def miss(library: Library, method: str, path: str, body: bytes) -> NotFound:
    """Replay only, and no recording matched: say which one came closest and where it differs."""
    nearest = library.nearest_words(method, path, body)
    if nearest is None:
        return NotFound("No recording matches this request, and none are loaded.", code="recording_not_found")
    return NotFound(
        f"No recording matches this request (replay only). The nearest is {nearest}.", code="recording_not_found"
    )


def script(recording: Recording, speed: float, entry: int | None = None) -> Script:
    """A recorded answer as it was sent: its status and kept headers, then its body, SSE events with the
    recorded gaps scaled by `speed` (0: no pauses), or the whole body at once; its delivery completes the
    journal's `entry`."""
    headers = recording.headers | {"x-emulator-source": f"recording {recording.source}", MATCH_HEADER: "exact"}
    latency = recording.headers_after * speed
    if "text/event-stream" not in headers.get("content-type", ""):
        headers["content-length"] = str(len(recording.body))
        return Script([recording.body], recording.status, raw(headers), latency, entry=entry)
    pieces = [p + b"\n\n" for p in recording.body.split(b"\n\n")]
    pieces[-1] = pieces[-1][:-2]
    steps: list[Step] = []
    for i, piece in enumerate(p for p in pieces if p):
        gap = recording.event_gaps[i] * speed if i < len(recording.event_gaps) else 0.0
        steps += [Pause(gap), piece] if gap > 0 else [piece]
    return Script(steps, recording.status, raw(headers), latency, entry=entry)
