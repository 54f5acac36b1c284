"""Issue 26: a question about the most of something ("Which lake is the deepest?") is a short question of fact
about what it names, said as a noun phrase ("the deepest lake"), never the question's words cut at a verb
("lake is the deepest"); a superlative that asks for a way or a pick ("the best way to…") keeps its own form.
"""

from __future__ import annotations

from typing import Any

import pytest

from emulator.default_model import forms
from emulator.default_model.question import read
from tests.test_writing import answer, nlp, problems, sentences, words

__all__ = ["nlp"]  # the parser fixture, shared with test_writing


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("Which lake is the deepest?", "the deepest lake"),
        ("Which desert is the hottest on Earth?", "the hottest desert on Earth"),
        ("Which animals are the fastest?", "the fastest animals"),
        ("Which was the first car ever made?", ""),  # no superlative: read as before
        ("Which is the oldest university in Europe?", "the oldest university in Europe"),
        ("Which state has the fewest residents?", "the state with the fewest residents"),
        ("What is the busiest airport in the world?", "the busiest airport in the world"),
        ("What was the coldest temperature ever recorded?", "the coldest temperature ever recorded"),
        ("Which bird is the most intelligent?", "the most intelligent bird"),
    ],
)
def test_a_question_about_the_most_of_something_names_it(nlp: Any, question: str, subject: str) -> None:
    ask = forms.read(read(question))
    assert ask.form == "short", ask
    if not subject:
        return
    assert ask.subject == subject
    text, reasoning = answer(question)
    assert subject in text and subject in reasoning, (text, reasoning)
    assert 10 <= len(words(text)) <= 50, text
    assert [p for s in sentences(text, "short") for p in problems(nlp, s, question)] == []


@pytest.mark.parametrize(
    ("question", "form"),
    [
        ("What is the best way to save for a house?", "steps"),
        ("What is the fastest way to learn to type?", "steps"),
        ("What is the easiest recipe for pancakes?", "recipe"),
    ],
)
def test_a_superlative_that_asks_for_a_way_keeps_its_form(question: str, form: str) -> None:
    assert forms.read(read(question)).form == form
