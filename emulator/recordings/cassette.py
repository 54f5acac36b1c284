"""Cassette files read: each checked (`shape`), a last interaction cut short by a killed recorder left out,
and every mistake in every file reported at once; `load` makes a `Library` of them.
"""

from __future__ import annotations

import gc
import logging
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from emulator.core import yamlfile
from emulator.recordings import vcr_format
from emulator.recordings.library import Library, Reader
from emulator.recordings.recording import Recording, recordings_of
from emulator.recordings.scrub import DEFAULT_SCRUBS, SCRUB_KEY, Scrubber
from emulator.recordings.validity import cassette_problems
from emulator.recordings.vcr_format import PACING

_log = logging.getLogger("emulator.recordings")


class CassetteError(ValueError):
    """Cassettes are malformed; the message has one line per mistake: the file, the key path, what is wrong."""


def load(paths: Sequence[Path], readers: Mapping[str, Reader] = {}, scrubber: Scrubber | None = None) -> Library:
    """Read cassettes (files, or `*.yaml`/`*.yml` in directories, sorted) with vcrpy's safe loader; an empty
    file holds nothing, a missing path is an error, a malformed cassette a `CassetteError` that lists every
    mistake in every file. `readers` (by path from `/v1/` on) index the conversations for cross-dialect
    replay. The cyclic garbage collector waits until the library is built: indexing makes a few objects per
    value and almost no garbage cycles, and each full collection it set off walked every value loaded so far
    (on a large library, much of the load's processor time: docs/reliability.md)."""
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _loaded(paths, readers, scrubber)
    finally:
        if collecting:
            gc.enable()


def _loaded(paths: Sequence[Path], readers: Mapping[str, Reader], scrubber: Scrubber | None) -> Library:
    files: list[Path] = []
    for path in paths:
        if not path.exists():
            raise FileNotFoundError(f"no cassette or directory at {path}")
        files += sorted(p for p in path.iterdir() if p.suffix in (".yaml", ".yml")) if path.is_dir() else [path]
    found: list[Recording] = []
    problems: list[str] = []
    scrubs = list(scrubber.scrubs if scrubber else DEFAULT_SCRUBS)
    for file in files:
        try:
            document = document_of(file)
        except CassetteError as exc:
            problems.append(str(exc))
            continue
        found += _read(file, document)
        scrubs += [(s["pattern"], s["replace"]) for s in (document or {}).get(SCRUB_KEY) or []]
    if problems:
        raise CassetteError("\n".join(problems))
    return Library(found, readers, Scrubber(scrubs))


def read(file: Path) -> list[Recording]:
    """One cassette's interactions; the YAML is parsed once, checked, then handed to vcrpy's reader."""
    return _read(file, document_of(file))


def _read(file: Path, document: Any) -> list[Recording]:
    if document is None:
        return []  # an empty file, as vcrpy sees it: nothing recorded yet
    requests, responses = vcr_format.read(document)
    return list(recordings_of(file.name, requests, responses, pacing_of(document)))


def document_of(file: Path) -> Any:
    """A cassette file's document, checked. A last interaction cut short (a recorder killed mid-write: the
    text does not parse, or only its last item is incomplete) is left out with a warning, the rest read."""
    return read_document(file)[0]


def read_document(file: Path) -> tuple[Any, bool]:
    """`document_of`, and whether the file was read whole (False: a last interaction cut short was left out)."""
    try:
        text = file.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise CassetteError(f"{file}: not a readable file: {exc}") from None
    try:
        return _checked(file, text), True
    except CassetteError as whole:
        cut = text.rfind("\n- ")
        if cut < 0 or not appendable(text[: cut + 1]) or not _cut_short(whole, text):
            raise
        try:
            document = _checked(file, text[: cut + 1])
        except CassetteError:
            raise whole from None
        _log.warning("%s: its last interaction is incomplete (cut short while written): left out", file)
        return document, False


def _checked(file: Path, text: str) -> Any:
    try:
        document = _document(text)
    except yamlfile.DocumentError as exc:
        raise CassetteError(f"{file}: not a readable YAML file: {exc}") from None
    if document is not None and (problems := list(cassette_problems(document))):
        raise CassetteError("\n".join(f"{file}: {p}" for p in problems))
    return document


def _cut_short(error: CassetteError, text: str) -> bool:
    """Whether an unreadable cassette looks cut short rather than written wrong: it does not parse, or its
    text stops mid-line, or every mistake is in its last interaction."""
    lines = str(error).splitlines()
    last = f"interactions[{text.count(chr(10) + '- ') - 1}]"
    return "not a readable YAML file" in lines[0] or not text.endswith("\n") or all(last in line for line in lines)


def is_cassette_file(file: Path) -> bool:
    """Whether a file means to be a cassette: YAML with `interactions` at the top (`emulator check` sorts by it)."""
    try:
        return yamlfile.has_key(file.read_text(encoding="utf-8"), "interactions")
    except (OSError, UnicodeDecodeError):
        return False  # the scenario loader says what is wrong with it


def _document(text: str) -> Any:
    """A cassette's YAML, by vcrpy's safe cassette loader (which knows the few Python tags old cassettes
    hold), with the bounds of `yamlfile`."""
    return yamlfile.load(text, vcr_format.CassetteLoader)


def appendable(text: str) -> bool:
    """Whether a cassette's text ends with its `interactions`, in block style, so that items can follow."""
    tops = [line for line in text.splitlines() if line and not line[0].isspace() and not line.startswith("-")]
    return bool(tops) and tops[-1] == "interactions:"


def items(document: Mapping[str, Any]) -> list[dict[str, Any]]:
    """A cassette's interactions, each with its pacing moved in from the older layout's `metadata`."""
    pacing = pacing_of(document)
    return [dict(item) | {PACING: pacing[i]} for i, item in enumerate(document["interactions"])]


def pacing_of(document: Mapping[str, Any]) -> list[Any]:
    """Each interaction's pacing: its own `emulator_pacing`, else the older layout's list in `metadata`."""
    interactions = document["interactions"]
    older = (document.get("metadata") or {}).get(PACING) or []
    return [item.get(PACING, older[i] if i < len(older) else None) for i, item in enumerate(interactions)]
