"""The default model's edits of the user's own text: a summary, a clearer or a formal rewrite, and a translation
it declines to invent."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence

from emulator.default_model.grammar import capital
from emulator.default_model.page import FRAMES, Page

_SENTENCE = re.compile(r"(?<=[.!?])\s+")


_FACTUAL = re.compile(r"\d|\b(?:percent|agreed|decided|will|must|grew|fell|rose)\b", re.I)  # what a summary keeps


def summarize(page: Page, places: Sequence[str]) -> str:
    said = [s.strip() for s in _SENTENCE.split(page.ask.source) if s.strip()]
    keep = max(1, (len(said) + 1) // 2)
    ranked = sorted(range(len(said)), key=lambda i: (i != 0, not _FACTUAL.search(said[i]), i))
    chosen = [said[i] for i in sorted(ranked[:keep])]
    return "In short: " + " ".join(chosen)


@functools.lru_cache(maxsize=4)
def _table(name: str) -> tuple[re.Pattern[str], dict[str, str]]:
    """The replacements of frames' section `name` (and the plain rewrites), as one pattern and its table."""
    lines = FRAMES[name] + FRAMES["rewrite"] if name != "rewrite" else FRAMES["rewrite"]
    table: dict[str, str] = {}
    for line in lines:
        wrong, _, right = line.partition(" -> ")
        table.setdefault(wrong.lower(), right)
    words = sorted(table, key=len, reverse=True)
    return re.compile(r"(?<![\w'])(?:" + "|".join(map(re.escape, words)) + r")(?![\w'])", re.I), table


def _replaced(text: str, name: str) -> str:
    pattern, table = _table(name)
    return pattern.sub(lambda m: table[m.group().lower()], " ".join(text.split()))


def _fixed(text: str) -> str:
    sentences = [capital(s.strip()) for s in _SENTENCE.split(_replaced(text, "rewrite")) if s.strip()]
    return " ".join(s if s[-1] in ".!?" else s + "." for s in sentences)


def rewrite(page: Page, places: Sequence[str]) -> str:
    return f"Here is a clearer version:\n\n{_fixed(page.ask.source)}"


_CLAUSE = re.compile(r"[^,.!?;]+[,.!?;]*")
_SUBJECTLESS = re.compile(r"^(?:cannot|can|will|would|need|want|have to|must|should|could|hope|think|am)\b|^going to\b")
_POLITE = re.compile(r"^(?:can|could|will|would) (?=you\b|we\b|I\b)", re.I)
_ASKING = re.compile(r"^(?:do|does|did|is|are|was|were|could|would|should|may|might|have|has|shall) ", re.I)
# Chat drops the object before a time: "can we do tomorrow" means "can we do it tomorrow".
_ELIDED = re.compile(
    r"\b(do|make|move|push|finish|send|schedule) (today|tomorrow|tonight|later|next week|this week|"
    r"Monday|Tuesday|Wednesday|Thursday|Friday|Saturday|Sunday)\b"
)
_GREETINGS = frozenset(("hello", "good morning", "good afternoon", "good evening"))


def _formal_clause(clause: str) -> str:
    """One clause of a chat message as a formal sentence with its subject and its mark: "can u send it?" →
    "Could you send it?", "feeling sick" → "I am feeling sick.", "will check email though" → "I will check
    email, though."."""
    asking = clause.endswith("?")
    clause = clause.rstrip(",.!?; ").strip()
    clause = clause[:1].lower() + clause[1:] if not clause.startswith("I ") else clause
    clause = _ELIDED.sub(r"\1 it \2", clause)
    if _POLITE.match(clause):
        asking = True
        clause = "could " + clause.split(" ", 1)[1]
    elif asking and not _ASKING.match(clause):
        asking = False  # "tomorrow?": a statement of the time meant, not a question
    elif clause.startswith("going to"):
        clause = f"I am {clause}"
    elif _SUBJECTLESS.match(clause):
        clause = f"I {clause}"
    elif re.match(r"^\w+ing\b", clause) and not clause.startswith(("thing", "nothing", "something", "morning")):
        clause = f"I am {clause}"
    clause = re.sub(r"\s+though$", ", though", clause)
    return capital(clause) + ("?" if asking else ".")


def formal(page: Page, places: Sequence[str]) -> str:
    """The user's message in a formal register: slang, abbreviations and contractions expanded, each clause a
    sentence with its subject, a question kept a (polite) question, no exclamation marks."""
    text = re.sub(r"^(Hello|Good \w+)\s+(?=\w)", r"\1, ", _replaced(page.ask.source, "formal"))
    text = re.sub(r"\bI apologize\s+(?=\w)", "I apologize, ", text)  # "sorry can't come": two sentences
    clauses = [c.strip() for c in _CLAUSE.findall(text) if c.strip(" ,.!?;")]
    said = [_formal_clause(c) for c in clauses]
    if len(said) > 1 and said[0][:-1].lower() in _GREETINGS:  # "Hello, I cannot make it.": one sentence
        said[:2] = [f"{said[0][:-1]}, {said[1][:1].lower() + said[1][1:] if not said[1].startswith('I ') else said[1]}"]
    return "Here is a more formal version:\n\n" + " ".join(said)


def translate(page: Page, places: Sequence[str]) -> str:
    phrase, language = page.ask.source, page.ask.language
    return (
        f'You asked for "{phrase}" in {language}. This emulator answers offline without a language model, so it '
        f"does not translate text, and it will not invent {language} words that might be wrong. A dictionary or a "
        f"translation service will give you the exact {language} wording."
    )
