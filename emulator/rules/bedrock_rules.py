"""What Bedrock Runtime refuses, in its words: the `bedrock` profile's checks.

Converse's body is walked against `catalog/requests/bedrock_converse.yaml`, botocore's service model as data: each
member's constraints (ranges, lengths, patterns, enums) and required members, refused as Bedrock's front end words
them (`1 validation error detected: Value '' at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy
constraint: Member must satisfy regular expression pattern: [a-zA-Z0-9_-]+`: list items counted from 1, as
`N.member`). A member Converse does not have is let by: neither SDK can send one (boto3 refuses it before sending,
the JavaScript SDK serializes only the members it knows), and whether the service refuses it is not public.
InvokeModel's Claude body is checked by Anthropic's request schema, worded as Bedrock's JSON Schema validator words
it (`Malformed input request: #: extraneous key [x] is not permitted, please reformat your input and try again.`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.core.errors import InvalidRequest
from emulator.rules import schema
from emulator.rules.catalog import Model

CONVERSE = "converse"
COUNT = "converse_count_tokens"
INVOKE = "invoke_model"
ENDPOINTS = (CONVERSE, COUNT, INVOKE)
CODE = "ValidationException"
HIDDEN = ("messages", "system")  # the conversation: its values are left out of the words, as Bedrock leaves them
# What Bedrock's validator says first of any Claude body it refuses: the schema's other branch (a text
# completion's) failed too (fumito-ito/AnthropicSwiftSDK#19, pingcap/autoflow#574 quote it).
BRANCH = '#: subject must not be valid against schema {"required":["messages"]}'
INVOKE_FIELDS = ("anthropic_version", "anthropic_beta")  # the Messages body's, on Bedrock
PLACED = ("model", "stream")  # what the path says (`invoke.placed`): refused in the body, before this
CONSTRAINTS = {
    "above": "Member must have value less than or equal to {bound}",
    "below": "Member must have value greater than or equal to {bound}",
    "too_many": "Member must have length less than or equal to {bound}",
    "too_long": "Member must have length less than or equal to {bound}",
    "too_few": "Member must have length greater than or equal to {bound}",
    "too_short": "Member must have length greater than or equal to {bound}",
    "pattern": "Member must satisfy regular expression pattern: {bound}",
    "enum": "Member must satisfy enum value set: [{values}]",
    "missing": "Member must not be null",
}


def body(endpoint: str, data: Mapping[str, Any]) -> None:
    """Refuse what Bedrock refuses of any model: Converse's constraints, InvokeModel's unknown keys."""
    if endpoint == CONVERSE:
        found, _ = schema.check(schema.SCHEMAS[CONVERSE], data, lenient=True)
        if found is not None:
            raise constraint(found)
        _required(data)
    elif endpoint == INVOKE:
        invoked(data)


def _required(data: Mapping[str, Any]) -> None:
    if "messages" not in data:  # the root's required members are the caller's to check
        raise constraint(schema.Problem("missing", ("messages",)))


def constraint(found: schema.Problem) -> InvalidRequest:
    """A problem in Coral's words: which value, where, what constraint it fails."""
    where = ""
    for part in found.path:
        if isinstance(part, int):
            where += f".{part + 1}.member"
        else:
            where += f".{part}" if where else part
    value = found.value
    if found.kind == "missing":
        shown = " null"
    elif found.path[0] in HIDDEN or type(value) in (list, dict):
        shown = ""
    else:
        shown = f" '{value:g}'" if type(value) is float else f" '{value}'"
    bound = found.bound
    rule = CONSTRAINTS[found.kind].format(
        bound=f"{bound:g}" if type(bound) is float else bound,
        values=", ".join(bound) if found.kind == "enum" else "",
    )
    message = f"1 validation error detected: Value{shown} at '{where}' failed to satisfy constraint: {rule}"
    return InvalidRequest(message, param=where, code=CODE)


def invoked(data: Mapping[str, Any]) -> None:
    """A Claude body on InvokeModel: Anthropic's request schema, worded as Bedrock's validator words it."""
    root = schema.SCHEMAS["messages"]
    extraneous = [k for k in data if k not in root.fields and k not in INVOKE_FIELDS and k not in PLACED]
    if extraneous:
        raise malformed("".join(f"#: extraneous key [{k}] is not permitted" for k in extraneous))
    found, _ = schema.check(root, data)
    if found is None:
        return
    pointer = "#/" + "/".join(str(p) for p in _untagged(found)[:-1])
    if found.kind == "unknown":
        raise malformed(f"{pointer}: extraneous key [{found.path[-1]}] is not permitted")
    if found.kind == "missing":
        raise malformed(f"{pointer}: required key [{found.path[-1]}] not found")
    at, value, bound = f"{pointer}/{found.path[-1]}", found.value, found.bound
    said = {  # the validator's words (everit's), per kind
        "above": f"{value} is not less or equal to {bound}",
        "below": f"{value} is not greater or equal to {bound}",
        "too_many": f"expected maximum item count: {bound}, found: {len(value) if type(value) is list else 0}",
        "too_long": f"expected maxLength: {bound}, actual: {len(value) if type(value) is str else 0}",
        "pattern": f"string [{value}] does not match pattern {bound}",
    }.get(found.kind, f"{value} is not a valid enum value")
    raise malformed(f"{at}: {said}")


def _untagged(found: schema.Problem) -> tuple[str | int, ...]:
    return tuple(p for at, p in enumerate(found.path) if at not in found.tags)


def malformed(said: str) -> InvalidRequest:
    return InvalidRequest(
        f"Malformed input request: {BRANCH}{said}, please reformat your input and try again.", code=CODE
    )


def parameters(model: Model, data: Mapping[str, Any]) -> None:
    """Refuse what `model` does not take through Converse: tools it cannot use, more output than it writes."""
    config = data.get("toolConfig")
    if not model.tools and type(config) is dict and config.get("tools"):  # the words Bedrock's users quote
        raise InvalidRequest("This model doesn't support tool use.", code=CODE)
    inference = data.get("inferenceConfig")
    limit = inference.get("maxTokens") if type(inference) is dict else None
    if type(limit) is int and model.output and limit > model.output:
        raise InvalidRequest(  # Bedrock's words for it
            f"The maximum tokens you requested exceeds the model limit of {model.output}. Try again with a maximum "
            f"tokens value that is lower than {model.output}.",
            code=CODE,
        )
