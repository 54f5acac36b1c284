"""The cassette being recorded into (`Tape`): one interaction appended as each answer ends."""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from emulator.recordings import vcr_format
from emulator.recordings.cassette import appendable, document_of, items
from emulator.recordings.recording import Recording, recording_of
from emulator.recordings.scrub import SCRUB_KEY


class Tape:
    """A cassette being recorded into: what it held when opened, then one interaction appended as each answer
    ends, in one write and an fsync, so that a killed recorder keeps every interaction it finished and a save
    costs the same after a thousand interactions as after one (vcrpy saves only when a cassette closes, and
    then rewrites it whole).

    The file is vcrpy's format with `interactions` last, each carrying its pacing as `emulator_pacing` (a key
    vcrpy ignores): `version: 1`, then `interactions:` and one YAML item per interaction. A cassette in the
    older layout (pacing in `metadata`) is rewritten once in this one, atomically, before the first append."""

    def __init__(self, path: Path, scrubs: Sequence[tuple[str, str]] = ()) -> None:
        self.path = path
        self.scrubs = [{"pattern": p, "replace": r} for p, r in scrubs]  # written once, when the file is made
        self.items: list[dict[str, Any]] = []  # as stored: request, response, emulator_pacing
        if path.exists() and path.read_text(encoding="utf-8").strip():
            document = document_of(path)  # a malformed cassette is refused before anything is appended
            self.items = items(document)
            self.scrubs = document.get(SCRUB_KEY) or []
            if not appendable(path.read_text(encoding="utf-8")):
                self._rewrite()
        self.loaded = len(self.items)  # interactions that were in the file when it was opened

    def recordings(self) -> Iterator[Recording]:
        for i, item in enumerate(self.items):
            yield recording_of(f"{self.path.name}#{i}", *vcr_format.parts(item))

    def add(
        self,
        method: str,
        uri: str,
        body: str,
        headers: dict[str, str],
        response: dict[str, Any],
        pacing: dict[str, Any],
        replace: bool = False,
    ) -> Recording:
        """Append an interaction and save it; `replace`: a held one the request matches goes (a rewrite)."""
        item = vcr_format.stored(method, uri, body, headers, response, pacing)
        request = vcr_format.Request(method, uri, body, headers)
        held = [i for i, old in enumerate(self.items[: self.loaded]) if vcr_format.same(request, old)]
        self.items.append(item)
        if replace and held:  # re-recorded: the loaded interaction it matches goes
            del self.items[held[0]]
            self.loaded -= 1
            self._rewrite()
        else:
            self._append(item)
        return recording_of(f"{self.path.name}#{len(self.items) - 1}", *vcr_format.parts(item))

    def _append(self, item: dict[str, Any]) -> None:
        text = vcr_format.serialize([item])
        if not self.path.exists() or not self.path.stat().st_size:
            text = self._header() + text
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)  # prompts and answers: the owner's
        try:
            os.write(fd, text.encode("utf-8"))
            os.fsync(fd)
        finally:
            os.close(fd)

    def _header(self) -> str:
        """What the file begins with: the version, the cassette's own scrubbers if any, then `interactions:`."""
        scrubs = vcr_format.serialize({SCRUB_KEY: self.scrubs}) if self.scrubs else ""
        return f"version: 1\n{scrubs}interactions:\n"

    def _rewrite(self) -> None:
        """The whole cassette anew, atomically: a temporary file beside it, then `os.replace`."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        mode = self.path.stat().st_mode & 0o777 if self.path.exists() else 0o600
        fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            os.fchmod(fd, mode)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self._header() + (vcr_format.serialize(self.items) if self.items else ""))
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, self.path)
        except BaseException:
            os.unlink(temp)
            raise
