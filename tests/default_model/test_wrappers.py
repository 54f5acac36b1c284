"""A framework's prompt wrapper is read as the task it carries, a group chat's speaker selector gets one role of its
list, and another participant's turn in a group chat is no new question. The prompts here are shaped like those
frameworks' wrappers, in words written for these tests; tests/test_framework_wrappers.py drives the real ones."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest

from emulator.core import identity
from emulator.core.conversation import Message, Prompt, Tool
from emulator.default_model import wrappers
from emulator.default_model.generate import Writer, default_reply

WRITER = Writer(0)


def prompt(*messages: Message, tools: tuple[Tool, ...] = ()) -> Prompt:
    made = Prompt(dialect="t", model="m", messages=messages, tools=tools)
    return replace(made, conversation=identity.conversation(made))


def answered(*messages: Message, tools: tuple[Tool, ...] = ()) -> Any:
    return default_reply(prompt(*messages, tools=tools), WRITER)


# --- a task in a wrapper ------------------------------------------------------------------------------------------

WRAPPED = [
    (
        "\nCurrent Task: Compare two ways of storing a sourdough starter.\n\nExpected output: a short table of pros and"
        " cons.\nGive your final answer only.",
        "Compare two ways of storing a sourdough starter.",
        "a short table of pros and cons.",
    ),
    (
        "## Your task:\nDraft a packing list for a week of winter camping in Norway.\n\n"
        "The expected output is: a bulleted list of at most ten items\n\nProvide your complete response:",
        "Draft a packing list for a week of winter camping in Norway.",
        "a bulleted list of at most ten items",
    ),
    (
        "TASK - Summarise why the 1906 San Francisco fire spread so fast.\n"
        "Acceptance criteria: no more than eighty words.\nBegin! Put your answer after the word Answer.",
        "Summarise why the 1906 San Francisco fire spread so fast.",
        "no more than eighty words.",
    ),
    (
        "Task: List the moons of Mars.\n\nThis is the context you are working with:\nan earlier note on Phobos.\n\n"
        "You must give your best final answer.",
        "List the moons of Mars.",
        "",
    ),
]


@pytest.mark.parametrize(("text", "task", "criteria"), WRAPPED)
def test_a_wrapper_gives_the_task_it_carries_and_its_criteria(text: str, task: str, criteria: str) -> None:
    assert wrappers.carried(text) == (task, criteria)


@pytest.mark.parametrize(
    "text",
    [
        "What is a task queue, and when would I use one?",
        "Task: buy milk and eggs on the way home.",  # a task section alone: no wrapper around it
        "My task for today is to fix the build. Expected output is green CI. Any tips?",  # not at a line's start
        "",
    ],
)
def test_plain_messages_are_no_wrappers(text: str) -> None:
    assert wrappers.carried(text) is None
    plain = prompt(Message("user", text or "hi"))
    assert wrappers.unwrapped(plain) is plain


def test_the_default_answers_the_task_not_the_wrappers_words() -> None:
    for text, task, _ in WRAPPED:
        said = answered(Message("system", "You are a careful assistant."), Message("user", text)).text
        assert "criteria" not in said.lower() and "final answer" not in said.lower(), said
        subject = {w.strip(".,").lower() for w in task.split()[1:] if len(w) > 4}
        assert subject & {w.strip(".,*:`").lower() for w in said.split()}, (task, said)


def test_a_research_task_is_read_as_how_to_do_it() -> None:
    text = "Current Task: Research how to keep honey bees alive through a cold winter.\n\nExpected output: advice."
    unwrapped = wrappers.unwrapped(prompt(Message("user", text)))
    assert unwrapped.messages[0].text == "How to keep honey bees alive through a cold winter."


def test_a_tool_argument_comes_from_the_task_not_from_the_wrapper() -> None:
    tides = Tool(
        "tide_table",
        description="Today's high and low tide times at a harbour.",
        parameters={"type": "object", "properties": {"harbour": {"type": "string"}}, "required": ["harbour"]},
    )
    text = (
        "Current Task: When is high tide at Port Isaac harbour today? Check the tide table.\n\n"
        "This is the expected criteria for your final answer: the tide times.\nYou must give the final answer."
    )
    reply = answered(Message("user", text), tools=(tides,))
    assert [(c.name, json.loads(c.arguments)) for c in reply.tool_calls] == [("tide_table", {"harbour": "Port Isaac"})]


# --- a speaker selector -------------------------------------------------------------------------------------------


def selector(roles: dict[str, str], said: list[tuple[str, str]], listed: list[str]) -> str:
    lines = "\n".join(f"{name}: {description}" for name, description in roles.items())
    chat = "\n\n".join(f"{who}: {words}" for who, words in said)
    return (
        f"These members are in the team:\n{lines}\n\nThe chat so far:\n\n{chat}\n\n"
        f"Choose the next speaker from {listed!r}. Only return the name."
    )


KITCHEN = {
    "chef": "Cooks the dishes and plans the menu for the evening.",
    "sommelier": "Pairs wines with food and knows every vineyard.",
    "waiter": "Serves the guests and takes their orders.",
}
ROCKETS = {
    "engineer": "Designs the rocket engine and checks the thrust figures.",
    "reviewer": "Reviews a draft and points out its mistakes.",
}


@pytest.mark.parametrize(
    ("roles", "said", "listed", "chosen"),
    [
        (KITCHEN, [("user", "Suggest a wine for grilled salmon.")], list(KITCHEN), "sommelier"),
        (KITCHEN, [("user", "Plan a menu of three dishes for a spring dinner.")], list(KITCHEN), "chef"),
        (ROCKETS, [("user", "Estimate the thrust a small rocket engine needs.")], list(ROCKETS), "engineer"),
        # the one who spoke is left out of the list; of the others none has spoken, the best match goes next
        (
            KITCHEN,
            [("user", "Suggest a wine for grilled salmon."), ("sommelier", "A dry white, such as a Chablis.")],
            ["chef", "waiter"],
            "chef",
        ),
        # everyone has spoken: the one heard from longest ago
        (
            ROCKETS,
            [("user", "Estimate the thrust."), ("engineer", "About 2 kN."), ("reviewer", "Check the units.")],
            ["engineer"] + ["reviewer"],
            "engineer",
        ),
    ],
)
def test_a_selector_gets_one_listed_role_chosen_by_the_task_then_by_turns(
    roles: dict[str, str], said: list[tuple[str, str]], listed: list[str], chosen: str
) -> None:
    text = selector(roles, said, listed)
    for messages in ((Message("system", text),), (Message("user", text),)):
        assert wrappers.role(prompt(*messages)) == chosen
        assert answered(*messages).text == chosen


def test_a_selectors_retry_is_answered_from_its_own_list() -> None:
    text = selector(KITCHEN, [("user", "Suggest a wine for grilled salmon.")], list(KITCHEN))
    retry = (
        Message("system", text),
        Message("assistant", "Let me think."),
        Message("user", "Pick from ['chef', 'waiter']."),
    )
    assert answered(*retry).text == "chef"


def test_a_choice_without_described_roles_is_no_selector() -> None:
    assert wrappers.role(prompt(Message("user", "Pick one: tea, coffee or cocoa. Only return the word."))) is None
    assert wrappers.role(prompt(Message("user", "What does [1, 2, 3] print in Python?"))) is None


# --- another participant's turn -----------------------------------------------------------------------------------

TURN = (
    "A three-day walk through Lisbon can start in Alfama, where the lanes are steep and the views are free. The "
    "second day suits Belém, with its monastery and the river front, reached on foot along the water. The third "
    "day can take in the Bairro Alto and the viewpoints, with a cheap lunch at a tasca on the way. Would it help to "
    "see the costs?"
)


def test_another_participants_turn_is_an_answer_and_the_task_stays_the_question() -> None:
    task = Message("user", "Plan a three-day walking trip in Lisbon on a small budget.")
    assert wrappers.contribution(TURN)
    read = wrappers.unwrapped(prompt(Message("system", "You keep the budget."), task, Message("user", TURN)))
    assert [m.role for m in read.messages] == ["system", "user", "assistant"]
    said = answered(Message("system", "You keep the budget."), task, Message("user", TURN)).text
    assert "Lisbon" in said or "walking trip" in said, said


@pytest.mark.parametrize(
    "text",
    [
        "I have a Flask app that serves images. It works on my laptop but not on the server. The logs show a 502 "
        "from nginx after thirty seconds. I tried raising the timeout and restarting both services twice. The "
        "images are large, some of them over ten megabytes. How do I fix this?",
        "Make it shorter please.",
        "Observation: the tide is at 06:12 and 18:40 today, and the harbour master says the bar is passable for "
        "small boats at half tide. The wind is from the west at fifteen knots. The swell is a metre and a half.",
        "Explain how a heat pump works in winter. Cover the refrigerant cycle. Cover the defrost cycle. Say why "
        "it is cheaper than a resistive heater. Keep it to a few paragraphs, and use plain words throughout.",
    ],
)
def test_a_persons_message_is_no_participants_turn(text: str) -> None:
    assert not wrappers.contribution(text)


# --- a ReAct step that holds its observation ------------------------------------------------------------------------

REACT_SYSTEM = (
    "You are a harbour clerk.\nThese are your tools:\n\nTool Name: berth_list\nTool Arguments: "
    '{"properties": {"harbour": {"type": "string"}}, "required": ["harbour"], "type": "object"}\n'
    "Tool Description: Lists the free berths in a harbour.\n\nAnswer in this format:\n\nThought: what to do\n"
    "Action: the tool to use, only one name of [berth_list]\nAction Input: a JSON object\nObservation: the result\n\n"
    "When you know the answer:\nThought: I know it\nFinal Answer: the answer"
)


def test_a_react_agent_with_tool_blocks_calls_then_answers_from_the_observation_in_its_step() -> None:
    task = Message(
        "user",
        "Current Task: Which berths are free at Whitby harbour?\n\nExpected output: the berth numbers.\n\n"
        "Begin, and give your best final answer.\n\nThought:",
    )
    step = answered(Message("system", REACT_SYSTEM), task).text
    assert "Action: berth_list" in step and json.loads(step.split("Action Input:")[1]) == {"harbour": "Whitby"}
    done = Message("assistant", f"{step}\nObservation: berths 4 and 11 are free")
    nudge = Message("user", "Look at the tool result; if it is enough, give the Final Answer.")
    final = answered(Message("system", REACT_SYSTEM), task, done, nudge).text
    assert "Final Answer:" in final and "berths 4 and 11 are free" in final, final
