"""An agent's turn with no scenario: no tool for a greeting, small talk or a question the tools do not serve (with
Codex's and Claude Code's real tool lists, as they send them); a hand-off between agents (the OpenAI Agents SDK's
`transfer_to_…` tools, whose result names the agent) goes to the agent whose domain the question is in, and that
agent answers the user's question, never the transfer's result. Conversations of this file's own."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from emulator.core.conversation import Message, Prompt, Tool, ToolCall
from emulator.default_model import loop, mentions, relevance
from emulator.default_model.generate import Writer, default_reply
from emulator.default_model.mentions import NONE
from emulator.default_model.question import read
from emulator.dialects import anthropic_messages, openai_responses

AGENTS = Path(__file__).parent.parent / "agents"
CODEX = json.loads((AGENTS / "codex-tools.json").read_text())
CLAUDE = json.loads((AGENTS / "claude-code-tools.json").read_text())["tools"]
# What Codex sends before the prompt: its working directory, a path the user never named.
ENVIRONMENT = (
    "<environment_context>\n  <cwd>/home/ada/projects/kiln</cwd>\n  <shell>bash</shell>\n"
    "  <current_date>2026-05-01</current_date>\n  <timezone>Etc/UTC</timezone>\n</environment_context>"
)
AGENTS_MD = "# AGENTS.md instructions for /home/ada/projects/kiln\n\n<INSTRUCTIONS>\nRun make test.\n</INSTRUCTIONS>"
REMINDER = "<system-reminder>\nThe working directory is /home/ada/projects/kiln.\n</system-reminder>\n"
CHAT = [
    "say hi",
    "Say hello to the team",
    "hi",
    "Hello there!",
    "Hey, how are you?",
    "good morning",
    "thanks!",
    "Great, thank you so much",
    "bye for now",
]
UNSERVED = [
    "What's the capital of Portugal?",
    "what's in this folder?",
    "Tell me a joke about compilers",
]


def codex(text: str, model: str) -> Prompt:
    inputs = [
        {"role": "developer", "content": "You are Codex, a coding agent running in the Codex CLI."},
        {"role": "user", "content": AGENTS_MD},
        {"role": "user", "content": ENVIRONMENT},
        {"role": "user", "content": text},
    ]
    body = {"model": model, "input": inputs, "tools": CODEX[model], "tool_choice": "auto", "parallel_tool_calls": True}
    return openai_responses.parse_request(body, {})


def claude_code(text: str) -> Prompt:
    content = [{"type": "text", "text": REMINDER}, {"type": "text", "text": text}]
    body = {"model": "m", "max_tokens": 100, "messages": [{"role": "user", "content": content}], "tools": CLAUDE}
    return anthropic_messages.parse_request(body, {})


def agent_prompts(texts: list[str]) -> list[Any]:
    made = [pytest.param(codex(t, m), id=f"codex-{m}: {t}") for t in texts for m in ("gpt-5", "gpt-5.5")]
    return made + [pytest.param(claude_code(t), id=f"claude-code: {t}") for t in texts]


@pytest.mark.parametrize(
    "asked", [*agent_prompts(CHAT + UNSERVED), pytest.param(codex("show me README.md", "gpt-5"), id="codex: README")]
)
def test_greetings_small_talk_and_unserved_questions_get_words_and_no_tool(asked: Prompt) -> None:
    reply = default_reply(asked, Writer(0))
    assert reply.tool_calls == () and reply.text.strip()


def test_a_greeting_is_answered_as_one() -> None:
    for asked in (codex("say hi", "gpt-5"), claude_code("say hi")):
        text = default_reply(asked, Writer(0)).text
        assert len(text) < 120 and "?" in text, text  # a greeting and an offer to help, no lecture


@pytest.mark.parametrize("model", ["gpt-5", "gpt-5.5"])
def test_codex_views_an_image_the_user_names_and_only_an_image(model: str) -> None:
    (call,) = default_reply(codex("look at docs/screenshot.png", model), Writer(0)).tool_calls
    assert call.name == "view_image" and json.loads(call.arguments) == {"path": "docs/screenshot.png"}
    # Of two files named, the image goes to the tool that takes images.
    (call,) = default_reply(codex("open notes.md and view diagram.jpg", model), Writer(0)).tool_calls
    assert json.loads(call.arguments) == {"path": "diagram.jpg"}


def test_what_a_file_says_is_still_read() -> None:
    read_tool = Tool(
        "read_file",
        description="Reads a file.",
        parameters={"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    )
    asked = Prompt(
        dialect="chat", model="m", messages=(Message("user", "What does notes.txt say?"),), tools=(read_tool,)
    )
    (call,) = default_reply(asked, Writer(0)).tool_calls
    assert json.loads(call.arguments) == {"path": "notes.txt"}


# --- hand-offs ---------------------------------------------------------------------------------------------------

EMPTY: dict[str, Any] = {"type": "object", "properties": {}, "required": [], "additionalProperties": False}


def transfer(name: str, description: str) -> Tool:
    """A hand-off tool as the OpenAI Agents SDK makes one."""
    said = f"Handoff to the {name} agent to handle the request. {description}"
    return Tool(f"transfer_to_{name.lower().replace(' ', '_')}", description=said, parameters=EMPTY)


TIDES = transfer("Harbour Master", "Answers questions about tides, moorings and harbour fees.")
MONEY = transfer("Treasurer", "Handles currencies, exchange rates and payments.")
MATHS = transfer("Tutor", "Helps with math homework.")
TRIAGE = (TIDES, MONEY, MATHS)
TIDE_TABLE = Tool(
    "tide_table",
    description="High and low tides for a harbour.",
    parameters={"type": "object", "properties": {"harbour": {"type": "string"}}, "required": ["harbour"]},
)


def conversation(*messages: Message, tools: tuple[Tool, ...] = (), system: str = "") -> Prompt:
    said = (Message("system", system),) if system else ()
    return Prompt(
        dialect="chat", model="m", messages=(*said, *messages), tools=tools, conversation="h " + messages[0].text
    )


@pytest.mark.parametrize(
    ("question", "to"),
    [
        ("When is high tide at the harbour in Stromness?", TIDES),
        ("What does a mooring cost for a week?", TIDES),
        ("How many kroner do I get for 200 euros?", MONEY),
        ("What is 17 times 23?", MATHS),
        ("Write a haiku about spring.", None),
        ("hello!", None),
    ],
)
def test_triage_hands_the_question_to_the_agent_of_its_domain(question: str, to: Tool | None) -> None:
    asked = conversation(Message("user", question), tools=TRIAGE)
    reply = default_reply(asked, Writer(0))
    assert [c.name for c in reply.tool_calls] == ([to.name] if to else [])
    assert json.loads(reply.tool_calls[0].arguments) == {} if to else reply.text


def handed(question: str, *, result: str = '{"assistant": "Harbour Master"}') -> list[Message]:
    """The conversation the agent a task went to gets: the question, the transfer, its result."""
    call = ToolCall("call_1", TIDES.name, "{}")
    return [
        Message("user", question),
        Message("assistant", tool_calls=(call,)),
        Message("tool", result, tool_call_id="call_1"),
    ]


def test_a_hand_off_is_seen_past_whatever_its_tool_is_named() -> None:
    messages = handed("When is high tide at Stromness?")
    assert loop.handoffs(messages) == {"call_1"}
    renamed = [*messages[:1], Message("assistant", tool_calls=(ToolCall("c", "pass_along", "{}"),)), messages[2]]
    renamed[2] = Message("tool", '{"assistant": "Harbour Master"}', tool_call_id="c")
    assert loop.handoffs(renamed) == {"c"}  # by its result
    assert loop.handing_off("handoffToReviewer") and loop.handing_off("escalate_to_human")
    assert not loop.handing_off("transfer_funds") and not loop.handing_off("get_transfer_status")
    assert loop.final(conversation(*messages)) == messages[0]


def test_the_agent_handed_to_calls_its_own_tool_then_answers_from_its_result() -> None:
    system = "You are the Harbour Master. Answer questions about tides."
    tools = (TIDE_TABLE, transfer("Triage", "Routes questions."))  # it may hand back: it does not, once handed
    messages = handed("When is high tide at the harbour in Stromness?")
    first = default_reply(conversation(*messages, tools=tools, system=system), Writer(0))
    (call,) = first.tool_calls
    assert call.name == "tide_table" and json.loads(call.arguments) == {"harbour": "Stromness"}
    done = [*messages, Message("assistant", tool_calls=(ToolCall("call_2", call.name, call.arguments),))]
    done.append(Message("tool", "High tide 14:12 (3.1 m), low tide 20:25", tool_call_id="call_2"))
    final = default_reply(conversation(*done, tools=tools, system=system), Writer(0))
    assert final.tool_calls == () and "14:12" in final.text and "assistant" not in final.text
    assert loop.results(conversation(*done)) == [("tide_table", "High tide 14:12 (3.1 m), low tide 20:25")]


@pytest.mark.parametrize(
    "question",
    ["What does a mooring cost for a week?", "How should I tie up a small boat?", "Thanks, bye!"],
)
def test_the_agent_handed_to_answers_the_question_not_the_transfer(question: str) -> None:
    asked = conversation(*handed(question), tools=(TIDE_TABLE,), system="You are the Harbour Master.")
    reply = default_reply(asked, Writer(0))
    assert reply.tool_calls == () and reply.text
    assert "assistant" not in reply.text and "Harbour Master" not in reply.text and "transfer" not in reply.text
    plain = default_reply(conversation(Message("user", question), tools=(TIDE_TABLE,)), Writer(0))
    assert reply.text == plain.text  # the same answer as had it been asked directly


def test_a_hand_off_tool_is_chosen_by_its_description_not_by_relevance_of_its_name() -> None:
    assert relevance.handing_to(TRIAGE, read("Are there fees for the harbour?"), NONE) is TIDES
    assert relevance.handing_to(TRIAGE, read("Tell me a story"), NONE) is None


def test_codexs_environment_gives_the_conversation_its_date_but_no_path() -> None:
    found = mentions.conversation(codex("book a table for tomorrow", "gpt-5"))
    assert found.today == "2026-05-01" and found.dates == ("2026-05-02",) and found.paths == ()
