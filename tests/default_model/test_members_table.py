"""The table of categories the default model lists members of (lexicon/members.txt): each category's members are
distinct, each way it is said finds it (with a count before it too), and questions that ask for some of its
members get that many of them, named."""

from __future__ import annotations

import re

import pytest

from emulator.default_model import members
from emulator.default_model.lexicon import sections
from tests.test_writing import answer

_LINES = [(every, line) for every in ("all", "some") for line in sections("members")[every]]


def _said(line: str) -> tuple[list[str], list[str]]:
    names, _, listed = line.partition(": ")
    return [name.strip() for name in names.split("|")], [item.strip() for item in listed.split(", ")]


@pytest.mark.parametrize(("every", "line"), _LINES, ids=[_said(line)[0][0] for _, line in _LINES])
def test_each_category_has_distinct_members_and_is_found_by_each_way_it_is_said(every: str, line: str) -> None:
    said, items = _said(line)
    assert all(items) and len(set(items)) == len(items), items
    if every == "some":
        assert len(items) >= 5, said[0]
    for name in said:
        for asked in (name, f"three {name}"):
            found = members.members(asked)
            assert found is not None and found[0] == said[0], (asked, found and found[0])


_ITEM = re.compile(r"^(?:- |\d+\. )(.+)$", re.M)


@pytest.mark.parametrize(
    ("question", "category", "count"),
    [
        ("Name five rivers in Europe.", "rivers in Europe", 5),
        ("List three deserts in Asia.", "deserts in Asia", 3),
        ("Name 6 countries in North America.", "countries in North America", 6),
        ("List four lakes in Africa.", "lakes in Africa", 4),
        ("Give me five foods high in protein.", "sources of protein", 5),
        ("List 4 foods rich in iron.", "sources of iron", 4),
        ("Name three JavaScript frameworks.", "JavaScript frameworks", 3),
        ("List five NoSQL databases.", "NoSQL databases", 5),
        ("Name four Linux distributions.", "Linux distributions", 4),
        ("Give me 3 design patterns.", "design patterns", 3),
        ("Name six paintings by Van Gogh.", "paintings by Van Gogh", 6),
        ("List three tragedies by Shakespeare.", "tragedies by Shakespeare", 3),
        ("Name five Olympic sports.", "Olympic sports", 5),
        ("List 4 string instruments.", "string instruments", 4),
        ("Name three moons of Jupiter.", "moons of Jupiter", 3),
        ("List seven cheeses.", "cheeses", 7),
        ("Name two layers of the atmosphere.", "layers of the atmosphere", 2),
    ],
)
def test_a_question_names_members_of_its_category_as_many_as_asked(question: str, category: str, count: int) -> None:
    listed = members.CATEGORIES[members._key(category)]
    assert listed[0] == category
    text, reasoning = answer(question)
    named = _ITEM.findall(text)
    assert len(named) == count, text
    in_table = {item[:1].upper() + item[1:] for item in listed[1]}
    assert set(named) <= in_table and len(set(named)) == count, text
    assert category in reasoning, reasoning
