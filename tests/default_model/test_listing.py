"""The list form (`listing`): the count asked is the count given and said, items of the kind asked for, and an
honest line instead of made-up names where the tables hold no such things."""

from __future__ import annotations

import re

import pytest

from emulator.core.conversation import Message, Prompt
from emulator.default_model.generate import Writer, default_reply

WRITER = Writer(11)
NUMBERS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10}


def reply(text: str) -> str:
    prompt = Prompt(dialect="sample", model="m", messages=(Message("user", text),), conversation=text)
    return default_reply(prompt, WRITER).text


def items(text: str) -> list[str]:
    return [line for line in text.splitlines() if re.match(r"(?:- |\d+\. )", line)]


@pytest.mark.parametrize(
    ("ask", "count"),
    [
        ("Give me 8 reasons to start journaling.", 8),
        ("What are seven advantages of learning to cook?", 7),
        ("List 2 benefits of drinking more water.", 2),
        ("Name four common pitfalls when renting a flat.", 4),
        ("Give me six benefits of a standing desk.", 6),
    ],
)
def test_the_count_asked_is_the_count_given_and_said(ask: str, count: int) -> None:
    said = reply(ask)
    assert len(items(said)) == count, said
    opening = said.split("\n")[0].lower()
    assert any(f" {word} " in opening for word, n in NUMBERS.items() if n == count), opening


def test_more_than_the_frames_hold_is_said_not_padded() -> None:
    said = reply("List 25 reasons to take up running.")
    listed = items(said)
    assert len(listed) < 25 and len(set(listed)) == len(listed)
    assert "matter most" in said.split("\n")[0]


def test_reasons_to_do_something_are_said_of_doing_it() -> None:
    said = reply("List 3 reasons to learn Spanish.")
    assert "Learning Spanish" in said and "Reasons to learn Spanish can" not in said


def test_drawbacks_are_points_against_not_benefits() -> None:
    said = reply("What are the drawbacks of owning a boat?")
    assert items(said) and "improve" not in said and "value" not in said.split("\n")[-1]


@pytest.mark.parametrize(
    "ask", ["Name 5 rivers in Mongolia.", "List six novels set in Lagos.", "Name three operas by Rossini."]
)
def test_things_the_tables_do_not_hold_get_an_honest_line(ask: str) -> None:
    said = reply(ask)
    assert not items(said) and "won't make up names" in said


def test_a_list_is_no_software_question_for_the_word_list() -> None:
    said = reply("List 3 benefits of morning walks.")
    assert not re.search(r"test coverage|maintainability|developers", said), said


@pytest.mark.parametrize(
    ("ask", "count"),
    [
        ("Can you suggest 4 houseplants for a dark room?", 4),
        ("Recommend six herbs to grow on a windowsill.", 6),
        ("We need 3 examples of reptiles for a quiz.", 3),
    ],
)
def test_a_recommendation_or_a_need_of_known_things_names_as_many_as_said(ask: str, count: int) -> None:
    assert len(items(reply(ask))) == count
