"""What the inspector reads into journal views (emulator/journal/previews.py, emulator/journal/transcript.py):
previews, the words a search looks in, requests folded by messages, and conversations chained by retry and by prefix, in
each dialect's own shapes. Pure: views built by hand, as `journal.view` shows them."""

from __future__ import annotations

from typing import Any

from emulator.journal import previews, transcript


def view(entry_id: int, body: dict[str, Any], answer: dict[str, Any] | None, **fields: Any) -> dict[str, Any]:
    status = fields.pop("status", 200)
    response = None if answer is None else {"status": status, "headers": {}, "body": answer}
    base = {"id": entry_id, "test_id": "t", "key": "…abcd", "request": f"conv{entry_id}", "fault": None}
    return base | {"body": body, "response": response} | fields


def conversations(*views: dict[str, Any]) -> list[dict[str, Any]]:
    """The conversations of views, each given its summary's fields as the journal has them."""
    summarised = [v | {"status": (v["response"] or {}).get("status"), "duration_ms": 1.0} for v in views]
    return previews.conversations([previews.told(v) for v in summarised])


def chat_answer(text: str | None, *calls: tuple[str, str, str]) -> dict[str, Any]:
    tool_calls = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]
    message = {"role": "assistant", "content": text} | ({"tool_calls": tool_calls} if calls else {})
    return {"id": "c", "choices": [{"index": 0, "message": message, "finish_reason": "tool_calls"}]}


def test_a_chat_agent_loop_chains_by_prefix_and_a_retry_is_one_turn() -> None:
    user = {"role": "user", "content": "Plan a trip to  Kyoto"}  # whitespace differs from what comes back: no matter
    first = view(1, {"messages": [user]}, chat_answer(None, ("c1", "search", '{"q": "Kyoto"}')))
    sent_back = chat_answer(None, ("c1", "search", '{"q":"Kyoto"}'))["choices"][0]["message"]  # keys in another order
    turn = [user, sent_back, {"role": "tool", "tool_call_id": "c1", "content": "temples"}]
    failed = view(2, {"messages": turn}, {"error": {"message": "busy"}}, status=503, fault="status=503")
    retried = view(3, {"messages": turn}, chat_answer("Go in spring."), request="conv2")
    other_test = view(4, {"messages": turn}, chat_answer("Go in spring."), test_id="u")
    found = conversations(retried, failed, first, other_test)
    assert [[t["requests"] for t in c["turns"]] for c in found] == [[[1], [2, 3]], [[4]]]
    assert found[0]["turns"][1]["ok"] == 3


def test_a_responses_loop_chains_on_its_output_items_sent_back() -> None:
    call = {"type": "function_call", "call_id": "fc1", "name": "shell", "arguments": '{"cmd": "ls"}'}
    answer = {"id": "r1", "status": "completed", "output": [{"type": "reasoning", "summary": []}, call]}
    first = view(1, {"instructions": "Be brief.", "input": "List the files"}, answer)
    items = [
        {"role": "user", "content": [{"type": "input_text", "text": "List the files"}]},
        {"type": "reasoning", "summary": []},
        call | {"id": "fc_item"},
        {"type": "function_call_output", "call_id": "fc1", "output": "a.txt"},
    ]
    second = view(2, {"instructions": "Be brief.", "input": items}, {"id": "r2", "output": []})
    assert [len(c["turns"]) for c in conversations(first, second)] == [2]
    folded = transcript.request(second)
    assert folded["system"] == "Be brief."
    assert [m["role"] for m in folded["messages"]] == ["user", "assistant", "tool"]
    assert folded["messages"][1]["parts"][1] == {"type": "tool_call", "id": "fc1", "name": "shell",
                                                 "arguments": {"cmd": "ls"}}  # fmt: skip
    assert previews.preview(second)["prompt"] == "a.txt" and previews.preview(second)["prompt_kind"] == "tool_result"


def test_a_responses_turn_that_names_its_previous_response_continues_it() -> None:
    call = {"type": "function_call", "call_id": "fc1", "name": "shell", "arguments": "{}"}
    first = view(1, {"input": "List the files", "store": True}, {"id": "resp_1", "output": [call]})
    result = [{"type": "function_call_output", "call_id": "fc1", "output": "a.txt"}]
    second = view(2, {"input": result, "previous_response_id": "resp_1"}, {"id": "resp_2", "output": []})
    stranger = view(3, {"input": result, "previous_response_id": "resp_9"}, {"id": "resp_3", "output": []})
    found = conversations(first, second, stranger)
    assert [[t["requests"] for t in c["turns"]] for c in found] == [[[1], [2]], [[3]]]


def test_a_messages_loop_chains_and_a_different_answer_starts_a_new_story() -> None:
    tool_use = {"type": "tool_use", "id": "tu1", "name": "Read", "input": {"path": "x.py"}}
    answer = {"id": "m1", "content": [{"type": "text", "text": "Reading it."}, tool_use], "stop_reason": "tool_use"}
    image = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo="}}
    user = {"role": "user", "content": [{"type": "text", "text": "Fix x.py"}, image]}
    first = view(1, {"system": "You code.", "messages": [user]}, answer)
    result = {"type": "tool_result", "tool_use_id": "tu1", "content": [{"type": "text", "text": "print(1)"}]}
    back = [user, {"role": "assistant", "content": answer["content"]}, {"role": "user", "content": [result]}]
    second = view(2, {"system": "You code.", "messages": back}, {"id": "m2", "content": []})
    wrong = [user, {"role": "assistant", "content": [{"type": "text", "text": "Something else."}]}, back[2]]
    third = view(3, {"system": "You code.", "messages": wrong}, {"id": "m3", "content": []})
    assert [[t["requests"] for t in c["turns"]] for c in conversations(first, second, third)] == [
        [[1], [2]],
        [[3]],
    ]
    parts = transcript.request(first)["messages"][0]["parts"]
    assert parts == [{"type": "text", "text": "Fix x.py"}, {"type": "image", "detail": "image/png"}]
    assert "iVBOR" not in str(previews.preview(first)) and previews.preview(first)["prompt"] == "Fix x.py [image]"
    assert previews.preview(first)["tools"] == ["Read"] and previews.preview(first)["answer"] == "Reading it."


def test_the_search_text_holds_the_request_and_the_assembled_answer() -> None:
    asked = {"messages": [{"role": "system", "content": "Speak like a Pirate"}, {"role": "user", "content": "Hi"}]}
    found = previews.text(view(1, asked, chat_answer("Ahoy", ("c", "hoist", '{"sail": "Main"}'))))
    assert "pirate" in found and "ahoy" in found and "hoist" in found and "main" in found
    pending = view(2, asked, None)
    assert previews.preview(pending)["answer"] is None and "pirate" in previews.text(pending)


def test_a_long_preview_is_cut_and_a_body_of_the_wrong_shape_reads_as_nothing() -> None:
    long = view(1, {"messages": [{"role": "user", "content": "word " * 200}]}, None)
    assert len(previews.preview(long)["prompt"]) == previews.WORDS and previews.preview(long)["prompt"].endswith("…")
    odd = view(2, {"messages": "not a list", "input": 5}, {"choices": "nope"})
    assert transcript.request(odd)["messages"] == [] and previews.preview(odd)["prompt"] == ""
    assert transcript.request(view(3, None, None)) == {"system": None, "messages": [], "tools": []}  # type: ignore[arg-type]


def test_a_stream_that_broke_off_previews_as_incomplete() -> None:
    chunk = {"id": "c", "choices": [{"index": 0, "delta": {"content": "Half of"}}]}
    broken = view(1, {"messages": [{"role": "user", "content": "Go on"}]}, None)
    broken["response"] = {"status": 200, "headers": {}, "events": [{"t": 1.0, "data": chunk}]}
    assert previews.preview(broken) | {"answer": "Half of", "complete": False} == previews.preview(broken)
    broken["response"]["events"].append({"t": 2.0, "data": "[DONE]"})
    assert previews.preview(broken)["complete"] is True


def test_tool_calls_of_the_wrong_shape_are_left_out_of_the_fold() -> None:
    odd = {"role": "assistant", "content": "ok", "tool_calls": ["not a call", {"id": "c", "function": "nope"}]}
    folded = transcript.request(view(1, {"messages": [odd]}, None))
    assert folded["messages"] == [{"role": "assistant", "parts": [{"type": "text", "text": "ok"}]}]
