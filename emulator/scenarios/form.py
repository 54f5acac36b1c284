"""A scenario in its parsed form, and the book of them a request is matched against: the `Match` it makes of a
`Prompt`, the `ReplySpec` steps it scripts (resolved into a `Reply`, faker text and missing arguments filled
in), and `Book.pick`, an explicit pick by header or model name first, else the first scenario that matches.
Files and documents are read into this form by this package's `__init__` and `entries.py`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Protocol

from emulator.core.conversation import Fault, FinishReason, Prompt, Reply, Timing, Tool, ToolCall
from emulator.core.errors import InvalidRequest
from emulator.default_model import generate
from emulator.default_model.generate import DefaultText, FakerText, Writer

SCENARIO_HEADER = "x-emulator-scenario"


class Searcher(Protocol):
    """A compiled pattern, as matching uses it: Python's `re` (for `contains`) or RE2 (for `regex`)."""

    def search(self, text: str) -> object | None: ...


class ScenarioError(Exception):
    """A scenario file is wrong; the message names the file, the key and what was expected."""


Text = str | FakerText | DefaultText
NO_TEXT: Text = ""


@dataclass(frozen=True, slots=True)
class CallSpec:
    name: str
    arguments: str | None  # None: generated from the tool's schema in the request
    id: str | None = None


@dataclass(frozen=True, slots=True)
class ReplySpec:
    reasoning: Text = ""
    text: Text = ""
    tool_calls: tuple[CallSpec, ...] = ()
    finish_reason: FinishReason | None = None
    usage: Mapping[str, int] | None = None
    fault: Fault | None = None

    @property
    def fixed(self) -> bool:
        """Whether the reply is the same for every request: no faker text, no generated arguments."""
        texts = (self.reasoning, self.text)
        return all(isinstance(t, str) for t in texts) and all(c.arguments is not None for c in self.tool_calls)

    def resolve(self, prompt: Prompt, writer: Writer | None, salt: object) -> Reply:
        """The `Reply` this spec scripts for `prompt`, faker text and missing arguments filled in (a fixed
        spec needs no writer)."""
        root = prompt.root

        def fill(text: Text, part: str) -> str:
            if isinstance(text, str):
                return text
            assert writer is not None, "generated text needs a writer"
            if isinstance(text, DefaultText):
                return writer.said(text, prompt, salt, part)
            return writer.text(text, root, salt, part)

        calls = []
        for i, spec in enumerate(self.tool_calls):
            arguments = spec.arguments
            if arguments is None:  # generated from the offered tool: schema-valid JSON, or text for a custom tool
                assert writer is not None, "generated arguments need a writer"
                tool = next((t for t in prompt.tools if t.name == spec.name), Tool(spec.name))
                arguments = generate.tool_call(tool, writer, root, (salt, i)).arguments
            calls.append(ToolCall(id=spec.id or "", name=spec.name, arguments=arguments))
        return Reply(
            reasoning=fill(self.reasoning, "reasoning"),
            text=fill(self.text, "text"),
            tool_calls=tuple(calls),
            finish_reason=self.finish_reason,
            usage=self.usage,
            fault=self.fault,
        )


@dataclass(frozen=True, slots=True)
class Match:
    model_glob: str | None = None
    model: re.Pattern[str] | None = None
    last_user: Searcher | None = None
    tools: bool | None = None
    tool: re.Pattern[str] | None = None
    headers: tuple[tuple[str, re.Pattern[str]], ...] = ()

    def __call__(self, prompt: Prompt) -> bool:
        # Cheapest test first: every request that no scenario answers runs every match, and searching
        # the last user message is the dearest of them, a fair share of the default answer's time (bench/throughput.py).
        return (
            (self.tools is None or self.tools == bool(prompt.tools))
            and (self.tool is None or (bool(prompt.tools) and any(self.tool.fullmatch(t.name) for t in prompt.tools)))
            and (self.model is None or self.model.fullmatch(prompt.model) is not None)
            and all(p.fullmatch(prompt.headers.get(name, "")) for name, p in self.headers)
            and (self.last_user is None or self.last_user.search(prompt.last_user_text) is not None)
        )


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    source: str  # "file.yaml: scenarios[2]", for banners and errors
    match: Match | None
    steps: tuple[ReplySpec, ...]
    by_call: bool  # `replies`: chosen by call count; otherwise by assistant turns
    timing: Timing | None = None
    like: str | None = None  # the catalog model whose parameters its model takes (`like: gpt-4.1`); None: any
    # Each step's reply when it is the same for every request, resolved once at load: the hot path.
    fixed: tuple[Reply | None, ...] = ()

    def __post_init__(self) -> None:
        empty = Prompt(dialect="", model="", messages=())
        object.__setattr__(self, "fixed", tuple(s.resolve(empty, None, None) if s.fixed else None for s in self.steps))

    @property
    def models(self) -> tuple[str, ...]:
        """The model name this scenario matches, if its glob has no wildcard."""
        glob = self.match.model_glob if self.match else None
        return (glob,) if glob and not any(c in glob for c in "*?[") else ()

    def reply(self, prompt: Prompt, writer: Writer, calls_before: int) -> Reply:
        """The scripted reply: by call count for `replies`, else by assistant turns; the last repeats."""
        index = min(calls_before if self.by_call else prompt.assistant_turns, len(self.steps) - 1)
        spec = self.steps[index]
        reply = self.fixed[index] or spec.resolve(prompt, writer, (self.name, index))
        return replace(reply, timing=self.timing) if self.timing else reply


class Book:
    """All loaded scenarios, in file and list order."""

    def __init__(self, scenarios: tuple[Scenario, ...] = ()) -> None:
        self.scenarios = scenarios
        self._by_name = {s.name: s for s in scenarios}
        self._matched = tuple((s, s.match) for s in scenarios if s.match)  # those a request can match

    def pick(self, prompt: Prompt) -> Scenario | None:
        """An explicit pick (header, then model name) wins; otherwise the first scenario that matches."""
        wanted = prompt.headers.get(SCENARIO_HEADER)
        by_name = self._by_name
        if wanted:
            if wanted not in by_name:
                known = ", ".join(sorted(by_name)) or "none are loaded"
                raise InvalidRequest(
                    f"The header '{SCENARIO_HEADER}: {wanted}' names no scenario (known: {known}).",
                    code="scenario_not_found",
                )
            return by_name[wanted]
        if prompt.model in by_name:
            return by_name[prompt.model]
        for scenario, match in self._matched:
            if match(prompt):
                return scenario
        return None

    def named(self, prompt: Prompt) -> bool:
        """Whether the request picks a scenario explicitly: the header, or a model named like one."""
        return bool(prompt.headers.get(SCENARIO_HEADER)) or prompt.model in self._by_name

    def like(self, model: str) -> str | None:
        """The catalog model a model the scenarios name is `like`, None when none says (or none names it)."""
        named = self._by_name.get(model)
        if named is not None:
            return named.like
        for scenario, match in self._matched:
            if match.model is not None and match.model.fullmatch(model) is not None:
                return scenario.like
        return None

    def knows(self, model: str) -> bool:
        """Whether a scenario names the model: its `name`, or its `match.model`, exact or glob."""
        if model in self._by_name:
            return True
        return any(m.model is not None and m.model.fullmatch(model) is not None for _, m in self._matched)

    @property
    def models(self) -> tuple[str, ...]:
        """Model ids the scenarios name: literal `match.model` values, and the scenario names."""
        names = [m for s in self.scenarios for m in s.models] + [s.name for s in self.scenarios]
        return tuple(dict.fromkeys(names))
