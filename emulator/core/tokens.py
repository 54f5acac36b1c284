"""The project's one token model: about four characters per token.

That is the estimate Inferam documents for `count_tokens` (seed 004), and it is used everywhere: to
count prompts and completions, to apply `max_tokens`, and to cut stream deltas, so that the pieces a
client receives are exactly the tokens it is billed for.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from functools import lru_cache

from emulator.core.conversation import Message, Prompt, Tool, ToolCall
from emulator.core.sse import dumps

CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4  # role and separators, as chat templates add per message
REPLY_PRIMING = 3  # the assistant header every prompt ends with
IMAGE_TOKENS = 256  # a flat price per image, whatever its size


def count(text: str) -> int:
    return (len(text) + CHARS_PER_TOKEN - 1) // CHARS_PER_TOKEN  # rounded up, in integers (the compiled core's own)


# Characters past which a text's pieces are made as they are read (`pieces`) rather than cut whole and cached: a
# scenario's megabyte answer is 400,000 of them, a fifth of a second to cut, and memory for as long as it is kept.
LONG = 64 * 1024


@lru_cache(maxsize=4096)
def split(text: str) -> tuple[str, ...]:
    """Cut `text` into exactly `count(text)` non-empty pieces, at word starts where one is near.

    Each cut lands within two characters of its four-character mark, preferring a space that starts
    a word, so deltas read like a tokenizer's (" world", not "o wo"). Cached: scenario texts repeat.
    """
    return tuple(_cuts(text))


def pieces(text: str) -> Iterable[str]:
    """`split(text)`, made as they are read when the text is long (`LONG`): what a stream's deltas are."""
    return _cuts(text) if len(text) > LONG else split(text)


def _cuts(text: str) -> Iterator[str]:
    n = count(text)
    if n <= 1:
        if text:
            yield text
        return
    start, last = 0, len(text) - 1
    for k in range(1, n):
        ideal = k * CHARS_PER_TOKEN
        c = text.find(" ", max(ideal - 2, start + 1), min(ideal + 2, last) + 1)
        if c < 0 or text[c - 1] == " ":
            c = ideal
        yield text[start:c]
        start = c
    yield text[start:]


def cut(text: str, tokens: int) -> str:
    """Text of at most `tokens` tokens: its first `tokens` * 4 characters, so that `count` agrees."""
    return text[: max(tokens, 0) * CHARS_PER_TOKEN]


def call_tokens(call: ToolCall) -> int:
    return count(call.name) + count(call.arguments)


def _message_tokens(message: Message) -> int:
    tokens = MESSAGE_OVERHEAD + count(message.text) + count(message.reasoning) + IMAGE_TOKENS * message.images
    for call in message.tool_calls:
        tokens += call_tokens(call)
    return tokens


def _tool_tokens(tool: Tool) -> int:
    # Compact JSON, through orjson: agents send two dozen tools with every request (Claude Code, Codex).
    schema = dumps(tool.parameters) if tool.parameters else ""
    return count(tool.name) + count(tool.description) + count(schema)


def prompt_tokens(prompt: Prompt) -> int:
    """The input tokens of a request: messages, tools and the reply priming. Where the prompt's prefixes are
    counted (Anthropic's cache), the last of them, the whole prompt: what is read from cache and written to it is
    then never more than the input."""
    if prompt.prefixes:
        return prompt.prefixes[-1][1]
    # Loops, not sum(map(...)): compiled, each call stays a native one.
    tokens = REPLY_PRIMING
    for message in prompt.messages:
        tokens += _message_tokens(message)
    for tool in prompt.tools:
        tokens += _tool_tokens(tool)
    return tokens
