"""What the public APIs keep between calls, end to end through the official SDKs: OpenAI's stored responses
(`/openai`), Anthropic's message threads (`/anthropic`), and Inferam's refusals of both (it keeps nothing)."""

from __future__ import annotations

import http.client
import json
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest
from anthropic import beta_tool
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.http.app import Settings
from emulator.state.kept import Bounds
from tests.conftest import Server

FIXTURES = Path(__file__).parent / "fixtures"
WEATHER: Any = {  # the bundled `weather-agent` scenario matches this tool and a question about the weather
    "type": "function",
    "name": "get_weather",
    "description": "The weather in a city.",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]},
}
QUESTION = "What is the weather in Paris?"
ANSWER = "It is 18 °C and sunny in Paris."  # the scenario's second step


def post(server: Server, path: str, body: bytes | dict[str, Any], **headers: str) -> tuple[int, Any]:
    """A raw POST, as a client other than the SDKs sends it; the status and the JSON answer."""
    raw = body if isinstance(body, bytes) else json.dumps(body).encode()
    connection = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        connection.request("POST", path, raw, {"content-type": "application/json", **headers})
        response = connection.getresponse()
        return response.status, json.loads(response.read())
    finally:
        connection.close()


def message(error: openai.APIStatusError) -> str:
    """The error's own message, as the body says it (the SDK's adds the status before it)."""
    assert isinstance(error.body, dict)
    return str(error.body["message"])


# --- stored responses ---------------------------------------------------------------------------------------


def test_previous_response_id_goes_on_from_the_stored_conversation(gpt: openai.OpenAI) -> None:
    first = gpt.responses.create(model="gpt-5", input=QUESTION, tools=[WEATHER])
    call = first.output[-1]
    assert first.store is True and call.type == "function_call" and json.loads(call.arguments) == {"city": "Paris"}
    result: Any = [{"type": "function_call_output", "call_id": call.call_id, "output": "18 C, sunny"}]
    second = gpt.responses.create(model="gpt-5", previous_response_id=first.id, input=result, tools=[WEATHER])
    assert second.output_text == ANSWER  # the scenario's step 2: it counted the stored assistant turn
    assert second.previous_response_id == first.id and second.store is True


def test_the_default_answer_sees_the_stored_conversation(gpt: openai.OpenAI) -> None:
    first = gpt.responses.create(model="gpt-5", input="Tell me about rate limits.")
    with gpt.responses.stream(model="gpt-5", previous_response_id=first.id, input="And about retries?") as stream:
        streamed = stream.get_final_response()
    whole: Any = [
        {"role": "user", "content": "Tell me about rate limits."},
        *(item.model_dump(exclude_none=True) for item in first.output),
        {"role": "user", "content": "And about retries?"},
    ]
    stateless = gpt.responses.create(model="gpt-5", input=whole, store=False)
    alone = gpt.responses.create(model="gpt-5", input="And about retries?", store=False)
    assert streamed.output_text == stateless.output_text != alone.output_text
    assert streamed.previous_response_id == first.id and stateless.store is False


def test_retrieve_list_input_items_and_delete(gpt: openai.OpenAI) -> None:
    first = gpt.responses.create(model="gpt-5", input=QUESTION, tools=[WEATHER])
    call = first.output[-1]
    result: Any = [{"type": "function_call_output", "call_id": call.call_id, "output": "18 C"}]
    second = gpt.responses.create(model="gpt-5", previous_response_id=first.id, input=result, tools=[WEATHER])
    assert gpt.responses.retrieve(second.id) == second
    items = list(gpt.responses.input_items.list(second.id, order="asc", limit=1))  # one a page: the SDK pages on
    assert [i.type for i in items] == ["message", "reasoning", "function_call", "function_call_output"]
    assert items[0].content[0].text == QUESTION and items[1].id == first.output[0].id and items[2].id == call.id
    newest = gpt.responses.input_items.list(second.id)  # newest first, by default
    assert [i.id for i in newest.data] == [i.id for i in reversed(items)] and newest.has_more is False
    gpt.responses.delete(second.id)
    with pytest.raises(openai.NotFoundError) as caught:
        gpt.responses.retrieve(second.id)
    assert message(caught.value) == f"Response with id '{second.id}' not found."
    with pytest.raises(openai.NotFoundError):
        gpt.responses.delete(second.id)
    with pytest.raises(openai.BadRequestError) as refused:
        gpt.responses.create(model="gpt-5", previous_response_id=second.id, input="hi")
    assert refused.value.code == "previous_response_not_found" and refused.value.param == "previous_response_id"
    assert message(refused.value) == f"Previous response with id '{second.id}' not found."


def test_store_false_keeps_nothing(gpt: openai.OpenAI) -> None:
    response = gpt.responses.create(model="gpt-5", input="hi", store=False)
    assert response.store is False
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.create(model="gpt-5", previous_response_id=response.id, input="again")
    assert caught.value.code == "previous_response_not_found"
    with pytest.raises(openai.NotFoundError):
        gpt.responses.retrieve(response.id)


def test_a_response_is_its_key_s_and_test_s_until_reset(server: Server, gpt: openai.OpenAI, test_id: str) -> None:
    response = gpt.responses.create(model="gpt-5", input="hi")
    with server.openai("/openai", api_key="sk-other") as other, pytest.raises(openai.BadRequestError):
        other.responses.create(model="gpt-5", previous_response_id=response.id, input="again")
    with server.openai("/openai") as no_test_id, pytest.raises(openai.NotFoundError):
        no_test_id.responses.retrieve(response.id)
    assert gpt.responses.retrieve(response.id).id == response.id
    assert post(server, "/_emulator/reset", b"", **{"x-emulator-test-id": test_id})[0] == 200
    with pytest.raises(openai.NotFoundError):
        gpt.responses.retrieve(response.id)


def test_an_expired_response_is_not_found(make_server: Any) -> None:
    server = make_server(Settings(kept=Bounds(ttl=0)))  # everything expires as it is kept
    with server.openai("/openai") as gpt:
        response = gpt.responses.create(model="gpt-5", input="hi")
        with pytest.raises(openai.BadRequestError) as caught:
            gpt.responses.create(model="gpt-5", previous_response_id=response.id, input="again")
    assert caught.value.code == "previous_response_not_found"


def test_an_item_reference_to_an_item_not_stored_is_a_404(gpt: openai.OpenAI) -> None:
    with pytest.raises(openai.NotFoundError) as caught:
        gpt.responses.create(model="gpt-5", input=[{"type": "item_reference", "id": "rs_unknown"}])
    assert message(caught.value).startswith("Item with id 'rs_unknown' not found.")


@pytest.mark.parametrize("scenarios", [True, False], ids=["steps scenario", "default answer"])
def test_the_vercel_ai_sdk_step_two_resolves_its_item_reference(
    server: Server, make_server: Any, test_id: str, scenarios: bool
) -> None:
    """The Vercel AI SDK's tool loop, as it sent it (captured once from the real SDK): step 2 names the step-1
    reasoning item by reference. Its id is the emulator's (seed 0), so step 1 is replayed first to store it."""
    target = server if scenarios else make_server(Settings())
    fixture = json.loads((FIXTURES / "vercel-ai-tool-loop.json").read_text())
    step1, step2 = fixture["requests"]
    headers = step1["headers"] | {"x-emulator-test-id": test_id}
    status, first = post(target, step1["path"], step1["body"].encode(), **headers)
    assert status == 200 and first["output"][0]["id"] == json.loads(step2["body"])["input"][1]["id"]
    status, second = post(target, step2["path"], step2["body"].encode(), **headers)
    assert status == 200, second
    text = second["output"][-1]["content"][0]["text"]
    assert text == ANSWER if scenarios else text
    # Inferam stores nothing: the same request is refused there, as before (the SDK needs `store: false`).
    status, refused = post(target, "/inferam/v1/responses", step2["body"].encode(), **headers)
    assert status == 400 and refused["error"]["param"] == "input[1].type"


def test_inferam_keeps_no_responses(server: Server) -> None:
    with server.openai("/inferam") as inferam:
        response = inferam.responses.create(model="m", input="hi", store=True)
        assert response.store is False
        with pytest.raises(openai.BadRequestError) as caught:
            inferam.responses.create(model="m", input="hi", previous_response_id=response.id)
        assert caught.value.param == "previous_response_id"
        with pytest.raises(openai.NotFoundError) as missing:
            inferam.responses.retrieve(response.id)
        assert missing.value.code == "unknown_url"


# --- message threads ----------------------------------------------------------------------------------------


@beta_tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"18 C and sunny in {city}"


class Sent:
    """The bodies an SDK client sends, through an event hook of its HTTP client."""

    def __init__(self) -> None:
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: Any) -> None:
        self.bodies.append(json.loads(request.content))


def run_tools(server: Server, prefix: str, test_id: str, question: str, **options: Any) -> tuple[list[Any], Sent]:
    """The Python SDK's tool runner with `get_weather`, run to its end: its replies, and the bodies it sent."""
    sent = Sent()
    hook = anthropic.DefaultHttpxClient(event_hooks={"request": [sent]})
    with server.anthropic(prefix, default_headers={"x-emulator-test-id": test_id}, http_client=hook) as client:
        runner = client.beta.messages.tool_runner(
            model="claude-sonnet-5",
            max_tokens=1024,
            tools=[get_weather],
            messages=[{"role": "user", "content": question}],
            **options,
        )
        return list(runner), sent


def test_the_tool_runner_threads_a_steps_scenario(server: Server, test_id: str) -> None:
    replies, sent = run_tools(server, "/anthropic", test_id, QUESTION)
    assert [r.stop_reason for r in replies] == ["tool_use", "end_turn"] and replies[-1].content[0].text == ANSWER
    create, go_on = sent.bodies
    assert create["thread"] == {"type": "create"}
    assert go_on["thread"] == {"type": "continue", "previous_message_id": replies[0].id}
    assert "tools" not in go_on and [m["content"][0]["type"] for m in go_on["messages"]] == ["tool_result"]


def test_the_tool_runner_threads_the_default_answer(server: Server, test_id: str) -> None:
    """The default answer calls a tool whenever `tool_choice` requires one: each turn is a `continue` without
    tools, answered with the thread's tools (else it could call none)."""
    question = "What is it like in Oslo today?"
    replies, sent = run_tools(server, "/anthropic", test_id, question, tool_choice={"type": "any"}, max_iterations=3)
    assert [r.content[-1].type for r in replies] == ["tool_use"] * 3
    assert len({r.content[-1].id for r in replies}) == 3  # each turn a new conversation, a new call
    assert all(r.content[-1].input == {"city": "Oslo"} for r in replies)  # the question's city (issue 14)
    assert [b["thread"]["type"] for b in sent.bodies] == ["create", "continue", "continue"]


def test_a_thread_answers_as_its_whole_conversation_would(claude: anthropic.Anthropic) -> None:
    thread = claude.beta.messages.thread(model="claude-sonnet-5", max_tokens=400, system="Be brief.")
    first = thread.send({"role": "user", "content": "Tell me about rate limits."})
    second = thread.send({"role": "user", "content": "And about retries?"})
    whole: Any = [
        {"role": "user", "content": "Tell me about rate limits."},
        {"role": "assistant", "content": first.content},
        {"role": "user", "content": "And about retries?"},
    ]
    stateless = claude.messages.create(model="claude-sonnet-5", max_tokens=400, system="Be brief.", messages=whole)
    assert second.content[0].to_dict() == stateless.content[0].to_dict() and thread.previous_message_id == second.id


def test_a_lost_thread_is_replayed_whole_by_the_sdk(server: Server, claude: anthropic.Anthropic, test_id: str) -> None:
    thread = claude.beta.messages.thread(model="claude-sonnet-5", max_tokens=400)
    first = thread.send({"role": "user", "content": "Tell me about rate limits."})
    assert post(server, "/_emulator/reset", b"", **{"x-emulator-test-id": test_id})[0] == 200  # the thread is lost
    second = thread.send({"role": "user", "content": "And about retries?"})  # thread_not_found, then a new thread
    assert second.id != first.id and thread.previous_message_id == second.id
    with pytest.raises(anthropic.NotFoundError) as caught:
        claude.beta.messages.create(
            model="claude-sonnet-5",
            max_tokens=400,
            messages=[{"role": "user", "content": "hi"}],
            thread={"type": "continue", "previous_message_id": "msg_unknown"},
            betas=["message-threads-2026-08-12"],
        )
    assert caught.value.error_code == "thread_not_found"


def test_a_message_is_continued_once_but_a_retry_gets_its_answer_again(claude: anthropic.Anthropic) -> None:
    betas: Any = ["message-threads-2026-08-12"]
    start = claude.beta.messages.create(
        model="claude-sonnet-5",
        max_tokens=400,
        messages=[{"role": "user", "content": "Tell me about rate limits."}],
        thread={"type": "create"},
        betas=betas,
    )

    def go_on(text: str, **headers: str) -> Any:
        return claude.beta.messages.create(
            model="claude-sonnet-5",
            max_tokens=400,
            messages=[{"role": "user", "content": text}],
            thread={"type": "continue", "previous_message_id": start.id},
            betas=betas,
            extra_headers=headers,
        )

    answer = go_on("And about retries?", **{"idempotency-key": "call-1"})
    assert go_on("And about retries?", **{"x-stainless-retry-count": "1"}) == answer  # a retry of the same body
    assert go_on("And about retries?", **{"idempotency-key": "call-1"}) == answer  # the same call again
    with pytest.raises(anthropic.BadRequestError) as caught:
        go_on("And about backoff?")
    assert caught.value.error_code == "thread_already_continued"
    with pytest.raises(anthropic.BadRequestError) as again:
        go_on("And about retries?")  # the same body, but a new call: not a retry
    assert again.value.error_code == "thread_already_continued"


def test_a_thread_needs_its_beta_and_keeps_its_system_and_tools(claude: anthropic.Anthropic) -> None:
    hi: Any = [{"role": "user", "content": "hi"}]
    with pytest.raises(anthropic.BadRequestError) as caught:
        claude.messages.create(
            model="claude-sonnet-5", max_tokens=9, messages=hi, extra_body={"thread": {"type": "create"}}
        )
    assert "anthropic-beta: message-threads-2026-08-12" in caught.value.message
    betas: Any = ["message-threads-2026-08-12"]
    start = claude.beta.messages.create(
        model="claude-sonnet-5", max_tokens=9, messages=hi, thread={"type": "create"}, betas=betas
    )
    with pytest.raises(anthropic.BadRequestError) as refused:
        claude.beta.messages.create(
            model="claude-sonnet-5",
            max_tokens=9,
            system="Be brief.",
            messages=hi,
            thread={"type": "continue", "previous_message_id": start.id},
            betas=betas,
        )
    assert "'system' cannot be sent with a thread continue" in refused.value.message
    unknown_block: Any = [{"role": "user", "content": [{"type": "nope"}]}]
    with pytest.raises(anthropic.BadRequestError) as named:
        claude.beta.messages.create(
            model="claude-sonnet-5",
            max_tokens=9,
            messages=unknown_block,
            thread={"type": "continue", "previous_message_id": start.id},
            betas=betas,
        )
    assert "messages.0.content.0: Input tag 'nope'" in named.value.message  # the index as sent, not after the history


def test_inferam_refuses_threads_and_the_tool_runner_goes_on_without(server: Server, test_id: str) -> None:
    with server.anthropic("/inferam") as client, pytest.raises(anthropic.BadRequestError) as caught:
        client.beta.messages.create(
            model="m",
            max_tokens=9,
            messages=[{"role": "user", "content": "hi"}],
            thread={"type": "create"},
            betas=["message-threads-2026-08-12"],
        )
    body = caught.value.body
    assert isinstance(body, dict)
    assert body["error"]["details"] == {"error_code": "thread_unsupported_request", "unsupported": ["thread"]}
    replies, sent = run_tools(server, "/inferam", test_id, QUESTION)
    assert replies[-1].content[-1].type == "text" and replies[-1].content[-1].text == ANSWER
    assert ["thread" in b for b in sent.bodies] == [True, False, False]  # refused, then the whole history


# --- whatever a client sends ----------------------------------------------------------------------------------

values = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=8), st.lists(st.text(max_size=4), max_size=2)
)
references = st.fixed_dictionaries({"type": st.just("item_reference")}, optional={"id": values})
threads = st.fixed_dictionaries(
    {}, optional={"type": st.sampled_from(["create", "continue", "fork", 3]), "previous_message_id": values}
)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    previous=values,
    store=values,
    inputs=st.lists(references | st.fixed_dictionaries({"role": values, "content": values}), max_size=3) | values,
    thread=threads | values,
    messages=st.lists(st.fixed_dictionaries({"role": st.just("user"), "content": values}), max_size=2) | values,
)
def test_what_is_kept_is_never_a_5xx(
    connection: http.client.HTTPConnection, previous: Any, store: Any, inputs: Any, thread: Any, messages: Any
) -> None:
    headers = {"content-type": "application/json", "authorization": "Bearer sk-test"}
    responses = {"model": "gpt-5", "input": inputs, "previous_response_id": previous, "store": store}
    beta = headers | {"anthropic-beta": "message-threads-2026-08-12"}
    asked = {"model": "m", "max_tokens": 9, "messages": messages, "thread": thread}
    for path, body, sent in [
        ("/openai/v1/responses", responses, headers),
        ("/anthropic/v1/messages", asked, beta),
        ("/inferam/v1/messages", asked, beta),
    ]:
        connection.request("POST", path, json.dumps(body), sent)
        response = connection.getresponse()
        payload = response.read()
        assert response.status < 500, payload
