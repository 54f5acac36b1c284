"""Anthropic's rules beyond a body's shape, in its words: a browser's call must say it means it, the version header
is required and known, every beta known (the catalog lists them); and what it refuses of a conversation's content.
Read by `validation.py` under the `anthropic` profile."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from emulator.core.errors import InvalidRequest, Unauthorized
from emulator.rules.catalog import Catalog

MAX_BREAKPOINTS = 4  # Anthropic's most blocks with `cache_control` in one request


def headers(held: Catalog, headers: Mapping[str, str]) -> None:
    """A browser's call (it sends `Origin`) must say it means it, as Anthropic's API wants; its version header,
    required and known, and its betas, each known (the catalog lists them)."""
    if "origin" in headers and headers.get("anthropic-dangerous-direct-browser-access", "").lower() != "true":
        raise Unauthorized("CORS requests must set 'anthropic-dangerous-direct-browser-access' header")  # its words
    version = headers.get("anthropic-version", "").strip()
    if not version:
        raise InvalidRequest("anthropic-version: header is required")  # the API's words
    if held.versions and version not in held.versions:  # our words
        known = ", ".join(sorted(held.versions))
        raise InvalidRequest(f"anthropic-version: '{version}' is not a version this API knows (known: {known}).")
    sent = [b.strip() for b in headers.get("anthropic-beta", "").split(",") if b.strip()]
    unknown = [b for b in sent if held.known_betas and b not in held.known_betas]
    if unknown:  # the API's words
        raise InvalidRequest(
            f"Unexpected value(s) `{', '.join(unknown)}` for the `anthropic-beta` header. Please consult our "
            "documentation at platform.claude.com/docs or try again without the header."
        )


def content(data: Mapping[str, Any]) -> None:
    """What Anthropic refuses of a conversation's content, in its words: a message with no content but a final
    assistant one, an empty or blank text block, more than four `cache_control` breakpoints, a final assistant
    prefill ending in whitespace."""
    messages = data.get("messages")
    if type(messages) is not list:
        return
    breakpoints = _marked(data.get("system")) + _marked(data.get("tools"))
    last = len(messages) - 1
    for at, message in enumerate(messages):
        if type(message) is not dict:
            continue
        content = message.get("content")
        if content in ("", []) and not (at == last and message.get("role") == "assistant"):
            raise InvalidRequest(
                f"messages.{at}: all messages must have non-empty content except for the optional final assistant "
                "message"
            )
        if type(content) is not list:
            continue
        breakpoints += _marked(content)
        for block in content:
            if type(block) is not dict:
                continue
            _text_filled(block)
            inner = block.get("content") if block.get("type") == "tool_result" else None
            if type(inner) is list:
                breakpoints += _marked(inner)
                for part in inner:
                    if type(part) is dict:
                        _text_filled(part)
    if breakpoints > MAX_BREAKPOINTS:
        raise InvalidRequest(
            f"A maximum of {MAX_BREAKPOINTS} blocks with cache_control may be provided. Found {breakpoints}."
        )
    final = messages[-1] if messages else None
    if type(final) is dict and final.get("role") == "assistant":
        content = final.get("content")
        blocks = content if type(content) is list else [{"type": "text", "text": content}]
        tail = blocks[-1] if blocks else None
        text = tail.get("text") if type(tail) is dict and tail.get("type") == "text" else None
        if type(text) is str and text and text != text.rstrip():
            raise InvalidRequest("messages: final assistant content cannot end with trailing whitespace")


def _marked(blocks: Any) -> int:
    """How many of a list's blocks carry a `cache_control` breakpoint."""
    if type(blocks) is not list:
        return 0
    return sum(1 for b in blocks if type(b) is dict and b.get("cache_control") is not None)


def _text_filled(block: Mapping[str, Any]) -> None:
    if block.get("type") != "text" or type(block.get("text")) is not str:
        return
    if not block["text"]:
        raise InvalidRequest("messages: text content blocks must be non-empty")
    if not block["text"].strip():
        raise InvalidRequest("messages: text content blocks must contain non-whitespace text")
