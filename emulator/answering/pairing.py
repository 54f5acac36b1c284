"""Tool calls and their results, paired as the public APIs insist: a public profile's check of the conversation.

Every call the model made must be answered by its result, where the API wants it, and every result must answer
a call; the real APIs refuse a conversation that breaks either rule with a 400, and so do the `openai` and
`anthropic` profiles (the seeds' upstreams say nothing of it, so their profiles do not check). Run on the body as
parsed, after what a `previous_response_id` stands for is put in (`memory.recall`): a response that ended in a
function call must be continued with that call's output.

The wording is the APIs' own, as clients' issue threads quote it (cited beside each); where none quotes a part,
it says "our words".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from emulator.core.errors import InvalidRequest

# Responses: a call's item type → its output's item type.
RESPONSES_OUTPUTS = {"function_call": "function_call_output", "custom_tool_call": "custom_tool_call_output"}


def check(endpoint: str, body: Mapping[str, Any]) -> None:
    """Refuse a conversation whose tool calls and results do not pair up (the endpoint's own rules)."""
    if endpoint == "chat_completions":
        _chat(body.get("messages"))
    elif endpoint == "responses":
        _responses(body.get("input"))
    elif endpoint == "messages":
        _messages(body.get("messages"))


def _chat(messages: Any) -> None:
    """Chat: an assistant message's `tool_calls` are answered by the `tool` messages right after it, one each."""
    if not isinstance(messages, list):
        return
    pending: dict[str, None] = {}  # the calls of the last assistant message not yet answered, in order
    asked_at = -1
    for i, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        role = message.get("role")
        if role == "tool":
            if asked_at < 0:  # openai-python and clients' threads (e.g. miurla/morphic#136) quote it, typo included
                raise InvalidRequest(
                    "Invalid parameter: messages with role 'tool' must be a response to a preceeding message with "
                    "'tool_calls'.",
                    param=f"messages.[{i}].role",
                )
            answered = message.get("tool_call_id")
            if answered not in pending:  # as dapr/dapr-agents#145 quotes it
                raise InvalidRequest(
                    f"Invalid parameter: 'tool_call_id' of '{answered}' not found in 'tool_calls' of previous message.",
                    param=f"messages.[{i}].tool_call_id",
                )
            del pending[answered]
            continue
        _chat_unanswered(pending, asked_at)
        asked_at = -1
        calls = message.get("tool_calls") if role == "assistant" else None
        if isinstance(calls, list) and calls:
            pending = {c["id"]: None for c in calls if isinstance(c, dict) and isinstance(c.get("id"), str)}
            asked_at = i
    _chat_unanswered(pending, asked_at)


def _chat_unanswered(pending: Mapping[str, None], asked_at: int) -> None:
    if pending:  # the message as clients' threads quote it (e.g. agno-agi/agno#3105); `param` is our reading
        raise InvalidRequest(
            "An assistant message with 'tool_calls' must be followed by tool messages responding to each "
            f"'tool_call_id'. The following tool_call_ids did not have response messages: {', '.join(pending)}",
            param=f"messages.[{asked_at}].role",
        )


def _responses(items: Any) -> None:
    """Responses: each function call in `input` has its output later in it, and each output answers a call
    before it (by `call_id`)."""
    if not isinstance(items, list):
        return
    calls: dict[str, str] = {}  # call_id → the call's item type, for the calls not yet answered
    made: set[str] = set()  # every call_id a call has had
    for item in items:
        if not isinstance(item, dict):
            continue
        kind, call_id = item.get("type"), item.get("call_id")
        if not isinstance(call_id, str):
            continue
        if kind in RESPONSES_OUTPUTS:
            calls[call_id] = kind
            made.add(call_id)
        elif kind in RESPONSES_OUTPUTS.values():
            if call_id not in made:  # continuedev/continue#10092 quotes it, `param` included
                raise InvalidRequest(
                    f"No tool call found for function call output with call_id {call_id}.", param="input"
                )
            calls.pop(call_id, None)
    for call_id, kind in calls.items():  # openai/openai-agents-python#673 quotes it, `param` included
        what = "function call" if kind == "function_call" else "custom tool call"  # the second: our words
        raise InvalidRequest(f"No tool output found for {what} {call_id}.", param="input")


def _messages(messages: Any) -> None:
    """Messages: an assistant turn's `tool_use` blocks are answered by `tool_result` blocks in the very next
    (user) message, and a `tool_result` answers a `tool_use` of the message just before it."""
    if not isinstance(messages, list):
        return
    asked: Sequence[str] = ()  # the `tool_use` ids of the message before
    for i, message in enumerate(messages):
        blocks = _blocks(message)
        if message.get("role") == "assistant" if isinstance(message, dict) else False:
            _messages_unanswered(asked, i - 1, set())
            asked = [b["id"] for b in blocks if b.get("type") == "tool_use" and isinstance(b.get("id"), str)]
            continue
        results = set()
        for j, block in enumerate(blocks):
            if block.get("type") != "tool_result":
                continue
            used = block.get("tool_use_id")
            if used not in asked:  # the API's words, as clients' threads quote them
                raise InvalidRequest(
                    f"messages.{i}.content.{j}: unexpected `tool_use_id` found in `tool_result` blocks: {used}. "
                    "Each `tool_result` block must have a corresponding `tool_use` block in the previous message."
                )
            results.add(used)
        _messages_unanswered(asked, i - 1, results)
        asked = ()
    _messages_unanswered(asked, len(messages) - 1, set())


def _blocks(message: Any) -> list[dict[str, Any]]:
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def _messages_unanswered(asked: Sequence[str], at: int, answered: set[Any]) -> None:
    missing = [used for used in asked if used not in answered]
    if missing:  # the API's words, as clients' threads quote them (e.g. browseros-ai/BrowserOS-agent#106)
        raise InvalidRequest(
            f"messages.{at}: `tool_use` ids were found without `tool_result` blocks immediately after: "
            f"{', '.join(missing)}. Each `tool_use` block must have a corresponding `tool_result` block in the "
            "next message."
        )
