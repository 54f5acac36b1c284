"""`python -m emulator.default_model [PROMPT…]`: the default's answers, to judge them by reading.

The prompts are the arguments, or else standard input, one a line; a line `kind | prompt` (the tests' panels,
`tests/panels/*.txt`) is read for its prompt, and `#` lines are skipped. Each answer is printed under its
prompt, its reasoning first as a quote.
"""

from __future__ import annotations

import sys

from emulator.core.conversation import Message, Prompt
from emulator.default_model.generate import Writer, default_reply


def prompts(lines: list[str]) -> list[str]:
    found = []
    for line in lines:
        line = line.strip()
        if line and not line.startswith("#"):
            found.append(line.split(" | ", 1)[1] if " | " in line else line)
    return found


def main(argv: list[str]) -> int:
    writer = Writer(0)
    asked = prompts(argv) if argv else prompts(sys.stdin.read().splitlines())
    for text in asked:
        prompt = Prompt(dialect="sample", model="m", messages=(Message("user", text),), conversation=f"sample {text}")
        reply = default_reply(prompt, writer)
        said = reply.text or ", ".join(f"{c.name}({c.arguments})" for c in reply.tool_calls)
        print(f"## {text}\n\n> {reply.reasoning}\n\n{said}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
