"""The canonical request (`Prompt`) and answer (`Turn`) that every dialect parses into and renders from.

Plain values, no behaviour: a dialect turns wire JSON into a `Prompt`, a source (scenario, recording, default) turns a
`Prompt` into a `Reply`, `answer.finish` applies the request's limits to make the `Turn`, and the dialect renders that
`Turn` back to wire JSON or SSE. Nothing assigns to their fields once built; `dataclasses.replace` makes a changed copy.

The values built on every request (`Prompt`, `Message`, `ToolCall`, `Reply`, `Turn`, `Usage`) are native: slotted
dataclasses with an `__init__` written out, which mypyc compiles into the class (a dataclass's generated
`__init__` stays interpreted in a compiled module, and a class under another decorator, `frozen`, is no native class
at all). The rest are `frozen` (emulator/core/frozen.py), the decorator that tells the type checker they are
frozen; of the native ones, tests/test_values.py checks that nothing
assigns to a field and that each `__init__` takes every field, in order, with its default.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Literal

from emulator.core.frozen import frozen as frozen
from emulator.core.sse import loads

Role = Literal["system", "developer", "user", "assistant", "tool"]
ToolKind = Literal["function", "custom"]
# Canonical finish reasons, in Chat Completions' words; each dialect maps them to its own.
FinishReason = Literal["stop", "length", "tool_calls", "content_filter"]
FINISH_REASONS: tuple[FinishReason, ...] = ("stop", "length", "tool_calls", "content_filter")
# Reasoning effort, from the Inferam docs: `none` turns thinking off.
EFFORTS = ("none", "minimal", "low", "medium", "high", "xhigh", "max")


@dataclass(slots=True, unsafe_hash=True)  # native: see the module's docstring
class ToolCall:
    """One call the model makes: JSON `arguments` for a function tool, freeform text for a custom tool."""

    id: str
    name: str
    arguments: str
    kind: ToolKind = "function"

    def __init__(self, id: str, name: str, arguments: str, kind: ToolKind = "function") -> None:
        self.id = id
        self.name = name
        self.arguments = arguments
        self.kind = kind

    def parsed_arguments(self) -> Any:
        """The arguments as JSON reads them (a function tool's object); {} for none, or for text that is not JSON."""
        try:
            return loads(self.arguments.encode()) if self.arguments else {}
        except ValueError:
            return {}


@dataclass(slots=True, unsafe_hash=True)  # native: see the module's docstring
class Message:
    """One conversation entry; `tool_call_id` ties a tool result to the call it answers."""

    role: Role
    text: str = ""
    reasoning: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None
    images: int = 0

    def __init__(
        self,
        role: Role,
        text: str = "",
        reasoning: str = "",
        tool_calls: tuple[ToolCall, ...] = (),
        tool_call_id: str | None = None,
        images: int = 0,
    ) -> None:
        self.role = role
        self.text = text
        self.reasoning = reasoning
        self.tool_calls = tool_calls
        self.tool_call_id = tool_call_id
        self.images = images


@frozen
class Tool:
    """A tool offered to the model; `parameters` is a JSON Schema (function tools only)."""

    name: str
    kind: ToolKind = "function"
    description: str = ""
    parameters: Mapping[str, Any] | None = None


@frozen
class ToolChoice:
    """`auto`, `none`, `required` (some tool), or `required` with `name` (that tool)."""

    mode: Literal["auto", "none", "required"] = "auto"
    name: str | None = None


@frozen
class ResponseFormat:
    """`text`, `json_object`, or `json_schema` with its `schema`."""

    type: Literal["text", "json_object", "json_schema"] = "text"
    schema: Mapping[str, Any] | None = None


AUTO, TEXT = ToolChoice(), ResponseFormat()  # a prompt's defaults: built once, as a dataclass's defaults were


@dataclass(slots=True, unsafe_hash=True)  # native: see the module's docstring
class Prompt:
    """The one canonical request, whatever dialect it arrived in."""

    dialect: str
    model: str
    messages: tuple[Message, ...]
    tools: tuple[Tool, ...] = ()
    tool_choice: ToolChoice = AUTO
    parallel_tool_calls: bool = True
    max_tokens: int | None = None
    effort: str | None = None  # one of EFFORTS, or None for the model's default
    reasoning_budget: int | None = None
    stop: tuple[str, ...] = ()
    stream: bool = False
    include_usage: bool = False
    response_format: ResponseFormat = TEXT
    temperature: float | None = None
    top_p: float | None = None
    seed: int | None = None
    cache_key: str | None = None
    api_key: str = ""
    headers: Mapping[str, str] = field(default_factory=dict)  # lower-cased names
    fingerprint: str = ""  # a digest of the raw request (and the server's seed): the root of its ids
    conversation: str = ""  # its conversation key (`identity.conversation`): the root of its answer's text
    echo: Mapping[str, Any] = field(default_factory=dict)  # request fields the dialect reflects back as given
    profile: str = "inferam"  # the upstream it was sent to (`profiles.PROFILES`), whose shapes the answer takes
    choices: int = 1  # Chat Completions' `n`, where the profile honours it
    logprobs: int | None = None  # where the profile honours them: how many `top_logprobs` (None: no logprobs)
    # Anthropic's prompt cache: the prompt's prefixes, in order (tools, system, each message), each as a digest of
    # everything up to its end, its tokens and, where a `cache_control` breakpoint ends it, its lifetime in seconds
    # (0: not a breakpoint). Empty where the profile caches nothing this way.
    prefixes: tuple[tuple[str, int, float], ...] = ()

    def __init__(
        self,
        dialect: str,
        model: str,
        messages: tuple[Message, ...],
        tools: tuple[Tool, ...] = (),
        tool_choice: ToolChoice = AUTO,
        parallel_tool_calls: bool = True,
        max_tokens: int | None = None,
        effort: str | None = None,
        reasoning_budget: int | None = None,
        stop: tuple[str, ...] = (),
        stream: bool = False,
        include_usage: bool = False,
        response_format: ResponseFormat = TEXT,
        temperature: float | None = None,
        top_p: float | None = None,
        seed: int | None = None,
        cache_key: str | None = None,
        api_key: str = "",
        headers: Mapping[str, str] | None = None,
        fingerprint: str = "",
        conversation: str = "",
        echo: Mapping[str, Any] | None = None,
        profile: str = "inferam",
        choices: int = 1,
        logprobs: int | None = None,
        prefixes: tuple[tuple[str, int, float], ...] = (),
    ) -> None:
        self.dialect = dialect
        self.model = model
        self.messages = messages
        self.tools = tools
        self.tool_choice = tool_choice
        self.parallel_tool_calls = parallel_tool_calls
        self.max_tokens = max_tokens
        self.effort = effort
        self.reasoning_budget = reasoning_budget
        self.stop = stop
        self.stream = stream
        self.include_usage = include_usage
        self.response_format = response_format
        self.temperature = temperature
        self.top_p = top_p
        self.seed = seed
        self.cache_key = cache_key
        self.api_key = api_key
        self.headers = {} if headers is None else headers
        self.fingerprint = fingerprint
        self.conversation = conversation
        self.echo = {} if echo is None else echo
        self.profile = profile
        self.choices = choices
        self.logprobs = logprobs
        self.prefixes = prefixes

    @property
    def thinking(self) -> bool:
        """Whether the model reasons first: on by default, as Inferam's model does."""
        return self.effort != "none" and self.reasoning_budget != 0

    @property
    def root(self) -> str:
        """What seeds the answer's text: the conversation key, or the fingerprint of a request built without one."""
        return self.conversation or self.fingerprint

    @property
    def last_user_text(self) -> str:
        return next((m.text for m in reversed(self.messages) if m.role == "user"), "")

    @property
    def assistant_turns(self) -> int:
        return sum(1 for m in self.messages if m.role == "assistant")


@dataclass(slots=True, unsafe_hash=True)  # native: see the module's docstring
class Usage:
    """Token counts; `input_tokens` includes `cached_tokens` (read from cache) and `written_tokens` (written to it,
    Anthropic's cache creation; `written_1h`, those kept an hour), `output_tokens` includes `reasoning_tokens`."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    reasoning_tokens: int = 0
    written_tokens: int = 0
    written_1h: int = 0

    def __init__(
        self,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cached_tokens: int = 0,
        reasoning_tokens: int = 0,
        written_tokens: int = 0,
        written_1h: int = 0,
    ) -> None:
        self.input_tokens = input_tokens
        self.output_tokens = output_tokens
        self.cached_tokens = cached_tokens
        self.reasoning_tokens = reasoning_tokens
        self.written_tokens = written_tokens
        self.written_1h = written_1h

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens


FaultKind = Literal[
    "status",
    "stream_error",
    "truncate",
    "stall",
    "malformed",
    "slice",
    "drip",
    "reset",
    "empty",
    "garbage",
    "hang",
    "model_output",
]


@frozen
class Fault:
    """A failure on purpose, by name (the vocabulary and each kind's parameters: `faults.KINDS`).

    `status`, `code` and `message` say which error in HTTP terms (429 rate limit, 500 server error,
    529 overloaded…); each dialect derives its own error type and code from the status unless
    `code` is given. `after_events` / `after_bytes` say where a stream breaks.
    """

    kind: FaultKind = "stream_error"
    after_events: int | None = None
    after_bytes: int | None = None
    status: int = 500
    code: str | None = None
    message: str | None = None
    retry_after: float | None = None
    retry_after_ms: int | None = None
    should_retry: bool | None = None
    ms: int = 0
    size: int = 1
    event: Literal["failed", "error"] = "failed"  # Responses: `response.failed`, or the flat `error` event
    rate: float = 1.0  # the share of requests it strikes (Toxiproxy's toxicity), chosen by the seed
    at: Literal["edge", "upstream"] = "edge"  # upstream: a profile that retries upstream failures may absorb it
    output: str | None = None  # `model_output`: the raw text the model got wrong


@frozen
class Timing:
    """Pacing: time before the headers, to the first token, per token (from `tokens_per_second`),
    and a seeded jitter on each pause. All zero by default: fast tests."""

    latency_ms: int = 0
    ttft_ms: int = 0
    tokens_per_second: float = 0.0
    jitter_ms: int = 0


@dataclass(slots=True, unsafe_hash=True)  # native: see the module's docstring
class Reply:
    """What a source (scenario, recording, default) wants to say, before the request's limits apply.

    `finish_reason` and `usage` are overrides: left as None, they follow from the content and the
    token model.
    """

    reasoning: str = ""
    text: str = ""
    tool_calls: tuple[ToolCall, ...] = ()
    finish_reason: FinishReason | None = None
    usage: Mapping[str, int] | None = None
    fault: Fault | None = None
    timing: Timing | None = None

    def __init__(
        self,
        reasoning: str = "",
        text: str = "",
        tool_calls: tuple[ToolCall, ...] = (),
        finish_reason: FinishReason | None = None,
        usage: Mapping[str, int] | None = None,
        fault: Fault | None = None,
        timing: Timing | None = None,
    ) -> None:
        self.reasoning = reasoning
        self.text = text
        self.tool_calls = tool_calls
        self.finish_reason = finish_reason
        self.usage = usage
        self.fault = fault
        self.timing = timing


@dataclass(slots=True, unsafe_hash=True)  # native: see the module's docstring
class Turn:
    """The one canonical answer that every dialect renders."""

    id: str  # the digest that seeds every id the dialect prints
    model: str
    created: int
    reasoning: str
    text: str
    tool_calls: tuple[ToolCall, ...]
    finish_reason: FinishReason
    usage: Usage
    source: str = "default"  # what answered: a scenario's name, or "default"
    stop_sequence: str | None = None  # the stop sequence that ended the text, if one did
    fault: Fault | None = None
    timing: Timing | None = None
    alternatives: tuple[Turn, ...] = ()  # Chat Completions' `n`: the other choices, where they differ from this one
    match: str | None = None  # for a recording: how it matched the request ("conversation", …)

    def __init__(
        self,
        id: str,
        model: str,
        created: int,
        reasoning: str,
        text: str,
        tool_calls: tuple[ToolCall, ...],
        finish_reason: FinishReason,
        usage: Usage,
        source: str = "default",
        stop_sequence: str | None = None,
        fault: Fault | None = None,
        timing: Timing | None = None,
        alternatives: tuple[Turn, ...] = (),
        match: str | None = None,
    ) -> None:
        self.id = id
        self.model = model
        self.created = created
        self.reasoning = reasoning
        self.text = text
        self.tool_calls = tool_calls
        self.finish_reason = finish_reason
        self.usage = usage
        self.source = source
        self.stop_sequence = stop_sequence
        self.fault = fault
        self.timing = timing
        self.alternatives = alternatives
        self.match = match
