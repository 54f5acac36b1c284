"""The one reader of tool calls and results (`loop`): structured ones, and those agents write as text (smolagents'
"Calling tools:", its code agent's code, ReAct's Action and Observation lines). Conversations of this file's own."""

from __future__ import annotations

import json

from emulator.core.conversation import Message, Prompt, ToolCall
from emulator.default_model import loop
from emulator.default_model.generate import Writer, default_reply


def conversation(*messages: Message) -> Prompt:
    return Prompt(dialect="chat", model="m", messages=messages, conversation="loop " + messages[0].text)


def test_structured_results_keep_their_calls_names_past_a_trailing_system_message() -> None:
    """A harness may append a system message after the results (Claude Code does): they are still the results,
    and the answer quotes them."""
    prompt = conversation(
        Message("user", "How deep is the harbour at Kotor?"),
        Message("assistant", tool_calls=(ToolCall("a", "depth_chart", '{"port": "Kotor"}'),)),
        Message("tool", "Observation: 38 metres at the quay", tool_call_id="a"),
        Message("system", "Agent types: planner."),
    )
    assert loop.results(prompt) == [("depth_chart", "38 metres at the quay")]
    assert "38 metres at the quay" in (default_reply(prompt, Writer(0)).text or "")


def test_written_calls_of_each_form_name_the_observation_after_them() -> None:
    listed = (
        "[{'id': 'c1', 'type': 'function', 'function': {'name': 'ferry_times', 'arguments': {'route': 'Split-Hvar'}}}]"
    )
    calling = f"Calling tools:\n{listed}"
    react = 'Thought: I need the ferry.\nAction: ferry_times\nAction Input: {"route": "Split-Hvar"}'
    code = "Thought: look it up\n<code>\nleaving = ferry_times(route='Split-Hvar')\nprint(leaving)\n</code>"
    code_given = "\"t = ferry_times(route='Split-Hvar')\""
    interpreted = (
        f"Calling tools:\n[{{'id': 'c2', 'function': {{'name': 'python_interpreter', 'arguments': {code_given}}}}}]"
    )
    for said in (calling, react, code, interpreted):
        prompt = conversation(
            Message("user", "When does the Split to Hvar ferry leave?"),
            Message("assistant", said),
            Message("user", "Observation: 15:30 from pier 2"),
        )
        assert loop.results(prompt) == [("ferry_times", "15:30 from pier 2")], said
    assert loop.written_calls(calling) == [("ferry_times", {"route": "Split-Hvar"})]
    assert loop.written_calls(react) == [("ferry_times", {"route": "Split-Hvar"})]
    assert ("ferry_times", json.dumps({"route": "Split-Hvar"})) in loop.made(
        conversation(Message("user", "q"), Message("assistant", calling))
    )


def test_observed_since_the_task_spans_the_steps_between_and_a_bare_interpreter_keeps_its_name() -> None:
    messages = (
        Message("user", "Compare the two lighthouses."),
        Message("assistant", "x = beam_range(name='Fastnet')"),
        Message("user", "Observation: 27 nautical miles"),
        Message(
            "assistant",
            "Calling tools:\n[{'id': 'c', 'function': {'name': 'python_interpreter', 'arguments': 'print(2)'}}]",
        ),
        Message("user", "Observation: 2"),
    )
    assert loop.observed(messages, 1) == [("beam_range", "27 nautical miles"), ("python_interpreter", "2")]
    assert loop.results(conversation(*messages)) == [("python_interpreter", "2")]


def test_a_react_scratchpad_gives_its_question_and_observations_by_the_action_before_them() -> None:
    text = (
        "Answer as best you can.\n\nQuestion: How tall is the Belem tower?\nThought: look it up\n"
        "Action: landmark_facts\nAction Input: Belem tower\nObservation: 30 metres\nThought:"
    )
    assert loop.scratchpad(text) == ("How tall is the Belem tower?", [("landmark_facts", "30 metres")])
    assert loop.scratchpad("No question here.") is None
