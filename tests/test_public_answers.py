"""What the public OpenAI API answers beyond one plain choice, through the official SDK in strict validation mode:
`n` choices, token logprobs (Chat and Responses), `name` on a streamed function call's arguments; and Inferam's
seed, which ignores `n` and `logprobs` (seed 000)."""

from __future__ import annotations

import json
import time
from typing import Any

import anthropic
import openai
import pytest

from emulator.http.app import Settings
from tests.conftest import FROZEN, Server

LOGPROBS: Any = ["message.output_text.logprobs"]


def said(question: str) -> Any:
    return [{"role": "user", "content": question}]


def check_logprobs(entries: Any, text: str, top: int) -> None:
    """The contract of every logprobs list: tokens that make the text, logprobs <= 0, `bytes` each token's UTF-8,
    `top` alternatives sorted descending with the chosen token first among them."""
    assert "".join(e.token for e in entries) == text and entries
    for entry in entries:
        assert entry.logprob <= 0 and entry.bytes == list(entry.token.encode())
        assert len(entry.top_logprobs) == top
        if top:
            assert entry.top_logprobs[0].token == entry.token and entry.top_logprobs[0].logprob == entry.logprob
        ranked = [t.logprob for t in entry.top_logprobs]
        assert ranked == sorted(ranked, reverse=True) and all(p <= 0 for p in ranked)
        assert len({t.token for t in entry.top_logprobs}) == len(entry.top_logprobs)
        assert all(t.bytes == list(t.token.encode()) for t in entry.top_logprobs)
        assert sum(2.718281828459045**p for p in ranked) <= 1.0 + 1e-9  # probabilities of one position


# --- n ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 5])
def test_n_choices_each_their_own_answer_choice_0_the_single_one(gpt: openai.OpenAI, n: int) -> None:
    question = said("Explain how a bloom filter decides membership.")
    one = gpt.chat.completions.create(model="gpt-4.1", messages=question)
    many = gpt.chat.completions.create(model="gpt-4.1", messages=question, n=n)
    texts = [c.message.content for c in many.choices]
    assert [c.index for c in many.choices] == list(range(n))
    assert texts[0] == one.choices[0].message.content
    assert len(set(texts)) > 1  # sampled afresh: not one answer repeated
    again = gpt.chat.completions.create(model="gpt-4.1", messages=question, n=n)
    assert [c.message.content for c in again.choices] == texts  # deterministic


def test_n_counts_every_choice_s_tokens(gpt: openai.OpenAI) -> None:
    question = said("Name three uses of a hash map.")
    one = gpt.chat.completions.create(model="gpt-4.1", messages=question)
    three = gpt.chat.completions.create(model="gpt-4.1", messages=question, n=3)
    assert one.usage and three.usage
    assert three.usage.prompt_tokens == one.usage.prompt_tokens
    assert three.usage.completion_tokens > one.usage.completion_tokens


def test_n_streamed_as_the_whole_answer(gpt: openai.OpenAI) -> None:
    question = said("What does a write-ahead log protect against?")
    whole = gpt.chat.completions.create(model="gpt-4.1", messages=question, n=3)
    with gpt.chat.completions.stream(model="gpt-4.1", messages=question, n=3) as stream:
        streamed = stream.get_final_completion()
    assert [c.message.content for c in streamed.choices] == [c.message.content for c in whole.choices]
    assert [c.finish_reason for c in streamed.choices] == ["stop"] * 3


def test_a_scenario_s_reply_in_every_choice(gpt: openai.OpenAI) -> None:
    asked = said("What is the weather in Paris?")
    weather: Any = [
        {
            "type": "function",
            "function": {"name": "get_weather", "parameters": {"type": "object", "properties": {}}},
        }
    ]
    answer = gpt.chat.completions.create(model="gpt-4.1", messages=asked, tools=weather, n=2)
    calls = [c.message.tool_calls for c in answer.choices]
    assert all(c and c[0].type == "function" and c[0].function.name == "get_weather" for c in calls)
    assert [c.finish_reason for c in answer.choices] == ["tool_calls", "tool_calls"]


def test_n_out_of_range_is_refused(gpt: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-4.1", messages=said("hi"), n=129)
    assert caught.value.param == "n" and caught.value.code == "integer_above_max_value"  # OpenAI's own code
    assert "Expected a value <= 128, but got 129 instead." in caught.value.message


def test_inferam_ignores_n_and_logprobs(server: Server) -> None:
    with server.openai() as inferam:
        answer = inferam.chat.completions.create(
            model="DeepSeek-V4.1-Flash-1017", messages=said("hi"), n=3, logprobs=True, top_logprobs=2
        )
    assert len(answer.choices) == 1 and answer.choices[0].logprobs is None


# --- logprobs on Chat --------------------------------------------------------------------------------------


@pytest.mark.parametrize("top", [0, 1, 4, 20])
def test_chat_logprobs(gpt: openai.OpenAI, top: int) -> None:
    question = said(f"Summarise the CAP theorem in {top + 2} sentences.")
    answer = gpt.chat.completions.create(model="gpt-4.1", messages=question, logprobs=True, top_logprobs=top)
    choice = answer.choices[0]
    assert choice.logprobs and choice.logprobs.content and choice.message.content
    check_logprobs(choice.logprobs.content, choice.message.content, top)
    again = gpt.chat.completions.create(model="gpt-4.1", messages=question, logprobs=True, top_logprobs=top)
    assert again.choices[0].logprobs == choice.logprobs


def test_chat_logprobs_streamed_are_the_whole_answer_s(gpt: openai.OpenAI) -> None:
    question = said("Why do caches need an eviction policy? Écris aussi un mot en français 🙂.")
    whole = gpt.chat.completions.create(model="gpt-4.1", messages=question, logprobs=True, top_logprobs=3, n=2)
    chunks = list(
        gpt.chat.completions.create(model="gpt-4.1", messages=question, logprobs=True, top_logprobs=3, n=2, stream=True)
    )
    for choice in whole.choices:
        streamed = [
            e
            for chunk in chunks
            for c in chunk.choices
            if c.index == choice.index and c.logprobs and c.logprobs.content
            for e in c.logprobs.content
        ]
        deltas = "".join(c.delta.content or "" for chunk in chunks for c in chunk.choices if c.index == choice.index)
        assert choice.logprobs and streamed == choice.logprobs.content
        assert deltas == choice.message.content
        check_logprobs(streamed, deltas, 3)
    assert whole.choices[0].logprobs != whole.choices[1].logprobs


def test_chat_without_logprobs_has_none(gpt: openai.OpenAI) -> None:
    answer = gpt.chat.completions.create(model="gpt-4.1", messages=said("hi"), logprobs=False)
    assert answer.choices[0].logprobs is None


@pytest.mark.parametrize(
    ("fields", "param"),
    [({"top_logprobs": 2}, "top_logprobs"), ({"logprobs": True, "top_logprobs": 21}, "top_logprobs")],
)
def test_chat_logprobs_refusals(gpt: openai.OpenAI, fields: dict[str, Any], param: str) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.chat.completions.create(model="gpt-4.1", messages=said("hi"), **fields)
    assert caught.value.param == param
    if "logprobs" not in fields:  # OpenAI's own words
        assert isinstance(caught.value.body, dict)
        expected = "The 'top_logprobs' parameter is only allowed when 'logprobs' is enabled."
        assert caught.value.body["message"] == expected


# --- logprobs on Responses ---------------------------------------------------------------------------------


@pytest.mark.parametrize("top", [0, 3])
def test_responses_logprobs(gpt: openai.OpenAI, top: int) -> None:
    question = "List two ways to shard a database."
    response = gpt.responses.create(model="gpt-4.1", input=question, include=LOGPROBS, top_logprobs=top)
    (message,) = [item for item in response.output if item.type == "message"]
    part = message.content[0]
    assert part.type == "output_text" and part.logprobs is not None
    check_logprobs(part.logprobs, part.text, top)
    assert response.top_logprobs == top
    chat = gpt.chat.completions.create(model="gpt-4.1", messages=said(question), logprobs=True, top_logprobs=top)
    assert chat.choices[0].message.content == part.text  # the same conversation, the same answer and logprobs
    assert chat.choices[0].logprobs and [e.logprob for e in chat.choices[0].logprobs.content or []] == [
        e.logprob for e in part.logprobs
    ]


def test_responses_logprobs_streamed(gpt: openai.OpenAI) -> None:
    question = "What is backpressure in a stream?"
    whole = gpt.responses.create(model="gpt-4.1", input=question, include=LOGPROBS, top_logprobs=2, store=False)
    with gpt.responses.stream(model="gpt-4.1", input=question, include=LOGPROBS, top_logprobs=2) as stream:
        deltas = [e for e in stream if e.type == "response.output_text.delta"]
        final = stream.get_final_response()
    expected = [item for item in whole.output if item.type == "message"][0].content[0]
    assert expected.type == "output_text" and expected.logprobs
    assert [d.delta for d in deltas] == [e.token for e in expected.logprobs]
    assert [d.logprobs[0].logprob for d in deltas] == [e.logprob for e in expected.logprobs]
    assert all(d.logprobs[0].top_logprobs and len(d.logprobs[0].top_logprobs) == 2 for d in deltas)
    streamed = [item for item in final.output if item.type == "message"][0].content[0]
    assert streamed.type == "output_text" and streamed.text == expected.text and streamed.logprobs == expected.logprobs


def test_responses_without_include_has_empty_logprobs(gpt: openai.OpenAI) -> None:
    response = gpt.responses.create(model="gpt-4.1", input="hi", store=False)
    part = [item for item in response.output if item.type == "message"][0].content[0]
    assert part.type == "output_text" and part.logprobs == []


# --- name on function_call_arguments.done --------------------------------------------------------------------


def test_function_call_arguments_done_names_the_function(gpt: openai.OpenAI) -> None:
    tool: Any = {
        "type": "function",
        "name": "track_parcel",
        "description": "Where a parcel is, by its tracking number.",
        "parameters": {"type": "object", "properties": {"parcel": {"type": "string"}}, "required": ["parcel"]},
    }
    events = list(
        gpt.responses.create(
            model="gpt-4.1", input="Where is parcel 4411?", tools=[tool], tool_choice="required", stream=True
        )
    )
    (done,) = [e for e in events if e.type == "response.function_call_arguments.done"]
    (item,) = [e.item for e in events if e.type == "response.output_item.done" and e.item.type == "function_call"]
    assert item.type == "function_call"
    assert done.to_dict()["name"] == item.name == "track_parcel"
    assert json.loads(done.arguments) == json.loads(item.arguments)


# --- POST /v1/responses/input_tokens -------------------------------------------------------------------------


def test_input_tokens_equal_what_the_answer_reports(gpt: openai.OpenAI) -> None:
    tool: Any = {"type": "function", "name": "convert_currency", "parameters": {"type": "object", "properties": {}}}
    asked: Any = {"input": "How many yen is 40 euros?", "instructions": "Answer in one line.", "tools": [tool]}
    counted = gpt.responses.input_tokens.count(model="gpt-4.1", **asked)
    assert counted.object == "response.input_tokens"
    response = gpt.responses.create(model="gpt-4.1", **asked)
    assert response.usage and counted.input_tokens == response.usage.input_tokens
    # A response that called the tool goes on with the call's output (the API refuses it without), then the question.
    outputs = [
        {"type": "function_call_output", "call_id": item.call_id, "output": "40 EUR = 6,480 JPY"}
        for item in response.output
        if item.type == "function_call"
    ]
    more: Any = [*outputs, {"role": "user", "content": "And 90?"}]
    going_on = gpt.responses.input_tokens.count(model="gpt-4.1", previous_response_id=response.id, input=more)
    after = gpt.responses.create(model="gpt-4.1", previous_response_id=response.id, input=more)
    # The history counts (neither instructions nor tools carry over a previous_response_id, so it need not exceed
    # the first request's count): more than the new input alone.
    alone = gpt.responses.input_tokens.count(model="gpt-4.1", input="And 90?")
    assert after.usage and going_on.input_tokens == after.usage.input_tokens > alone.input_tokens


def test_input_tokens_of_nothing_and_of_items(gpt: openai.OpenAI) -> None:
    empty = gpt.responses.input_tokens.count()  # every field is optional
    alone = gpt.responses.input_tokens.count(input=[{"role": "user", "content": "A short question?"}])
    longer = gpt.responses.input_tokens.count(input=[{"role": "user", "content": "A short question? " * 40}])
    assert 0 < empty.input_tokens < alone.input_tokens < longer.input_tokens


def test_input_tokens_refusals(gpt: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.input_tokens.count(model="gpt-4.1", previous_response_id="resp_never_made", input="hi")
    assert caught.value.param == "previous_response_id" and caught.value.code == "previous_response_not_found"
    with pytest.raises(openai.BadRequestError) as wrong:
        gpt.responses.input_tokens.count(model="gpt-4.1", input=42)  # type: ignore[arg-type]
    assert wrong.value.param == "input"


def test_input_tokens_is_openai_s_alone(server: Server) -> None:
    with server.openai() as inferam, pytest.raises(openai.NotFoundError):
        inferam.responses.input_tokens.count(model="DeepSeek-V4.1-Flash-1017", input="hi")


# --- encrypted_content on reasoning items -------------------------------------------------------------------

SEALED: Any = ["reasoning.encrypted_content"]


def reasoning_of(response: Any) -> Any:
    (item,) = [i for i in response.output if i.type == "reasoning"]
    return item


def test_encrypted_content_only_when_include_asks(gpt: openai.OpenAI) -> None:
    plain = gpt.responses.create(model="gpt-5", input="Why do hash tables resize?", store=False)
    sealed = gpt.responses.create(model="gpt-5", input="Why do hash tables resize?", store=False, include=SEALED)
    assert reasoning_of(plain).encrypted_content is None
    token = reasoning_of(sealed).encrypted_content
    assert token and token.startswith("gAAAAA") and reasoning_of(sealed).summary == []  # opaque: no text shows
    with gpt.responses.stream(model="gpt-5", input="Why do tries save space?", include=SEALED) as stream:
        done = [e.item for e in stream if e.type == "response.output_item.done" and e.item.type == "reasoning"]
        final = stream.get_final_response()
    assert done[0].encrypted_content and reasoning_of(final).encrypted_content == done[0].encrypted_content


def test_encrypted_content_is_reproducible_run_to_run(make_server: Any) -> None:
    def token() -> str:
        server = make_server(Settings(frozen_time=FROZEN))
        with server.openai("/openai") as client:
            made = client.responses.create(model="gpt-5", input="What is a skip list?", include=SEALED, store=False)
        return str(reasoning_of(made).encrypted_content)

    assert token() == token()


def test_returned_reasoning_counts_as_the_conversation_s(gpt: openai.OpenAI) -> None:
    """A stateless client sends the reasoning back sealed: it is read, and counted as the conversation's."""
    question = "How does a B-tree stay balanced?"
    first = gpt.responses.create(model="gpt-5", input=question, include=SEALED, store=False)
    history: Any = [{"role": "user", "content": question}, *(i.model_dump(exclude_none=True) for i in first.output)]
    follow: Any = [*history, {"role": "user", "content": "And on deletion?"}]
    sent_back = gpt.responses.create(model="gpt-5", input=follow, include=SEALED, store=False)
    dropped: Any = [{k: v for k, v in item.items() if k != "encrypted_content"} for item in follow]
    without = gpt.responses.create(model="gpt-5", input=dropped, store=False)
    assert sent_back.usage and without.usage and first.usage
    reasoning = first.usage.output_tokens_details.reasoning_tokens
    assert sent_back.usage.input_tokens == without.usage.input_tokens + reasoning > without.usage.input_tokens
    assert sent_back.output_text == without.output_text


@pytest.mark.parametrize("spoil", ["not a token", "gAAAAABthisisnotoneofours==", "tamper", ""])
def test_anything_else_in_encrypted_content_is_refused(gpt: openai.OpenAI, spoil: str) -> None:
    first = gpt.responses.create(model="gpt-5", input="What is a heap?", include=SEALED, store=False)
    item = reasoning_of(first).model_dump(exclude_none=True)
    token = item["encrypted_content"]
    middle = len(token) // 2
    flipped = token[:middle] + ("A" if token[middle] != "A" else "B") + token[middle + 1 :]
    item["encrypted_content"] = flipped if spoil == "tamper" else spoil
    sent: Any = [{"role": "user", "content": "What is a heap?"}, item, {"role": "user", "content": "And a treap?"}]
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.create(model="gpt-5", input=sent, store=False)
    assert caught.value.code == "invalid_encrypted_content" and caught.value.param is None
    assert isinstance(caught.value.body, dict) and caught.value.body["message"].endswith("could not be verified.")
    assert caught.value.body["type"] == "invalid_request_error"


def test_inferam_ignores_encrypted_content(server: Server) -> None:
    sent: Any = [
        {"role": "user", "content": "hi"},
        {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": "anything at all"},
        {"role": "user", "content": "again"},
    ]
    with server.openai() as inferam:
        answer = inferam.responses.create(model="DeepSeek-V4.1-Flash-1017", input=sent, include=SEALED)
    assert all(i.encrypted_content is None for i in answer.output if i.type == "reasoning")


def test_a_stored_conversation_counts_its_reasoning_as_a_stateless_one_does(gpt: openai.OpenAI) -> None:
    question = "How does a log-structured merge tree compact?"
    first = gpt.responses.create(model="gpt-5", input=question)  # stored; its reasoning shown to nobody
    stored = gpt.responses.create(model="gpt-5", previous_response_id=first.id, input="And why?")
    sealed = gpt.responses.create(model="gpt-5", input=question, include=SEALED, store=False)
    history: Any = [{"role": "user", "content": question}, *(i.model_dump(exclude_none=True) for i in sealed.output)]
    stateless = gpt.responses.create(model="gpt-5", input=[*history, {"role": "user", "content": "And why?"}])
    assert stored.usage and stateless.usage and stored.usage.input_tokens == stateless.usage.input_tokens
    assert stored.output_text == stateless.output_text
    assert reasoning_of(gpt.responses.retrieve(first.id)).encrypted_content is None  # as it was answered


# --- background responses -------------------------------------------------------------------------------------


def paced(latency_ms: int, tokens_per_second: float) -> Any:
    return {"x-emulator-timing": f"latency_ms={latency_ms};tokens_per_second={tokens_per_second}"}


def test_a_background_response_is_queued_then_in_progress_then_completed(gpt: openai.OpenAI) -> None:
    question = "Describe how a rate limiter refills its bucket."
    whole = gpt.responses.create(model="gpt-4.1", input=question, store=False)
    assert whole.usage
    # queued for 1.5 s, then about a second of generating: a clear in-progress phase at any machine's speed
    pace = paced(1500, whole.usage.output_tokens)
    started = time.monotonic()
    made = gpt.responses.create(model="gpt-4.1", input=question, background=True, extra_headers=pace)
    assert time.monotonic() - started < 1.5  # answered at once, not after the 2.5 s its pacing takes
    assert made.status == "queued" and made.background is True and made.output == [] and made.usage is None
    seen: list[str | None] = [made.status]
    while seen[-1] != "completed" and time.monotonic() - started < 30:
        polled = gpt.responses.retrieve(made.id)
        if polled.status != seen[-1]:
            seen.append(polled.status)
        time.sleep(0.05)
    assert seen == ["queued", "in_progress", "completed"]
    done = gpt.responses.retrieve(made.id)
    assert (
        done.output_text == whole.output_text and done.usage and done.usage.output_tokens == whole.usage.output_tokens
    )


def test_cancel_stops_a_background_response(gpt: openai.OpenAI) -> None:
    made = gpt.responses.create(
        model="gpt-4.1", input="A long essay on B-trees.", background=True, extra_headers=paced(60_000, 1)
    )
    cancelled = gpt.responses.cancel(made.id)
    assert cancelled.id == made.id and cancelled.status == "cancelled" and cancelled.output == []
    assert gpt.responses.retrieve(made.id).status == "cancelled"
    assert gpt.responses.cancel(made.id).status == "cancelled"  # again: as it is
    answered = gpt.responses.create(model="gpt-4.1", input="A short note on tries.", background=True)
    assert gpt.responses.cancel(answered.id).status == "completed"  # nothing left to stop


def test_background_refusals(gpt: openai.OpenAI) -> None:
    with pytest.raises(openai.BadRequestError) as unstored:
        gpt.responses.create(model="gpt-4.1", input="hi", background=True, store=False)
    assert unstored.value.param == "background"
    foreground = gpt.responses.create(model="gpt-4.1", input="hi")
    with pytest.raises(openai.BadRequestError) as caught:
        gpt.responses.cancel(foreground.id)
    assert isinstance(caught.value.body, dict) and "background" in caught.value.body["message"]
    with pytest.raises(openai.NotFoundError):
        gpt.responses.cancel("resp_never_made")


def test_a_background_stream_starts_queued(gpt: openai.OpenAI) -> None:
    with gpt.responses.stream(model="gpt-4.1", input="What is a ring buffer?", background=True) as stream:
        kinds = [event.type for event in stream]
        final = stream.get_final_response()
    assert kinds[:3] == ["response.created", "response.queued", "response.in_progress"]
    assert final.status == "completed" and final.background is True
    assert gpt.responses.retrieve(final.id).output_text == final.output_text


def test_a_background_response_streams_again_from_where_a_client_left(gpt: openai.OpenAI) -> None:
    made = gpt.responses.create(model="gpt-4.1", input="How does a bloom filter size itself?", background=True)
    whole = list(gpt.responses.retrieve(made.id, stream=True))
    assert [e.sequence_number for e in whole] == list(range(len(whole)))
    assert [e.type for e in whole][:2] == ["response.created", "response.queued"]
    rest = list(gpt.responses.retrieve(made.id, stream=True, starting_after=4))
    assert [e.sequence_number for e in rest] == list(range(5, len(whole))) and rest == whole[5:]
    with gpt.responses.stream(response_id=made.id, starting_after=2) as stream:
        resumed = stream.get_final_response()
    assert resumed.output_text == gpt.responses.retrieve(made.id).output_text and resumed.status == "completed"
    foreground = gpt.responses.create(model="gpt-4.1", input="hi")
    with pytest.raises(openai.BadRequestError) as caught:
        list(gpt.responses.retrieve(foreground.id, stream=True))
    assert caught.value.param == "stream"


def test_openai_caches_a_repeated_prefix_from_1024_tokens_in_steps_of_128(gpt: openai.OpenAI) -> None:
    """Automatic prompt caching: nothing the first time, then the prefix seen, 1,024 tokens or more in steps of 128;
    a prompt under 1,024 tokens never; Responses reports it as Chat does."""
    handbook = " ".join(f"Rule {i}: file expense report {i * 7} within {i % 9 + 1} days." for i in range(160))
    asked: Any = [{"role": "system", "content": handbook}, {"role": "user", "content": "Summarise rule 12."}]
    first = gpt.chat.completions.create(model="gpt-4.1", messages=asked)
    again = gpt.chat.completions.create(model="gpt-4.1", messages=[*asked[:1], {"role": "user", "content": "Rule 40?"}])
    assert first.usage and again.usage and first.usage.prompt_tokens > 1024
    assert first.usage.prompt_tokens_details and first.usage.prompt_tokens_details.cached_tokens == 0
    cached = again.usage.prompt_tokens_details.cached_tokens if again.usage.prompt_tokens_details else None
    assert cached is not None and 1024 <= cached <= again.usage.prompt_tokens and cached % 128 == 0
    short: Any = [{"role": "user", "content": "A short question, asked twice, about filing expenses."}]
    for _ in range(2):
        small = gpt.chat.completions.create(model="gpt-4.1", messages=short)
        assert (
            small.usage and small.usage.prompt_tokens_details and small.usage.prompt_tokens_details.cached_tokens == 0
        )
    answered = gpt.responses.create(model="gpt-4.1", instructions=handbook, input="And rule 99?")
    again_answered = gpt.responses.create(model="gpt-4.1", instructions=handbook, input="And rule 100?")
    assert answered.usage and again_answered.usage
    assert again_answered.usage.input_tokens_details.cached_tokens >= 1024


def test_chat_says_its_tier_and_annotations_as_openai_does(gpt: openai.OpenAI) -> None:
    answer = gpt.chat.completions.create(model="gpt-4.1", messages=said("hi"))
    assert answer.service_tier == "default" and answer.choices[0].message.annotations == []
    chunks = list(gpt.chat.completions.create(model="gpt-4.1", messages=said("hi"), stream=True))
    assert {c.service_tier for c in chunks} == {"default"}
    assert gpt.responses.create(model="gpt-4.1", input="hi").service_tier == "default"


# --- Anthropic's prompt cache ------------------------------------------------------------------------------------


def manual(topic: str) -> str:
    """A system prompt well past the 1,024 tokens a breakpoint needs, its own per test."""
    return " ".join(f"Section {i} of the {topic} manual: step {i * 3} needs tool {i % 11}." for i in range(180))


def test_anthropic_writes_a_breakpoint_then_reads_it(claude: anthropic.Anthropic) -> None:
    system: Any = [{"type": "text", "text": manual("boiler"), "cache_control": {"type": "ephemeral"}}]
    first = claude.messages.create(model="claude-sonnet-5", max_tokens=50, system=system, messages=said("Step 4?"))
    written = first.usage.cache_creation_input_tokens or 0
    assert written > 1024 and first.usage.cache_read_input_tokens == 0
    assert first.usage.cache_creation and first.usage.cache_creation.ephemeral_5m_input_tokens == written
    assert first.usage.cache_creation.ephemeral_1h_input_tokens == 0 and first.usage.service_tier == "standard"
    again = claude.messages.create(model="claude-sonnet-5", max_tokens=50, system=system, messages=said("Step 9?"))
    assert again.usage.cache_read_input_tokens == written and again.usage.cache_creation_input_tokens == 0
    assert again.usage.input_tokens < first.usage.input_tokens + written  # what was read is not input again
    with claude.messages.stream(model="claude-sonnet-5", max_tokens=50, system=system, messages=said("12?")) as s:
        streamed = s.get_final_message()
    assert streamed.usage.cache_read_input_tokens == written


def test_an_hour_breakpoint_and_a_later_one_split_what_is_written(claude: anthropic.Anthropic) -> None:
    system: Any = [{"type": "text", "text": manual("kiln"), "cache_control": {"type": "ephemeral", "ttl": "1h"}}]
    question = {"type": "text", "text": manual("glaze"), "cache_control": {"type": "ephemeral"}}
    turns: Any = [{"role": "user", "content": [question]}]
    first = claude.messages.create(model="claude-opus-5", max_tokens=50, system=system, messages=turns)
    created = first.usage.cache_creation
    assert created and created.ephemeral_1h_input_tokens > 1024 and created.ephemeral_5m_input_tokens > 1024
    assert (
        first.usage.cache_creation_input_tokens == created.ephemeral_1h_input_tokens + created.ephemeral_5m_input_tokens
    )
    # the conversation goes on: the earlier prefix is read, the new turn written
    longer: Any = [
        *turns,
        {"role": "assistant", "content": "Noted."},
        {"role": "user", "content": [question | {"text": "More?"}]},
    ]
    second = claude.messages.create(model="claude-opus-5", max_tokens=50, system=system, messages=longer)
    assert second.usage.cache_read_input_tokens == first.usage.cache_creation_input_tokens


def test_nothing_is_cached_without_a_breakpoint_or_under_the_least(claude: anthropic.Anthropic, server: Server) -> None:
    plain: Any = [{"type": "text", "text": manual("pump")}]
    for _ in range(2):
        answer = claude.messages.create(model="claude-sonnet-5", max_tokens=50, system=plain, messages=said("Hi"))
        assert (answer.usage.cache_creation_input_tokens, answer.usage.cache_read_input_tokens) == (0, 0)
    short: Any = [{"type": "text", "text": "Be brief.", "cache_control": {"type": "ephemeral"}}]
    for _ in range(2):
        answer = claude.messages.create(model="claude-sonnet-5", max_tokens=50, system=short, messages=said("Hi"))
        assert (answer.usage.cache_creation_input_tokens, answer.usage.cache_read_input_tokens) == (0, 0)
    with server.anthropic() as inferam:  # the seed's usage: its four counts alone
        seed = inferam.messages.create(model="any-model", max_tokens=50, system=plain, messages=said("Hi"))
    assert set(seed.usage.model_dump(exclude_none=True)) == {
        "input_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
        "output_tokens",
    }
