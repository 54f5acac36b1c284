"""Scenario files: load and validate them loudly, match a `Prompt`, pick the step or reply.

A file holds `scenarios:`, a list. Each scenario has a unique `name`, an optional `match`, and one of
`reply` (always the same), `steps` (chosen by the assistant turns already in the conversation, so an
agent loop works on any worker) or `replies` (chosen by call count, per API key). Every mistake is
reported at load with the file, the key path and what was expected.
"""

from __future__ import annotations

import fnmatch
import json
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol, TypeVar, cast

import re2

from emulator import catalog, faults, yamlfile
from emulator.conversation import FINISH_REASONS, Fault, FinishReason, Prompt, Reply, Timing, Tool, ToolCall
from emulator.default_model import generate
from emulator.default_model.generate import DEFAULT_KINDS, TEXT_KINDS, DefaultText, FakerText, Writer
from emulator.errors import InvalidRequest

SCENARIO_HEADER = "x-emulator-scenario"
T = TypeVar("T")
USAGE_KEYS = ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")


_RE2 = re2.Options()
_RE2.log_errors = False  # a bad pattern is the scenario's mistake, reported as such, not logged by RE2
_RE2.never_capture = True


class Searcher(Protocol):
    """A compiled pattern, as matching uses it: Python's `re` (for `contains`) or RE2 (for `regex`)."""

    def search(self, text: str) -> object | None: ...


class ScenarioError(Exception):
    """A scenario file is wrong; the message names the file, the key and what was expected."""


# --- the parsed form --------------------------------------------------------------------------------

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
        # the last user message is the dearest of them (3 µs of the default answer's 13, bench/throughput.py).
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


# --- loading ------------------------------------------------------------------------------------------


def load(paths: Iterable[Path]) -> Book:
    """Load scenario files and directories (`*.yaml`, `*.yml`, sorted); raise one error listing every mistake."""
    scenarios: list[Scenario] = []
    problems: list[str] = []
    for file in yaml_files(paths):
        try:
            document = yamlfile.load(file.read_text(encoding="utf-8"))
        except (yamlfile.DocumentError, UnicodeDecodeError) as exc:
            problems.append(f"{file}: not valid YAML: {exc}")
            continue
        if document is None:
            continue
        if not isinstance(document, dict) or set(document) != {"scenarios"}:
            problems.append(f"{file}: expected a mapping with one key, 'scenarios', holding a list")
            continue
        scenarios += _entries(document["scenarios"] or [], f"{file}: scenarios", problems)
    unique(scenarios, problems)
    if problems:
        raise ScenarioError("\n".join(problems))
    return Book(tuple(scenarios))


def parse(document: Any) -> tuple[Scenario, ...]:
    """Scenarios sent at run time (`POST /_emulator/scenarios`): one scenario, or `{"scenarios": [...]}`,
    validated exactly as files are; one error listing every mistake, each with its key path."""
    problems: list[str] = []
    if isinstance(document, dict) and set(document) == {"scenarios"}:
        found = _entries(document["scenarios"], "scenarios", problems)
    else:
        found = _entries([document], "", problems)
    unique(found, problems)
    if problems:
        raise ScenarioError("\n".join(problems))
    return tuple(found)


def sources(document: Any) -> list[Any]:
    """The scenarios of a document `parse` took, as sent, one for each it returned: what a shared store keeps
    and every worker parses again."""
    return list(document["scenarios"]) if isinstance(document, dict) and set(document) == {"scenarios"} else [document]


def _entries(entries: Any, at: str, problems: list[str]) -> list[Scenario]:
    """The scenarios of the list at `at` (`FILE: scenarios`; "" for one scenario on its own), their mistakes
    added to `problems`."""
    if not isinstance(entries, list):
        problems.append(f"{at}: expected a list, got {_kind(entries)}")
        return []
    found = []
    for i, entry in enumerate(entries):
        try:
            found.append(_scenario(entry, f"{at}[{i}]" if at else "scenario"))
        except ScenarioError as exc:
            problems.append(str(exc))
    return found


def unique(scenarios: Sequence[Scenario], problems: list[str]) -> None:
    """Add to `problems` each scenario whose name an earlier one has."""
    seen: dict[str, str] = {}
    for s in scenarios:
        if s.name in seen:
            problems.append(f"{s.source}.name: '{s.name}' is already the name of {seen[s.name]}")
        seen.setdefault(s.name, s.source)


def yaml_files(paths: Iterable[Path]) -> list[Path]:
    """Files as given, and the `*.yaml` and `*.yml` files in directories, sorted; a missing path is an error."""
    files = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml"))
        elif path.exists():
            files.append(path)
        else:
            raise ScenarioError(f"{path}: no such file or directory")
    return files


def _kind(value: Any) -> str:
    names = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "an integer"}
    return "nothing" if value is None else names.get(type(value), type(value).__name__)


def _fail(at: str, expected: str, value: Any) -> ScenarioError:
    return ScenarioError(f"{at}: expected {expected}, got {_kind(value)}{f' ({value!r})' if value is not None else ''}")


class _Mistakes:
    """The mistakes found in one part of a scenario, gathered so that all are reported, not the first. Holds its
    list rather than being one: a class compiled by mypyc (setup.py) cannot subclass a built-in type."""

    def __init__(self) -> None:
        self.found: list[str] = []

    def append(self, mistake: str) -> None:
        self.found.append(mistake)

    def read(self, default: T, read: Callable[..., T], *args: Any) -> T:
        """`read(*args)`, or `default` with its mistake noted."""
        try:
            return read(*args)
        except ScenarioError as exc:
            self.found.append(str(exc))
            return default

    def key(self, data: Mapping[str, Any], key: str, at: str, read: Callable[[Any, str], T], default: T) -> T:
        """`read(data[key], "AT.KEY")` when the key is there, else `default` (also when it was wrong)."""
        return self.read(default, read, data[key], f"{at}.{key}") if key in data else default

    def check(self) -> None:
        if self.found:
            raise ScenarioError("\n".join(self.found))


def _mapping(
    value: Any, at: str, allowed: tuple[str, ...], required: tuple[str, ...] = (), mistakes: list[str] | None = None
) -> dict[str, Any]:
    """A mapping with only `allowed` keys and every `required` one. Not a mapping raises; a wrong key raises
    too, or is noted in `mistakes` when given, so that the rest of it is still read."""
    if not isinstance(value, dict):
        raise _fail(at, "a mapping", value)
    wrong = [f"{at}.{key}: unknown key; expected one of {', '.join(allowed)}" for key in value if key not in allowed]
    wrong += [f"{at}.{key}: missing; this key is required" for key in required if key not in value]
    if wrong and mistakes is None:
        raise ScenarioError("\n".join(wrong))
    if wrong and mistakes is not None:
        mistakes.extend(wrong)
    return {k: v for k, v in value.items() if k in allowed}


def _string(value: Any, at: str) -> str:
    if not isinstance(value, str):
        raise _fail(at, "a string", value)
    return value


def _regex(value: Any, at: str) -> Searcher:
    """A regex in RE2's syntax, matched in linear time: no pattern can stall the server (no lookaround, no
    backreferences; RE2's `(?i)`, classes and anchors as Python's)."""
    try:
        return cast(Searcher, re2.compile(_string(value, at), _RE2))
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ScenarioError(f"{at}: not a valid regular expression in RE2's syntax (linear time): {reason}") from None


def _glob(value: Any, at: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(_string(value, at)))


def _scenario(entry: Any, at: str) -> Scenario:
    kinds = ("reply", "steps", "replies")
    mistakes = _Mistakes()
    data = _mapping(entry, at, ("name", "match", "timing", "like", *kinds), ("name",), mistakes.found)
    name = mistakes.key(data, "name", at, _string, "")
    given = [k for k in kinds if k in data]
    if len(given) != 1:
        mistakes.append(f"{at}: expected exactly one of reply, steps, replies; got {', '.join(given) or 'none'}")
    steps: tuple[ReplySpec, ...] = ()
    if given == ["reply"]:
        steps = (mistakes.key(data, "reply", at, _reply, ReplySpec()),)
    elif len(given) == 1:
        steps = mistakes.key(data, given[0], at, _replies, steps)
    match = mistakes.key(data, "match", at, _match, None)
    timing = mistakes.key(data, "timing", at, _timing, None)
    like = mistakes.key(data, "like", at, _like, None)
    mistakes.check()
    by_call = given == ["replies"]
    return Scenario(name=name, source=at, match=match, steps=steps, by_call=by_call, timing=timing, like=like)


def _like(value: Any, at: str) -> str:
    """A model of the public profiles' catalogs, whose parameters the scenario's model takes."""
    model = _string(value, at)
    if catalog.lookup(model) is None:
        raise ScenarioError(f"{at}: {model!r} is no model of the openai or anthropic catalog (emulator/catalog/)")
    return model


def _replies(value: Any, at: str) -> tuple[ReplySpec, ...]:
    if not isinstance(value, list) or not value:
        raise _fail(at, "a non-empty list of replies", value)
    mistakes = _Mistakes()
    replies = tuple(mistakes.read(ReplySpec(), _reply, item, f"{at}[{i}]") for i, item in enumerate(value))
    mistakes.check()
    return replies


def _match(value: Any, at: str) -> Match:
    mistakes = _Mistakes()
    data = _mapping(value, at, ("model", "last_user", "tools", "tool", "header"), (), mistakes.found)
    last_user = mistakes.key(data, "last_user", at, _last_user, None)
    tools = data.get("tools")
    if tools is not None and not isinstance(tools, bool):
        mistakes.append(str(_fail(f"{at}.tools", "true (tools offered) or false (none offered)", tools)))
    headers = data.get("header", {})
    if not isinstance(headers, dict):
        mistakes.append(str(_fail(f"{at}.header", "a mapping of header names to globs", headers)))
        headers = {}
    model = mistakes.key(data, "model", at, _glob, None)
    tool = mistakes.key(data, "tool", at, _glob, None)
    globs = tuple((str(k).lower(), mistakes.read(None, _glob, v, f"{at}.header.{k}")) for k, v in headers.items())
    mistakes.check()
    return Match(
        model_glob=data["model"] if model else None,
        model=model,
        last_user=last_user,
        tools=tools,
        tool=tool,
        headers=tuple((k, g) for k, g in globs if g is not None),
    )


def _last_user(value: Any, at: str) -> Searcher:
    spec = _mapping({"contains": value} if isinstance(value, str) else value, at, ("contains", "regex"))
    if len(spec) != 1:
        raise ScenarioError(f"{at}: expected exactly one of contains, regex")
    if "contains" in spec:
        return re.compile(re.escape(_string(spec["contains"], f"{at}.contains")), re.IGNORECASE)
    return _regex(spec["regex"], f"{at}.regex")


def _text(value: Any, at: str) -> Text:
    if isinstance(value, str):
        return value
    counts = ("count", "sentences", "paragraphs", "words")
    if isinstance(value, dict) and "default" in value and "faker" not in value:
        data = _mapping(value, at, ("default", "count"), ("default",))
        kind = data["default"]
        if kind not in DEFAULT_KINDS:
            raise _fail(f"{at}.default", f"one of {', '.join(DEFAULT_KINDS)}", kind)
        count = data.get("count")
        if count is not None and not (isinstance(count, int) and not isinstance(count, bool) and count > 0):
            raise _fail(f"{at}.count", "a positive integer", count)
        return DefaultText(kind, count)
    data = _mapping(value, at, ("faker", *counts), ("faker",))
    kind = data["faker"]
    if kind not in TEXT_KINDS:
        raise _fail(f"{at}.faker", f"one of {', '.join(TEXT_KINDS)}", kind)
    given = [data[k] for k in counts if k in data]
    if len(given) > 1 or (given and not (isinstance(given[0], int) and given[0] > 0)):
        raise ScenarioError(f"{at}: expected one count (count, sentences, paragraphs or words), a positive integer")
    return FakerText(kind, given[0] if given else None)


def _reply(value: Any, at: str) -> ReplySpec:
    mistakes = _Mistakes()
    data = _mapping(
        value, at, ("reasoning", "text", "tool_calls", "finish_reason", "usage", "fault"), (), mistakes.found
    )
    finish = data.get("finish_reason")
    if finish is not None and finish not in FINISH_REASONS:
        mistakes.append(str(_fail(f"{at}.finish_reason", f"one of {', '.join(FINISH_REASONS)}", finish)))
    usage = mistakes.key(data, "usage", at, _usage, None)
    calls = data.get("tool_calls", [])
    if not isinstance(calls, list):
        mistakes.append(str(_fail(f"{at}.tool_calls", "a list of tool calls", calls)))
        calls = []
    spec = ReplySpec(
        reasoning=mistakes.key(data, "reasoning", at, _text, NO_TEXT),
        text=mistakes.key(data, "text", at, _text, NO_TEXT),
        tool_calls=tuple(
            mistakes.read(CallSpec("", None), _call, c, f"{at}.tool_calls[{i}]") for i, c in enumerate(calls)
        ),
        finish_reason=finish,
        usage=usage,
        fault=mistakes.key(data, "fault", at, _fault, None),
    )
    mistakes.check()
    return spec


def _usage(value: Any, at: str) -> Mapping[str, int]:
    usage = _mapping(value, at, USAGE_KEYS)
    wrong = [_fail(f"{at}.{k}", "a non-negative integer", n) for k, n in usage.items() if not _count(n)]
    if wrong:
        raise ScenarioError("\n".join(map(str, wrong)))
    return usage


def _count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _fault(value: Any, at: str) -> Fault:
    return _spec(faults.fault, value, at, "a mapping with a 'kind' (see the fault table in docs/faults.md)")


def _timing(value: Any, at: str) -> Timing:
    return _spec(faults.timing, value, at, "a mapping of latency_ms, ttft_ms, tokens_per_second, jitter_ms")


def _spec(read: Callable[[dict[str, Any], str], T], value: Any, at: str, expected: str) -> T:
    """A fault or timing mapping, read by `faults`, its mistakes reported as the scenario file's."""
    if not isinstance(value, dict):
        raise _fail(at, expected, value)
    try:
        return read(value, at)
    except faults.FaultError as exc:
        raise ScenarioError(str(exc)) from None


def _call(value: Any, at: str) -> CallSpec:
    data = _mapping(value, at, ("name", "arguments", "id"), ("name",))
    arguments = data.get("arguments")
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments, ensure_ascii=False)
    elif arguments is not None and not isinstance(arguments, str):
        raise _fail(f"{at}.arguments", "a mapping (JSON arguments) or a string (raw input)", arguments)
    call_id = _string(data["id"], f"{at}.id") if "id" in data else None
    return CallSpec(name=_string(data["name"], f"{at}.name"), arguments=arguments, id=call_id)
