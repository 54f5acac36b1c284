"""JSON asked for in prose (`keyed`, `extract`): the keys the sentence names, as keys or as nouns, and values read
from what the conversation says, the landmarks table and the fact table; null where none of them holds one."""

from __future__ import annotations

import json
import re

import pytest

from emulator.core.conversation import Message, Prompt, Role
from emulator.default_model import extract
from emulator.default_model.generate import Writer, default_reply
from emulator.default_model.mentions import conversation

WRITER = Writer(3)


def answered(*turns: tuple[Role, str]) -> object:
    messages = tuple(Message(role, text) for role, text in turns)
    prompt = Prompt(dialect="sample", model="m", messages=messages, conversation=f"json {turns}")
    text = default_reply(prompt, WRITER).text
    block = re.fullmatch(r"```json\n(.*)\n```", text, re.S)
    return json.loads(block.group(1) if block else text)


@pytest.mark.parametrize(
    ("ask", "expected"),
    [
        ("Answer only with JSON giving the city and country of the Colosseum.", {"city": "Rome", "country": "Italy"}),
        (
            "Return the name, age and city of this customer as JSON: Henrik Dahl, 52, moved to Oslo last spring.",
            {"name": "Henrik Dahl", "age": 52, "city": "Oslo"},
        ),
        (
            "Output JSON containing the email and company from this note: reach Ana Ruiz at ana@ruiz.dev, Nimbus Labs.",
            {"email": "ana@ruiz.dev", "company": "Nimbus Labs"},
        ),
        ("Give me the capital and country of Kenya as JSON.", {"capital": "Nairobi", "country": "Kenya"}),
        (
            "Reply with JSON with the title and author of War and Peace.",
            {"title": "War and Peace", "author": "Leo Tolstoy"},
        ),
        ("Provide the landmark and country for the Taj Mahal, in JSON.", {"landmark": "Taj Mahal", "country": "India"}),
    ],
)
def test_keys_named_in_prose_get_the_values_the_prompt_gives(ask: str, expected: dict[str, object]) -> None:
    assert answered(("user", ask)) == expected


def test_a_list_key_gets_the_tables_members_for_the_place_named() -> None:
    got = answered(("user", "Reply with JSON giving the country and landmarks of Amsterdam."))
    assert got == {"country": "Netherlands", "landmarks": ["Rijksmuseum", "Anne Frank House"]}


def test_a_value_nothing_gives_is_null_not_made_up() -> None:
    got = answered(("user", "Reply with JSON giving the population and area of Bhutan."))
    assert got == {"population": None, "area": None}


def test_keys_named_as_keys_stop_where_what_they_describe_begins() -> None:
    got = answered(
        ("user", "Return JSON with fields name, age and city for this guest: Lena Vogt is 41 and lives in Vienna.")
    )
    assert got == {"name": "Lena Vogt", "age": 41, "city": "Vienna"}


def test_the_system_prompt_can_ask_and_the_user_message_gives_the_values() -> None:
    system: tuple[Role, str] = (
        "system",
        "Read the user's message and reply with a JSON object with keys sentiment and name.",
    )
    got = answered(system, ("user", "This is Omar Haddad. The parcel came late and broken, I am so disappointed."))
    assert got == {"sentiment": "negative", "name": "Omar Haddad"}


@pytest.mark.parametrize(
    "text",
    ["Explain JSON with the help of an example.", "What is JSON used for?", "Tell me why JSON beats XML for configs."],
)
def test_talk_about_json_is_no_request_for_it(text: str) -> None:
    messages = (Message("user", text),)
    prompt = Prompt(dialect="sample", model="m", messages=messages, conversation=text)
    said = default_reply(prompt, WRITER).text
    with pytest.raises(ValueError):
        json.loads(said)


def test_landmarks_are_found_by_any_of_their_names() -> None:
    assert extract.landmark("how tall is the great pyramid of giza?") == ("Pyramids of Giza", "Giza", "Egypt")
    assert extract.landmark("Ayers Rock at dawn") == ("Uluru", "Northern Territory", "Australia")
    assert extract.landmark("a tower in my town") is None


def test_a_city_named_gives_its_country() -> None:
    prompt = Prompt(dialect="sample", model="m", messages=(Message("user", "I live in Lyon."),), conversation="c")
    assert extract.value("country", "I live in Lyon.", conversation(prompt)) == "France"
    assert extract.value("homeTown", "I live in Lyon.", conversation(prompt)) == "Lyon"


def test_years_and_prices_are_read_from_the_text() -> None:
    got = answered(
        ("user", "Return JSON with keys title, year and price for: the film 'Nightfall Harbor' (2017) costs $12.99.")
    )
    assert got == {"title": "Nightfall Harbor", "year": 2017, "price": 12.99}
