"""Deterministic identifiers: every id derives from the seed and the request, never from uuid4()."""

from __future__ import annotations

import base64
import hashlib
from typing import Any, Final

_ALPHABET = b"0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
# Each digest byte picks a character (byte mod 62): ids are on every response's hot path, and this
# table lookup costs a tenth of a base-62 conversion of the whole digest.
_TO_ALPHANUMERIC: Final = bytes(_ALPHABET[b % 62] for b in range(256))


# Each part is hashed after its length as 8 big-endian bytes; the short lengths (every part but a request
# body) are looked up rather than converted: three hashes per answer.
_LENGTHS: Final = tuple(n.to_bytes(8, "big") for n in range(1024))


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
    `chatcmpl-…` and `req_…` of one request differ: no second hash on the hot path. Without salt, any other root
    (a model's name, for its fingerprint) is hashed once and its id kept.
    """
    if salt:
        raw: bytes = _hash((root, *salt)).digest()
    elif len(root) == 64:
        raw = bytes.fromhex(root)
        turn = _TURNS.get(prefix)
        if turn is None:
            turn = _TURNS[prefix] = sum(prefix.encode()) % len(raw)
        raw = raw[turn:] + raw[:turn]
    else:
        key = (prefix, root, length)
        made = _MADE.get(key)
        if made is None:
            made = prefix + _hash((root,)).digest()[:length].translate(_TO_ALPHANUMERIC).decode()
            if len(root) <= 256:  # short roots only, so that what it holds stays small whatever a client sends
                if len(_MADE) >= 1024:  # roots that vary without end: hashed each time again
                    _MADE.clear()
                _MADE[key] = made
        return made
    return prefix + raw[:length].translate(_TO_ALPHANUMERIC).decode()


_TURNS: Final[dict[str, int]] = {}  # how far a prefix turns a digest (the sum of its bytes, modulo 32)
_MADE: Final[dict[tuple[str, str, int], str]] = {}  # ids of roots that are not digests, by prefix, root and length


# An odd 256-bit constant: multiplying by it is a bijection modulo 2**256 that spreads a small number's bits
# over every byte, so that `nth` gives each attempt a root unlike the others in every character.
_SPREAD: Final = int(digest("emulator attempt"), 16) | 1
_MASK: Final = (1 << 256) - 1


def nth(root: str, attempt: int) -> str:
    """The root of a request's `attempt` (0: `root` itself), distinct for every attempt, at the cost of integer
    arithmetic rather than a hash: a retried request names each attempt anew (its request id)."""
    if not attempt:
        return root
    turned = hex(int(root, 16) ^ (attempt * _SPREAD) & _MASK)[2:]  # not a format spec, which costs five times more
    return turned if len(turned) == 64 else "0" * (64 - len(turned)) + turned


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
