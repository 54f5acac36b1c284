"""Responses: what the public API keeps between calls. `store` is on by default: a stored response goes on with
`previous_response_id` (its conversation, then the new `input`; `instructions` and `tools` are not carried
over), its output items stand in for `{"type": "item_reference", "id": …}` (the Vercel AI SDK sends them in
place of reasoning items), and `GET /v1/responses/{id}`, its `/input_items` and `DELETE` read and remove it.

Plain JSON in and out; the state that keeps it is the caller's (`answering/recall.py`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from emulator.core import ids, paging, sealed
from emulator.core.conversation import Timing
from emulator.core.errors import InvalidRequest, NotFound
from emulator.core.fields import Fields

REFERENCE = "item_reference"
# The id prefix of each kind of item, for items sent without one: the input items list shows every item by id.
PREFIXES = {
    "message": "msg_",
    "reasoning": "rs_",
    "function_call": "fc_",
    "function_call_output": "fco_",
    "custom_tool_call": "ctc_",
    "custom_tool_call_output": "ctco_",
}


def asks(body: Mapping[str, Any]) -> bool:
    """Whether a request is to be stored (`store`, true unless it says false), or names stored state."""
    if body.get("store") is not False or body.get("previous_response_id") is not None:
        return True
    value = body.get("input")
    return type(value) is list and any(type(item) is dict and item.get("type") == REFERENCE for item in value)


def references(body: Mapping[str, Any]) -> tuple[str | None, list[str]]:
    """What a request asks of the store: the response it continues (`previous_response_id`), and the item each
    `item_reference` in its `input` names, in order."""
    f = Fields(body)
    previous = f.get("previous_response_id", str)
    value = body.get("input")
    named = []
    if isinstance(value, list):
        for i, item in enumerate(value):
            if isinstance(item, dict) and item.get("type") == REFERENCE:
                named.append(Fields(item, f"input[{i}]").need("id", str))
    return previous, named


def resolved(body: Mapping[str, Any], items: Mapping[str, Any]) -> dict[str, Any]:
    """`body` with each `item_reference` in `input` replaced, where it stands, by the item stored under its id
    (`items`; None for one not stored): the public API's 404 names the first one missing."""
    value = body.get("input")
    if not isinstance(value, list):
        return dict(body)
    replaced = []
    for item in value:
        if isinstance(item, dict) and item.get("type") == REFERENCE:
            found = items.get(item["id"])
            if found is None:
                raise item_not_found(item["id"])
            item = found
        replaced.append(item)
    return {**body, "input": replaced}


def conversation(previous: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A stored response's conversation, as a request continuing it has it: the items it was given, then its
    output."""
    return [*previous["input"], *previous.get("output", previous["response"]["output"])]


def sealed_output(output: Sequence[Mapping[str, Any]], reasoning: str, root: str, created: int) -> list[Any]:
    """A response's output as kept for the requests that go on from it: its reasoning item with the reasoning sealed
    (`encrypted_content`) where the answer did not show it, so that the conversation a `previous_response_id` or an
    `item_reference` recalls has the reasoning that a stateless client sends back sealed."""
    return [
        {**item, "encrypted_content": sealed.seal(reasoning, root, created)}
        if item.get("type") == "reasoning" and item.get("encrypted_content") is None and reasoning
        else item
        for item in output
    ]


def listed(value: str | list[Any]) -> list[Any]:
    """`input` (a string, or a list of items: the dialect has checked it) as a list of items."""
    return [{"type": "message", "role": "user", "content": value}] if isinstance(value, str) else value


def input_items(value: str | list[Any], root: str) -> list[Any]:
    """The request's checked `input` as the stored items that `input_items` lists: a string as a user message;
    each item with its type, an id (derived from `root` where it had none), a status, and its text as content
    parts."""
    return [_item(item, root, i) for i, item in enumerate(listed(value))]


def _item(item: Any, root: str, index: int) -> Any:
    if not isinstance(item, dict):
        return item
    kind = item.get("type", "message")
    if not isinstance(kind, str) or kind not in PREFIXES:
        return item
    item = {**item, "type": kind}
    if not isinstance(item.get("id"), str):
        item["id"] = ids.make(PREFIXES[kind], root, index)
    if kind == "reasoning":
        item.setdefault("summary", [])
    else:
        item.setdefault("status", "completed")
    content = item.get("content")
    if kind == "message" and isinstance(content, str | list):
        assistant = item.get("role") == "assistant"
        parts = (
            [{"type": "output_text" if assistant else "input_text", "text": content}]
            if isinstance(content, str)
            else content
        )
        item["content"] = [_part(p) for p in parts]
    return item


def _part(part: Any) -> Any:
    """A content part with the fields the SDK's item types require: annotations of output text, an image's
    detail."""
    if isinstance(part, dict) and part.get("type") == "output_text":
        return {"annotations": [], **part}
    if isinstance(part, dict) and part.get("type") == "input_image":
        return {"detail": "auto", **part}
    return part


def page(items: Sequence[Mapping[str, Any]], query: Mapping[str, str]) -> dict[str, Any]:
    """One page of a response's input items as `GET /v1/responses/{id}/input_items` lists them: newest first by
    default (`paging.page`)."""
    return paging.page(items, query, "desc")


def deleted(response_id: str) -> dict[str, Any]:
    return {"id": response_id, "object": "response.deleted", "deleted": True}


def previous_not_found(previous: str) -> InvalidRequest:
    return InvalidRequest(
        f"Previous response with id '{previous}' not found.",
        param="previous_response_id",
        code="previous_response_not_found",
    )


def item_not_found(item: str) -> NotFound:
    return NotFound(
        f"Item with id '{item}' not found. Items are not persisted when `store` is set to false. Try again with "
        "`store` set to true, or remove this item from your input.",
        param="input",
    )


def response_not_found(response_id: str) -> NotFound:
    return NotFound(f"Response with id '{response_id}' not found.")


# --- background mode -------------------------------------------------------------------------------------------


def schedule(pace: Timing | None, output_tokens: int, now: float) -> dict[str, Any]:
    """When a background response, created `now` (seconds of the wall clock, which every worker shares), leaves the
    queue and is answered, as its pacing says: queued for its latency, in progress to its first token and through
    its tokens; no pacing, answered at once."""
    pace = pace or Timing()
    generating = output_tokens / pace.tokens_per_second if pace.tokens_per_second else 0.0
    queued = pace.latency_ms / 1000
    return {"at": now, "queued": queued, "done": queued + pace.ttft_ms / 1000 + generating, "cancelled": False}


def polled(held: Mapping[str, Any], now: float) -> dict[str, Any]:
    """A stored response as `GET` finds it `now`: as created, unless in background mode and not answered yet (or
    cancelled), when it has its status and no output yet."""
    response, progress = held["response"], held.get("background")
    if progress is None:
        return dict(response)
    status = _status(progress, now)
    if status == "completed":
        return dict(response)
    return {**response, "status": status, "output": [], "usage": None, "incomplete_details": None}


def cancelled(held: Mapping[str, Any], now: float) -> dict[str, Any]:
    """`held` once `POST /v1/responses/{id}/cancel` asked: a background response still queued or in progress is
    cancelled; one answered (or cancelled) already stays as it is. Only background responses can be cancelled."""
    progress = held.get("background")
    if progress is None:
        # written in the API's style: no public source quotes this refusal
        raise InvalidRequest("Only responses created with 'background' set to true can be cancelled.")
    if _status(progress, now) in ("completed", "cancelled"):
        return dict(held)
    return {**held, "background": {**progress, "cancelled": True}}


def _status(progress: Mapping[str, Any], now: float) -> str:
    if progress.get("cancelled"):
        return "cancelled"
    elapsed = now - progress["at"]
    return "completed" if elapsed >= progress["done"] else "queued" if elapsed < progress["queued"] else "in_progress"
