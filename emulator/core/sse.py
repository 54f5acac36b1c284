"""Server-sent events framing (the WHATWG EventSource format), encode and decode, and the compact JSON
that every frame and body is written in.

JSON goes through orjson, the one module that imports it: on the hot path it writes a chat.completion
and reads a request many times faster than `json` does (bench/throughput.py).
The standard library takes over for what orjson refuses (integers past 64 bits).

Both Python SDKs split on CR, LF or CRLF, join several `data:` lines with LF, skip `:` comments and
strip one space after the colon (`openai/_streaming.py:SSEDecoder`), so `decode` does the same.
"""

from __future__ import annotations

import codecs
import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import orjson

_LINE_BREAK = re.compile(r"\r\n|\r|\n")
_quote = json.encoder.encode_basestring  # what json.dumps uses for strings with ensure_ascii=False

EVENT_STREAM = {"content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache"}  # a stream's headers


def quote(text: str) -> str:
    """A string as a JSON string literal, exactly as `dumps` writes it (C-accelerated)."""
    return _quote(text)


def encode(obj: Any) -> bytes:
    """Compact JSON as upstreams send it, as bytes: no spaces, non-ASCII kept as UTF-8."""
    try:
        return orjson.dumps(obj)
    except TypeError:
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False).encode()


def canonical(obj: Any) -> str:
    """JSON with its keys sorted: one text for every key order, for comparing and hashing values."""
    try:
        return orjson.dumps(obj, option=orjson.OPT_SORT_KEYS).decode()
    except TypeError:  # integers past 64 bits
        return json.dumps(obj, separators=(",", ":"), ensure_ascii=False, sort_keys=True)


def dumps(obj: Any) -> str:
    """Compact JSON as upstreams send it, as text."""
    return encode(obj).decode()


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")


def loads(raw: bytes) -> Any:
    """Strict JSON from a request body; `ValueError` (or `UnicodeError`) says what is wrong with it."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    # orjson refused: the standard library decides, with its clearer message. The bytes are decoded first,
    # strictly: given bytes, `json.loads` lets a lone surrogate's UTF-8 (ED A0 80) through as `\ud800`, which
    # no answer could then be written with. NaN and Infinity are not JSON; a `\ud800` escape without its
    # pair parses into such a string too, so it is refused here rather than when a reply echoes it.
    body = json.loads(raw.decode("utf-8-sig"), parse_constant=_reject_constant)
    if _SURROGATE_ESCAPE.search(raw):
        json.dumps(body, ensure_ascii=False).encode()
    return body


def deeper_than(value: Any, limit: int) -> bool:
    """Whether JSON `value` nests arrays and objects more than `limit` levels deep (without recursing)."""
    level: list[Any] = [value]
    for _ in range(limit + 1):
        level = [c for v in level if type(v) in (dict, list) for c in (v.values() if type(v) is dict else v)]
        if not level:
            return False
    return True


def frame(data: str, event: str | None = None) -> bytes:
    """One SSE event; `data` must not contain a line break (compact JSON never does)."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {data}\n\n".encode()


def comment(text: str = "") -> bytes:
    """A comment line, which clients ignore: a keep-alive."""
    return f": {text}\n\n".encode()


@dataclass(frozen=True, slots=True)
class Event:
    event: str | None
    data: str

    def json(self) -> Any:
        return json.loads(self.data)


def decode(chunks: Iterable[bytes]) -> Iterator[Event]:
    """Parse an SSE byte stream, split anywhere, into events; comments and empty events are skipped."""
    utf8 = codecs.getincrementaldecoder("utf-8")()
    buffer = ""
    event: str | None = None
    data: list[str] = []
    for chunk in chunks:
        buffer += utf8.decode(chunk)
        # A CR at the end may be the first half of a CRLF split across chunks: keep it for later.
        held = "\r" if buffer.endswith("\r") else ""
        *lines, buffer = _LINE_BREAK.split(buffer.removesuffix(held))
        buffer += held
        for line in lines:
            if not line:
                if data:
                    yield Event(event, "\n".join(data))
                event, data = None, []
                continue
            name, _, value = line.partition(":")
            value = value.removeprefix(" ")
            if name == "event":
                event = value
            elif name == "data":
                data.append(value)
    if data:
        yield Event(event, "\n".join(data))


def parsed(body: bytes) -> list[dict[str, Any]]:
    """A recorded event stream as the journal shows one (`delivery.events`): `{event, data}` with `data` parsed
    when it is JSON, else the text it is (`[DONE]`, or an event the reader passes over)."""
    return [{"event": e.event, "data": _json_or_text(e.data)} for e in decode([body])]


def _json_or_text(data: str) -> Any:
    try:
        return json.loads(data)
    except ValueError:
        return data
