"""Scenario files: loud validation at load, matching, explicit picks, steps and replies."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import re2
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator import scenarios
from emulator.answering.compose import Source, calls_key, compose
from emulator.core.conversation import Message, Prompt, Tool, Turn
from emulator.core.errors import InvalidRequest
from emulator.scenarios import entries
from emulator.state import Settings, State
from tests.conftest import BUNDLED, SCENARIOS


def prompt(text: str = "hi", model: str = "m", **fields: object) -> Prompt:
    return Prompt(dialect="t", model=model, messages=(Message("user", text),), fingerprint="f", **fields)  # type: ignore[arg-type]


def load_text(tmp_path: Path, text: str) -> scenarios.Book:
    path = tmp_path / "s.yaml"
    path.write_text(text)
    return scenarios.load([path])


def test_bundled_and_test_scenarios_load() -> None:
    book = scenarios.load([SCENARIOS, BUNDLED])
    assert "weather-agent" in book.models and "plain-text" in book.models


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("scenarios: 3", "scenarios: expected a list, got an integer"),
        ("other: []", "expected a mapping with one key, 'scenarios'"),
        ("scenarios: [{reply: {text: x}}]", "scenarios[0].name: missing"),
        ("scenarios: [{name: a}]", "scenarios[0]: expected exactly one of reply, steps, replies; got none"),
        ("scenarios: [{name: a, reply: {text: x}, steps: []}]", "got reply, steps"),
        ("scenarios: [{name: a, reply: {txt: x}}]", "scenarios[0].reply.txt: unknown key; expected one of reasoning"),
        ("scenarios: [{name: a, steps: []}]", "scenarios[0].steps: expected a non-empty list"),
        ("scenarios: [{name: a, reply: {finish_reason: done}}]", "scenarios[0].reply.finish_reason: expected one of"),
        (
            "scenarios: [{name: a, reply: {usage: {input_tokens: -1}}}]",
            "reply.usage.input_tokens: expected a non-negative",
        ),
        ("scenarios: [{name: a, reply: {tool_calls: [{arguments: {}}]}}]", "reply.tool_calls[0].name: missing"),
        ("scenarios: [{name: a, reply: {tool_calls: [{name: f, arguments: 3}]}}]", "tool_calls[0].arguments: expected"),
        ("scenarios: [{name: a, reply: {text: {faker: poem}}}]", "reply.text.faker: expected one of paragraph"),
        ("scenarios: [{name: a, reply: {text: {faker: words, count: 0}}}]", "reply.text: expected one count"),
        ("scenarios: [{name: a, match: {last_user: {regex: '('}}, reply: {}}]", "match.last_user.regex: not a valid"),
        ("scenarios: [{name: a, match: {tools: maybe}, reply: {}}]", "match.tools: expected true"),
        ("scenarios: [{name: a, match: {colour: red}, reply: {}}]", "match.colour: unknown key"),
        ("scenarios: [{name: a, reply: {}}, {name: a, reply: {}}]", "scenarios[1].name: 'a' is already the name of"),
        ("scenarios: [{name: a, reply: {}", "not valid YAML"),
    ],
)
def test_mistakes_name_the_file_and_key(tmp_path: Path, text: str, message: str) -> None:
    with pytest.raises(scenarios.ScenarioError) as caught:
        load_text(tmp_path, text)
    assert str(tmp_path / "s.yaml") in str(caught.value)
    assert message in str(caught.value)


def test_every_mistake_is_reported_at_once(tmp_path: Path) -> None:
    with pytest.raises(scenarios.ScenarioError) as caught:
        load_text(tmp_path, "scenarios: [{name: a}, {name: b, reply: {bad: 1}}]")
    assert len(str(caught.value).splitlines()) == 2


def test_every_mistake_within_one_scenario_is_reported(tmp_path: Path) -> None:
    text = """scenarios:
  - name: 7
    colour: red
    match: {last_user: {regex: "("}, model: [x], tools: maybe}
    steps:
      - {finish_reason: done, usage: {input_tokens: -1, output_tokens: x}}
      - {fault: {kind: explode}, text: {faker: poem}, tool_calls: [{arguments: {}}]}
"""
    with pytest.raises(scenarios.ScenarioError) as caught:
        load_text(tmp_path, text)
    at = f"{tmp_path / 's.yaml'}: scenarios[0]"
    lines = str(caught.value).splitlines()
    assert all(line.startswith(at) for line in lines)
    expected = [
        ".colour: unknown key",
        ".name: expected a string",
        ".match.last_user.regex: not a valid regular expression",
        ".match.tools: expected true",
        ".match.model: expected a string",
        ".steps[0].finish_reason: expected one of",
        ".steps[0].usage.input_tokens: expected a non-negative integer",
        ".steps[0].usage.output_tokens: expected a non-negative integer",
        ".steps[1].text.faker: expected one of",
        ".steps[1].tool_calls[0].name: missing",
        ".steps[1].fault.kind",
    ]
    for part in expected:
        assert sum(line.startswith(at + part) for line in lines) == 1, (part, lines)
    assert len(lines) == len(expected)


def test_missing_path_is_an_error(tmp_path: Path) -> None:
    with pytest.raises(scenarios.ScenarioError, match="no such file"):
        scenarios.load([tmp_path / "absent.yaml"])


def test_match_rules(tmp_path: Path) -> None:
    book = load_text(
        tmp_path,
        """
scenarios:
  - {name: glob, match: {model: "gpt-*"}, reply: {text: glob}}
  - {name: words, match: {last_user: weather}, reply: {text: words}}
  - {name: regex, match: {last_user: {regex: "^\\\\d+$"}}, reply: {text: regex}}
  - {name: tools, match: {tools: true}, reply: {text: tools}}
  - {name: header, match: {header: {X-Team: "qa"}}, reply: {text: header}}
  - {name: both, match: {model: exact, last_user: go}, reply: {text: both}}
""",
    )

    def picked(p: Prompt) -> str | None:
        s = book.pick(p)
        return s.name if s else None

    assert picked(prompt(model="gpt-4o")) == "glob"
    assert picked(prompt("How is the WEATHER?")) == "words"
    assert picked(prompt("12345")) == "regex"
    assert picked(prompt("12345x")) is None
    assert picked(prompt(tools=(Tool("f"),))) == "tools"
    assert picked(prompt(headers={"x-team": "qa"})) == "header"
    assert picked(prompt("go", model="exact")) == "both"
    assert picked(prompt("stop", model="exact")) is None
    assert picked(prompt(model="gpt-4o", headers={"x-emulator-scenario": "words"})) == "words"
    assert picked(prompt(model="header")) == "header"
    with pytest.raises(InvalidRequest, match="known: both, glob, header, regex, tools, words"):
        book.pick(prompt(headers={"x-emulator-scenario": "nope"}))
    assert book.models == ("exact", "glob", "words", "regex", "tools", "header", "both")


def test_a_regex_cannot_stall_matching(tmp_path: Path) -> None:
    """`^(a+)+$` against 26 characters took 3.6 s with Python's backtracking `re` (doubling per character);
    RE2 matches in linear time. Measured against a trivial pattern on the same input, in the same test."""
    book = load_text(
        tmp_path,
        """
scenarios:
  - {name: backtracking, match: {model: nested, last_user: {regex: "^(a+)+$"}}, reply: {text: x}}
  - {name: trivial, match: {model: plain, last_user: {regex: "^b"}}, reply: {text: x}}
""",
    )
    text = "a" * 26 + "b"

    def timed(model: str) -> float:
        started = time.perf_counter()
        for _ in range(20):
            assert book.pick(prompt(text, model=model)) is None
        return time.perf_counter() - started

    baseline = min(timed("plain") for _ in range(3))
    assert min(timed("nested") for _ in range(3)) < 4 * baseline + 0.05


# Pieces of RE2 patterns, case folding, anchors, classes and Unicode among them, and texts of the same letters.
_PIECES = ["a", "b", "é", "日", ".", "\\d+", "[a-c]", "\\s*", "(?i)A", "^", "$", "\\b", "(?:ab|é)", "x?", "[^a]", "\\w"]
_LETTERS = "abcABé日É 1\n"


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(_PIECES), min_size=1, max_size=5), st.text(_LETTERS, max_size=12))
def test_a_regex_is_found_where_google_re2s_search_finds_it(pieces: list[str], text: str) -> None:
    """Matching asks the compiled pattern directly (`entries._Found`), not google-re2's `search`, which
    builds a match object in Python; whether a pattern is found must not change with it."""
    pattern = "".join(pieces)
    try:
        theirs = re2.compile(pattern, entries._RE2)
    except re2.error:
        return
    ours = entries._regex(pattern, "at")
    assert type(ours).__name__ == "_Found"  # the direct way is taken with the google-re2 installed
    assert (ours.search(text) is not None) == (theirs.search(text) is not None), (pattern, text)


@pytest.mark.parametrize("pattern", ["(?=x)", "(a)\\\\1", "("])
def test_a_regex_outside_re2_is_refused_at_load(tmp_path: Path, pattern: str) -> None:
    with pytest.raises(scenarios.ScenarioError, match="not a valid regular expression in RE2's syntax"):
        load_text(tmp_path, f'scenarios: [{{name: a, match: {{last_user: {{regex: "{pattern}"}}}}, reply: {{}}}}]')


def test_a_yaml_alias_bomb_is_refused_at_once(tmp_path: Path) -> None:
    """A 300-byte "billion laughs" (nine aliases, nine levels deep) hung `emulator check` for minutes."""
    lines = ["scenarios: [{name: a, reply: {text: x}}]", "lol0: &l0 [x, x, x, x, x, x, x, x, x]"]
    lines += [f"lol{i}: &l{i} [{', '.join([f'*l{i - 1}'] * 9)}]" for i in range(1, 10)]
    started = time.perf_counter()
    with pytest.raises(scenarios.ScenarioError, match="one key, 'scenarios'"):  # the same file, no aliases
        load_text(tmp_path, "\n".join(line.replace("*", "") for line in lines))
    baseline = time.perf_counter() - started
    started = time.perf_counter()
    with pytest.raises(scenarios.ScenarioError, match="aliases expand to more than 1,000,000 values"):
        load_text(tmp_path, "\n".join(lines))
    assert time.perf_counter() - started < 20 * baseline + 0.5  # it was minutes


def answerer(tmp_path: Path, text: str) -> tuple[State, Callable[[Prompt], Turn]]:
    """A server's state over one scenario file, and its answers to prompts as stage 3 of the pipeline picks and
    composes them, counting calls in the state."""
    load_text(tmp_path, text)
    state = State(Settings(scenarios=(tmp_path / "s.yaml",)))

    async def ask(p: Prompt) -> Turn:
        source = Source(scenario=state.book.pick(p))
        key = calls_key(source.scenario, p)
        calls = await state.counts.next_call(key) if key else 0
        return compose(p, source, state.writer, calls, created=0, speed=1.0)

    return state, lambda p: asyncio.run(ask(p))


def test_steps_count_assistant_turns_and_repeat_the_last(tmp_path: Path) -> None:
    _, answer = answerer(tmp_path, "scenarios: [{name: s, steps: [{text: one}, {text: two}]}]")
    history = [Message("user", "go")]
    seen = []
    for _ in range(3):
        turn = answer(Prompt(dialect="t", model="s", messages=tuple(history)))
        seen.append(turn.text)
        history += [Message("assistant", turn.text), Message("user", "again")]
    assert seen == ["one", "two", "two"]


def test_replies_count_calls_per_key(tmp_path: Path) -> None:
    state, answer = answerer(tmp_path, "scenarios: [{name: r, replies: [{text: one}, {text: two}]}]")
    texts = [answer(prompt(model="r", api_key=key)).text for key in ("a", "a", "b", "a")]
    assert texts == ["one", "two", "one", "two"]
    asyncio.run(state.reset())
    assert answer(prompt(model="r", api_key="a")).text == "one"


def test_faker_text_is_deterministic_per_request(tmp_path: Path) -> None:
    _, answer = answerer(tmp_path, "scenarios: [{name: f, reply: {text: {faker: sentences, sentences: 2}}}]")
    same = [answer(prompt(model="f")).text for _ in range(2)]
    other = answer(Prompt(dialect="t", model="f", messages=(), fingerprint="g")).text
    assert same[0] == same[1] != other
    assert same[0].count(".") == 2
