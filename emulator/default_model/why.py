"""A why-question read for what it asks about: its subject and, where its verb can be found, the event as a
clause ("Why does ice float?": "ice", "ice floats"), for the why form's answer and reasoning."""

from __future__ import annotations

import re
from collections.abc import Callable

from emulator.default_model import grammar
from emulator.default_model.ask import DETERMINERS as _DETERMINERS
from emulator.default_model.ask import PREPOSITIONS, Ask
from emulator.default_model.lexicon import LEXICON
from emulator.default_model.question import Question, flip

_I = re.I


def read(text: str, q: Question, topic: Callable[[Question], str]) -> Ask:
    """A why-question read for its subject and, where its verb can be found, the event it asks about as a clause:
    "Why do cats knead blankets?" → "cats" and "cats knead blankets"; "Why does ice float?" → "ice floats".
    `topic` is the question's topic as the forms reader takes it, where no salient word opens the question."""
    m = _WHY_AUX.match(text)
    aux = m["aux"].lower() if m else ""
    rest = flip(m["rest"] if m else text[3:].strip(" ,"))
    words = rest.split()
    doing = next((i for i, w in enumerate(words[1:7], 1) if len(w) > 4 and w.lower().endswith("ing")), 0)
    if aux in _BE and doing:  # "Why is my phone battery dying so fast?": "your phone battery is dying so fast"
        subject = " ".join(words[:doing])
        return Ask("why", subject, task=f"{subject} {aux} {' '.join(words[doing:])}")
    if aux in _BE:
        subject = _being_subject(words, q, topic)
        after = rest[len(subject) :].strip() if rest.lower().startswith(subject.lower()) else ""
        return Ask("why", subject, task=f"{subject} {aux} {after}" if after else "")
    verb = next((i for i, w in enumerate(words[1:8], 1) if w in LEXICON.verbs), 0)
    if not verb:  # no verb found: the first run of salient words, and no clause
        return Ask("why", _first_run(rest, q, topic))
    subject, said, after = " ".join(words[:verb]), words[verb], " ".join(words[verb + 1 :])
    if aux in ("", "do"):  # "cats knead blankets": the question's own words are the clause
        event = f"{subject} {said} {after}"
    elif aux == "does":
        event = f"{subject} {grammar.present(said)} {after}"
    elif aux in _MODAL:
        event = f"{subject} {_MODAL[aux]} {said} {after}"
    else:  # "did": a past tense this reader does not make
        event = ""
    return Ask("why", subject, task=event.strip())


_WHY_AUX = re.compile(
    r"why\s+(?P<aux>is|are|was|were|isn't|aren't|do|does|did|can't|cannot|can|won't|will|don't|doesn't|didn't|"
    r"should|shouldn't|would|could|might)\s+(?P<rest>.+?)[.?!]*$",
    _I,
)
_BE = frozenset(("is", "are", "was", "were", "isn't", "aren't"))
_MODAL = {"can": "can", "cannot": "cannot", "can't": "cannot", "won't": "will not", "will": "will"}
_MODAL |= {"don't": "do not", "doesn't": "does not", "didn't": "did not", "should": "should"}
_MODAL |= {"shouldn't": "should not", "would": "would", "could": "could", "might": "might"}


def _being_subject(words: list[str], q: Question, topic: Callable[[Question], str]) -> str:
    """Why-is's subject: the words before the last, before a preposition ("your website slow on phones" → "your
    website"), else the first run of salient words less its last ("the sky blue" → "the sky")."""
    cut = next((i for i, w in enumerate(words) if w.lower() in PREPOSITIONS), len(words))
    if 2 <= len(words) <= 9 and cut >= 2:
        return " ".join(words[: cut - 1])
    return _first_run(" ".join(words), q, topic, drop_last=True)


def _first_run(rest: str, q: Question, topic: Callable[[Question], str], drop_last: bool = False) -> str:
    """The question's first run of salient words, with the determiner before it ("my phone" → "your phone")."""
    first = q.topics[0] if q.topics else q.topic
    words = first.split()
    if drop_last and len(words) > 1:
        words = words[:-1]
    if not words:
        return topic(q)
    found = re.search(r"(\w+)\s+" + re.escape(words[0]), rest)
    determiner = found.group(1).lower() if found and found.group(1).lower() in _DETERMINERS else ""
    return flip(" ".join([determiner, *words]).strip())
