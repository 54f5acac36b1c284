"""JSON Schema instances: valid against the schema, cut to the budget, or a `SchemaError` that names its path."""

from __future__ import annotations

import json
import random
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.default_model import instances, patterns
from emulator.default_model.generate import Writer
from emulator.default_model.instances import instance

SCHEMAS: list[dict[str, Any]] = [
    {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
    {"type": "object", "properties": {"n": {"type": "integer", "minimum": 3, "maximum": 5}}},
    {"type": "object", "properties": {"x": {"type": "number", "exclusiveMinimum": 0, "exclusiveMaximum": 1}}},
    {"type": "object", "properties": {"k": {"type": "integer", "multipleOf": 7, "minimum": 10}}},
    {
        "type": "object",
        "properties": {"u": {"enum": ["c", "f"]}, "v": {"const": 3}, "w": {"type": ["null", "boolean"]}},
    },
    {"type": "array", "items": {"type": "string", "minLength": 12, "maxLength": 14}, "minItems": 2, "maxItems": 3},
    {"type": "object", "properties": {"when": {"type": "string", "format": "date-time"}}},
    {
        "type": "object",
        "$defs": {"point": {"type": "object", "properties": {"x": {"type": "number"}}, "required": ["x"]}},
        "properties": {"points": {"type": "array", "items": {"$ref": "#/$defs/point"}}},
        "required": ["points"],
        "additionalProperties": False,
    },
    {"anyOf": [{"type": "string"}, {"type": "integer"}]},
    {"allOf": [{"type": "object", "properties": {"a": {"type": "boolean"}}}, {"required": ["a"]}]},
]


HINTED = [  # what names, formats, bounds and patterns say, with faker's pools and without
    {
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "email": {"type": "string", "format": "email"},
            "age": {"type": "integer"},
            "birth_date": {"type": "string", "format": "date"},
            "created_at": {"type": "string", "format": "date-time"},
            "id": {"type": "string", "format": "uuid"},
            "host": {"type": "string", "format": "ipv4"},
            "v6": {"type": "string", "format": "ipv6"},
            "unit": {"enum": ["celsius", "fahrenheit"]},
            "rating": {"type": "number", "minimum": 0, "maximum": 5},
            "tags": {"type": "array", "items": {"type": "string"}, "minItems": 2},
        },
    },
    {"type": "string", "pattern": "^[A-Z]{3}-\\d{2,4}$"},
    {"type": "string", "pattern": "^[a-z0-9_]+$", "maxLength": 8},
    {"type": "string", "pattern": "^\\w+@example\\.com$"},
    {"type": "string", "pattern": "v[0-9]\\.[0-9]?x*"},
    {"type": "integer", "minimum": 0, "maximum": 1_000_000_000},
    {"type": "integer", "exclusiveMinimum": 10, "exclusiveMaximum": 12},
    {"type": "number", "minimum": -1e308, "maximum": 1e308},
]
FORMATS = jsonschema.Draft202012Validator.FORMAT_CHECKER


@pytest.mark.parametrize("schema", SCHEMAS + HINTED)
@pytest.mark.parametrize("hints", [instances.NO_HINTS, Writer(0).hints], ids=["bare", "faker"])
def test_instances_are_valid(schema: dict[str, Any], hints: instances.Hints) -> None:
    for seed in range(20):
        jsonschema.validate(instance(schema, random.Random(seed), hints), schema, format_checker=FORMATS)


def test_optional_properties_are_filled_and_names_say_what_a_value_holds() -> None:
    pools = Writer(0).hints.pools
    for seed in range(10):
        value = instance(HINTED[0], random.Random(seed), Writer(0).hints)
        assert list(value) == list(HINTED[0]["properties"])  # every one, required or not, in the schema's order
        assert value["city"] in pools["city"] and 18 <= value["age"] <= 80
        assert value["birth_date"][:2] == "20" and value["created_at"].endswith("Z")
    person = {"type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}}}
    said = instances.Hints(names=("Jason",), numbers=(25, 1999))
    assert instance(person, random.Random(0), said) == {"name": "Jason", "age": 25}  # "Jason is 25 years old"
    two = {"type": "object", "properties": {"name": {}, "home_city": {"type": "string"}, "product_name": {}}}
    named = instance(two, random.Random(0), instances.Hints(names=("Ada", "Paris"), pools=pools))
    assert named["name"] == "Ada" and named["home_city"] == "Paris" and named["product_name"] in pools["title"]


@pytest.mark.parametrize(
    ("schema", "low", "high"),
    [
        ({"type": "integer"}, 0, 100),
        ({"type": "number", "minimum": 5000}, 5000, 5100),
        ({"type": "integer", "maximum": -7}, -107, -7),
        ({"type": "integer", "minimum": 0, "maximum": 1_000_000_000}, 0, 100),
        ({"type": "number", "minimum": -1e308, "maximum": -1e300}, -1e300 - 100, -1e300),
        ({"type": "object", "properties": {"year": {"type": "integer"}}}, 1990, 2025),
        ({"type": "object", "properties": {"year": {"type": "integer", "minimum": 3000}}}, 3000, 3100),
    ],
)
def test_numbers_stay_human_sized_within_their_bounds(schema: dict[str, Any], low: float, high: float) -> None:
    for seed in range(20):
        value = instance(schema, random.Random(seed))
        number = value["year"] if isinstance(value, dict) else value
        assert low <= number <= high


@pytest.mark.parametrize("pattern", ["^(a|b)$", "^[^a]$", "a{2,1}", "x{9999}", "\\p{L}"])
def test_a_pattern_that_is_not_simple_is_not_guessed(pattern: str) -> None:
    assert patterns.matching(pattern, random.Random(0)) is None


NODE = {
    "$defs": {
        "Node": {
            "type": "object",
            "properties": {
                "name": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}},
            },
            "required": ["name", "children"],
        }
    },
    "$ref": "#/$defs/Node",
}
LINKED = {  # pydantic's self-referencing model: `next: Optional[Link]`, required
    "$defs": {
        "Link": {
            "type": "object",
            "properties": {
                "value": {"type": "integer"},
                "next": {"anyOf": [{"$ref": "#/$defs/Link"}, {"type": "null"}]},
            },
            "required": ["value", "next"],
        }
    },
    "$ref": "#/$defs/Link",
}
DEEP = {"type": "array", "minItems": 1000, "items": {"type": "array", "minItems": 1000, "items": {"type": "integer"}}}


@pytest.mark.parametrize(
    "schema",
    [
        NODE,
        LINKED,
        {"type": "array", "items": {"type": "array", "items": {"type": "array", "items": {"$ref": "#"}}}},
        {"type": "string", "minLength": 60_000},
        {"type": "array", "minItems": 5_000, "items": {"type": "boolean"}},
        {"$defs": {"A": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}}}, "$ref": "#/$defs/A"},
    ],
    ids=["tree", "linked-list", "root-ref", "long-string", "many-items", "optional-cycle"],
)
def test_recursive_and_large_schemas_are_cut_to_the_budget_and_stay_valid(schema: dict[str, Any]) -> None:
    for seed in range(5):
        value = instance(schema, random.Random(seed))
        jsonschema.validate(value, schema)
        assert len(json.dumps(value)) <= instances.MAX_BYTES


def depth(value: Any) -> int:
    children = value.values() if isinstance(value, dict) else value if isinstance(value, list) else ()
    return 1 + max(map(depth, children), default=0) if isinstance(value, dict | list) else 0


def test_a_cycle_is_followed_while_it_fits_then_cut_where_the_schema_allows() -> None:
    linked = instance(LINKED, random.Random(0))
    assert depth(linked) == instances.MAX_DEPTH  # followed to the depth limit, then `null`
    tree = instance(NODE, random.Random(0))
    assert tree["children"] and 1 < depth(tree) <= instances.OPTIONAL_DEPTH + 1


@pytest.mark.parametrize(
    ("schema", "path", "problem"),
    [
        (DEEP, "items.minItems", "more than 64 KiB"),
        ({"type": "string", "minLength": 50_000_000}, "minLength", "more than 64 KiB"),
        ({"type": "array", "minItems": 20_000_000, "items": {}}, "minItems", "more than 64 KiB"),
        (
            {
                "$defs": {"A": {"type": "object", "properties": {"a": {"$ref": "#/$defs/A"}}, "required": ["a"]}},
                "$ref": "#/$defs/A",
            },
            "$defs.A",
            "deeper than 32 levels",
        ),
        ({"$defs": {"A": {"$ref": "#/$defs/B"}, "B": {"$ref": "#/$defs/A"}}, "$ref": "#/$defs/A"}, "$defs", "loops"),
        ({"type": "integer", "multipleOf": 0}, "multipleOf", "expected a number above 0"),
        ({"type": "object", "properties": {"x": {"$ref": "#/$defs/nowhere"}}}, "properties.x.$ref", "resolves to"),
        ({"type": "object", "properties": {"x": {"$ref": "other.json#/a"}}}, "properties.x.$ref", "only local"),
        ({"type": "object", "properties": {"x": {"type": "string", "minLength": -1}}}, "properties.x.minLength", ""),
        ({"type": "object", "properties": {"x": {"type": "array", "minItems": 3, "maxItems": 1}}}, "minItems", ""),
        ({"type": "object", "properties": {"x": {"type": "integer", "minimum": 5, "maximum": 1}}}, "properties.x", ""),
        ({"type": "object", "properties": {"x": {"type": "banana"}}}, "properties.x.type", "expected one of"),
        ({"type": "object", "properties": {"x": {"enum": []}}}, "properties.x.enum", "non-empty"),
        ({"type": "object", "properties": {"x": {"anyOf": {}}}}, "properties.x.anyOf", "non-empty array"),
        ({"type": "object", "properties": {"x": 3}}, "properties.x", "expected a schema"),
        ({"type": "object", "properties": {"x": False}}, "properties.x", "expected a schema"),
        ({"type": "object", "properties": []}, "properties", "expected an object"),
        ({"type": "object", "required": "x"}, "required", "expected an array"),
        ({"type": "number", "minimum": "low"}, "minimum", "expected a number"),
    ],
)
def test_a_schema_that_forces_too_much_or_is_malformed_names_its_path(
    schema: dict[str, Any], path: str, problem: str
) -> None:
    with pytest.raises(instances.SchemaError) as caught:
        instance(schema, random.Random(0))
    assert path in caught.value.path and str(caught.value).startswith(caught.value.path)
    assert problem in str(caught.value)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**6), 10**9) | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=12,
)
keywords = st.sampled_from(
    ["type", "properties", "required", "items", "minItems", "maxItems", "minLength", "maxLength", "enum", "const"]
    + ["anyOf", "oneOf", "allOf", "$ref", "$defs", "minimum", "maximum", "multipleOf", "format"]
)
schemas = st.recursive(
    st.dictionaries(keywords, json_values, max_size=4),
    lambda inner: st.dictionaries(keywords, inner | json_values | st.lists(inner, max_size=2), max_size=4),
    max_leaves=10,
)


@settings(max_examples=400, deadline=None)
@given(schema=schemas | json_values)
def test_any_schema_gets_an_instance_or_a_schema_error_never_a_crash(schema: Any) -> None:
    """48 of 60 malformed schemas were a 500: whatever a client sends as a schema, the generator answers it
    with a value, or with `SchemaError` (the client's 400), within its budget."""
    try:
        value = instance(schema, random.Random(0))
    except instances.SchemaError:
        return
    assert len(json.dumps(value)) <= instances.MAX_BYTES
