"""The default model's time on the worst inputs found, by size: linear (or flat, where the default reads a bounded
part of a huge prompt) is the target; a square grows sixteen times when the input grows four.

    python bench/worst_inputs.py            # from the project root, in its venv; a few seconds

Each case is timed at three sizes, the worst of eight conversations; the last column is the growth from the
smallest size to the largest (the sizes grow 16x: linear work grows about 16x, bounded work less, quadratic 256x).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from emulator.core.conversation import Message, Prompt, ToolCall
from emulator.default_model.generate import Writer, default_reply

SIZES = (4_000, 16_000, 64_000)
RUNS = 8
CASES: dict[str, Callable[[int], tuple[Message, ...]]] = {
    "one letter repeated": lambda n: (Message("user", text="A" * n),),
    "a gene sequence": lambda n: (Message("user", text="ACGT" * (n // 4) + " what does this encode?"),),
    "dashed run": lambda n: (Message("user", text="a-" * (n // 2)),),
    "a path of many parts": lambda n: (Message("user", text="https://x.io/" + "ab/" * (n // 3)),),
    "base64 blob": lambda n: (Message("user", text="aB3+/" * (n // 5) + "=="),),
    "prose and a question": lambda n: (Message("user", text="the cat sat on a mat. " * (n // 22) + "Why?"),),
    "code to fix": lambda n: (Message("user", text="def f(x):\n    return x + 1\n" * (n // 28) + "Fix the bug"),),
    "a long tool result": lambda n: (
        Message("user", text="read the log"),
        Message("assistant", tool_calls=(ToolCall("c1", "read_log", "{}"),)),
        Message("tool", text="error at line 42\n" * (n // 17), tool_call_id="c1"),
    ),
}


def timed(writer: Writer, make: Callable[[int], tuple[Message, ...]], size: int, name: str) -> float:
    """The worst of `RUNS` runs, each its own conversation (the dice pick the answer's form, and with it what is
    inflected) and its own text (a run number put first, so that no cache of the default's serves a run what an
    earlier one read)."""
    worst = 0.0
    for run in range(RUNS):
        messages = make(size)
        first = messages[0]
        messages = (replace(first, text=f"{run} {first.text}"), *messages[1:])
        prompt = Prompt("openai_chat", "m", messages, conversation=f"{name}:{size}:{run}")
        started = time.perf_counter()
        default_reply(prompt, writer)
        worst = max(worst, time.perf_counter() - started)
    return worst


def main() -> None:
    writer = Writer(0)
    print(f"| case | {' | '.join(f'{n:,} chars' for n in SIZES)} | growth |")
    print(f"|---|{'---|' * len(SIZES)}---|")
    for name, make in CASES.items():
        took = [timed(writer, make, n, name) for n in SIZES]
        cells = " | ".join(f"{t * 1000:.1f} ms" for t in took)
        print(f"| {name} | {cells} | {took[-1] / max(took[0], 1e-6):.1f}x |")


if __name__ == "__main__":
    main()
