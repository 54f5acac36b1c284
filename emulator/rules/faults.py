"""Faults and pacing: one vocabulary for scenario files, request headers and the CLI, and the plan
that turns a rendered answer into a script of writes, pauses and hang-ups.

Names follow the trusted prior art (WireMock's faults, Toxiproxy's toxics) plus the LLM-specific
in-band error. The plan is pure: the app plays it against the socket.
"""

from __future__ import annotations

import difflib
import math
import random
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import fields
from typing import Any

from emulator.core import ids
from emulator.core.conversation import Fault, Timing
from emulator.core.wire import Hangup, Pause, Pieces, Step, Steps

# kind → (its parameters, one line for the table in docs/faults.md). Every parameter's type is in PARAMETERS.
KINDS: dict[str, tuple[tuple[str, ...], str]] = {
    "status": (
        ("status", "message", "code", "retry_after", "retry_after_ms", "should_retry"),
        "an HTTP error with the dialect's error body and headers (`retry-after`, `retry-after-ms`, `x-should-retry`)",
    ),
    "stream_error": (
        ("after_events", "status", "code", "message", "retry_after", "event"),
        'the dialect\'s in-band error after N events: Chat `data: {"error": …}`, Responses `response.failed`'
        " (or the flat `error` event with `event=error`), Messages `event: error`",
    ),
    "truncate": (("after_events", "after_bytes"), "the body stops after N events or bytes, with no terminator"),
    "stall": (
        ("after_events", "ms"),
        "sending stops after N events; the socket stays open `ms` (0: until the client gives up)",
    ),
    "malformed": (("after_events",), "a chunk of broken JSON after N events, then the connection closes"),
    "slice": (("size",), "the same bytes, written in pieces of `size` bytes (frames cut at odd places)"),
    "drip": (("size", "ms"), "the same bytes, `size` bytes at a time, `ms` apart"),
    "reset": (("after_events",), "TCP reset (RST): before the response, or after N events"),
    "empty": ((), "the connection closes with nothing written"),
    "garbage": ((), "random bytes, no status line, then close"),
    "hang": ((), "the request is read and never answered"),
    "model_output": (
        ("message", "code", "output"),
        'Chat Completions: a 200 whose body is Infercom\'s `ModelOutputError`, `{"error": {…, "model_output"}}`,'
        " for a tool call or structured output the model got wrong (`output`: the raw text; default: the"
        " answer broken off); streamed, it is one `data:` error event. Responses and Messages: a 500",
    ),
}
PARAMETERS: dict[str, type] = {
    "status": int,
    "message": str,
    "code": str,
    "retry_after": float,
    "retry_after_ms": int,
    "should_retry": bool,
    "after_events": int,
    "after_bytes": int,
    "ms": int,
    "size": int,
    "event": str,
    "rate": float,
    "at": str,
    "output": str,
}
COMMON = ("rate", "at")  # parameters every kind takes
TIMING: dict[str, type] = {"latency_ms": int, "ttft_ms": int, "tokens_per_second": float, "jitter_ms": int}
FAULT_HEADER = "x-emulator-fault"  # a request's own fault, in this module's grammar
TIMING_HEADER = "x-emulator-timing"  # a request's own pacing
BULK = 16 * 1024  # bytes per write of a stream nothing paces or breaks
MAX_PAUSE_MS = 600_000  # any pause, hang or stall: at most 10 minutes
# The range of every number a fault or timing takes, so that no spec can stall the server or overflow.
RANGES: dict[str, tuple[float, float]] = {
    "latency_ms": (0, MAX_PAUSE_MS),
    "ttft_ms": (0, MAX_PAUSE_MS),
    "jitter_ms": (0, MAX_PAUSE_MS),
    "ms": (0, MAX_PAUSE_MS),
    "tokens_per_second": (0.1, 100_000),
    "retry_after": (0, 86_400),
    "retry_after_ms": (0, 86_400_000),
    "after_events": (0, 1_000_000_000),
    "after_bytes": (0, 1_000_000_000),
    "size": (1, 1_000_000_000),
    "rate": (0, 1),
    "status": (400, 599),
}
BEFORE_RESPONSE = ("empty", "garbage", "hang", "reset")  # `reset` only without `after_events`
KEEPALIVE_AFTER = 10.0  # seconds of silence before a keep-alive, so idle watchdogs behave as upstream


class FaultError(ValueError):
    """A fault or timing spec is wrong; the message names the key and what was expected."""


# --- reading specs ------------------------------------------------------------------------------------


def split_spec(text: str) -> dict[str, str]:
    """`KIND; key=value; …` (or `kind=…`, or a first `key=value` naming a kind) into a mapping of strings."""
    items = [part.strip() for part in text.split(";") if part.strip()]
    spec: dict[str, str] = {}
    for i, item in enumerate(items):
        key, sep, value = (part.strip() for part in item.partition("="))
        if not sep:
            if i or key not in KINDS:
                raise FaultError(f"'{item}' is not a fault kind or a key=value pair (kinds: {', '.join(KINDS)})")
            spec["kind"] = key
        else:
            spec[key] = value
            if i == 0 and "kind" not in spec and key in KINDS:
                spec["kind"] = key  # `status=429; retry_after=2`: the first key names the kind
    return spec


def fault(data: Mapping[str, Any], at: str) -> Fault:
    """A validated `Fault` from a mapping (YAML, or a split header whose values are strings)."""
    kind = data.get("kind")
    if kind is None:  # no kind named: a misspelt first key (`stauts=503`) says more than a missing kind
        unknown = [key for key in data if key not in PARAMETERS]
        if unknown:
            close = difflib.get_close_matches(unknown[0], [*KINDS, *PARAMETERS], n=1)
            hint = f"; did you mean '{close[0]}'?" if close else f"; a spec starts with a kind: {', '.join(KINDS)}"
            raise FaultError(f"{at}.{unknown[0]}: unknown key{hint}")
    if kind not in KINDS:
        raise FaultError(f"{at}.kind: expected one of {', '.join(KINDS)}, got {kind!r}")
    allowed = KINDS[kind][0] + COMMON
    values = {}
    for key, raw in data.items():
        if key == "kind":
            continue
        if key not in allowed:
            raise FaultError(f"{at}.{key}: not a parameter of '{kind}'; expected one of {', '.join(allowed) or 'none'}")
        values[key] = _value(raw, PARAMETERS[key], f"{at}.{key}")
    if kind == "status" and "status" not in values:
        raise FaultError(f"{at}.status: missing; a 'status' fault needs the HTTP status, e.g. status=429")
    if values.get("event", "failed") not in ("failed", "error"):
        raise FaultError(f"{at}.event: expected 'failed' (response.failed) or 'error' (the error event)")
    if values.get("at", "edge") not in ("edge", "upstream"):
        raise FaultError(f"{at}.at: expected 'edge' (the client sees it) or 'upstream' (behind the provider)")
    if kind == "truncate" and len({"after_events", "after_bytes"} & values.keys()) != 1:
        raise FaultError(f"{at}: a 'truncate' fault needs exactly one of after_events, after_bytes")
    return Fault(kind=kind, **values)


def timing(data: Mapping[str, Any], at: str) -> Timing:
    """A validated `Timing` from a mapping (YAML, or a split header)."""
    values = {}
    for key, raw in data.items():
        if key not in TIMING:
            raise FaultError(f"{at}.{key}: unknown timing key; expected one of {', '.join(TIMING)}")
        values[key] = _value(raw, TIMING[key], f"{at}.{key}")
    return Timing(**values)


def _value(raw: Any, kind: type, at: str) -> Any:
    """`raw` as a `kind`, parsed if it is text (a header, the CLI), and within its key's `RANGES`."""
    value = _typed(raw, kind, at)
    low, high = RANGES.get(at.rsplit(".", 1)[-1], (-math.inf, math.inf))
    if isinstance(value, int | float) and not isinstance(value, bool) and not low <= value <= high:  # nan too
        raise FaultError(f"{at}: expected {_NAMES[kind]} from {_figure(low)} to {_figure(high)}, got {raw}")
    return value


def _figure(x: float) -> str:
    return f"{x:,.0f}" if x == int(x) else f"{x:g}"


def _typed(raw: Any, kind: type, at: str) -> Any:
    if isinstance(raw, str) and kind is not str:
        try:
            return {"true": True, "false": False}[raw.lower()] if kind is bool else kind(raw)
        except (KeyError, ValueError):
            raise FaultError(f"{at}: expected {_NAMES[kind]}, got {raw!r}") from None
    if kind is float and isinstance(raw, (int, float)) and not isinstance(raw, bool):
        return float(raw)
    if isinstance(raw, bool) != (kind is bool) or not isinstance(raw, kind):
        raise FaultError(f"{at}: expected {_NAMES[kind]}, got {raw!r}")
    return raw


_NAMES = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}


def describe(value: Fault | Timing) -> str:
    """The spec in header grammar, for journals and banners: `status=429; retry_after=2.0`, `truncate;
    after_events=3` (a kind that is also its first key, as `status` is, said once)."""
    defaults = type(value)()
    parts = [
        f"{f.name}={getattr(value, f.name)}"
        for f in fields(value)
        if f.name != "kind" and getattr(value, f.name) != getattr(defaults, f.name)
    ]
    if isinstance(value, Fault) and not (parts and parts[0].startswith(f"{value.kind}=")):
        parts.insert(0, value.kind)
    return "; ".join(parts)


def strikes(fault: Fault, seed: int, request: str, attempt: int, retry: int = 0) -> bool:
    """Whether a fault with a `rate` strikes this attempt of this request (and this upstream `retry` of it):
    chaos that repeats exactly on every run with the same seed, and lets a retry come through."""
    if fault.rate >= 1:
        return True
    return ids.number(request, seed, attempt, retry, "chaos") % 1_000_000 < fault.rate * 1_000_000


def absorbed(fault: Fault, retries: int, seed: int, request: str, attempt: int) -> tuple[bool, int]:
    """A provider's own retries of an upstream failure (Inferel: "on alternative capacity"): whether one of
    them got through, and how many were made. Only rate limits and 5xx are retried."""
    if fault.at != "upstream" or fault.kind != "status" or not (fault.status == 429 or fault.status >= 500):
        return False, 0
    for retry in range(1, retries + 1):
        if not strikes(fault, seed, request, attempt, retry):
            return True, retry
    return False, retries


def before_response(fault: Fault | None) -> bool:
    """Whether the fault answers nothing well-formed: no status line at all."""
    return fault is not None and fault.kind in BEFORE_RESPONSE and (fault.kind != "reset" or fault.after_events is None)


# --- the plan -----------------------------------------------------------------------------------------


def plan(
    events: Iterable[bytes],
    fault: Fault | None,
    pace: Timing | None,
    keepalive: bytes = b": keep-alive\n\n",
    malformed: bytes = b'data: {"unterminated\n\n',
    seed: int = 0,
    opens: bool = True,
) -> Steps:
    """The script that writes `events` (a stream's frames, or a body as one event) with the pacing and the
    transport fault asked for. The in-band `stream_error` is the dialect's, already in `events`; so are its
    keep-alive and its malformed chunk (framed as its clients parse, or they would skip it). Where the first event
    `opens` the stream (Chat's role chunk, `message_start`), it goes at once and the first token waits; else (a
    legacy completion's, Ollama's) the first event is the first token.

    With no fault, the steps are made as they are played, from events made as they are read: an answer is never
    held whole, however long it is and however slowly its client reads (the player writes no further while the
    client does not read). A fault's steps are counted out first: where it strikes depends on their number."""
    steps: Iterable[Step]
    if pace is not None and (pace.ttft_ms or pace.tokens_per_second):
        steps = _paced(events, pace, keepalive, seed, opens)
    elif fault is None:  # nothing shapes the stream: written in bulk, not one socket write per token
        return bulk(events)
    else:
        steps = events
    return _break(list(steps), fault, malformed) if fault else iter(steps)


def _paced(events: Iterable[bytes], pace: Timing, keepalive: bytes, seed: int, opens: bool) -> Iterator[Step]:
    rng = random.Random(seed)
    gap = 1 / pace.tokens_per_second if pace.tokens_per_second else 0.0
    first = 1 if opens else 0
    for i, event in enumerate(events):
        wait = pace.ttft_ms / 1000 if i == first else gap if i > first else 0.0
        if wait and pace.jitter_ms:
            wait = max(0.0, wait + rng.uniform(-pace.jitter_ms, pace.jitter_ms) / 1000)
        yield from _pause(wait, keepalive)
        yield event


def bulk(events: Iterable[bytes], size: int = BULK) -> Iterator[Step]:
    """`events` joined into writes of about `size` bytes (an event is never split), as they are read: an unpaced
    long stream spent much of its time in the socket's send, one per token."""
    held: list[bytes] = []
    taken = 0
    for event in events:
        held.append(event)
        taken += len(event)
        if taken >= size:
            yield b"".join(held)
            held, taken = [], 0
    if held:
        yield held[0] if len(held) == 1 else b"".join(held)


def _pause(seconds: float, keepalive: bytes) -> list[Step]:
    """A pause, with a keep-alive every KEEPALIVE_AFTER seconds of it."""
    steps: list[Step] = []
    while seconds > KEEPALIVE_AFTER:
        steps += [Pause(KEEPALIVE_AFTER), keepalive]
        seconds -= KEEPALIVE_AFTER
    return [*steps, Pause(seconds)] if seconds > 0 else steps


def _break(steps: list[Step], fault: Fault, malformed: bytes) -> Steps:
    """The steps with the fault in them. A break asked for past the end strikes before the last event or byte (a
    stream's terminator, a body's last byte): a fault always does something, never the whole answer then a
    close that no client notices."""
    kind = fault.kind
    if kind in ("slice", "drip"):
        # One pause for every gap, not one each.
        return Pieces(steps, fault.size, Pause(fault.ms / 1000) if kind == "drip" and fault.ms else None)
    if kind == "truncate" and fault.after_bytes is not None:
        total = sum(len(step) for step in steps if isinstance(step, bytes))
        return [*_first_bytes(steps, min(fault.after_bytes, max(0, total - 1))), Hangup()]
    if kind in ("truncate", "stall", "malformed", "reset") and fault.after_events is not None:
        events = sum(1 for step in steps if isinstance(step, bytes))
        kept = _first_events(steps, min(fault.after_events, max(0, events - 1)))
        if kind == "stall":
            return [*kept, Hangup(after=fault.ms / 1000 if fault.ms else None)]
        if kind == "malformed":
            return [*kept, malformed, Hangup()]
        return [*kept, Hangup(reset=kind == "reset")]
    return steps


def _first_events(steps: list[Step], count: int) -> list[Step]:
    kept: list[Step] = []
    for step in steps:
        if isinstance(step, bytes):
            if count == 0:
                break
            count -= 1
        kept.append(step)
    return kept


def _first_bytes(steps: list[Step], count: int) -> list[Step]:
    kept: list[Step] = []
    for step in steps:
        if isinstance(step, bytes):
            if count <= 0:
                break
            step = step[:count]
            count -= len(step)
        kept.append(step)
    return kept
