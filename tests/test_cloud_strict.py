"""The `gemini`, `vertex` and `bedrock` profiles are strict as the openai and anthropic ones are: a name the
request's message lacks, at any depth and in either spelling, a model the service does not serve, a value past
Bedrock's constraints, what a model does not take (its thinking settings, its output limit, Gemini 3's thought
signatures), each refused in the service's own words, through the official clients. Under their prefixes
(`/gemini`, `/vertex`, `/bedrock`) always; at the root only when `--profile` names them."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path
from typing import Any

import anthropic
import boto3
import pytest
from botocore.config import Config
from botocore.exceptions import ClientError
from google import genai
from google.genai import errors, types
from google.oauth2.credentials import Credentials

from emulator.http.app import Settings
from emulator.rules import catalog
from tests import cloud_schemas
from tests.conftest import Server, call

REQUESTS = Path(__file__).parent.parent / "emulator" / "rules" / "catalog" / "requests"
KEY = {"x-goog-api-key": "k"}
HI: Any = {"contents": [{"role": "user", "parts": [{"text": "Say hi."}]}]}
WEATHER = types.FunctionDeclaration(
    name="get_weather",
    description="The weather now in a city",
    parameters_json_schema={"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
)


def google(server: Server, where: str = "/gemini", **options: Any) -> genai.Client:
    http = types.HttpOptions(base_url=f"{server.base_url}{where}", api_version="v1beta", **options)
    return genai.Client(api_key="k", http_options=http)


@pytest.fixture
def gemini(server: Server) -> Iterator[genai.Client]:
    made = google(server)
    yield made
    made.close()


def refused(caught: pytest.ExceptionInfo[errors.APIError], code: int, status: str) -> str:
    assert caught.value.code == code and caught.value.status == status, caught.value
    return str(caught.value.message)


# --- the files are what the clients' own types and models say ------------------------------------------------------


@pytest.mark.parametrize("file", sorted(cloud_schemas.HEADERS))
def test_the_schema_files_are_as_the_pinned_clients_write_them(file: str) -> None:
    """Bedrock's constraints come from botocore's service model: a new boto3 that changes one changes the file."""
    assert (REQUESTS / f"{file}.yaml").read_text() == cloud_schemas.written(file)


def test_the_catalogs_name_each_familys_models() -> None:
    gemini, vertex, bedrock = (catalog.catalog(n) for n in ("gemini", "vertex", "bedrock"))
    assert gemini and vertex and bedrock
    assert gemini.get("gemini-2.5-pro") and gemini.get("gemini-embedding-001") and not gemini.get("claude-opus-4-5")
    assert vertex.get("gemini-2.5-flash") and vertex.get("claude-opus-4-5@20251101") and vertex.get("claude-sonnet-5")
    for named in (
        "anthropic.claude-haiku-4-5-20251001-v1:0",
        "eu.anthropic.claude-haiku-4-5-20251001-v1:0",
        "arn:aws:bedrock:eu-west-1::foundation-model/amazon.nova-lite-v1:0",
        "arn:aws:bedrock:us-east-1:123456789012:inference-profile/global.meta.llama3-3-70b-instruct-v1:0",
    ):
        assert bedrock.get(named), named
    assert not bedrock.get("anthropic.claude-nonexistent-v1:0") and not bedrock.get("gpt-4o")
    assert bedrock.unlisted("arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3")


# --- Gemini -------------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        ({"generationConfig": {"topQ": 1}}, "Unknown name \"topQ\" at 'generation_config': Cannot find field."),
        (
            {"generation_config": {"thinking_config": {"budget": 5}}},
            "Unknown name \"budget\" at 'generation_config.thinking_config': Cannot find field.",
        ),
        ({"toolConfig": {"mode": "ANY"}}, "Unknown name \"mode\" at 'tool_config': Cannot find field."),
        ({"cacheTtl": "60s"}, 'Unknown name "cacheTtl": Cannot find field.'),
    ],
    ids=["config", "snake-nested", "tool-config", "top"],
)
def test_an_unknown_name_is_refused_with_googles_path(server: Server, extra: Any, words: str) -> None:
    with google(server, extra_body=extra) as made, pytest.raises(errors.ClientError) as caught:
        made.models.generate_content(model="gemini-2.5-flash", contents="Say hi.")
    message = refused(caught, 400, "INVALID_ARGUMENT")
    assert message == f"Invalid JSON payload received. {words}"


def test_a_name_in_a_part_or_a_function_declaration_is_found_too(server: Server) -> None:
    body = {"contents": [{"role": "user", "parts": [{"text": "hi", "mood": "glad"}]}]}
    status, answer = call(server.port, "POST", "/gemini/v1beta/models/gemini-2.5-flash:generateContent", body, KEY)
    assert status == 400 and "Unknown name \"mood\" at 'contents[0].parts[0]'" in answer["error"]["message"]
    violation = answer["error"]["details"][0]["fieldViolations"][0]
    assert violation["field"] == "contents[0].parts[0]"
    tool = {"functionDeclarations": [{"name": "f", "parameters": {"type": "OBJECT", "const": 1}}]}
    status, answer = call(
        server.port, "POST", "/gemini/v1/models/gemini-2.5-flash:generateContent", {**HI, "tools": [tool]}, KEY
    )
    assert status == 400
    assert "at 'tools[0].function_declarations[0].parameters'" in answer["error"]["message"]


def test_either_spelling_of_every_field_is_taken_mixed_in_one_body(server: Server) -> None:
    body = {
        "system_instruction": {"parts": [{"text": "Be brief."}]},
        "contents": [{"role": "user", "parts": [{"text": "Name a colour.", "thought_signature": None}]}],
        "generationConfig": {"max_output_tokens": 50, "thinkingConfig": {"include_thoughts": False}},
        "safety_settings": [{"category": "HARM_CATEGORY_HARASSMENT", "threshold": "BLOCK_NONE"}],
        "tool_config": {"functionCallingConfig": {"mode": "AUTO"}},
        "tools": [{"function_declarations": [{"name": "f", "parameters_json_schema": {"type": "object"}}]}],
    }
    status, answer = call(server.port, "POST", "/gemini/v1beta/models/gemini-2.5-flash:generateContent", body, KEY)
    assert status == 200, answer
    assert answer["candidates"][0]["content"]["parts"]


def test_a_model_the_api_does_not_serve_is_its_404_naming_the_method(gemini: genai.Client) -> None:
    with pytest.raises(errors.ClientError) as caught:
        gemini.models.generate_content(model="gemini-9-ultra", contents="hi")
    assert refused(caught, 404, "NOT_FOUND") == (
        "models/gemini-9-ultra is not found for API version v1beta, or is not supported for generateContent. "
        "Call ListModels to see the list of available models and their supported methods."
    )
    with pytest.raises(errors.ClientError) as caught:
        list(gemini.models.generate_content_stream(model="gemini-9-ultra", contents="hi"))
    assert "not supported for streamGenerateContent" in refused(caught, 404, "NOT_FOUND")
    with pytest.raises(errors.ClientError) as caught:  # an embeddings model does not generate
        gemini.models.generate_content(model="gemini-embedding-001", contents="hi")
    assert "models/gemini-embedding-001 is not found" in refused(caught, 404, "NOT_FOUND")
    with pytest.raises(errors.ClientError) as caught:
        gemini.models.embed_content(model="gemini-2.5-pro", contents="hi")
    assert "not supported for batchEmbedContents" in refused(caught, 404, "NOT_FOUND")
    with pytest.raises(errors.ClientError) as caught:
        gemini.models.count_tokens(model="gemini-0-nano", contents="hi")
    assert "not supported for countTokens" in refused(caught, 404, "NOT_FOUND")
    assert gemini.models.count_tokens(model="gemini-flash-latest", contents="hi").total_tokens


@pytest.mark.parametrize(
    ("model", "thinking", "words"),
    [
        ("gemini-2.5-pro", {"thinking_budget": 0}, "Budget 0 is invalid. This model only works in thinking mode."),
        ("gemini-2.5-flash", {"thinking_budget": 30000}, "Please choose a value between 0 and 24576."),
        ("gemini-2.5-flash-lite", {"thinking_budget": 100}, "Please choose a value between 512 and 24576."),
        ("gemini-2.5-flash", {"thinking_level": "LOW"}, "Thinking level is not supported for this model."),
        ("gemini-3-pro-preview", {"thinking_level": "MEDIUM"}, "Supported levels: LOW, HIGH."),
        ("gemini-2.0-flash", {"thinking_budget": 1024}, "Thinking is not supported by models/gemini-2.0-flash."),
    ],
)
def test_thinking_settings_outside_the_models_own_are_refused(
    gemini: genai.Client, model: str, thinking: dict[str, Any], words: str
) -> None:
    config = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(**thinking))
    with pytest.raises(errors.ClientError) as caught:
        gemini.models.generate_content(model=model, contents="Is 51 prime?", config=config)
    assert words in refused(caught, 400, "INVALID_ARGUMENT")


@pytest.mark.parametrize(
    ("model", "thinking"),
    [
        ("gemini-2.5-flash", {"thinking_budget": 0}),
        ("gemini-2.5-flash-lite", {"thinking_budget": 0}),
        ("gemini-2.5-pro", {"thinking_budget": -1}),
        ("gemini-2.5-pro", {"thinking_budget": 128, "include_thoughts": True}),
        ("gemini-3-flash-preview", {"thinking_level": "MINIMAL"}),
        ("gemini-3-pro-preview", {"thinking_budget": 2048}),  # still taken, for the clients written before levels
    ],
)
def test_thinking_settings_within_the_models_own_are_answered(
    gemini: genai.Client, model: str, thinking: dict[str, Any]
) -> None:
    config = types.GenerateContentConfig(thinking_config=types.ThinkingConfig(**thinking), max_output_tokens=60000)
    answer = gemini.models.generate_content(model=model, contents="Is 51 prime?", config=config)
    assert answer.text


def test_more_output_than_the_model_writes_is_refused(gemini: genai.Client) -> None:
    config = types.GenerateContentConfig(max_output_tokens=9000)
    with pytest.raises(errors.ClientError) as caught:
        gemini.models.generate_content(model="gemini-2.0-flash-lite", contents="hi", config=config)
    assert "maxOutputTokens value of 9000 but the supported range is from 1 (inclusive) to 8193" in refused(
        caught, 400, "INVALID_ARGUMENT"
    )


def test_gemini_3_wants_the_current_turns_calls_signed(gemini: genai.Client, server: Server) -> None:
    tools = types.GenerateContentConfig(tools=[types.Tool(function_declarations=[WEATHER])])
    chat = gemini.chats.create(model="gemini-3-pro-preview", config=tools)
    asked = chat.send_message("What is the weather in Oslo?")
    calls = asked.function_calls or []
    assert calls and calls[0].name == "get_weather"
    result = types.Part.from_function_response(name="get_weather", response={"temperature": "4 C"})
    answered = chat.send_message(result)  # the chat sends the call back as it came, signature and all
    assert answered.text

    path = "/gemini/v1beta/models/gemini-3-pro-preview:generateContent"
    call_part = {"functionCall": {"name": "get_weather", "args": {"city": "Oslo"}}}
    answer_part = {"functionResponse": {"name": "get_weather", "response": {"temperature": "4 C"}}}

    def turn(*signatures: str | None) -> list[dict[str, Any]]:
        history: list[dict[str, Any]] = []
        for at, signature in enumerate(signatures):
            signed = call_part | ({"thoughtSignature": signature} if signature else {})
            history += [
                {"role": "user", "parts": [{"text": f"Weather, round {at}?"}]},
                {"role": "model", "parts": [signed]},
                {"role": "user", "parts": [answer_part]},
            ]
        return history

    status, answer = call(server.port, "POST", path, {"contents": turn(None)}, KEY)
    assert status == 400 and answer["error"]["message"].startswith(
        "Function call is missing a thought_signature in functionCall parts."
    )
    assert "function call `default_api:get_weather` , position 2." in answer["error"]["message"]
    for fine in (turn(None, "c2lnbmVk"), turn("skip_thought_signature_validator")):  # an earlier turn's: unchecked
        status, answer = call(server.port, "POST", path, {"contents": fine}, KEY)
        assert status == 200, answer
    older = "/gemini/v1beta/models/gemini-2.5-flash:generateContent"  # Gemini 2.5 does not check
    assert call(server.port, "POST", older, {"contents": turn(None)}, KEY)[0] == 200


def test_leniency_and_the_root_let_unknown_names_and_models_by(server: Server, make_server: Any) -> None:
    body = {**HI, "generationConfig": {"topQ": 1}}
    lenient = KEY | {"x-emulator-lenient": "1"}
    assert call(server.port, "POST", "/gemini/v1beta/models/gemini-9-ultra:generateContent", body, lenient)[0] == 200
    assert call(server.port, "POST", "/v1beta/models/gemini-9-ultra:generateContent", body, KEY)[0] == 200
    strict = make_server(Settings(profile="gemini"))  # at the root, when `--profile` names it
    status, answer = call(strict.port, "POST", "/v1beta/models/gemini-9-ultra:generateContent", HI, KEY)
    assert status == 404 and answer["error"]["status"] == "NOT_FOUND"


# --- Vertex AI ----------------------------------------------------------------------------------------------------


def test_vertex_refuses_a_model_as_its_publisher_model_404(server: Server) -> None:
    token = Credentials("ya29.test")
    options = types.HttpOptions(base_url=f"{server.base_url}/vertex", api_version="v1")
    with genai.Client(
        vertexai=True, project="p", location="europe-west4", credentials=token, http_options=options
    ) as v:
        with pytest.raises(errors.ClientError) as caught:
            v.models.generate_content(model="gemini-9-ultra", contents="hi")
        assert refused(caught, 404, "NOT_FOUND").startswith(
            "Publisher Model `projects/p/locations/europe-west4/publishers/google/models/gemini-9-ultra` was not "
            "found or your project does not have access to it."
        )
        assert v.models.generate_content(model="gemini-2.0-flash-001", contents="hi").text


def test_claude_on_vertex_is_checked_as_anthropic_checks_it(server: Server) -> None:
    with anthropic.AnthropicVertex(
        region="us-east5",
        project_id="p",
        access_token="ya29.test",
        base_url=f"{server.base_url}/vertex/v1",
        max_retries=0,
    ) as vertex:
        hi: list[anthropic.types.MessageParam] = [{"role": "user", "content": "hi"}]
        made = vertex.messages.create(model="claude-haiku-4-5@20251001", max_tokens=30, messages=hi)
        assert made.id.startswith("msg_vrtx_01")
        with pytest.raises(anthropic.BadRequestError) as bad:
            vertex.messages.create(
                model="claude-haiku-4-5@20251001", max_tokens=30, messages=hi, extra_body={"metadata": {"team": 1}}
            )
        assert "metadata.team: Extra inputs are not permitted" in str(bad.value)
        with pytest.raises(anthropic.BadRequestError) as bad:
            vertex.messages.create(model="claude-haiku-4-5@20251001", max_tokens=90000, messages=hi, timeout=30)
        assert "max_tokens: 90000 > 64000" in str(bad.value)
        with pytest.raises(anthropic.NotFoundError) as missing:
            vertex.messages.create(model="claude-unknown@20990101", max_tokens=30, messages=hi)
        assert "publishers/anthropic/models/claude-unknown@20990101" in str(missing.value)
        assert missing.value.body["error"]["status"] == "NOT_FOUND", "Vertex's front end answers, in Google's shape"
        with pytest.raises(anthropic.NotFoundError) as missing:
            vertex.messages.count_tokens(model="claude-unknown@20990101", messages=hi)
        assert "publishers/anthropic/models/claude-unknown@20990101` was not found" in str(missing.value)


# --- Bedrock ------------------------------------------------------------------------------------------------------


def bedrock(server: Server) -> Any:
    return boto3.client(
        "bedrock-runtime",
        endpoint_url=f"{server.base_url}/bedrock",
        region_name="us-west-2",
        aws_access_key_id="AKIDEXAMPLE",
        aws_secret_access_key="made-up-secret",
        config=Config(retries={"mode": "standard", "total_max_attempts": 1}),
    )


def said(caught: pytest.ExceptionInfo[ClientError]) -> str:
    error: Any = caught.value.response["Error"]
    assert error["Code"] == "ValidationException" and caught.value.response["ResponseMetadata"]["HTTPStatusCode"] == 400
    return str(error["Message"])


USER: Any = [{"role": "user", "content": [{"text": "Say hi."}]}]


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (
            {"inferenceConfig": {"temperature": 1.5}},
            "1 validation error detected: Value '1.5' at 'inferenceConfig.temperature' failed to satisfy "
            "constraint: Member must have value less than or equal to 1",
        ),
        (
            {"toolConfig": {"tools": [{"toolSpec": {"name": "look up", "inputSchema": {"json": {}}}}]}},
            "Value 'look up' at 'toolConfig.tools.1.member.toolSpec.name' failed to satisfy constraint: Member must "
            "satisfy regular expression pattern: [a-zA-Z0-9_-]+",
        ),
        (
            {"system": [{"cachePoint": {"type": "default", "ttl": "2h"}}]},
            "Value at 'system.1.member.cachePoint.ttl' failed to satisfy constraint: Member must satisfy enum value "
            "set: [5m, 1h]",
        ),
        (
            {"inferenceConfig": {"stopSequences": ["x"] * 2501}},
            "Value at 'inferenceConfig.stopSequences' failed to satisfy constraint: Member must have length less "
            "than or equal to 2500",
        ),
    ],
    ids=["temperature", "tool-name", "ttl", "stop-sequences"],
)
def test_converse_constraints_in_bedrocks_words(server: Server, extra: Any, words: str) -> None:
    with closing(bedrock(server)) as runtime, pytest.raises(ClientError) as caught:
        runtime.converse(modelId="amazon.nova-lite-v1:0", messages=USER, **extra)
    assert words in said(caught)


def test_a_model_bedrock_does_not_serve_is_an_invalid_identifier(server: Server) -> None:
    with closing(bedrock(server)) as runtime:
        with pytest.raises(ClientError) as caught:
            runtime.converse(modelId="anthropic.claude-9-opus-v1:0", messages=USER)
        assert said(caught) == "The provided model identifier is invalid."
        with pytest.raises(ClientError) as caught:
            runtime.converse_stream(modelId="gpt-4o", messages=USER)
        assert said(caught) == "The provided model identifier is invalid."
        for known in (
            "us.anthropic.claude-haiku-4-5-20251001-v1:0",
            "arn:aws:bedrock:us-west-2::foundation-model/meta.llama3-3-70b-instruct-v1:0",
            "arn:aws:bedrock:us-west-2:123456789012:application-inference-profile/a1b2c3d4",
        ):
            assert runtime.converse(modelId=known, messages=USER)["output"]["message"]["content"]


def test_what_a_bedrock_model_does_not_take(server: Server) -> None:
    tools = {"tools": [{"toolSpec": {"name": "f", "inputSchema": {"json": {"type": "object"}}}}]}
    with closing(bedrock(server)) as runtime:
        with pytest.raises(ClientError) as caught:
            runtime.converse(modelId="deepseek.r1-v1:0", messages=USER, toolConfig=tools)
        assert said(caught) == "This model doesn't support tool use."
        with pytest.raises(ClientError) as caught:
            runtime.converse(modelId="amazon.nova-micro-v1:0", messages=USER, inferenceConfig={"maxTokens": 20000})
        assert said(caught).startswith("The maximum tokens you requested exceeds the model limit of 10000.")


def test_claude_on_invoke_model_is_checked_by_bedrocks_validator(server: Server) -> None:
    with anthropic.AnthropicBedrock(
        aws_access_key="AKIDEXAMPLE",
        aws_secret_key="made-up-secret",
        aws_region="us-east-1",
        base_url=f"{server.base_url}/bedrock",
        max_retries=0,
    ) as claude:
        hi: list[anthropic.types.MessageParam] = [{"role": "user", "content": "hi"}]
        model = "us.anthropic.claude-sonnet-4-5-20250929-v1:0"
        assert claude.messages.create(model=model, max_tokens=20, messages=hi).content
        with pytest.raises(anthropic.BadRequestError) as bad:
            claude.messages.create(model=model, max_tokens=20, messages=hi, extra_body={"mood": "glad"})
        assert bad.value.body == {
            "message": 'Malformed input request: #: subject must not be valid against schema {"required":["messages"]}'
            "#: extraneous key [mood] is not permitted, please reformat your input and try again."
        }
        with pytest.raises(anthropic.BadRequestError) as bad:
            block: Any = {"type": "text", "text": "hi", "x": 1}
            claude.messages.create(model=model, max_tokens=20, messages=[{"role": "user", "content": [block]}])
        assert "#/messages/0/content/0: extraneous key [x] is not permitted" in str(bad.value)
        with pytest.raises(anthropic.BadRequestError) as bad:
            claude.messages.create(model="anthropic.claude-2-v9:0", max_tokens=20, messages=hi)
        assert bad.value.body == {"message": "The provided model identifier is invalid."}


def test_a_member_converse_lacks_is_let_by(server: Server) -> None:
    """Neither SDK sends one (boto3 refuses it, the JavaScript SDK serializes only what it knows), and whether the
    service refuses one is not public: it is answered."""
    signed = {"authorization": "Bearer bedrock-api-key-test"}
    body = {"messages": USER, "inferenceConfig": {"maxTokens": 20, "temperatureish": 1}, "extra": True}
    status, answer = call(server.port, "POST", "/bedrock/model/amazon.nova-lite-v1:0/converse", body, signed)
    assert status == 200, answer
