"""The embedded default: a model that plays along, without a model.

It reads the question (`question`), answers it in the form it asks for, in words of its own grammar and lexicon
(`prose`, `writer`), calls the tools the question names under `tool_choice: auto` (`relevance`), sums up what
tools returned, and answers JSON valid against a schema, given in `response_format` or written in the prompt
(`instances`). Faker's seeded words remain for a scenario's `{faker: …}` text and a custom tool's input. Everything is
deterministic from the server's seed and the conversation key: the same conversation gets the same
reasoning, text and tool arguments on every run and every worker, in every dialect, streamed or not.
"""

from __future__ import annotations

import functools
import itertools
import json
import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from faker import Faker
from faker.providers.lorem.en_US import Provider as Lorem

from emulator.core import ids
from emulator.core.conversation import Prompt, Reply, Tool, ToolCall, ToolChoice
from emulator.core.errors import InvalidRequest
from emulator.default_model import (
    arguments,
    bounds,
    directives,
    followups,
    loop,
    mentions,
    prose,
    protocols,
    question,
    relevance,
    wrappers,
)
from emulator.default_model.instances import Hints, SchemaError, instance
from emulator.default_model.mentions import Mentions
from emulator.default_model.prose import Dice
from emulator.default_model.question import Question

TextKind = Literal["paragraph", "paragraphs", "sentence", "sentences", "words"]
TEXT_KINDS: tuple[TextKind, ...] = ("paragraph", "paragraphs", "sentence", "sentences", "words")

WORDS: tuple[str, ...] = tuple(Lorem.word_list)  # faker's English vocabulary
# How many sentences the default model thinks for, by reasoning effort (None: the model's default): what is
# asked, what the answer covers and in what order, and a check, at most; more would be padding.
THINKING_SENTENCES = {None: 3, "minimal": 1, "low": 2, "medium": 3, "high": 4, "xhigh": 4, "max": 4}


@dataclass(frozen=True, slots=True)
class FakerText:
    """Text to generate: `kind` of faker text, `count` sentences, paragraphs or words."""

    kind: TextKind = "paragraph"
    count: int | None = None


DefaultKind = Literal["answer", "reasoning", "paragraphs", "paragraph", "sentences", "sentence"]
DEFAULT_KINDS: tuple[DefaultKind, ...] = ("answer", "reasoning", "paragraphs", "paragraph", "sentences", "sentence")


@dataclass(frozen=True, slots=True)
class DefaultText:
    """The default model's own text, for a scenario: its `answer` to the question, its `reasoning`, or `count`
    paragraphs or sentences of plain prose about the question's subject."""

    kind: DefaultKind = "paragraphs"
    count: int | None = None


# What the default model says, built once: the specs are the same for every request.
THINKING = {effort: FakerText("sentences", n) for effort, n in THINKING_SENTENCES.items()}
PARAGRAPH, SENTENCE = FakerText(), FakerText("sentence")

MIN_WORDS, MAX_WORDS = 6, 14
TEXT_FACES = 20  # of an answer's 32 dice, those of its text; the rest are its reasoning's (rolled again past them)
POOL = 1 << 12  # sentences a server can say; a power of two, so a 16-bit die picks each one equally
_WORD_OF = tuple(WORDS[i % len(WORDS)] for i in range(1 << 16))  # a die's face → a word


class Writer:
    """Seeded text in faker's English vocabulary, deterministic from the server's seed and the request.

    The server's sentences are built once, from its seed; a reply then costs one die a sentence, read
    from one hash of the request. A seeded `Faker` (or `random.Random`) per reply was a large share
    of a whole request's time (bench/throughput.py). Texts with an exact word count are built word by word.
    """

    def __init__(self, seed: int) -> None:
        self.seed = seed
        faces = ids.draws("sentences", seed, count=POOL * (MAX_WORDS + 1))
        self._sentences = tuple(_sentence(faces[i * (MAX_WORDS + 1) :]) for i in range(POOL))
        self.hints = Hints(pools={**_pools(seed), "sentence": self._sentences[:PER_POOL], "word": WORDS})

    def dice(self, root: str) -> tuple[Dice, Dice]:
        """Two sets of dice, for one answer's text and its reasoning, from `root`: one hash."""
        faces = ids.faces(root, self.seed)
        return itertools.cycle(faces[:TEXT_FACES]), itertools.cycle(faces[TEXT_FACES:])

    @property
    def sentences(self) -> tuple[str, ...]:
        """The server's sentences, POOL of them: what the default model's filler is made of."""
        return self._sentences

    @property
    def pools(self) -> Mapping[str, Sequence[str]]:
        """Faker's names, places and other values by kind (`_PROVIDERS`), made once per seed."""
        return self.hints.pools

    @property
    def words(self) -> tuple[str, ...]:
        """A word for each face of a die (65,536)."""
        return _WORD_OF

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

    def said(self, spec: DefaultText, prompt: Prompt, *salt: object) -> str:
        """The default model's text `spec` asks for, about `prompt`'s question; the same for the same
        conversation and `salt`."""
        asked = question.read(prompt.last_user_text)
        dice = itertools.cycle(ids.draws(prompt.root, self.seed, "said", *salt, count=32))
        if spec.kind == "answer":
            return prose.answer(asked, prose.slots(asked), dice, self)
        if spec.kind == "reasoning":
            return prose.thinking(asked, prose.slots(asked), dice, spec.count or THINKING_SENTENCES[None])
        return prose.passage(asked, dice, spec.kind, spec.count)

    def _say(self, faces: memoryview) -> str:
        return " ".join([self._sentences[face % POOL] for face in faces])


PER_POOL = 64  # values of each kind (cities, emails, …) a server's generated JSON draws from
# The faker providers behind each kind of value `instances.STRING_HINTS` names. Dates and times are not here:
# faker's are relative to today, and the same seed must give the same values on every run.
_PROVIDERS = {
    "city": "city",
    "name": "name",
    "first_name": "first_name",
    "last_name": "last_name",
    "email": "email",
    "phone": "phone_number",
    "address": "street_address",
    "company": "company",
    "job": "job",
    "user_name": "user_name",
    "url": "url",
    "domain": "domain_name",
    "state": "state",
    "postcode": "postcode",
    "country": "country",
    "color": "color_name",
    "currency": "currency_code",
    "file_name": "file_name",
    "title": "catch_phrase",
    "first_name_male": "first_name_male",  # a story's hero, when the prompt says a boy or a man (tales.names)
    "first_name_female": "first_name_female",
}


@functools.cache
def _pools(seed: int) -> dict[str, tuple[str, ...]]:
    """PER_POOL values of each kind, from faker seeded with `seed`: made once per seed (a seeded `Faker` costs
    about 100 ms), then drawn from by a die per value."""
    fake = Faker("en_US")
    fake.seed_instance(seed)
    return {kind: tuple(getattr(fake, provider)() for _ in range(PER_POOL)) for kind, provider in _PROVIDERS.items()}


def _sentence(faces: memoryview, words: int | None = None) -> str:
    """A sentence of `words` words (or as many as the first face says, 6 to 14), one face a word."""
    if words is None:
        words, faces = MIN_WORDS + faces[0] % (MAX_WORDS - MIN_WORDS + 1), faces[1:]
    return " ".join(map(_WORD_OF.__getitem__, faces[:words])).capitalize() + "."


def default_reply(prompt: Prompt, writer: Writer) -> Reply:
    """What the embedded model says when no scenario or recording answers.

    It reasons about the question first unless thinking is off. It calls the tool `tool_choice` requires, or
    under `auto` the tools the question names (`relevance`), with arguments taken from what the conversation
    names (`mentions`, `arguments`) and valid against their schemas. After tool results (tool messages, or an
    agent's "Observation:" messages) it answers from them, through the finishing tool when the request forces
    a tool and offers one (`loop`); it never makes the same call twice in a conversation. It answers JSON when
    `response_format` asks for it, or when the prompt holds a JSON Schema and asks for JSON; else it answers
    the question in the question's shape.
    """
    prompt = wrappers.unwrapped(bounds.bounded(prompt))  # a framework's wrapper: the task it carries
    final = loop.final(prompt)
    after = final is not None and loop.observation(final)
    last = "tool" if after else final.role if final else "user"
    root = prompt.root
    asked = _read(mentions.own_words(final.text if last == "user" and final else _asked_text(prompt)))
    said, (dice, thought) = prose.slots(asked), writer.dice(root)
    reasoning = ""
    if prompt.thinking:
        sentences = THINKING_SENTENCES.get(prompt.effort) or THINKING_SENTENCES[None]
        shown = prose.shown(loop.results(prompt)) if last == "tool" else ""
        reasoning = prose.thinking(asked, said, thought, sentences, after_tools=shown)
    calls = _calls(prompt, writer, asked, after, said, dice)
    if calls:
        return Reply(reasoning=reasoning, tool_calls=calls)
    return Reply(reasoning=reasoning, text=_text(prompt, writer, asked, last, said, dice))


SHORT = 2000  # characters of a question `_read` keeps; a longer one (a pasted file) is read anew each time


def _read(text: str) -> Question:
    """`question.read`, kept for a question asked again (a demo's, a test suite's, an agent's retry): a dear read,
    made once a question. A bounded cache of short texts; `read` is pure, so what it keeps is what it would read."""
    return _read_short(text) if len(text) <= SHORT else question.read(text)


@functools.lru_cache(maxsize=1024)
def _read_short(text: str) -> Question:
    return question.read(text)


def _asked_text(prompt: Prompt) -> str:
    """The user's question: the last user message that is not an observation of a tool."""
    return next((m.text for m in reversed(prompt.messages) if m.role == "user" and not loop.observation(m)), "")


def _calls(
    prompt: Prompt, writer: Writer, asked: Question, after: bool, said: prose.Slots, dice: Dice
) -> tuple[ToolCall, ...]:
    """The calls the default makes: under `required` (or a named tool) the tool the question names, or after a
    result the finishing tool with the answer; under `auto` the tools `relevance` picks. None already made, but
    for `required` with no finishing tool, where some call must be made."""
    choice, tools = prompt.tool_choice, prompt.tools
    if choice.mode == "none" or not tools:
        return ()
    found, done = mentions.conversation(prompt), loop.made(prompt)
    context = _Context(writer, prompt, asked, found)
    if choice.mode == "required":
        named = next((t for t in tools if t.name == choice.name), None) if choice.name else None
        finish = loop.finishing(tools)
        if named is not None and (named is not finish or after):
            return (_answering(named, context, said, dice) if named is finish else tool_call(named, context),)
        if after and finish is not None:
            return (_answering(finish, context, said, dice),)
        others = [t for t in tools if t is not finish]
        picked = [*relevance.relevant(replace(prompt, tool_choice=ToolChoice("auto")), asked, found), *others]
        for tool in {id(t): t for t in picked}.values():
            call = tool_call(tool, context)
            if loop.call_key(call.name, call.arguments) not in done:
                return (call,)
        if finish is not None:
            return (_answering(finish, context, said, dice),)
        # Every call made and none finishes: the request still requires one (the API's contract), so the first
        # tool is called again; only `max_iterations` ends such a loop, as it would with a model.
        return (tool_call(picked[0], context),)
    if after:
        return ()
    calls = (tool_call(tool, context) for tool in relevance.relevant(prompt, asked, found))
    return tuple(c for c in calls if loop.call_key(c.name, c.arguments) not in done)


def _answering(tool: Tool, context: _Context, said: prose.Slots, dice: Dice) -> ToolCall:
    """A call of the finishing tool whose text parameters hold the answer, built from the results."""
    results = loop.results(context.prompt)
    answer = (
        prose.summary(results, context.asked, said, dice)
        if results
        else prose.answer(context.asked, said, dice, context.writer)
    )
    call = tool_call(tool, context)
    schema = tool.parameters or {}
    properties = schema.get("properties") if isinstance(schema, Mapping) else None
    if not isinstance(properties, Mapping):
        return call
    arguments = json.loads(call.arguments)
    for name, sub in properties.items():
        if isinstance(sub, Mapping) and _takes_text(sub) and name in arguments:
            arguments[name] = answer
            break
    else:  # no text parameter: the first one takes the answer, where its schema is open ("any")
        first = next(iter(properties), None)
        if first is not None and not _typed(properties[first]):
            arguments[first] = answer
    return replace(call, arguments=json.dumps(arguments, ensure_ascii=False))


def _takes_text(schema: Mapping[str, Any]) -> bool:
    kind = schema.get("type")
    return (
        kind == "string"
        and "enum" not in schema
        and "format" not in schema
        or (isinstance(kind, list) and "string" in kind)
    )


def _typed(schema: Any) -> bool:
    return isinstance(schema, Mapping) and any(k in schema for k in ("type", "enum", "const", "$ref", "anyOf"))


def _text(prompt: Prompt, writer: Writer, asked: Question, last: str, said: prose.Slots, dice: Dice) -> str:
    root, form = prompt.root, prompt.response_format

    def call(tool: Tool, task: str) -> Any:  # a protocol's tool call: arguments from the task and the conversation
        context = _Context(writer, prompt, question.read(task), mentions.conversation(prompt))
        return json.loads(tool_call(tool, context).arguments)

    if (picked := wrappers.role(prompt)) is not None:
        return picked  # a group chat's speaker selector: one of the roles it lists
    if (written := protocols.answer(prompt, writer, dice, call)) is not None:
        return written  # the format an agent framework asks for (ReAct, DSPy, smolagents, aider, keys, tags)
    if form.type == "json_schema":
        made = _instance(form.schema or {}, writer, root, "response_format", asked)
        return json.dumps(_named_in(prompt, form.schema, made), ensure_ascii=False)
    if form.type == "json_object":
        return json.dumps(_prompted(prompt, writer, asked), ensure_ascii=False)
    if last == "tool":
        return prose.summary(loop.results(prompt), asked, said, dice)
    if (followed := followups.answer(prompt.messages)) is not None:
        return followed  # the previous answer reworked, or what the user said of themselves
    if question.asks_for_json_block(prompt, asked):
        return f"```json\n{json.dumps(_prompted(prompt, writer, asked), ensure_ascii=False, indent=2)}\n```"
    if (fixed := directives.answer(asked.text, dice, directives.around(prompt.messages))) is not None:
        return fixed  # a computation, a fact, a choice, a yes or no: what the question fixes
    written = directives.shaped(asked.text, prose.answer(asked, said, dice, writer))
    return directives.shaped(directives.instructions(prompt.messages), written)  # the system prompt's limits too


def _prompted(prompt: Prompt, writer: Writer, asked: Question) -> Any:
    """An instance of the JSON Schema the prompt holds (instructor's JSON and MD_JSON modes put one there), or
    an object with the answer in a sentence. A schema in prose that no instance fits is not the client's 400:
    the answer is then that object too."""
    schema = question.schema_in(prompt)
    if schema is not None:
        try:
            return _named_in(prompt, schema, instance(schema, writer.rng(prompt.root, "json"), _hints(writer, asked)))
        except SchemaError:
            pass
    return {"answer": writer.said(DefaultText("sentence"), prompt, "json")}


def _named_in(prompt: Prompt, schema: Any, value: Any) -> Any:
    """Structured output with what the conversation names where the schema's properties take it: the full
    name "Amara Okafor" where the hints alone gave "Amara"."""
    return arguments.fill(schema, value, mentions.conversation(prompt))[0]


@dataclass(frozen=True, slots=True)
class _Context:
    """What a tool call's arguments are drawn from: the writer, the request, its question, what it names."""

    writer: Writer
    prompt: Prompt
    asked: Question
    found: Mentions = mentions.NONE


def tool_call(tool: Tool, context: _Context | Writer, root: str = "", index: object = 0) -> ToolCall:
    """A call of `tool` with generated arguments: schema-valid JSON with what the conversation names where a
    parameter takes it (`arguments.fill`), what it does not name drawn from faker seeded by the conversation's
    first question and the tool, so a repeated call keeps them; or a line of text for a custom tool."""
    if isinstance(context, Writer):  # a scenario's call: no conversation to read
        writer, prompt, asked, found, start = context, None, None, mentions.NONE, root
    else:
        writer, prompt, asked, found = context.writer, context.prompt, context.asked, context.found
        start = _first_question(prompt) or prompt.root
        root, index = start, tool.name
    if tool.kind == "custom":
        return ToolCall(id="", name=tool.name, arguments=writer.text(SENTENCE, root, "call", index), kind="custom")
    schema, whose = tool.parameters or {"type": "object"}, f"function '{tool.name}'"
    value = _instance(schema, writer, root, whose, asked, index)
    if prompt is not None:
        value = _given(schema, value, found, prompt)
    return ToolCall(id="", name=tool.name, arguments=json.dumps(value, ensure_ascii=False))


def _first_question(prompt: Prompt) -> str:
    return next((m.text[:2000] for m in prompt.messages if m.role == "user" and not loop.observation(m)), "")


_CWD = re.compile(r"(?:working directory|cwd)\s*[:=]\s*`?(/[^\s`<]*)|<cwd>\s*(/[^<\s]*)\s*</cwd>", re.I)


def _given(schema: Any, value: Any, found: Mentions, prompt: Prompt) -> Any:
    """`value` with what the conversation names (`arguments.fill`), then what earlier calls passed for the same
    parameters kept where the conversation names nothing for them; optional scalar parameters nothing gave
    dropped, as a model leaves the knobs it has no value for (Read's `offset` and `limit`) out."""
    # Each system message whole: Claude Code's, for a Claude model, names its working directory past 25,000 characters.
    systems = (m.text for m in prompt.messages if m.role in ("system", "developer"))
    cwd = next((given for text in systems if (given := _CWD.search(text))), None)
    filled, named = arguments.fill(schema, value, found, next(g for g in cwd.groups() if g) if cwd else "")
    if not isinstance(filled, dict) or not isinstance(schema, Mapping):
        return filled
    kept = loop.earlier_arguments(prompt)
    listed = schema.get("properties")
    properties: Mapping[str, Any] = listed if isinstance(listed, Mapping) else {}
    required = set(schema.get("required") or ()) if isinstance(schema.get("required"), list) else set()
    for name in list(filled):
        if name in named or name not in properties:
            continue
        if name in kept and _same_type(kept[name], value[name]):
            filled[name] = kept[name]
        elif name not in required and not isinstance(filled[name], dict | list):
            del filled[name]
    return filled


def _same_type(a: Any, b: Any) -> bool:
    return type(a) is type(b) and not isinstance(a, dict | list)


def _hints(writer: Writer, asked: Question | None) -> Hints:
    if asked is None or not (asked.names or asked.numbers or asked.topics):
        return writer.hints
    return replace(writer.hints, names=asked.names, numbers=asked.numbers, topic=asked.topic)


def _instance(schema: Any, writer: Writer, root: str, whose: str, asked: Question | None, *salt: object) -> Any:
    """`instance` with the writer's hints, its `SchemaError` the client's 400 (in OpenAI's words for an invalid
    schema)."""
    rng = writer.rng(root, "call", *salt) if salt else writer.rng(root, "json")
    try:
        return instance(schema, rng, _hints(writer, asked))
    except SchemaError as exc:
        param = "response_format" if whose == "response_format" else "tools"
        raise InvalidRequest(f"Invalid schema for {whose}: {exc}", param=param) from None
