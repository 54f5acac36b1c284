"""An answer's shape, and where two shapes part: what `emulator drift` (a recording against the live upstream)
and `emulator conform` (a recording against the emulator's own rendering of it) compare, and what a user's own
test can call.

A shape keeps what a client's code depends on and drops what varies from one answer to the next: the status;
the response headers a cassette keeps, by name; for a JSON body every field path with its value's type
(values ignored; an id by its prefix and alphabet; the items of an array by the union of their paths, `[]`);
for an event stream the sequence of event types with consecutive repeats collapsed (`response.output_text.
delta+`: no two answers have the same number of deltas) and, per type, the union of its events' field paths.
Chat Completions' chunks carry no type, so each is typed by what it carries (`delta.content`, `finish_reason`,
`usage`, `[DONE]`). Pure: bytes in, values out.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal

import re2

from emulator.core.sse import decode, loads
from emulator.recordings.recording import allowed

Fields = Mapping[str, str]  # field path → type (`string`, `integer`, `null|string`, `id(resp_, hex)`, …)
DONE = "[DONE]"
# An id's form: a lowercase prefix ending in `_` or `-` (`resp_`, `chatcmpl-`, `msg_`), then its body.
_ID = re2.compile(r"^([a-z][a-z0-9]*(?:_[a-z0-9]+)*[_-])([A-Za-z0-9]{6,})$")
_HEX = re2.compile(r"^[0-9a-f]+$")
_UUID = re2.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$")


@dataclass(frozen=True, slots=True)
class Shape:
    """What two answers must share to look alike to a client. `events` is empty for a body that is not a
    stream; `fields` then holds the body's paths, else `TYPE: path` for each event type's paths."""

    status: int
    headers: frozenset[str] = frozenset()
    fields: Mapping[str, str] = field(default_factory=dict)
    events: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Difference:
    """One way two shapes part. `kind`: `+` only on the other (live) side, `-` only on the recorded side,
    `~` on both but different."""

    kind: Literal["+", "-", "~"]
    what: Literal["status", "header", "field", "event", "order"]
    path: str
    recorded: str = ""
    live: str = ""

    def __str__(self) -> str:
        name = f"{self.what} {self.path}" if self.what in ("header", "event") else self.path
        if self.kind == "+":
            return f"+ {name}" + (f" ({self.live})" if self.what == "field" else f": {self.live}" if self.live else "")
        if self.kind == "-":
            return f"- {name}" + (f": {self.recorded}" if self.what == "event" and self.recorded else "")
        return f"~ {name}: {self.recorded} -> {self.live}"

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "what": self.what, "path": self.path, "recorded": self.recorded, "live": self.live}


def shape_of(status: int, headers: Mapping[str, str], body: bytes) -> Shape:
    """The shape of an answer: its status, its kept headers' names, and its body's (a stream when its content
    type says so). A body that is not JSON has only its status and headers."""
    kept = frozenset(name.lower() for name in headers if allowed(name))
    content_type = next((v for k, v in headers.items() if k.lower() == "content-type"), "")
    if "text/event-stream" in content_type:
        events, fields = stream_shape(body)
        return Shape(status, kept, fields, events)
    try:
        document = loads(body)
    except ValueError:
        return Shape(status, kept)
    return Shape(status, kept, body_shape(document))


def body_shape(document: Any) -> dict[str, str]:
    """Every field path of a JSON document with its value's type; the root is ``."""
    found: dict[str, set[str]] = {}
    _walk(document, "", "", found)
    return {path: "|".join(sorted(kinds)) for path, kinds in found.items()}


def stream_shape(body: bytes) -> tuple[tuple[str, ...], dict[str, str]]:
    """An SSE body's event types in order, consecutive repeats collapsed (`TYPE+`), and per type the union of
    its events' field paths, as `TYPE: path`."""
    sequence: list[str] = []
    found: dict[str, set[str]] = {}
    for event in decode([body]):
        if event.data == DONE:
            kind, data = DONE, None
        else:
            try:
                data = loads(event.data.encode())
            except ValueError:
                kind, data = event.event or "(not JSON)", None
            else:
                kind = event.event or _kind_of(data)
        if sequence and sequence[-1].rstrip("+") == kind:
            sequence[-1] = kind + "+"
        else:
            sequence.append(kind)
        if data is not None:
            _walk(data, "", "", found, prefix=f"{kind}: ")
    fields = {path: "|".join(sorted(kinds)) for path, kinds in found.items()}
    return tuple(sequence), fields


def _kind_of(data: Any) -> str:
    """An event's type: its `type` field, or for a Chat chunk (which has none) what it carries."""
    if not isinstance(data, dict):
        return type(data).__name__
    if isinstance(data.get("type"), str):
        return str(data["type"])
    if "error" in data:
        return "error"
    choices = data.get("choices")
    if isinstance(choices, list):
        carried: list[str] = []
        for choice in choices:
            delta = choice.get("delta") if isinstance(choice, dict) else None
            if isinstance(delta, dict):
                carried += [f"delta.{k}" for k, v in delta.items() if v not in (None, "", [], {})]
            if isinstance(choice, dict) and choice.get("finish_reason") is not None:
                carried.append("finish_reason")
        if not choices and data.get("usage") is not None:
            carried.append("usage")
        return ",".join(dict.fromkeys(carried)) or "chunk"
    return str(data.get("object") or "event")


def _walk(value: Any, path: str, key: str, found: dict[str, set[str]], prefix: str = "") -> None:
    found.setdefault(prefix + (path or "."), set()).add(type_of(value, key))
    if isinstance(value, dict):
        for k, v in value.items():
            _walk(v, f"{path}.{k}" if path else str(k), str(k), found, prefix)
    elif isinstance(value, list):
        for item in value:
            _walk(item, f"{path}[]", key, found, prefix)


def type_of(value: Any, key: str = "") -> str:
    """A JSON value's type; a string under a key named `id` or `…_id` that looks like an id, by its form."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return _id_form(value) if key == "id" or key.endswith("_id") else "string"
    if isinstance(value, list):
        return "array"
    return "object"


def _id_form(value: str) -> str:
    if _UUID.match(value):
        return "id(uuid)"
    match = _ID.match(value)
    if not match:
        return "string"
    return f"id({match.group(1)}, {'hex' if _HEX.match(match.group(2)) else 'base62'})"


def compare(recorded: Shape, live: Shape) -> list[Difference]:
    """Where `live` parts from `recorded`: status, headers, event sequence, then fields (those of an event
    type only one side has are left to that event's own line)."""
    out: list[Difference] = []
    if recorded.status != live.status:
        out.append(Difference("~", "status", "status", str(recorded.status), str(live.status)))
    out += [Difference("+", "header", h) for h in sorted(live.headers - recorded.headers)]
    out += [Difference("-", "header", h) for h in sorted(recorded.headers - live.headers)]
    out += [_carrying(d, recorded.fields, live.fields) for d in compare_events(recorded.events, live.events)]
    only = {e.rstrip("+") for e in recorded.events} ^ {e.rstrip("+") for e in live.events}
    out += compare_fields(recorded.fields, live.fields, skip=only)
    return out


def _carrying(difference: Difference, recorded: Fields, live: Fields) -> Difference:
    """An event type only one side sends, with what its events carry there beside the envelope (what half the
    side's other event types carry too: `type`, `id`, `sequence_number`…), as `path (type)` leaves: what a client
    would have to read from it."""
    if difference.what != "event" or difference.kind == "~":
        return difference
    fields = recorded if difference.kind == "-" else live
    kinds: dict[str, dict[str, str]] = {}
    for key, kind in fields.items():
        event, _, path = key.partition(": ")
        kinds.setdefault(event, {})[path] = kind
    mine = kinds.get(difference.path, {})
    others = [paths for event, paths in kinds.items() if event != difference.path]
    shared = {path for path in mine if 2 * sum(path in paths for paths in others) >= len(others) > 0}
    leaves = [
        f"{path} ({kind})"
        for path, kind in sorted(mine.items())
        if path != "." and path not in shared and not any(p.startswith((f"{path}.", f"{path}[]")) for p in mine)
    ]
    if difference.kind == "-":
        return replace(difference, recorded=", ".join(leaves))
    return replace(difference, live=", ".join(leaves))


def compare_fields(recorded: Fields, live: Fields, skip: Iterable[str] = ()) -> list[Difference]:
    """Fields only live (`+`), only recorded (`-`), or typed differently (`~`), by path."""
    skipped = tuple(f"{kind}: " for kind in skip)
    out: list[Difference] = []
    for path in sorted(recorded.keys() | live.keys()):
        if skipped and path.startswith(skipped):
            continue
        if path not in recorded:
            out.append(Difference("+", "field", path, live=live[path]))
        elif path not in live:
            out.append(Difference("-", "field", path, recorded=recorded[path]))
        elif recorded[path] != live[path]:
            out.append(Difference("~", "field", path, recorded[path], live[path]))
    return out


def compare_events(recorded: tuple[str, ...], live: tuple[str, ...]) -> list[Difference]:
    """Event types only live (`+`), only recorded (`-`), or the same types in another order (`~`)."""
    kinds = [e.rstrip("+") for e in recorded], [e.rstrip("+") for e in live]
    if kinds[0] == kinds[1]:  # `X` against `X+`: one delta against several is a count, not a shape
        return []
    if set(kinds[0]) == set(kinds[1]):
        return [Difference("~", "order", "events", ", ".join(recorded), ", ".join(live))]
    out: list[Difference] = []
    matcher = difflib.SequenceMatcher(a=kinds[0], b=kinds[1], autojunk=False)
    for op, a0, a1, b0, b1 in matcher.get_opcodes():
        if op in ("delete", "replace"):
            out += [Difference("-", "event", e) for e in kinds[0][a0:a1] if e not in kinds[1]]
        if op in ("insert", "replace"):
            out += [Difference("+", "event", e) for e in kinds[1][b0:b1] if e not in kinds[0]]
    if not out:  # the same types, one of them repeated elsewhere too
        out.append(Difference("~", "order", "events", ", ".join(recorded), ", ".join(live)))
    return out


def report(differences: Iterable[Difference]) -> str:
    """The differences, one a line; `same` when there are none."""
    lines = [str(d) for d in differences]
    return "\n".join(lines) if lines else "same"
