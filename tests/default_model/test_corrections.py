"""Rewrites that change the text (`corrections`, `edits`): grammar fixed by rule with the changes said, plainer
words for "make this simpler", a summary shorter than its input; and an honest line where nothing needs fixing."""

from __future__ import annotations

import pytest

from emulator.core.conversation import Message, Prompt
from emulator.default_model.corrections import corrected, simpler
from emulator.default_model.generate import Writer, default_reply

WRITER = Writer(5)


def reply(text: str) -> str:
    prompt = Prompt(dialect="sample", model="m", messages=(Message("user", text),), conversation=text)
    return default_reply(prompt, WRITER).text


@pytest.mark.parametrize(
    ("wrong", "right"),
    [
        ("him and me walks to work last monday.", "He and I walked to work last Monday."),
        ("my sister and me was tired, we goed home early.", "My sister and I were tired, we went home early."),
        ("Tom dont know where the keys is.", "Tom doesn't know where the keys are."),
        ("she have two cat and a hamster.", "She has two cats and a hamster."),
        ("I seen a owl in the garden yesterday.", "I saw an owl in the garden yesterday."),
        ("we should of left earlier, its a long drive.", "We should have left earlier, it's a long drive."),
        ("Those book is mine and this pens are yours.", "That book is mine and these pens are yours."),
        ("the kids catched five fish and eated them", "The kids caught five fish and ate them."),
    ],
)
def test_grammar_fixed_by_rule(wrong: str, right: str) -> None:
    fixed, changed = corrected(wrong)
    assert fixed == right and changed


def test_a_correct_text_is_left_alone_and_said_to_be_fine() -> None:
    text = "The committee met on Tuesday and agreed on the budget."
    assert corrected(text) == (text, [])
    said = reply(f"Please proofread: {text}")
    assert said.startswith("I found nothing to correct") and text in said


def test_the_answer_says_what_it_changed() -> None:
    said = reply("Check the grammar: yesterday me and him buyed a new bike for are dad")
    assert "Yesterday he and I bought" in said
    listed = said.split("What I changed:")[1]
    assert "buyed" in listed and "bought" in listed and "\u201care\u201d \u2192 \u201cour\u201d" in listed
    assert "for our dad" in said


def test_simpler_swaps_wordy_phrases_and_splits_long_sentences() -> None:
    text = (
        "Prior to the commencement of the project, it is important to note that numerous stakeholders will "
        "require additional assistance, which should be provided on a regular basis by the individuals concerned."
    )
    plain = simpler(text)
    assert len(plain.split()) < len(text.split())
    for gone in ("Prior to", "numerous", "additional assistance", "on a regular basis"):
        assert gone not in plain
    said = reply(f"Make this simpler: {text}")
    assert said.startswith("Here it is in simpler words") and "before" in said.lower()


def test_a_summary_of_one_sentence_is_no_copy() -> None:
    text = (
        "The new library, which opened in March after two years of building work, now lends e-books as well as "
        "printed books, because readers asked for it in a survey."
    )
    said = reply(f"Summarize this: {text}")
    assert said.startswith("In short:") and len(said.split()) < len(text.split())


def test_a_follow_up_asking_for_simpler_words_reworks_the_last_answer() -> None:
    messages = (
        Message("user", "What does a thermostat do?"),
        Message(
            "assistant",
            "A thermostat facilitates the maintenance of a constant temperature by approximately "
            "monitoring the air and it subsequently switches the heating on or off.",
        ),
        Message("user", "Can you say that more simply?"),
    )
    prompt = Prompt(dialect="sample", model="m", messages=messages, conversation="thermostat")
    said = default_reply(prompt, WRITER).text
    assert "facilitates" not in said and "approximately" not in said and "thermostat" in said.lower()


def test_a_summary_asked_for_with_a_question_mark_and_the_text_on_its_own_lines() -> None:
    text = (
        "The bakery opened in 1998 on Mill Street. It now sells bread to twelve cafes. Last year it added a "
        "small school for bakers. Its owners plan a second shop in 2027."
    )
    said = reply(f"Could you give me a brief summary of the following?\n{text}")
    assert said.startswith("In short:") and len(said.split()) < len(text.split())
