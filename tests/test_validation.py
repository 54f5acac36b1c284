"""The public profiles refuse what OpenAI and Anthropic refuse, in their words and shapes, through the official SDKs:
unknown fields, unknown models, what a model does not take; and in the order the real APIs check them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
import yaml

from emulator import scenarios
from emulator.cli.serve import rate_limits
from emulator.http.app import Settings
from emulator.rules import catalog
from tests.conftest import Server, call, serve

HI: Any = [{"role": "user", "content": "Say hi."}]
SCENARIOS = {
    "scenarios": [
        {"name": "acme-assistant", "reply": {"text": "Acme here."}},  # known by its name, takes every parameter
        {"name": "acme-like", "like": "gpt-4.1", "match": {"model": "acme-4*"}, "reply": {"text": "Like 4.1."}},
        {"name": "house-claude", "match": {"model": "house-claude-*"}, "reply": {"text": "House."}},
    ]
}


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    folder = tmp_path_factory.mktemp("validation")
    (folder / "made-up.yaml").write_text(yaml.safe_dump(SCENARIOS))
    yield from serve(Settings(scenarios=(folder,), models=("team-model",)))


def refused(caught: pytest.ExceptionInfo[openai.APIStatusError], status: int, param: str | None) -> dict[str, Any]:
    """OpenAI's error body, checked for its shape, status and `param`."""
    error = caught.value
    assert error.status_code == status
    body: Any = error.body
    assert set(body) == {"message", "type", "param", "code"} and body["type"] == "invalid_request_error"
    assert body["param"] == param and error.param == param
    return dict(body)


def unsupported_value(
    caught: pytest.ExceptionInfo[openai.BadRequestError], param: str, shown: str, supported: str
) -> None:
    """OpenAI's refusal of a value the model does not take for `param`: its code, and its message in OpenAI's
    words, the value `shown` as the message shows it, then what the model does take."""
    body = refused(caught, 400, param)
    assert body["code"] == "unsupported_value"
    assert body["message"] == f"Unsupported value: '{param}' does not support {shown} with this model. {supported}"


def claude_refused(caught: pytest.ExceptionInfo[anthropic.APIStatusError], status: int, kind: str) -> str:
    """Anthropic's error body, checked for its shape and type: its message."""
    body: Any = caught.value.body
    assert caught.value.status_code == status
    assert (
        body["type"] == "error"
        and body["request_id"].startswith("req_011")
        and set(body["error"])
        == {
            "type",
            "message",
        }
    )
    assert body["error"]["type"] == kind
    return str(body["error"]["message"])


# --- unknown fields ------------------------------------------------------------------------------------------


@pytest.mark.parametrize("field", ["frobnicate", "temprature", "max_token"])
def test_chat_refuses_an_unknown_argument_in_its_words(gpt: openai.OpenAI, field: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-4.1", messages=HI, extra_body={field: 1})
    body = refused(caught, 400, field)
    assert body["message"] == f"Unrecognized request argument supplied: {field}" and body["code"] is None


@pytest.mark.parametrize("field", ["frobnicate", "max_tokens", "messages"])
def test_responses_refuses_an_unknown_parameter_with_its_code(gpt: openai.OpenAI, field: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.create(model="gpt-5", input="hi", extra_body={field: 2})
    body = refused(caught, 400, field)
    assert body["message"] == f"Unknown parameter: '{field}'." and body["code"] == "unknown_parameter"


@pytest.mark.parametrize("field", ["frobnicate", "max_completion_tokens", "n"])
def test_messages_refuse_extra_inputs_as_anthropic_words_it(claude: anthropic.Anthropic, field: str) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=HI, extra_body={field: 3})
    assert claude_refused(caught, 400, "invalid_request_error") == f"{field}: Extra inputs are not permitted"


def test_count_tokens_knows_its_own_fields_not_those_of_messages(claude: anthropic.Anthropic) -> None:
    assert claude.messages.count_tokens(model="claude-opus-5", messages=HI).input_tokens > 0
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.count_tokens(model="claude-opus-5", messages=HI, extra_body={"max_tokens": 10})
    assert claude_refused(caught, 400, "invalid_request_error") == "max_tokens: Extra inputs are not permitted"
    with pytest.raises(anthropic.NotFoundError) as unknown:
        claude.messages.count_tokens(model="claude-opus-9", messages=HI)
    assert claude_refused(unknown, 404, "not_found_error") == "model: claude-opus-9"
    assert claude.messages.count_tokens(model="house-claude-2", messages=HI).input_tokens > 0  # a scenario's


def test_a_beta_field_is_known_only_with_its_beta(claude: anthropic.Anthropic) -> None:
    edits: Any = {"edits": [{"type": "clear_tool_uses_20250919"}]}
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(
            model="claude-sonnet-5", max_tokens=50, messages=HI, extra_body={"context_management": edits}
        )
    assert claude_refused(caught, 400, "invalid_request_error").startswith(
        "context_management: Extra inputs are not permitted"
    )
    answer = claude.beta.messages.create(
        model="claude-sonnet-5",
        max_tokens=50,
        messages=HI,
        context_management=edits,
        betas=["context-management-2025-06-27"],  # the SDK's beta namespace sends the header
    )
    assert answer.content


def test_anthropic_says_a_required_field_is_required(claude: anthropic.Anthropic) -> None:
    for missing, body in [
        ("max_tokens", {"model": "claude-opus-5", "messages": HI}),
        ("messages", {"model": "claude-opus-5", "max_tokens": 10}),
    ]:
        with pytest.raises(anthropic.BadRequestError) as caught:
            claude.post("/v1/messages", cast_to=anthropic.types.Message, body=body)
        assert claude_refused(caught, 400, "invalid_request_error") == f"{missing}: Field required"


def test_inferam_still_ignores_fields_it_does_not_know(server: Server) -> None:
    with server.openai("/inferam") as client:
        answer = client.chat.completions.create(model="any-model", messages=HI, extra_body={"frobnicate": 1})
    assert answer.choices[0].message.content


# --- unknown models --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("model", ["gpt-4.2", "gpt4o", "o3-turbo"])
def test_openai_answers_an_unknown_model_with_model_not_found(gpt: openai.OpenAI, model: str) -> None:
    for ask in (
        lambda: gpt.chat.completions.create(model=model, messages=HI),
        lambda: gpt.responses.create(model=model, input="hi"),
    ):
        with pytest.raises(openai.NotFoundError) as caught:
            ask()
        body = refused(caught, 404, None)  # OpenAI's 404 names no param: the message names the model
        assert body["code"] == "model_not_found"
        assert body["message"] == f"The model `{model}` does not exist or you do not have access to it."


def test_anthropic_answers_an_unknown_model_with_not_found_error(claude: anthropic.Anthropic) -> None:
    with pytest.raises(anthropic.NotFoundError) as caught:
        claude.messages.create(model="claude-3-opus-latest", max_tokens=10, messages=HI)
    assert claude_refused(caught, 404, "not_found_error") == "model: claude-3-opus-latest"


def test_every_model_the_sdks_name_is_known_and_listed(gpt: openai.OpenAI, claude: anthropic.Anthropic) -> None:
    import typing

    from anthropic.types import Model as ClaudeModel
    from openai.types.shared import AllModels

    def named(kind: Any) -> set[str]:
        found: set[str] = set()
        for arg in typing.get_args(kind):
            found |= {a for a in typing.get_args(arg) if isinstance(a, str)} or named(arg)
        return found

    openai_ids, claude_ids = named(AllModels), named(ClaudeModel)
    assert len(openai_ids) > 100 and len(claude_ids) > 20
    assert openai_ids <= {m.id for m in gpt.models.list()}
    assert claude_ids <= {m.id for m in claude.models.list()}
    assert gpt.models.retrieve("o4-mini-2025-04-16").created > 0
    haiku = claude.models.retrieve("claude-haiku-4-5-20251001")
    assert (haiku.display_name, haiku.max_tokens, haiku.max_input_tokens, haiku.line) == (
        "Claude Haiku 4.5",
        64000,
        200000,
        "haiku",
    )
    with pytest.raises(openai.NotFoundError):
        gpt.models.retrieve("gpt-4.2")
    with pytest.raises(anthropic.NotFoundError):
        claude.models.retrieve("claude-4-opus")


def test_models_are_known_by_flag_scenario_name_and_scenario_glob(
    gpt: openai.OpenAI, claude: anthropic.Anthropic
) -> None:
    for model in ("team-model", "acme-assistant", "acme-4-large"):
        answer = gpt.chat.completions.create(model=model, messages=HI, temperature=0.3)
        assert answer.model == model
    assert claude.messages.create(model="house-claude-9", max_tokens=10, messages=HI).content


def test_a_model_like_a_catalog_model_takes_its_parameters_and_no_others(gpt: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="acme-4-large", messages=HI, reasoning_effort="low")
    refused(caught, 400, "reasoning_effort")
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="acme-4-large", messages=HI, max_completion_tokens=40000)
    refused(caught, 400, "max_completion_tokens")  # past gpt-4.1's 32,768
    # A model known only by name takes anything.
    assert gpt.chat.completions.create(model="team-model", messages=HI, reasoning_effort="high").choices


def test_a_scenario_like_must_name_a_catalog_model() -> None:
    with pytest.raises(scenarios.ScenarioError, match=r"like: 'gpt-4\.2' is no model"):
        scenarios.parse({"name": "x", "like": "gpt-4.2", "reply": {"text": "x"}})
    assert scenarios.parse({"name": "x", "like": "claude-opus-5", "reply": {"text": "x"}})[0].like == "claude-opus-5"


def test_a_recorded_model_is_known(tmp_path: Path) -> None:
    cassette = {
        "interactions": [
            {
                "request": {
                    "method": "POST",
                    "uri": "http://upstream/v1/chat/completions",
                    "body": '{"model": "ft:gpt-4.1:acme::abc", "messages": [{"role": "user", "content": "x"}]}',
                    "headers": {},
                },
                "response": {
                    "status": {"code": 200, "message": "OK"},
                    "headers": {"content-type": ["application/json"]},
                    "body": {"string": "{}"},
                },
            }
        ],
        "version": 1,
    }
    (tmp_path / "tuned.yaml").write_text(yaml.safe_dump(cassette))
    running = serve(Settings(recordings=(tmp_path,), profile="openai"))
    server = next(running)
    try:
        with server.openai() as client:
            answer = client.chat.completions.create(model="ft:gpt-4.1:acme::abc", messages=HI)
            assert answer.model == "ft:gpt-4.1:acme::abc"
            with pytest.raises(openai.NotFoundError):
                client.chat.completions.create(model="ft:gpt-4.1:other::def", messages=HI)
    finally:
        next(running, None)


# --- the order of checks ---------------------------------------------------------------------------------------


def test_a_fault_asked_for_answers_before_the_model_is_checked(gpt: openai.OpenAI) -> None:
    fault = {"x-emulator-fault": "status=503"}
    with pytest.raises(openai.InternalServerError) as caught:
        gpt.chat.completions.create(model="gpt-4.2", messages=HI, extra_headers=fault)
    assert caught.value.status_code == 503
    with pytest.raises(openai.InternalServerError):  # the model's parameters are not checked either
        gpt.chat.completions.create(model="o3", messages=HI, temperature=0.2, extra_headers=fault)
    with pytest.raises(openai.BadRequestError) as body_first:  # but the body is, before the fault
        gpt.chat.completions.create(model="gpt-4.1", messages=HI, extra_headers=fault, extra_body={"frobnicate": 1})
    refused(body_first, 400, "frobnicate")


def test_a_scenario_named_by_header_answers_whatever_the_model(gpt: openai.OpenAI) -> None:
    answer = gpt.chat.completions.create(
        model="gpt-4.2", messages=HI, extra_headers={"x-emulator-scenario": "acme-assistant"}
    )
    assert answer.choices[0].message.content == "Acme here."


def test_the_model_is_checked_before_the_rate_limit(make_server: Any) -> None:
    server = make_server(Settings(profile="openai", limits=rate_limits("requests_per_minute=1")))
    with server.openai() as client:
        client.chat.completions.create(model="gpt-4.1", messages=HI)
        with pytest.raises(openai.NotFoundError):  # the minute's one request is spent, yet the 404 comes first
            client.chat.completions.create(model="gpt-4.2", messages=HI)
        with pytest.raises(openai.BadRequestError):
            client.chat.completions.create(model="o3", messages=HI, temperature=0.5)
        with pytest.raises(openai.RateLimitError):
            client.chat.completions.create(model="gpt-4.1", messages=HI)


# --- what a model refuses: OpenAI -----------------------------------------------------------------------------


@pytest.mark.parametrize(("model", "value"), [("o3", 0.2), ("o4-mini", 0), ("gpt-5-mini", 1.5), ("gpt-5.2-pro", 0.7)])
def test_reasoning_models_take_only_the_default_temperature_on_chat(
    gpt: openai.OpenAI, model: str, value: float
) -> None:
    create = gpt.responses.create if model == "gpt-5.2-pro" else None
    if create:  # served by Responses only: there, the parameter is unsupported
        with pytest.raises(openai.BadRequestError) as caught:
            gpt.responses.create(model=model, input="hi", temperature=value)
        assert refused(caught, 400, "temperature")["code"] == "unsupported_parameter"
        return
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model=model, messages=HI, temperature=value)
    unsupported_value(caught, "temperature", f"{value}", "Only the default (1) value is supported.")
    assert gpt.chat.completions.create(model=model, messages=HI, temperature=1).choices


@pytest.mark.parametrize("param", ["top_p", "presence_penalty", "frequency_penalty"])
def test_reasoning_models_refuse_other_sampling_parameters(gpt: openai.OpenAI, param: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="o4-mini", messages=HI, **{param: 0.5})  # type: ignore[call-overload]
    body = refused(caught, 400, param)
    assert body["code"] == "unsupported_parameter"
    assert body["message"] == f"Unsupported parameter: '{param}' is not supported with this model."


def test_gpt_5_2_takes_sampling_only_with_reasoning_off(gpt: openai.OpenAI) -> None:
    answer = gpt.chat.completions.create(model="gpt-5.2", messages=HI, reasoning_effort="none", temperature=0.4)
    assert answer.choices
    assert gpt.chat.completions.create(model="gpt-5.4", messages=HI, temperature=0.4).choices  # none, the default
    assert gpt.responses.create(model="gpt-5.1", input="hi", top_p=0.5).output
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-5.2", messages=HI, reasoning_effort="low", temperature=0.4)
    refused(caught, 400, "temperature")


def test_a_non_reasoning_model_refuses_an_effort(gpt: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-4o", messages=HI, reasoning_effort="low")
    assert refused(caught, 400, "reasoning_effort")["code"] == "unsupported_parameter"
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.create(model="gpt-4.1-mini", input="hi", reasoning={"effort": "high"})
    assert refused(caught, 400, "reasoning.effort")["code"] == "unsupported_parameter"


@pytest.mark.parametrize(
    ("model", "effort", "supported"),
    [
        ("gpt-5", "none", "'minimal', 'low', 'medium', and 'high'"),
        ("gpt-5.1", "minimal", "'none', 'low', 'medium', and 'high'"),
        ("o3-mini", "xhigh", "'low', 'medium', and 'high'"),
    ],
)
def test_a_reasoning_model_refuses_an_effort_it_lacks(
    gpt: openai.OpenAI, model: str, effort: Any, supported: str
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model=model, messages=HI, reasoning_effort=effort)
    unsupported_value(caught, "reasoning_effort", f"'{effort}'", f"Supported values are: {supported}.")


def test_o_series_wants_max_completion_tokens(gpt: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="o3-mini", messages=HI, max_tokens=100)
    body = refused(caught, 400, "max_tokens")
    assert body["code"] == "unsupported_parameter" and body["message"].endswith("Use 'max_completion_tokens' instead.")
    assert gpt.chat.completions.create(model="o3-mini", messages=HI, max_completion_tokens=100).choices
    assert gpt.chat.completions.create(model="gpt-4o-mini", messages=HI, max_tokens=100).choices


def test_output_limits_and_minimums(gpt: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-4o", messages=HI, max_completion_tokens=16385)
    body = refused(caught, 400, "max_completion_tokens")
    assert "supports at most 16384 completion tokens" in body["message"] and body["code"] == "invalid_value"
    for small in (1, 15):
        with pytest.raises(openai.BadRequestError) as caught:
            gpt.responses.create(model="gpt-4.1", input="hi", max_output_tokens=small)
        body = refused(caught, 400, "max_output_tokens")
        assert body["code"] == "integer_below_min_value"
        assert body["message"] == (
            "Invalid 'max_output_tokens': integer below minimum value. "
            f"Expected a value >= 16, but got {small} instead."
        )
    assert gpt.responses.create(model="gpt-4.1", input="hi", max_output_tokens=16).output


def test_a_model_refuses_what_it_cannot_do(gpt: openai.OpenAI) -> None:
    schema: Any = {"type": "json_schema", "json_schema": {"name": "x", "schema": {"type": "object"}}}
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-3.5-turbo", messages=HI, response_format=schema)
    refused(caught, 400, "response_format")
    tool: Any = {"type": "function", "function": {"name": "f", "parameters": {"type": "object"}}}
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="o1-mini", messages=HI, tools=[tool])
    refused(caught, 400, "tools")
    image: Any = [
        {
            "role": "user",
            "content": [{"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}],
        }
    ]
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="o3-mini", messages=image)
    refused(caught, 400, "messages")
    with pytest.raises(openai.NotFoundError) as found:  # served by Responses only
        gpt.chat.completions.create(model="o1-pro", messages=HI)
    assert refused(found, 404, "model")["message"].startswith("This model is only supported in v1/responses")


# --- what a model refuses: Anthropic --------------------------------------------------------------------------


def test_thinking_budgets_as_anthropic_bounds_them(claude: anthropic.Anthropic) -> None:
    for budget, max_tokens, words in [
        (1023, 4000, "thinking.enabled.budget_tokens: Input should be greater than or equal to 1024"),
        (2048, 2048, "`max_tokens` must be greater than `thinking.budget_tokens`."),
        (3000, 2000, "`max_tokens` must be greater than `thinking.budget_tokens`."),
    ]:
        with pytest.raises(anthropic.BadRequestError) as caught:
            claude.messages.create(
                model="claude-haiku-4-5",
                max_tokens=max_tokens,
                messages=HI,
                thinking={"type": "enabled", "budget_tokens": budget},
            )
        assert claude_refused(caught, 400, "invalid_request_error").startswith(words)
    interleaved = claude.beta.messages.create(  # with interleaved thinking the budget spans the turn
        model="claude-haiku-4-5",
        max_tokens=2000,
        messages=HI,
        thinking={"type": "enabled", "budget_tokens": 3000},
        betas=["interleaved-thinking-2025-05-14"],
    )
    assert interleaved.content
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(
            model="claude-haiku-4-5",
            max_tokens=4000,
            messages=HI,
            thinking={"type": "enabled", "budget_tokens": 1024},
            extra_body={"temperature": 0.5},
        )
    assert claude_refused(caught, 400, "invalid_request_error").startswith(
        "`temperature` may only be set to 1 when thinking is enabled."
    )


@pytest.mark.parametrize(("model", "limit"), [("claude-haiku-4-5", 64000), ("claude-opus-5", 128000)])
def test_max_tokens_past_the_models_output_limit(claude: anthropic.Anthropic, model: str, limit: int) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(model=model, max_tokens=limit + 1, messages=HI, timeout=10)
    assert claude_refused(caught, 400, "invalid_request_error") == (
        f"max_tokens: {limit + 1} > {limit}, which is the maximum allowed number of output tokens for {model}"
    )


def test_a_model_takes_its_own_kinds_of_thinking_and_effort(claude: anthropic.Anthropic) -> None:
    budget: Any = {"type": "enabled", "budget_tokens": 1024}
    cases: list[tuple[str, dict[str, Any], str]] = [
        ("claude-opus-5", {"thinking": budget}, '"thinking.type.enabled" is not supported for this model.'),
        ("claude-haiku-4-5", {"thinking": {"type": "adaptive"}}, '"thinking.type.adaptive" is not supported'),
        ("claude-fable-5", {"thinking": {"type": "disabled"}}, '"thinking.type.disabled" is not supported'),
        ("claude-haiku-4-5", {"output_config": {"effort": "low"}}, "output_config.effort: This model does not"),
        ("claude-opus-4-6", {"output_config": {"effort": "xhigh"}}, "output_config.effort: Input should be 'low',"),
        ("claude-sonnet-5", {"extra_body": {"temperature": 0.5}}, "temperature: This model does not support"),
        ("claude-sonnet-5", {"extra_body": {"top_k": 5}}, "top_k: This model does not support"),
    ]
    for model, extra, words in cases:
        with pytest.raises(anthropic.BadRequestError) as caught:
            claude.messages.create(model=model, max_tokens=3000, messages=HI, **extra)
        assert claude_refused(caught, 400, "invalid_request_error").startswith(words), model
    with pytest.warns(UserWarning, match="deprecated"):  # the SDK's own warning: deprecated, still accepted
        assert claude.messages.create(model="claude-opus-4-6", max_tokens=3000, messages=HI, thinking=budget).content
    answer = claude.messages.create(
        model="claude-haiku-4-5", max_tokens=50, messages=HI, extra_body={"temperature": 0.2, "top_k": 5}
    )
    assert answer.content


# --- leniency ----------------------------------------------------------------------------------------------------


def test_lenient_lets_unknown_models_and_fields_by_and_journals_them(make_server: Any) -> None:
    server = make_server(Settings(profile="openai", lenient=True))
    with server.openai() as client:
        answer = client.chat.completions.create(model="gpt-4.2", messages=HI, extra_body={"frobnicate": 1})
        assert answer.model == "gpt-4.2"
        with pytest.raises(openai.BadRequestError):  # what a known model does not take is still refused
            client.chat.completions.create(model="o3", messages=HI, temperature=0.2)
    first = call(server.port, "GET", "/_emulator/requests")[1]["requests"][0]
    assert first["lenient"] == [
        "Unrecognized request argument supplied: frobnicate",
        "The model `gpt-4.2` does not exist or you do not have access to it.",
    ]


def test_lenient_by_header_for_one_request(claude: anthropic.Anthropic) -> None:
    answer = claude.messages.create(
        model="claude-5-imaginary",
        max_tokens=50,
        messages=HI,
        extra_body={"frobnicate": True},
        extra_headers={"x-emulator-lenient": "1"},
    )
    assert answer.model == "claude-5-imaginary"


def test_the_catalog_says_where_a_guess_comes_from() -> None:
    held = catalog.CATALOGS["openai"]
    assert held.models["gpt-4.1-2025-04-14"].output == 32768 and not held.models["gpt-4.1"].reasoning
    assert "gpt-5.5" in held.models["gpt-6-astra"].note and held.models["gpt-6-astra"].efforts[-1] == "max"
    assert held.models["gpt-5-mini"].note == ""  # a documented model carries no note, even when `like` another


# --- what the SDKs' own generated tests send that the real API refuses too -------------------------------------


def test_the_generated_tests_placeholders_are_refused_as_the_api_refuses_them(gpt: openai.OpenAI) -> None:
    """openai-python's tests/api_resources send placeholders a mock of the spec takes and the API does not."""
    for param in ("max_completion_tokens", "max_tokens"):
        with pytest.raises(openai.BadRequestError) as caught:
            gpt.chat.completions.create(model="gpt-4.1", messages=HI, **{param: 0})  # type: ignore[call-overload]
        body = refused(caught, 400, param)
        assert body["code"] == "integer_below_min_value"
        assert (
            body["message"]
            == f"Invalid '{param}': integer below minimum value. Expected a value >= 1, but got 0 instead."
        )
    with pytest.raises(openai.BadRequestError) as caught:  # the all-params test's max_tokens on gpt-5.4
        gpt.chat.completions.create(model="gpt-5.4", messages=HI, max_tokens=100)
    assert refused(caught, 400, "max_tokens")["code"] == "unsupported_parameter"
    with pytest.raises(openai.BadRequestError) as caught:  # stream_options with stream false
        gpt.chat.completions.create(model="gpt-5.4", messages=HI, stream=False, stream_options={"include_usage": True})
    refused(caught, 400, "stream_options")
    with pytest.raises(openai.BadRequestError) as caught:  # `responses.create()` with nothing at all
        gpt.responses.create()
    refused(caught, 400, "model")
    with pytest.raises(openai.BadRequestError) as caught:  # a placeholder id
        gpt.responses.create(model="gpt-5.1", input="hi", previous_response_id="previous_response_id")
    assert refused(caught, 400, "previous_response_id")["code"] == "previous_response_not_found"


def test_deleting_a_model_is_openais_404_for_one_it_does_not_know(gpt: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        gpt.models.delete("ft:gpt-4.1-mini:acme:support-bot:Bx1yZ2")
    assert caught.value.code == "model_not_found" and "ft:gpt-4.1-mini:acme:support-bot:Bx1yZ2" in caught.value.message
    with pytest.raises(openai.PermissionDeniedError):  # one of the catalog's: not the organization's to delete
        gpt.models.delete("gpt-4.1")
    assert gpt.models.retrieve("gpt-4.1").id == "gpt-4.1"  # still there
