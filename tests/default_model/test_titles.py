"""An agent framework's title generator (opencode's system prompt, Claude Code's "write a 5-10 word title") gets
one short title line named from the conversation's words, the same in every dialect, streamed or not; a question
that only mentions a title is answered as before."""

from __future__ import annotations

import pytest

from tests.default_model.test_protocols import recognised, said

# Our own wording of the two shapes such requests take: the instruction in the system prompt, or in the user's
# message around the conversation it quotes.
SYSTEM = "You are a title generator. You output only a short thread title for the conversation, nothing else."
QUOTING = "Please write a 5-10 word title for the following conversation:\n\nUser: {}\n\nRespond with the title only."


@pytest.mark.parametrize(
    ("system", "user", "wanted"),
    [
        (SYSTEM, "How do I reverse a linked list in Python?", "reverse a linked list"),
        (SYSTEM, "Why does my sourdough starter smell like acetone?", "sourdough starter"),
        (SYSTEM, "Tell me a joke about penguins", "penguins"),
        ("", QUOTING.format("Should I use Postgres or MySQL for a small web app?"), "Postgres vs MySQL"),
        ("", QUOTING.format("write a python function that parses dates"), "function that parses dates"),
        ("", QUOTING.format("What is a heat pump?"), "heat pump"),
    ],
)
def test_a_title_request_gets_one_short_title_line_from_the_conversations_words(
    system: str, user: str, wanted: str
) -> None:
    assert recognised(system, user) == "title"
    text = said(system, ("user", user))
    assert "\n" not in text and 1 <= len(text.split()) <= 10, text
    assert wanted.lower() in text.lower() and text[0].isupper() and text[-1] not in ".!?:", text
    assert "title" not in text.lower() and "your" not in text.lower().split()


@pytest.mark.parametrize(
    "user",
    [
        "Suggest title ideas for my blog about gardening",
        "What is the title of the first Harry Potter book?",
        "Write a story about a lighthouse keeper",
    ],
)
def test_a_question_that_mentions_a_title_is_no_title_request(user: str) -> None:
    assert recognised("", user) is None
