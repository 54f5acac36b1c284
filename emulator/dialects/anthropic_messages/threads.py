"""Messages: message threads, the beta in which the server holds a conversation (`message-threads-2026-08-12`).

A request with `"thread": {"type": "create"}` asks the server to keep the conversation under its answer's id;
one with `{"type": "continue", "previous_message_id": "msg_…"}` sends only the new turn's messages, and the
server puts the thread's history, `system` and `tools` before them. Each answer can be continued once. What the
SDKs (Python 2.14, `lib/threads/_thread_state.py`) do on each refusal, by its `error.details.error_code`:
- `thread_not_found` (404): replay the whole history under a new thread;
- `thread_already_continued` (400): the same, from the thread's latest answer;
- `thread_unsupported_request` (400): the tool runner stops threading and sends the whole history.

Plain JSON in and out; the state that holds threads is the caller's (`answering/recall.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from emulator.core.conversation import frozen
from emulator.core.errors import EmulatorError, InvalidRequest, NotFound
from emulator.core.fields import Fields, wrong_type
from emulator.dialects.anthropic_messages.request import betas

BETA = "message-threads-2026-08-12"
# Fields the server takes from the thread on a `continue`, and refuses there (the SDK's CREATE_ONLY_FIELDS).
CREATE_ONLY = ("system", "tools")


@frozen
class Ask:
    """The `thread` a request sends: start one, or continue from the answer `previous`."""

    kind: Literal["create", "continue"]
    previous: str | None = None


def ask(body: Mapping[str, Any], headers: Mapping[str, str], threads: bool) -> Ask:
    """The request's `thread`, validated. A profile without threads refuses it in the words from which the SDKs
    go on without one."""
    if not threads:
        raise InvalidRequest(
            "This API does not support message threads: send the whole conversation in 'messages', without 'thread'.",
            param="thread",
            details={"error_code": "thread_unsupported_request", "unsupported": ["thread"]},
        )
    if BETA not in betas(headers):
        raise InvalidRequest(
            f"thread: Extra inputs are not permitted. Message threads need the header 'anthropic-beta: {BETA}'.",
            param="thread",
        )
    thread = Fields(body).obj("thread")
    assert thread is not None  # the caller saw one
    kind = thread.choice("type", ("create", "continue"))
    if kind is None:
        thread.need("type", str)
    if kind == "create":
        return Ask("create")
    for field in CREATE_ONLY:
        if body.get(field) is not None:
            raise InvalidRequest(
                f"'{field}' cannot be sent with a thread continue: the thread keeps the one it was created with. "
                "To change it, start a new thread with the whole conversation.",
                param=field,
            )
    return Ask("continue", thread.need("previous_message_id", str))


def continued(body: Mapping[str, Any], thread: Mapping[str, Any], history: bool = True) -> dict[str, Any]:
    """The body a `continue` stands for: the thread's `system`, `tools` and history (its last answer included),
    then the request's own messages; without `history`, the request's messages alone (to check them by)."""
    messages = body.get("messages")
    if not isinstance(messages, list):
        if messages is None:
            Fields(body).need("messages", list)
        raise wrong_type("messages", "an array of messages", messages)
    reply = {"role": "assistant", "content": thread["reply"]["content"]}
    kept = {field: thread[field] for field in CREATE_ONLY if thread.get(field) is not None}
    return {**body, **kept, "messages": [*thread["messages"], reply, *messages] if history else messages}


def kept(body: Mapping[str, Any], reply: Mapping[str, Any], source: str, root: str) -> dict[str, Any]:
    """What a thread keeps under its answer's id: the `system`, `tools` and messages the answer was made from
    (`body`, with any history already in it), the answer as rendered, and what made it and its turn's id (to give
    it again, the same, to a retry)."""
    thread = {field: body[field] for field in CREATE_ONLY if body.get(field) is not None}
    return thread | {"messages": body["messages"], "reply": dict(reply), "source": source, "root": root}


# The refusals of a `continue` from which the SDKs start a new thread, by `error.details.error_code`.
REFUSALS: dict[str, tuple[type[EmulatorError], str]] = {
    "thread_not_found": (
        NotFound,
        "No thread was found for previous_message_id '{}': it expired, or no thread holds it. Replay the whole "
        "conversation with thread type 'create'.",
    ),
    "thread_already_continued": (
        InvalidRequest,
        "The message '{}' has already been continued, and each message can be continued only once. Continue from "
        "the thread's most recent message id.",
    ),
}


def refusal(code: str, previous: str) -> EmulatorError:
    """The refusal `code` of a `continue` from the message `previous`."""
    kind, message = REFUSALS[code]
    return kind(message.format(previous), param="thread.previous_message_id", details={"error_code": code})


def claim(headers: Mapping[str, str], fingerprint: str, reply: str) -> dict[str, Any]:
    """What marks a message continued: by which call (its idempotency key, its body's digest), and the answer."""
    return {"idempotency_key": headers.get("idempotency-key"), "fingerprint": fingerprint, "reply": reply}


def same_call(held: Mapping[str, Any], headers: Mapping[str, str], fingerprint: str) -> bool:
    """Whether a request is the call that continued a message (`held`) sent again: the same idempotency key, or a
    retry (the SDKs' `x-stainless-retry-count` above 0) of the same body. Its answer is given again, so that a
    fault and its retry do not append twice."""
    key = headers.get("idempotency-key")
    if key is not None and key == held.get("idempotency_key"):
        return True
    retry = headers.get("x-stainless-retry-count", "0")
    return retry.isdigit() and int(retry) > 0 and held.get("fingerprint") == fingerprint
