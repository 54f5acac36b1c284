"""What a question fixes about its answer is kept: its arithmetic computed, its rate problems worked, its facts said,
its options chosen from, its yes or no, its one word, its length. Through the SDK too, on the default answer."""

from __future__ import annotations

import itertools
from decimal import Decimal
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from emulator.default_model import directives
from tests.conftest import Server


def dice() -> Any:
    return itertools.count(3)


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("What is 46 times 12?", "46 × 12 = 552."),
        ("Calculate (7 + 5) * 9 - 4", "(7 + 5) × 9 - 4 = 104."),
        ("what's 2 to the power of 10", "2 ^ 10 = 1024."),
        ("What is 250 times 400?", "250 × 400 = 100,000."),
        ("How much is nineteen minus seven?", "19 - 7 = 12."),
        ("What is 7.5 divided by 2.5?", "7.5 ÷ 2.5 = 3."),
        ("What is 30% of 250?", "30% of 250 is 75."),
        ("What is the square root of 81?", "The square root of 81 is 9."),
        ("What is 12 squared?", "12 squared is 144."),
        ("What is 1 / 3?", "1 ÷ 3 = 0.3333."),
        ("What is 8 divided by 0?", "That divides by zero, which has no answer."),
    ],
)
def test_arithmetic_is_computed(asked: str, said: str) -> None:
    assert directives.answer(asked, dice()) == said


@given(st.integers(-10_000, 10_000), st.integers(-10_000, 10_000), st.sampled_from(["+", "-", "*"]))
def test_any_two_numbers_come_out_as_python_computes_them(a: int, b: int, op: str) -> None:
    said = directives.computed(f"What is {a} {op} ({b})?")
    assert said is not None
    expected = {"+": a + b, "-": a - b, "*": a * b}[op]
    assert Decimal(said.rpartition("= ")[2].rstrip(".").replace(",", "")) == expected


@pytest.mark.parametrize(
    "asked",
    [
        "Book a room for 2025-03-14 at 10am",
        "Summarize the meeting of 3/4 with the sales team",
        "Give me 5-10 ideas for a party",
        "Write a story about 3 friends",
        "The ratio is 16:9 on a 1920 x 1080 screen",
    ],
)
def test_numbers_that_ask_for_no_arithmetic_are_left_to_the_writer(asked: str) -> None:
    assert directives.computed(asked) is None and directives.rate(asked) is None


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("A cyclist rides 45 km in 3 hours. What is her average speed?", "45 km in 3 hours is an average of 15 km/h."),
        ("If a bus goes 40 mph for 2.5 hours, how far does it travel?", "At 40 mph for 2.5 hours, that is 100 miles."),
        ("How long will 210 km take at 70 km/h?", "210 km at 70 km/h takes 3 hours."),
        ("How long does 100 miles take at 40 mph?", "100 miles at 40 mph takes 2 hours 30 minutes."),
        (
            "Shoes cost $120 with a 15% discount. What is the price?",
            "15% off $120.00 takes $18.00 off, so it costs $102.00.",
        ),
    ],
)
def test_rate_and_discount_problems_are_worked(asked: str, said: str) -> None:
    assert directives.answer(asked, dice()) == said


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("How many legs does an insect have?", "An insect has six legs."),
        ("how many sides does a hexagon have", "A hexagon has six sides."),
        ("What is the capital of Kenya?", "The capital of Kenya is Nairobi."),
        ("Who wrote Hamlet?", "William Shakespeare wrote Hamlet."),
        ("What's the largest planet?", "Jupiter is the largest planet in the solar system."),
        ("How many keys does a piano have? Just the number.", "88."),
        ("What is the capital of Norway? Answer in one word.", "Oslo."),
    ],
)
def test_short_facts_come_from_the_table(asked: str, said: str) -> None:
    assert directives.answer(asked, dice()) == said


def test_every_fact_line_is_well_formed_and_found_by_its_own_words() -> None:
    assert len(directives.FACTS) >= 50
    for words, answer, short in directives.FACTS:
        assert words and answer.endswith((".", ")")) and short
        question = " ".join(sorted(words)) + "?"
        found = directives.fact(question)
        assert found is not None and found[0] == words or len(found[0]) >= len(words)


@pytest.mark.parametrize(
    "asked",
    [
        "What day of the week is it?",
        "Write a blog post about the capital markets",
        "Describe your week",
        "Choose between React and Vue for a small team, and say why.",
        "Which is better for a beginner, piano or guitar?",
    ],
)
def test_a_question_that_only_shares_words_with_a_fact_is_not_answered_by_it(asked: str) -> None:
    assert directives.answer(asked, dice()) is None


@pytest.mark.parametrize(
    ("asked", "context", "allowed"),
    [
        ("Pick one: tea, coffee or juice. Only return the choice.", "", {"tea", "coffee", "juice"}),
        ("Choose between red and blue. Reply with just the colour.", "", {"red", "blue"}),
        ("Select the next speaker from [writer, editor, publisher]. Only return the role.", "", None),
        (
            "Select the next role from [analyst, tester, manager]. Only return the role.",
            "The tests are failing; the tester should look at them.",
            {"tester"},
        ),
    ],
)
def test_a_choice_is_one_of_the_options_given(asked: str, context: str, allowed: set[str] | None) -> None:
    listed, _ = directives.options(asked)
    chosen = directives.answer(asked, dice(), context)
    assert chosen in (allowed or set(listed)), (chosen, listed)


@pytest.mark.parametrize("asked", ["Is the ocean salty? Answer yes or no.", "Can cats swim? Reply with yes or no"])
def test_yes_or_no_is_a_yes_or_a_no(asked: str) -> None:
    assert directives.answer(asked, dice()) in ("Yes.", "No.")


WRITTEN = (
    "A compass points north because its needle is a small magnet. The Earth acts like a huge magnet too, and the "
    "needle lines up with its field. That field runs roughly between the magnetic poles, which sit near the "
    "geographic ones. Iron nearby can pull the needle off, so hold it away from metal.\n\n- **Tip**: keep it level."
)


@pytest.mark.parametrize(
    ("asked", "most"),
    [
        ("Explain how a compass works in under 25 words.", 24),
        ("Explain how a compass works in no more than 12 words.", 12),
        ("How does a compass work? Use at most 40 words.", 40),
        ("In 5 words, how does a compass work?", 5),
    ],
)
def test_a_word_limit_is_kept(asked: str, most: int) -> None:
    shaped = directives.shaped(asked, WRITTEN)
    assert 0 < len(shaped.split()) <= most and shaped.endswith((".", "!", "?")), shaped


@pytest.mark.parametrize(
    ("asked", "count"),
    [("In one sentence, why does a compass point north?", 1), ("Explain a compass in two sentences.", 2)],
)
def test_a_sentence_limit_is_kept(asked: str, count: int) -> None:
    shaped = directives.shaped(asked, WRITTEN)
    assert shaped.count(". ") + 1 == count and shaped.endswith(".")


def test_an_answer_with_no_limit_is_unchanged() -> None:
    assert directives.shaped("How does a compass work?", WRITTEN) == WRITTEN


def test_the_default_answer_keeps_them_through_the_sdk(server: Server) -> None:
    with server.openai() as client:

        def ask(text: str, system: str = "") -> str:
            messages: Any = [{"role": "system", "content": system}] if system else []
            made = client.chat.completions.create(model="m", messages=[*messages, {"role": "user", "content": text}])
            return made.choices[0].message.content or ""

        assert ask("What is 125 times 4?") == "125 × 4 = 500."
        assert ask("How many continents are there? Answer in one word.") == "Seven."
        assert ask("Pick one: north, south, east or west. Only return the choice.") in (
            "north",
            "south",
            "east",
            "west",
        )
        assert len(ask("Describe how a bicycle works in under 20 words.").split()) < 20
        chosen = ask(
            "Select the next role from [researcher, writer]. Only return the role.", "Ask the writer to draft it."
        )
        assert chosen == "writer"


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("Is Saturn the largest planet? Answer yes or no.", "No."),
        ("Is Everest the highest mountain? Reply with yes or no.", "Yes."),
        ("Does a spider have eight legs?", "Yes. A spider has eight legs."),
        ("Does an ant have eight legs?", "No. An ant has six legs, as every insect does."),
        ("Is Lisbon the capital of Spain?", "No. The capital of Spain is Madrid."),
    ],
)
def test_a_yes_or_no_question_a_fact_answers_is_decided_by_it(asked: str, said: str) -> None:
    assert directives.answer(asked, dice()) == said


@pytest.mark.parametrize(
    ("asked", "chosen"),
    [
        ("Which one is a vegetable: mango, broccoli or plum? Only return the name.", "broccoli"),
        ("Which is a continent: Peru, Africa or Texas? Reply with just the name.", "Africa"),
        ("Which of these is a noble gas: argon, iron, copper? One word.", "argon"),
    ],
)
def test_which_is_of_a_kind_is_chosen_by_the_members_table(asked: str, chosen: str) -> None:
    for roll in range(3):  # whatever the dice say
        assert directives.answer(asked, itertools.cycle([roll])) == chosen


def test_a_standing_limit_in_the_system_prompt_holds_for_every_answer() -> None:
    from emulator.core.conversation import Message, Prompt
    from emulator.default_model.generate import Writer, default_reply

    messages = (Message("system", "Keep every reply under 30 words."), Message("user", "How do tides work?"))
    prompt = Prompt(dialect="sample", model="m", messages=messages, conversation="tides")
    assert 0 < len(default_reply(prompt, Writer(2)).text.split()) < 30


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("How many seconds are there in 2 minutes?", "2 minutes is 120 seconds."),
        ("Convert 3 kg to grams", "3 kilograms is 3000 grams."),
        ("How many inches in a foot?", "1 foot is 12 inches."),
        ("Convert 10 miles to km.", "10 miles is 16.0934 kilometres."),
    ],
)
def test_units_are_converted_within_a_dimension(asked: str, said: str) -> None:
    assert directives.answer(asked, dice()) == said


def test_units_of_different_dimensions_are_not_converted() -> None:
    assert directives.answer("How many grams are in 3 hours?", dice()) is None


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("Is 97 a prime number?", "Yes."),
        ("Is 221 prime?", "No."),
        ("Is 3 * 4 equal to 12?", "Yes."),
        ("Is 10 divisible by 4?", "No."),
        ("Is 1000 an even number?", "Yes."),
    ],
)
def test_a_yes_or_no_arithmetic_decides_is_worked_out(asked: str, said: str) -> None:
    for roll in range(2):  # not the dice's
        assert (directives.answer(asked, itertools.cycle([roll])) or "").split()[0] == said
    assert directives.answer(f"{asked} Answer yes or no.", dice()) == said


def test_a_rate_problem_reads_the_distance_apart_from_the_speed() -> None:
    said = directives.answer("A bus covers 90 km at 60 km/h. How long does it take?", dice())
    assert said == "90 km at 60 km/h takes 1 hour 30 minutes."


@pytest.mark.parametrize(
    ("asked", "label"),
    [
        (
            'Classify this review as positive, negative or neutral: "Rude staff and a dirty room." Only the label.',
            "negative",
        ),
        ("Label the sentiment as Positive or Negative: what a lovely, friendly little cafe.", "Positive"),
        ("Categorize this comment as positive, negative or neutral: The parcel arrived on Tuesday.", "neutral"),
    ],
)
def test_a_sentiment_label_is_chosen_by_the_texts_words(asked: str, label: str) -> None:
    assert directives.answer(asked, dice()) == label


def test_pick_one_of_a_list_ends_where_its_purpose_begins() -> None:
    said = directives.answer("Pick one of oak, maple or birch for a small garden.", dice())
    assert said in ("oak", "maple", "birch")


@pytest.mark.parametrize(
    ("asked", "said"),
    [
        ("Yes or no: can an ostrich fly?", "No."),
        ("Can a penguin fly?", "No: penguins cannot fly; their wings work as flippers for swimming."),
        ("In one word, what do you get by mixing red and white?", "Pink."),
    ],
)
def test_facts_answer_yes_or_no_and_one_word_asked_first(asked: str, said: str) -> None:
    assert directives.answer(asked, dice()) == said
