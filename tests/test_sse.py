"""SSE framing: what `frame` writes, `decode` reads back, however the bytes are sliced."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from emulator.core import sse, tokens
from emulator.dialects.anthropic_messages import rendering as messages
from emulator.dialects.openai_responses import rendering as responses

payloads = st.lists(
    st.tuples(st.one_of(st.none(), st.from_regex(r"[a-z_.]{1,20}", fullmatch=True)), st.text(max_size=40)), max_size=6
)


@given(payloads, st.lists(st.integers(0, 400), max_size=8), st.sampled_from(["\n", "\r\n", "\r"]))
def test_decode_reads_back_frames_split_anywhere(
    events: list[tuple[str | None, str]], cuts: list[int], eol: str
) -> None:
    sent = [(name, sse.dumps(text)) for name, text in events]
    wire = b"".join(sse.comment("keep-alive") + sse.frame(data, name) for name, data in sent)
    wire = wire.replace(b"\n", eol.encode())
    points = sorted({0, len(wire), *[c for c in cuts if c < len(wire)]})
    pieces = [wire[a:b] for a, b in zip(points, points[1:], strict=False)]
    assert [(e.event, e.data) for e in sse.decode(pieces)] == sent


def test_frame_bytes() -> None:
    assert sse.frame('{"a":1}') == b'data: {"a":1}\n\n'
    assert sse.frame("{}", "ping") == b"event: ping\ndata: {}\n\n"
    assert sse.dumps({"t": "é"}) == '{"t":"é"}'


@given(st.lists(st.text(), max_size=4), st.sampled_from(["text_delta", "thinking_delta"]), st.integers(0, 3))
def test_messages_deltas_spliced_as_text_are_what_dumping_them_writes(pieces: list[str], kind: str, index: int) -> None:
    field = kind.removesuffix("_delta")
    dumped = [
        messages._event({"type": "content_block_delta", "index": index, "delta": {"type": kind, field: p}})
        for p in pieces
    ]
    assert list(messages._deltas(index, kind, field, pieces)) == dumped


@given(st.text(), st.text(max_size=8), st.sampled_from(["", ',"logprobs":[]']))
def test_responses_deltas_spliced_as_text_are_what_dumping_them_writes(text: str, item: str, tail: str) -> None:
    kind, at = "response.output_text.delta", {"item_id": item, "output_index": 1}
    spliced = [
        f'{head}{delta},"sequence_number":7}}\n\n'.encode() for head, delta in responses._deltas(kind, at, text, tail)
    ]
    extra: dict[str, list[str]] = {"logprobs": []} if tail else {}
    fields = [{"type": kind, **at, "delta": p, **extra, "sequence_number": 7} for p in tokens.split(text)]
    assert spliced == [sse.frame(sse.dumps(f), kind) for f in fields]
