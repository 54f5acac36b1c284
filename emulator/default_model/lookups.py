"""Questions of fact an offline model looks up rather than answers, read for what they name: the most of
something ("Which ocean is the deepest?" → the deepest ocean) and the clock ("What time is it in Tokyo?" → the
current time in Tokyo); and how a short question names what it asks about ("the Berlin Wall", "the first
iPhone"). `forms` asks these in its readings of a question."""

from __future__ import annotations

import re

from emulator.default_model.question import Question

_I = re.I


def clock(text: str, low: str) -> str:
    """What a question about the time or the date asks for ("the current time in Tokyo"), or ""."""
    m = _CLOCK.match(text) if low.startswith(("what time", "what day", "what's the date", "what is the date")) else None
    if m is None:
        return ""
    when = (m["t"] or m["d"]).lower()
    return f"the current {when}{' in ' + m['p'] if m['p'] else ''}"


_CLOCK = re.compile(
    r"(?:what (?P<t>time|day) is it|what(?:'s| is) the (?P<d>date))(?: (?:now|right now|today))?"
    r"(?: (?:in|at) (?P<p>.+?))?(?: (?:now|right now|today))?[.?!]*$",
    _I,
)


def superlative(text: str, low: str) -> str:
    """What a question about the most of something asks for, named: "Which planet is the largest?" → "the
    largest planet", "Which is the longest river in Africa?" → "the longest river in Africa", "Which country has
    the most people?" → "the country with the most people", "What is the tallest building in Asia?" → "the
    tallest building in Asia"; "" for any other question ("What is the best way to learn?" asks for steps)."""
    if not low.startswith(("which ", "what ")):
        return ""
    m = _WHICH_IS.match(text)
    if m and _most(m["a"]):
        return f"the {m['a']} {m['n']}{m['r']}"
    m = _WHICH_HAS.match(text)
    if m:
        return f"the {m['n']} with the {m['x']}"
    m = _IS_THE.match(text)
    if m and (_most(m["a"]) and text[:5].lower() == "which" or m["a"].lower() in _MEASURED):
        return f"the {m['a']} {m['n']}"
    return ""


def _most(word: str) -> bool:
    """Whether `word` is a superlative: "largest", "most populous" ("most" and its adjective), "best"."""
    low = word.lower()
    if low.startswith(("most ", "least ")) or low in ("best", "worst"):
        return True
    return len(low) > 5 and low.endswith("est") and low not in _NOT_SUPERLATIVE


# Words ending in -est that are no superlative, and superlatives of what can be measured: a question about the
# tallest or the oldest of something is a question of fact, where "the best way…" or "the easiest recipe" is not.
_NOT_SUPERLATIVE = frozenset(("interest", "forest", "harvest", "protest", "request", "contest", "suggest", "digest"))
_NOT_SUPERLATIVE |= {"modest", "honest", "earnest", "invest", "arrest", "manifest", "conquest", "bequest"}
_MEASURED = frozenset(
    [
        "largest", "biggest", "smallest", "tallest", "highest", "lowest", "longest", "shortest", "deepest",
        "oldest", "youngest", "newest", "fastest", "slowest", "hottest", "coldest", "heaviest", "lightest",
        "richest", "poorest", "busiest", "widest", "driest", "wettest", "farthest", "furthest", "nearest",
        "closest", "brightest", "loudest", "strongest", "most populous", "most visited", "most spoken",
        "least populated", "most common", "rarest"
    ]
)  # fmt: skip
_SIZE = r"(?:most|least) [a-z]+|[a-z]+est|best|worst"
_WHICH_IS = re.compile(
    rf"which (?P<n>(?:[a-z]+ ){{0,2}}[a-z]+) (?:is|are|was|were) the (?P<a>{_SIZE})"
    r"(?P<r>(?: (?:in|on|of|at) .+?)?)[.?!]*$",
    _I,
)
_WHICH_HAS = re.compile(
    r"which (?P<n>(?:[a-z]+ ){0,2}[a-z]+) (?:has|have|had) the (?P<x>(?:most|least|fewest|highest|lowest|largest"
    r"|biggest|smallest) .+?)[.?!]*$",
    _I,
)
_IS_THE = re.compile(rf"(?:which|what) (?:is|are|was|were) the (?P<a>{_SIZE}) (?P<n>[a-z].+?)[.?!]*$", _I)


def named(q: Question) -> str:
    """The names a short question asks about, as written with what joins them: "the Berlin Wall"."""
    if not q.names:
        return ""
    found = re.search(re.escape(q.names[0]) + r"(?:.*" + re.escape(q.names[-1]) + ")?", q.text)
    if not found or len(found.group().split()) > 6:
        return ""
    before = re.search(r"(\w+)\s+" + re.escape(found.group()), q.text)
    if before and before.group(1).lower() == "the":
        return f"the {found.group()}"
    return found.group()


def topic_named(topic: str) -> str:
    """A short question's topic as a reader would name it: no code marks, no closing participle ("first iPhone
    released" → "the first iPhone")."""
    words = topic.replace("`", "").split()
    if len(words) > 1 and words[-1].endswith("ed") and words[-1].islower():
        words = words[:-1]
    if words and words[0].lower() in ("first", "last", "largest", "biggest", "oldest", "tallest", "best"):
        words = ["the", *words]
    return " ".join(words)
