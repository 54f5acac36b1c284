"""Issue 26's fifth round of weak classes, each tried with prompts of our own and read for the kind of answer:
repair steps fit what is repaired (no power, water or gas for a chair).
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from emulator.default_model import forms
from emulator.default_model.lexicon import LEXICON
from emulator.default_model.question import read
from emulator.default_model.writer import steps_of
from tests.test_default_tasks import _grammar, _no_repeats
from tests.test_writing import answer, nlp

__all__ = ["nlp"]  # the parser fixture, shared with test_writing

_TIP = re.compile(r"^- \*\*[^*]+\*\*: .+", re.M)
_STEP = re.compile(r"^\d+\. \*\*[^*]+\*\*: .+", re.M)
_VAGUE = ("offline", "reference", "encyclopedia", "depends on the context", "matter of record")
# The labels of the steps that fit any habit or any money task: a pursuit with a craft of its own gets neither.
_HABIT = ("Pick one specific change", "Make the right choice easy", "Track each day", "Plan for slips")
_BUDGET = ("Know your numbers", "Compare your options", "Make it automatic", "Keep a record")
_SYMPATHY = ("sorry", "feel this way", "common", "frustrating", "wear you down")


def _kind(question: str) -> tuple[str, str]:
    """The task `question` is read as, and the kind of steps it gets (a section of lexicon/howto.txt)."""
    q = read(question)
    asked = forms.read(q)
    assert asked.form == "steps", asked
    kind, _ = steps_of(LEXICON.domain(w.lower() for w in q.words), asked.task)
    return asked.task, kind


def _tips(nlp: Any, question: str) -> str:
    text, reasoning = answer(question)
    assert len(_TIP.findall(text)) >= 4, text
    assert not any(v in text.lower() for v in _VAGUE), text
    assert "tips" in reasoning or "steps" in reasoning, reasoning
    _no_repeats(text)
    assert not _grammar(nlp, text, question, "steps")
    return text


# --- repair steps fit what is repaired -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "kind", "said", "unsaid"),
    [
        ("How do I fix a creaky bed frame?", "repair-furniture", ("screw",), ("water", "gas")),
        ("How do I repair a loose cabinet door?", "repair-furniture", ("hinge",), ("water", "gas")),
        ("How do I fix a running toilet?", "repair-plumbing", ("valve",), ("unplug",)),
        ("How can I fix a dripping shower head?", "repair-plumbing", ("washer",), ("unplug",)),
        ("How do I repair a broken lamp?", "repair-appliance", ("unplug",), ("water",)),
        ("How do I fix a slipping bike chain?", "repair-bike", ("chain",), ("water", "gas")),
        ("How do I patch a hole in my sweater?", "repair-clothing", ("stitch",), ("power", "water", "gas")),
        ("How do I fix a crack in the ceiling?", "repair-wall", ("filler",), ("gas",)),
        ("How do I fix a stuck zip on my coat?", "repair-zip", ("slider",), ("power", "water", "gas")),
        ("My office chair keeps sinking", "repair-furniture", ("screw",), ("restart", "water", "gas")),
    ],
)
def test_repair_steps_fit_what_is_repaired(
    nlp: Any, question: str, kind: str, said: tuple[str, ...], unsaid: tuple[str, ...]
) -> None:
    assert _kind(question)[1] == kind
    text, _ = answer(question)
    assert len(_STEP.findall(text)) + len(_TIP.findall(text)) >= 5, text
    low = text.lower()
    assert all(w in low for w in said) and not any(re.search(rf"\b{w}\b", low) for w in unsaid), text
    _no_repeats(text)
    assert not _grammar(nlp, text, question, "steps")


def test_a_thing_of_no_known_kind_gets_repair_steps_that_fit_anything() -> None:
    assert _kind("How do I fix a broken umbrella?")[1] == "repair"
    text, _ = answer("How do I fix a broken umbrella?")
    assert not re.search(r"\b(?:water|gas)\b", text), text


def test_every_kind_of_repair_names_what_it_repairs_and_has_steps() -> None:
    kinds = {kind for kind, _ in LEXICON.objects.values()}
    assert {"repair-furniture", "repair-appliance", "repair-plumbing", "repair-clothing", "repair-wall"} <= kinds
    for kind in kinds:
        assert len(LEXICON.howto[kind][1]) >= 6 and kind in LEXICON.closes, kind
