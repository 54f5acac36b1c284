"""AWS's event-stream framing (reference providers-aws-azure-ollama.md §1.6), as Bedrock's streams carry their events
and botocore's `EventStreamBuffer` reads them: a prelude (total length, headers' length, the CRC32 of those eight
bytes), the headers (each a name, type 7, a string), the payload, and the CRC32 of everything before it; every integer
big-endian. An event names its type in `:event-type`; an exception in `:exception-type`, by the lowerCamel name of the
stream's member (`throttlingException`), the only spelling botocore looks up."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator

from emulator.core.sse import dumps

JSON = "application/json"
STRING = 7  # a header value's type: a UTF-8 string with a two-byte length


def frame(headers: tuple[tuple[str, str], ...], payload: bytes) -> bytes:
    """One message: its headers, in order, and its payload, with both checksums."""
    packed = b"".join(
        struct.pack(">B", len(n := name.encode())) + n + struct.pack(">BH", STRING, len(v := value.encode())) + v
        for name, value in headers
    )
    prelude = struct.pack(">II", 16 + len(packed) + len(payload), len(packed))
    head = prelude + struct.pack(">I", zlib.crc32(prelude)) + packed + payload
    return head + struct.pack(">I", zlib.crc32(head))


def event(kind: str, payload: dict[str, object] | bytes) -> bytes:
    """An event of the stream's `kind` (`messageStart`, `chunk`…) with a JSON payload."""
    body = payload if isinstance(payload, bytes) else dumps(payload).encode()
    return frame(((":event-type", kind), (":content-type", JSON), (":message-type", "event")), body)


def exception(kind: str, message: str, **more: object) -> bytes:
    """An exception that ends the stream (`throttlingException`, `modelStreamErrorException`…)."""
    body = dumps({"message": message, **more}).encode()
    return frame(((":exception-type", kind), (":content-type", JSON), (":message-type", "exception")), body)


def messages(data: bytes) -> Iterator[tuple[dict[str, str], bytes]]:
    """Each whole message in `data`: its string headers and its payload (a recorded stream read back); a message
    cut short ends it, as it ends botocore's iterator."""
    return iter(cut(data)[0])


def cut(data: bytes) -> tuple[list[tuple[dict[str, str], bytes]], bytes]:
    """The whole messages at the start of `data`, and the bytes after them (a message not yet whole)."""
    found, at = [], 0
    while at + 12 <= len(data):
        total, size = struct.unpack_from(">II", data, at)
        if total < 16 or at + total > len(data):
            break
        headers, cursor, end = {}, at + 12, at + 12 + size
        while cursor < end:
            length = data[cursor]
            name = data[cursor + 1 : cursor + 1 + length].decode()
            kind = data[cursor + 1 + length]
            cursor += 2 + length
            if kind != STRING:
                raise ValueError(f"an event-stream header of type {kind}, not a string")
            (value_length,) = struct.unpack_from(">H", data, cursor)
            headers[name] = data[cursor + 2 : cursor + 2 + value_length].decode()
            cursor += 2 + value_length
        found.append((headers, data[end : at + total - 4]))
        at += total
    return found, data[at:]
