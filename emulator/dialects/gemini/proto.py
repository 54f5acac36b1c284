"""Proto3 JSON as Google's services parse it (reference providers-google.md §9): a field by its lowerCamel name or
its proto (snake_case) name, the SDKs mixing both in one body (`inlineData.mime_type`,
`thinkingConfig.thinking_budget`); a value of the wrong type refused with the field's snake_case path."""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

from emulator.core.errors import InvalidRequest
from emulator.core.sse import dumps


@lru_cache(maxsize=256)
def snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def get(data: Mapping[str, Any], name: str) -> Any:
    """A field by its lowerCamel name, else by its proto name."""
    value = data.get(name)
    return data.get(snake(name)) if value is None else value


def object_of(data: Mapping[str, Any], name: str, at: str) -> Mapping[str, Any]:
    value = get(data, name)
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise invalid(f"{at}.{snake(name)}", f"Invalid value (type), expected an object, got {dumps(value)}")
    return value


def list_of(data: Mapping[str, Any], name: str, at: str) -> list[Any]:
    value = get(data, name)
    if value is None:
        return []
    if not isinstance(value, list):
        raise invalid(f"{at}.{snake(name)}", f"Invalid value (type), expected a list, got {dumps(value)}")
    return value


def invalid(field: str, said: str) -> InvalidRequest:
    """Google's 400 for a field, as its proto parser words it; `param` keeps the field's path."""
    return InvalidRequest(f"Invalid value at '{field}', {said}", param=field, code="INVALID_ARGUMENT")
