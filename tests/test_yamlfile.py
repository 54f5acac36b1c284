"""YAML read with bounds: what aliases add is bounded, a document's own values are not."""

from __future__ import annotations

import datetime
import gc
import time
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from emulator.core import yamlfile
from emulator.recordings import vcr_format


def bomb(levels: int, fan: int = 9) -> str:
    """A "billion laughs": each level an anchored list of `fan` aliases to the level before."""
    lines = [f"l0: &l0 [{', '.join(['lol'] * fan)}]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * fan)}]" for i in range(1, levels)]
    return "\n".join(lines)


def test_a_document_with_more_values_than_the_alias_bound_and_no_alias_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound counted every value, aliases or not: a 20,000-interaction cassette was refused as an alias
    bomb. A document's own values cost what parsing them costs, and no more (the bound lowered here to keep
    the test short; `test_recordings` loads 50,000 interactions, past the real one, with
    EMULATOR_RELIABILITY=long)."""
    monkeypatch.setattr(yamlfile, "MAX_ALIAS_VALUES", 10_000)
    count = 50_000
    text = "values: [" + ", ".join(["1"] * count) + "]\n"
    started = time.perf_counter()
    bare = yaml.load(text, Loader=yamlfile.SafeLoader)
    baseline = time.perf_counter() - started
    started = time.perf_counter()
    assert yamlfile.load(text) == bare
    assert time.perf_counter() - started < 3 * baseline + 0.5
    with pytest.raises(yamlfile.DocumentError, match="more than 10,000 values"):  # while aliases stay bounded
        yamlfile.load(f"one: &one [{', '.join(['1'] * 101)}]\nmore: [{', '.join(['*one'] * 100)}]")


def test_an_alias_bomb_is_refused_naming_the_aliases() -> None:
    started = time.perf_counter()
    with pytest.raises(yamlfile.DocumentError) as caught:
        yamlfile.load(bomb(10))
    assert time.perf_counter() - started < 5  # refused as soon as the aliases pass the bound, not walked
    message = str(caught.value)
    assert "aliases expand to more than 1,000,000 values" in message and "aliases used so far" in message


@pytest.mark.parametrize("levels", [2, 5, 6])
def test_aliases_within_the_bound_load_and_mean_what_they_say(levels: int) -> None:
    document = yamlfile.load(bomb(levels, fan=9))
    assert len(document) == levels and document[f"l{levels - 1}"][0] == (document.get(f"l{levels - 2}") or "lol")


def test_merge_keys_count_as_aliases() -> None:
    wide = "{" + ", ".join(f"k{i}: [{', '.join(['x'] * 100)}]" for i in range(100)) + "}"  # 10,000 values
    merges = "\n".join(f"m{i}: {{<<: *base, own: {i}}}" for i in range(120))  # each copies the 10,000
    assert yamlfile.load(f"base: &base {wide}\n" + "\n".join(merges.splitlines()[:10]))["m9"]["own"] == 9
    with pytest.raises(yamlfile.DocumentError, match="aliases expand"):
        yamlfile.load(f"base: &base {wide}\n{merges}")


def test_a_cycle_and_deep_nesting_are_refused() -> None:
    with pytest.raises(yamlfile.DocumentError, match="infinite"):
        yamlfile.load("a: &a [1, *a]")
    with pytest.raises(yamlfile.DocumentError, match="nest"):
        yamlfile.load("[" * 100_000 + "]" * 100_000)


def pyyamls(text: str, loader: type[Any] = yamlfile.SafeLoader) -> tuple[str, Any]:
    """What PyYAML's own loader makes of `text`: ("value", the document) or ("error", its message in one line)."""
    try:
        return "value", yaml.load(text, Loader=loader)
    except yaml.YAMLError as exc:
        return "error", " ".join(str(exc).split())


def ours(text: str, loader: type[Any] = yamlfile.SafeLoader) -> tuple[str, Any]:
    try:
        return "value", yamlfile.load(text, loader)
    except yamlfile.DocumentError as exc:
        return "error", str(exc)


# Documents of each kind the builder takes itself or leaves to PyYAML's constructor: every implicit type of
# YAML 1.1 (as PyYAML resolves it), explicit tags on scalars and on collections, merge keys and `=`, anchors
# shared and repeated, keys of each kind, and what PyYAML refuses (undefined alias, two documents, an
# unhashable key, an unknown tag, text that is not YAML).
DOCUMENTS = [
    "",
    "# nothing yet\n",
    "plain",
    "on: [yes, No, OFF, y, ~, null, Null, '', 0x1F, 0o17, 017, 0b101, 1_000, -0, +7, 190:20:30, 1e3, 1.5e3, .5, 1.]\n",
    "f: [.inf, -.Inf, .NaN, 3.25, -2.5E-2]\nt: [2001-12-14t21:59:43.10-05:00, 2002-12-14, 2001-12-14 21:59:43.1 +5]\n",
    "q: ['1', \"2\", 'yes', \"null\", \"esc\\u00e9\\t\", 'it''s']\nlit: |\n  line\n  two\nfold: >-\n  a\n  b\n",
    "x: !!str 1\ny: !!int '7'\nz: !!binary aGVsbG8=\nw: !!float '1'\nv: !!bool 'on'\nu: !!null ''\n",
    "s: !!set {a, b}\no: !!omap [a: 1, b: 2]\np: !!pairs [a: 1, a: 2]\nm: !!map {a: 1}\nl: !!seq [1]\n",
    "base: &b {a: 1, b: 2}\nm:\n  <<: *b\n  c: 3\nn: {<<: [*b, {d: 4}], a: 0}\n",
    "= : 1\n",
    "a: =\n",
    "a: ! 12\nb: ! [1]\n",
    "a: !!str [1]\n",
    "k: &a [1, &s two]\nj: *a\ni: {*s : 3, 4: *s, null: 5, true: 6, 1.5: 7, 2001-01-01: 8}\n",
    "a: 1\na: 2\nb: [a, {c: d, c: e}]\n",
    "&r {a: [1, 2], b: {}}",
    "%YAML 1.1\n---\na: 1\n...\n",
    "%TAG !e! tag:yaml.org,2002:\n---\na: !e!int '3'\n",
    "? [1, 2]\n: x\n",
    "? {a: 1}\n: x\n",
    "a: *nope\n",
    "a: &x 1\nb: &x 2\n",
    "--- 1\n--- 2\n",
    "a: !foo 1\n",
    "a: !!seq x\n",
    "a: [\n",
    "a: b: c\n",
    "\t- x",
    "[" * 150 + "]" * 150,
]


@pytest.mark.parametrize("loader", [yamlfile.SafeLoader, vcr_format.CassetteLoader], ids=["safe", "cassette"])
@pytest.mark.parametrize("text", DOCUMENTS)
def test_values_and_errors_are_pyyamls(text: str, loader: type[Any]) -> None:
    """Values are built from the parser's events, not by PyYAML's constructor: each document gives the same
    values (shared where PyYAML shares them) or the same error as PyYAML's loader."""
    mine, theirs = ours(text, loader), pyyamls(text, loader)
    assert mine[0] == theirs[0] and equal(mine[1], theirs[1]), (mine, theirs)


def test_the_python_tags_old_cassettes_hold_are_read_as_vcrpy_reads_them() -> None:
    text = "a: !!python/tuple [1, 2]\nb: !!python/str x\nc: !!python/unicode y\n"
    assert ours(text, vcr_format.CassetteLoader) == ("value", {"a": (1, 2), "b": "x", "c": "y"})
    held = "d: !!python/object/new:_io.BytesIO {state: [!!binary aGk=]}\n"
    assert yamlfile.load(held, vcr_format.CassetteLoader)["d"].read() == b"hi"
    refused = ours("e: !!python/object/apply:os.getcwd []\n", vcr_format.CassetteLoader)
    assert refused == pyyamls("e: !!python/object/apply:os.getcwd []\n", vcr_format.CassetteLoader)
    assert refused[0] == "error" and "could not determine a constructor" in refused[1]


SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False),
    st.text(max_size=12),
    st.sampled_from(["yes", "Off", "~", "1_0", "0x1", "1e3", "<<", "=", "12:30", ".inf", "- x", "? y", "#", "\n"]),
    st.binary(max_size=6),
    st.dates(),
    st.datetimes(timezones=st.sampled_from([None, datetime.UTC])),
)
KEYS = st.one_of(
    st.text(max_size=6), st.integers(), st.booleans(), st.none(), st.dates(), st.sampled_from(["1", "yes", "~", ""])
)
VALUES = st.recursive(
    SCALARS, lambda inner: st.lists(inner, max_size=4) | st.dictionaries(KEYS, inner, max_size=4), max_leaves=25
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(VALUES, st.sampled_from([None, True, False]), st.booleans())
def test_any_document_pyyaml_writes_reads_back_as_pyyaml_reads_it(value: Any, flow: bool | None, shared: bool) -> None:
    if shared and isinstance(value, (list, dict)):
        value = {"one": value, "again": [value, {"more": value}]}  # written with an anchor and aliases
    text = yaml.dump(value, default_flow_style=flow, allow_unicode=True)
    mine, theirs = ours(text), pyyamls(text)
    assert mine == theirs and equal(mine[1], theirs[1]), (text, mine, theirs)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    VALUES,
    st.sampled_from([None, True, False]),
    st.text(max_size=6) | st.sampled_from(["1", "yes", "~", ""]),
    st.booleans(),
)
def test_a_top_key_is_found_from_the_events_as_a_load_finds_it(
    value: Any, flow: bool | None, key: str, tail: bool
) -> None:
    """`has_key` (how `emulator check` tells a cassette, before loading it once) answers as the whole document
    would, for any document PyYAML writes; one broken after the key still has it, one broken before does not."""
    text = yaml.dump(value, default_flow_style=flow, allow_unicode=True)
    loaded = yaml.load(text, yamlfile.SafeLoader)
    assert yamlfile.has_key(text, key) == (isinstance(loaded, dict) and key in loaded)
    if tail:
        assert yamlfile.has_key(text + "\n---\ninteractions: [", key) == yamlfile.has_key(text, key)
    assert yamlfile.has_key("interactions: []\nbroken: [", "interactions")
    assert not yamlfile.has_key("broken: [\ninteractions: []", "interactions")


def equal(a: Any, b: Any) -> bool:
    """Equal, and sharing the same values where the other shares them (what aliases mean)."""
    return a == b and yaml.dump(a) == yaml.dump(b)


def test_an_alias_bomb_is_refused_naming_the_aliases_whichever_way_it_is_built() -> None:
    """A bomb the builder reads itself, and one it leaves to PyYAML's constructor (a merge key in it), are
    both refused by their aliases."""
    for text in (bomb(10), bomb(10) + "\nm: {<<: {a: 1}}"):
        with pytest.raises(yamlfile.DocumentError, match=r"aliases expand to more than 1,000,000 values \("):
            yamlfile.load(text)


def test_values_are_built_quicker_than_pyyamls_constructor_builds_them() -> None:
    """The builder's lever, held: a cassette's values from libyaml's events take well under what PyYAML's
    loader takes (its node graph, then its Python constructor), both with the collector off, measured here in
    processor time (0.3x to 0.4x on the machine this was written on)."""
    item = "- request:\n    body: '{{\"n\": {i}}}'\n    headers:\n      accept: [application/json]\n"
    item += "    method: POST\n  response:\n    status: {{code: 200, message: OK}}\n    body: {{string: ok}}\n"
    text = "interactions:\n" + "".join(item.format(i=i) for i in range(3000))
    timings: dict[str, list[float]] = {"ours": [], "pyyaml": []}
    collecting = gc.isenabled()
    gc.disable()
    try:
        for _ in range(3):
            for name, load in (("ours", yamlfile.load), ("pyyaml", lambda t: yaml.load(t, yamlfile.SafeLoader))):
                started = time.process_time()
                loaded = load(text)
                timings[name].append(time.process_time() - started)
                assert len(loaded["interactions"]) == 3000
    finally:
        if collecting:
            gc.enable()
    assert min(timings["ours"]) < 0.75 * min(timings["pyyaml"]), timings
