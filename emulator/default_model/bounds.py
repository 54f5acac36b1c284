"""What the default model reads of a prompt, whatever its size (`bounded`): its work grows with what it reads, so
what it reads is bounded, and a 32 MB prompt costs what a hundred kilobytes do. Pure."""

from __future__ import annotations

import functools
import re
from dataclasses import replace

from emulator.core.conversation import Prompt

# What the default reads of a prompt, whatever its size: each message's first and last `MESSAGE_READ // 2`
# characters, and the newest messages' text up to `PROMPT_READ` in all (older ones keep their role and calls). Its
# work grows with what it reads; bounded so, a 32 MB prompt costs what a hundred kilobytes do.
# A run of characters with no space longer than `RUN` (a gene sequence, a base64 blob) is no word to answer about:
# it is read as its first `RUN_KEPT` characters, so that no answer quotes it whole.
MESSAGE_READ = 32 * 1024
PROMPT_READ = 128 * 1024
RUN, RUN_KEPT = 256, 48
_RUN = re.compile(rf"\S{{{RUN + 1},}}")


def bounded(prompt: Prompt) -> Prompt:
    """`prompt` as the default reads it: within `MESSAGE_READ` a message and `PROMPT_READ` in all, newest first,
    long runs without a space cut; the prompt itself where nothing needs cutting (almost always: nothing is
    copied)."""
    if sum(len(m.text) for m in prompt.messages) <= RUN:
        return prompt
    left, kept, cut = PROMPT_READ, [], False
    for message in reversed(prompt.messages):
        text = message.text
        if len(text) > MESSAGE_READ:
            half = MESSAGE_READ // 2
            text = f"{text[:half]}\n…\n{text[-half:]}"
        text = text if len(text) <= left else ""
        left -= len(text)
        if len(text) > RUN:
            text = _runs_cut(text)
        changed = text is not message.text and text != message.text  # (a cached cut may be an equal copy)
        cut = cut or changed
        kept.append(replace(message, text=text) if changed else message)
    return replace(prompt, messages=tuple(reversed(kept))) if cut else prompt


@functools.lru_cache(maxsize=1024)
def _runs_cut(text: str) -> str:
    """`text` with each run longer than `RUN` cut to its first `RUN_KEPT` characters; kept for a text sent again (an
    agent sends its whole conversation with every request), so that each is looked through once."""
    if max(map(len, text.split())) <= RUN:  # split: C-fast, where a regex scan of short words is not
        return text
    return _RUN.sub(lambda run: run[0][:RUN_KEPT] + "…", text)
