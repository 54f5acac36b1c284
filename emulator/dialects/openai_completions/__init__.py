"""OpenAI's legacy completions (`POST /v1/completions`), as the API reference and the SDKs have them (reference
providers-aws-azure-ollama.md §5).

A prompt (a string, strings, token ids, arrays of them) is read as a user message and answered from the same
conversation model as Chat, without reasoning: a `text_completion` of `max_tokens` tokens at most (16 unless
given), whole or as a data-only SSE stream of `text_completion` chunks ending `[DONE]`. Several prompts, and `n`,
give one choice each, prompt by prompt (`index` = prompt × n + choice). `echo` puts the prompt before the text;
`logprobs` (0 to 5) gives each token's log probability and its alternatives, as parallel arrays with the text
offset of each token.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import replace
from itertools import chain
from typing import Any

from emulator.core import identity, ids, logprobs, tokens
from emulator.core.conversation import Message, Prompt, Reply, Turn
from emulator.core.errors import EmulatorError, InvalidRequest, UpstreamError, openai_body
from emulator.core.fields import Fields, bearer, stream_options_alone, wrong_type, wrong_value
from emulator.core.sse import EVENT_STREAM, comment, dumps, frame, loads
from emulator.core.wire import broken_off
from emulator.dialects import filters
from emulator.rules import profiles

NAME = "openai_completions"
DONE = frame("[DONE]")
STREAM_HEADERS = EVENT_STREAM
OPENS = False  # the first chunk carries the first token
KEEPALIVE = comment("keep-alive")
MALFORMED = b'data: {"id": "cmpl-", "object": "text_completion", "choices": [{"text": "unt\n\n'
ENDOFTEXT = "<|endoftext|>"  # the prompt the API takes when none is given
DEFAULT_MAX_TOKENS = 16
MOST_LOGPROBS = 5
MOST_STOPS = 4
Input = str | list[int]


def parse_request(
    body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = profiles.DEFAULT
) -> Prompt:
    """Validate a legacy completion request into a `Prompt` of its first prompt; every prompt, `echo`, `logprobs`
    and the per-prompt token counts go in its `echo`."""
    f = Fields(body)
    model = f.need("model", str)
    prompts = _prompts(f.data.get("prompt"))
    n = f.count("n") or 1
    best_of = f.count("best_of", 0)
    stream = bool(f.get("stream", bool, False))
    if best_of is not None and best_of < n and best_of != 0:  # our words: no public source quotes the API's
        raise InvalidRequest(f"best_of ({best_of}) must be greater than or equal to n ({n}).", param="best_of")
    if stream and best_of is not None and best_of > 1:  # our words, for what the reference says cannot be done
        raise InvalidRequest(
            "best_of cannot be used with stream: the best of several is known at the end.", param="best_of"
        )
    top = f.get("logprobs", int)
    if top is not None and not 0 <= top <= MOST_LOGPROBS:
        raise wrong_value("logprobs", top, f"an integer from 0 to {MOST_LOGPROBS}")
    options = f.obj("stream_options")
    if options is not None and not stream:
        raise stream_options_alone()
    limit = f.count("max_tokens", 0)
    texts = tuple(_shown(p) for p in prompts)
    messages = (Message("user", text=texts[0]),)
    seed, temperature = f.get("seed", int), f.get("temperature", float)
    echo = {
        "prompts": texts,
        "tokens": tuple(len(p) if isinstance(p, list) else tokens.count(p) for p in prompts),
        "echo": bool(f.get("echo", bool, False)),
        "logprobs": top,
        "n": n,
    }
    return Prompt(
        dialect=NAME,
        model=model,
        messages=messages,
        max_tokens=DEFAULT_MAX_TOKENS if limit is None else limit,
        effort="none",  # the completion models do not reason
        stop=_stop(f.data.get("stop")),
        stream=stream,
        include_usage=bool(options and options.get("include_usage", bool, False)),
        temperature=temperature,
        top_p=f.get("top_p", float),
        seed=seed,
        api_key=bearer(headers) or headers.get("api-key", ""),
        headers=headers,
        fingerprint=fingerprint,
        conversation=_key(model, messages, temperature, seed),
        echo=echo,
        profile=profile,
        choices=n * len(prompts),
    )


def _key(model: str, messages: tuple[Message, ...], temperature: float | None, seed: int | None) -> str:
    """A prompt's conversation key: told apart from a chat of the same words."""
    return identity.conversation(Prompt(NAME, f"{model}\0{NAME}", messages, temperature=temperature, seed=seed))


def _prompts(given: Any) -> tuple[Input, ...]:
    """The prompts as strings and token arrays: null is the API's default, `<|endoftext|>`."""
    if given is None:
        return (ENDOFTEXT,)
    if type(given) is str:
        return (given,)
    if type(given) is not list or not given:
        raise wrong_type("prompt", "a string, an array of strings or an array of tokens", given)
    if all(type(i) is int for i in given):
        return (given,)
    for at, item in enumerate(given):
        if type(item) is not str and not (type(item) is list and item and all(type(i) is int for i in item)):
            raise wrong_type(f"prompt[{at}]", "a string or an array of tokens", item)
    return tuple(given)


def _shown(given: Input) -> str:
    return given if isinstance(given, str) else "tokens: " + " ".join(map(str, given))


def _stop(given: Any) -> tuple[str, ...]:
    if given is None:
        return ()
    if type(given) is str:
        return (given,)
    if type(given) is not list or not all(type(s) is str for s in given):
        raise wrong_type("stop", "a string or an array of strings", given)
    if len(given) > MOST_STOPS:
        raise wrong_value("stop", given, f"at most {MOST_STOPS} sequences")
    return tuple(given)


def prompts(prompt: Prompt) -> list[Prompt]:
    """One prompt per choice, in order (`index`): each of the request's prompts, `n` times."""
    texts: tuple[str, ...] = prompt.echo.get("prompts") or (prompt.last_user_text,)
    n = prompt.echo.get("n", 1)
    found = []
    for at, text in enumerate(texts):
        messages = (Message("user", text=text),)
        key = _key(prompt.model, messages, prompt.temperature, prompt.seed)
        for choice in range(n):
            if at == 0 and choice == 0:
                found.append(prompt)
                continue
            salted = ids.digest(key, "choice", choice) if choice else key
            fingerprint = ids.digest(prompt.fingerprint, "prompt", at, "choice", choice)
            found.append(_with(prompt, messages, salted, fingerprint))
    return found


def _with(prompt: Prompt, messages: tuple[Message, ...], conversation: str, fingerprint: str) -> Prompt:
    return replace(prompt, messages=messages, conversation=conversation, fingerprint=fingerprint, choices=1)


# --- the answer ---------------------------------------------------------------------------------------------


def _choices(prompt: Prompt, turn: Turn) -> list[Turn]:
    """Every choice: the turn and its alternatives, the turn again where a scenario scripted it (one script)."""
    made = [turn, *turn.alternatives]
    return made + [turn] * (prompt.choices - len(made))


def _texts(prompt: Prompt, turn: Turn) -> list[tuple[str, str, str]]:
    """Each choice's (prompt echoed, text, finish reason). The default's answer starts on a paragraph of its own
    after a prompt that does not end in white space, as an instruct model's completion does."""
    texts: tuple[str, ...] = prompt.echo.get("prompts") or (prompt.last_user_text,)
    n = prompt.echo.get("n", 1)
    echoed = prompt.echo.get("echo", False)
    made: list[tuple[str, str, str]] = []
    for index, choice in enumerate(_choices(prompt, turn)):
        asked = texts[min(index // n, len(texts) - 1)]
        text = choice.text
        if choice.source == "default" and text and asked and not asked[-1].isspace():
            text = "\n\n" + text
        finish = choice.finish_reason if choice.finish_reason != "tool_calls" else "stop"
        made.append((asked if echoed else "", text, finish))
    return made


def _logprobs(text: str, root: str, top: int, offset: int) -> dict[str, Any]:
    """The legacy shape: parallel arrays of the tokens, their logprobs, their alternatives, their offsets."""
    entries = logprobs.entries(text, root, max(top, 1))
    offsets, at = [], offset
    for entry in entries:
        offsets.append(at)
        at += len(entry["token"])
    return {
        "tokens": [e["token"] for e in entries],
        "token_logprobs": [e["logprob"] for e in entries],
        "top_logprobs": [{t["token"]: t["logprob"] for t in e["top_logprobs"][:top]} for e in entries],
        "text_offset": offsets,
    }


def _usage(prompt: Prompt, turn: Turn) -> dict[str, int]:
    asked = sum(prompt.echo.get("tokens", ())) or turn.usage.input_tokens
    written = sum(t.usage.output_tokens for t in _choices(prompt, turn))
    return {"prompt_tokens": asked, "completion_tokens": written, "total_tokens": asked + written}


def _head(turn: Turn) -> dict[str, Any]:
    return {"id": ids.make("cmpl-", turn.id, length=29), "object": "text_completion", "created": turn.created}


def render(prompt: Prompt, turn: Turn) -> dict[str, Any]:
    """The `text_completion`: a choice per prompt and `n`, in order, and the tokens counted."""
    top = prompt.echo.get("logprobs")
    choices = []
    for index, (asked, text, finish) in enumerate(_texts(prompt, turn)):
        root = ids.digest(turn.id, "choice", index)
        probabilities = _logprobs(asked + text, root, top, 0) if top is not None else None
        choices.append({"text": asked + text, "index": index, "logprobs": probabilities, "finish_reason": finish})
    body = {**_head(turn), "model": turn.model, "choices": choices, "usage": _usage(prompt, turn)}
    if profiles.PROFILES[prompt.profile].content_filters:  # Azure's
        body["prompt_filter_results"] = filters.prompt_results(len(prompt.echo.get("prompts") or (1,)))
        for choice in choices:
            choice["content_filter_results"] = filters.choice_results()
    return body


def render_stream(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    """Data-only SSE: each choice's tokens as chunks (the echoed prompt first), its finish reason in a chunk with
    empty text, a usage chunk with no choices when asked for, then `[DONE]`; made as they are read."""
    fault = turn.fault
    if fault and fault.kind == "stream_error":  # the stream breaks off with an error, as Chat's does
        return broken_off(_events(prompt, turn), fault.after_events, frame(dumps(openai_body(UpstreamError.of(fault)))))
    return chain(_events(prompt, turn), (DONE,))


def _events(prompt: Prompt, turn: Turn) -> Iterator[bytes]:
    head = _head(turn)
    top = prompt.echo.get("logprobs")
    for index, (asked, text, finish) in enumerate(_texts(prompt, turn)):
        root = ids.digest(turn.id, "choice", index)
        offset = 0
        for piece in chain((asked,) if asked else (), tokens.pieces(text)):
            probabilities = _logprobs(piece, ids.digest(root, offset), top, offset) if top is not None else None
            choice = {"text": piece, "index": index, "logprobs": probabilities, "finish_reason": None}
            yield frame(dumps({**head, "choices": [choice], "model": turn.model}))
            offset += len(piece)
        empty: dict[str, list[Any]] | None = (
            None if top is None else {"tokens": [], "token_logprobs": [], "top_logprobs": [], "text_offset": []}
        )
        last = {"text": "", "index": index, "logprobs": empty, "finish_reason": finish}
        yield frame(dumps({**head, "choices": [last], "model": turn.model}))
    if prompt.include_usage:
        yield frame(dumps({**head, "choices": [], "model": turn.model, "usage": _usage(prompt, turn)}))


def render_error(error: EmulatorError) -> dict[str, Any]:
    return openai_body(error)


def read_response(body: bytes, stream: bool) -> Reply:
    """A recorded answer, whole or streamed, as the text of its first choice."""
    if not stream:
        answer = loads(body)
        choices = answer.get("choices") or [{}]
        return Reply(text=choices[0].get("text") or "")
    text = []
    for line in body.splitlines():  # as bytes: a text's own U+0085 or U+2028 is no line break in SSE
        data = line[6:] if line.startswith(b"data: ") else b""
        if not data or data == b"[DONE]":
            continue
        chunk = loads(data)
        for choice in chunk.get("choices") or ():
            if choice.get("index", 0) == 0:
                text.append(choice.get("text") or "")
    return Reply(text="".join(text))
