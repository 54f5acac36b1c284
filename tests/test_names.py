"""Names asked of the default model are names of the kind asked for: a pet gets a pet's name, a shop one built
from its trade's words, and a question that never says "names for" ("What should I call …?") still gets names."""

from __future__ import annotations

import re

import pytest

from emulator.default_model.lexicon import LEXICON
from tests.test_writing import answer

_ITEM = re.compile(r"^- \*\*(?P<name>[^*]+)\*\*: (?P<note>.+)$", re.M)


def names(text: str) -> list[str]:
    return [m["name"] for m in _ITEM.finditer(text)]


def trade(cue: str) -> set[str]:
    for line in LEXICON.frames["name-trade"]:
        cues, _, words = line.partition(": ")
        if cue in cues.split():
            return set(words.split())
    raise AssertionError(cue)


@pytest.mark.parametrize(
    "question", ["Help me name my rescue greyhound's new friend, a hamster", "Pet names for a tortoise?"]
)
def test_a_pet_gets_a_single_word_name_and_notes_for_a_pet(question: str) -> None:
    text, _ = answer(question)
    found = names(text)
    assert len(found) >= 3 and all(" " not in name and name.isalpha() for name in found), text
    assert len(set(found)) == len(found)


@pytest.mark.parametrize(
    ("question", "cue"),
    [
        ("Suggest some names for a small bakery in the old town", "bakery"),
        ("What should we call our wine bar?", "wine"),
    ],
)
def test_a_trade_gets_names_from_its_own_words(question: str, cue: str) -> None:
    text, _ = answer(question)
    found = names(text)
    assert len(found) >= 3, text
    borrowed = [n for n in found if set(re.findall(r"[A-Z][a-z]+", n)) & trade(cue)]
    assert len(borrowed) >= len(found) - 1, text  # a street name may stand in for one
    assert "register of companies" in text or "suggest more" in text


def test_a_name_asked_without_saying_names_for_is_still_a_list_of_names() -> None:
    text, _ = answer("Could you help us name our climbing gym?")
    assert len(names(text)) >= 3, text
    first, _ = answer("What should I name my newsletter about birdwatching?")
    assert len(names(first)) >= 3 and "newsletter" in first.lower(), first
