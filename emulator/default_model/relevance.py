"""Which tools the default model calls on its own, under `tool_choice: auto`: those the question names.

A tool is relevant when the last message is the user's and a salient noun of it (not a verb such as create,
run, make or get) is among the words of the tool's name or of the first sentence of its description:
"What's the weather in Paris?" and `current_conditions`, "Current weather conditions for a city".

Never one that acts: an agent must not execute or write on generated input. Codex and Claude Code offer
such tools on every request, with long descriptions that mention almost every common word, so a tool named
like a shell, an exec, a patch, a write or an edit, or one with a parameter named like a command, a script,
code or file content, is never called by relevance; nor one taking a path or a prompt unless it only reads;
nor a custom (freeform) tool, whose input follows a grammar generated text would not.

Tools that only read local things (read, view, list, glob, grep, a lookup) are called when the user asks to
read, open, look at, list, find or search what they name, with the path or pattern they gave (`reading`).
A tool that reaches the network (web fetch, web search, an HTTP getter) is called only for a URL the user gave
on loopback. A structured-output library's single tool is called when the prompt asks to extract, classify or
answer in its shape (`extracting`).
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from emulator.core.conversation import Prompt, Tool
from emulator.default_model import forms, loop, mentions
from emulator.default_model.arguments import GIVEN_ONLY, SPECIFIC, file_kind, given, kind_of, of_file_kind
from emulator.default_model.mentions import Mentions, own_words
from emulator.default_model.question import Question, stem, words_of

MAX_CALLS = 4  # relevant tools called at once, with `parallel_tool_calls`
# A tool acts when its name has one of these words (or one starting `exec`), or its description opens with one
# ("Runs a command…", "Launch a new agent…", "Create a goal…"): it executes, writes or changes something.
_ACTING = """shell bash sh zsh powershell terminal exec execute eval run command cmd script patch apply write edit
    delete remove kill create update set send schedule cron launch spawn cancel stop start restart terminate
    enter exit move rename install deploy commit push post submit insert replace modify change save upload"""
# And when it takes one of these: what it would run or write; or, unless it only reads, where, or a prompt.
_ACTING_PARAMETERS = "command cmd script patch code content new_string old_string new_source cwd workdir"
_PLACE_PARAMETERS = "path file_path filepath notebook_path prompt"
ACTING, ACTING_PARAMETERS = frozenset(_ACTING.split()), frozenset(_ACTING_PARAMETERS.split())
PLACE_PARAMETERS = frozenset(_PLACE_PARAMETERS.split())
# A tool reads when its name has one of these words, or its description opens with one ("Reads a file…").
_READING = """read view list ls glob grep find search lookup cat show open get fetch query"""
READING = frozenset(_READING.split())
# It reaches the network when its name or its description's first sentence has one of these.
_NETWORK = """web http https url uri internet online browse browser download curl wget scrape"""
NETWORK = frozenset(_NETWORK.split())
# What the user asks a reading tool to do, by the verbs of the request, and the words of the tools that do it.
_ASKS_TO_READ = {
    "read": ("read open show view display cat print contain hold say inside look", "read view cat open show get"),
    "list": ("list ls", "list ls"),
    "find": ("find search grep locate look", "glob grep find search"),
    "fetch": ("fetch get curl download visit open read load check", "fetch get http request"),
}
_EXTRACTS = re.compile(
    r"\b(?:extract|classify|categori[sz]e|parse|label|tag|identify|structure|answer in|respond with|fill in)", re.I
)
_STRUCTURED = re.compile(r"\b(?:extracted|extract|structured output|response format|respond with|final output)", re.I)
_LOOPBACK = re.compile(r"^https?://(?:localhost|127(?:\.\d{1,3}){3}|\[::1\])(?::\d+)?(?:/|$)", re.I)
_NAME_WORDS = re.compile(r"[A-Z]?[a-z0-9]+|[A-Z]+(?![a-z])")  # `apply_patch`, `WebFetch`, `HTTPGet` → words
_FIRST_WORD = re.compile(r"[A-Za-z]+")
_EDGES = ".,;:!?\"'()`*"  # taken off a word's edges before it is read as a verb
_SAYS = re.compile(r"\b(?:does|do|did|will)\b[^?!\n]{0,80}\bsay\b|\bsays\b", re.I)
_THIS = re.compile(r"\b(?:this|these)\s+\w+", re.I)
_SENTENCE_END = re.compile(r"[.!?](?:\s|$)|\n")
FIRST_SENTENCE = 300  # characters of a description read at most
MAX_NAME = 128  # and of a name


def relevant(prompt: Prompt, question: Question, found: Mentions | None = None) -> tuple[Tool, ...]:
    """The tools `question` (the last message, the user's) names, in the request's order; none unless the
    choice is `auto` and the last message is the user's. A reading tool the user asks for (`reading`) or a
    structured-output tool (`extracting`) comes first."""
    if prompt.tool_choice.mode != "auto" or not prompt.tools or not prompt.messages:
        return ()
    last = loop.final(prompt)  # past a hand-off: the agent it went to answers the user's question
    if last is None or last.role != "user":
        return ()
    if chat(question):
        return ()
    tools = [t for t in prompt.tools if not handing_off(t)]
    if len(tools) < len(prompt.tools):
        to = None if loop.handed_off(prompt) else handing_to(prompt.tools, question, found or mentions.NONE)
        if to is not None:
            return (to,)
    most = MAX_CALLS if prompt.parallel_tool_calls else 1
    if found is not None:
        asked = reading(prompt, question, found) or extracting(prompt, question)
        if asked:
            return asked[:most]
    nouns = question.nouns
    if not nouns and found is None:
        return ()
    # Tools the question names by a noun; else those it gives every specific value of ("flights from Oslo to Rome"
    # names `search_flights`, and gives `find_hotels` its city: the flights are asked for, not the hotels).
    functions = [t for t in tools if t.kind == "function"]
    named = [t for t in functions if _named(t, nouns)] or [t for t in functions if found and fits(t, found)]
    loopback = bool(found and found.urls and all(_LOOPBACK.match(u) for u in found.urls))
    kept = (t for t in named if not acts(t) and (loopback or not network(t)))
    return tuple(t for t in kept if found is None or not _lacks(t, found))[:most]


def chat(question: Question) -> bool:
    """Whether `question` is a greeting or small talk ("say hi", "Hey, how are you?", "Thanks!"): no tool serves
    it, whatever words it shares with one."""
    return bool(question.text.strip()) and forms.read(question).form == "greeting"


def handing_off(tool: Tool) -> bool:
    """Whether `tool` hands the conversation to another agent (`loop.handing_off`: `transfer_to_billing`)."""
    return tool.kind == "function" and loop.handing_off(tool.name, tool.description)


def handing_to(tools: Sequence[Tool], question: Question, found: Mentions) -> Tool | None:
    """The hand-off tool whose agent the question is for: the one whose name and whole description (the agent's
    own, past the SDK's "Handoff to the X agent to handle the request.") share the most nouns with the question,
    or name its domain (`_DOMAINS`: currencies, arithmetic); None when none does."""
    nouns = set(question.nouns)
    for words, holds in _DOMAINS:
        if holds(question.text[:2000], found):
            nouns |= words
    best, most = None, 0
    for tool in tools:
        if not handing_off(tool):
            continue
        shared = len(nouns & _handoff_words(tool.name[:MAX_NAME], tool.description[:HANDOFF_DESCRIPTION]))
        if shared > most:
            best, most = tool, shared
    return best


HANDOFF_DESCRIPTION = 800  # characters of a hand-off tool's description read at most
# Words of every hand-off tool's name and description: they tell no agent's domain from another's.
_DULL_HANDOFF = """handoff hand off transfer delegate route escalate agent specialist expert assistant request question
    answer user conversation handle task help"""
_MONEY, _MATHS = "currency money exchange finance payment", "math maths mathematic arithmetic calculation calculator"
HANDOFF_DULL = frozenset(_DULL_HANDOFF.split())
_ARITHMETIC = re.compile(
    r"\d\s*(?:[-+*/×÷^%]|times|plus|minus|divided by|percent)\s*\d|\b(?:sum|product|percent)", re.I
)
# What a question's values say of its domain, for a hand-off: currencies are money, sums are maths.
_DOMAINS: tuple[tuple[frozenset[str], Callable[[str, Mentions], bool]], ...] = (
    (frozenset(_MONEY.split()), lambda _, found: bool(found.currencies)),
    (frozenset(_MATHS.split()), lambda text, _: bool(_ARITHMETIC.search(text))),
)


def acts(tool: Tool) -> bool:
    """Whether `tool` executes, writes or changes something: by its name, its description's first word, or its
    parameters' names (see `ACTING`): a path or a prompt counts unless the tool only reads or fetches."""
    if tool.kind == "custom" or _acting(*_read(tool)):
        return True
    properties = (tool.parameters or {}).get("properties")
    if not isinstance(properties, Mapping):
        return False
    names = set(map(_lower, properties))
    if not ACTING_PARAMETERS.isdisjoint(names):
        return True
    return not PLACE_PARAMETERS.isdisjoint(names) and not (reads(tool) or network(tool))


def reads(tool: Tool) -> bool:
    """Whether `tool` only reads: its name, or its description's first word, is a reading one (`READING`), and
    nothing in it acts."""
    return tool.kind == "function" and _reading(*_read(tool))


def network(tool: Tool) -> bool:
    """Whether `tool` reaches the network: its name or its description's first sentence says so (`NETWORK`),
    or it takes a URL."""
    properties = (tool.parameters or {}).get("properties")
    takes_url = isinstance(properties, Mapping) and not {"url", "uri"}.isdisjoint(map(_lower, properties))
    return takes_url or _networked(*_read(tool))


def reading(prompt: Prompt, question: Question, found: Mentions) -> tuple[Tool, ...]:
    """The reading tool the user asks for: they ask to read, list or find, name a path or a pattern, and the
    tool does that (by its name) and takes a path or a pattern; a network one only for a loopback URL."""
    said = [w.strip(_EDGES) for w in own_words(question.text).split()[:400]]
    verbs = {w.lower() for w in said} | {stem(w) for w in said}
    if "say" in verbs and not _SAYS.search(question.text[:2000]):
        verbs -= {"say", "says"}  # "say hi" asks nothing to be read; "what does notes.txt say?" does
    loopback = bool(found.urls) and all(_LOOPBACK.match(u) for u in found.urls)
    for job, (asked, doing) in _ASKS_TO_READ.items():
        if verbs.isdisjoint(asked.split()) and not (job == "read" and "what's in" in question.text.lower()):
            continue
        for tool in prompt.tools:
            if not reads(tool) and not (loopback and network(tool)) or acts(tool):
                continue
            if network(tool) and not loopback:
                continue
            name = {w.lower() for w in _NAME_WORDS.findall(tool.name)}
            kinds = _kinds(tool)
            if network(tool) and loopback and "url" in kinds:
                return (tool,)
            if name.isdisjoint(doing.split()):
                continue
            if (
                "path" in kinds
                and of_file_kind(found.paths, file_kind(*_read(tool)))
                and job != "find"
                or "pattern" in kinds
                and (found.patterns or found.quoted)
            ):
                return (tool,)
    return ()


def extracting(prompt: Prompt, question: Question) -> tuple[Tool, ...]:
    """A structured-output library's tool (instructor, LangChain's `with_structured_output`): the only tool, or
    tools none of which acts, reads or reaches the network, when the prompt asks to extract, classify or
    answer in their shape, or the tool says it holds what is extracted."""
    tools = prompt.tools
    if any(t.kind != "function" or acts(t) or network(t) or reads(t) or handing_off(t) for t in tools):
        return ()
    system = " ".join(m.text[:2000] for m in prompt.messages if m.role in ("system", "developer"))
    asked = _EXTRACTS.search(own_words(question.text[:8000])) or _EXTRACTS.search(system)
    if len(tools) == 1 and (asked or _STRUCTURED.search(tools[0].description[:600])):
        return tools
    return tools[:1] if asked and len(tools) <= MAX_CALLS else ()


def _named(tool: Tool, nouns: frozenset[str]) -> bool:
    return bool(nouns) and not nouns.isdisjoint(_words(*_read(tool)))


# What a tool called by relevance must be given: a place or a currency the question does not name is not the
# question's ("Why does the weather change near mountains?" asks no forecast of a made-up city).
NAMED_ONLY = GIVEN_ONLY | {"city", "country", "currency"}


def _lacks(tool: Tool, found: Mentions) -> bool:
    """Whether `tool` needs a value the conversation does not give and no one should make up (a path, a URL, an
    email, an id: `arguments.GIVEN_ONLY`; a place, a currency)."""
    kinds = _required_kinds(tool)
    named = {"city", "country"} if found.people else set()  # a place the gazetteer lacks reads as a proper name
    return any(k in NAMED_ONLY and k not in named and not given(k, found) for k in kinds)


def _required_kinds(tool: Tool) -> list[str]:
    schema = tool.parameters or {}
    properties = schema.get("properties")
    if not isinstance(properties, Mapping):
        return []
    required = schema.get("required")
    names = [n for n in required if n in properties] if isinstance(required, list) and required else list(properties)
    return [kind_of(str(n), properties[n]) for n in names if isinstance(properties[n], Mapping)]


def fits(tool: Tool, found: Mentions) -> bool:
    """Whether the conversation gives what `tool` needs: a value for each of its required parameters of a
    specific kind (a currency, a city, a date, an email, an id…; `arguments.SPECIFIC`), at least one of them."""
    specific = [k for k in _required_kinds(tool) if k in SPECIFIC]
    return bool(specific) and all(given(k, found) for k in specific)


def _kinds(tool: Tool) -> set[str]:
    properties = (tool.parameters or {}).get("properties")
    if not isinstance(properties, Mapping):
        return set()
    return {kind_of(str(n), s) for n, s in properties.items() if isinstance(s, Mapping)}


def _read(tool: Tool) -> tuple[str, str]:
    """What relevance reads of a tool: its name and its description's first sentence, both bounded, so that the
    caches keyed by them stay small whatever a request sends."""
    description = tool.description[: FIRST_SENTENCE + 16].lstrip(" -*#\n")
    end = _SENTENCE_END.search(description, 0, FIRST_SENTENCE)
    return tool.name[:MAX_NAME], description[: end.start() if end else FIRST_SENTENCE]


def _lower(name: Any) -> str:
    return name.lower() if isinstance(name, str) else ""


@functools.lru_cache(maxsize=1024)
def _acting(name: str, first: str) -> bool:
    words = {w.lower() for w in _NAME_WORDS.findall(name)}
    opening = _FIRST_WORD.search(first)
    words |= {stem(opening.group())} if opening else set()
    return not ACTING.isdisjoint(words) or any(w.startswith("exec") for w in words)


@functools.lru_cache(maxsize=1024)
def _reading(name: str, first: str) -> bool:
    words = {w.lower() for w in _NAME_WORDS.findall(name)}
    opening = _FIRST_WORD.search(first)
    return not READING.isdisjoint(words | ({stem(opening.group())} if opening else set())) and not _acting(name, first)


@functools.lru_cache(maxsize=1024)
def _networked(name: str, first: str) -> bool:
    words = {w.lower() for w in _NAME_WORDS.findall(name)} | {w.lower() for w in _FIRST_WORD.findall(first)}
    return not NETWORK.isdisjoint(words)


@functools.lru_cache(maxsize=256)
def _handoff_words(name: str, description: str) -> frozenset[str]:
    return (words_of(" ".join(_NAME_WORDS.findall(name))) | words_of(description)) - HANDOFF_DULL


@functools.lru_cache(maxsize=1024)
def _words(name: str, first: str) -> frozenset[str]:
    """The salient words of a tool's name and of its description's first sentence, stemmed; cached, since an
    agent sends the same tools on every request. What the description points at with "this" (Codex's `get_goal`:
    "the current goal for this thread") is the agent's own session, not a subject the user can name."""
    return words_of(" ".join(_NAME_WORDS.findall(name))) | words_of(_THIS.sub(" ", first))
