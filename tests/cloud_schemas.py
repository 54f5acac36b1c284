"""The request schemas of Gemini (google-genai's pydantic types) and Bedrock's Converse (botocore's service model),
in the form of `emulator/rules/schema.py`, as `tests/sdk_schemas.py` reads the OpenAI and Anthropic SDKs' types.

`python -m tests.cloud_schemas gemini` (or `bedrock_converse`) prints the file as it would be; a test fails when
a pinned client names a field the emulator's file lacks. Gemini's fields are written in lowerCamel, as the API
names them in JSON (`spellings: proto3` makes the snake_case twin known too). Bedrock's file also carries each
member's constraints (`limits`: ranges, lengths, patterns, enums), which botocore's model holds and Bedrock checks.
"""

from __future__ import annotations

import sys
import typing
from collections.abc import Mapping
from types import NoneType, UnionType
from typing import Any, Union, get_args, get_origin

import pydantic
import yaml

from tests.sdk_schemas import Ref, as_yaml, render

# Gemini's request bodies, each a root of fields written here (the SDK has no type for a whole request: its
# `GenerateContentConfig` is spread over the body), whose values are the SDK's types.
GEMINI_ROOTS: dict[str, dict[str, str | None]] = {
    "generate_content": {
        "model": None,
        "contents": "[Content]",
        "systemInstruction": "Content",
        "tools": "[Tool]",
        "toolConfig": "ToolConfig",
        "safetySettings": "[SafetySetting]",
        "generationConfig": "GenerationConfig",
        "cachedContent": None,
        "labels": None,  # Vertex's
        "modelArmorConfig": None,  # Vertex's
    },
    "gemini_count_tokens": {
        "model": None,
        "contents": "[Content]",
        "generateContentRequest": "GenerateContentRequest",
        "systemInstruction": "Content",  # Vertex's
        "tools": "[Tool]",  # Vertex's
        "generationConfig": "GenerationConfig",  # Vertex's
    },
    "embed_content": {
        "model": None,
        "content": "Content",
        "taskType": None,
        "title": None,
        "outputDimensionality": None,
        "autoTruncate": None,  # Vertex's
    },
    "batch_embed_contents": {"model": None, "requests": "[EmbedContentRequest]"},
    "predict": {"instances": None, "parameters": None},  # Vertex's older embedding models
}
HEADER = """\
# The request bodies of {what}, at every depth
# (read by emulator/rules/schema.py, whose docstring gives the form).
#
# Written by `python -m tests.cloud_schemas {file}` from {source}.
{extras}# tests/test_request_schemas.py fails when the client names a field this file lacks.
"""
HEADERS = {
    "gemini": (
        "the Gemini API's and Vertex AI's generateContent, streamGenerateContent, countTokens, embedContent, "
        "batchEmbedContents and predict",
        "the pinned google-genai's pydantic types",
        "# The roots are written in cloud_schemas.py: the SDK has no type for a whole request. Fields are lowerCamel,\n"
        "# as the API names them; `spellings: proto3` makes each one's snake_case twin known, as proto3 JSON does.\n",
    ),
    "bedrock_converse": (
        "Bedrock Runtime's Converse and ConverseStream",
        "the pinned botocore's service model for bedrock-runtime (its members, minus those in the path)",
        "# `limits` are the model's constraints on each member (`min`/`max`, `pattern`, `enum`), which Bedrock checks\n"
        "# and boto3 mostly does not (it checks `min` and required members before sending).\n",
    ),
}


# --- Gemini -------------------------------------------------------------------------------------------------------


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _model_of(tp: Any) -> tuple[type[pydantic.BaseModel] | None, Any]:
    """(a pydantic model, or None) and what a list holds, for an annotation: `Optional[list[Part]]` → (None, Part)."""
    while get_origin(tp) in (Union, UnionType):
        args = [a for a in get_args(tp) if a is not NoneType]
        tp = args[0] if len(args) == 1 else Any
    if get_origin(tp) is list:
        return None, get_args(tp)[0]
    if isinstance(tp, type) and issubclass(tp, pydantic.BaseModel):
        return tp, None
    return None, None


def _gemini_ref(tp: Any, types: dict[str, Any]) -> Ref | None:
    model, items = _model_of(tp)
    if model is not None:
        return (_gemini_object(model, types), None)
    if items is not None:
        inner = _gemini_ref(items, types)
        return (None, inner) if inner is not None else None
    return None


def _gemini_object(model: type[pydantic.BaseModel], types: dict[str, Any]) -> str:
    name = model.__name__
    if name in types:
        return name
    types[name] = {"fields": {}, "required": set()}
    hints = typing.get_type_hints(model, vars(sys.modules[model.__module__]))
    fields = {_camel(field): _gemini_ref(hints[field], types) for field in model.model_fields}
    if name == "Schema":  # JSON Schema's own spellings, which the API takes beside `defs` and `ref`
        fields |= {"$defs": None, "$ref": None}
    types[name]["fields"] = fields
    return name


def gemini() -> dict[str, Any]:
    from google.genai import types as genai

    types: dict[str, Any] = {}

    def ref(text: str | None) -> Ref | None:
        if text is None:
            return None
        if text.startswith("["):
            return (None, ref(text[1:-1]))
        if text == "GenerateContentRequest":
            return (text, None)
        if text == "EmbedContentRequest":
            return ("EmbedContentRequest", None)
        return (_gemini_object(getattr(genai, text), types), None)

    roots = {}
    for endpoint in GEMINI_ROOTS:
        name = {"generate_content": "GenerateContentRequest", "embed_content": "EmbedContentRequest"}.get(
            endpoint, endpoint.title().replace("_", "") + "Request"
        )
        types[name] = {"fields": {}, "required": set()}
        roots[endpoint] = name
    for endpoint, fields in GEMINI_ROOTS.items():
        types[roots[endpoint]]["fields"] = {field: ref(text) for field, text in fields.items()}
    return {"roots": roots, "types": types}


# --- Bedrock ------------------------------------------------------------------------------------------------------


def bedrock_converse() -> dict[str, Any]:
    import botocore.session

    service = botocore.session.get_session().get_service_model("bedrock-runtime")
    types: dict[str, Any] = {}
    limits: dict[str, Any] = {}

    def ref(shape: Any) -> Ref | None:
        if shape.type_name == "structure" and not shape.metadata.get("document"):
            return (structure(shape), None)
        if shape.type_name == "list":
            inner = ref(shape.member)
            return (None, inner) if inner is not None else None
        return None

    def limit(shape: Any) -> dict[str, Any]:
        meta, found = shape.metadata, dict[str, Any]()
        if shape.type_name in ("integer", "long", "float", "double"):
            if "min" in meta or "max" in meta:
                found["range"] = [meta.get("min"), meta.get("max")]
                found["integer"] = shape.type_name in ("integer", "long")
        elif shape.type_name in ("string", "list"):
            if "max" in meta:
                found["most" if shape.type_name == "list" else "longest"] = meta["max"]
            if meta.get("min"):
                found["least" if shape.type_name == "list" else "shortest"] = meta["min"]
            if "pattern" in meta:
                found["pattern"], found["whole"] = meta["pattern"], True
            if getattr(shape, "enum", None):
                found["values"] = list(shape.enum)
        return found

    def structure(shape: Any, top: bool = False) -> str:
        name: str = shape.name
        if name in types:
            return name
        types[name] = {"fields": {}, "required": set()}
        for member, held in shape.members.items():
            if held.serialization.get("location"):
                continue
            types[name]["fields"][member] = ref(held)
            found = limit(held)
            if found:
                limits[f"{name}.{member}"] = found
        if not top and not shape.metadata.get("union"):
            types[name]["required"] = set(shape.required_members) - {"modelId"}
        return name

    root = structure(service.operation_model("Converse").input_shape, top=True)
    return {"roots": {"converse": root}, "types": types, "limits": limits}


def schemas(file: str) -> dict[str, Any]:
    """A file's schemas as the client types them: `{"roots": {endpoint: type}, "types": {...}}`."""
    return gemini() if file == "gemini" else bedrock_converse()


def written(file: str) -> str:
    what, source, extras = HEADERS[file]
    if file == "gemini":
        body = "spellings: proto3\n" + as_yaml(gemini())
    else:  # not folded: the limits name each shape
        schemas = bedrock_converse()
        objects = {
            name: {(f"{k}*" if k in spec["required"] else k): render(v) for k, v in spec["fields"].items()}
            for name, spec in schemas["types"].items()
        }
        document = {"roots": schemas["roots"], "objects": objects, "limits": _sorted(schemas["limits"])}
        body = yaml.safe_dump(document, sort_keys=False, width=110, default_flow_style=None)
    return HEADER.format(what=what, file=file, source=source, extras=extras) + body


def _sorted(limits: Mapping[str, Any]) -> dict[str, Any]:
    return {name: limits[name] for name in sorted(limits)}


if __name__ == "__main__":
    sys.stdout.write(written(sys.argv[1]))
