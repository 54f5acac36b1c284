"""Secrets a client sent, and their redaction from everything a recorder writes: request and response, headers
and bodies, streamed or not.

A secret is found by where the client put it (a key header, a cookie, a key in the query string), then
replaced by `REDACTED` wherever its value appears; in a JSON body or an SSE stream of JSON events only inside
strings, so that a short value that is also a JSON word or number (`consent=true`) can never break a body.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import urllib.parse
from collections.abc import Iterable

REDACTED = "REDACTED"
# Headers whose whole value is a credential (after a scheme such as Bearer, the token alone too).
SECRET_HEADERS = (
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "x-goog-api-key",
    "openai-organization",
    "openai-project",
)
KEY_PARAMETERS = ("key", "api_key", "api-key", "apikey", "access_token", "token")  # in a query string
KEY_VARIABLES = ("OPENAI_API_KEY", "ANTHROPIC_API_KEY")  # the recorder's own environment
MIN_SECRET = 4  # shorter values are too common to replace anywhere
MIN_COOKIE = 8  # a cookie's value is a secret from this length, or from MIN_SECRET if its name says so
SECRET_COOKIE = re.compile(r"sess|auth|token|sid|jwt|csrf|xsrf|secret|key|login|cred", re.IGNORECASE)
_SCHEMES = ("bearer", "basic", "token")
_STRING = re.compile(r'"(?:[^"\\\n]|\\.)*"')  # a JSON string, as written


def secrets(headers: Iterable[tuple[str, str]], query: str = "", environ: Iterable[str] = ()) -> frozenset[str]:
    """The secret values in a client's request (its headers as sent, any case, repeated ones each; its query
    string) and in `environ` (the values of the recorder's key variables)."""
    found = set(environ)
    for name, value in headers:
        name = name.lower()
        if name in SECRET_HEADERS:
            found |= _credential(value)
        elif name == "cookie":
            found |= _cookies(part.partition("=") for part in value.split(";"))
        elif name == "set-cookie":  # (an upstream's answer: what it gave one client is that client's secret)
            found |= _cookies([value.split(";", 1)[0].partition("=")])
    found |= {value for name, value in urllib.parse.parse_qsl(query) if name.lower() in KEY_PARAMETERS}
    return frozenset(s for s in found if len(s) >= MIN_SECRET)


def _credential(value: str) -> set[str]:
    """A credential header's value, and after a scheme the token alone; a Basic one's user:password and
    password decoded."""
    value = value.strip()
    scheme, _, token = value.partition(" ")
    if scheme.lower() not in _SCHEMES or not token.strip():
        return {value}
    token = token.strip()
    found = {value, token}
    if scheme.lower() == "basic":
        try:
            decoded = base64.b64decode(token, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return found
        found |= {decoded, decoded.partition(":")[2]}
    return found


def _cookies(pairs: Iterable[tuple[str, str, str]]) -> set[str]:
    """The secret ones of some cookies' `name=value`s: long values, or any named like a session or a key."""
    found = set()
    for name, _, raw in pairs:
        value = raw.strip().strip('"')
        if len(value) >= MIN_COOKIE or (SECRET_COOKIE.search(name) and len(value) >= MIN_SECRET):
            found |= {value, urllib.parse.unquote(value)}
    return found


def text(value: str, found: Iterable[str]) -> str:
    """A URL, a header value or a body that is not JSON: every secret replaced wherever it appears."""
    for secret in _longest_first(found):
        if secret in value:
            value = value.replace(secret, REDACTED)
    return value


def body(value: str, found: Iterable[str], content_type: str = "") -> str:
    """A body with every secret replaced: inside JSON strings only where it is JSON (by its type or by how it
    begins; in a stream, each `data:` line of JSON), there also as JSON escapes it; elsewhere, wherever it
    appears."""
    present = [s for s in _longest_first(found) if s in value or _escaped(s) in value]
    if not present:
        return value
    if "event-stream" in content_type or value.lstrip().startswith(("data:", "event:")):
        return "\n".join(_event_line(line, present) for line in value.split("\n"))
    if "json" in content_type or value.lstrip()[:1] in ("{", "["):
        return _STRING.sub(lambda m: _in_string(m.group(), present), value)
    return text(value, present)


def _event_line(line: str, present: list[str]) -> str:
    if line.startswith("data:") and line[5:].lstrip()[:1] in ("{", "["):
        return _STRING.sub(lambda m: _in_string(m.group(), present), line)
    return text(line, present)


def _in_string(literal: str, present: list[str]) -> str:
    for secret in present:
        for form in dict.fromkeys((secret, _escaped(secret), _escaped(secret).replace("/", "\\/"))):
            if form in literal:
                literal = literal.replace(form, REDACTED)
    return literal


def _escaped(secret: str) -> str:
    """A value as a JSON string holds it (without its quotes)."""
    return json.dumps(secret)[1:-1]


def _longest_first(found: Iterable[str]) -> list[str]:
    """Longest first, so that a secret that holds another (`Bearer sk-…` and `sk-…`) goes whole."""
    return sorted(found, key=lambda s: (-len(s), s))
