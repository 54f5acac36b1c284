"""A problem the request schema finds (`schema.py`), in each public API's words: OpenAI's (`Unknown parameter:
'messages[1].x'.`, its codes, the path as `param`) or pydantic's, as Anthropic sends them (each block's tag in the
path). Read by `validation.py`, which decides what is checked."""

from __future__ import annotations

from emulator.core.errors import InvalidRequest
from emulator.rules import schema

# The endpoints that speak Anthropic's words: its own, and Claude's on Vertex.
ANTHROPIC = ("messages", "count_tokens", "vertex_messages", "vertex_count_tokens")


def refusal(endpoint: str, found: schema.Problem) -> InvalidRequest:
    """A problem below the top of a body, in the API's words: OpenAI's (`Unknown parameter: 'messages[1].x'.`,
    as the issue threads quote it, with the path as `param`) or pydantic's, as Anthropic sends them
    (`messages.0.content.0.text.x: Extra inputs are not permitted`, each content block's tag in its path)."""
    if found.kind in LIMIT_WORDS:
        return _past_limit(endpoint, found)
    if endpoint in ANTHROPIC:
        where = found.dotted()
        if found.kind == "unknown":
            return InvalidRequest(f"{where}: Extra inputs are not permitted", param=where)
        if found.kind == "missing":
            return InvalidRequest(f"{where}: Field required", param=where)
        union = ".".join(str(p) for p in found.path[:-1])
        if found.kind == "untagged":
            return InvalidRequest(f"{union}: Unable to extract tag using discriminator '{found.path[-1]}'", param=union)
        expected = ", ".join(f"'{t}'" for t in found.allowed)
        return InvalidRequest(
            f"{union}: Input tag '{found.value}' found using '{found.path[-1]}' does not match any of the expected "
            f"tags: {expected}",
            param=union,
        )
    param = found.indexed()
    if found.kind == "unknown":
        return InvalidRequest(f"Unknown parameter: '{param}'.", param=param, code="unknown_parameter")
    if found.kind in ("missing", "untagged"):
        return InvalidRequest(f"Missing required parameter: '{param}'.", param=param, code="missing_required_parameter")
    return InvalidRequest(
        f"Invalid value: '{found.value}'. Supported values are: {listed(found.allowed)}.",
        param=param,
        code="invalid_value",
    )


# A limit passed, in each API's words: OpenAI's (its 400s as issue threads quote them) and pydantic's, Anthropic's.
LIMIT_WORDS = {
    "above": (
        "Invalid '{path}': {number} above maximum value. Expected a value <= {bound}, but got {value} instead.",
        "{number}_above_max_value",
        "{path}: Input should be less than or equal to {bound}",
    ),
    "below": (
        "Invalid '{path}': {number} below minimum value. Expected a value >= {bound}, but got {value} instead.",
        "{number}_below_min_value",
        "{path}: Input should be greater than or equal to {bound}",
    ),
    "too_many": (
        "Invalid '{path}': array too long. Expected an array with maximum length {bound}, but got an array with "
        "length {length} instead.",
        "array_above_max_length",
        "{path}: List should have at most {bound} items after validation, not {length}",
    ),
    "pattern": (
        "Invalid '{path}': string does not match pattern. Expected a string that matches the pattern '{bound}'.",
        "invalid_value",
        "{path}: String should match pattern '{bound}'",
    ),
    "too_long": (
        "Invalid '{path}': string too long. Expected a string with maximum length {bound}, but got a string with "
        "length {length} instead.",
        "string_above_max_length",
        "{path}: String should have at most {bound} characters",
    ),
}


def _past_limit(endpoint: str, found: schema.Problem) -> InvalidRequest:
    openai_words, code, anthropic_words = LIMIT_WORDS[found.kind]
    bound = f"{found.bound:g}" if type(found.bound) is float else found.bound
    length = len(found.value) if type(found.value) in (list, str) else 0
    if endpoint in ANTHROPIC:
        where = found.dotted()
        return InvalidRequest(anthropic_words.format(path=where, bound=bound, length=length), param=where)
    path, number = found.indexed(), "integer" if found.integer else "decimal"
    message = openai_words.format(path=path, number=number, bound=bound, value=found.value, length=length)
    return InvalidRequest(message, param=path, code=code.format(number=number))


def listed(values: tuple[str, ...]) -> str:
    """OpenAI's list of values: `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'`."""
    *head, last = values
    if not head:
        return f"'{last}'"
    return ", ".join(f"'{v}'" for v in head) + (", and " if len(head) > 1 else " and ") + f"'{last}'"
