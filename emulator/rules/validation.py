"""What the public APIs refuse, in their own words: the `openai` and `anthropic` profiles' checks, and the way to
Google's and Bedrock's (`google_rules.py`, `bedrock_rules.py`; Claude on Vertex is checked here, as Anthropic's).

Three stages, in the order the pipeline runs them (see `answering.rounds.answer`):

1. `body`: what any model refuses. Fields the endpoint does not know, at the top (Anthropic's beta fields known only
   with their `anthropic-beta` value) and at every depth below it (`schema.py`, the endpoint's request schema:
   unknown keys, required keys, unknown `type`s, worded by `wording.py`), OpenAI's strict schemas and JSON mode
   (`structured.py`), Anthropic's headers and content rules (`anthropic_rules.py`) and required fields, and ranges
   that do not depend on the model.
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
from emulator.core.errors import EmulatorError, InvalidRequest, NotFound
from emulator.rules import anthropic_rules, bedrock_rules, google_rules, profiles, schema, structured, wording
from emulator.rules.catalog import Catalog, Model

LENIENT_HEADER = "x-emulator-lenient"  # `1`: accept unknown models and fields (`--lenient`, the plugin's marker)
# An endpoint's name (`answering.reading.Endpoint.name`) → its field list in the catalog files.
FIELD_LISTS = {"chat_completions": "chat", "responses": "responses", "messages": "messages"} | {
    "count_tokens": "count_tokens",
    "input_tokens": "input_tokens",
    "compact": "compact",
    "embeddings": "embeddings",
    "completions": "completions",
    "vertex_messages": "messages",  # Claude on Vertex: Messages, its model in the path
    "vertex_count_tokens": "count_tokens",
}
VERTEX_FIELDS = frozenset({"anthropic_version"})  # what Claude on Vertex reads beyond Anthropic's body
OLDER = ("chat_completions", "embeddings", "completions")  # the endpoints that word an unknown argument as Chat does
ANTHROPIC = wording.ANTHROPIC
PATHS = {  # a catalog's endpoint names as the API's words name them
    "chat": "v1/chat/completions",
    "responses": "v1/responses",
    "completions": "v1/completions",
    "embeddings": "v1/embeddings",
}
MIN_OUTPUT_TOKENS = 16  # Responses' `max_output_tokens` minimum
CHAT_LIMITS = ("max_completion_tokens", "max_tokens")
TOOL_OPTIONS = ("tool_choice", "parallel_tool_calls")  # Chat refuses either without tools
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


def checked_as(dialect: str, name: str, profile: str) -> str:
    """The name the checks know an endpoint by (`answering.reading.Endpoint.checks`): its journal name, or, where
    one name stands for several APIs (`count_tokens`), the API's."""
    if dialect in (profiles.GEMINI, profiles.GEMINI_EMBED):
        return google_rules.COUNT if name == "count_tokens" else google_rules.EMBED if name == "embed_content" else name
    if dialect == profiles.BEDROCK_CONVERSE:
        return bedrock_rules.COUNT if name == "count_tokens" else bedrock_rules.CONVERSE
    if dialect == profiles.BEDROCK_INVOKE:
        return bedrock_rules.INVOKE
    if dialect == profiles.MESSAGES and profile == "vertex":
        return f"vertex_{name}"
    return name


# --- 1. the body ---------------------------------------------------------------------------------------------


def body(held: Catalog, endpoint: str, data: Any, headers: Mapping[str, str], lenient: bool) -> tuple[str, ...]:
    """Refuse what the endpoint refuses of any model: unknown fields (the first, as the APIs name one), missing
    required fields (Anthropic's words), out-of-range values. Leniency lets unknown fields through: they are
    returned, for the journal to say what would have been refused."""
    if type(data) is not dict:
        return ()  # the dialect's parser says what a body must be
    if endpoint in google_rules.ENDPOINTS:
        return google_rules.body(endpoint, data, lenient)
    if endpoint in bedrock_rules.ENDPOINTS:
        bedrock_rules.body(endpoint, data)
        return ()
    vertex = endpoint.startswith("vertex_")
    root = schema.SCHEMAS[FIELD_LISTS[endpoint]]
    extra = data.keys() - root.fields.keys() - (VERTEX_FIELDS if vertex else frozenset())
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
        raise wording.refusal(endpoint, found)
    passed += tuple(wording.refusal(endpoint, p).message for p in let_by)
    if endpoint in ANTHROPIC:
        if vertex:  # its version is in the body; its headers are Google's front end's
            _anthropic_version(data)
        else:
            anthropic_rules.headers(held, headers)
        _anthropic_body(endpoint, data, headers)
        anthropic_rules.content(data)
    elif endpoint == "responses":
        _at_least(data, "max_output_tokens", MIN_OUTPUT_TOKENS)
        structured.responses(data)
    elif endpoint == "chat_completions":
        structured.chat(data)
        for param in CHAT_LIMITS:  # inline: every Chat request comes this way
            value = data.get(param)
            if type(value) is int and value < 1:
                _at_least(data, param, 1)
    return passed


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
    if endpoint in OLDER:  # Chat Completions' own words for an unknown argument (reference E1: embeddings' too)
        return InvalidRequest(f"Unrecognized request argument supplied: {key}", param=key)
    return InvalidRequest(f"Unknown parameter: '{key}'.", param=key, code="unknown_parameter")  # Responses'


def _anthropic_version(data: Mapping[str, Any]) -> None:
    if "anthropic_version" not in data:  # our words, pydantic's as Anthropic's: Vertex reads any version string
        raise InvalidRequest("anthropic_version: Field required", param="anthropic_version")


def _anthropic_body(endpoint: str, data: Mapping[str, Any], headers: Mapping[str, str]) -> None:
    required = ("max_tokens", "messages", "model") if endpoint.endswith("messages") else ("messages", "model")
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


def unknown_model(endpoint: str, model: str, path: str = "") -> EmulatorError:
    """The provider's 404 for a model it does not serve (Bedrock's is a 400); Google's words name the method and
    the version the `path` asked."""
    if endpoint in google_rules.ENDPOINTS or endpoint.startswith("vertex_"):
        return google_rules.unknown_model(endpoint, model, path)
    if endpoint in bedrock_rules.ENDPOINTS:  # the words every Bedrock client's issue threads quote
        return InvalidRequest("The provided model identifier is invalid.", code=bedrock_rules.CODE)
    if endpoint in ANTHROPIC:  # Anthropic names the field and the value ("model: claude-3-5-sonnet-2024…")
        return NotFound(f"model: {model}", param="model")
    # OpenAI's words, with `param: null` as its 404 has (openai-agents-python#458 quotes the whole body).
    return NotFound(f"The model `{model}` does not exist or you do not have access to it.", code="model_not_found")


# --- 3. the model's parameters ---------------------------------------------------------------------------------


def parameters(endpoint: str, model: Model, data: Mapping[str, Any], prompt: Prompt, path: str = "") -> None:
    """Refuse what `model` does not take: parameters, values, its output limit, tools, images, structured output."""
    if endpoint == "chat_completions":
        _chat(model, data, prompt)
    elif endpoint == "responses":
        _responses(model, data, prompt)
    elif endpoint in ("messages", "vertex_messages", bedrock_rules.INVOKE):
        _messages(model, data)
    elif endpoint in google_rules.ENDPOINTS:
        google_rules.parameters(endpoint, model, data, prompt, path)
    elif endpoint == bedrock_rules.CONVERSE:
        bedrock_rules.parameters(model, data)
    elif endpoint == "embeddings":
        _embeddings(model, data, prompt)
    elif endpoint == "completions":
        _served(model, "completions")


def _chat(model: Model, data: Mapping[str, Any], prompt: Prompt) -> None:
    _served(model, "chat")
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
    _served(model, "responses")
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
            f"Supported values are: {wording.listed(model.efforts)}.",
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


def _served(model: Model, asked: str) -> None:
    """The API's 404 for a model the endpoint does not serve, by what the model is."""
    served = model.endpoints
    if not served or asked in served:
        return
    path = PATHS[asked]
    chat = "chat" in served or "responses" in served
    if asked == "chat" and not chat:  # the API's words for a completions (or embeddings) model asked on Chat
        raise NotFound(
            f"This is not a chat model and thus not supported in the {path} endpoint. Did you mean to use "
            f"{PATHS[served[0]]}?",
            param="model",
        )
    if asked == "completions" and chat:  # the API's words for a chat model asked for a legacy completion
        raise NotFound(
            f"This is a chat model and not supported in the {path} endpoint. Did you mean to use v1/chat/completions?",
            param="model",
        )
    if asked in ("completions", "embeddings"):  # our words, in the style of the above
        kind = "a completions" if asked == "completions" else "an embeddings"
        raise NotFound(f"This is not {kind} model and thus not supported in the {path} endpoint.", param="model")
    # The API's words for a Responses-only model asked on Chat (o1-pro, the codex models); mirrored the other way.
    raise NotFound(f"This model is only supported in {PATHS[served[0]]} and not in {path}.", param="model")


def _embeddings(model: Model, data: Mapping[str, Any], prompt: Prompt) -> None:
    _served(model, "embeddings")
    dimensions = data.get("dimensions")
    if dimensions is not None and not model.shortens:  # the API's words (reference §4.4)
        raise InvalidRequest("This model does not support specifying dimensions.", param="dimensions")
    if type(dimensions) is int and dimensions > model.dimensions:  # our words: no public source quotes the API's
        raise InvalidRequest(
            f"Invalid 'dimensions': {dimensions} is more than this model's {model.dimensions}. Expected an integer "
            f"from 1 to {model.dimensions}.",
            param="dimensions",
            code="invalid_value",
        )
    for counted in prompt.echo.get("tokens", ()):
        if counted > model.context:  # the API's words (reference §4.4)
            raise InvalidRequest(
                f"This model's maximum context length is {model.context} tokens, however you requested {counted} "
                f"tokens ({counted} in your prompt; 0 for the completion). Please reduce your prompt; or completion "
                "length.",
                param="input",
            )
