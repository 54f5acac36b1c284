"""The request schemas the pinned SDKs' parameter types describe, in the form of `emulator/rules/schema.py`.

The emulator's schemas (`emulator/rules/catalog/*_requests.yaml`) are its own data; this reads the SDKs' TypedDicts
into the same form so that a test can say what the SDKs send that the schemas lack (`missing`), and so that a
maintainer can bring them up to a new SDK: `python -m tests.sdk_schemas openai_chat` prints the file as it would be.

A TypedDict is an object; a union of TypedDicts is a union told apart by the field each member fixes to a literal
(`type`, else `role`), members sharing a tag merged; `X | list[Y]` is a reference to both; anything else (scalars,
maps, JSON schemas) is `~`, not walked.
"""

from __future__ import annotations

import importlib
import pkgutil
import sys
import typing
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Literal, Union, get_args, get_origin

import typing_extensions
import yaml

Ref = tuple[str | None, Any]  # (object type, list element Ref) or None for a scalar

ROOTS = {  # a schema file (`emulator/rules/catalog/requests/*.yaml`) → its endpoints' parameter types
    "openai_chat": {"chat": "openai.types.chat.completion_create_params:CompletionCreateParamsBase"},
    "openai_responses": {
        "responses": "openai.types.responses.response_create_params:ResponseCreateParamsBase",
        "input_tokens": "openai.types.responses.input_token_count_params:InputTokenCountParams",
        "compact": "openai.types.responses.response_compact_params:ResponseCompactParams",
    },
    "openai_embeddings": {"embeddings": "openai.types.embedding_create_params:EmbeddingCreateParams"},
    "openai_completions": {"completions": "openai.types.completion_create_params:CompletionCreateParamsBase"},
    "anthropic_messages": {
        "messages": "anthropic.types.message_create_params:MessageCreateParamsBase",
        "count_tokens": "anthropic.types.message_count_tokens_params:MessageCountTokensParams",
        "beta_messages": "anthropic.types.beta.message_create_params:MessageCreateParamsBase",
        "beta_count_tokens": "anthropic.types.beta.message_count_tokens_params:MessageCountTokensParams",
    },
}
DISCRIMINATORS = ("type", "role")
# What the APIs read beyond the SDKs' types, added to each file's roots (the header the file carries says why).
EXTRAS = {
    "openai_chat": ("stream",),
    "openai_responses": ("stream", "client_metadata"),
    "openai_embeddings": (),
    "openai_completions": ("stream",),
    "anthropic_messages": ("stream", "temperature", "top_k", "top_p"),
}
# Fields the API reads below the roots that the SDK's types lack, by type (the header says why).
NESTED_EXTRAS = {
    "openai_chat": {"ChatCompletionToolMessage": ("name",)},
}
# Fields the SDK types as required that the API lets a request leave out (its reference gives their defaults).
LOOSE = {
    "ResponseInputImage.detail",  # "Defaults to `auto`"
    "ResponseOutputText.annotations",  # an assistant turn sent back as text alone (Codex, the Agents SDK)
}
HEADER = """\
# The request bodies of {what}, at every depth
# (read by emulator/rules/schema.py, whose docstring gives the form).
#
# Written by `python -m tests.sdk_schemas {file}` from the pinned SDK's parameter types,
# with what the API reads beyond them:{extras}
# tests/test_request_schemas.py fails when the SDK names a field, a member or a tag that this file lacks.
"""
HEADERS = {
    "openai_chat": (
        "POST /v1/chat/completions",
        "\n# - `stream`, which the SDK adds per call, not in its parameter types;"
        "\n# - a tool message's `name`, which OpenAI's function-calling examples send with tool results and frameworks"
        "\n#   still send (CrewAI through litellm).",
    ),
    "openai_responses": (
        "POST /v1/responses, /v1/responses/input_tokens and /v1/responses/compact",
        "\n# - `stream`, which the SDK adds per call;"
        "\n# - `client_metadata`, which Codex CLI sends on every request to the real API (reference agent-clients.md).",
    ),
    "openai_embeddings": ("POST /v1/embeddings", " nothing: the SDK's types are the whole body."),
    "openai_completions": (
        "POST /v1/completions (legacy)",
        "\n# - `stream`, which the SDK adds per call, not in its parameter types.",
    ),
    "anthropic_messages": (
        "POST /v1/messages and /v1/messages/count_tokens\n# (`beta_…`: below the top, with an `anthropic-beta` header)",
        "\n# - `stream`, which the SDK adds per call;"
        "\n# - the sampling parameters the API still reads (`temperature`, `top_k`, `top_p`: Claude 4.6 and earlier"
        "\n#   take them; later models refuse values other than the default);"
        "\n# - `cache_control` is a union of one (`CacheControl`, by `type`), as the API's paths show it"
        "\n#   (`system.1.cache_control.ephemeral.scope: Extra inputs are not permitted`).",
    ),
}
LISTS = {list, Iterable, Sequence, typing.Iterable, typing.Sequence}


def _strip(tp: Any) -> tuple[Any, str | None]:
    """The type inside Required / NotRequired / Annotated, and the field's wire name when an alias gives one."""
    alias = None
    while True:
        origin = get_origin(tp)
        if origin in (typing.Annotated, typing_extensions.Annotated):
            for meta in tp.__metadata__:
                alias = getattr(meta, "alias", None) or alias
            tp = tp.__origin__
        elif origin in (typing.Required, typing.NotRequired, typing_extensions.Required, typing_extensions.NotRequired):
            tp = get_args(tp)[0]
        else:
            return tp, alias


def _alternatives(tp: Any) -> list[Any]:
    tp, _ = _strip(tp)
    if get_origin(tp) is Union or type(tp).__name__ == "UnionType":
        return [alt for arg in get_args(tp) for alt in _alternatives(arg)]
    return [tp]


def _is_list(tp: Any) -> bool:
    origin = get_origin(tp)
    if origin is None:
        return False
    name = getattr(origin, "__name__", "") or getattr(tp, "_name", "")
    return origin in LISTS or name in ("Iterable", "Sequence", "list", "SequenceNotStr")


def _required(cls: type, tp: Any) -> bool:
    """Whether a TypedDict's field is required: `Required[…]` not nullable, or a total TypedDict's field not
    `NotRequired`.
    (The SDKs' modules use string annotations, which `__required_keys__` cannot read.)"""
    while get_origin(tp) in (typing.Annotated, typing_extensions.Annotated):
        tp = tp.__origin__
    origin = get_origin(tp)
    if origin in (typing.Required, typing_extensions.Required):  # but `Required[Optional[X]]`: the API lets it be left
        return type(None) not in _alternatives(get_args(tp)[0])  # out (a Responses function tool's `strict`)
    if origin in (typing.NotRequired, typing_extensions.NotRequired):
        return False
    return bool(getattr(cls, "__total__", True))


def _literals(tp: Any) -> tuple[str, ...] | None:
    values: list[str] = []
    for alt in _alternatives(tp):
        if alt is type(None):
            continue
        if get_origin(alt) is not Literal:
            return None
        values.extend(str(v) for v in get_args(alt))
    return tuple(values) or None


class Reader:
    """Reads one SDK's types into `types`, named by the SDK's own names without `Param`."""

    def __init__(self, package: str) -> None:
        self.types: dict[str, dict[str, Any]] = {}
        self._named: dict[type, str] = {}
        self._unions: dict[frozenset[type], str] = {}
        self._aliases = _aliases(package)

    def root(self, path: str) -> str:
        module, _, name = path.partition(":")
        return self._object(getattr(importlib.import_module(module), name))

    def ref(self, tp: Any, where: str) -> Ref | None:
        objects, items, free = [], [], False
        for alt in _alternatives(tp):
            if alt is object or get_origin(alt) in (dict, Mapping, typing.Dict, typing.Mapping):  # noqa: UP006
                free = True  # any object will do (a JSON Schema): not walked
            elif typing_extensions.is_typeddict(alt):
                objects.append(alt)
            elif _is_list(alt) and get_args(alt):
                items.append(get_args(alt)[0])
        name = None
        if free:
            objects = []
        if len(objects) == 1:
            name = self._object(objects[0])
        elif objects:
            name = self._union(objects, self._aliases.get(frozenset(objects)) or where, where)
        element = None
        if items:
            element = self.ref(Union[tuple(items)] if len(items) > 1 else items[0], where + "Item")  # noqa: UP007
        return (name, element) if name or element else None

    def _object(self, cls: type) -> str:
        if cls in self._named:
            return self._named[cls]
        name = _name(cls)
        if name in self.types:  # another module's class of the same name: qualify it by its module
            name = f"{cls.__module__.rsplit('.', 1)[-1]}.{name}"
        self._named[cls] = name
        spec: dict[str, Any] = {"fields": {}, "required": []}
        self.types[name] = spec
        hints = typing_extensions.get_type_hints(cls, include_extras=True)
        for field, tp in hints.items():
            _, alias = _strip(tp)
            wire = alias or field
            spec["fields"][wire] = self.ref(tp, f"{name}.{wire}")
            if _required(cls, tp) and f"{name}.{wire}" not in LOOSE:
                spec["required"].append(wire)
        return name

    def _union(self, members: list[type], name: str, where: str) -> str:
        key = frozenset(members)
        if key in self._unions:
            return self._unions[key]
        if name in self.types:  # another union of the same name: name it by where it stands
            name = where
        while name in self.types:
            name += "_"
        self._unions[key] = name
        hints = [typing_extensions.get_type_hints(m, include_extras=True) for m in members]
        by = next(
            (k for k in DISCRIMINATORS if all(k in h and _literals(h[k]) for h in hints)),
            None,
        )
        if by is None:  # nothing tells them apart: one object with every member's fields
            self.types[name] = {"fields": {}, "required": []}
            for m in members:
                self._merge_into(name, self._object(m))
            return name
        spec: dict[str, Any] = {"by": by, "tags": {}, "default": None}
        self.types[name] = spec
        for m, h in zip(members, hints, strict=True):
            member = self._object(m)
            for tag in _literals(h[by]) or ():
                if tag in spec["tags"] and spec["tags"][tag] != member:
                    merged = spec["tags"][tag]
                    if "+" not in merged:
                        merged = f"{merged}+"
                        self.types[merged] = {"fields": {}, "required": []}
                        self._merge_into(merged, spec["tags"][tag])
                    self._merge_into(merged, member)
                    spec["tags"][tag] = merged
                else:
                    spec["tags"][tag] = member
                if not _required(m, h[by]) and spec["default"] is None:
                    spec["default"] = tag
        return name

    def _merge_into(self, target: str, source: str) -> None:
        into, src = self.types[target], self.types[source]
        if "by" in src:  # a union inside a merge: its members' fields, flattened
            for tag in src["tags"].values():
                self._merge_into(target, tag)
            return
        for field, ref in src["fields"].items():
            into["fields"][field] = _merge_refs(into["fields"].get(field), ref, self)
        into["required"] = [r for r in into["required"] if r in src["required"]] if into["fields"] else src["required"]


def _merge_refs(a: Ref | None, b: Ref | None, reader: Reader) -> Ref | None:
    if a is None or a == b:
        return b
    if b is None:
        return a
    obj = a[0] or b[0]
    if a[0] and b[0] and a[0] != b[0]:
        obj = f"{a[0]}+{b[0]}"
        if obj not in reader.types:
            one, two = reader.types[a[0]], reader.types[b[0]]
            if "by" in one and "by" in two and one["by"] == two["by"]:  # two unions: one with both's members
                tags = dict(one["tags"])
                for tag, member in two["tags"].items():
                    if tag in tags and tags[tag] != member:
                        merged = f"{tags[tag]}+{member}"
                        if merged not in reader.types:
                            reader.types[merged] = {"fields": {}, "required": []}
                            reader._merge_into(merged, tags[tag])
                            reader._merge_into(merged, member)
                        member = merged
                    tags[tag] = member
                reader.types[obj] = {"by": one["by"], "tags": tags, "default": one["default"] or two["default"]}
            else:
                reader.types[obj] = {"fields": {}, "required": []}
                reader._merge_into(obj, a[0])
                reader._merge_into(obj, b[0])
    return (obj, _merge_refs(a[1], b[1], reader))


def _name(cls: type) -> str:
    name = cls.__name__
    return name[: -len("Param")] if name.endswith("Param") and name != "Param" else name


def _aliases(package: str) -> dict[frozenset[type], str]:
    """Union aliases by their members, from every module of the SDK's types: `ChatCompletionMessageParam`."""
    found: dict[frozenset[type], str] = {}
    root = importlib.import_module(f"{package}.types")
    for info in pkgutil.walk_packages(root.__path__, f"{package}.types."):
        try:
            module = importlib.import_module(info.name)
        except Exception:  # a module needing an optional extra
            continue
        for attr, value in vars(module).items():
            if attr.startswith("_") or get_origin(value) is not Union:
                continue
            members = frozenset(a for a in _alternatives(value) if typing_extensions.is_typeddict(a))
            if len(members) > 1:
                found.setdefault(members, attr[: -len("Param")] if attr.endswith("Param") else attr)
    return found


def sdk_schemas(file: str) -> dict[str, Any]:
    """A schema file's request schemas as the SDK types them: `{"roots": {endpoint: type}, "types": {...}}`."""
    reader = Reader(file.partition("_")[0])
    roots = {endpoint: reader.root(path) for endpoint, path in ROOTS[file].items()}
    for endpoint, root in roots.items():
        if "create" in ROOTS[file][endpoint]:  # a create call's own: count_tokens has no stream
            fields = reader.types[root]["fields"]
            reader.types[root]["fields"] = {**{name: None for name in EXTRAS[file]}, **fields}
    for name, extra in NESTED_EXTRAS.get(file, {}).items():
        reader.types[name]["fields"] = {**reader.types[name]["fields"], **dict.fromkeys(extra)}
    if file == "anthropic_messages":
        _cache_control_union(reader)
    return {"roots": roots, "types": reader.types}


def _cache_control_union(reader: Reader) -> None:
    """Anthropic's `cache_control` as the union of one that the API's paths show (`cache_control.ephemeral.x`)."""
    for name, spec in list(reader.types.items()):
        if "fields" in spec and name.endswith("CacheControlEphemeral"):
            union = f"{name[: -len('Ephemeral')]}"
            reader.types[union] = {"by": "type", "tags": {"ephemeral": name}, "default": None}
            for other in reader.types.values():
                for field, ref in other.get("fields", {}).items():
                    if ref is not None and ref[0] == name:
                        other["fields"][field] = (union, ref[1])


def render(ref: Ref | None) -> str:
    """A reference as the YAML writes it: `Name`, `[Name]`, `Name|[Other]`, `~`."""
    if ref is None:
        return "~"
    obj, items = ref
    parts = [obj] if obj else []
    if items is not None:
        parts.append(f"[{render(items)}]")
    return "|".join(parts) or "~"


def compact(schemas: Mapping[str, Any]) -> dict[str, Any]:
    """The schemas with structurally identical types folded into one (the first met's name), each type in the
    YAML's form: an object as `{field: ref}` with required fields marked `field*`, a union as
    `{by, tags, default}`."""
    types = {name: _written(spec) for name, spec in schemas["types"].items()}
    roots = dict(schemas["roots"])
    while True:
        seen: dict[str, str] = {}
        renamed: dict[str, str] = {}
        for name in types:
            key = repr(types[name])
            if key in seen:
                renamed[name] = seen[key]
            else:
                seen[key] = name
        if not renamed:
            return {"roots": roots, "types": types}
        types = {n: _rename(spec, renamed) for n, spec in types.items() if n not in renamed}
        roots = {e: renamed.get(n, n) for e, n in roots.items()}


def _written(spec: Mapping[str, Any]) -> dict[str, Any]:
    if "by" in spec:
        out = {"by": spec["by"], "tags": dict(spec["tags"])}
        if spec["default"] is not None:
            out["default"] = spec["default"]
        return {"union": out}
    return {"object": {(f"{k}*" if k in spec["required"] else k): render(v) for k, v in spec["fields"].items()}}


def _rename(spec: dict[str, Any], renamed: Mapping[str, str]) -> dict[str, Any]:
    import re

    def ref(text: str) -> str:
        return re.sub(r"[^\[\]|~]+", lambda m: renamed.get(m.group(0), m.group(0)), text)

    if "union" in spec:
        union = dict(spec["union"])
        union["tags"] = {t: renamed.get(n, n) for t, n in union["tags"].items()}
        return {"union": union}
    return {"object": {k: ref(v) for k, v in spec["object"].items()}}


def as_yaml(schemas: Mapping[str, Any]) -> str:
    folded = compact(schemas)
    objects = {n: s["object"] for n, s in folded["types"].items() if "object" in s}
    unions = {n: s["union"] for n, s in folded["types"].items() if "union" in s}
    document = {"roots": folded["roots"], "unions": unions, "objects": objects}
    return yaml.safe_dump(document, sort_keys=False, width=110, default_flow_style=None)


def written(file: str) -> str:
    """The file as `emulator/rules/catalog/requests/` holds it: its header, then its schemas."""
    what, extras = HEADERS[file]
    return HEADER.format(what=what, file=file, extras=extras) + as_yaml(sdk_schemas(file))


if __name__ == "__main__":
    sys.stdout.write(written(sys.argv[1]))
