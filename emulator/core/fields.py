"""Reading a JSON request body field by field, with errors that name the field and what was expected.

Messages follow OpenAI's wording ("Invalid type for 'max_tokens': expected an integer, but got a
string instead."), and `param` carries the field's path (`messages[1].role`) as OpenAI's does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, TypeVar

from emulator.core.errors import InvalidRequest

T = TypeVar("T")

_TYPE_NAMES = {
    str: "a string",
    int: "an integer",
    float: "a number",
    bool: "a boolean",
    list: "an array",
    dict: "an object",
}


def describe(value: Any) -> str:
    """The JSON type name of a value, with its article, as error messages use it."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "an array"
    return "an object"


def _fits(value: Any, kind: type) -> bool:
    if isinstance(value, bool):
        return kind is bool
    if kind is float:
        return isinstance(value, (int, float))
    return isinstance(value, kind)


def missing(path: str) -> InvalidRequest:
    return InvalidRequest(f"Missing required parameter: '{path}'.", param=path, code="missing_required_parameter")


def wrong_type(path: str, expected: str, value: Any) -> InvalidRequest:
    return InvalidRequest(
        f"Invalid type for '{path}': expected {expected}, but got {describe(value)} instead.",
        param=path,
        code="invalid_type",
    )


def wrong_value(path: str, value: Any, allowed: tuple[str, ...] | str) -> InvalidRequest:
    expected = allowed if isinstance(allowed, str) else "one of " + ", ".join(f"'{a}'" for a in allowed)
    return InvalidRequest(
        f"Invalid value for '{path}': {value!r}. Expected {expected}.", param=path, code="invalid_value"
    )


def stream_options_alone() -> InvalidRequest:
    """OpenAI's words for `stream_options` sent without `stream` (Chat's and legacy completions')."""
    return InvalidRequest(
        "The 'stream_options' parameter is only allowed when 'stream' is enabled.",
        param="stream_options",
        code="invalid_value",
    )


class Fields:
    """A JSON object being read, with the path that error messages name."""

    __slots__ = ("data", "path")

    def __init__(self, data: Any, path: str = "") -> None:
        if type(data) is not dict and not isinstance(data, Mapping):  # JSON objects are dicts: no ABC check
            if path:
                raise wrong_type(path, "an object", data)
            raise InvalidRequest(
                f"The request body must be a JSON object, but got {describe(data)}.", code="invalid_type"
            )
        self.data = data
        self.path = path

    def at(self, key: str | int) -> str:
        if isinstance(key, int):
            return f"{self.path}[{key}]"
        return f"{self.path}.{key}" if self.path else key

    def __contains__(self, key: str) -> bool:
        return self.data.get(key) is not None

    def get(self, key: str, kind: type[T], default: T | None = None, *, required: bool = False) -> T | None:
        """The value at `key` if it has `kind` (null counts as absent); a wrong type raises."""
        value = self.data.get(key)
        if type(value) is kind:  # the usual case, and the cheapest test
            return value
        if value is None:
            if required:
                raise missing(self.at(key))
            return default
        if not _fits(value, kind):
            raise wrong_type(self.at(key), _TYPE_NAMES[kind], value)
        return float(value) if kind is float else value  # type: ignore[return-value]

    def need(self, key: str, kind: type[T]) -> T:
        value = self.get(key, kind, required=True)
        assert value is not None
        return value

    def choice(self, key: str, allowed: tuple[str, ...], default: str | None = None) -> str | None:
        value = self.get(key, str, default)
        if value is not None and value not in allowed:
            raise wrong_value(self.at(key), value, allowed)
        return value

    def number(self, key: str, low: float, high: float) -> float | None:
        value = self.get(key, float)
        if value is not None and not low <= value <= high:
            raise wrong_value(self.at(key), value, f"a number from {low:g} to {high:g}")
        return value

    def count(self, key: str, low: int = 1) -> int | None:
        value = self.get(key, int)
        if value is not None and value < low:
            raise wrong_value(self.at(key), value, f"an integer of at least {low}")
        return value

    def obj(self, key: str, *, required: bool = False) -> Fields | None:
        value = self.get(key, dict, required=required)
        return None if value is None else Fields(value, self.at(key))

    def objects(self, key: str, *, required: bool = False) -> list[Fields]:
        """The array at `key`, each entry read as an object."""
        items = self.get(key, list, required=required) or []
        at = self.at(key)
        return [Fields(item, f"{at}[{i}]") for i, item in enumerate(items)]


def bearer(headers: Mapping[str, str]) -> str:
    """The token of an `Authorization: Bearer` header, or ""."""
    scheme, _, token = headers.get("authorization", "").partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""
