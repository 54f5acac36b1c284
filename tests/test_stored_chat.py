"""Stored Chat Completions under the `openai` profile, end to end through the official SDK in strict mode: `store:
true` (off by default), list with filters and pages, retrieve, update metadata, delete, and the messages."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import openai
import pytest

from emulator.http.app import Settings
from emulator.state.kept import Bounds
from tests.conftest import Server


@pytest.fixture
def loose(server: Server, test_id: str) -> Iterator[openai.OpenAI]:
    """The SDK in its default mode: its `ChatCompletionStoreMessage` types every stored message's `role` as
    `assistant`, where the API lists the messages as they were sent (`user`, `system`, …), so strict mode refuses a
    real answer there."""
    headers = {"x-emulator-test-id": test_id}
    with openai.OpenAI(base_url=f"{server.base_url}/openai/v1", api_key="sk-test", default_headers=headers) as client:
        yield client


def ask(client: openai.OpenAI, text: str, model: str = "gpt-4.1", **options: Any) -> Any:
    return client.chat.completions.create(model=model, messages=[{"role": "user", "content": text}], **options)


def test_only_what_store_asks_is_kept(gpt: openai.OpenAI) -> None:
    kept = ask(gpt, "Which sorting algorithm is stable?", store=True)
    not_kept = ask(gpt, "Which sorting algorithm is in place?")
    said_no = ask(gpt, "Which one is adaptive?", store=False)
    assert gpt.chat.completions.retrieve(kept.id).choices == kept.choices
    for completion in (not_kept, said_no):
        with pytest.raises(openai.NotFoundError) as caught:
            gpt.chat.completions.retrieve(completion.id)
        assert isinstance(caught.value.body, dict) and completion.id in caught.value.body["message"]
    assert [c.id for c in gpt.chat.completions.list()] == [kept.id]


def test_a_streamed_completion_is_kept_whole(gpt: openai.OpenAI) -> None:
    with gpt.chat.completions.stream(
        model="gpt-4.1", messages=[{"role": "user", "content": "Define idempotence."}], store=True
    ) as stream:
        streamed = stream.get_final_completion()
    kept = gpt.chat.completions.retrieve(streamed.id)
    assert kept.choices[0].message.content == streamed.choices[0].message.content
    assert kept.object == "chat.completion" and kept.usage is not None


def test_list_filters_orders_and_pages(gpt: openai.OpenAI) -> None:
    made = [
        ask(
            gpt,
            f"Question {i}: what is a monad?",
            model=("gpt-4.1", "gpt-5")[i % 2],
            store=True,
            metadata={"batch": "b" + str(i % 3), "n": str(i)},
        )
        for i in range(7)
    ]
    ids = [m.id for m in made]
    assert [c.id for c in gpt.chat.completions.list(limit=2)] == ids  # oldest first; the SDK pages on
    first = gpt.chat.completions.list(limit=3, order="desc")
    assert [c.id for c in first.data] == ids[::-1][:3] and first.has_more
    second = gpt.chat.completions.list(limit=3, order="desc", after=first.data[-1].id)
    assert [c.id for c in second.data] == ids[::-1][3:6]
    assert [c.id for c in gpt.chat.completions.list(model="gpt-5")] == ids[1::2]
    assert [c.id for c in gpt.chat.completions.list(metadata={"batch": "b1"})] == [ids[1], ids[4]]
    assert [c.id for c in gpt.chat.completions.list(metadata={"batch": "b1", "n": "4"})] == [ids[4]]
    assert gpt.chat.completions.list(metadata={"batch": "none"}).data == []
    listed = gpt.chat.completions.list(limit=1).data[0]
    assert listed.metadata == {"batch": "b0", "n": "0"}


def test_update_replaces_the_metadata(gpt: openai.OpenAI) -> None:
    made = ask(gpt, "What is a vector clock?", store=True, metadata={"team": "storage", "stage": "draft"})
    updated = gpt.chat.completions.update(made.id, metadata={"stage": "final"})
    assert updated.id == made.id and updated.metadata == {"stage": "final"}
    assert [c.id for c in gpt.chat.completions.list(metadata={"stage": "final"})] == [made.id]
    assert gpt.chat.completions.list(metadata={"team": "storage"}).data == []
    cleared = gpt.chat.completions.update(made.id, metadata=None)
    assert cleared.metadata == {}


def test_delete(gpt: openai.OpenAI) -> None:
    made = ask(gpt, "What is a CRDT?", store=True)
    deleted = gpt.chat.completions.delete(made.id)
    assert deleted.id == made.id and deleted.deleted and deleted.object == "chat.completion.deleted"
    with pytest.raises(openai.NotFoundError):
        gpt.chat.completions.retrieve(made.id)
    with pytest.raises(openai.NotFoundError):
        gpt.chat.completions.delete(made.id)
    assert gpt.chat.completions.list().data == []


def test_messages_as_they_were_sent(gpt: openai.OpenAI, loose: openai.OpenAI) -> None:
    sent: Any = [
        {"role": "system", "content": "Answer in one line."},
        {"role": "user", "content": [{"type": "text", "text": "What is "}, {"type": "text", "text": "a lease?"}]},
        {"role": "assistant", "content": "A lock with a deadline."},
        {"role": "user", "content": "And a fencing token?", "name": "ada"},
    ]
    made = gpt.chat.completions.create(model="gpt-4.1", messages=sent, store=True)
    listed = list(loose.chat.completions.messages.list(made.id, limit=3))  # the SDK pages on
    assert [m.id for m in listed] == [f"{made.id}-{i}" for i in range(4)]
    assert [m.to_dict()["role"] for m in listed] == ["system", "user", "assistant", "user"]
    assert [m.content for m in listed] == [
        "Answer in one line.",
        "What is a lease?",
        "A lock with a deadline.",
        "And a fencing token?",
    ]
    assert listed[1].content_parts and [p.type for p in listed[1].content_parts] == ["text", "text"]
    assert listed[0].content_parts is None and listed[3].to_dict()["name"] == "ada"
    newest = loose.chat.completions.messages.list(made.id, order="desc", limit=2)
    assert [m.id for m in newest.data] == [f"{made.id}-3", f"{made.id}-2"] and newest.has_more


def test_kept_per_key_and_test_and_refusals(server: Server, gpt: openai.OpenAI) -> None:
    made = ask(gpt, "What is a quorum?", store=True)
    with server.openai("/openai", api_key="sk-other") as other, pytest.raises(openai.NotFoundError):
        other.chat.completions.retrieve(made.id)
    with pytest.raises(openai.BadRequestError) as too_many:
        ask(gpt, "hi", store=True, metadata={f"k{i}": "v" for i in range(17)})
    assert too_many.value.param == "metadata"
    with pytest.raises(openai.BadRequestError) as too_long:
        ask(gpt, "hi", store=True, metadata={"k": "v" * 513})
    assert too_long.value.param == "metadata.k"
    with pytest.raises(openai.BadRequestError) as order:
        gpt.chat.completions.list(order="sideways")  # type: ignore[arg-type]
    assert order.value.param == "order"
    with server.openai() as inferam, pytest.raises(openai.APIStatusError) as unserved:  # Inferam keeps nothing
        inferam.chat.completions.list()
    assert unserved.value.status_code == 405


def test_kept_within_the_store_s_bounds(make_server: Any) -> None:
    server = make_server(Settings(kept=Bounds(entries=3)))
    with server.openai("/openai") as gpt:
        made = [ask(gpt, f"Fact {i} about B-trees?", store=True).id for i in range(5)]
        assert [c.id for c in gpt.chat.completions.list()] == made[2:]
        with pytest.raises(openai.NotFoundError):
            gpt.chat.completions.retrieve(made[0])


def test_what_the_sdk_s_own_tests_send_that_the_api_refuses(gpt: openai.OpenAI, loose: openai.OpenAI) -> None:
    """The SDK's `tests/api_resources` send placeholders a mock answers and the API refuses: `limit=0` on every list
    (1 to 100), `max_completion_tokens=0`."""
    made = ask(gpt, "What is a Merkle tree?", store=True)
    response = gpt.responses.create(model="gpt-4.1", input="What is a Merkle tree?")
    lists: Any = [
        lambda: gpt.chat.completions.list(limit=0),
        lambda: loose.chat.completions.messages.list(made.id, limit=0),
        lambda: gpt.responses.input_items.list(response.id, limit=0),
    ]
    for listing in lists:
        with pytest.raises(openai.BadRequestError) as caught:
            listing()
        assert caught.value.param == "limit" and caught.value.code == "invalid_value"
    with pytest.raises(openai.BadRequestError) as zero:
        ask(gpt, "hi", max_completion_tokens=0)
    assert zero.value.param == "max_completion_tokens"
