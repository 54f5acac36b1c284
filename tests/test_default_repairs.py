"""Issue 26's sixth round of weak classes: a thing in a bad way gets the steps that fit its fault (a slow drain is
unblocked, not re-washered; a slow laptop is no web page), said as a question or as a statement about it ("The
printer is not working"); the steps no answer may leave out (turning the water off, the fix itself) are in every
answer of their kind, whatever the dice; and what to say to someone, however it is asked, gets tips for that
talk (comfort for someone going through something hard).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from emulator.core.conversation import Message, Prompt
from emulator.default_model import forms
from emulator.default_model.generate import Writer, default_reply
from emulator.default_model.howtos import steps_of
from emulator.default_model.lexicon import LEXICON
from emulator.default_model.prose import domain
from emulator.default_model.question import read
from tests.test_writing import answer, nlp, problems, sentences

__all__ = ["nlp"]  # the parser fixture, shared with test_writing

_ITEM = re.compile(r"^(?:\d+\.|-) \*\*([^*]+)\*\*: ", re.M)


def _labels(text: str) -> list[str]:
    return _ITEM.findall(text)


def _kind(question: str) -> str:
    q = read(question)
    return steps_of(domain(q), forms.read(q).task)[0]


@pytest.mark.parametrize(
    ("task", "kind"),
    [
        ("unclog a bathroom sink that drains slowly", "repair-drain"),  # a fault word of the thing named
        ("fix a shower drain that is slow", "repair-drain"),
        ("fix a bathtub when the water won't drain", "repair-drain"),  # a fault in two words
        ("fix a kitchen sink that keeps backing up", "repair-plumbing"),  # no fault this reads: the thing's kind
        ("fix a leaking kitchen tap", "repair-plumbing"),
        ("fix a phone that is slow", "repair-appliance"),  # "slow" is no drain's fault without a drain
        ("fix a wobbly bookshelf", "repair-furniture"),
    ],
)
def test_a_fault_decides_the_kind_of_repair_only_with_what_it_is_a_fault_of(task: str, kind: str) -> None:
    assert LEXICON.repaired(task) == kind


@pytest.mark.parametrize(
    ("question", "kind", "subject", "said"),
    [
        ("Our bathroom sink is draining slowly, any tips?", "repair-drain", "bathroom sink", "plunger"),
        ("The shower drain is blocked again.", "repair-drain", "shower drain", "hair"),
        ("My washing machine is making a loud noise, what should I do?", "troubleshoot", "washing machine", "maker"),
        ("The garden tap is dripping, help!", "repair-plumbing", "garden tap", "washer"),
        ("My office chair is wobbly.", "repair-furniture", "office chair", "screw"),
        ("How do I fix a computer that runs slowly?", "repair-appliance", "computer", "switch"),
    ],
)
def test_a_thing_in_a_bad_way_gets_steps_for_its_fault(
    nlp: Any, question: str, kind: str, subject: str, said: str
) -> None:
    assert _kind(question) == kind
    text, reasoning = answer(question)
    assert said in text.lower(), text
    assert len(_labels(text)) >= 4, text
    assert subject in reasoning and subject in text, (reasoning, text)
    assert [p for s in sentences(text, "steps") for p in problems(nlp, s, question)] == []


@pytest.mark.parametrize(
    "question",
    [
        "How do I fix a dripping shower head?",
        "My kitchen drain is clogged, any advice?",
        "How do I repair a toaster that won't heat?",
        "How do I sew a button back on my coat?",
        "How do I go hiking safely for the first time?",
    ],
)
def test_a_step_marked_as_kept_is_in_every_answer(question: str) -> None:
    writer = Writer(0)
    kind = _kind(question)
    kept = [label for label, _ in LEXICON.howto[kind][1] if label in LEXICON.kept]
    assert kept, f"{kind} marks no step as kept"
    for n in range(16):  # sixteen conversations: sixteen throws of the dice
        said = Prompt(dialect="t", model="m", messages=(Message("user", question),), conversation=f"kept {n}")
        labels = _labels(default_reply(said, writer).text)
        assert set(kept) <= set(labels), (n, kept, labels)


@pytest.mark.parametrize(
    ("question", "kind", "said"),
    [
        ("What do I say to a coworker whose father died?", "comfort", "sorry"),
        ("What could I say to a friend who failed his exams?", "comfort", "listen"),
        ("What to say to someone going through a divorce?", "comfort", "help"),
        ("What do I say to my roommate about the dishes?", "talk", "moment"),
        ("What can we say to our neighbors about their barking dog?", "talk", "calm"),
    ],
)
def test_what_to_say_to_someone_gets_tips_for_that_talk(nlp: Any, question: str, kind: str, said: str) -> None:
    ask = forms.read(read(question))
    assert ask.form == "steps" and ask.other == "tips", ask
    assert _kind(question) == kind
    text, reasoning = answer(question)
    assert said in text.lower(), text
    assert len(_labels(text)) >= 4, text
    assert "talk to" in reasoning, reasoning
    assert [p for s in sentences(text, "steps") for p in problems(nlp, s, question)] == []
