"""The shape of an answer and where two part (`recordings.shapes`): the comparison `emulator drift` and
`emulator conform` share, as a user's own test would call it."""

from __future__ import annotations

import json

from emulator.recordings.shapes import Shape, compare, report, shape_of

JSON = {"content-type": "application/json"}
SSE = {"content-type": "text/event-stream; charset=utf-8"}


def _body(value: object) -> bytes:
    return json.dumps(value).encode()


def _stream(*events: tuple[str | None, object]) -> bytes:
    out = b""
    for name, data in events:
        head = f"event: {name}\n" if name else ""
        payload = data if isinstance(data, str) else json.dumps(data)
        out += f"{head}data: {payload}\n\n".encode()
    return out


def _lines(recorded: Shape, live: Shape) -> list[str]:
    return [str(d) for d in compare(recorded, live)]


def test_values_do_not_matter_only_paths_and_types() -> None:
    a = shape_of(200, JSON, _body({"id": "msg_01Ab3dEf9hIjKlMn", "text": "one", "n": 3, "tags": ["x"]}))
    b = shape_of(200, JSON, _body({"tags": ["q", "r"], "n": 41, "text": "quite another", "id": "msg_01Zz9yXw8vUt"}))
    assert compare(a, b) == []
    assert report(compare(a, b)) == "same"


def test_added_removed_and_retyped_fields_are_each_named_with_the_side_that_has_them() -> None:
    recorded = shape_of(200, JSON, _body({"usage": {"input": 1, "cached": 0}, "stop": "end", "gone": True}))
    live = shape_of(200, JSON, _body({"usage": {"input": 1, "cached": 0, "audio": 2}, "stop": None}))
    assert _lines(recorded, live) == ["- gone", "~ stop: string -> null", "+ usage.audio (integer)"]


def test_ids_are_compared_by_their_prefix_and_alphabet() -> None:
    recorded = shape_of(200, JSON, _body({"id": "resp_68af0c1d2e3f4a5b", "item_id": "fc_9d8e7f6a5b4c3d2e"}))
    same = shape_of(200, JSON, _body({"id": "resp_0123456789abcdef0123", "item_id": "fc_aaaabbbbcccc"}))
    other = shape_of(200, JSON, _body({"id": "chatcmpl-Zq81LmN0pQ2rS3tU", "item_id": "not an id"}))
    assert compare(recorded, same) == []
    assert _lines(recorded, other) == [
        "~ id: id(resp_, hex) -> id(chatcmpl-, base62)",
        "~ item_id: id(fc_, hex) -> string",
    ]
    # A string that is not under an id's key is a string, whatever it looks like.
    assert compare(shape_of(200, JSON, _body({"m": "resp_abcdef12"})), shape_of(200, JSON, _body({"m": "x"}))) == []


def test_arrays_of_objects_compare_by_the_union_of_their_items_paths() -> None:
    # The recorded items, between them, have text and call; the live ones too, split another way.
    recorded = shape_of(200, JSON, _body({"content": [{"type": "text", "text": "a"}, {"type": "call", "call": {}}]}))
    live = shape_of(200, JSON, _body({"content": [{"type": "call", "call": {}}, {"type": "text", "text": "b"}] * 2}))
    assert compare(recorded, live) == []
    fewer = shape_of(200, JSON, _body({"content": [{"type": "text", "text": "a"}]}))
    assert _lines(recorded, fewer) == ["- content[].call"]
    more = shape_of(200, JSON, _body({"content": [{"type": "text", "text": "a", "annotations": []}]}))
    assert _lines(fewer, more) == ["+ content[].annotations (array)"]


def test_status_and_kept_headers_by_name() -> None:
    recorded = shape_of(200, JSON | {"x-request-id": "req_1", "server": "x"}, _body({}))
    live = shape_of(429, JSON | {"retry-after": "3", "date": "today"}, _body({}))
    # `server` and `date` are not headers a cassette keeps: they are no part of the shape.
    assert _lines(recorded, live) == ["~ status: 200 -> 429", "+ header retry-after", "- header x-request-id"]


def test_a_stream_is_its_event_types_with_repeats_collapsed() -> None:
    def stream(deltas: int) -> bytes:
        events = [("a.created", {"type": "a.created", "seq": 0})]
        events += [("a.delta", {"type": "a.delta", "delta": "x" * i}) for i in range(deltas)]
        return _stream(*events, ("a.done", {"type": "a.done"}))

    three, forty = shape_of(200, SSE, stream(3)), shape_of(200, SSE, stream(40))
    assert three.events == ("a.created", "a.delta+", "a.done")
    assert compare(three, forty) == []
    assert compare(three, shape_of(200, SSE, stream(1))) == []  # one delta is a count, not a shape


def test_added_missing_and_reordered_events() -> None:
    base = [("s", {"type": "s"}), ("d", {"type": "d"}), ("d", {"type": "d"}), ("e", {"type": "e"})]
    recorded = shape_of(200, SSE, _stream(*base))
    added = shape_of(200, SSE, _stream(base[0], ("ping", {"type": "ping"}), *base[1:]))
    assert _lines(recorded, added) == ["+ event ping"]
    missing = shape_of(200, SSE, _stream(*base[:3]))
    assert _lines(recorded, missing) == ["- event e"]  # nothing but its type, which every event has
    reordered = shape_of(200, SSE, _stream(base[0], base[3], base[1]))
    assert _lines(recorded, reordered) == ["~ events: s, d+, e -> s, e, d"]


def test_an_event_type_one_side_never_sends_is_named_with_what_it_carries() -> None:
    """`emulator drift` said `- event NAME` alone: a maintainer had to find the recording to see what to add."""
    base = [
        ("response.created", {"type": "response.created", "sequence_number": 0, "response": {"id": "resp_1"}}),
        ("response.output_text.delta", {"type": "response.output_text.delta", "sequence_number": 1, "delta": "Hi"}),
        ("response.completed", {"type": "response.completed", "sequence_number": 2, "response": {"id": "resp_1"}}),
    ]
    summary = {"type": "response.reasoning_summary_part.added", "sequence_number": 1, "item_id": "rs_1"}
    summary |= {"summary_index": 0, "part": {"type": "summary_text", "text": ""}}
    recorded = shape_of(200, SSE, _stream(base[0], ("response.reasoning_summary_part.added", summary), *base[1:]))
    assert _lines(recorded, shape_of(200, SSE, _stream(*base))) == [
        "- event response.reasoning_summary_part.added: item_id (string), part.text (string), part.type (string),"
        " summary_index (integer)"
    ]


def test_each_event_types_fields_are_the_union_of_its_events() -> None:
    recorded = shape_of(200, SSE, _stream(("d", {"type": "d", "a": 1}), ("d", {"type": "d", "b": "x"})))
    live = shape_of(200, SSE, _stream(("d", {"type": "d", "a": 2, "b": None, "c": []})))
    assert _lines(recorded, live) == ["~ d: b: string -> null", "+ d: c (array)"]


def test_chat_chunks_are_typed_by_what_they_carry() -> None:
    def chunk(delta: dict[str, object], finish: str | None = None) -> tuple[None, object]:
        return None, {"id": "chatcmpl-abc123XYZ", "choices": [{"index": 0, "delta": delta, "finish_reason": finish}]}

    usage = (None, {"id": "chatcmpl-abc123XYZ", "choices": [], "usage": {"prompt_tokens": 3}})
    body = _stream(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Hel"}),
        chunk({"content": "lo"}),
        chunk({}, "stop"),
        usage,
        (None, "[DONE]"),
    )
    shape = shape_of(200, SSE, body)
    assert shape.events == ("delta.role", "delta.content+", "finish_reason", "usage", "[DONE]")
    calls = _stream(chunk({"role": "assistant"}), chunk({"tool_calls": [{"index": 0}]}), chunk({}, "tool_calls"))
    assert _lines(shape, shape_of(200, SSE, calls + b"data: [DONE]\n\n")) == [
        "- event delta.content: choices[].delta.content (string)",  # what it carries beside the envelope
        "+ event delta.tool_calls: choices[].delta.tool_calls[].index (integer)",
        "- event usage: usage.prompt_tokens (integer)",
        "- delta.role: choices[].delta.content",  # the recorded first chunk carried `content: ""` too
    ]


def test_a_body_that_is_not_json_has_status_and_headers_only() -> None:
    assert shape_of(502, {"content-type": "text/html"}, b"<html>").fields == {}
