"""Scenario files: load and validate them loudly, match a `Prompt`, pick the step or reply.

A file holds `scenarios:`, a list. Each scenario has a unique `name`, an optional `match`, and one of
`reply` (always the same), `steps` (chosen by the assistant turns already in the conversation, so an
agent loop works on any worker) or `replies` (chosen by call count, per API key). Every mistake is
reported at load with the file, the key path and what was expected.

Here: files and documents read into scenarios. Their parsed form, and the `Book` that picks one for a request,
are `form.py` (its names are this module's too, as every caller knows them); one entry read and checked is
`entries.py`.

Layer: beside the recordings, above the default model (faker text in replies), the rules and the core.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from emulator.core import yamlfile
from emulator.scenarios.entries import CALL_KEYS, MATCH_KEYS, REPLY_KEYS, SCENARIO_KEYS, kind_of, scenario
from emulator.scenarios.form import SCENARIO_HEADER, Book, Scenario, ScenarioError

__all__ = [
    "CALL_KEYS",
    "MATCH_KEYS",
    "REPLY_KEYS",
    "SCENARIO_HEADER",
    "SCENARIO_KEYS",
    "Book",
    "Scenario",
    "ScenarioError",
    "load",
    "parse",
    "sources",
    "unique",
    "yaml_files",
]


def load(paths: Iterable[Path], foreign: frozenset[Path] = frozenset()) -> Book:
    """Load scenario files and directories (`*.yaml`, `*.yml`, sorted), but the `foreign` files; raise one error
    listing every mistake."""
    scenarios: list[Scenario] = []
    problems: list[str] = []
    for file in yaml_files(paths):
        if file in foreign:
            continue
        try:
            document = yamlfile.load(file.read_text(encoding="utf-8"))
        except (yamlfile.DocumentError, UnicodeDecodeError) as exc:
            problems.append(f"{file}: not valid YAML: {exc}")
            continue
        if document is None:
            continue
        if not isinstance(document, dict) or set(document) != {"scenarios"}:
            problems.append(f"{file}: expected a mapping with one key, 'scenarios', holding a list")
            continue
        scenarios += _entries(document["scenarios"] or [], f"{file}: scenarios", problems)
    unique(scenarios, problems)
    if problems:
        raise ScenarioError("\n".join(problems))
    return Book(tuple(scenarios))


def parse(document: Any) -> tuple[Scenario, ...]:
    """Scenarios sent at run time (`POST /_emulator/scenarios`): one scenario, or `{"scenarios": [...]}`,
    validated exactly as files are; one error listing every mistake, each with its key path."""
    problems: list[str] = []
    if isinstance(document, dict) and set(document) == {"scenarios"}:
        found = _entries(document["scenarios"], "scenarios", problems)
    else:
        found = _entries([document], "", problems)
    unique(found, problems)
    if problems:
        raise ScenarioError("\n".join(problems))
    return tuple(found)


def sources(document: Any) -> list[Any]:
    """The scenarios of a document `parse` took, as sent, one for each it returned: what a shared store keeps
    and every worker parses again."""
    return list(document["scenarios"]) if isinstance(document, dict) and set(document) == {"scenarios"} else [document]


def _entries(entries: Any, at: str, problems: list[str]) -> list[Scenario]:
    """The scenarios of the list at `at` (`FILE: scenarios`; "" for one scenario on its own), their mistakes
    added to `problems`."""
    if not isinstance(entries, list):
        problems.append(f"{at}: expected a list, got {kind_of(entries)}")
        return []
    found = []
    for i, entry in enumerate(entries):
        try:
            found.append(scenario(entry, f"{at}[{i}]" if at else "scenario"))
        except ScenarioError as exc:
            problems.append(str(exc))
    return found


def unique(scenarios: Sequence[Scenario], problems: list[str]) -> None:
    """Add to `problems` each scenario whose name an earlier one has."""
    seen: dict[str, str] = {}
    for s in scenarios:
        if s.name in seen:
            problems.append(f"{s.source}.name: '{s.name}' is already the name of {seen[s.name]}")
        seen.setdefault(s.name, s.source)


def foreign(folder: Path) -> list[Path]:
    """The YAML files in `folder` that are no scenario files: their document is not a mapping with `scenarios`
    (a load test's config, a compose file), or not YAML at all. A scenario file with mistakes is not foreign."""
    found = []
    for file in yaml_files([folder]) if folder.is_dir() else []:
        try:
            document = yamlfile.load(file.read_text(encoding="utf-8"))
        except (yamlfile.DocumentError, UnicodeDecodeError, OSError):
            found.append(file)
            continue
        if document is not None and not (isinstance(document, dict) and "scenarios" in document):
            found.append(file)
    return found


def yaml_files(paths: Iterable[Path]) -> list[Path]:
    """Files as given, and the `*.yaml` and `*.yml` files in directories, sorted; a missing path is an error."""
    files = []
    for path in paths:
        if path.is_dir():
            files += sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml"))
        elif path.exists():
            files.append(path)
        else:
            raise ScenarioError(f"{path}: no such file or directory")
    return files
