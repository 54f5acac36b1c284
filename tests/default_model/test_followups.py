"""A follow-up works on the previous answer, and what the user said of themselves is recalled: the conversation is
the default answer's input, not only its last message. Through the SDKs too, in every dialect."""

from __future__ import annotations

import json
from typing import Any

import pytest

from emulator.core.conversation import Message
from emulator.default_model import followups
from tests.conftest import Server

EARLIER = (
    "Bread rises because yeast eats the sugars in the dough and gives off carbon dioxide. The gas is trapped by a "
    "web of gluten, so the dough swells. Heat in the oven makes the gas expand once more before the crust sets. "
    "Salt slows the yeast down, which is why recipes measure it."
)


def conversation(*turns: str) -> list[Message]:
    return [Message(role="user" if i % 2 == 0 else "assistant", text=t) for i, t in enumerate(turns)]


@pytest.mark.parametrize(
    ("said", "asked", "recalled"),
    [
        ("Hello! My name is Tomasz, nice to meet you.", "What's my name?", "Your name is Tomasz."),
        ("hey, call me Ines", "do you remember my name?", "Your name is Ines."),
        ("I live in Valparaíso and I love the sea.", "Where do I live?", "You said you live in Valparaíso."),
        ("I'm 34 years old and learning the cello.", "How old am I?", "You said you are 34."),
        ("I work as a welder at the shipyard.", "What do I do for work?", "You said you work as a welder."),
        ("My dog is called Biscuit.", "what is my dog's name?", "Your pet is called Biscuit."),
    ],
)
def test_what_the_user_stated_is_recalled(said: str, asked: str, recalled: str) -> None:
    assert followups.answer(conversation(said, "Good to know.", asked)) == recalled


def test_the_latest_statement_wins_and_nothing_stated_is_said_honestly() -> None:
    turns = conversation("My name is Ana.", "Hi Ana.", "Actually, call me Anabel.", "Sure.", "What is my name?")
    assert followups.answer(turns) == "Your name is Anabel."
    assert followups.answer(conversation("Where am I from?")) == "You haven't said where you live in this conversation."


@pytest.mark.parametrize("asked", ["Make it shorter.", "too long, tl;dr?", "Can you be more concise?"])
def test_shorter_is_shorter_than_the_previous_answer_and_part_of_it(asked: str) -> None:
    short = followups.answer(conversation("Why does bread rise?", EARLIER, asked))
    assert short and len(short.split()) < len(EARLIER.split()) and short.split(".")[0] in EARLIER


def test_the_previous_answer_as_a_list_in_json_and_in_one_sentence() -> None:
    listed = followups.answer(conversation("Why does bread rise?", EARLIER, "Turn that into a bulleted list"))
    assert listed and [line[:2] for line in listed.splitlines()] == ["- "] * 4
    made = followups.answer(conversation("Why does bread rise?", EARLIER, "Now give it to me as JSON"))
    assert made and json.loads(made)["points"][0].startswith("Bread rises")
    one = followups.answer(conversation("Why does bread rise?", EARLIER, "Say that in a single sentence."))
    assert one and one.count(". ") == 0 and one in EARLIER


@pytest.mark.parametrize("asked", ["Tell me about owls", "Make a shorter story about a fox", "What is JSON?"])
def test_a_new_question_is_no_follow_up(asked: str) -> None:
    assert followups.answer(conversation("Why does bread rise?", EARLIER, asked)) is None


def test_the_conversation_is_read_through_each_sdk(server: Server) -> None:
    with server.openai() as gpt, server.anthropic() as claude:
        history: Any = [{"role": "user", "content": "Hi! I'm Oluwaseun and I live in Lagos."}]
        first = gpt.chat.completions.create(model="m", messages=history).choices[0].message.content or ""
        asked = [*history, {"role": "assistant", "content": first}, {"role": "user", "content": "Where do I live?"}]
        assert gpt.chat.completions.create(model="m", messages=asked).choices[0].message.content == (
            "You said you live in Lagos."
        )
        made = claude.messages.create(
            model="m", max_tokens=400, messages=[*asked[:3], {"role": "user", "content": "What's my name?"}]
        )
        assert [b.text for b in made.content if b.type == "text"] == ["Your name is Oluwaseun."]
        why: Any = [{"role": "user", "content": "Why do leaves change colour in autumn?"}]
        long = gpt.chat.completions.create(model="m", messages=why).choices[0].message.content or ""
        again = [*why, {"role": "assistant", "content": long}, {"role": "user", "content": "Make it shorter"}]
        short = gpt.responses.create(model="m", input=again).output_text
        assert 0 < len(short.split()) < len(long.split())


def test_recall_reads_pets_named_in_passing_and_asked_in_other_words() -> None:
    told = [
        Message("user", "My cat Pixel knocked a glass over, I'm 37 and I live in Ghent."),
        Message("assistant", "Oh no!"),
    ]
    assert followups.answer([*told, Message("user", "What's the name of my cat?")]) == "Your pet is called Pixel."
    assert "37" in (followups.answer([*told, Message("user", "How old did I tell you I am?")]) or "")
    assert "Ghent" in (followups.answer([*told, Message("user", "Which city did I say I live in?")]) or "")


def test_json_with_keys_takes_the_figures_of_the_previous_answer() -> None:
    said = "Mount Fuji rises to 3,776 m. Its last eruption was in 1707, and about 300,000 people climb it each year."
    turns = [Message("user", "Tell me about Fuji."), Message("assistant", said)]
    got = followups.answer([*turns, Message("user", "Now as JSON with keys height_m, eruption_year and climbers.")])
    assert json.loads(got or "") == {"height_m": 3776, "eruption_year": 1707, "climbers": 300000}


def test_a_one_sentence_answer_becomes_a_list_of_its_parts() -> None:
    said = "Pack light layers, a rain jacket, sturdy shoes, and a refillable bottle."
    turns = [Message("user", "What to pack?"), Message("assistant", said), Message("user", "As a bullet list please.")]
    assert (followups.answer(turns) or "").count("\n- ") == 3
