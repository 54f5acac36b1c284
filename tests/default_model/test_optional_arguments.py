"""A forced tool call (`tool_choice: required`, or a named function) takes every property the question names,
optional ones as well as required ones: a date, an enum's option written as words, a count, a price; what it does
not name stays out. Pairs (`origin`/`destination`, `base`/`quote`) read the question's direction; a lone `to`
(an email's) is no pair. Tools and questions of this file's own."""

from __future__ import annotations

import json
from typing import Any

import pytest

from emulator.core.conversation import Message, Prompt, Tool, ToolChoice
from emulator.default_model.generate import Writer, default_reply

FLIGHTS = Tool(
    "search_flights",
    description="Search flights between two cities.",
    parameters={
        "type": "object",
        "properties": {
            "origin": {"type": "string"},
            "destination": {"type": "string"},
            "date": {"type": "string", "description": "Departure date, YYYY-MM-DD"},
            "cabin": {"type": "string", "enum": ["economy", "premium_economy", "business", "first"]},
            "passengers": {"type": "integer", "minimum": 1},
        },
        "required": ["origin", "destination"],
    },
)
HOTELS = Tool(
    "find_hotels",
    description="Find hotels in a city.",
    parameters={
        "type": "object",
        "properties": {
            "city": {"type": "string"},
            "check_in": {"type": "string", "format": "date"},
            "nights": {"type": "integer"},
            "max_price": {"type": "number", "description": "Highest nightly price"},
            "currency": {"type": "string"},
            "stars": {"type": "string", "enum": ["any", "three", "four", "five"]},
        },
        "required": ["city"],
    },
)
EMAIL = Tool(
    "send_email",
    description="Send an email.",
    parameters={
        "type": "object",
        "properties": {
            "to": {"type": "string", "format": "email"},
            "subject": {"type": "string"},
            "cc": {"type": "string", "format": "email"},
            "priority": {"type": "string", "enum": ["low", "normal", "high"]},
        },
        "required": ["to"],
    },
)
RATE = Tool(
    "exchange_rate",
    description="The exchange rate between two currencies.",
    parameters={
        "type": "object",
        "properties": {"base": {"type": "string"}, "quote": {"type": "string"}, "amount": {"type": "number"}},
        "required": ["base", "quote"],
    },
)
TOOLS = (EMAIL, HOTELS, FLIGHTS, RATE)


def forced(question: str, choice: ToolChoice) -> dict[str, Any]:
    asked = Prompt(
        dialect="chat",
        model="m",
        messages=(Message("user", question),),
        tools=TOOLS,
        tool_choice=choice,
        conversation="o " + question,
    )
    (call,) = default_reply(asked, Writer(0)).tool_calls
    arguments: dict[str, Any] = json.loads(call.arguments)
    return {"tool": call.name, **arguments}


CASES = [
    (
        "Find flights from Oslo to Rome on 12 May in business class",
        {"tool": "search_flights", "origin": "Oslo", "destination": "Rome", "date": "2026-05-12", "cabin": "business"},
    ),
    (
        "Any flights to Lisbon from Berlin on June 3rd for 2 passengers, premium economy?",
        {
            "tool": "search_flights",
            "origin": "Berlin",
            "destination": "Lisbon",
            "date": "2026-06-03",
            "passengers": 2,
            "cabin": "premium_economy",
        },
    ),
    ("Flights from Oslo to Rome", {"tool": "search_flights", "origin": "Oslo", "destination": "Rome"}),
    (
        "Hotels in Porto from 4 July for 3 nights under 120 EUR, five stars",
        {
            "tool": "find_hotels",
            "city": "Porto",
            "check_in": "2026-07-04",
            "nights": 3,
            "max_price": 120,
            "currency": "EUR",
            "stars": "five",
        },
    ),
    ("Hotels in Porto", {"tool": "find_hotels", "city": "Porto"}),
    (
        'Email ana@example.com with the subject "Lunch", cc bo@example.com, high priority',
        {"tool": "send_email", "to": "ana@example.com", "subject": "Lunch", "cc": "bo@example.com", "priority": "high"},
    ),
    (
        "How many Norwegian kroner is 250 euros at the exchange rate?",
        {"tool": "exchange_rate", "base": "EUR", "quote": "NOK", "amount": 250},
    ),
]


@pytest.mark.parametrize(("question", "expected"), CASES, ids=[q for q, _ in CASES])
def test_a_required_call_takes_the_optional_properties_the_question_names(
    question: str, expected: dict[str, Any]
) -> None:
    assert forced(question, ToolChoice("required")) == expected


@pytest.mark.parametrize(("question", "expected"), CASES, ids=[q for q, _ in CASES])
def test_a_named_call_takes_them_too(question: str, expected: dict[str, Any]) -> None:
    assert forced(question, ToolChoice("required", name=expected["tool"])) == expected


def test_an_enum_option_is_taken_only_as_written_and_the_longest_wins() -> None:
    assert forced("Flights from Oslo to Rome in economy", ToolChoice("required", name="search_flights"))["cabin"] == (
        "economy"
    )
    said = forced("Flights from Oslo to Rome, first thing tomorrow", ToolChoice("required", name="search_flights"))
    assert said.get("cabin") in (None, "first")  # "first" is written; a word of an option can be taken
    assert "cabin" not in forced("Flights from Oslo to Rome", ToolChoice("required", name="search_flights"))
