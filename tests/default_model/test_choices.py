"""DSPy fields the default fills by what the input says (`options`): a `Literal[…]` option by meaning, a
`list[str]` with the input's noun phrases, and strings cut at a word. Signatures and inputs of this file's own,
each through Chat, Responses and Messages, streamed and not (`said`)."""

from __future__ import annotations

import json
import random
from dataclasses import replace

import pytest

from emulator.default_model import options
from emulator.default_model.generate import default_reply
from emulator.default_model.instances import cut, instance
from tests.default_model.test_protocols import WRITER, prompts, said, sections


def signature(inputs: dict[str, str], outputs: dict[str, str], objective: str) -> str:
    """A system prompt in the shape DSPy's ChatAdapter writes for a signature."""
    lines = ["Your input fields are:"]
    lines += [f"{i}. `{name}` ({kind}):" for i, (name, kind) in enumerate(inputs.items(), 1)]
    lines += ["Your output fields are:"]
    lines += [f"{i}. `{name}` ({kind}):" for i, (name, kind) in enumerate(outputs.items(), 1)]
    lines += ["All interactions will be structured in the following way, with the appropriate values filled in.", ""]
    for name in [*inputs, *outputs]:
        lines += [f"[[ ## {name} ## ]]", f"{{{name}}}", ""]
    lines += ["[[ ## completed ## ]]", "In adhering to this structure, your objective is: ", f"        {objective}"]
    return "\n".join(lines)


def asked(inputs: dict[str, str], first: str) -> str:
    given = "\n\n".join(f"[[ ## {name} ## ]]\n{text}" for name, text in inputs.items())
    return f"{given}\n\nRespond with the corresponding output fields, starting with the field `[[ ## {first} ## ]]`."


def fields(outputs: dict[str, str], **inputs: str) -> dict[str, str]:
    system = signature(dict.fromkeys(inputs, "str"), outputs, "Read the message.")
    return sections(said(system, ("user", asked(inputs, next(iter(outputs))))))


MOOD = "Literal['positive', 'negative', 'neutral']"


@pytest.mark.parametrize(
    ("note", "mood"),
    [
        ("The pastry chef was brilliant and we enjoyed every course; I'd recommend it to anyone.", "positive"),
        ("Three weeks late, the lamp came broken and support was rude. Useless.", "negative"),
        ("The gallery opens at ten on weekdays and closes at six.", "neutral"),
        ("The concert was not good, and the seats were never comfortable.", "negative"),
    ],
)
def test_a_sentiment_option_follows_the_inputs_words(note: str, mood: str) -> None:
    assert fields({"mood": MOOD}, note=note)["mood"] == mood


@pytest.mark.parametrize(
    ("report", "rank"),
    [
        ("Payments fail for everyone in production since the deploy; this is blocking all orders.", "p0"),
        ("A cosmetic typo on the About page, fix whenever convenient.", "p3"),
        ("Add a field for a second phone number on the contact form.", "p2"),
    ],
)
def test_a_priority_option_follows_the_reports_urgency(report: str, rank: str) -> None:
    got = fields({"severity": "Literal['p3', 'p2', 'p1', 'p0']"}, report=report)
    assert got["severity"] == rank


def test_a_named_option_wins_and_sizes_and_answers_read_their_cues() -> None:
    got = fields(
        {"colour": "Literal['amber', 'teal', 'violet']", "fit": "Literal['small', 'medium', 'large']"},
        request="A teal raincoat, please: a huge one for a very tall hiker.",
    )
    assert got["colour"] == "teal" and got["fit"] == "large"
    got = fields({"approved": "Literal['yes', 'no']"}, memo="The board refused the budget; the answer is no.")
    assert got["approved"] == "no"


def test_an_option_without_evidence_is_the_same_for_the_same_conversation() -> None:
    outputs = {"shelf": "Literal['north', 'south', 'east', 'west']"}
    chosen = {fields(outputs, item="A box of assorted screws.")["shelf"] for _ in range(3)}
    assert len(chosen) == 1 and chosen <= {"north", "south", "east", "west"}
    picked = {
        options.pick(["north", "south", "east", "west"], "A box of assorted screws.", random.Random(seed))
        for seed in range(40)
    }
    assert len(picked) > 1  # seeded by the conversation, not fixed


def test_a_list_of_text_holds_the_inputs_noun_phrases() -> None:
    article = "The harbour authority in Valletta ordered new tugboats after the winter storms damaged the breakwater."
    topics = json.loads(fields({"topics": "list[str]"}, article=article)["topics"])
    assert topics and all(isinstance(t, str) and t.lower() in article.lower() for t in topics)
    assert any("tugboat" in t for t in topics) and "Valletta" in topics


def test_json_mode_picks_by_meaning_too() -> None:
    system = signature({"note": "str"}, {"mood": MOOD, "keywords": "list[str]"}, "Read the note.")
    user = asked({"note": "Our new espresso grinder is fantastic, the baristas love it."}, "mood")
    user = user.replace(
        "Respond with the corresponding output fields, starting with the field `[[ ## mood ## ]]`.",
        "Respond with a JSON object in the following order of fields: `mood`, then `keywords`.",
    )
    for prompt in prompts(system, [("user", user)]):
        prompt = replace(prompt, response_format=replace(prompt.response_format, type="json_object"))
        value = json.loads(default_reply(prompt, WRITER).text)
        assert value["mood"] == "positive" and "espresso grinder" in value["keywords"]


def test_a_cut_string_ends_at_a_word_with_nothing_dangling() -> None:
    assert cut("north pier, south pier and the old lighthouse road", 0, 24) == "north pier, south pier"
    assert cut("abcdefghij", 0, 4) == "abcd"  # no boundary: mid-word
    words = {w.lower() for w in WRITER.words}
    for seed in range(20):  # a sentence drawn for a `description` runs past the default 64 characters
        text = instance(DESCRIBED, random.Random(seed), WRITER.hints)["description"]
        assert len(text) <= 64 and text == text.strip() and text.split()[-1].lower().strip(".") in words, text


DESCRIBED = {"type": "object", "properties": {"description": {"type": "string"}}, "required": ["description"]}
