"""The public profiles read the whole body, not just its top: a key the API does not know, a required key left out
or a `type` it has no member for is refused wherever it stands, with its path in each API's own form; and the
request schemas hold everything the pinned SDKs send."""

from __future__ import annotations

import typing
from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pydantic
import pytest

from emulator.core import yamlfile
from emulator.http.app import Settings
from emulator.rules import schema
from tests import cloud_schemas
from tests.conftest import Server, call, serve
from tests.sdk_schemas import Ref, render, sdk_schemas

HI: Any = [{"role": "user", "content": "Say hi."}]
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from serve(Settings())


def openai_refusal(caught: pytest.ExceptionInfo[openai.BadRequestError]) -> tuple[str, str, str | None]:
    body: Any = caught.value.body
    assert caught.value.status_code == 400 and body["type"] == "invalid_request_error"
    return body["message"], body["param"], body["code"]


def claude_refusal(caught: pytest.ExceptionInfo[anthropic.BadRequestError]) -> str:
    body: Any = caught.value.body
    assert caught.value.status_code == 400 and body["error"]["type"] == "invalid_request_error"
    return str(body["error"]["message"])


# --- the schemas hold what the SDKs send ---------------------------------------------------------------------


@pytest.mark.parametrize("file", schema.FILES)
def test_the_schemas_hold_every_field_member_and_tag_the_sdk_types(file: str) -> None:
    sdk = cloud_schemas.schemas(file) if file in cloud_schemas.HEADERS else sdk_schemas(file)
    ours = {endpoint: shape for endpoint, shape in schema.SCHEMAS.items() if endpoint in sdk["roots"]}
    missing: list[str] = []
    seen: set[tuple[str, str]] = set()

    def compare(theirs: str, mine: schema.Shape, where: str) -> None:
        if (theirs, mine.name) in seen:
            return
        seen.add((theirs, mine.name))
        spec = sdk["types"][theirs]
        if "by" in spec:
            if mine.by != spec["by"]:
                missing.append(f"{where}: told apart by {spec['by']!r}, here by {mine.by!r}")
                return
            for tag, member in spec["tags"].items():
                if tag not in mine.tags:
                    missing.append(f"{where}: the tag {tag!r}")
                else:
                    compare(member, mine.tags[tag], f"{where}.{tag}")
            return
        held = mine.tags if mine.by else {"": mine}
        for field, ref in spec["fields"].items():
            for tag, member in held.items():
                if field not in member.fields:
                    missing.append(f"{where}{'.' + tag if tag else ''}: the field {field!r}")
                else:
                    walk(ref, member.fields[field], f"{where}.{field}")

    def walk(theirs: Ref | None, mine: schema.Ref | None, where: str) -> None:
        if theirs is None:
            return
        if mine is None:
            missing.append(f"{where}: not walked here, typed {render(theirs)} by the SDK")
            return
        obj, items = theirs
        if obj is not None:
            if mine.shape is None:
                missing.append(f"{where}: an object here is not walked")
            else:
                compare(obj, mine.shape, where)
        if items is not None:
            walk(items, mine.items, f"{where}[]") if mine.items else missing.append(f"{where}: a list is not walked")

    for endpoint, root in sdk["roots"].items():
        compare(root, ours[endpoint], endpoint)
    assert missing == []


def test_a_schema_naming_what_it_does_not_define_is_refused_at_load() -> None:
    document = yamlfile.load("roots: {chat: Body}\nobjects:\n  Body: {messages: '[Message]'}\n")
    with pytest.raises(ValueError, match="Body.messages names 'Message'"):
        schema.load(document, "made-up.yaml")


def test_paths_in_each_apis_form() -> None:
    document = yamlfile.load(
        """
roots: {body: Body}
unions:
  Block: {by: type, tags: {note: Note, sketch: Note}, default: note}
  Who: {by: role, tags: {reader: Reader}}
objects:
  Body: {readers: '[Who]', blocks: 'Block|[Block]'}
  Reader: {role: '~', name*: '~', shelves: '[[Block]]'}
  Note: {text*: '~', type: '~'}
"""
    )
    root = schema.load(document, "made-up.yaml")["body"]
    found, _ = schema.check(
        root, {"readers": [{"role": "reader", "name": "a", "shelves": [[{"text": "x", "pin": 1}]]}]}
    )
    assert found is not None and found.kind == "unknown"
    assert (found.indexed(), found.dotted()) == ("readers[0].shelves[0][0].pin", "readers.0.shelves.0.0.note.pin")
    found, _ = schema.check(root, {"blocks": {"type": "sketch"}})
    assert found is not None and (found.kind, found.dotted()) == ("missing", "blocks.sketch.text")
    found, _ = schema.check(root, {"blocks": [{"text": "a"}, {"type": "poem"}]})
    assert found is not None and (found.kind, found.value, found.allowed) == ("tag", "poem", ("note", "sketch"))
    found, _ = schema.check(root, {"readers": [{"name": "b"}]})
    assert found is not None and (found.kind, found.indexed()) == ("untagged", "readers[0].role")
    found, passed = schema.check(root, {"x": 1, "blocks": [{"text": "a", "y": 2}, {"text": "b", "z": 3}]}, True)
    assert found is None and [p.indexed() for p in passed] == ["blocks[0].y", "blocks[1].z"]


# --- OpenAI: Chat Completions -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("messages", "extra", "param"),
    [
        ([{"role": "user", "content": "hi", "timestamp": 17}], {}, "messages[0].timestamp"),
        (
            [{"role": "user", "content": [{"type": "text", "text": "a"}, {"type": "text", "text": "b", "lang": "en"}]}],
            {},
            "messages[0].content[1].lang",
        ),
        (
            [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "data:,", "zoom": 2}}]}],
            {},
            "messages[0].content[0].image_url.zoom",
        ),
        (
            [{"role": "user", "content": "weather?"}],
            {"tools": [{"type": "function", "function": {"name": "w", "parameters": {}, "examples": []}}]},
            "tools[0].function.examples",
        ),
        ([{"role": "user", "content": "hi"}], {"stream_options": {"include_usage": True, "every": 2}}, None),
    ],
)
def test_chat_names_an_unknown_key_wherever_it_stands(
    gpt: openai.OpenAI, messages: Any, extra: dict[str, Any], param: str | None
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        if param is None:  # stream options go with a stream
            gpt.chat.completions.create(model="gpt-4.1", messages=messages, stream=True, **extra)
        else:
            gpt.chat.completions.create(model="gpt-4.1", messages=messages, **extra)
    param = param or "stream_options.every"
    assert openai_refusal(caught) == (f"Unknown parameter: '{param}'.", param, "unknown_parameter")


def test_chat_says_which_nested_key_is_missing_and_which_type_it_lacks(gpt: openai.OpenAI) -> None:
    call_made: Any = {"id": "call_7", "type": "function", "function": {"name": "lookup", "arguments": "{}"}}
    history: Any = [
        {"role": "user", "content": "look it up"},
        {"role": "assistant", "content": None, "tool_calls": [call_made]},
        {"role": "tool", "content": "found"},  # no tool_call_id
    ]
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-4.1", messages=history)
    param = "messages[2].tool_call_id"
    assert openai_refusal(caught) == (f"Missing required parameter: '{param}'.", param, "missing_required_parameter")
    with pytest.raises(openai.BadRequestError) as caught:
        wrong: Any = [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
        gpt.chat.completions.create(model="gpt-4.1", messages=wrong)
    assert openai_refusal(caught) == (
        "Invalid value: 'input_text'. Supported values are: 'text', 'image_url', 'input_audio', and 'file'.",
        "messages[0].content[0].type",
        "invalid_value",
    )


def test_a_full_chat_body_of_every_kind_is_answered(gpt: openai.OpenAI) -> None:
    """What the schema knows is answered: images, files, tool calls and results, every option object."""
    answer = gpt.chat.completions.create(
        model="gpt-4.1",
        messages=[
            {"role": "developer", "content": [{"type": "text", "text": "Be brief."}], "name": "house"},
            {
                "role": "user",
                "content": [
                    {"type": "text", "text": "What is in the picture?"},
                    {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{PNG}", "detail": "low"}},
                ],
            },
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "zoom", "arguments": '{"x": 2}'}}
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": [{"type": "text", "text": "zoomed"}]},
        ],
        tools=[
            {
                "type": "function",
                "function": {
                    "name": "zoom",
                    "description": "Zooms.",
                    "parameters": {"type": "object"},
                    "strict": False,
                },
            }
        ],
        tool_choice={"type": "function", "function": {"name": "zoom"}},
        response_format={"type": "text"},
        stream_options=None,
        metadata={"any": "key"},
        logit_bias={"50256": -100},
    )
    assert answer.choices[0].finish_reason in ("stop", "tool_calls")


# --- OpenAI: Responses --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "param"),
    [
        (
            {"input": [{"role": "user", "content": [{"type": "input_text", "text": "a", "weight": 1}]}]},
            "input[0].content[0].weight",
        ),
        (
            {
                "input": [
                    {"type": "function_call", "call_id": "c1", "name": "f", "arguments": "{}"},
                    {"type": "function_call_output", "call_id": "c1", "output": "ok", "elapsed_ms": 4},
                ]
            },
            "input[1].elapsed_ms",
        ),
        (
            {"input": "hi", "tools": [{"type": "function", "name": "f", "parameters": {}, "strict": True, "tags": []}]},
            "tools[0].tags",
        ),
        ({"input": "hi", "reasoning": {"effort": "low", "depth": 3}}, "reasoning.depth"),
    ],
)
def test_responses_names_an_unknown_key_wherever_it_stands(
    gpt: openai.OpenAI, body: dict[str, Any], param: str
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.create(model="gpt-5", **body)
    assert openai_refusal(caught) == (f"Unknown parameter: '{param}'.", param, "unknown_parameter")


def test_responses_takes_input_items_of_every_common_kind(gpt: openai.OpenAI) -> None:
    items: Any = [
        {"role": "user", "content": [{"type": "input_text", "text": "Call it."}]},
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Sure.", "annotations": []}],
        },
        {"type": "function_call", "call_id": "c9", "name": "lookup", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c9", "output": "done"},
        {"role": "user", "content": "Thanks; sum it up."},
    ]
    answer = gpt.responses.create(
        model="gpt-5",
        instructions="Answer briefly.",
        input=items,
        tools=[
            {"type": "function", "name": "lookup", "parameters": {"type": "object", "properties": {}}, "strict": False}
        ],
        text={"format": {"type": "text"}},
        reasoning={"effort": "low", "summary": "auto"},
    )
    assert answer.status == "completed"


def test_responses_refuses_an_item_type_it_does_not_know(gpt: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        unknown: Any = [{"type": "function_result", "call_id": "c", "output": "x"}]
        gpt.responses.create(model="gpt-5", input=unknown)
    message, param, code = openai_refusal(caught)
    assert (param, code) == ("input[0].type", "invalid_value")
    assert message.startswith("Invalid value: 'function_result'. Supported values are: 'message', ")


# --- Anthropic: Messages ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "path"),
    [
        (
            {"messages": [{"role": "user", "content": [{"type": "text", "text": "hi", "pinned": True}]}]},
            "messages.0.content.0.text.pinned",
        ),
        (
            {"system": [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral", "tier": "hot"}}]},
            "system.0.cache_control.ephemeral.tier",
        ),
        (
            {"tools": [{"name": "lookup", "input_schema": {"type": "object"}, "category": "search"}]},
            "tools.0.custom.category",
        ),
        (
            {
                "messages": [
                    {
                        "role": "user",
                        "content": [
                            {"type": "text", "text": "What is it?"},
                            {
                                "type": "image",
                                "source": {"type": "base64", "media_type": "image/png", "data": PNG, "name": "a.png"},
                            },
                        ],
                    }
                ]
            },
            "messages.0.content.1.image.source.base64.name",
        ),
        ({"metadata": {"user_id": "u1", "team": "t"}}, "metadata.team"),
    ],
)
def test_messages_name_an_extra_input_wherever_it_stands(
    claude: anthropic.Anthropic, extra: dict[str, Any], path: str
) -> None:
    body: dict[str, Any] = {"messages": [{"role": "user", "content": "hi"}], **extra}
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(model="claude-haiku-4-5", max_tokens=50, **body)
    assert claude_refusal(caught) == f"{path}: Extra inputs are not permitted"


def test_messages_say_what_a_block_lacks_and_which_tags_they_know(claude: anthropic.Anthropic) -> None:
    turn: Any = [{"role": "user", "content": [{"type": "text"}]}]
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=turn)
    assert claude_refusal(caught) == "messages.0.content.0.text.text: Field required"
    turn = [{"role": "user", "content": [{"type": "input_text", "text": "hi"}]}]
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=turn)
    assert claude_refusal(caught).startswith(
        "messages.0.content.0: Input tag 'input_text' found using 'type' does not match any of the expected tags: "
        "'text', 'image', "
    )


def test_a_beta_field_below_the_top_is_known_only_with_a_beta_header(claude: anthropic.Anthropic) -> None:
    config: Any = {"task_budget": {"type": "tokens", "total": 20000}}
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(model="claude-sonnet-5", max_tokens=50, messages=HI, output_config=config)
    assert claude_refusal(caught) == "output_config.task_budget: Extra inputs are not permitted"
    answer = claude.beta.messages.create(
        model="claude-sonnet-5", max_tokens=50, messages=HI, output_config=config, betas=["task-budgets-2026-03-13"]
    )
    assert answer.content


def test_a_full_messages_body_of_every_common_kind_is_answered(claude: anthropic.Anthropic) -> None:
    answer = claude.messages.create(
        model="claude-sonnet-5",
        max_tokens=200,
        system=[{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
        messages=[
            {
                "role": "user",
                "content": [
                    {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": PNG}},
                    {"type": "text", "text": "Describe, then look it up.", "cache_control": {"type": "ephemeral"}},
                ],
            },
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"q": "x"}}],
            },
            {
                "role": "user",
                "content": [
                    {"type": "tool_result", "tool_use_id": "toolu_1", "content": [{"type": "text", "text": "42"}]}
                ],
            },
        ],
        tools=[{"name": "lookup", "description": "Looks up.", "input_schema": {"type": "object", "properties": {}}}],
        tool_choice={"type": "auto"},
        metadata={"user_id": "u-1"},
    )
    assert answer.content


# --- open where the real APIs are open -----------------------------------------------------------------------------


def test_openai_takes_images_by_url_files_and_audio_without_fetching_them(gpt: openai.OpenAI) -> None:
    look: Any = [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Compare the chart with the report."},
                {"type": "image_url", "image_url": {"url": "https://img.example.test/q3-chart.png", "detail": "high"}},
                {"type": "file", "file": {"file_id": "file-q3report"}},
                {
                    "type": "file",
                    "file": {"filename": "notes.pdf", "file_data": "data:application/pdf;base64,JVBERi0="},
                },
            ],
        }
    ]
    assert gpt.chat.completions.create(model="gpt-4.1", messages=look).choices[0].message.content
    with pytest.raises(openai.BadRequestError) as caught:  # still no image for a model that sees none
        gpt.chat.completions.create(model="gpt-3.5-turbo", messages=look)
    assert openai_refusal(caught)[0] == "Invalid content type. image_url is only supported by certain models."
    items: Any = [
        {
            "role": "user",
            "content": [
                {"type": "input_text", "text": "Summarise both."},
                {"type": "input_image", "image_url": "https://img.example.test/slide-4.jpg", "detail": "auto"},
                {"type": "input_image", "file_id": "file-slide5"},
                {"type": "input_file", "file_url": "https://docs.example.test/brief.pdf"},
                {"type": "input_file", "file_id": "file-appendix"},
            ],
        }
    ]
    assert gpt.responses.create(model="gpt-5", input=items).output_text


def test_anthropic_takes_images_by_url_and_pdf_documents(claude: anthropic.Anthropic) -> None:
    turn: Any = [
        {
            "role": "user",
            "content": [
                {"type": "image", "source": {"type": "url", "url": "https://img.example.test/diagram.webp"}},
                {"type": "image", "source": {"type": "file", "file_id": "file_011diagram"}},
                {
                    "type": "document",
                    "source": {"type": "base64", "media_type": "application/pdf", "data": "JVBERi0xLjQK"},
                    "title": "Contract",
                    "citations": {"enabled": True},
                },
                {"type": "document", "source": {"type": "url", "url": "https://docs.example.test/terms.pdf"}},
                {"type": "document", "source": {"type": "text", "media_type": "text/plain", "data": "Clause 4: none."}},
                {"type": "text", "text": "What does the contract say about the diagram?"},
            ],
        }
    ]
    assert claude.messages.create(model="claude-sonnet-5", max_tokens=100, messages=turn).content


def test_the_seeds_profiles_keep_their_base64_only_rule(server: Server) -> None:
    remote: Any = [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "https://x.test/a.png"}}]}]
    with server.openai("/inferam") as client, pytest.raises(openai.BadRequestError) as caught:
        client.chat.completions.create(model="any-model", messages=remote)
    assert "remote image URLs are not supported" in openai_refusal(caught)[0]
    by_url: Any = [
        {"role": "user", "content": [{"type": "image", "source": {"type": "url", "url": "https://x.test/a.png"}}]}
    ]
    with server.anthropic("/inferam") as claude, pytest.raises(anthropic.BadRequestError) as refused:
        claude.messages.create(model="any-model", max_tokens=20, messages=by_url)
    assert "Only base64 image sources are supported" in claude_refusal(refused)


# --- limits, in each API's words -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("extra", "message", "param", "code"),
    [
        (
            {"temperature": 2.25},
            "Invalid 'temperature': decimal above maximum value. Expected a value <= 2, but got 2.25 instead.",
            "temperature",
            "decimal_above_max_value",
        ),
        (
            {"presence_penalty": -3},
            "Invalid 'presence_penalty': decimal below minimum value. Expected a value >= -2, but got -3 instead.",
            "presence_penalty",
            "decimal_below_min_value",
        ),
        (
            {"logprobs": True, "top_logprobs": 21},
            "Invalid 'top_logprobs': integer above maximum value. Expected a value <= 20, but got 21 instead.",
            "top_logprobs",
            "integer_above_max_value",
        ),
        (
            {"stop": ["END", "STOP", "###", "---", "==="]},
            "Invalid 'stop': array too long. Expected an array with maximum length 4, but got an array with length 5 "
            "instead.",
            "stop",
            "array_above_max_length",
        ),
        (
            {"tools": [{"type": "function", "function": {"name": "files.read", "parameters": {}}}]},
            "Invalid 'tools[0].function.name': string does not match pattern. Expected a string that matches the "
            "pattern '^[a-zA-Z0-9_-]+$'.",
            "tools[0].function.name",
            "invalid_value",
        ),
        (
            {"tools": [{"type": "function", "function": {"name": "t" * 70, "parameters": {}}}]},
            "Invalid 'tools[0].function.name': string too long. Expected a string with maximum length 64, but got a "
            "string with length 70 instead.",
            "tools[0].function.name",
            "string_above_max_length",
        ),
        (
            {"tool_choice": "none"},
            "Invalid value for 'tool_choice': 'tool_choice' is only allowed when 'tools' are specified.",
            "tool_choice",
            None,
        ),
        (
            {"parallel_tool_calls": False},
            "Invalid value for 'parallel_tool_calls': 'parallel_tool_calls' is only allowed when 'tools' are "
            "specified.",
            "parallel_tool_calls",
            None,
        ),
    ],
)
def test_chat_limits_in_openais_words(
    gpt: openai.OpenAI, extra: dict[str, Any], message: str, param: str, code: str | None
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-4.1", messages=HI, **extra)
    assert openai_refusal(caught) == (message, param, code)


def test_chat_takes_what_is_within_its_limits(gpt: openai.OpenAI) -> None:
    tools: Any = [{"type": "function", "function": {"name": f"tool_{i}", "parameters": {}}} for i in range(128)]
    answer = gpt.chat.completions.create(
        model="gpt-4.1",
        messages=HI,
        temperature=2,
        top_p=0,
        stop=["a", "b", "c", "d"],
        tools=tools,
        tool_choice="auto",
        parallel_tool_calls=True,
    )
    assert answer.choices
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-4.1", messages=HI, tools=[*tools, tools[0]])
    assert openai_refusal(caught)[2] == "array_above_max_length"


def test_responses_limits_in_openais_words(gpt: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.create(model="gpt-4.1", input="hi", top_p=1.5)
    assert openai_refusal(caught) == (
        "Invalid 'top_p': decimal above maximum value. Expected a value <= 1, but got 1.5 instead.",
        "top_p",
        "decimal_above_max_value",
    )
    tools: Any = [{"type": "function", "name": "search web", "parameters": {}, "strict": False}]
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.create(model="gpt-4.1", input="hi", tools=tools)
    assert openai_refusal(caught)[1:] == ("tools[0].name", "invalid_value")


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ({"extra_body": {"temperature": 1.2}}, "temperature: Input should be less than or equal to 1"),
        ({"extra_body": {"top_k": -1}}, "top_k: Input should be greater than or equal to 0"),
        (
            {"tools": [{"name": "mcp/read", "input_schema": {"type": "object"}}]},
            "tools.0.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'",
        ),
    ],
)
def test_messages_limits_in_anthropics_words(claude: anthropic.Anthropic, extra: dict[str, Any], message: str) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=HI, **extra)
    assert claude_refusal(caught) == message


# --- structured outputs: OpenAI's strict rules ------------------------------------------------------------------


def strict_form(schema: dict[str, Any], name: str = "ledger") -> Any:
    return {"type": "json_schema", "json_schema": {"name": name, "strict": True, "schema": schema}}


ENTRY = {"type": "object", "properties": {"item": {"type": "string"}, "cost": {"type": "number"}}}


@pytest.mark.parametrize(
    ("schema", "words"),
    [
        (
            {
                "type": "object",
                "properties": {"rows": {"type": "array", "items": ENTRY}},
                "required": ["rows"],
                "additionalProperties": False,
            },
            "In context=('properties', 'rows', 'items'), 'additionalProperties' is required to be supplied and to be "
            "false.",
        ),
        (
            {
                "type": "object",
                "properties": {"total": {"type": "number"}, "currency": {"type": "string"}},
                "required": ["total"],
                "additionalProperties": False,
            },
            "In context=(), 'required' is required to be supplied and to be an array including every key in "
            "properties. Missing 'currency'.",
        ),
        (
            {"type": "array", "items": {"type": "string"}},
            "schema must be a JSON Schema of 'type: \"object\"', got 'type: \"array\"'.",
        ),
        (
            {
                "type": "object",
                "properties": {"entry": {"$ref": "#/$defs/entry"}},
                "required": ["entry"],
                "additionalProperties": False,
                "$defs": {"entry": {**ENTRY, "additionalProperties": False}},
            },
            "In context=('$defs', 'entry'), 'required' is required to be supplied and to be an array including every "
            "key in properties. Missing 'item'.",
        ),
    ],
)
def test_a_strict_schema_that_breaks_the_rules_is_refused_in_openais_words(
    gpt: openai.OpenAI, schema: dict[str, Any], words: str
) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-4.1", messages=HI, response_format=strict_form(schema))
    assert openai_refusal(caught) == (
        f"Invalid schema for response_format 'ledger': {words}",
        "response_format",
        "invalid_json_schema",
    )
    with pytest.raises(openai.BadRequestError) as refused:
        form: Any = {"format": {"type": "json_schema", "name": "ledger", "strict": True, "schema": schema}}
        gpt.responses.create(model="gpt-4.1", input="List the costs.", text=form)
    assert openai_refusal(refused) == (
        f"Invalid schema for response_format 'ledger': {words}",
        "text.format.schema",
        "invalid_json_schema",
    )


def test_a_loose_schema_is_taken_where_strict_is_not_asked(gpt: openai.OpenAI) -> None:
    loose: Any = {"type": "json_schema", "json_schema": {"name": "loose", "schema": ENTRY}}
    answer = gpt.chat.completions.create(model="gpt-4.1", messages=HI, response_format=loose)
    assert answer.choices[0].message.content is not None


def test_a_strict_function_tool_needs_a_strict_schema(gpt: openai.OpenAI) -> None:
    tool: Any = {"type": "function", "function": {"name": "book", "strict": True, "parameters": ENTRY}}
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-4.1", messages=HI, tools=[tool])
    assert openai_refusal(caught) == (
        "Invalid schema for function 'book': In context=(), 'additionalProperties' is required to be supplied and "
        "to be false.",
        "tools[0].function.parameters",
        "invalid_function_parameters",
    )
    flat: Any = {"type": "function", "name": "book", "strict": True, "parameters": ENTRY}
    with pytest.raises(openai.BadRequestError) as refused:
        gpt.responses.create(model="gpt-4.1", input="Book it.", tools=[flat])
    assert openai_refusal(refused)[1:] == ("tools[0].parameters", "invalid_function_parameters")


def test_the_sdks_own_strict_helpers_pass(gpt: openai.OpenAI) -> None:
    class Line(pydantic.BaseModel):
        item: str
        cost: float

    class Bill(pydantic.BaseModel):
        lines: list[Line]
        note: str | None

    parsed = gpt.chat.completions.parse(model="gpt-4.1", messages=HI, response_format=Bill)
    assert isinstance(parsed.choices[0].message.parsed, Bill)
    answered = gpt.responses.parse(model="gpt-4.1", input="Bill me.", text_format=Bill)
    assert isinstance(answered.output_parsed, Bill)


def test_json_mode_wants_json_named_in_the_messages(gpt: openai.OpenAI) -> None:
    plain: Any = {"type": "json_object"}
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(
            model="gpt-4.1", messages=[{"role": "user", "content": "List three fruit."}], response_format=plain
        )
    assert openai_refusal(caught) == (
        "'messages' must contain the word 'json' in some form, to use 'response_format' of type 'json_object'.",
        "messages",
        None,
    )
    asked: Any = [{"role": "system", "content": "Reply as Json."}, {"role": "user", "content": "List three fruit."}]
    assert gpt.chat.completions.create(model="gpt-4.1", messages=asked, response_format=plain).choices
    with pytest.raises(openai.BadRequestError) as refused:  # Responses: the instructions do not count
        gpt.responses.create(
            model="gpt-4.1",
            instructions="Answer in JSON.",
            input="List three fruit.",
            text={"format": {"type": "json_object"}},
        )
    assert openai_refusal(refused) == (
        "Response input messages must contain the word 'json' in some form to use 'text.format' of type 'json_object'.",
        "text.format",
        None,
    )
    assert gpt.responses.create(
        model="gpt-4.1", input="Three fruit as JSON, please.", text={"format": {"type": "json_object"}}
    ).output_text


# --- Anthropic's headers and content rules --------------------------------------------------------------------------


def test_anthropic_wants_a_known_version_and_known_betas(server: Server) -> None:
    older = {"anthropic-version": "2022-12-31"}
    with (
        server.anthropic("/anthropic", default_headers=older) as old,
        pytest.raises(anthropic.BadRequestError) as caught,
    ):
        old.messages.create(model="claude-haiku-4-5", max_tokens=20, messages=HI)
    assert claude_refusal(caught).startswith("anthropic-version: '2022-12-31' is not a version this API knows")
    body = {"model": "claude-haiku-4-5", "max_tokens": 20, "messages": HI}
    status, answer = call(server.port, "POST", "/anthropic/v1/messages", body, {"x-api-key": "k"})
    assert (status, answer["error"]["message"]) == (400, "anthropic-version: header is required")
    for version in ("2023-06-01", "2023-01-01"):  # Claude Code's and the documented first
        with server.anthropic("/anthropic", default_headers={"anthropic-version": version}) as client:
            assert client.messages.create(model="claude-haiku-4-5", max_tokens=20, messages=HI).content
    with server.anthropic("/anthropic") as client, pytest.raises(anthropic.BadRequestError) as refused:
        client.beta.messages.create(
            model="claude-haiku-4-5", max_tokens=20, messages=HI, betas=["files-api-2025-04-14", "turbo-2099-01-01"]
        )
    assert claude_refusal(refused) == (
        "Unexpected value(s) `turbo-2099-01-01` for the `anthropic-beta` header. Please consult our documentation at "
        "platform.claude.com/docs or try again without the header."
    )


def test_the_known_betas_hold_every_one_the_sdk_names() -> None:
    from anthropic.types import AnthropicBetaParam

    from emulator.rules import catalog

    def literals(kind: Any) -> set[str]:
        found: set[str] = set()
        for arg in typing.get_args(kind):
            found |= {arg} if isinstance(arg, str) else literals(arg)
        return found

    held = catalog.CATALOGS["anthropic"]
    assert literals(AnthropicBetaParam) - held.known_betas == set()
    assert anthropic._constants.ANTHROPIC_API_VERSION in held.versions


@pytest.mark.parametrize(
    ("messages", "extra", "message"),
    [
        (
            [
                {"role": "user", "content": "Plan it."},
                {"role": "assistant", "content": []},
                {"role": "user", "content": "Go"},
            ],
            {},
            "messages.1: all messages must have non-empty content except for the optional final assistant message",
        ),
        (
            [{"role": "user", "content": [{"type": "text", "text": "Look:"}, {"type": "text", "text": ""}]}],
            {},
            "messages: text content blocks must be non-empty",
        ),
        (
            [{"role": "user", "content": [{"type": "text", "text": " \n\t"}]}],
            {},
            "messages: text content blocks must contain non-whitespace text",
        ),
        (
            [{"role": "user", "content": "Write a haiku."}, {"role": "assistant", "content": "Autumn leaves \n"}],
            {},
            "messages: final assistant content cannot end with trailing whitespace",
        ),
        (
            [
                {
                    "role": "user",
                    "content": [
                        {"type": "text", "text": f"part {i}", "cache_control": {"type": "ephemeral"}} for i in range(3)
                    ],
                }
            ],
            {
                "system": [{"type": "text", "text": "Rules.", "cache_control": {"type": "ephemeral", "ttl": "1h"}}],
                "tools": [{"name": "t", "input_schema": {"type": "object"}, "cache_control": {"type": "ephemeral"}}],
            },
            "A maximum of 4 blocks with cache_control may be provided. Found 5.",
        ),
        (
            [
                {"role": "user", "content": "think"},
                {"role": "assistant", "content": [{"type": "thinking", "thinking": "Hmm."}]},
                {"role": "user", "content": "and?"},
            ],
            {},
            "messages.1.content.0.thinking.signature: Field required",
        ),
    ],
)
def test_messages_content_rules_in_anthropics_words(
    claude: anthropic.Anthropic, messages: Any, extra: dict[str, Any], message: str
) -> None:
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=messages, **extra)
    assert claude_refusal(caught) == message


def test_a_final_assistant_prefill_may_be_empty_or_end_in_a_word(claude: anthropic.Anthropic) -> None:
    for prefill in ("", "The answer is"):
        turns: Any = [{"role": "user", "content": "Answer."}, {"role": "assistant", "content": prefill}]
        assert claude.messages.create(model="claude-haiku-4-5", max_tokens=50, messages=turns).content is not None


def test_a_tool_message_may_carry_the_functions_name_and_nothing_unknown(server: Server) -> None:
    """OpenAI's function-calling examples send a tool result with the function's `name`, and frameworks still do
    (CrewAI through litellm): the openai profile takes it, and still refuses a key nobody documents."""
    call_made = {"id": "call_1", "type": "function", "function": {"name": "tides", "arguments": "{}"}}
    turns: Any = [
        {"role": "user", "content": "When is high tide?"},
        {"role": "assistant", "content": None, "tool_calls": [call_made]},
        {"role": "tool", "tool_call_id": "call_1", "name": "tides", "content": "High tide at 14:10."},
    ]
    with server.openai("/openai") as client:
        assert client.chat.completions.create(model="gpt-4.1", messages=turns).choices[0].message.content
        turns[2]["mood"] = "calm"
        with pytest.raises(openai.BadRequestError, match=r"messages\[2\]\.mood"):
            client.chat.completions.create(model="gpt-4.1", messages=turns)


# --- leniency and the seeds' profiles -------------------------------------------------------------------------------


def test_lenient_lets_nested_unknown_keys_by_and_journals_each(make_server: Any) -> None:
    server = make_server(Settings(profile="openai", lenient=True))
    messages: Any = [{"role": "user", "content": "hi", "mood": "calm"}, {"role": "user", "content": "and", "seq": 2}]
    with server.openai() as client:
        assert client.chat.completions.create(model="gpt-4.1", messages=messages).choices[0].message.content
        with pytest.raises(openai.BadRequestError):  # a required key left out is still refused
            client.chat.completions.create(model="gpt-4.1", messages=[{"role": "tool", "content": "x"}])
    first = call(server.port, "GET", "/_emulator/requests")[1]["requests"][0]
    assert first["lenient"] == ["Unknown parameter: 'messages[0].mood'.", "Unknown parameter: 'messages[1].seq'."]


def test_the_seeds_profiles_still_read_only_what_they_document(server: Server) -> None:
    messages: Any = [{"role": "user", "content": "hi", "mood": "calm"}]
    with server.openai("/inferam") as client:
        assert client.chat.completions.create(model="any-model", messages=messages).choices[0].message.content
