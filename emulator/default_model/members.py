"""What an enumeration lists ("Name three fruits", "What are the planets?"): the members of common categories,
from lexicon/members.txt, all of a small ordered set or some of a large one."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from emulator.default_model.ask import Ask
from emulator.default_model.grammar import article, capital, is_plural, plural, singular
from emulator.default_model.lexicon import sections
from emulator.default_model.page import Page

Category = tuple[str, tuple[str, ...], bool]  # as the answer names it, its members, whether it names them all

_LEADING = re.compile(
    r"^(?:(?:\d+|one|two|three|four|five|six|seven|eight|nine|ten|twelve|some|a few|few|several|good|common|popular"
    r"|famous|different|main|best|great|well-known|the|kinds of|types of|examples of|an example of|example of"
    r"|a list of|list of|a|an)\s+)+"
)
_AFTER_HEAD = frozenset(("in", "of", "for", "that", "to", "from", "on", "with", "by"))  # what ends the head noun
_OWNED = re.compile(r"\b(?:our|your|my)\b")  # "the planets in our solar system" (said back as "your")
_NUMBERS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven", "twelve")


def _key(said: str) -> str:
    """A category as it is looked up: lower case, without counts and the words that only praise or pick it."""
    return _LEADING.sub("", _OWNED.sub("the", said.lower().replace("’", "'").strip(" ?.!")))


def _read() -> tuple[dict[str, Category], tuple[str, ...]]:
    read = sections("members")
    found: dict[str, Category] = {}
    for every in ("all", "some"):
        for line in read[every]:
            names, _, listed = line.partition(": ")
            said = [name.strip() for name in names.split("|")]
            category = (said[0], tuple(m.strip() for m in listed.split(", ")), every == "all")
            for name in said:
                found.setdefault(_key(name), category)
    return found, read["close"]


CATEGORIES, _CLOSES = _read()


@functools.lru_cache(maxsize=1024)
def members(said: str) -> Category | None:
    """The category `said` names ("three fruits", "the planets in our solar system", "a country in Africa"), if
    it is a known one."""
    if not said:
        return None
    key = _key(said)
    found = CATEGORIES.get(key)
    if found is None and key and _one(said):  # one of them: "a country in Africa", "an example of a mammal"
        found = CATEGORIES.get(_key(_headed(key, plural)))  # "a type of fruit" → "types of fruit" → "fruit"
    return found


def _headed(phrase: str, inflect: Callable[[str], str]) -> str:
    """`phrase` with its head noun (its last word before a preposition or "that") inflected: "country in Africa"
    → "countries in Africa" by `plural`."""
    words = phrase.split()
    head = next((i for i, w in enumerate(words) if i and w in _AFTER_HEAD), len(words)) - 1
    words[head] = inflect(words[head])
    return " ".join(words)


def one_of(category: str) -> str:
    """One member of `category`, as a noun: "fruits" → "fruit", "planets in the solar system" → "planet"."""
    words = category.split()
    head = next((i for i, w in enumerate(words) if i and w in _AFTER_HEAD), len(words)) - 1
    return singular(words[head])


def _one(said: str) -> bool:
    """Whether `said` asks for one member: "a country in Africa", "an example of a mammal"."""
    return said.lower().startswith(("a ", "an ", "one "))


def _wanted(ask: Ask) -> int:
    """How many members `ask` wants: the count it says, one for "a …", else 0 (as many as fit)."""
    return ask.count or (1 if _one(ask.task) else 0)


def asked(ask: Ask) -> Category | None:
    """The category a list `ask` names, if it is a known one: "three fruits", or "the colors" of "the rainbow"."""
    return members(ask.task) or members(f"{ask.other} of {ask.subject}" if ask.other else "")


def which(category: Category, ask: Ask) -> str:
    """The members asked for, in words: "the planets in the solar system", "three fruits", "some fruits"."""
    name, items, every = category
    count = _wanted(ask)
    if count == 1:
        return f"one {_headed(name, singular)}"
    if every and not (count and count < len(items)):
        return f"the {name}"
    return f"{number(count)} {name}" if count else f"some {name}"


def number(count: int) -> str:
    """A count as a list's opening says it: in words up to twelve, in digits past."""
    return _NUMBERS[count] if count < len(_NUMBERS) else str(count)


_MORE = "I can name a few more if you like."


def _countable(member: str) -> bool:
    """Whether a member is a plural one of many, to be said as "a …": "elephants", not "the Thames", "tennis" or
    "natural gas" (an -is, -us or -as ending is the word's own)."""
    if not member[:1].islower() or member.startswith("the ") or not is_plural(member):
        return False
    return member.endswith("s") and not member.endswith(("ss", "is", "us", "as", "ys", "os"))


def plan(ask: Ask) -> str:
    """What the answer will be, for the reasoning."""
    if _wanted(ask) == 1:
        return "One example, named in a sentence, fits."
    return "A short list of the members themselves fits, with nothing added to each."


def listed(page: Page, category: Category) -> str:
    """The answer that names the members asked for: all of a small ordered set, in order and numbered, or as many
    as asked (five if not said) of a large one."""
    name, items, every = category
    count = _wanted(page.ask)
    if count == 1:  # "Name a country in Africa": one, in a sentence
        one = items[0] if every else page.pick(items)
        said = article(singular(one)) if _countable(one) else one  # "an elephant", "basil", "the Thames"
        return f"{capital(said)} is {article(_headed(name, singular))}. {_MORE}"
    if every:
        chosen = list(items[:count] if count and count < len(items) else items)
        many = number(len(chosen))
        opening = f"There are {many} {name}:" if len(chosen) == len(items) else f"Here are {many} of the {name}:"
        lines = [f"{i}. {capital(item)}" for i, item in enumerate(chosen, 1)]
    else:
        chosen = [page.pick(items) for _ in range(min(count or 5, len(items)))]
        opening = f"Here are {number(len(chosen))} {name}:"
        lines = [f"- {capital(item)}" for item in chosen]
    return f"{opening}\n\n" + "\n".join(lines) + f"\n\n{page.pick(_CLOSES)}"
