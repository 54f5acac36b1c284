"""Chat Completions: what the public API keeps between calls. A completion made with `store: true` (off by default)
is kept with its `metadata` and the messages it was asked with; `GET /v1/chat/completions` lists the kept ones
(`model` and `metadata[key]=value` filters, `order`, `limit`, `after`), `GET …/{id}` reads one, `POST …/{id}`
replaces its metadata, `DELETE …/{id}` removes it, and `GET …/{id}/messages` pages through its messages.

Plain JSON in and out; the state that keeps it is the caller's (`answering/recall.py`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from emulator.core.errors import InvalidRequest, NotFound
from emulator.core.fields import Fields, wrong_type
from emulator.core.paging import page

__all__ = ["page"]  # `…/messages` pages through a completion's messages with it

LISTING = "chat"  # the name of the list of a scope's kept completions, oldest first
# OpenAI's bounds on `metadata` (its API reference: 16 pairs, keys up to 64 characters, values up to 512)
MAX_PAIRS, MAX_KEY, MAX_VALUE = 16, 64, 512


def key(completion_id: str) -> str:
    """Where a completion is kept in its scope."""
    return f"chat:{completion_id}"


def metadata(f: Fields, name: str = "metadata") -> dict[str, str]:
    """`metadata` as OpenAI checks it: an object of at most 16 string values, keys up to 64 characters and values
    up to 512 (the wording follows the API's length errors)."""
    value = f.get(name, dict) or {}
    if len(value) > MAX_PAIRS:
        raise InvalidRequest(
            f"Invalid '{name}': too many properties. Expected an object with at most {MAX_PAIRS} properties, "
            f"but got an object with {len(value)} properties instead.",
            param=name,
            code="object_above_max_properties",
        )
    for k, v in value.items():
        if not isinstance(v, str):
            raise wrong_type(f"{name}.{k}", "a string", v)
        for what, length, most, at in (("key", len(k), MAX_KEY, name), ("string", len(v), MAX_VALUE, f"{name}.{k}")):
            if length > most:
                raise InvalidRequest(
                    f"Invalid '{at}': {what} too long. Expected a {what} with maximum length {most}, but got a "
                    f"{what} with length {length} instead.",
                    param=at,
                    code=f"{what}_above_max_length",
                )
    return dict(value)


def kept(completion: Mapping[str, Any], sent: Sequence[Any], meta: Mapping[str, str]) -> dict[str, Any]:
    """What is kept of a completion: the answer as created, its metadata, and the messages it was asked with (a
    checked `messages` array) as `…/messages` lists them, each with the id `{completion id}-{index}`."""
    return {"completion": dict(completion), "metadata": dict(meta), "messages": messages(completion["id"], sent)}


def messages(completion_id: str, sent: Sequence[Any]) -> list[dict[str, Any]]:
    listed = []
    for i, message in enumerate(sent):
        content = message.get("content")
        parts = [p for p in content if p.get("type") in ("text", "image_url")] if isinstance(content, list) else None
        text = "".join(p["text"] for p in parts or () if p.get("type") == "text") if parts is not None else content
        entry = {"id": f"{completion_id}-{i}", "role": message["role"], "content": text or None}
        entry |= {"name": message.get("name"), "content_parts": parts}
        entry |= {k: message[k] for k in ("tool_calls", "tool_call_id", "refusal") if message.get(k) is not None}
        listed.append(entry)
    return listed


def shown(held: Mapping[str, Any]) -> dict[str, Any]:
    """A kept completion as retrieve, list and update answer it: the completion, with its metadata."""
    return {**held["completion"], "metadata": held["metadata"]}


def listing(held: Iterable[Mapping[str, Any]], query: Mapping[str, str], metadata_filter: Mapping[str, str]) -> Any:
    """A page of the kept completions (oldest first, as kept), as `GET /v1/chat/completions` lists them: those of
    `model` and with every `metadata[key]=value` asked, in `order` (`asc` by default)."""
    model = query.get("model")
    chosen = [
        shown(h)
        for h in held
        if (model is None or h["completion"]["model"] == model)
        and all(h["metadata"].get(k) == v for k, v in metadata_filter.items())
    ]
    return page(chosen, query, "asc")


def metadata_filter(query: Iterable[tuple[str, str]]) -> dict[str, str]:
    """The `metadata[key]=value` pairs of a list's query string."""
    return {k[len("metadata[") : -1]: v for k, v in query if k.startswith("metadata[") and k.endswith("]")}


def deleted(completion_id: str) -> dict[str, Any]:
    return {"id": completion_id, "object": "chat.completion.deleted", "deleted": True}


def not_found(completion_id: str) -> NotFound:
    # In the API's words for a missing stored object (its responses' wording; none public for chat completions).
    return NotFound(f"Chat completion with id '{completion_id}' not found.", param="completion_id")
