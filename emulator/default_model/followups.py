"""The conversation as input: a follow-up works on the previous answer, and what the user said of themselves is
recalled.

`answer` reads the last user message against the turns before it: "make it shorter", "simpler", "as a list", "in
JSON", "in one sentence" rework the assistant's last answer (whole sentences of it, never a copy for "shorter");
"what's my name?", "where did I say I live?" are answered from what the user stated ("My name is Priya", "I live in
Porto"), or with an honest line where they stated nothing. None when the message is no follow-up. Pure.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

from emulator.core.conversation import Message
from emulator.default_model import corrections, directives

# A follow-up on the previous answer: what it asks for, by the words it is said in.
_REWORK = (
    (
        "list",
        re.compile(r"\b(?:as|in|into|make it|turn (?:it|that) into) (?:a )?(?:bullet(?:ed)? )?(?:list|bullets)\b"),
    ),
    ("json", re.compile(r"\b(?:as|in|into) json\b|\bjson (?:format|please)\b")),
    ("sentence", re.compile(r"\b(?:in|as) (?:one|a single) sentence\b")),
    (
        "simpler",
        re.compile(r"\b(?:simpler|more simply|simplify (?:it|that)|plain(?:er)? (?:words|english)|like i'?m five)\b"),
    ),
)
_BACK = re.compile(r"\b(?:it|that|this|be|your (?:answer|reply))\b")  # a follow-up speaks of the answer before
# A short follow-up asking for less of the same.
_SHORT_WORDS = ("shorter", "too long", "more concise", "briefer", "tl;dr", "tldr", "summarize it", "summarise it")
# What the user may state about themselves: the fact's name, the pattern that finds its value.
_NAMED = r"([A-Z][\w'-]*(?:[ ,]+[A-Z][\w'-]*)*)"  # a proper name as written: capitalized words
_STATED = (
    ("name", re.compile(r"\b(?i:my name is|my name's|i'?m called|call me)\s+([A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?)")),
    ("name", re.compile(r"\b(?i:i am|i'm)\s+([A-Z][a-z]+)(?=[.,!]|\s+and\b|\s*$)")),
    ("home", re.compile(r"\b(?i:i live in|i am based in|i'm based in|i'm from|i am from)\s+" + _NAMED)),
    ("age", re.compile(r"\b(?i:i'm|i am)\s+(\d{1,3})(?: years old\b|\b)")),
    ("job", re.compile(r"\b(?i:i work as|i am|i'm)\s+(an? [a-z][a-z -]{2,40}?)(?=[.,!]|\s+(?:and|at|in|for)\b|$)")),
    ("pet", re.compile(r"\b(?i:my (?:dog|cat|pet)(?:'s name)? is)\s+(?:called |named )?([A-Z][\w'-]*)")),
    ("pet", re.compile(r"\b(?i:my (?:dog|cat|puppy|kitten|pet)),?\s+(?:(?i:called|named)\s+)?([A-Z][\w'-]*)")),
    ("pet", re.compile(r"\b(?i:i have an? (?:dog|cat|puppy|kitten) (?:called|named))\s+([A-Z][\w'-]*)")),
    ("colour", re.compile(r"\b(?i:my favou?rite colou?r is)\s+([a-z]+)", re.IGNORECASE)),
)
# A question about what the user stated: the fact it asks for.
_RECALL = (
    (
        "name",
        re.compile(
            r"\b(?:what(?:'s| is| was) my name|who am i|do you (?:know|remember) my name"
            r"|what did i say my name (?:is|was)|what am i called)\b"
        ),
    ),
    (
        "home",
        re.compile(
            r"\b(?:where do i live|where am i from|where did i say i (?:live|am from)|where (?:am i|i'm) based"
            r"|(?:which|what) (?:city|town|country) (?:do i live in|did i say i live in|am i from|did i say))\b"
        ),
    ),
    ("age", re.compile(r"\b(?:how old am i|what(?:'s| is) my age|how old did i (?:say|tell you))\b")),
    ("job", re.compile(r"\b(?:what(?:'s| is) my (?:job|work|profession)|what do i do for (?:a living|work))\b")),
    (
        "pet",
        re.compile(
            r"\b(?:what(?:'s| is|'s the name of| is the name of) my (?:dog|cat|pet|puppy|kitten)"
            r"(?:'s name| called| named)?)\b"
        ),
    ),
    ("colour", re.compile(r"\b(?:what(?:'s| is) my favou?rite colou?r)\b")),
)
_SAID = {
    "name": "Your name is {}.",
    "home": "You said you live in {}.",
    "age": "You said you are {}.",
    "job": "You said you work as {}.",
    "pet": "Your pet is called {}.",
    "colour": "You said your favourite colour is {}.",
}
_UNSAID = {
    "name": "You haven't told me your name in this conversation.",
    "home": "You haven't said where you live in this conversation.",
    "age": "You haven't told me your age in this conversation.",
    "job": "You haven't said what you do for work in this conversation.",
    "pet": "You haven't told me your pet's name in this conversation.",
    "colour": "You haven't said what your favourite colour is in this conversation.",
}


def answer(messages: Sequence[Message]) -> str | None:
    """The answer a follow-up gets from the turns before it; None when the last user message is none."""
    if not messages or messages[-1].role != "user":
        return None
    asked = messages[-1].text.strip()
    low = asked.lower()
    for fact, pattern in _RECALL:
        if pattern.search(low):
            known = stated(messages[:-1]).get(fact)
            return _SAID[fact].format(known) if known else _UNSAID[fact]
    if len(asked) > 160:  # a follow-up is a short ask; a long message is a task of its own
        return None
    previous = next((m.text for m in reversed(messages[:-1]) if m.role == "assistant" and m.text.strip()), "")
    if not previous:
        return None
    if len(low) < 80 and any(w in low for w in _SHORT_WORDS) and (_BACK.search(low) or len(low.split()) <= 3):
        return rework("shorter", previous)
    for kind, pattern in _REWORK:
        if pattern.search(low):
            return rework(kind, previous, _KEYS.findall(low.split("keys", 1)[1]) if "keys" in low else ())
    return None


def stated(messages: Sequence[Message]) -> dict[str, str]:
    """What the user said of themselves, the latest saying of each fact kept."""
    found: dict[str, str] = {}
    for message in messages:
        if message.role != "user":
            continue
        for fact, pattern in _STATED:
            for match in pattern.finditer(message.text):
                value = next(g for g in match.groups() if g)
                found[fact] = value.strip(" ,.")
    return found


def rework(kind: str, previous: str, keys: Sequence[str] = ()) -> str:
    """The previous answer, reworked as asked; `keys` are the keys a JSON rework names."""
    said = directives.sentences(previous) or [previous.strip()]
    if kind == "shorter":
        keep = max(1, len(said) // 3) if len(said) > 1 else 1
        short = " ".join(said[:keep])
        if len(short.split()) >= len(previous.split()):  # one sentence already: its first half, closed
            words = short.split()
            short = " ".join(words[: max(3, len(words) // 2)]).rstrip(",;:") + "."
        return short
    if kind == "sentence":
        return said[0]
    if kind == "list":
        points = said if len(said) > 2 else _clauses(" ".join(said)) or said
        return "\n".join(f"- {p}" for p in points)
    if kind == "json":
        if keys:  # "as JSON with keys distance_km and diameter_km": each valued from the answer's own words
            valued = {k: _figure(k, said) for k in keys}
            left = [f for f in _figures(" ".join(said)) if f not in valued.values()]  # in order, for keys unmatched
            valued = {k: left.pop(0) if v is None and left else v for k, v in valued.items()}
            return json.dumps(valued, ensure_ascii=False, indent=2)
        return json.dumps({"answer": " ".join(said), "points": said}, ensure_ascii=False, indent=2)
    simpler = [s for s in said if len(s.split()) <= 25] or said[:1]
    return "Put simply: " + corrections.simpler(" ".join(simpler[:3]))


_KEYS = re.compile(r"\b([a-z][a-z0-9]*(?:_[a-z0-9]+)+|(?!and\b|or\b)[a-z]{2,})\b")
_FIGURE = re.compile(r"\d[\d,]*(?:\.\d+)?")
_CLAUSE = re.compile(r",\s+(?:and\s+)?|;\s+")


def _figure(key: str, said: Sequence[str]) -> object:
    """The number the answer gives for `key` ("distance_km": the figure in the sentence about distance), or the
    sentence itself for a key no figure answers; None where no sentence speaks of it."""
    words = [w for w in key.lower().split("_") if len(w) > 2]
    for sentence in said:
        low = sentence.lower()
        if words and words[0] in low:
            after = low[low.index(words[0]) :]
            found = _FIGURE.search(after) or _FIGURE.search(low)
            if found is None:
                return sentence
            return _number(found.group())
    return None


def _figures(text: str) -> list[float | int]:
    return [_number(f) for f in _FIGURE.findall(text)]


def _number(said: str) -> float | int:
    value = said.replace(",", "")
    return float(value) if "." in value else int(value)


def _clauses(sentence: str) -> list[str]:
    """A long sentence's parts, for a list: "plan your meals, write a list and stick to it, buy store brands"."""
    parts = [p.strip(" .") for p in _CLAUSE.split(sentence) if p.strip(" .")]
    return [p[:1].upper() + p[1:] for p in parts] if len(parts) >= 3 else []
