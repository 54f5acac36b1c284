"""From a `Prompt` to the `Turn` every dialect renders: pick the source, then apply the request's limits.

Limits apply as generation would meet them, in order: reasoning (capped by the reasoning budget),
then text, then tool calls. A stop sequence in the text ends the answer there (`stop`); running out
of `max_tokens` cuts it wherever that happens (`length`), reasoning counting against the limit as
real reasoning models do.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace

from emulator import recordings
from emulator.core import ids, tokens
from emulator.core.conversation import Prompt, Reply, ToolCall, Turn, Usage
from emulator.core.wire import TEST_ID
from emulator.default_model.generate import Writer, default_reply
from emulator.dialects import openai_completions, openai_embeddings
from emulator.recordings import Recording
from emulator.rules import profiles
from emulator.scenarios import Scenario
from emulator.state import CallKey

FALLBACK = "fallback"  # the source of an answer the fallback upstream gave (`--fallback-upstream`)


def calls_key(scenario: Scenario | None, prompt: Prompt) -> CallKey | None:
    """What a `replies` scenario counts calls by, per test id and API key; None for any other answer."""
    if scenario is None or not scenario.by_call:
        return None
    return (prompt.headers.get(TEST_ID, ""), scenario.name, prompt.api_key)


@dataclass(slots=True, unsafe_hash=True)  # native, as conversation.py's hot values are: see its docstring
class Source:
    """Where an answer comes from (stage 3 of the pipeline picks it): a recording of this very request, played
    as it was recorded; a recording of the same conversation, rendered afresh; a scenario; or, with none of
    these, the embedded default, or the fallback upstream in its place. Or, for a retry of a request whose answer was
    kept, that answer again."""

    recording: Recording | None = None
    conversation: tuple[Recording, Reply] | None = None
    scenario: Scenario | None = None
    # An answer kept (what made it, its turn's id, its reply), given again to a retry of the request it answered.
    replayed: tuple[str, str, Reply] | None = None
    tier: str | None = None  # how a recording matched: "exact", "conversation", "tool-results-differ"
    nearest: str | None = None  # with recordings loaded and none matching: the one that came closest, in words
    upstream: Reply | None = None  # what the fallback upstream answered in the default's place (`--fallback-upstream`)

    def __init__(
        self,
        recording: Recording | None = None,
        conversation: tuple[Recording, Reply] | None = None,
        scenario: Scenario | None = None,
        replayed: tuple[str, str, Reply] | None = None,
        tier: str | None = None,
        nearest: str | None = None,
        upstream: Reply | None = None,
    ) -> None:
        self.recording = recording
        self.conversation = conversation
        self.scenario = scenario
        self.replayed = replayed
        self.tier = tier
        self.nearest = nearest
        self.upstream = upstream


def compose(prompt: Prompt, source: Source, writer: Writer, calls_before: int, created: int, speed: float) -> Turn:
    """The turn a recorded conversation said (at its recorded pace, scaled by `speed`), or a scenario scripts
    (its step by turns, or by `calls_before`), else the embedded default; with `n` (Infercom), the other
    choices of a default answer too. An embeddings request has no words written for it (`_vectors`)."""
    if prompt.dialect in profiles.VECTORS:
        return _vectors(prompt, source, writer, calls_before, created)
    if source.conversation:
        recording, reply = source.conversation
        reply = replace(reply, timing=recordings.pace(recording, speed))
        turn = finish(prompt, reply, created=created, source=f"recording {recording.source}")
        return replace(turn, match=source.tier)
    if source.replayed:
        made_by, root, reply = source.replayed
        return replace(finish(prompt, reply, created=created, source=made_by), id=root)
    if source.upstream is not None:  # a real model's answer: not deterministic, and not the default's to vary for `n`
        return finish(prompt, source.upstream, created=created, source=FALLBACK)
    scenario = source.scenario
    if scenario is None:
        turn = finish(prompt, default_reply(prompt, writer), created=created)
    else:
        reply = scenario.reply(prompt, writer, calls_before)
        turn = finish(prompt, reply, created=created, source=scenario.name, salt=calls_before)
    if prompt.choices > 1 and turn.source == "default":
        turn = replace(turn, alternatives=alternatives(prompt, writer, created))
    return turn


def _vectors(prompt: Prompt, source: Source, writer: Writer, calls_before: int, created: int) -> Turn:
    """An embeddings answer: its inputs' vectors are the dialect's to render; a scenario may script a fault, pacing,
    or a text that every input is embedded as (its `text`); a recording of the same inputs answers as they do."""
    scenario, made_by = source.scenario, "default"
    reply = Reply()
    if scenario is not None:
        reply, made_by = scenario.reply(prompt, writer, calls_before), scenario.name
    elif source.conversation:
        made_by = f"recording {source.conversation[0].source}"
    root = ids.digest(prompt.fingerprint, calls_before) if calls_before else prompt.fingerprint or ids.digest(made_by)
    usage = Usage(input_tokens=openai_embeddings.input_tokens(prompt))
    turn = Turn(root, prompt.model, created, "", reply.text, (), "stop", usage, made_by)
    turn = replace(turn, fault=reply.fault, timing=reply.timing)
    return replace(turn, match=source.tier) if source.conversation else turn


def alternatives(prompt: Prompt, writer: Writer, created: int) -> tuple[Turn, ...]:
    """The other `n - 1` choices of a default answer, each generated afresh, as sampling would; a scenario's
    script reads the same in every choice (no alternatives: the dialect repeats the turn)."""
    if prompt.dialect == profiles.COMPLETIONS:  # a choice per prompt and `n`: each prompt answered as asked
        others: Iterable[Prompt] = openai_completions.prompts(prompt)[1:]
    else:
        others = (
            replace(
                prompt,
                fingerprint=ids.digest(prompt.fingerprint, "choice", i),
                conversation=ids.digest(prompt.root, "choice", i),
            )
            for i in range(1, prompt.choices)
        )
    return tuple(finish(p, default_reply(p, writer), created=created) for p in others)


def finish(prompt: Prompt, reply: Reply, *, created: int, source: str = "default", salt: object = 0) -> Turn:
    """The `Turn` for `reply` once the request's thinking switch, stop sequences and token limit apply."""
    root = ids.digest(prompt.fingerprint, salt) if salt else prompt.fingerprint or ids.digest(source)
    reasoning = reply.reasoning if prompt.thinking else ""
    if prompt.reasoning_budget is not None:
        reasoning = tokens.cut(reasoning, prompt.reasoning_budget)
    text = reply.text
    calls = reply.tool_calls
    if calls:  # (most answers have none: the tests below cost nothing then)
        # A call of a custom (freeform) tool the request offers is a custom call, whatever scripted it.
        custom = {t.name for t in prompt.tools if t.kind == "custom"}
        calls = tuple(
            replace(c, id=c.id or ids.make("call_", root, i), kind="custom" if c.name in custom else c.kind)
            for i, c in enumerate(calls)
        )
        if not prompt.parallel_tool_calls:  # `parallel_tool_calls: false` / `disable_parallel_tool_use`: one call
            calls = calls[:1]
    finish_reason = reply.finish_reason or ("tool_calls" if calls else "stop")

    matched = None
    stops = sorted((at, n) for n, at in enumerate(text.find(s) for s in prompt.stop) if at >= 0) if prompt.stop else []
    if stops:
        at, which = stops[0]
        text, calls, finish_reason, matched = text[:at], (), "stop", prompt.stop[which]

    if prompt.max_tokens is not None:
        spent = tokens.count(reasoning) + tokens.count(text) + sum(map(tokens.call_tokens, calls))
        if spent > prompt.max_tokens:
            reasoning, text, calls = _truncate(reasoning, text, calls, prompt.max_tokens)
            finish_reason, matched = "length", None

    return Turn(
        id=root,
        model=prompt.model,
        created=created,
        reasoning=reasoning,
        text=text,
        tool_calls=calls,
        finish_reason=finish_reason,
        usage=_usage(prompt, reply, reasoning, text, calls),
        source=source,
        stop_sequence=matched,
        fault=reply.fault,
        timing=reply.timing,
    )


def _truncate(
    reasoning: str, text: str, calls: tuple[ToolCall, ...], budget: int
) -> tuple[str, str, tuple[ToolCall, ...]]:
    """Keep the first `budget` tokens of reasoning, then text, then tool calls (the last one cut short)."""
    reasoning = tokens.cut(reasoning, budget)
    budget -= tokens.count(reasoning)
    text = tokens.cut(text, budget)
    budget -= tokens.count(text)
    kept: list[ToolCall] = []
    for call in calls:
        name = tokens.count(call.name)
        if budget <= name:
            break
        arguments = tokens.cut(call.arguments, budget - name)
        kept.append(replace(call, arguments=arguments))
        budget -= name + tokens.count(arguments)
    return reasoning, text, tuple(kept)


def _usage(prompt: Prompt, reply: Reply, reasoning: str, text: str, calls: tuple[ToolCall, ...]) -> Usage:
    thought = tokens.count(reasoning)
    usage = Usage(
        input_tokens=tokens.prompt_tokens(prompt),
        output_tokens=thought + tokens.count(text) + sum(map(tokens.call_tokens, calls)),
        reasoning_tokens=thought,
    )
    return replace(usage, **reply.usage) if reply.usage else usage
