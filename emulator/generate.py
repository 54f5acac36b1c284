"""The embedded default: seeded faker text, and JSON that is valid against a JSON Schema.

Everything here is deterministic from the server's seed and the request's fingerprint: the same
request gets the same reasoning, text and tool arguments on every run and every worker.
"""

from __future__ import annotations

import json
import math
import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

from faker.providers.lorem.en_US import Provider as Lorem

from emulator import ids
from emulator.conversation import Prompt, Reply, Tool, ToolCall

TextKind = Literal["paragraph", "paragraphs", "sentence", "sentences", "words"]
TEXT_KINDS: tuple[TextKind, ...] = ("paragraph", "paragraphs", "sentence", "sentences", "words")

WORDS: tuple[str, ...] = tuple(Lorem.word_list)  # faker's English vocabulary
# How many sentences the default model thinks for, by reasoning effort (None: the model's default).
THINKING_SENTENCES = {None: 3, "minimal": 1, "low": 2, "medium": 3, "high": 5, "xhigh": 7, "max": 9}


@dataclass(frozen=True, slots=True)
class FakerText:
    """Text to generate: `kind` of faker text, `count` sentences, paragraphs or words."""

    kind: TextKind = "paragraph"
    count: int | None = None


# What the default model says, built once: the specs are the same for every request.
THINKING = {effort: FakerText("sentences", n) for effort, n in THINKING_SENTENCES.items()}
PARAGRAPH, SENTENCE = FakerText(), FakerText("sentence")

MIN_WORDS, MAX_WORDS = 6, 14
POOL = 1 << 12  # sentences a server can say; a power of two, so a 16-bit die picks each one equally
_WORD_OF = tuple(WORDS[i % len(WORDS)] for i in range(1 << 16))  # a die's face → a word


class Writer:
    """Seeded text in faker's English vocabulary, deterministic from the server's seed and the request.

    The server's sentences are built once, from its seed; a reply then costs one die a sentence, read
    from one hash of the request. A seeded `Faker` (or `random.Random`) per reply cost 60 µs, a third
    of a whole request (bench/throughput.py). Texts with an exact word count are built word by word.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        faces = ids.draws("sentences", seed, count=POOL * (MAX_WORDS + 1))
        self._sentences = tuple(_sentence(faces[i * (MAX_WORDS + 1) :]) for i in range(POOL))

    def rng(self, root: str, *salt: object) -> random.Random:
        return random.Random(ids.number(root, self.seed, *salt))

    def text(self, spec: FakerText, root: str, *salt: object) -> str:
        """The text `spec` asks for, the same for the same `root` and `salt`."""
        n = spec.count
        if spec.kind == "words":
            return " ".join(map(_WORD_OF.__getitem__, ids.draws(root, self.seed, *salt, count=n or 5))).capitalize()
        if spec.kind == "sentence" and n:
            return _sentence(ids.draws(root, self.seed, *salt, count=n), words=n)
        paragraphs = n or 3 if spec.kind == "paragraphs" else 1
        faces = ids.draws(root, self.seed, *salt, count=1 + 5 * paragraphs + 6)
        if spec.kind == "sentence":
            count = 1
        elif spec.kind == "sentences":
            count = n or 3
        elif spec.kind == "paragraph":
            count = n or 3 + faces[-1] % 4
        else:
            return "\n\n".join(self._say(faces[5 * i : 5 * i + 5]) for i in range(paragraphs))
        return self._say(faces[:count] if count <= len(faces) else ids.draws(root, self.seed, *salt, count=count))

    def _say(self, faces: memoryview) -> str:
        return " ".join([self._sentences[face % POOL] for face in faces])


def _sentence(faces: memoryview, words: int | None = None) -> str:
    """A sentence of `words` words (or as many as the first face says, 6 to 14), one face a word."""
    if words is None:
        words, faces = MIN_WORDS + faces[0] % (MAX_WORDS - MIN_WORDS + 1), faces[1:]
    return " ".join(map(_WORD_OF.__getitem__, faces[:words])).capitalize() + "."


def default_reply(prompt: Prompt, writer: Writer) -> Reply:
    """What the embedded model says when no scenario or recording answers.

    It reasons first unless thinking is off; it calls a tool when `tool_choice` requires one, with
    arguments valid against the tool's schema; it answers JSON when `response_format` asks for it.
    """
    root = prompt.root
    reasoning = ""
    if prompt.thinking:
        reasoning = writer.text(THINKING.get(prompt.effort) or THINKING[None], root, "reasoning")
    choice = prompt.tool_choice
    if choice.mode == "required" and prompt.tools:
        tool = next((t for t in prompt.tools if t.name == choice.name), prompt.tools[0])
        return Reply(reasoning=reasoning, tool_calls=(tool_call(tool, writer, root, 0),))
    rf = prompt.response_format
    if rf.type == "json_schema":
        text = json.dumps(instance(rf.schema or {}, writer.rng(root, "json")), ensure_ascii=False)
    elif rf.type == "json_object":
        text = json.dumps({"answer": writer.text(SENTENCE, root, "json")})
    else:
        text = writer.text(PARAGRAPH, root, "text")
    return Reply(reasoning=reasoning, text=text)


def tool_call(tool: Tool, writer: Writer, root: str, index: object) -> ToolCall:
    """A call of `tool` with generated arguments: schema-valid JSON, or a line of text for a custom tool."""
    if tool.kind == "custom":
        return ToolCall(id="", name=tool.name, arguments=writer.text(SENTENCE, root, "call", index), kind="custom")
    value = instance(tool.parameters or {"type": "object"}, writer.rng(root, "call", index))
    return ToolCall(id="", name=tool.name, arguments=json.dumps(value, ensure_ascii=False))


# --- JSON Schema instances -------------------------------------------------------------------------

_WORDS = ("alpha", "bravo", "delta", "echo", "lima", "oscar", "sierra", "tango")
_FORMATS = {
    "date-time": "2025-01-01T12:00:00Z",
    "date": "2025-01-01",
    "time": "12:00:00Z",
    "email": "user@example.com",
    "uri": "https://example.com/",
    "uuid": "00000000-0000-4000-8000-000000000000",
    "ipv4": "192.0.2.1",
}


def instance(schema: Mapping[str, Any], rng: random.Random, defs: Mapping[str, Any] | None = None) -> Any:
    """A value valid against `schema` for the subset tool schemas use: types, properties, required,
    enum, const, items, min/max bounds, anyOf/oneOf/allOf and local `$ref`s.
    """
    defs = defs if defs is not None else {**schema.get("definitions", {}), **schema.get("$defs", {})}
    if "$ref" in schema:
        target = defs.get(str(schema["$ref"]).rsplit("/", 1)[-1])
        return instance(target or {}, rng, defs)
    if "const" in schema:
        return schema["const"]
    if schema.get("enum"):
        return rng.choice(list(schema["enum"]))
    for key in ("anyOf", "oneOf"):
        if schema.get(key):
            return instance(schema[key][0], rng, defs)
    if schema.get("allOf"):
        merged: dict[str, Any] = {}
        for part in schema["allOf"]:
            merged.update(part)
        return instance(merged, rng, defs)
    kind = schema.get("type", "object" if "properties" in schema else "string")
    if isinstance(kind, list):
        kind = next((k for k in kind if k != "null"), "null")
    return _BY_TYPE.get(kind, _string)(schema, rng, defs)


def _object(schema: Mapping[str, Any], rng: random.Random, defs: Mapping[str, Any]) -> Any:
    properties = schema.get("properties", {})
    required = set(schema.get("required", properties))
    return {name: instance(sub, rng, defs) for name, sub in properties.items() if name in required}


def _array(schema: Mapping[str, Any], rng: random.Random, defs: Mapping[str, Any]) -> Any:
    low = int(schema.get("minItems", 1))
    high = max(low, min(int(schema.get("maxItems", low + 2)), low + 2))
    return [instance(schema.get("items", {}), rng, defs) for _ in range(rng.randint(low, high))]


def _string(schema: Mapping[str, Any], rng: random.Random, defs: Mapping[str, Any]) -> Any:
    if schema.get("format") in _FORMATS:
        return _FORMATS[schema["format"]]
    low, high = int(schema.get("minLength", 0)), int(schema.get("maxLength", 64))
    word = rng.choice(_WORDS)
    while len(word) < low:
        word += rng.choice(_WORDS)
    return word[:high]


def _bounds(schema: Mapping[str, Any], span: float) -> tuple[float, float]:
    low = schema.get("minimum", schema.get("exclusiveMinimum"))
    high = schema.get("maximum", schema.get("exclusiveMaximum"))
    low = float(low) if low is not None else (float(high) - span if high is not None else 0.0)
    high = float(high) if high is not None else low + span
    return low, high


def _integer(schema: Mapping[str, Any], rng: random.Random, defs: Mapping[str, Any]) -> Any:
    low, high = _bounds(schema, 100)
    step = schema.get("multipleOf", 1)
    first, last = math.floor(low / step) + 1, math.ceil(high / step) - 1  # strictly inside: exclusive bounds hold
    if first > last:
        first = last = math.ceil(low / step)
    value = rng.randint(first, last) * step
    return int(value) if float(value).is_integer() else value


def _number(schema: Mapping[str, Any], rng: random.Random, defs: Mapping[str, Any]) -> Any:
    if "multipleOf" in schema:
        return _integer(schema, rng, defs)
    low, high = _bounds(schema, 100)
    return round(low + (high - low) * (0.1 + 0.8 * rng.random()), 2)


def _boolean(schema: Mapping[str, Any], rng: random.Random, defs: Mapping[str, Any]) -> Any:
    return rng.random() < 0.5


def _null(schema: Mapping[str, Any], rng: random.Random, defs: Mapping[str, Any]) -> Any:
    return None


_BY_TYPE: dict[str, Callable[[Mapping[str, Any], random.Random, Mapping[str, Any]], Any]] = {
    "object": _object,
    "array": _array,
    "string": _string,
    "integer": _integer,
    "number": _number,
    "boolean": _boolean,
    "null": _null,
}
