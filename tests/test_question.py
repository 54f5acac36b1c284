"""Reading the question: its topics, its kind of answer, its names and numbers, a schema written in the prompt."""

from __future__ import annotations

import json

import pytest

from emulator.core.conversation import Message, Prompt
from emulator.default_model import question

PERSON = {"properties": {"name": {"type": "string"}, "age": {"type": "integer"}}, "required": ["name", "age"]}
# instructor 1.17's JSON mode, as it sent it: the schema in the system prompt, indented.
INSTRUCTOR_SYSTEM = (
    "\n            As a genius expert, your task is to understand the content and provide\n            the parsed "
    "objects in json that match the following json_schema:\n\n\n            "
    + json.dumps(PERSON | {"title": "Person", "type": "object"}, indent=2)
    + "\n\n            Make sure to return an instance of the JSON, not the schema itself\n"
)
MD_JSON_ASK = "Return the correct JSON response within a ```json codeblock. not the JSON_SCHEMA"


@pytest.mark.parametrize(
    ("text", "kind", "clause", "language"),
    [
        ("hi", "greeting", "", ""),
        ("Good morning!", "greeting", "", ""),
        ("Tell me about rate limits.", "short", "", ""),
        ("Why is my Go map iteration order random?", "prose", "", "go"),
        ("What are the benefits of unit tests?", "list", "the benefits of unit tests", ""),
        ("List five uses of Redis", "list", "five uses of Redis", ""),
        ("How do I reverse my list in Python?", "steps", "reverse your list in Python", "python"),
        ("how to set up a venv", "steps", "set up a venv", ""),
        ("Write a Python function that checks whether a string is a palindrome", "code", "that checks", "python"),
        ("Can you write a Rust function to parse a date?", "code", "to parse a date", "rust"),
        ("Write a function to reverse a string", "code", "to reverse a string", "python"),  # a model's pick
        ("Write a C++ class for a ring buffer", "code", "for a ring buffer", "cpp"),
        ("What is a Python class?", "short", "", "python"),  # asks about code, does not ask for it
        ("Write a haiku about the sea", "short", "", ""),
    ],
)
def test_a_question_asks_for_its_kind_of_answer(text: str, kind: str, clause: str, language: str) -> None:
    read = question.read(text)
    assert (read.kind, read.language[0]) == (kind, language)
    assert read.clause.startswith(clause)


@pytest.mark.parametrize(
    ("text", "topic", "nouns"),
    [
        (
            "Why is my Go map iteration order random?",
            "Go map iteration order",
            {"go", "map", "iteration", "order", "random"},
        ),
        ("Tell me about rate limits.", "rate limits", {"rate", "limit"}),
        ("Create a file named hello.txt", "file", {"file", "hello.txt"}),  # `create`, `named`: verbs, no nouns
        ("Run the build, then check the logs", "build", {"build", "log"}),  # "the build": a determiner makes a noun
        ("Why does os.path.join drop my prefix?", "`os.path.join` drop", {"os.path.join", "drop", "prefix"}),
        ("What's the weather in Paris?", "weather", {"weather", "paris"}),
    ],
)
def test_the_salient_words_name_the_subject_and_verbs_are_no_nouns(text: str, topic: str, nouns: set[str]) -> None:
    read = question.read(text)
    assert read.topic == topic
    assert read.nouns == nouns


def test_names_numbers_and_counts_are_read() -> None:
    read = question.read("Extract the person: Jason is 25 years old, born in Lyon.")
    assert (read.names, read.numbers) == (("Jason", "Lyon"), (25,))
    assert question.read("List the 3 best editors").count == 3
    assert question.read("What are the benefits of tests?").count == 0


@pytest.mark.parametrize(
    ("word", "stem"),
    [("cities", "city"), ("conditions", "condition"), ("boxes", "box"), ("classes", "class"), ("cases", "case")]
    + [("status", "status"), ("analysis", "analysis"), ("people", "person"), ("Rust's", "rust"), ("`tokens`", "token")],
)
def test_stems_match_plurals(word: str, stem: str) -> None:
    assert question.stem(word) == stem


def prompt(*messages: Message) -> Prompt:
    return Prompt(dialect="t", model="m", messages=messages)


def test_a_schema_in_the_prompt_is_found_and_a_json_block_asked_for() -> None:
    asked = prompt(Message("system", INSTRUCTOR_SYSTEM), Message("user", "Jason is 25. " + MD_JSON_ASK))
    assert question.schema_in(asked) == PERSON | {"title": "Person", "type": "object"}
    assert question.asks_for_json_block(asked, question.read(asked.last_user_text))
    in_user = prompt(Message("user", 'Answer as JSON matching {"type": "array", "items": {"type": "string"}}'))
    assert question.schema_in(in_user) == {"type": "array", "items": {"type": "string"}}
    assert not question.asks_for_json_block(in_user, question.read(in_user.last_user_text))


@pytest.mark.parametrize(
    "text",
    ['Reply with {"ok": true}', '{"properties": [1, 2]}', '{"broken": ', "no braces", '{"type": "string"}'],
)
def test_json_that_is_no_schema_is_not_taken_for_one(text: str) -> None:
    assert question.schema_in(prompt(Message("user", text))) is None
