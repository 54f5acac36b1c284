"""The cassette being recorded into (`Tape`): one interaction appended as each answer ends, safely however
many recorders write the same file.

Every write holds the cassette's lock (`locking`) across reading what is on disk, merging and writing, so
that no recorder writes the file from a stale copy: an append goes at the end of the file as it is now, and a
re-recording (`--mode all`) re-reads the file and replaces only the interaction this recorder loaded and
re-recorded, keeping whatever other recorders wrote meanwhile.
"""

from __future__ import annotations

import os
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from emulator.recordings import vcr_format
from emulator.recordings.cassette import appendable, items, read_document
from emulator.recordings.locking import locked
from emulator.recordings.recording import Recording, recording_of
from emulator.recordings.scrub import SCRUB_KEY

Stamp = tuple[int, int, int, int]  # a file's device, inode, size and modification time, in nanoseconds


class Tape:
    """A cassette being recorded into: what it held when opened, then one interaction appended as each answer
    ends, in one write and an fsync, so that a killed recorder keeps every interaction it finished and a save
    costs the same after a thousand interactions as after one (vcrpy saves only when a cassette closes, and
    then rewrites it whole).

    The file is vcrpy's format with `interactions` last, each carrying its pacing as `emulator_pacing` (a key
    vcrpy ignores): `version: 1`, then `interactions:` and one YAML item per interaction. A cassette in the
    older layout (pacing in `metadata`), or whose last interaction was cut short by a killed recorder, is
    rewritten once in this one, atomically, before the first append."""

    def __init__(self, path: Path, scrubs: Sequence[tuple[str, str]] = ()) -> None:
        self.path = path
        self.scrubs = [{"pattern": p, "replace": r} for p, r in scrubs]  # written once, when the file is made
        self._known: Stamp | None = None  # the file as this tape last left it (None: not known)
        self._count = 0  # interactions in the file then
        self.items: list[dict[str, Any]] = []  # as stored: request, response, emulator_pacing
        if path.exists():  # (a recorder that only replays creates nothing)
            with locked(path, reading=True):  # (a rewrite, if one is due, fails there as it would anyway)
                self.items = self._read_in()
        self.loaded = len(self.items)  # interactions that were in the file when it was opened
        # Those this session may replace: what it loaded and has not re-recorded yet. Never what another
        # recorder wrote, nor what this one recorded.
        self._held = list(self.items)

    def recordings(self) -> Iterator[Recording]:
        """The interactions the file held when the tape was opened, named `FILE#N`."""
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
        """Save an interaction; `replace`: the held one the request matches goes (a rewrite), else it is
        appended."""
        item = vcr_format.stored(method, uri, body, headers, response, pacing)
        request = vcr_format.Request(method, uri, body, headers)
        with locked(self.path):
            if replace and any(vcr_format.same(request, old) for old in self._held):
                index = self._replace(request, item)
            else:
                index = self._append(item)
        return recording_of(f"{self.path.name}#{index}", *vcr_format.parts(item))

    def _read_in(self) -> list[dict[str, Any]]:
        """What the file holds (under the lock), rewritten in the appendable layout if it is not in it."""
        found = self._on_disk()
        if found is None:
            return []
        held, scrubs, ready = found
        self.scrubs = scrubs
        if ready:
            self._remember(len(held))
        else:
            self._rewrite(held)
        return held

    def _on_disk(self) -> tuple[list[dict[str, Any]], list[Any], bool] | None:
        """The file's interactions, its scrubbers, and whether an item can be appended to it as it is; None
        when there is no file or no document in it. A malformed cassette is refused (`CassetteError`)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        if not text.strip():
            return None
        document, whole = read_document(self.path)
        if document is None:
            return None
        ready = whole and text.endswith("\n") and appendable(text)
        return items(document), document.get(SCRUB_KEY) or [], ready

    def _append(self, item: dict[str, Any]) -> int:
        """Append an item at the end of the file as it is now (the lock held); its index in the file."""
        text = vcr_format.serialize([item])
        if not self._appendable():
            found = self._on_disk()
            if found is None or not found[2]:  # nothing to append to, or not as it is: the whole file anew
                held = found[0] if found else []
                self.scrubs = found[1] if found else self.scrubs
                return self._rewrite([*held, item]) - 1
            self._count = len(found[0])
        if not self.path.exists() or not self.path.stat().st_size:
            text = self._header(self.scrubs) + text
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)  # prompts and answers: the owner's
        try:
            _append_whole(fd, text)
        finally:
            os.close(fd)
        self._remember(self._count + 1)
        return self._count - 1

    def _appendable(self) -> bool:
        """Whether the file is as this tape left it, or only grown by appends since (another recorder's,
        counted): cheap, so that an append costs the same however long the file. False: it must be read."""
        stamp = _stamp(self.path)
        if stamp is None:  # gone: a new file
            self._count = 0
            return True
        if self._known is None or stamp[:2] != self._known[:2] or stamp[2] < self._known[2]:
            return False  # never read, replaced (renamed over) or shrunk: read it whole
        if stamp == self._known:
            return True
        with open(self.path, "rb") as f:
            f.seek(self._known[2])
            grown = f.read()
        if not (grown.startswith(b"- ") and grown.endswith(b"\n")):
            return False  # not items appended whole (a recorder stopped mid-write, or the file edited)
        self._count += grown.count(b"\n- ") + 1
        return True

    def _replace(self, request: Any, item: dict[str, Any]) -> int:
        """Re-read the file (the lock held), drop the held interaction `request` re-records, append `item`,
        and write it whole; the new item's index."""
        found = self._on_disk()
        current, scrubs = (found[0], found[1]) if found else ([], self.scrubs)
        self.scrubs = scrubs
        for i, old in enumerate(current):
            if vcr_format.same(request, old) and old in self._held:
                del current[i]
                self._held.remove(old)
                break
        return self._rewrite([*current, item]) - 1

    def _header(self, scrubs: list[Any]) -> str:
        """What the file begins with: the version, the cassette's own scrubbers if any, then `interactions:`."""
        written = vcr_format.serialize({SCRUB_KEY: scrubs}) if scrubs else ""
        return f"version: 1\n{written}interactions:\n"

    def _rewrite(self, stored: list[dict[str, Any]]) -> int:
        """The whole cassette anew, atomically: a temporary file beside it, then `os.replace`; how many
        interactions it holds."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        mode = self.path.stat().st_mode & 0o777 if self.path.exists() else 0o600
        fd, temp = tempfile.mkstemp(prefix=f".{self.path.name}.", dir=self.path.parent)
        try:
            os.fchmod(fd, mode)
            with os.fdopen(fd, "w", encoding="utf-8") as f:
                f.write(self._header(self.scrubs) + (vcr_format.serialize(stored) if stored else ""))
                f.flush()
                os.fsync(f.fileno())
            os.replace(temp, self.path)
        except BaseException:
            os.unlink(temp)
            raise
        _sync_folder(self.path.parent)
        self._remember(len(stored))
        return len(stored)

    def _remember(self, count: int) -> None:
        self._known, self._count = _stamp(self.path), count


def _append_whole(fd: int, text: str) -> None:
    """Append `text` and sync it, all or nothing: a write that fails partway (the disk full) is taken back, the
    file cut to where it ended before, so that it stays a valid cassette with every earlier interaction, and
    recording carries on once there is room again. Cutting a file needs no room. Encoded a piece at a time: a
    large answer's text is not copied whole once more."""
    start = os.fstat(fd).st_size
    try:
        for at in range(0, len(text), _PIECE):
            view = memoryview(text[at : at + _PIECE].encode("utf-8"))
            while view:
                view = view[os.write(fd, view) :]
        os.fsync(fd)
    except OSError:
        try:
            os.ftruncate(fd, start)
            os.fsync(fd)
        except OSError:
            pass
        raise


_PIECE = 1 << 20  # characters encoded and written at a time


def _stamp(path: Path) -> Stamp | None:
    try:
        s = path.stat()
    except FileNotFoundError:
        return None
    return (s.st_dev, s.st_ino, s.st_size, s.st_mtime_ns)


def _sync_folder(folder: Path) -> None:
    """Make a rename in `folder` durable (where the system lets a folder be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
