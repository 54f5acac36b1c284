"""Deterministic identifiers: every id derives from the seed and the request, never from uuid4()."""

from __future__ import annotations

import base64
import hashlib
from typing import Any

_ALPHABET = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# Each digest byte picks a character (byte mod 62): ids are on every response's hot path, and this
# table lookup costs a tenth of a base-62 conversion of the whole digest.
_TO_ALPHANUMERIC = bytes(_ALPHABET[b % 62] for b in range(256))


# Each part is hashed after its length as 8 big-endian bytes; the short lengths (every part but a request
# body) are looked up rather than converted: three hashes per answer.
_LENGTHS = tuple(n.to_bytes(8, "big") for n in range(1024))


def _hash(parts: tuple[object, ...], h: Any = None) -> Any:
    h = h or hashlib.blake2b(digest_size=32)
    update = h.update
    for part in parts:
        data = part.encode() if type(part) is str else part if isinstance(part, bytes) else str(part).encode()
        n = len(data)
        update(_LENGTHS[n] if n < 1024 else n.to_bytes(8, "big"))
        update(data)
    return h


def digest(*parts: object) -> str:
    """A stable hex digest of `parts`, the root from which a request's ids and text are derived."""
    return str(_hash(parts).hexdigest())


def make(prefix: str, root: str, *salt: object, length: int = 24) -> str:
    """`prefix` + `length` (at most 32) alphanumeric characters derived from `root` and `salt`, e.g. `call_3fZ…`.

    Without salt, a `root` that is already a `digest` is used as it is, turned by the prefix so that
    `chatcmpl-…` and `req_…` of one request differ: no second hash on the hot path.
    """
    if salt or len(root) != 64:
        raw: bytes = _hash((root, *salt)).digest()
    else:
        raw = bytes.fromhex(root)
        turn = sum(prefix.encode()) % len(raw)
        raw = raw[turn:] + raw[:turn]
    return prefix + raw[:length].translate(_TO_ALPHANUMERIC).decode()


# An odd 256-bit constant: multiplying by it is a bijection modulo 2**256 that spreads a small number's bits
# over every byte, so that `nth` gives each attempt a root unlike the others in every character.
_SPREAD = int(digest("emulator attempt"), 16) | 1
_MASK = (1 << 256) - 1


def nth(root: str, attempt: int) -> str:
    """The root of a request's `attempt` (0: `root` itself), distinct for every attempt, at the cost of integer
    arithmetic rather than a hash: a retried request names each attempt anew (its request id)."""
    return f"{int(root, 16) ^ (attempt * _SPREAD) & _MASK:064x}" if attempt else root


def draws(root: str, *salt: object, count: int) -> memoryview:
    """`count` stable integers below 65,536 derived from `root` and `salt`: the dice of generated text."""
    return memoryview(_hash((root, *salt), hashlib.shake_256()).digest(2 * count)).cast("H")


def faces(root: str, seed: int) -> memoryview:
    """32 stable integers below 65,536 from `root` and `seed`, in one call of BLAKE2b: the dice of one default
    answer, on every default answer's path (SHAKE's squeeze for as many cost three times as much)."""
    return memoryview(hashlib.blake2b(f"{seed}\x1e{root}".encode()).digest()).cast("H")


def number(root: str, *salt: object) -> int:
    """A stable non-negative integer derived from `root` and `salt`: a seed for generators."""
    return int(digest(root, *salt)[:15], 16)


def uuid(root: str, *salt: object) -> str:
    """A UUID-shaped id (version 4 layout) derived from `root` and `salt`, where an upstream's ids are UUIDs."""
    h = digest(root, "uuid", *salt)
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-{'89ab'[int(h[16], 16) % 4]}{h[17:20]}-{h[20:32]}"


def signature(root: str) -> str:
    """An opaque signature derived from `root` (an answer's id): base64 of 48 bytes of BLAKE2b, the same for the same
    answer. Gemini's thought signatures and Bedrock's reasoning signatures."""
    return base64.b64encode(hashlib.blake2b(root.encode(), digest_size=48).digest()).decode()
