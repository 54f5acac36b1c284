"""The output formats agent frameworks ask for, recognised by their markers and written the way each one parses.

One table (`protocols.txt`, read once) says how each protocol is recognised: a plain needle, then expressions
the system prompt or the last user message must (or must not) hold; `WRITERS` says who writes it. The first
entry that matches writes the answer (ReAct's Thought/Action, smolagents' code blocks, DSPy's `[[ ## field ## ]]`
sections, aider's edits, JSON with the keys asked for, an answer in the tags asked for). A writer may still
decline (None): the default then answers as it would have. Everything here reads the canonical `Prompt`, so it
holds in Chat, Responses and Messages alike, streamed or not.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from importlib import resources

from emulator.core.conversation import Prompt, frozen
from emulator.default_model.asked import Asked, Call, Writer
from emulator.default_model.prose import Dice


@frozen
class Entry:
    """One protocol of the table: its name, needles (any), expressions (all, none), and data for its writer;
    `line` and `start` (one may be given) say where its `all` expressions can match (see protocols.txt)."""

    name: str
    needles: tuple[str, ...]
    required: tuple[re.Pattern[str], ...]
    refused: tuple[re.Pattern[str], ...]
    data: Mapping[str, tuple[str, ...]]
    line: tuple[str, ...] = ()
    start: re.Pattern[str] | None = None


def _load(text: str) -> tuple[Entry, ...]:
    entries = []
    for chunk in text.split("\n=== ")[1:]:
        name, *lines = chunk.strip("\n").split("\n")
        values: dict[str, list[str]] = {}
        for line in lines:
            key, _, value = line.partition(": ")
            if value and not key.startswith("#"):
                values.setdefault(key.strip(), []).append(value)
        needles = tuple(values.pop("needle", ()))
        required = tuple(re.compile(v, re.M) for v in values.pop("all", ()))
        refused = tuple(re.compile(v, re.M) for v in values.pop("none", ()))
        marked = tuple(values.pop("line", ()))
        start = "".join(values.pop("start", ()))
        starts = re.compile(f"(?={re.escape(start)})", re.I) if start else None  # each place, overlapping too
        data = {k: tuple(v) for k, v in values.items()}
        entries.append(Entry(name.strip(), needles, required, refused, data, marked, starts))
    return tuple(entries)


@functools.cache
def table() -> tuple[Entry, ...]:
    """The protocols, in the order they are tried: `protocols.txt`, read once."""
    return _load(resources.files("emulator.default_model").joinpath("protocols.txt").read_text(encoding="utf-8"))


@functools.cache
def _needles() -> re.Pattern[str] | None:
    """Every entry's needles as one expression, so that a prompt holding none is passed over in one search; None
    when an entry has no needle (it is tried on every prompt)."""
    entries = table()
    if not all(e.needles for e in entries):
        return None
    return re.compile("|".join(re.escape(n) for e in entries for n in e.needles))


def texts(prompt: Prompt) -> tuple[str, ...]:
    """Where markers are looked for: the system (and developer) prompts, then the last user message (as
    `Prompt.last_user_text`, found in the same pass)."""
    system, user = [], ""
    for m in prompt.messages:
        if m.role == "user":
            user = m.text
        elif m.role in ("system", "developer") and m.text:
            system.append(m.text)
    return (*system, user)


def recognise(prompt: Prompt) -> tuple[Entry, tuple[re.Match[str], ...]] | None:
    """The first protocol whose markers `prompt` holds, with what its expressions matched; None for none."""
    said = texts(prompt)
    whole = "\n".join(said)
    needles = _needles()
    if needles is not None and needles.search(whole) is None:
        return None  # most requests: no entry's needle, found in one search rather than one per entry
    for entry in table():
        if prompt.tools and entry.data.get("tools") == ("none",):
            continue
        if entry.needles and not any(n in whole for n in entry.needles):
            continue
        found = [_search(p, said, entry) for p in entry.required]
        if all(found) and not any(_search(p, said) for p in entry.refused):
            return entry, tuple(m for m in found if m is not None)
    return None


def _search(pattern: re.Pattern[str], said: Iterable[str], where: Entry | None = None) -> re.Match[str] | None:
    """`pattern`'s first match in the first of `said` that has one; where `where` says matches can only be (its
    `line` or `start`), searched only there, for the match a search of the whole text finds."""
    for text in said:
        at: Iterator[re.Match[str] | None]
        if where is not None and where.start is not None:
            at = (pattern.match(text, s.start()) for s in where.start.finditer(text))
        elif where is not None and where.line:
            at = (pattern.search(text, lo, hi) for lo, hi in _lines(text, where.line))
        else:
            at = iter((pattern.search(text),))
        if (m := next((m for m in at if m is not None), None)) is not None:
            return m
    return None


def _lines(text: str, needles: tuple[str, ...]) -> Iterator[tuple[int, int]]:
    """Where each line of `text` that holds one of `needles` starts and ends, in order, each line once. A search
    from a line's start to its end sees the characters around it as a search of the whole text does (`^`, `$` and
    `\\b` alike)."""
    spans = set()
    for needle in needles:
        at = text.find(needle)
        while at >= 0:
            end = text.find("\n", at)
            end = len(text) if end < 0 else end
            spans.add((text.rfind("\n", 0, at) + 1, end))
            at = text.find(needle, end)
    yield from sorted(spans)


def answer(prompt: Prompt, writer: Writer, dice: Dice, call: Call) -> str | None:
    """The answer in the format the prompt asks for, or None when it asks for none this module writes."""
    recognised = recognise(prompt)
    if recognised is None:
        return None
    entry, found = recognised
    asked = Asked(prompt, texts(prompt), found, entry.data, dice, writer, call)
    return writers()[entry.name](asked)


@functools.cache
def writers() -> Mapping[str, Callable[[Asked], str | None]]:
    """Each protocol's writer, by the table's names (imported here: the writers import this module)."""
    from emulator.default_model import aider_edits, code_agent, keyed, marked_fields, react, titles

    return {
        "dspy-json": marked_fields.json_fields,
        "dspy-chat": marked_fields.chat,
        "smolagents-code": code_agent.write,
        "smolagents-structured": code_agent.structured,
        "aider-diff": aider_edits.search_replace,
        "aider-whole": aider_edits.whole,
        "aider-udiff": aider_edits.udiff,
        "react": react.write,
        "xml-tags": keyed.tagged,
        "json-keys": keyed.json_keys,
        "json-asked": keyed.json_keys,  # the same writer: it reads keys named as keys or as nouns in prose
        "title": titles.title,
    }
