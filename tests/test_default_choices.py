"""The classes of weakness issue 26's fourth round found in the default's answers, each tried with prompts of our
own in several domains and read for its form: a choice whose options share a verb or a tail names the options
as nouns and says the shared words around them; a letter asking someone to do something takes its subject line
from what it asks; a lookup of one fact is a short answer that says plainly it cannot be looked up offline; the
reasoning keeps the user in the third person; jokes, riddles and fun facts are written, not declined; a how-to's
steps follow its verb, not the domain of a noun in it.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from emulator.default_model import forms
from emulator.default_model.question import read
from tests.test_writing import answer, nlp, problems, sentences, words

__all__ = ["nlp"]  # the parser fixture, shared with test_writing


def _grammar(nlp: Any, text: str, question: str, kind: str) -> list[str]:
    return [f"{s!r}: {p}" for s in sentences(text, kind) for p in problems(nlp, s, question)]


# --- a choice said around its options ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "first", "second", "unwanted"),
    [
        ("Should I learn piano or guitar first?", "piano", "guitar", "learn piano and"),
        ("Is it better to walk or cycle to work?", "walking", "cycling", "walk and cycle"),
        ("Should I study French or Spanish?", "French", "Spanish", "study French and"),
        ("Should I get a cat or a dog?", "a cat", "a dog", "get a cat and"),
        ("Should I buy a car or lease one?", "buying a car", "leasing one", "buy a car and"),
        ("Should I take the train or drive to Paris?", "taking the train", "driving", "take the train and"),
        ("Should we paint the kitchen white or grey?", "white", "grey", "the kitchen white and"),
        ("Should I eat brown rice or pasta before a run?", "brown rice", "pasta", "eat brown rice and"),
        ("Should I use the bus or train?", "the bus", "the train", "use the bus and"),
    ],
)
def test_a_choice_names_its_options_as_nouns_and_says_the_shared_words_around_them(
    nlp: Any, question: str, first: str, second: str, unwanted: str
) -> None:
    ask = forms.read(read(question))
    assert (ask.form, ask.subject, ask.other) == ("compare", first, second)
    text, reasoning = answer(question)
    assert unwanted not in text.lower() and unwanted not in reasoning.lower(), text
    assert f"whether to {ask.task}".lower() in text.lower() and f"whether to {ask.task}" in reasoning, text
    assert re.search(rf"\b{re.escape(first)} and {re.escape(second)}\b", text, re.I), text
    assert len(re.findall(r"^- \*\*[^*]+\*\*: ", text, re.M)) == 3, text
    assert len(_grammar(nlp, text, question, "compare")) <= 1


def test_two_named_things_and_two_ways_to_act_are_read_as_before() -> None:
    assert forms.read(read("Python vs Go for a web server")).subject == "Python"
    assert forms.read(read("Should we rent or buy?")).form == "advice"


# --- a letter asking someone to do something ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("question", "task", "greeting"),
    [
        ("Write an email to my landlord asking to fix the heating", "fix the heating", "Dear Landlord,"),
        ("Draft a letter to our neighbour asking them to trim the hedge", "trim the hedge", "Dear Neighbour,"),
        ("Write an email to my teacher asking if she could extend my deadline", "extend my deadline", "Dear Teacher,"),
        ("Write an email to the council to ask them to repair the streetlight", "repair the streetlight", "Dear"),
        ("Write a friendly note to my team asking everyone to fill in the survey", "fill in the survey", "Hi"),
    ],
)
def test_a_letter_asking_for_an_action_takes_its_subject_line_and_body_from_it(
    question: str, task: str, greeting: str
) -> None:
    text, reasoning = answer(question)
    lines = text.splitlines()
    assert lines[0] == f"Subject: Request to {task}", text
    assert lines[2].startswith(greeting), text
    assert f"could {task}" in text and " asking" not in text, text
    assert "my" not in reasoning.split(), reasoning  # the user's "my" is "their" in the reasoning


# --- a lookup of one fact -----------------------------------------------------------------------------------------

_OFFLINE = re.compile(r"\b(?:cannot|can't) look\b|\boffline\b")


@pytest.mark.parametrize(
    "question",
    [
        "Give me the area code for Boston",
        "Tell me the population of Lagos",
        "Can you find the phone number for the Louvre?",
        "What's the exchange rate of the yen?",
        "Give me the time zone in Tokyo",
        "Tell me the opening hours of the British Museum",
    ],
)
def test_a_lookup_of_one_fact_is_a_short_answer_that_names_it_and_says_it_cannot_be_looked_up(
    nlp: Any, question: str
) -> None:
    text, _ = answer(question)
    ask = forms.read(read(question))
    assert ask.form == "short", ask
    assert ask.subject in text and _OFFLINE.search(text), text
    assert "\n- " not in text and not re.search(r"\d", text), text  # no list, no figure
    assert 10 <= len(words(text)) <= 50
    assert not _grammar(nlp, text, question, "short")


# --- the reasoning keeps one person -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "question",
    [
        "Why does my knee crack when I squat?",
        "Why do I feel tired after I eat lunch?",
        "How do I stay calm when my boss shouts at me?",
        "Should I tell my friend if I can't go to her party?",
        "Write an email to my landlord asking to fix the heating",
        "Is it better to walk or cycle to work?",
    ],
)
def test_the_reasoning_speaks_of_the_user_in_the_third_person_only(question: str) -> None:
    reasoning = answer(question)[1]
    assert not re.search(r"\b(?:you|your|yours|yourself|I'm|my|me)\b", reasoning.replace("I will", "")), reasoning


# --- a how-to's steps follow its verb -------------------------------------------------------------------------

_RECIPE = re.compile(r"\b(?:recipe|ingredients|mixture|batch|dough)\b", re.I)
_REPAIR = re.compile(r"\b(?:spare part|old part|new part)\b", re.I)


@pytest.mark.parametrize(
    ("question", "cleaned"),
    [
        ("How do I get red wine out of a carpet?", "the carpet"),
        ("How do I get coffee stains out of a white shirt?", "the white shirt"),
        ("How can I take chewing gum off my shoes?", "your shoes"),
        ("How do I wash ink off my hands?", "your hands"),
    ],
)
def test_taking_a_stain_out_gets_cleaning_steps_for_what_is_cleaned(nlp: Any, question: str, cleaned: str) -> None:
    text = answer(question)[0]
    assert not _RECIPE.search(text), text
    assert cleaned in text and "cleaner" in text, text
    assert len(re.findall(r"^\d\. \*\*", text, re.M)) >= 5
    assert not _grammar(nlp, text, question, "steps")


@pytest.mark.parametrize(
    "question",
    [
        "How do I get rid of fruit flies?",
        "How do I open a bottle of wine without a corkscrew?",
        "How do I choose a good wine for dinner?",
        "How do I get my toddler to eat vegetables?",
        "How do I find a broken bike part online?",
    ],
)
def test_a_how_to_naming_a_domains_noun_does_not_get_that_domains_steps(question: str) -> None:
    text = answer(question)[0]
    assert not _RECIPE.search(text) and not _REPAIR.search(text), text


def test_a_domains_own_task_still_gets_its_own_steps() -> None:
    assert _RECIPE.search(answer("How do I make sourdough bread?")[0])
    assert _RECIPE.search(answer("How do I bake a lemon cake?")[0])


# --- jokes, riddles, puns and fun facts ---------------------------------------------------------------------------

_DECLINED = re.compile(r"matter of record|reliable reference|look(?:ing)? (?:facts )?up", re.I)


@pytest.mark.parametrize(
    ("question", "kind", "fits"),
    [
        ("Tell me a joke", "joke", ""),
        ("Make me laugh", "joke", ""),
        ("Tell me a pun about cats", "pun", "cat"),
        ("Give me a riddle", "riddle", ""),
        ("Can you tell me a riddle about rivers?", "riddle", "river"),
        ("Tell me a fun fact about space", "fact", "moon"),
        ("Tell me a dad joke about coffee", "joke", "coffee"),
        ("Do you know any jokes about programmers?", "joke", "develop"),
        ("Share a fun fact about dogs", "fact", "dog"),
    ],
)
def test_a_joke_riddle_pun_or_fact_is_written_short_and_clean_fitting_its_subject(
    nlp: Any, question: str, kind: str, fits: str
) -> None:
    ask = forms.read(read(question))
    assert (ask.form, ask.other) == ("joke", kind)
    text, reasoning = answer(question)
    assert not _DECLINED.search(text), text
    assert fits in text.lower(), text
    assert ("**Answer:**" in text) == (kind == "riddle"), text
    assert 6 <= len(words(text)) <= 60
    assert answer(question) == (text, reasoning)  # the same conversation, the same words
    assert not _grammar(nlp, text.partition("**Answer:**")[0], question, "short")  # the answer: a noun phrase


def test_a_joke_on_a_subject_it_has_none_for_says_so_and_tells_another() -> None:
    text = answer("Tell me a joke about dentists")[0]
    assert text.startswith("I have no joke about dentists") and len(text.splitlines()) == 3, text


def test_every_joke_entry_has_cues_and_a_riddle_an_answer() -> None:
    from emulator.default_model.jokes import JOKES

    assert set(JOKES) == {"joke", "pun", "riddle", "fact"}
    assert all(cues for entries in JOKES.values() for cues, _ in entries)
    assert all(" | " in text for _, text in JOKES["riddle"])


def test_every_joke_entry_reads_as_english(nlp: Any) -> None:
    from emulator.default_model.jokes import JOKES

    said = [
        part
        for kind, entries in JOKES.items()
        for _, text in entries
        for part in text.split(" | ")[: 1 if kind == "riddle" else 2]
    ]
    found = [f"{s!r}: {p}" for text in said for s in sentences(text, "short") for p in problems(nlp, s, "")]
    assert not found
