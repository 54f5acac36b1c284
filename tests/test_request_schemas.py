"""The public profiles read the whole body, not just its top: a key the API does not know, a required key left out
or a `type` it has no member for is refused wherever it stands, with its path in each API's own form; and the
request schemas hold everything the pinned SDKs send."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import anthropic
import openai
import pytest

from emulator.core import yamlfile
from emulator.http.app import Settings
from emulator.rules import schema
from tests.conftest import Server, call, serve
from tests.sdk_schemas import Ref, render, sdk_schemas

HI: Any = [{"role": "user", "content": "Say hi."}]
PNG = "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="


@pytest.fixture(scope="module")
def server() -> Iterator[Server]:
    yield from serve(Settings())


def openai_refusal(caught: pytest.ExceptionInfo[openai.BadRequestError]) -> tuple[str, str, str]:
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
    sdk = sdk_schemas(file)
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
