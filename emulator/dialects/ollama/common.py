"""What Ollama's native endpoints share (reference providers-aws-azure-ollama.md §3): NDJSON streams, `created_at`,
the durations in nanoseconds, the request's `options`, `think` and `format`, and errors as `{"error": "…"}`."""

from __future__ import annotations

import datetime
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from emulator.core import identity, ids
from emulator.core.conversation import Message, Prompt, ResponseFormat, Timing, Tool, ToolChoice, Turn
from emulator.core.errors import EmulatorError, InvalidRequest, UpstreamError
from emulator.core.fields import Fields, bearer
from emulator.core.sse import encode
from emulator.core.wire import broken_off

NDJSON = {"content-type": "application/x-ndjson"}
OPENS = False  # the first line carries the first token
KEEPALIVE = b""  # Ollama sends nothing while it waits
MALFORMED = b'{"model":"llama3.2","created_at":"2025-01-01T00:00:00Z","message":{"role":"assistant","content":"unt\n'
THINK_LEVELS = ("high", "medium", "low", "max")
# How fast a local model answers where the request sets no pacing: a 7B-class model on a laptop's GPU.
NOMINAL = Timing(ttft_ms=150, tokens_per_second=45.0)
PROMPT_TOKENS_PER_SECOND = 900.0
TEXT, AUTO = ResponseFormat(), ToolChoice()


def line(obj: dict[str, Any]) -> bytes:
    """One NDJSON line."""
    return encode(obj) + b"\n"


def finish(turn: Turn, lines: Iterator[bytes]) -> Iterator[bytes]:
    """A stream's `lines`, its `done` line last (see `done`); a `stream_error` fault breaks it off with Ollama's
    error line instead, the status staying 200."""
    fault = turn.fault
    if fault and fault.kind == "stream_error":
        return broken_off(lines, fault.after_events, error_line(UpstreamError.of(fault)))
    return lines


def done(turn: Turn, last: dict[str, Any]) -> bytes:
    """A stream's last line: `last`, with the counts and durations."""
    return line(last | metrics(turn))


def render_error(error: EmulatorError) -> dict[str, Any]:
    """Ollama's error body: the message alone."""
    return {"error": error.message}


def error_line(error: EmulatorError) -> bytes:
    """An error after the stream began: a last line with `error`, the status staying 200."""
    return line(render_error(error))


def created_at(turn: Turn, after_ms: float = 0.0) -> str:
    """RFC 3339 in UTC with microseconds, as Ollama writes `created_at`: the turn's time, a seeded fraction of a
    second, and `after_ms` (a later chunk's)."""
    micro = ids.number(turn.id, "created_at") % 1_000_000 + int(after_ms * 1000)
    moment = datetime.datetime.fromtimestamp(turn.created, datetime.UTC) + datetime.timedelta(microseconds=micro)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def pace(turn: Turn) -> Timing:
    return turn.timing if turn.timing and turn.timing.tokens_per_second else NOMINAL


def metrics(turn: Turn) -> dict[str, int]:
    """The final object's counts and durations (nanoseconds), as a generation at the turn's pacing takes them."""
    timing = pace(turn)
    usage = turn.usage
    load = 1_000_000 * (5 + ids.number(turn.id, "load") % 40)
    prompt = int(usage.input_tokens / PROMPT_TOKENS_PER_SECOND * 1e9)
    generating = int(usage.output_tokens / timing.tokens_per_second * 1e9)
    return {
        "total_duration": load + prompt + generating,
        "load_duration": load,
        "prompt_eval_count": usage.input_tokens,
        "prompt_eval_duration": prompt,
        "eval_count": usage.output_tokens,
        "eval_duration": generating,
    }


def done_reason(turn: Turn) -> str:
    return "length" if turn.finish_reason == "length" else "stop"


def options(f: Fields) -> dict[str, Any]:
    """The `options` the answer heeds: `num_predict` (-1: no limit), `temperature`, `top_p`, `seed`, `stop`; any
    other key is ignored, as Ollama only logs it."""
    given = f.obj("options")
    if given is None:
        return {}
    limit = given.get("num_predict", int)
    stop = given.data.get("stop")
    return {
        "max_tokens": limit if limit is not None and limit >= 0 else None,
        "temperature": given.get("temperature", float),
        "top_p": given.get("top_p", float),
        "seed": given.get("seed", int),
        "stop": tuple(s for s in stop if isinstance(s, str)) if isinstance(stop, list) else (),
    }


def think(value: Any) -> str:
    """The reasoning effort `think` asks for ("none": no thinking, as when it is absent or false)."""
    if value is None or value is False:
        return "none"
    if value is True:
        return "medium"
    if value in THINK_LEVELS:
        return str(value)
    raise InvalidRequest(  # Ollama's words (api/types.go)
        f'invalid think value: "{value}" (must be "high", "medium", "low", "max", true, or false)', param="think"
    )


def form(value: Any) -> ResponseFormat:
    """`format`: "json", or a JSON schema the answer follows; else text."""
    if value == "json":
        return ResponseFormat("json_object")
    if isinstance(value, dict) and value:
        return ResponseFormat("json_schema", value)
    return TEXT


def model(f: Fields) -> str:
    name = f.data.get("model")
    if not isinstance(name, str) or not name:
        raise InvalidRequest("model is required", param="model")  # Ollama's words
    return name


def fold(events: Iterable[Mapping[str, Any]]) -> tuple[dict[str, Any], bool]:
    """An NDJSON stream (chat's or generate's lines, as the journal parsed them) made into the object it would
    have been whole, and whether it reached its `done` line; an error line is the answer's `error`."""
    text: list[str] = []
    reasoning: list[str] = []
    calls: list[Any] = []
    whole: dict[str, Any] = {}
    ended = False
    for event in events:
        data = event.get("data")
        if not isinstance(data, dict):
            continue
        if "error" in data:
            whole["error"] = data["error"]
            continue
        message = data.get("message")
        said = message if isinstance(message, dict) else data
        text.append(str(said.get("content", said.get("response", "")) or ""))
        reasoning.append(str(said.get("thinking") or ""))
        calls += said.get("tool_calls") or []
        if data.get("done"):
            ended = True
            whole |= {k: v for k, v in data.items() if k not in ("message", "response", "thinking")}
        whole.setdefault("model", data.get("model"))
    message = {"role": "assistant", "content": "".join(text), "thinking": "".join(reasoning), "tool_calls": calls}
    return whole | {"message": message}, ended


def asked(
    name: str,
    f: Fields,
    messages: tuple[Message, ...],
    tools: tuple[Tool, ...],
    headers: Mapping[str, str],
    fingerprint: str,
    profile: str,
) -> Prompt:
    """A chat's or a generate's `Prompt`: its messages and tools, with what both read alike (`options`, `think`,
    `format`, `stream`, on unless false)."""
    model_name = model(f)
    given = options(f)
    shape = form(f.data.get("format"))
    temperature, seed = given.get("temperature"), given.get("seed")
    return Prompt(
        dialect=name,
        model=model_name,
        messages=messages,
        tools=tools,
        max_tokens=given.get("max_tokens"),
        effort=think(f.data.get("think")),
        stop=given.get("stop", ()),
        stream=f.data.get("stream") is not False,  # Ollama streams unless told not to
        response_format=shape,
        temperature=temperature,
        top_p=given.get("top_p"),
        seed=seed,
        api_key=bearer(headers),
        headers=headers,
        fingerprint=fingerprint,
        conversation=identity.key(model_name, messages, tools, AUTO, shape, temperature, seed),
        profile=profile,
    )
