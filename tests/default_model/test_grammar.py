"""`grammar.fill`: a frame filled the same way whichever path fills it (the function generated per frame when
interpreted, the loop when compiled, `str.format_map` as the reference), whatever its literal text holds."""

from __future__ import annotations

import itertools
import string
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.default_model import grammar
from emulator.default_model.grammar import Slots, fill

# Literal text with what an f-string, a repr or a printf form could trip on: braces, quotes, backslashes, percent.
LITERAL = st.text(alphabet=string.ascii_letters + " .,;:'\"\\%{}\n\t·é", max_size=12)
KEY = st.from_regex(r"[a-z][a-z_]{0,6}", fullmatch=True)


@pytest.fixture(params=[True, False], ids=["interpreted", "loop"])
def path(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each test once per way of filling: the generated function, and the loop a compiled build runs."""
    monkeypatch.setattr(grammar, "_INTERPRETED", request.param)
    grammar._READ.clear()
    yield
    grammar._READ.clear()


def _frame(literals: list[str], keys: list[str]) -> str:
    escaped = [text.replace("{", "{{").replace("}", "}}") for text in literals]
    return "".join(f"{text}{{{key}}}" for text, key in zip(escaped, keys, strict=False)) + escaped[-1]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])  # `path` holds for every input alike
@given(keys=st.lists(KEY, max_size=4), data=st.data())
def test_a_frame_says_what_format_map_says(path: None, keys: list[str], data: st.DataObject) -> None:
    literals = data.draw(st.lists(LITERAL, min_size=len(keys) + 1, max_size=len(keys) + 1), label="literals")
    values = {key: data.draw(LITERAL, label=key) for key in keys}
    frame = _frame(literals, keys)
    assert fill(frame, values, sentence=False) == frame.format_map(values)


def test_a_plain_dict_must_say_every_key(path: None) -> None:
    with pytest.raises(KeyError, match="risk"):
        fill("Watch for {risk} in {field}.", {"field": "cooking"})


def test_slots_draw_a_list_anew_each_time_unless_it_is_kept(path: None) -> None:
    lists = {"check": ("a", "b", "c"), "aspect": ("x", "y", "z")}
    slots = Slots({"subject": "sourdough"}, lists, itertools.cycle(range(7)))
    said = fill("{check} then {check}; {aspect} and {aspect}, {Aspect}.", slots)
    first, rest = said.split(" then ")
    second, kept = rest.split("; ")
    assert first.lower() != second  # a "{check}" is said once, the next is another
    aspect = kept.split(" and ")[0]
    assert kept == f"{aspect} and {aspect}, {aspect.capitalize()}."  # "{aspect}" names one thing throughout
    assert said[0].isupper()  # a sentence opening on a slot opens with a capital


def test_verbs_agree_with_the_subject(path: None) -> None:
    one = Slots({"subject": "a starter"}, {}, itertools.cycle([0]))
    many = Slots({"subject": "starters"}, {}, itertools.cycle([0]))
    frame = "{Subject} {v:needs} feeding, and {it} {is} alive."
    assert fill(frame, one) == "A starter needs feeding, and it is alive."
    assert fill(frame, many) == "Starters need feeding, and they are alive."
