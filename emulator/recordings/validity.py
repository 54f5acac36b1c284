"""What a cassette must look like: every way a parsed document falls short, each as `KEY PATH: what is
wrong`, so that a malformed cassette is refused at load with the key to mend, not a traceback at replay.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import re2

from emulator.recordings.recording import MAX_GAP
from emulator.recordings.scrub import SCRUB_KEY
from emulator.recordings.vcr_format import PACING


def is_cassette(document: Any) -> bool:
    """Whether a parsed YAML document means to be a cassette (and not, say, a scenario file)."""
    return isinstance(document, dict) and "interactions" in document


# What vcrpy and replay read of an interaction: (key path, accepted types, what was expected).
_SHAPE: tuple[tuple[str, tuple[type, ...], str], ...] = (
    ("request.method", (str,), "a string such as POST"),
    ("request.uri", (str,), "a string, the URL"),
    ("request.body", (str, bytes, type(None)), "a string, bytes or null"),
    ("request.headers", (dict,), "a mapping of header names to lists of values"),
    ("response.status.code", (int,), "an integer HTTP status"),
    ("response.headers", (dict,), "a mapping of header names to lists of values"),
    ("response.body.string", (str, bytes), "a string or bytes"),
)
_MISSING = object()


def cassette_problems(document: Any) -> Iterator[str]:
    """Every way a parsed document falls short of a cassette, each as `KEY PATH: what is wrong`."""
    if not is_cassette(document):
        yield "not a cassette: expected a mapping with 'interactions', a list of {request, response}"
        return
    interactions = document["interactions"]
    if not isinstance(interactions, list):
        yield f"interactions: expected a list of {{request, response}}, got {_kind(interactions)}"
        return
    for i, interaction in enumerate(interactions):
        at = f"interactions[{i}]"
        if not isinstance(interaction, dict):
            yield f"{at}: expected a mapping with request and response, got {_kind(interaction)}"
            continue
        for path, types, expected in _SHAPE:
            value = _dig(interaction, path)
            if value is _MISSING:
                yield f"{at}.{path}: missing; expected {expected}"
            elif not isinstance(value, types) or isinstance(value, bool):
                yield f"{at}.{path}: expected {expected}, got {_kind(value)}"
        headers = _dig(interaction, "response.headers")
        for name, values in headers.items() if isinstance(headers, dict) else ():
            if not (isinstance(values, list) and all(isinstance(v, str) for v in values)):
                yield f"{at}.response.headers.{name}: expected a list of strings, got {_kind(values)}"
        if PACING in interaction:
            yield from _pacing_problems(interaction[PACING], f"{at}.{PACING}")
    scrubs = document.get(SCRUB_KEY) or []
    for i, scrub in enumerate(scrubs if isinstance(scrubs, list) else [scrubs]):
        at = f"{SCRUB_KEY}[{i}]" if isinstance(scrubs, list) else SCRUB_KEY
        if not (
            isinstance(scrub, dict) and isinstance(scrub.get("pattern"), str) and isinstance(scrub.get("replace"), str)
        ):
            yield f"{at}: expected a mapping of pattern and replace, two strings"
            continue
        try:
            re2.compile(scrub["pattern"])
        except re2.error:
            yield f"{at}.pattern: not a regular expression in RE2's syntax"
    metadata = document.get("metadata") or {}
    if not isinstance(metadata, dict):
        yield f"metadata: expected a mapping, got {_kind(metadata)}"
        return
    pacing = metadata.get(PACING) or []
    if not isinstance(pacing, list):
        yield f"metadata.{PACING}: expected a list, one entry per interaction, got {_kind(pacing)}"
        return
    for i, paced in enumerate(pacing):
        yield from _pacing_problems(paced, f"metadata.{PACING}[{i}]")


def _pacing_problems(paced: Any, at: str) -> Iterator[str]:
    if paced is not None and not isinstance(paced, dict):
        yield f"{at}: expected a mapping of headers_after and event_gaps, got {_kind(paced)}"
        return
    gaps = (paced or {}).get("event_gaps", [])
    if not _seconds((paced or {}).get("headers_after", 0)):
        yield f"{at}.headers_after: expected seconds, a number from 0 to {MAX_GAP:g}"
    if not (isinstance(gaps, list) and all(_seconds(g) for g in gaps)):
        yield f"{at}.event_gaps: expected a list of seconds, numbers from 0 to {MAX_GAP:g}"


def _seconds(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool) and 0 <= value <= MAX_GAP


def _dig(mapping: Mapping[str, Any], path: str) -> Any:
    value: Any = mapping
    for key in path.split("."):
        if not isinstance(value, dict) or key not in value:
            return _MISSING
        value = value[key]
    return value


def _kind(value: Any) -> str:
    return "nothing" if value is None else f"{type(value).__name__} ({str(value)[:40]!r})"
