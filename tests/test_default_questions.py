"""Issue 26's questions read for what they ask: one about the most of something ("Which lake is the deepest?") is
a short question of fact about what it names, said as a noun phrase ("the deepest lake"), never the question's
words cut at a verb ("lake is the deepest"), while a superlative that asks for a way ("the best way to…") keeps
its form; what to do in a place gets its sights, with no invented facts; what to do when something goes wrong
puts safety first; leftovers get dishes to choose from.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from emulator.default_model import forms, members
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


_TIP = re.compile(r"^- \*\*([^*]+)\*\*: ", re.M)


@pytest.mark.parametrize(
    ("question", "place"),
    [
        ("What are the best things to do in Marrakesh?", "Marrakesh"),
        ("Where should we go in Buenos Aires?", "Buenos Aires"),
        ("Any fun activities to do in Reykjavik this summer?", "Reykjavik this summer"),
        ("What to see in Kyoto", "Kyoto"),
    ],
)
def test_what_to_do_in_a_place_gets_sights_without_invented_facts(nlp: Any, question: str, place: str) -> None:
    ask = forms.read(read(question))
    assert ask.form == "steps" and ask.task == f"find things to do in {place}", ask
    text, reasoning = answer(question)
    assert place in text and place in reasoning, (text, reasoning)
    assert len(_TIP.findall(text)) >= 4, text
    assert [p for s in sentences(text, "steps") for p in problems(nlp, s, question)] == []


@pytest.mark.parametrize(
    ("question", "said"),
    [
        ("What should I do in a house fire?", "emergency number"),
        ("What do we do if the power goes out?", "safe"),
        ("What should I do in an earthquake?", "safe"),
    ],
)
def test_what_to_do_when_something_goes_wrong_puts_safety_first(question: str, said: str) -> None:
    ask = forms.read(read(question))
    assert ask.form == "steps" and ask.task.startswith("know what to do"), ask
    text, reasoning = answer(question)
    assert said in text, text
    assert "how to know" not in reasoning, reasoning
    assert _TIP.findall(text)[:2] == ["Make sure you are safe first", "Call for help early"], text


@pytest.mark.parametrize("question", ["What do I do with leftover pasta?", "What can we do with the leftovers?"])
def test_leftovers_get_dishes_to_choose_from(question: str) -> None:
    ask = forms.read(read(question))
    assert (ask.form, ask.other) == ("recipe", "suggest"), ask
    text, _ = answer(question)
    assert "leftover" in text.lower() and len(re.findall(r"^- \*\*", text, re.M)) >= 3, text


@pytest.mark.parametrize(
    ("question", "one"),
    [("What are vegetables?", "vegetable"), ("What is a mammal?", "mammal"), ("What are continents?", "continent")],
)
def test_a_bare_category_is_defined_by_its_members(nlp: Any, question: str, one: str) -> None:
    ask = forms.read(read(question))
    assert ask.form == "definition", ask
    text, _ = answer(question)
    category = members.members(ask.subject)
    assert category is not None
    assert sum(m in text for m in category[1]) == 3, text  # three members, named
    assert one in text and 40 <= len(words(text)) <= 120, text
    assert [p for s in sentences(text, "definition") for p in problems(nlp, s, question)] == []


@pytest.mark.parametrize(
    "question", ["What are African countries?", "What are cooking spices?", "What are team sports?"]
)
def test_a_qualified_category_is_listed(question: str) -> None:
    ask = forms.read(read(question))
    assert ask.form == "list", ask
    text, _ = answer(question)
    category = members.members(ask.subject)
    assert category is not None and sum(f"- {m[:1].upper()}{m[1:]}" in text for m in category[1]) >= 3, text


@pytest.mark.parametrize(
    ("question", "subject"),
    [
        ("Explain how tides work like I'm five.", "tides"),
        ("Describe inflation to a 10 year old", "inflation"),
        ("Explain recursion in plain English.", "recursion"),
    ],
)
def test_how_simply_to_explain_is_no_part_of_the_subject(question: str, subject: str) -> None:
    assert forms.read(read(question)).subject == subject


@pytest.mark.parametrize(
    ("question", "subject"),
    [("What time is it in Nairobi right now?", "the current time in Nairobi"), ("What day is it?", "the current day")],
)
def test_the_time_is_looked_up_not_guessed(question: str, subject: str) -> None:
    ask = forms.read(read(question))
    assert (ask.form, ask.subject, ask.other) == ("short", subject, "lookup")
    text, _ = answer(question)
    assert subject in text and "offline" in text, text


@pytest.mark.parametrize(
    "question", ["How do I get rid of moths in my closet?", "How can I keep mice out of the garage?"]
)
def test_pests_get_steps_that_remove_what_draws_them(question: str) -> None:
    text, _ = answer(question)
    assert "Remove what feeds them" in text and "Find where they come from" in text, text


@pytest.mark.parametrize("greeting", ["Hey, good evening!", "Good afternoon, everybody.", "Hello hello!", "Hi again"])
def test_greetings_in_a_row_are_a_greeting(greeting: str) -> None:
    assert forms.read(read(greeting)).form == "greeting"
    text, _ = answer(greeting)
    assert len(words(text)) <= 20 and "?" in text, text
