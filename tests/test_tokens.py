"""The token model: about four characters per token, the same count for usage, limits and deltas."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from emulator.core import tokens
from emulator.core.conversation import Message, Prompt, Tool, ToolCall


@given(st.text())
def test_split_pieces_rebuild_the_text_and_number_the_count(text: str) -> None:
    pieces = tokens.split(text)
    assert "".join(pieces) == text
    assert len(pieces) == tokens.count(text)
    assert all(pieces)
    assert all(1 <= len(p) <= 2 * tokens.CHARS_PER_TOKEN for p in pieces)


@given(st.text(), st.integers(-2, 60))
def test_cut_never_exceeds_its_budget(text: str, budget: int) -> None:
    kept = tokens.cut(text, budget)
    assert text.startswith(kept)
    assert tokens.count(kept) <= max(budget, 0)
    assert kept == text or tokens.count(kept) == max(budget, 0)


def test_split_prefers_word_starts() -> None:
    assert tokens.split("Hello world, how are you?") == ("Hello", " wo", "rld,", " how", " are", " you", "?")
    assert tokens.count("") == 0 and tokens.split("") == ()


def test_prompt_tokens_count_every_part() -> None:
    bare = Prompt(dialect="t", model="m", messages=(Message("user", "12345678"),))
    assert tokens.prompt_tokens(bare) == tokens.MESSAGE_OVERHEAD + 2 + tokens.REPLY_PRIMING
    rich = Prompt(
        dialect="t",
        model="m",
        messages=(
            Message("user", "12345678", images=1),
            Message("assistant", reasoning="abcd", tool_calls=(ToolCall("c", "f", "{}"),)),
        ),
        tools=(Tool("f", description="does f", parameters={"type": "object"}),),
    )
    assert tokens.prompt_tokens(rich) > tokens.prompt_tokens(bare) + tokens.IMAGE_TOKENS
