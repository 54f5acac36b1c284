"""YAML read with bounds: what aliases add is bounded, a document's own values are not."""

from __future__ import annotations

import time

import pytest
import yaml

from emulator import yamlfile


def bomb(levels: int, fan: int = 9) -> str:
    """A "billion laughs": each level an anchored list of `fan` aliases to the level before."""
    lines = [f"l0: &l0 [{', '.join(['lol'] * fan)}]"]
    lines += [f"l{i}: &l{i} [{', '.join([f'*l{i - 1}'] * fan)}]" for i in range(1, levels)]
    return "\n".join(lines)


def test_a_document_with_more_values_than_the_alias_bound_and_no_alias_loads(monkeypatch: pytest.MonkeyPatch) -> None:
    """The bound counted every value, aliases or not: a 20,000-interaction cassette was refused as an alias
    bomb. A document's own values cost what parsing them costs, and no more (the bound lowered here to keep
    the test short; `test_recordings` loads a cassette past the real one)."""
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
