"""Shaping a reply into a turn: thinking switch, reasoning budget, stop sequences, max tokens, usage."""

from __future__ import annotations

from emulator.answering.compose import finish
from emulator.core import tokens
from emulator.core.conversation import Message, Prompt, Reply, ToolCall

REPLY = Reply(reasoning="r" * 40, text="t" * 40, tool_calls=(ToolCall("", "fn", '{"a": "xxxxxxxxxxxx"}'),))


def prompt(**fields: object) -> Prompt:
    return Prompt(dialect="t", model="m", messages=(Message("user", "hi"),), fingerprint="f", **fields)  # type: ignore[arg-type]


def test_whole_reply_with_generated_call_ids() -> None:
    turn = finish(prompt(), REPLY, created=9)
    assert (turn.reasoning, turn.text, turn.finish_reason, turn.created) == (
        REPLY.reasoning,
        REPLY.text,
        "tool_calls",
        9,
    )
    assert turn.tool_calls[0].id.startswith("call_")
    assert turn.usage.output_tokens == 10 + 10 + 1 + 6
    assert turn.usage.reasoning_tokens == 10
    assert turn.usage.input_tokens == tokens.prompt_tokens(prompt())
    assert finish(prompt(), REPLY, created=9) == turn


def test_thinking_off_and_budget() -> None:
    assert finish(prompt(effort="none"), REPLY, created=0).reasoning == ""
    assert finish(prompt(reasoning_budget=3), REPLY, created=0).reasoning == "r" * 12


def test_max_tokens_cut_reasoning_first() -> None:
    turn = finish(prompt(max_tokens=4), REPLY, created=0)
    assert (turn.reasoning, turn.text, turn.tool_calls, turn.finish_reason) == ("r" * 16, "", (), "length")
    assert turn.usage.output_tokens == 4


def test_max_tokens_cut_a_tool_call_short() -> None:
    turn = finish(prompt(max_tokens=23), REPLY, created=0)
    assert turn.finish_reason == "length"
    assert turn.tool_calls[0].arguments == '{"a": "x'
    assert turn.usage.output_tokens == 23


def test_exact_fit_is_not_truncated() -> None:
    assert finish(prompt(max_tokens=27), REPLY, created=0).finish_reason == "tool_calls"


def test_stop_sequence_ends_at_the_earliest_match() -> None:
    reply = Reply(text="one, two; three", tool_calls=REPLY.tool_calls)
    turn = finish(prompt(stop=(";", ",")), reply, created=0)
    assert (turn.text, turn.tool_calls, turn.finish_reason) == ("one", (), "stop")
    assert finish(prompt(stop=("four",)), reply, created=0).text == reply.text


def test_scripted_usage_overrides_counts() -> None:
    turn = finish(prompt(), Reply(text="x", usage={"input_tokens": 100, "cached_tokens": 60}), created=0)
    assert (turn.usage.input_tokens, turn.usage.cached_tokens, turn.usage.output_tokens) == (100, 60, 1)
