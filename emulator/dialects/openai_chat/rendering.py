"""Chat Completions: a `Turn` rendered as the answer, whole or streamed, and errors in the dialect's shape."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import replace
from functools import lru_cache
from itertools import chain
from typing import Any

from emulator.core import ids, logprobs, tokens
from emulator.core.conversation import Prompt, ToolCall, Turn, Usage
from emulator.core.errors import EmulatorError, UpstreamError, model_output_message, openai_body
from emulator.core.sse import comment, dumps, frame, quote
from emulator.core.wire import broken_off
from emulator.dialects import filters
from emulator.rules import profiles

DONE = frame("[DONE]")
# A frame cut short, as its clients parse it: broken JSON.
MALFORMED = b'data: {"id": "chatcmpl-", "object": "chat.completion.chunk", "choices": [{"delta": {"content": "unt\n\n'
KEEPALIVE = comment("keep-alive")  # an SSE comment: clients skip it, idle timers see bytes


def _usage(usage: Usage) -> dict[str, Any]:
    return {
        "prompt_tokens": usage.input_tokens,
        "completion_tokens": usage.output_tokens,
        "total_tokens": usage.total_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
        "completion_tokens_details": {"reasoning_tokens": usage.reasoning_tokens},
    }


def _start(turn: Turn) -> float:
    """When generation started, with a seeded fraction of a second: `created` is whole seconds."""
    return turn.created + ids.number(turn.id, "start") % 1_000_000 / 1_000_000


def _ttft(profile: profiles.Profile, turn: Turn) -> float:
    """Seconds to the first token: the turn's pacing, else the profile's nominal speed."""
    return ((turn.timing and turn.timing.ttft_ms) or profile.nominal.ttft_ms) / 1000


def _timing_usage(profile: profiles.Profile, choices: list[Turn]) -> dict[str, Any]:
    """Infercom's usage (seed 003's `Usage`): token counts and the timings of a generation paced as the
    turn's timing says (else at the profile's nominal speed), so the figures agree with one another."""
    turn = choices[0]
    usage = turn.usage
    completion = sum(t.usage.output_tokens for t in choices)
    ttft = _ttft(profile, turn)
    rate = (turn.timing and turn.timing.tokens_per_second) or profile.nominal.tokens_per_second
    after_first = max(0, usage.output_tokens - 1)
    latency = ttft + after_first / rate
    start = _start(turn)
    total = usage.input_tokens + completion
    return {
        "acceptance_rate": 1 + ids.number(turn.id, "acceptance") % 3_000_000 / 1_000_000,
        "completion_tokens": completion,
        "completion_tokens_after_first_per_sec": rate if after_first else 0.0,
        "completion_tokens_after_first_per_sec_first_ten": rate if after_first else 0.0,
        "completion_tokens_after_first_per_sec_graph": rate if after_first else 0.0,
        "completion_tokens_per_sec": completion / latency,
        "end_time": start + latency,
        "is_last_response": True,
        "prompt_tokens": usage.input_tokens,
        "prompt_tokens_details": {"cached_tokens": usage.cached_tokens},
        "start_time": start,
        "stop_reason": _finish_reason(profile, turn),
        "time_to_first_token": ttft,
        "time_to_first_token_graph": ttft,
        "total_latency": latency,
        "total_tokens": total,
        "total_tokens_per_sec": total / latency,
    }


def _usage_for(profile: profiles.Profile, choices: list[Turn]) -> dict[str, Any]:
    if profile.timing_usage:
        return _timing_usage(profile, choices)
    if len(choices) > 1:  # `n`: every choice's tokens are generated, and counted
        usage = choices[0].usage
        reasoning = sum(t.usage.reasoning_tokens for t in choices)
        output = sum(t.usage.output_tokens for t in choices)
        return _usage(replace(usage, output_tokens=output, reasoning_tokens=reasoning))
    return _usage(choices[0].usage)


@lru_cache(maxsize=256)
def _system_fingerprint(model: str) -> str:
    return ids.make("fp_", model, length=10)


def _head(profile: profiles.Profile, turn: Turn, kind: str) -> dict[str, Any]:
    created: int | float = turn.created
    if profile.float_created:  # the first token's time: after the generation started
        created = _start(turn) + _ttft(profile, turn)
    head = {
        "id": ids.uuid(turn.id) if profile.uuid_ids else ids.make("chatcmpl-", turn.id, length=29),
        "object": kind,
        "created": created,
        "model": turn.model,
    }
    if profile.service_tier:
        head["service_tier"] = profile.service_tier
    head["system_fingerprint"] = profile.system_fingerprint or _system_fingerprint(turn.model)
    return head


def _finish_reason(profile: profiles.Profile, turn: Turn) -> str:
    """The turn's finish reason, where the profile has it; else `stop` (Infercom has no `content_filter`)."""
    return turn.finish_reason if turn.finish_reason in profile.finish_reasons else "stop"


def _call(call: ToolCall) -> dict[str, Any]:
    return {"id": call.id, "type": "function", "function": {"name": call.name, "arguments": call.arguments}}


def _shown(profile: profiles.Profile, turn: Turn) -> Turn:
    """The turn as the profile shows it: OpenAI's models reason unseen (their tokens still counted)."""
    return replace(turn, reasoning="") if profile.hidden_reasoning and turn.reasoning else turn


def _no_content(turn: Turn) -> str | None:
    """`content` before any text: null when reasoning or tool calls come instead, as DeepSeek-style servers send."""
    return None if turn.reasoning or turn.tool_calls else ""


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    """The `chat.completion` object for a non-streamed request, in the profile's shape."""
    if turn.fault and turn.fault.kind == "model_output":
        return _model_output_error(turn)
    profile = profiles.PROFILES[prompt.profile]
    choices = _choices(profile, prompt, turn)
    body = _head(profile, turn, "chat.completion") | {
        "choices": [_choice(profile, i, t, _logprobs(prompt, i, t)) for i, t in enumerate(choices)],
        "usage": _usage_for(profile, choices),
    }
    if profile.content_filters:  # Azure's
        body["prompt_filter_results"] = filters.prompt_results()
        for choice in body["choices"]:
            choice["content_filter_results"] = filters.choice_results()
    return body


def _choices(profile: profiles.Profile, prompt: Prompt, turn: Turn) -> list[Turn]:
    """One turn per choice (`n`), as the profile shows them: the alternatives, or the one turn repeated."""
    turns = [turn, *turn.alternatives] if turn.alternatives else [turn] * prompt.choices
    return [_shown(profile, t) for t in turns]


def _logprobs(prompt: Prompt, index: int, turn: Turn) -> list[dict[str, Any]] | None:
    """The logprobs of a choice's content, when asked for: seeded by the conversation and the choice's index, so
    that choice 0 has the `n=1` answer's, streamed or not."""
    if prompt.logprobs is None:
        return None
    return logprobs.entries(turn.text, ids.digest(prompt.root, index), prompt.logprobs)


def _choice(profile: profiles.Profile, index: int, turn: Turn, entries: list[dict[str, Any]] | None) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": turn.text or _no_content(turn)}
    if profile.refusal:
        message["refusal"] = None
    if profile.annotations:
        message["annotations"] = []
    if turn.reasoning:
        message[profile.reasoning_field] = turn.reasoning
    if turn.tool_calls:
        message["tool_calls"] = [_call(c) for c in turn.tool_calls]
    logged = None if entries is None else {"content": entries if turn.text else None, "refusal": None}
    return {"index": index, "message": message, "logprobs": logged, "finish_reason": _finish_reason(profile, turn)}


def render_stream(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    """Every SSE event of the streamed answer, `[DONE]` included, in order, made as they are read."""
    if turn.fault and turn.fault.kind == "model_output":  # nothing was generated well enough to stream
        return iter((frame(dumps(_model_output_error(turn))),))
    fault = turn.fault
    if fault and fault.kind == "stream_error":  # the stream breaks off: no finish chunk, no usage, no [DONE]
        return broken_off(_events(prompt, turn), fault.after_events, render_stream_error(UpstreamError.of(fault)))
    return chain(_events(prompt, turn), (DONE,))


def _events(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    profile = profiles.PROFILES[prompt.profile]
    choices = _choices(profile, prompt, turn)
    include_usage = prompt.include_usage or profile.stream_usage
    # Infercom's chunks carry no `usage` key until the last one (seed 003's examples).
    null_usage = include_usage and not profile.stream_usage
    head_fields = dumps(_head(profile, turn, "chat.completion.chunk"))[:-1]
    tail = ',"logprobs":null,"finish_reason":%s}]' + (',"usage":null}' if null_usage else "}")
    open_tail = tail % "null"
    if profile.content_filters:  # Azure's opening chunk
        yield frame(dumps(filters.first_chunk()))
    for index, choice in enumerate(choices):  # `n`: each choice streamed whole, one after another
        head = head_fields + f',"choices":[{{"index":{index},"delta":'
        yield from _choice_events(profile, choice, head, tail, open_tail, _logprobs(prompt, index, choice))
    if include_usage:
        usage = {"choices": [], "usage": _usage_for(profile, choices)}
        yield frame(dumps(_head(profile, turn, "chat.completion.chunk") | usage))


def _choice_events(
    profile: profiles.Profile, turn: Turn, head: str, tail: str, open_tail: str, entries: list[dict[str, Any]] | None
) -> Iterator[bytes]:
    """The chunks of one choice: role, reasoning, content, tool calls, and the one with `finish_reason`; each
    content chunk with its token's logprobs when `entries` has them."""

    def chunk(delta: dict[str, Any]) -> bytes:
        return frame(head + dumps(delta) + open_tail)

    def text_chunks(key: str, text: str, channel: str) -> Iterator[bytes]:
        # The hot loop of every stream: one delta per token, spliced as text rather than dumped.
        named = f',"channel":"{channel}"' if profile.channels and turn.reasoning else ""
        start, end = f'{head}{{"{key}":', f"{named}}}{open_tail}\n\n"
        return (f"data: {start}{quote(piece)}{end}".encode() for piece in tokens.pieces(text))

    first: dict[str, Any] = {"role": "assistant", "content": _no_content(turn)}
    if turn.reasoning:
        first[profile.reasoning_field] = ""
    elif profile.refusal:
        first["refusal"] = None
    yield chunk(first)
    yield from text_chunks(profile.reasoning_field, turn.reasoning, "analysis")
    if entries:  # the content's tokens are its deltas: one entry each
        start, rest = f'{head}{{"content":', open_tail.removeprefix(',"logprobs":null')
        for e in entries:
            logged = {"content": [e], "refusal": None}
            yield f'data: {start}{quote(e["token"])}}},"logprobs":{dumps(logged)}{rest}\n\n'.encode()
    else:
        yield from text_chunks("content", turn.text, "final")
    for index, call in enumerate(turn.tool_calls):
        if profile.whole_tool_calls:  # id, type and function on every entry: the call in one chunk
            yield chunk({"tool_calls": [{"index": index} | _call(call)]})
            continue
        opening = {"index": index} | _call(call)
        opening["function"] = {"name": call.name, "arguments": ""}
        yield chunk({"tool_calls": [opening]})
        for piece in tokens.pieces(call.arguments):
            yield chunk({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    # Infercom's last content chunk says `content: ""` beside the finish reason (seed 003's example).
    last = '{"content":""}' if profile.finish_content else "{}"
    yield frame(head + last + tail % dumps(_finish_reason(profile, turn)))


def _model_output_error(turn: Turn) -> dict[str, Any]:
    """Infercom's `ModelOutputError` (seed 003), answered with status 200 "when unsuccessful tool calling or
    structured response generation": the raw output the model produced rides along in `model_output`."""
    fault = turn.fault
    assert fault is not None
    if fault.output is not None:
        output = fault.output
    else:  # the answer broken off halfway: a tool call's JSON, else the text
        raw = (
            dumps({"name": turn.tool_calls[0].name, "arguments": turn.tool_calls[0].arguments})
            if turn.tool_calls
            else turn.text
        )
        output = raw[: max(1, len(raw) // 2)]
    return {
        "error": {
            "code": fault.code,
            "message": model_output_message(fault, bool(turn.tool_calls)),
            "model_output": output,
            "param": None,
            "type": "model_output_error",
        }
    }


def render_error(error: EmulatorError) -> dict[str, Any]:
    return openai_body(error)


def render_stream_error(error: EmulatorError) -> bytes:
    """An error after the stream started: a `data:` line whose `error` the SDK raises as `APIError`."""
    return frame(dumps(render_error(error)))
