"""A fresh response id per request under the public profiles, as their APIs mint one, and still the same ids run
to run: a repeat of a body takes the next id of its sequence, a retry keeps the id it had. Through the official
SDKs, against a real server (workers sharing one Redis: `test_workers.py`)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import anthropic
import openai
import pytest

from emulator.http.app import Settings
from tests.conftest import FROZEN, Server, call

QUESTION: Any = [{"role": "user", "content": "How does consistent hashing move keys?"}]


def chat_ids(client: openai.OpenAI, times: int, **headers: str) -> list[str]:
    return [
        client.chat.completions.create(model="gpt-4.1", messages=QUESTION, extra_headers=headers).id
        for _ in range(times)
    ]


def test_a_repeat_gets_a_new_id_and_the_same_answer(server: Server, request: pytest.FixtureRequest) -> None:
    with server.openai("/openai", default_headers={"x-emulator-test-id": request.node.name}) as gpt:
        answers = [gpt.chat.completions.create(model="gpt-4.1", messages=QUESTION) for _ in range(3)]
        responses = [gpt.responses.create(model="gpt-4.1", input="Name a sorting algorithm.") for _ in range(3)]
        assert len({a.id for a in answers}) == 3 and len({a.choices[0].message.content for a in answers}) == 1
        assert len({r.id for r in responses}) == 3 and len({r.output_text for r in responses}) == 1
        # each is stored under its own id: the second did not overwrite the first
        assert [gpt.responses.retrieve(r.id).id for r in responses] == [r.id for r in responses]


def test_the_ids_are_the_same_run_to_run(make_server: Callable[[Settings], Server]) -> None:
    def run() -> list[str]:
        server = make_server(Settings(frozen_time=FROZEN))
        with server.openai("/openai") as gpt, server.anthropic("/anthropic") as claude:
            ids = chat_ids(gpt, 3)
            ids += [gpt.responses.create(model="gpt-5", input="hi").id for _ in range(2)]
            ids += [claude.messages.create(model="claude-sonnet-5", max_tokens=64, messages=QUESTION).id for _ in "ab"]
        return ids

    first = run()
    assert len(set(first)) == len(first) and first == run()


def test_a_retry_keeps_its_id(server: Server, request: pytest.FixtureRequest) -> None:
    with server.openai("/openai", default_headers={"x-emulator-test-id": request.node.name}) as gpt:
        first, second = chat_ids(gpt, 2)
        (retried,) = chat_ids(gpt, 1, **{"x-stainless-retry-count": "2"})  # the SDK's count: the last call again
        assert retried == second != first
        keyed = chat_ids(gpt, 2, **{"idempotency-key": "order-1"})
        assert keyed[0] == keyed[1] not in (first, second)
        other_key = chat_ids(gpt, 1, **{"idempotency-key": "order-2"})
        assert other_key[0] not in (first, second, keyed[0])


def test_a_retried_call_after_a_fault_answers_as_its_first_attempt(
    server: Server, request: pytest.FixtureRequest
) -> None:
    """The SDK retries a 500 with `x-stainless-retry-count: 1`: its answer is the one the first attempt would have
    given, and the next call of the same body goes on with the sequence."""
    headers = {"x-emulator-test-id": request.node.name}
    with server.openai("/openai", default_headers=headers, max_retries=1) as gpt:
        status, _ = call(server.port, "POST", "/_emulator/faults", {"spec": "status=500", "times": 1}, headers)
        assert status == 201
        retried = gpt.responses.create(model="gpt-4.1", input="What is a bloom filter?")
        again = gpt.responses.create(model="gpt-4.1", input="What is a bloom filter?")
    entries = call(server.port, "GET", "/_emulator/requests?bodies=false", headers=headers)[1]["requests"]
    assert [e["status"] for e in entries] == [500, 200, 200]
    assert retried.id != again.id
    with server.openai("/openai", default_headers=headers) as gpt:
        retry: Any = {"x-stainless-retry-count": "1"}  # a retry of the second call: the same id again
        same = gpt.responses.create(model="gpt-4.1", input="What is a bloom filter?", extra_headers=retry)
    assert same.id == again.id


def test_inferam_derives_the_id_from_the_body(server: Server) -> None:
    """Inferam keeps nothing, so it mints nothing: the same body, the same id (seed 000's determinism)."""
    with server.openai() as inferam:
        ids = [inferam.chat.completions.create(model="m", messages=QUESTION).id for _ in range(2)]
    assert ids[0] == ids[1]


def test_a_thread_retried_by_the_sdk_continues_once(server: Server, request: pytest.FixtureRequest) -> None:
    headers = {"x-emulator-test-id": request.node.name}
    betas: Any = ["message-threads-2026-08-12"]
    with server.anthropic("/anthropic", default_headers=headers, max_retries=1) as claude:
        start = claude.beta.messages.create(
            model="claude-sonnet-5", max_tokens=200, messages=QUESTION, thread={"type": "create"}, betas=betas
        )
        assert call(server.port, "POST", "/_emulator/faults", {"spec": "status=529", "times": 1}, headers)[0] == 201
        follow: Any = [{"role": "user", "content": "And when a node leaves?"}]
        answer = claude.beta.messages.create(
            model="claude-sonnet-5",
            max_tokens=200,
            messages=follow,
            thread={"type": "continue", "previous_message_id": start.id},
            betas=betas,
        )
        with pytest.raises(anthropic.BadRequestError) as caught:  # a new call of the same body is not a retry
            claude.beta.messages.create(
                model="claude-sonnet-5",
                max_tokens=200,
                messages=follow,
                thread={"type": "continue", "previous_message_id": start.id},
                betas=betas,
            )
    assert caught.value.error_code == "thread_already_continued" and answer.id != start.id
    assert json.dumps(answer.to_dict())  # a whole message
