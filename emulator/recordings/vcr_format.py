"""vcrpy's cassette format, as the rest of the package uses it: an interaction stored and read back, the
safe YAML loader that knows the few Python tags old cassettes hold, and the matcher a re-recording replaces
by. The home of vcrpy (its httpx patch is not used: see `recorder.py`).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from vcr.matchers import method as same_method
from vcr.matchers import requests_match
from vcr.request import Request
from vcr.serialize import deserialize
from vcr.serializers import compat, yamlserializer

from emulator.recordings.matching import api_path, match_key

PACING = "emulator_pacing"  # each interaction's key (the older layout's `metadata` key): {headers_after, event_gaps}
CassetteLoader: type[Any] = yamlserializer._CassetteLoader  # vcrpy's safe loader

__all__ = ["PACING", "CassetteLoader", "Request", "parts", "read", "same", "serialize", "stored"]


def _same_request(r1: Request, r2: Request) -> None:
    """vcrpy matcher: same path from /v1/ on, and the same body as `match_key` sees it."""
    assert api_path(r1.uri) == api_path(r2.uri)
    assert match_key(r1.body) == match_key(r2.body)


MATCH_ON = (same_method, _same_request)


def serialize(value: Any) -> str:
    """YAML as vcrpy writes cassettes."""
    return str(yamlserializer.serialize(value))


def stored(
    method: str, uri: str, body: str, headers: dict[str, str], response: Mapping[str, Any], pacing: Any
) -> dict[str, Any]:
    """An interaction as a cassette stores it: request, response, and its pacing under `emulator_pacing`."""
    request = Request(method, uri, body, headers)
    return {
        "request": compat.convert_to_unicode(request._to_dict()),
        "response": compat.convert_to_unicode(dict(response)),
        PACING: pacing,
    }


def parts(item: Mapping[str, Any]) -> tuple[Request, Mapping[str, Any], Mapping[str, Any] | None]:
    """A stored interaction as vcrpy reads it: its request, its response (body as bytes) and its pacing."""
    response = compat.convert_to_bytes(copy.deepcopy(dict(item["response"])))
    return Request._from_dict(dict(item["request"])), response, item.get(PACING)


def same(request: Request, item: Mapping[str, Any]) -> bool:
    """Whether a stored interaction records the same request (method, path, body as matching sees it)."""
    return bool(requests_match(request, parts(item)[0], MATCH_ON))


class _Parsed:
    """A vcrpy serializer for a document already parsed: loading parses and checks before vcrpy converts."""

    @staticmethod
    def deserialize(document: Any) -> Any:
        return document


def read(document: Any) -> tuple[Sequence[Request], Sequence[Mapping[str, Any]]]:
    """A checked cassette document's requests and responses (bodies as bytes), as vcrpy reads them."""
    requests, responses, *_ = deserialize(document, _Parsed)
    return requests, responses
