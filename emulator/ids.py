"""Deterministic identifiers: every id derives from the seed and the request, never from uuid4()."""

from __future__ import annotations

import hashlib

_ALPHABET = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"


def digest(*parts: object) -> str:
    """A stable hex digest of `parts`, the root from which a request's ids and text are derived."""
    h = hashlib.blake2b(digest_size=32)
    for part in parts:
        data = part if isinstance(part, bytes) else str(part).encode()
        h.update(len(data).to_bytes(8, "big"))
        h.update(data)
    return h.hexdigest()


def make(prefix: str, root: str, *salt: object, length: int = 24) -> str:
    """`prefix` + `length` base-62 characters derived from `root` and `salt`, e.g. `call_3fZ…`."""
    n = int(digest(root, *salt), 16)
    chars = []
    for _ in range(length):
        n, r = divmod(n, 62)
        chars.append(_ALPHABET[r])
    return prefix + "".join(chars)


def number(root: str, *salt: object) -> int:
    """A stable non-negative integer derived from `root` and `salt`: a seed for generators."""
    return int(digest(root, *salt)[:15], 16)
