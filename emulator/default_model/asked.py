"""What an agent protocol's writer works from (`Asked`): the request, what the protocol's markers found, and the
default's own means (dice, prose, tool arguments). Its own module so that `protocols`, which hands a request to
its writer, and the writers, which take an `Asked`, do not import each other."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any, Protocol

from emulator.core.conversation import Message, Prompt, Tool, ToolChoice
from emulator.default_model import instances, mentions, prose, question, relevance
from emulator.default_model.instances import Hints
from emulator.default_model.mentions import own_words
from emulator.default_model.prose import Dice


class Writer(Protocol):
    """What the protocols need of `generate.Writer`: seeded randomness, value pools, names for prose."""

    @property
    def hints(self) -> Hints: ...

    @property
    def pools(self) -> Mapping[str, Sequence[str]]: ...

    def rng(self, root: str, *salt: object) -> Any: ...


Call = Callable[[Tool, str], Mapping[str, Any]]  # a tool's arguments, taken from a task's words


@dataclass(frozen=True, slots=True)
class Asked:
    """What a protocol's writer works from: the request, the texts its markers were found in, the groups its
    expressions captured, the entry's own data, and the default's means (dice, prose, tool arguments)."""

    prompt: Prompt
    texts: tuple[str, ...]
    found: tuple[re.Match[str], ...]
    data: Mapping[str, tuple[str, ...]]
    dice: Dice
    writer: Writer
    call: Call

    def answer(self, text: str) -> str:
        """The default's answer to `text`, as it answers a plain question."""
        asked = question.read(text)
        return prose.answer(asked, prose.slots(asked), self.dice, self.writer)

    def sentence(self, text: str) -> str:
        """The first sentence of the default's answer to `text`, on one line."""
        paragraphs = [p for p in self.answer(text).split("\n\n") if not re.fullmatch(r"\s*(?:\*\*[^*]+\*\*|#.*)\s*", p)]
        said = " ".join((paragraphs or [text])[0].split())
        end = re.search(r"(?<=[.!?])\s", said)
        return said[: end.start()] if end else said

    def value(self, schema: Mapping[str, Any], task: str, salt: object) -> Any:
        """A value of `schema`, drawing on what `task` names."""
        asked = question.read(task)
        hints = Hints(self.writer.hints.pools, asked.names, asked.numbers, asked.topic)
        return instances.instance(schema, self.writer.rng(self.prompt.root, "protocol", salt), hints)

    def arguments(self, tool: Tool, task: str) -> dict[str, Any]:
        return dict(self.call(tool, task))

    def choose(self, tools: Sequence[Tool], task: str) -> Tool | None:
        """The tool `task` calls for, picked as the tools of an API request are under `auto`
        (`relevance.relevant`, with what the task names); None when none fits."""
        if not tools:
            return None
        alone = replace(
            self.prompt,
            messages=(Message("user", task),),
            tools=tuple(tools),
            tool_choice=ToolChoice("auto"),
            parallel_tool_calls=False,
        )
        picked = relevance.relevant(alone, question.read(own_words(task)), mentions.conversation(alone))
        return picked[0] if picked else None

    def reported(self, results: Sequence[tuple[str, str]], task: str) -> str:
        """The answer from what the tools returned, as the default gives it after an API tool loop
        (`prose.summary`)."""
        asked = question.read(task)
        return prose.summary(results, asked, prose.slots(asked), self.dice)
