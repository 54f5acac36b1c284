"""The default's work is bounded, whatever it is asked: no word longer than any English word reaches inflect (whose
patterns take time in the square of a word's length), and it reads a bounded part of a huge prompt."""

from __future__ import annotations

import time

import pytest

from emulator.core.conversation import Message, Prompt
from emulator.default_model import grammar
from emulator.default_model.bounds import MESSAGE_READ, PROMPT_READ, RUN_KEPT, bounded
from emulator.default_model.generate import Writer, default_reply

RUNS = ["G" * 20_000, "ACGT" * 5_000, "x-" * 10_000, "aB3+/" * 4_000]


@pytest.mark.parametrize("run", RUNS, ids=["letter", "gene", "dashes", "base64"])
def test_a_run_longer_than_any_word_is_left_as_it_is(run: str) -> None:
    assert grammar.plural(run) == run + "s"
    assert grammar.present(run) == run + "s"
    assert not grammar.is_plural(run + "s")
    assert grammar.article(run) == f"a {run}"
    assert grammar.participle(run) == run
    assert grammar.plural("query") == "queries" and grammar.article("apple") == "an apple"  # words still are


def test_a_huge_prompt_is_read_within_bounds_and_a_small_one_untouched() -> None:
    small = Prompt("openai_chat", "m", (Message("user", text="How do I bake bread?"),))
    assert bounded(small) is small
    gene = "ACGT" * 50_000
    many = tuple(Message("user", text=f"{i} " + "lorem ipsum " * 5_000) for i in range(40))
    huge = Prompt("openai_chat", "m", (*many, Message("user", text=f"What is {gene}?")))
    read = bounded(huge)
    assert len(read.messages) == len(huge.messages)  # every message kept, its role and calls too
    assert all(len(m.text) <= MESSAGE_READ + 3 for m in read.messages)
    assert sum(len(m.text) for m in read.messages) <= PROMPT_READ
    newest = read.messages[-1].text  # read first: its head and tail, each run in them cut
    assert newest.startswith(f"What is {gene[:RUN_KEPT]}…") and len(newest) < 4 * RUN_KEPT
    assert read.messages[0].text == ""  # the oldest past the budget


def test_the_worst_inputs_cost_no_more_than_an_ordinary_long_prompt() -> None:
    """Against a baseline of the same run: a 32 KB prompt of ordinary prose (what the default reads at most of a
    message). A 200 KB unbroken run once took minutes (a 64 KB one, 29 s); bounded, it costs less than the
    baseline. The margin holds at four times slower."""
    writer = Writer(0)

    def took(text: str, conversation: str) -> float:
        prompt = Prompt("openai_chat", "m", (Message("user", text=text),), conversation=conversation)
        started = time.perf_counter()
        default_reply(prompt, writer)
        return time.perf_counter() - started

    baseline = max(took(f"{i} " + "the cat sat on a mat. " * 1_500 + "Why?", f"base{i}") for i in range(3))
    for i, run in enumerate(RUNS):
        worst = max(took(f"{k} {run * 10}", f"run{i}:{k}") for k in range(4))
        assert worst < 4 * baseline + 0.05, (i, worst, baseline)
