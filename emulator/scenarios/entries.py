"""One scenario entry read and validated: every key checked, every mistake gathered with its key path and what
was expected (`scenario`), so that a file's mistakes are all reported at once, not the first."""

from __future__ import annotations

import fnmatch
import functools
import json
import re
from collections.abc import Callable, Mapping
from typing import Any, TypeVar, cast

import re2

from emulator.core.conversation import FINISH_REASONS, Fault, Timing
from emulator.default_model.generate import DEFAULT_KINDS, TEXT_KINDS, DefaultText, FakerText
from emulator.rules import catalog, faults
from emulator.scenarios.form import NO_TEXT, CallSpec, Match, ReplySpec, Scenario, ScenarioError, Searcher, Text

T = TypeVar("T")
USAGE_KEYS = ("input_tokens", "output_tokens", "cached_tokens", "reasoning_tokens")
# The keys of a scenario, its `match`, a reply and a tool call (what `emulator mcp`'s reference lists too).
SCENARIO_KEYS = ("name", "match", "timing", "like", "reply", "steps", "replies")
MATCH_KEYS = ("model", "last_user", "tools", "tool", "header")
REPLY_KEYS = ("reasoning", "text", "tool_calls", "finish_reason", "usage", "fault")
CALL_KEYS = ("name", "arguments", "id")


_RE2 = re2.Options()
_RE2.log_errors = False  # a bad pattern is the scenario's mistake, reported as such, not logged by RE2
_RE2.never_capture = True


def kind_of(value: Any) -> str:
    names = {dict: "a mapping", list: "a list", str: "a string", bool: "a boolean", int: "an integer"}
    return "nothing" if value is None else names.get(type(value), type(value).__name__)


def _fail(at: str, expected: str, value: Any) -> ScenarioError:
    shown = f" ({value!r})" if value is not None else ""
    return ScenarioError(f"{at}: expected {expected}, got {kind_of(value)}{shown}")


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
        compiled = re2.compile(_string(value, at), _RE2)
    except re2.error as exc:
        reason = exc.args[0].decode() if exc.args and isinstance(exc.args[0], bytes) else str(exc)
        raise ScenarioError(f"{at}: not a valid regular expression in RE2's syntax (linear time): {reason}") from None
    return _Found(compiled._regexp) if hasattr(compiled, "_regexp") else cast(Searcher, compiled)


_NOWHERE = (-1, -1)  # the span of what was not found


class _Found:
    """An RE2 pattern's search as a scenario's match asks it: whether the pattern is found in the text, answered by
    the compiled pattern itself. google-re2's own `search` builds a match object in Python first (a generator, each
    offset turned back into characters), and that was most of what picking a scenario cost."""

    __slots__ = ("_regexp", "_anywhere")

    def __init__(self, regexp: Any) -> None:
        self._regexp = regexp  # google-re2's compiled pattern (`_re2.RE2`)
        self._anywhere = type(regexp).Anchor.UNANCHORED

    def search(self, text: str) -> bool | None:
        data = text.encode()  # as google-re2 encodes a str; a request's text holds no lone surrogate (reading.py)
        return True if self._regexp.Match(self._anywhere, data, 0, len(data))[0] != _NOWHERE else None


def _glob(value: Any, at: str) -> re.Pattern[str]:
    return re.compile(fnmatch.translate(_string(value, at)))


def scenario(entry: Any, at: str) -> Scenario:
    kinds = ("reply", "steps", "replies")
    mistakes = _Mistakes()
    data = _mapping(entry, at, SCENARIO_KEYS, ("name",), mistakes.found)
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
        raise ScenarioError(f"{at}: {model!r} is no model of the openai or anthropic catalog (emulator/rules/catalog/)")
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
    data = _mapping(value, at, MATCH_KEYS, (), mistakes.found)
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
        return _Contains(_string(spec["contains"], f"{at}.contains"))
    return _regex(spec["regex"], f"{at}.regex")


class _Contains:
    """`contains`: the words anywhere in the text, in any case. A substring of the text lowered, where a
    case-blind regex took 374 ms to look through a 20 MB message (every such scenario, the loop held)."""

    __slots__ = ("needle",)

    def __init__(self, needle: str) -> None:
        self.needle = needle.lower()

    def search(self, text: str) -> object | None:
        return True if self.needle in lowered(text) else None


def lowered(text: str) -> str:
    """`text` in lower case; a long one lowered once for all the scenarios that look in it."""
    return text.lower() if len(text) < 4096 else _lowered_long(text)


@functools.lru_cache(maxsize=2)
def _lowered_long(text: str) -> str:
    return text.lower()


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
    data = _mapping(value, at, REPLY_KEYS, (), mistakes.found)
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
    data = _mapping(value, at, CALL_KEYS, ("name",))
    arguments = data.get("arguments")
    if isinstance(arguments, dict):
        arguments = json.dumps(arguments, ensure_ascii=False)
    elif arguments is not None and not isinstance(arguments, str):
        raise _fail(f"{at}.arguments", "a mapping (JSON arguments) or a string (raw input)", arguments)
    call_id = _string(data["id"], f"{at}.id") if "id" in data else None
    return CallSpec(name=_string(data["name"], f"{at}.name"), arguments=arguments, id=call_id)
