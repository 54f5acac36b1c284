"""Near misses: the recording a request that matched none was most likely meant to match, and where the two
differ (`body.messages[1].content`), said in words for the error replay answers with.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from emulator.core.sse import encode, loads
from emulator.recordings.matching import api_path
from emulator.recordings.recording import Recording


def nearest(recordings: Iterable[Recording], method: str, path: str, wanted: Any) -> tuple[Recording, list[str]] | None:
    """The same method and path first, then the longest run of the same messages or items from the start (the
    same conversation, so far), then the fewest differences; `wanted` is the request's parsed match key."""
    return _nearest(recordings, (method.upper(), api_path(path)), wanted, {})


def _nearest(
    recordings: Iterable[Recording], where: tuple[str, str], wanted: Any, keys: dict[str, Any]
) -> tuple[Recording, list[str]] | None:
    best: tuple[tuple[int, int, int], Recording, list[str]] | None = None
    for recording in recordings:
        route = [
            name
            for name, differ in (("method", recording.method != where[0]), ("path", recording.path != where[1]))
            if differ
        ]
        held = keys[recording.key] if recording.key in keys else parsed(recording.key)
        body_differs = _differences(held, wanted, "body")
        score = (len(route), -_shared_turns(held, wanted), len(body_differs))
        if best is None or score < best[0]:
            best = (score, recording, route + _first_in_turns(body_differs))
    return (best[1], best[2]) if best else None


# Of the recordings that share the most turns with a request, those whose differences are counted: the search
# then costs the same with fifty thousand recordings as with fifty.
COMPARED = 64


class Index:
    """The recordings by route (method, path), and by each prefix of their conversation (a digest of the first
    messages or items), so that `nearest` looks at the recordings sharing the most turns with a request, never at
    all of them; each key parsed once."""

    def __init__(self, recordings: Iterable[Recording] = ()) -> None:
        self.routes: dict[tuple[str, str], list[Recording]] = {}
        self.prefixes: dict[tuple[str, str, int], list[Recording]] = {}
        self.parsed: dict[str, Any] = {}
        for recording in recordings:
            self.add(recording)

    def add(self, recording: Recording) -> None:
        """One recording more, indexed: its route, each prefix of its conversation, its parsed key."""
        route = (recording.method, recording.path)
        self.routes.setdefault(route, []).append(recording)
        held = self.parsed.setdefault(recording.key, parsed(recording.key))
        for digest in _prefix_digests(held):
            self.prefixes.setdefault((*route, digest), []).append(recording)

    def nearest(self, method: str, path: str, wanted: Any) -> tuple[Recording, list[str]] | None:
        """As `nearest`, over at most `COMPARED` recordings: of the request's route, those sharing the longest
        run of turns with it (else the route's first ones; with none on its route, every route's first ones)."""
        route = (method.upper(), api_path(path))
        candidates: list[Recording] = []
        for digest in reversed(_prefix_digests(wanted)):  # the longest shared run first
            candidates = self.prefixes.get((*route, digest), [])
            if candidates:
                break
        if not candidates:
            candidates = self.routes.get(route) or [r for held in self.routes.values() for r in held[:COMPARED]]
        return _nearest(candidates[:COMPARED], route, wanted, self.parsed)


def _prefix_digests(body: Any) -> list[int]:
    """One digest per prefix of a body's conversation, of its first turn, its first two, …: Python's hash, for
    the index lives in one process (a match key's keys are sorted already: its dump is canonical)."""
    digest, found = 0, []
    for turn in _turns(body):
        digest = hash((digest, encode(turn)))
        found.append(digest)
    return found


def words(recordings: Iterable[Recording] | Index, method: str, path: str, wanted: Any) -> str | None:
    """`nearest` in words: which recording, the first path that differs with both values, the others."""
    found = recordings.nearest(method, path, wanted) if isinstance(recordings, Index) else None
    if found is None and not isinstance(recordings, Index):
        found = nearest(recordings, method, path, wanted)
    if found is None:
        return None
    recording, differs = found
    text = f"{recording.source}, which differs in "
    if differs and differs[0].startswith("body"):
        held, asked = _at(parsed(recording.key), differs[0]), _at(wanted, differs[0])
        text += f"{differs[0]}: {_short(held)} vs {_short(asked)}"
    else:
        text += differs[0] if differs else "nothing (it is not understood)"
    rest = differs[1:6]
    more = f" and {len(differs) - 6} more" if len(differs) > 6 else ""
    return text + (f"; also {', '.join(rest)}{more}" if rest else "")


def parsed(key: str) -> Any:
    """A match key's JSON, or the key itself when the body was not JSON."""
    try:
        return loads(key.encode())
    except ValueError:
        return key


def _turns(body: Any) -> list[Any]:
    """A body's conversation: Chat's and Messages' `messages`, Responses' `input` (a list)."""
    if not isinstance(body, dict):
        return []
    turns = body.get("messages", body.get("input"))
    return turns if isinstance(turns, list) else []


def _shared_turns(held: Any, asked: Any) -> int:
    """How many messages or items two bodies share from the start."""
    count = 0
    for a, b in zip(_turns(held), _turns(asked), strict=False):
        if a != b:
            break
        count += 1
    return count


def _first_in_turns(differs: list[str]) -> list[str]:
    """The differing paths with those inside the conversation first, in order: the first differing message is
    what a reader wants to see (the rest follow in key order)."""

    def place(path: str) -> tuple[int, int]:
        for key in (".messages[", ".input["):
            if key in path:
                index = path.split(key, 1)[1].split("]", 1)[0]
                return (0, int(index)) if index.isdigit() else (0, 0)
        return (1, 0)

    return sorted(differs, key=place)


def _at(value: Any, path: str) -> Any:
    """The value at a `body.messages[3].content` path, or None where there is none."""
    for part in path.replace("[", ".[").split(".")[1:]:
        if part.startswith("[") and isinstance(value, list):
            index = int(part[1:-1])
            value = value[index] if index < len(value) else None
        elif isinstance(value, dict):
            value = value.get(part)
        else:
            return None
    return value


def _short(value: Any) -> str:
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return json.dumps(text[:24] + "…" if len(text) > 24 else text, ensure_ascii=False)


def _differences(recorded: Any, asked: Any, at: str) -> list[str]:
    """The paths (`body.messages[1].content`) at which two JSON values differ, outermost first."""
    if isinstance(recorded, dict) and isinstance(asked, dict):
        found = []
        for key in sorted(recorded.keys() | asked.keys()):
            found += _differences(recorded.get(key), asked.get(key), f"{at}.{key}")
        return found
    if isinstance(recorded, list) and isinstance(asked, list):  # item by item; then the first one past the shorter
        found = [
            d for i, (r, a) in enumerate(zip(recorded, asked, strict=False)) for d in _differences(r, a, f"{at}[{i}]")
        ]
        return found + ([f"{at}[{min(len(recorded), len(asked))}]"] if len(recorded) != len(asked) else [])
    return [] if recorded == asked else [at]
