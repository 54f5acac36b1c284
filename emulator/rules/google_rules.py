"""What the Gemini API and Vertex AI refuse, in Google's words: the `gemini` and `vertex` profiles' checks.

The body is walked against `catalog/requests/gemini.yaml` (either spelling of each field, as proto3 JSON takes
them); an unknown name is Google's `Invalid JSON payload received. Unknown name "x" at 'generation_config': Cannot
find field.`, its path in proto's snake_case with `[i]` indexes (reference providers-google.md §5.2, §9). A model
is checked by its `catalog/gemini.yaml` entry: the method serves it, its thinking settings, its output limit,
and Gemini 3's rule that a call sent back in the current turn carries its thought signature.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.core.conversation import Prompt
from emulator.core.errors import InvalidRequest, NotFound
from emulator.rules import schema
from emulator.rules.catalog import Model

GENERATE = "generate_content"
COUNT = "gemini_count_tokens"
EMBED = "embed_content"
ENDPOINTS = (GENERATE, COUNT, EMBED)
PLACED = ("model", "stream")  # what the path puts into a body (`gemini.request.placed`)
SIGNATURES = "https://ai.google.dev/gemini-api/docs/thought-signatures"
VERSIONS = "https://cloud.google.com/vertex-ai/generative-ai/docs/learn/model-versions"


def body(endpoint: str, data: Mapping[str, Any], lenient: bool) -> tuple[str, ...]:
    """Refuse a name the request's message does not have, at any depth; leniency lets them by, in words."""
    root = schema.SCHEMAS[_root(endpoint, data)]
    passed: list[str] = []
    for key in data:
        if key not in root.fields and key not in PLACED:
            refusal = InvalidRequest(f'Invalid JSON payload received. Unknown name "{key}": Cannot find field.')
            if not lenient:
                raise refusal
            passed.append(refusal.message)
    found, let_by = schema.check(root, data, lenient)
    if found is not None:
        raise refusal_of(found)
    return (*passed, *(refusal_of(p).message for p in let_by))


def _root(endpoint: str, data: Mapping[str, Any]) -> str:
    """The request's message: an embedding's by its body (one path serves embedContent, batchEmbedContents and
    Vertex's predict, and the body says which)."""
    if endpoint != EMBED:
        return endpoint
    if "requests" in data:
        return "batch_embed_contents"
    return "predict" if "instances" in data else EMBED


def refusal_of(found: schema.Problem) -> InvalidRequest:
    """A problem of the walk in Google's words: only unknown names are the walk's to find (the file marks nothing
    required and carries no limits; the dialect's reader says the rest)."""
    where = proto_path(found.path[:-1])
    return InvalidRequest(
        f"Invalid JSON payload received. Unknown name \"{found.path[-1]}\" at '{where}': Cannot find field.",
        param=where,
    )


def proto_path(path: tuple[str | int, ...]) -> str:
    """Google's form of a path: `contents[0].parts[1].function_call`."""
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part}]"
        else:
            out += f".{schema.snake(part)}" if out else schema.snake(part)
    return out


# --- the model ----------------------------------------------------------------------------------------------------


def unknown_model(endpoint: str, model: str, path: str) -> NotFound:
    """Google's 404 for a model the method does not serve: the Gemini API's, or Vertex's for its project paths."""
    if "/projects/" in path:  # Vertex's words, the publisher's model as its path names it
        publisher = path.partition("/projects/")[2].partition(":")[0]
        if publisher.endswith("/count-tokens"):  # Claude's count names its model in the body
            publisher = publisher.removesuffix("count-tokens") + model
        return NotFound(
            f"Publisher Model `projects/{publisher}` was not found or your project does not have access to it. "
            f"Please ensure you are using a valid model version. For more information, see: {VERSIONS}"
        )
    version = next((p for p in path.split("/") if p in ("v1", "v1beta", "v1alpha", "v1beta1")), "v1beta")
    method = _method(endpoint, path)
    return NotFound(
        f"models/{model} is not found for API version {version}, or is not supported for {method}. Call ListModels "
        "to see the list of available models and their supported methods."
    )


def _method(endpoint: str, path: str) -> str:
    named = path.rpartition(":")[2]
    if named:
        return named
    return {COUNT: "countTokens", EMBED: "embedContent"}.get(endpoint, "generateContent")


def parameters(endpoint: str, model: Model, data: Mapping[str, Any], prompt: Prompt, path: str) -> None:
    """Refuse what `model` does not take: a method that does not serve it, thinking settings outside its own, an
    output limit past its own, a call sent back without its thought signature (Gemini 3)."""
    served = "embed" if endpoint == EMBED else "generate"
    if model.endpoints and served not in model.endpoints:
        raise unknown_model(endpoint, model.id, path)
    if endpoint == EMBED:
        return
    body = data.get("generateContentRequest") if endpoint == COUNT else data
    if type(body) is not dict:
        body = data
    config = _field(body, "generationConfig")
    if type(config) is dict:
        _output(model, _field(config, "maxOutputTokens"))
        thinking = _field(config, "thinkingConfig")
        if type(thinking) is dict:
            _thinking(model, thinking)
    if model.signed and endpoint == GENERATE:
        _signed(_field(body, "contents"))


def _field(data: Mapping[str, Any], name: str) -> Any:
    """A field by either spelling, as proto3 JSON reads it."""
    found = data.get(name)
    return data.get(schema.snake(name)) if found is None else found


def _output(model: Model, limit: Any) -> None:
    if type(limit) is int and model.output and not 1 <= limit <= model.output:
        raise InvalidRequest(  # Vertex's words for it (the Gemini API's own are not public)
            f"Unable to submit request because it has a maxOutputTokens value of {limit} but the supported range is "
            f"from 1 (inclusive) to {model.output + 1} (exclusive). Update the value and try again.",
            param="generation_config.max_output_tokens",
        )


def _thinking(model: Model, thinking: Mapping[str, Any]) -> None:
    budget, level = _field(thinking, "thinkingBudget"), _field(thinking, "thinkingLevel")
    if not model.thinking and (budget or level):  # our words
        raise InvalidRequest(
            f"Thinking is not supported by models/{model.id}.", param="generation_config.thinking_config"
        )
    if level is not None:
        said = str(level).lower()
        if "level" not in model.thinking:  # our words
            raise InvalidRequest(
                "Thinking level is not supported for this model.",
                param="generation_config.thinking_config.thinking_level",
            )
        if said not in model.efforts:  # our words
            allowed = ", ".join(e.upper() for e in model.efforts)
            raise InvalidRequest(
                f"Thinking level {str(level).upper()} is not supported by models/{model.id}. Supported levels: "
                f"{allowed}.",
                param="generation_config.thinking_config.thinking_level",
            )
    if type(budget) is not int or budget == -1 or not model.budget:  # -1: dynamic; Gemini 3 maps a budget
        return
    low, high = model.budget
    if budget == 0 and "disabled" not in model.thinking:  # the API's words (gemini-2.5-pro)
        raise InvalidRequest(
            "Budget 0 is invalid. This model only works in thinking mode.",
            param="generation_config.thinking_config.thinking_budget",
        )
    if budget != 0 and not low <= budget <= high:  # our words
        raise InvalidRequest(
            f"The thinking budget {budget} is invalid. Please choose a value between {low} and {high}.",
            param="generation_config.thinking_config.thinking_budget",
        )


def _signed(contents: Any) -> None:
    """Gemini 3: in the current turn (from the last user text on), each model step's first `functionCall` part
    carries a `thoughtSignature` (parallel calls: the first only), as the API checks it."""
    if type(contents) is not list:
        return
    start = 0
    for at, content in enumerate(contents):
        if type(content) is dict and content.get("role", "user") == "user" and _asks(content):
            start = at
    for at in range(start, len(contents)):
        content = contents[at]
        if type(content) is not dict or content.get("role") != "model":
            continue
        parts = content.get("parts")
        calls = [p for p in parts if type(p) is dict and _field(p, "functionCall")] if type(parts) is list else []
        if calls and not _field(calls[0], "thoughtSignature"):
            name = (_field(calls[0], "functionCall") or {}).get("name", "")
            raise InvalidRequest(  # the API's words (the thought-signatures guide quotes them)
                "Function call is missing a thought_signature in functionCall parts. This is required for tools to "
                "work correctly, and missing thought_signature may lead to degraded model performance. Additional "
                f"data, function call `default_api:{name}` , position {at + 1}. Please refer to {SIGNATURES} for "
                "more details.",
                param=f"contents[{at}].parts",
            )


def _asks(content: Mapping[str, Any]) -> bool:
    """Whether a user content starts a turn: it says something, rather than only answering calls."""
    parts = content.get("parts")
    if type(parts) is not list:
        return False
    return any(type(p) is dict and not _field(p, "functionResponse") for p in parts)
