"""Where the shared state lives: the `--state` URL read, and Redis asked once, at start, whether it answers."""

from __future__ import annotations

import re
import urllib.parse
from dataclasses import dataclass

import redis

PREFIX = "emulator"
SCHEMES = ("redis", "rediss", "unix")


@dataclass(frozen=True, slots=True)
class Address:
    """Where the shared state lives: the URL as given, the one redis-py connects to (without `prefix`), the
    prefix of every key, and the URL as the banner shows it (no password)."""

    url: str
    connect: str
    prefix: str
    shown: str


def address(url: str) -> Address:
    """`--state`: a redis://, rediss:// or unix:// URL, with `?prefix=NAME` of plain characters if any;
    ValueError, in words, for anything else."""
    parts = urllib.parse.urlsplit(url)
    if parts.scheme not in SCHEMES:
        raise ValueError(f"expected a redis://HOST:PORT[/DB] URL, got {url!r}")
    query = urllib.parse.parse_qsl(parts.query, keep_blank_values=True)
    prefix = next((v for k, v in query if k == "prefix"), PREFIX)
    if not re.fullmatch(r"[A-Za-z0-9_.-]+", prefix):  # no glob characters: reset scans for `prefix:*`
        raise ValueError(f"prefix: expected letters, digits, '_', '.' or '-', got {prefix!r}")
    rest = parts._replace(query=urllib.parse.urlencode([(k, v) for k, v in query if k != "prefix"]))
    user, at, host = rest.netloc.rpartition("@")
    shown = rest._replace(netloc=f"{'***' if user else ''}{at}{host}")
    return Address(url, _unsplit(rest), prefix, _unsplit(shown))


def _unsplit(parts: urllib.parse.SplitResult) -> str:
    """A URL back from its parts, `unix:///path` kept so (urlunsplit writes `unix:/path` for no host)."""
    text = urllib.parse.urlunsplit(parts)
    return text if parts.netloc else text.replace(":", "://", 1)


class Unreachable(ConnectionError):
    """The Redis that `--state` names does not answer."""


def ping(found: Address) -> None:
    """Raise `Unreachable` unless the Redis at `found` answers (asked once, at start, by a client of its own)."""
    client = redis.Redis.from_url(found.connect, socket_connect_timeout=5, socket_timeout=5)
    try:
        client.ping()
    except redis.RedisError as exc:
        raise Unreachable(f"the state store {found.shown} (--state) does not answer: {exc}") from None
    finally:
        client.close()
