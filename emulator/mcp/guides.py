"""What an agent reads before it writes a fault, a timing or a scenario (`emulator mcp`'s resources): the fault
grammar, the scenario format with examples, the profiles. Each is built from the code's own tables (`faults`,
`scenarios`, `profiles`, the catalogs) and the bundled scenarios, which the wheel carries; the docs are not in
it. tests/test_mcp.py checks that they agree with docs/faults.md, docs/scenarios.md and docs/profiles.md.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import resources

from emulator.core.conversation import FINISH_REASONS
from emulator.default_model.generate import DEFAULT_KINDS, TEXT_KINDS
from emulator.rules import catalog, faults, profiles
from emulator.scenarios import entries


@dataclass(frozen=True)
class Guide:
    uri: str
    name: str
    description: str
    text: Callable[[], str]


# --- faults and timing -------------------------------------------------------------------------------------

_TYPES = {int: "integer", float: "number", bool: "true|false", str: "text"}


def _parameter(name: str) -> str:
    kind = faults.PARAMETERS.get(name) or faults.TIMING[name]
    low, high = faults.RANGES.get(name, (None, None))
    span = f" {_figure(low)} to {_figure(high)}" if low is not None and high is not None else ""
    return f"`{name}` ({_TYPES[kind]}{span})"


def _figure(x: float) -> str:
    return f"{x:,.0f}" if x == int(x) else f"{x:g}"


def fault_grammar() -> str:
    kinds = "\n".join(
        f"| `{kind}` | {', '.join(map(_parameter, parameters)) or '(none)'} | {what} |"
        for kind, (parameters, what) in faults.KINDS.items()
    )
    return f"""# The fault and timing grammar

A fault spec, as `set_fault` (and the `{faults.FAULT_HEADER}` header, `emulator serve --fault`) takes it:
`KIND; key=value; ...`, or `key=value; ...` where the first key names the kind (`status=429; retry_after=1`).
A scenario's `fault:` is the same as a mapping with a `kind` (`{{kind: status, status: 429}}`).

| kind | parameters | what the client gets |
|---|---|---|
{kinds}

Every kind also takes {", ".join(map(_parameter, faults.COMMON))}: `rate` is the share of requests it strikes
(seeded: the same ones every run, a retry may get through); `at` is `edge` (the client gets it) or `upstream`
(behind the provider, whose own retries may absorb it).

A timing spec, as `set_timing` (and `{faults.TIMING_HEADER}`, `--timing`) takes it: `key=value; ...` of
{", ".join(map(_parameter, faults.TIMING))}. Pauses past 10 s carry keep-alives.

Precedence: a request's own header, then the test's fault (set_fault), then a scenario's, then the CLI's.

Examples: `status=429; retry_after=1` (rate limited; the SDKs retry), `status=503`, `status=529` (Anthropic's
overloaded), `stream_error; after_events=5; status=529`, `truncate; after_events=3`, `stall; after_events=2; ms=0`,
`reset`, `malformed; after_events=2`, `status=503; rate=0.5`; timing `ttft_ms=300; tokens_per_second=60`.
"""


# --- scenarios ---------------------------------------------------------------------------------------------

# What each key of the format means (tests/test_mcp.py holds it to the parser's own tables).
SCENARIO_KEYS = {
    "name": "unique; also selectable as a model name, or with the header x-emulator-scenario: NAME",
    "match": "conditions that must all hold for the scenario to answer (below); without one it answers only by name",
    "timing": "pacing, a mapping of the timing keys (emulator://faults)",
    "like": "a catalog model whose parameters the scenario's model takes under the openai/anthropic profiles",
    "reply": "one reply, always the same",
    "steps": "a list of replies chosen by the assistant turns already in the conversation (stateless: an agent "
    "loop, tool call then answer); the last repeats",
    "replies": "a list of replies chosen by call count, per API key and test id (stateful: retry testing)",
}
MATCH_KEYS = {
    "model": "a glob on the request's model",
    "last_user": "the last user message: a string (contains, any case), {contains: ...} or {regex: ...} (RE2)",
    "tools": "true: some tools are offered; false: none",
    "tool": "a tool with this name (a glob) is offered",
    "header": "a mapping of request header names to globs",
}
REPLY_KEYS = {
    "reasoning": "the reasoning text (a string, or generated text as for `text`)",
    "text": "the answer: a string, {faker: KIND, count|sentences|paragraphs|words: N}, or {default: KIND, count: N}",
    "tool_calls": "a list of {name, arguments, id}: arguments a mapping (JSON) or a string; left out, generated "
    "from the tool's schema",
    "finish_reason": "overrides the finish reason",
    "usage": "overrides of the token counts",
    "fault": "a fault, as a mapping with a `kind` (emulator://faults)",
}
CALL_KEYS = {"name": "the tool's name", "arguments": "its arguments", "id": "the call's id (else generated)"}

EXAMPLES = """\
# Retry testing: two 429s, then an answer (the SDKs retry twice by default).
name: flaky
replies:
  - fault: {kind: status, status: 429, retry_after: 1}
  - fault: {kind: status, status: 429, retry_after: 1}
  - text: third time lucky
---
# An agent loop: a tool call, then the answer once the tool's result comes back.
name: weather
match: {last_user: {contains: weather}, tool: get_weather}
steps:
  - reasoning: I look the weather up first.
    tool_calls: [{name: get_weather, arguments: {city: Paris}}]
  - text: It is 18 °C and sunny in Paris.
---
# A stream that breaks after five events, paced like a real model.
name: dies-mid-stream
match: {model: "slow-*"}
reply:
  text: {faker: paragraphs, count: 3}
  fault: {kind: stream_error, after_events: 5, status: 529}
timing: {ttft_ms: 400, tokens_per_second: 60}
"""


def _keys(title: str, meanings: dict[str, str]) -> str:
    return f"{title}\n\n" + "\n".join(f"- `{key}`: {meaning}" for key, meaning in meanings.items())


def bundled_scenarios() -> str:
    """The bundled scenario file the wheel carries (`emulator/bundled/scenarios/`): every feature at work."""
    folder = resources.files("emulator.bundled").joinpath("scenarios")
    files = sorted((f for f in folder.iterdir() if f.name.endswith(".yaml")), key=lambda f: f.name)
    return "\n".join(f.read_text(encoding="utf-8") for f in files)


def scenario_format() -> str:
    return f"""# The scenario format

A scenario scripts what the model answers. `post_scenario` takes one scenario, or {{scenarios: [...]}}, as YAML or
JSON text or as an object; scenario files hold {{scenarios: [...]}}. Exactly one of `reply`, `steps`, `replies`.
Selection: the header x-emulator-scenario (or the scenario a test set with `use`), then a model named like a
scenario, then a recording, then the first scenario whose `match` holds (posted ones first), then the default.

{_keys("## A scenario's keys", SCENARIO_KEYS)}

{_keys("## `match`", MATCH_KEYS)}

{_keys("## A reply's keys (`reply`, and each of `steps` and `replies`)", REPLY_KEYS)}

{_keys("## A tool call's keys", CALL_KEYS)}

Generated text: `{{faker: KIND}}` with KIND one of {", ".join(TEXT_KINDS)} (seeded words); `{{default: KIND}}` with
KIND one of {", ".join(DEFAULT_KINDS)} (the default model's text about the question). `finish_reason`: one of
{", ".join(FINISH_REASONS)}. `usage`: any of {", ".join(entries.USAGE_KEYS)}.

## Examples (each one document, as post_scenario takes it)

```yaml
{EXAMPLES}```

## The bundled scenarios (scenarios/examples.yaml)

```yaml
{bundled_scenarios()}```
"""


# --- profiles ----------------------------------------------------------------------------------------------

ENDPOINTS = {
    profiles.CHAT: "Chat Completions (POST /v1/chat/completions)",
    profiles.RESPONSES: "Responses (POST /v1/responses)",
    profiles.MESSAGES: "Messages (POST /v1/messages, /v1/messages/count_tokens)",
    profiles.EMBEDDINGS: "Embeddings (POST /v1/embeddings)",
    profiles.COMPLETIONS: "legacy Completions (POST /v1/completions)",
    profiles.OLLAMA_CHAT: "Ollama chat (POST /api/chat)",
    profiles.OLLAMA_GENERATE: "Ollama generate (POST /api/generate)",
    profiles.OLLAMA_EMBED: "Ollama embed (POST /api/embed, /api/embeddings)",
    profiles.GEMINI: "Gemini generateContent (POST /v1beta/models/{model}:generateContent, :streamGenerateContent, "
    ":countTokens)",
    profiles.GEMINI_EMBED: "Gemini embeddings (POST /v1beta/models/{model}:embedContent, :batchEmbedContents)",
    profiles.BEDROCK_CONVERSE: "Bedrock Converse (POST /model/{modelId}/converse, /converse-stream)",
    profiles.BEDROCK_INVOKE: "Bedrock InvokeModel for Claude (POST /model/{modelId}/invoke, "
    "/invoke-with-response-stream)",
}


def _models(name: str) -> str:
    held = catalog.catalog(name)
    if held is None:
        return "any model name is answered"
    known = sorted({model.id for model in held.models.values()})
    return f"the models of its catalog ({len(known)}, e.g. {', '.join(profiles.PROFILES[name].models)})"


def profile_table() -> str:
    rows = "\n".join(
        f"| `{name}` | {'; '.join(ENDPOINTS[d] for d in profile.dialects)} | {_models(name)} | {profile.doc} |"
        for name, profile in profiles.PROFILES.items()
    )
    return f"""# The profiles

One server stands in for several upstreams. Plain `/v1` is the server's profile (`--profile`, default
`{profiles.DEFAULT}`); `/NAME/v1/...` picks one per request (`base_urls` with `profile` gives the URLs; the
Anthropic SDK's base URL has no `/v1`). The seeds' profiles ignore unknown fields and answer any model; `openai`
and `anthropic` refuse what the public APIs refuse, in their words, unless lenient.

| profile | endpoints | models | stands for |
|---|---|---|---|
{rows}
"""


GUIDES = (
    Guide(
        "emulator://faults",
        "fault-grammar",
        "The fault and timing grammar set_fault and set_timing take: every kind, its parameters and ranges.",
        fault_grammar,
    ),
    Guide(
        "emulator://scenarios",
        "scenario-format",
        "The scenario format post_scenario takes, every key explained, with examples and the bundled scenarios.",
        scenario_format,
    ),
    Guide(
        "emulator://profiles",
        "profiles",
        "The upstreams the emulator stands in for (inferam, inferel, infercom, openai, anthropic) and their URLs.",
        profile_table,
    ),
)
