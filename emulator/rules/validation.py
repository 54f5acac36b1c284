"""What the public APIs refuse, in their own words: the `openai` and `anthropic` profiles' checks.

Three stages, in the order the pipeline runs them (see `answering.rounds.answer`):

1. `body`: what any model refuses. Fields the endpoint does not know, at the top (Anthropic's beta fields known only
   with their `anthropic-beta` value) and at every depth below it (`schema.py`, the endpoint's request schema:
   unknown keys, required keys, unknown `type`s), Anthropic's required fields, and ranges that do not depend on
   the model.
2. `unknown_model`: the provider's 404 for a model it does not serve (the pipeline decides which are known).
3. `parameters`: what this model refuses, from its catalog entry (`catalog/*.yaml`).

Past the schema's walk of the body's keys, each is a few dictionary and set lookups over its top-level keys.
The wording is the real APIs' where a public source shows it (the issue threads and docs cited beside each);
where none does, it is written in the API's style and marked "our words". Every refusal names its parameter:
OpenAI's in `param`, Anthropic's in the message, as theirs do.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.core.conversation import Prompt
from emulator.core.errors import InvalidRequest, NotFound, Unauthorized
from emulator.rules import schema, structured
from emulator.rules.catalog import Catalog, Model

LENIENT_HEADER = "x-emulator-lenient"  # `1`: accept unknown models and fields (`--lenient`, the plugin's marker)
# An endpoint's name (`answering.reading.Endpoint.name`) → its field list in the catalog files.
FIELD_LISTS = {"chat_completions": "chat", "responses": "responses", "messages": "messages"} | {
    "count_tokens": "count_tokens",
    "input_tokens": "input_tokens",
    "compact": "compact",
}
ANTHROPIC = ("messages", "count_tokens")
MIN_OUTPUT_TOKENS = 16  # Responses' `max_output_tokens` minimum
CHAT_LIMITS = ("max_completion_tokens", "max_tokens")
TOOL_OPTIONS = ("tool_choice", "parallel_tool_calls")  # Chat refuses either without tools
MAX_BREAKPOINTS = 4  # Anthropic's most blocks with `cache_control` in one request
MIN_BUDGET = 1024  # Anthropic's least `thinking.budget_tokens`
INTERLEAVED = "interleaved-thinking-2025-05-14"  # with it, the budget may exceed `max_tokens` (it spans the turn)
DOCS = "https://docs.claude.com/en/docs/build-with-claude/extended-thinking"
# Chat's sampling parameters and their defaults: a model with `sampling: default` refuses any other value.
CHAT_SAMPLING = {
    "temperature": 1,
    "top_p": 1,
    "presence_penalty": 0,
    "frequency_penalty": 0,
    "logprobs": False,
    "top_logprobs": None,
    "logit_bias": None,
}
RESPONSES_SAMPLING = {"temperature": 1, "top_p": 1, "top_logprobs": None}
ANTHROPIC_SAMPLING = {"temperature": 1, "top_p": None, "top_k": None}


# --- 1. the body ---------------------------------------------------------------------------------------------


def body(held: Catalog, endpoint: str, data: Any, headers: Mapping[str, str], lenient: bool) -> tuple[str, ...]:
    """Refuse what the endpoint refuses of any model: unknown fields (the first, as the APIs name one), missing
    required fields (Anthropic's words), out-of-range values. Leniency lets unknown fields through: they are
    returned, for the journal to say what would have been refused."""
    if type(data) is not dict:
        return ()  # the dialect's parser says what a body must be
    root = schema.SCHEMAS[FIELD_LISTS[endpoint]]
    extra = data.keys() - root.fields.keys()
    passed: tuple[str, ...] = ()
    if extra:
        unknown = [k for k in data if k in extra and not _beta(held, k, headers)]
        if unknown and not lenient:
            raise _unknown_field(endpoint, unknown[0], held.betas.get(unknown[0], ()))
        passed = tuple(_unknown_field(endpoint, k).message for k in unknown)
    if endpoint == "chat_completions" and not data.get("tools"):
        for option in TOOL_OPTIONS:
            if data.get(option) is not None:  # the API's words
                raise InvalidRequest(
                    f"Invalid value for '{option}': '{option}' is only allowed when 'tools' are specified.",
                    param=option,
                )
    if endpoint in ANTHROPIC and headers.get("anthropic-beta"):  # the beta types' fields, below the top
        root = schema.SCHEMAS["beta_" + FIELD_LISTS[endpoint]]
    found, let_by = schema.check(root, data, lenient)
    if found is not None:
        raise refusal(endpoint, found)
    passed += tuple(refusal(endpoint, p).message for p in let_by)
    if endpoint in ANTHROPIC:
        _anthropic_headers(held, headers)
        _anthropic_body(endpoint, data, headers)
        _anthropic_content(data)
    elif endpoint == "responses":
        _at_least(data, "max_output_tokens", MIN_OUTPUT_TOKENS)
        _responses_structured(data)
    elif endpoint == "chat_completions":
        _chat_structured(data)
        for param in CHAT_LIMITS:  # inline: every Chat request comes this way
            value = data.get(param)
            if type(value) is int and value < 1:
                _at_least(data, param, 1)
    return passed


def refusal(endpoint: str, found: schema.Problem) -> InvalidRequest:
    """A problem below the top of a body, in the API's words: OpenAI's (`Unknown parameter: 'messages[1].x'.`,
    as the issue threads quote it, with the path as `param`) or pydantic's, as Anthropic sends them
    (`messages.0.content.0.text.x: Extra inputs are not permitted`, each content block's tag in its path)."""
    if found.kind in LIMIT_WORDS:
        return _past_limit(endpoint, found)
    if endpoint in ANTHROPIC:
        where = found.dotted()
        if found.kind == "unknown":
            return InvalidRequest(f"{where}: Extra inputs are not permitted", param=where)
        if found.kind == "missing":
            return InvalidRequest(f"{where}: Field required", param=where)
        union = ".".join(str(p) for p in found.path[:-1])
        if found.kind == "untagged":
            return InvalidRequest(f"{union}: Unable to extract tag using discriminator '{found.path[-1]}'", param=union)
        expected = ", ".join(f"'{t}'" for t in found.allowed)
        return InvalidRequest(
            f"{union}: Input tag '{found.value}' found using '{found.path[-1]}' does not match any of the expected "
            f"tags: {expected}",
            param=union,
        )
    param = found.indexed()
    if found.kind == "unknown":
        return InvalidRequest(f"Unknown parameter: '{param}'.", param=param, code="unknown_parameter")
    if found.kind in ("missing", "untagged"):
        return InvalidRequest(f"Missing required parameter: '{param}'.", param=param, code="missing_required_parameter")
    return InvalidRequest(
        f"Invalid value: '{found.value}'. Supported values are: {_listed(found.allowed)}.",
        param=param,
        code="invalid_value",
    )


# A limit passed, in each API's words: OpenAI's (its 400s as issue threads quote them) and pydantic's, Anthropic's.
LIMIT_WORDS = {
    "above": (
        "Invalid '{path}': {number} above maximum value. Expected a value <= {bound}, but got {value} instead.",
        "{number}_above_max_value",
        "{path}: Input should be less than or equal to {bound}",
    ),
    "below": (
        "Invalid '{path}': {number} below minimum value. Expected a value >= {bound}, but got {value} instead.",
        "{number}_below_min_value",
        "{path}: Input should be greater than or equal to {bound}",
    ),
    "too_many": (
        "Invalid '{path}': array too long. Expected an array with maximum length {bound}, but got an array with "
        "length {length} instead.",
        "array_above_max_length",
        "{path}: List should have at most {bound} items after validation, not {length}",
    ),
    "pattern": (
        "Invalid '{path}': string does not match pattern. Expected a string that matches the pattern '{bound}'.",
        "invalid_value",
        "{path}: String should match pattern '{bound}'",
    ),
    "too_long": (
        "Invalid '{path}': string too long. Expected a string with maximum length {bound}, but got a string with "
        "length {length} instead.",
        "string_above_max_length",
        "{path}: String should have at most {bound} characters",
    ),
}


def _past_limit(endpoint: str, found: schema.Problem) -> InvalidRequest:
    openai_words, code, anthropic_words = LIMIT_WORDS[found.kind]
    bound = f"{found.bound:g}" if type(found.bound) is float else found.bound
    length = len(found.value) if type(found.value) in (list, str) else 0
    if endpoint in ANTHROPIC:
        where = found.dotted()
        return InvalidRequest(anthropic_words.format(path=where, bound=bound, length=length), param=where)
    path, number = found.indexed(), "integer" if found.integer else "decimal"
    message = openai_words.format(path=path, number=number, bound=bound, value=found.value, length=length)
    return InvalidRequest(message, param=path, code=code.format(number=number))


def _listed(values: tuple[str, ...]) -> str:
    """OpenAI's list of values: `'a'`, `'a' and 'b'`, `'a', 'b', and 'c'`."""
    *head, last = values
    if not head:
        return f"'{last}'"
    return ", ".join(f"'{v}'" for v in head) + (", and " if len(head) > 1 else " and ") + f"'{last}'"


def _chat_structured(data: Mapping[str, Any]) -> None:
    """Chat's strict schemas (`response_format`, strict function tools) and JSON mode's mention of JSON."""
    form = data.get("response_format")
    kind = form.get("type") if type(form) is dict else None
    if kind == "json_schema":
        spec = form.get("json_schema") if type(form) is dict else None
        if type(spec) is dict and spec.get("strict") is True:
            _strict(
                spec.get("schema"), f"response_format '{spec.get('name')}'", "response_format", "invalid_json_schema"
            )
    elif kind == "json_object" and not structured.mentions_json(structured.texts(data.get("messages"))):
        raise InvalidRequest(  # the API's words
            "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
            param="messages",
        )
    for at, tool in enumerate(data.get("tools") or ()):
        function = tool.get("function") if type(tool) is dict else None
        if type(function) is dict and function.get("strict") is True:
            where = f"tools[{at}].function.parameters"
            _strict(
                function.get("parameters"), f"function '{function.get('name')}'", where, "invalid_function_parameters"
            )


def _responses_structured(data: Mapping[str, Any]) -> None:
    """Responses' strict schemas (`text.format`, strict function tools) and JSON mode's mention of JSON in `input`
    (its instructions do not count)."""
    text = data.get("text")
    form = text.get("format") if type(text) is dict else None
    kind = form.get("type") if type(form) is dict else None
    if kind == "json_schema" and type(form) is dict and form.get("strict") is True:
        _strict(
            form.get("schema"), f"response_format '{form.get('name')}'", "text.format.schema", "invalid_json_schema"
        )
    elif kind == "json_object" and not structured.mentions_json(structured.texts(data.get("input"))):
        raise InvalidRequest(  # the API's words
            "Response input messages must contain the word 'json' in some form to use 'text.format' of type "
            "'json_object'.",
            param="text.format",
        )
    for at, tool in enumerate(data.get("tools") or ()):
        if type(tool) is dict and tool.get("type") == "function" and tool.get("strict") is True:
            _strict(
                tool.get("parameters"),
                f"function '{tool.get('name')}'",
                f"tools[{at}].parameters",
                "invalid_function_parameters",
            )


def _strict(given: Any, what: str, param: str, code: str) -> None:
    """A strict schema that breaks OpenAI's rules, refused in its words (`structured.py`)."""
    if given is None:
        return
    problem = structured.strict_problem(given)
    if problem is not None:
        raise InvalidRequest(f"Invalid schema for {what}: {problem}", param=param, code=code)


def _at_least(data: Mapping[str, Any], param: str, least: int) -> None:
    """OpenAI's words for an integer below its minimum (Responses' `max_output_tokens` below 16, Chat's limits
    below 1: the placeholder 0 of the SDKs' generated tests)."""
    value = data.get(param)
    if type(value) is int and value < least:
        raise InvalidRequest(
            f"Invalid '{param}': integer below minimum value. Expected a value >= {least}, but got {value} instead.",
            param=param,
            code="integer_below_min_value",
        )


def _beta(held: Catalog, key: str, headers: Mapping[str, str]) -> bool:
    """Whether a beta field came with one of the betas that make it known."""
    betas = held.betas.get(key)
    if not betas:
        return False
    sent = {b.strip() for b in headers.get("anthropic-beta", "").split(",")}
    return any(b in sent for b in betas)


def _unknown_field(endpoint: str, key: str, betas: tuple[str, ...] = ()) -> InvalidRequest:
    if endpoint in ANTHROPIC:  # pydantic's words, as Anthropic sends them ("metadata.x: Extra inputs are …")
        hint = f". Send the header 'anthropic-beta: {betas[-1]}' with it." if betas else ""  # our words, after
        return InvalidRequest(f"{key}: Extra inputs are not permitted{hint}", param=key)
    if endpoint == "chat_completions":  # Chat Completions' own words for an unknown argument
        return InvalidRequest(f"Unrecognized request argument supplied: {key}", param=key)
    return InvalidRequest(f"Unknown parameter: '{key}'.", param=key, code="unknown_parameter")  # Responses'


def _anthropic_headers(held: Catalog, headers: Mapping[str, str]) -> None:
    """A browser's call (it sends `Origin`) must say it means it, as Anthropic's API wants; its version header,
    required and known, and its betas, each known (the catalog lists them)."""
    if "origin" in headers and headers.get("anthropic-dangerous-direct-browser-access", "").lower() != "true":
        raise Unauthorized("CORS requests must set 'anthropic-dangerous-direct-browser-access' header")  # its words
    version = headers.get("anthropic-version", "").strip()
    if not version:
        raise InvalidRequest("anthropic-version: header is required")  # the API's words
    if held.versions and version not in held.versions:  # our words
        known = ", ".join(sorted(held.versions))
        raise InvalidRequest(f"anthropic-version: '{version}' is not a version this API knows (known: {known}).")
    sent = [b.strip() for b in headers.get("anthropic-beta", "").split(",") if b.strip()]
    unknown = [b for b in sent if held.known_betas and b not in held.known_betas]
    if unknown:  # the API's words
        raise InvalidRequest(
            f"Unexpected value(s) `{', '.join(unknown)}` for the `anthropic-beta` header. Please consult our "
            "documentation at platform.claude.com/docs or try again without the header."
        )


def _anthropic_content(data: Mapping[str, Any]) -> None:
    """What Anthropic refuses of a conversation's content, in its words: a message with no content but a final
    assistant one, an empty or blank text block, more than four `cache_control` breakpoints, a final assistant
    prefill ending in whitespace."""
    messages = data.get("messages")
    if type(messages) is not list:
        return
    breakpoints = _marked(data.get("system")) + _marked(data.get("tools"))
    last = len(messages) - 1
    for at, message in enumerate(messages):
        if type(message) is not dict:
            continue
        content = message.get("content")
        if content in ("", []) and not (at == last and message.get("role") == "assistant"):
            raise InvalidRequest(
                f"messages.{at}: all messages must have non-empty content except for the optional final assistant "
                "message"
            )
        if type(content) is not list:
            continue
        breakpoints += _marked(content)
        for block in content:
            if type(block) is not dict:
                continue
            _text_filled(block)
            inner = block.get("content") if block.get("type") == "tool_result" else None
            if type(inner) is list:
                breakpoints += _marked(inner)
                for part in inner:
                    if type(part) is dict:
                        _text_filled(part)
    if breakpoints > MAX_BREAKPOINTS:
        raise InvalidRequest(
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {breakpoints}."
        )
    final = messages[-1] if messages else None
    if type(final) is dict and final.get("role") == "assistant":
        content = final.get("content")
        blocks = content if type(content) is list else [{"type": "text", "text": content}]
        tail = blocks[-1] if blocks else None
        text = tail.get("text") if type(tail) is dict and tail.get("type") == "text" else None
        if type(text) is str and text and text != text.rstrip():
            raise InvalidRequest("messages: final assistant content cannot end with trailing whitespace")


def _marked(blocks: Any) -> int:
    """How many of a list's blocks carry a `cache_control` breakpoint."""
    if type(blocks) is not list:
        return 0
    return sum(1 for b in blocks if type(b) is dict and b.get("cache_control") is not None)


def _text_filled(block: Mapping[str, Any]) -> None:
    if block.get("type") != "text" or type(block.get("text")) is not str:
        return
    if not block["text"]:
        raise InvalidRequest("messages: text content blocks must be non-empty")
    if not block["text"].strip():
        raise InvalidRequest("messages: text content blocks must contain non-whitespace text")


def _anthropic_body(endpoint: str, data: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    required = ("max_tokens", "messages", "model") if endpoint == "messages" else ("messages", "model")
    for key in required:
        if key not in data:
            raise InvalidRequest(f"{key}: Field required", param=key)  # pydantic's words, as Anthropic's
    thinking = data.get("thinking")
    if type(thinking) is not dict or thinking.get("type") != "enabled":
        return
    budget, limit = thinking.get("budget_tokens"), data.get("max_tokens")
    if type(budget) is int and budget < MIN_BUDGET:
        raise InvalidRequest(
            f"thinking.enabled.budget_tokens: Input should be greater than or equal to {MIN_BUDGET}",
            param="thinking.budget_tokens",
        )
    interleaved = INTERLEAVED in headers.get("anthropic-beta", "")
    if type(budget) is int and type(limit) is int and budget >= limit and not interleaved:
        raise InvalidRequest(
            "`max_tokens` must be greater than `thinking.budget_tokens`. Please consult our documentation at "
            f"{DOCS}#max-tokens-and-context-window-size",
            param="max_tokens",
        )
    temperature = data.get("temperature")
    if temperature is not None and temperature != 1:
        raise InvalidRequest(
            "`temperature` may only be set to 1 when thinking is enabled. Please consult our documentation at "
            f"{DOCS}#feature-compatibility",
            param="temperature",
        )


# --- 2. the model -----------------------------------------------------------------------------------------------


def unknown_model(endpoint: str, model: str) -> NotFound:
    """The provider's 404 for a model it does not serve."""
    if endpoint in ANTHROPIC:  # Anthropic names the field and the value ("model: claude-3-5-sonnet-2024…")
        return NotFound(f"model: {model}", param="model")
    # OpenAI's words, with `param: null` as its 404 has (openai-agents-python#458 quotes the whole body).
    return NotFound(f"The model `{model}` does not exist or you do not have access to it.", code="model_not_found")


# --- 3. the model's parameters ---------------------------------------------------------------------------------


def parameters(endpoint: str, model: Model, data: Mapping[str, Any], prompt: Prompt) -> None:
    """Refuse what `model` does not take: parameters, values, its output limit, tools, images, structured output."""
    if endpoint == "chat_completions":
        _chat(model, data, prompt)
    elif endpoint == "responses":
        _responses(model, data, prompt)
    elif endpoint == "messages":
        _messages(model, data)


def _chat(model: Model, data: Mapping[str, Any], prompt: Prompt) -> None:
    if model.endpoints and "chat" not in model.endpoints:
        raise _elsewhere("v1/responses", "v1/chat/completions")
    effort = data.get("reasoning_effort")
    if effort is not None:
        _effort(model, "reasoning_effort", effort)
    if "max_tokens" in data and not model.max_tokens:
        raise InvalidRequest(  # as the API words it (openai-python and many clients' issues quote it)
            "Unsupported parameter: 'max_tokens' is not supported with this model. "
            "Use 'max_completion_tokens' instead.",
            param="max_tokens",
            code="unsupported_parameter",
        )
    for key in CHAT_LIMITS:
        value = data.get(key)
        if type(value) is int and value > model.output:
            _output_limit(model, key, value)
    if model.sampling != "any" and _fixed_sampling(model, effort):
        _chat_sampling(data)
    if not (model.tools and model.vision and model.structured):  # most models can do all three
        _capabilities(model, data, prompt, "response_format")


def _fixed_sampling(model: Model, effort: Any) -> bool:
    """Whether the model takes only the default sampling: a reasoning model, unless it is one that takes sampling
    parameters with reasoning off (gpt-5.1 and later: `none`, which is also their default effort)."""
    return model.sampling == "default" or (model.sampling == "unreasoned" and effort not in (None, "none"))


def _chat_sampling(data: Mapping[str, Any]) -> None:
    for key, default in CHAT_SAMPLING.items():
        value = data.get(key, default)
        if value is None or value == default:
            continue
        if key == "temperature":  # the API's words (its 400 for temperature 0.2 on o3, gpt-5 and the like)
            raise InvalidRequest(
                f"Unsupported value: 'temperature' does not support {value} with this model. "
                "Only the default (1) value is supported.",
                param="temperature",
                code="unsupported_value",
            )
        raise _unsupported(key)


def _responses(model: Model, data: Mapping[str, Any], prompt: Prompt) -> None:
    if model.endpoints and "responses" not in model.endpoints:
        raise _elsewhere("v1/chat/completions", "v1/responses")
    reasoning = data.get("reasoning")
    effort = reasoning.get("effort") if type(reasoning) is dict else None
    if effort is not None:
        _effort(model, "reasoning.effort", effort)
    _output_limit(model, "max_output_tokens", data.get("max_output_tokens"))
    if _fixed_sampling(model, effort):
        for key, default in RESPONSES_SAMPLING.items():
            value = data.get(key)
            if value is not None and value != default:
                raise _unsupported(key)
    text = data.get("text")
    form = text.get("format") if type(text) is dict else None
    _capabilities(model, data, prompt, "text.format", form)


def _messages(model: Model, data: Mapping[str, Any]) -> None:
    limit = data.get("max_tokens")
    if type(limit) is int and model.output and limit > model.output:
        raise InvalidRequest(  # Anthropic's words for it
            f"max_tokens: {limit} > {model.output}, which is the maximum allowed number of output tokens for "
            f"{model.id}",
            param="max_tokens",
        )
    thinking = data.get("thinking")
    kind = thinking.get("type") if type(thinking) is dict else None
    if kind is not None and kind not in model.thinking:
        raise _thinking(kind, model)
    config = data.get("output_config")
    effort = config.get("effort") if type(config) is dict else None
    if effort is not None and effort not in model.efforts:
        if not model.efforts:  # our words
            raise InvalidRequest(
                "output_config.effort: This model does not support the effort parameter.", param="output_config.effort"
            )
        allowed = ", ".join(f"'{e}'" for e in model.efforts[:-1]) + f" or '{model.efforts[-1]}'"
        raise InvalidRequest(f"output_config.effort: Input should be {allowed}", param="output_config.effort")
    if model.sampling != "any":
        for key, default in ANTHROPIC_SAMPLING.items():
            value = data.get(key)
            if value is not None and value != default:  # our words: the model pages say only "returns a 400"
                raise InvalidRequest(
                    f"{key}: This model does not support setting `{key}`; leave it at its default.", param=key
                )


def _thinking(kind: str, model: Model) -> InvalidRequest:
    if kind == "enabled":  # Anthropic's words, from Claude Opus 4.7 on
        return InvalidRequest(
            '"thinking.type.enabled" is not supported for this model. Use "thinking.type.adaptive" and '
            '"output_config.effort" to control thinking behavior.',
            param="thinking.type",
        )
    if kind == "adaptive":  # our words, in the style of the above
        return InvalidRequest(
            '"thinking.type.adaptive" is not supported for this model. Use "thinking.type.enabled" with '
            '"thinking.budget_tokens" to control thinking behavior.',
            param="thinking.type",
        )
    return InvalidRequest(  # our words: a model whose thinking is always on
        f'"thinking.type.{kind}" is not supported for this model: its thinking is always on.', param="thinking.type"
    )


def _effort(model: Model, param: str, effort: Any) -> None:
    if not model.reasoning or not model.efforts:
        raise _unsupported(param)
    if effort not in model.efforts:
        raise InvalidRequest(  # the API's words (its 400 for `minimal` on gpt-5.1, `none` on gpt-5)
            f"Unsupported value: '{param}' does not support '{effort}' with this model. "
            f"Supported values are: {_listed(model.efforts)}.",
            param=param,
            code="unsupported_value",
        )


def _output_limit(model: Model, param: str, value: Any) -> None:
    if type(value) is int and model.output and value > model.output:
        raise InvalidRequest(  # the API's words for a limit past the model's
            f"{param} is too large: {value}. This model supports at most {model.output} completion tokens, "
            f"whereas you provided {value}.",
            param=param,
            code="invalid_value",
        )


def _capabilities(model: Model, data: Mapping[str, Any], prompt: Prompt, format_param: str, form: Any = None) -> None:
    """Tools, images and Structured Outputs, where the model has none of them."""
    if not model.tools and data.get("tools"):
        raise _unsupported("tools")
    if not model.vision and any(m.images for m in prompt.messages):
        raise InvalidRequest(  # the API's words for an image sent to a text-only model
            "Invalid content type. image_url is only supported by certain models.",
            param="messages" if format_param == "response_format" else "input",
            code="invalid_value",
        )
    if format_param == "response_format":
        chosen = data.get("response_format")
        form = chosen if type(chosen) is dict else None
    if not model.structured and type(form) is dict and form.get("type") == "json_schema":
        raise InvalidRequest(  # the API's words, its link to the Structured Outputs guide left out
            f"Invalid parameter: '{format_param}' of type 'json_schema' is not supported with this model.",
            param=format_param,
            code="invalid_value",
        )


def _unsupported(param: str) -> InvalidRequest:
    # The API's words for a parameter the model does not take (`reasoning_effort` on gpt-4.1, `top_p` on o3).
    return InvalidRequest(
        f"Unsupported parameter: '{param}' is not supported with this model.", param=param, code="unsupported_parameter"
    )


def _elsewhere(served: str, asked: str) -> NotFound:
    # The API's words for a Responses-only model asked on Chat (o1-pro, the codex models); mirrored the other way.
    return NotFound(f"This model is only supported in {served} and not in {asked}.", param="model")
