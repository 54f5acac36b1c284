"""Sealed reasoning: OpenAI's `encrypted_content` on reasoning items (`include: ["reasoning.encrypted_content"]`), so
that a client that keeps no state (`store: false`: Codex, the Vercel AI SDK) can send the model's reasoning back.

A token is opaque and reproducible: shaped as the public API's (a Fernet token, base64url, `gAAAAA…`: a version
byte, a timestamp, an IV, the ciphertext, a MAC), its IV derived from the answer's root, its text hidden under a
keystream and its bytes signed with a key of this project's own, not the server's seed, so that any emulator
(another worker, another seed) reads what one sealed. `unseal` reads it back, None for anything it did not seal.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac

VERSION = b"\x80"  # Fernet's version byte, which makes every token start `gAAAAA`
KEY = hashlib.blake2b(b"emulator sealed reasoning", digest_size=32).digest()
IV, MAC, STAMP = 16, 32, 8


def seal(text: str, root: str, created: int) -> str:
    """`text` sealed: the same text, root and time give the same token."""
    iv = hashlib.blake2b(f"{root}\x1e{text}".encode(), digest_size=IV, key=KEY).digest()
    plain = text.encode()
    head = VERSION + max(0, created).to_bytes(STAMP, "big") + iv
    body = head + bytes(a ^ b for a, b in zip(plain, _stream(iv, len(plain)), strict=True))
    return base64.urlsafe_b64encode(body + _mac(body)).decode()


def unseal(token: str) -> str | None:
    """The text a token sealed; None when it is not one of ours, or was changed."""
    try:
        raw = base64.urlsafe_b64decode(token.encode("ascii"))
    except (binascii.Error, ValueError, UnicodeError):
        return None
    if len(raw) < 1 + STAMP + IV + MAC or raw[:1] != VERSION:
        return None
    body, mac = raw[:-MAC], raw[-MAC:]
    if not hmac.compare_digest(mac, _mac(body)):
        return None
    iv, cipher = body[1 + STAMP : 1 + STAMP + IV], body[1 + STAMP + IV :]
    try:
        return bytes(a ^ b for a, b in zip(cipher, _stream(iv, len(cipher)), strict=True)).decode()
    except UnicodeDecodeError:
        return None


def shown(token: str) -> str:
    """A token as the public API's refusal names it: its first and last four characters."""
    return f"{token[:4]}...{token[-4:]}" if len(token) > 8 else token


def _stream(iv: bytes, size: int) -> bytes:
    return hashlib.shake_256(KEY + iv).digest(size)


def _mac(body: bytes) -> bytes:
    return hmac.new(KEY, body, hashlib.sha256).digest()
