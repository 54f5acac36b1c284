"""`emulator serve --watch`: scenario files and cassettes added, changed or removed take effect without a
restart, however they are saved. The home of watchfiles.

Editors, `sed -i` and git save a file by writing a new one and renaming it over the old, and `git checkout`
or a cache restore deletes a folder and makes it anew: a watch on the file or the folder itself would follow
the old one and go deaf. So each path is watched from where it lives (`Spot`): a file from its folder, not
recursively, keeping only the changes to that file; a folder recursively; and when the folder a path lives
in is gone, its nearest existing ancestor is polled, not recursively, until it is back (a repository root is
never watched recursively). Where the paths are watched from is checked again after every batch of changes
and every quarter of a second.

Every reload logs one line: what changed, and what is served now (how many scenarios and recordings, from
where). A file that fails validation logs its file, key and error, and its last good version stays in
service; a watched path that is gone keeps the whole last good set until it is back, and says so.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

import watchfiles

from emulator.state import State

_log = logging.getLogger("emulator.http.watch")
TICK = 0.25  # seconds between checks of where the paths are watched from
SUFFIXES = (".yaml", ".yml")  # what a folder's loader reads of it
# Seconds a file that had content may stay empty before it is read so: `open(…, "w")`, `>` and `write_text`
# empty a file, then write it. Read between the two (a tick can fall there on a busy machine), an empty file is a
# valid one, of no scenarios: it was served, and then taken as the last good version of the write that followed.
EMPTIED = 1.0


@dataclass(frozen=True, slots=True)
class Spot:
    """Where a path is watched from: `root`, recursively or not, polled (an ancestor standing in for a folder
    that is gone) or by the system's notifications."""

    root: Path
    recursive: bool
    polled: bool


def spot(path: Path) -> Spot:
    """Where to watch `path` from, as things are on disk now."""
    if path.is_dir():
        return Spot(path, recursive=True, polled=False)
    if path.parent.is_dir():
        return Spot(path.parent, recursive=False, polled=False)
    ancestor = next(a for a in path.parents if a.is_dir())  # the root at least
    return Spot(ancestor, recursive=False, polled=True)


def relevant(change: Path, path: Path) -> bool:
    """Whether a change at `change` may change what `path` serves: the path itself, a YAML file directly in it
    (a folder's loader reads no deeper), or a folder on the way to it (made again, or gone)."""
    return change == path or (change.parent == path and change.suffix in SUFFIXES) or change in path.parents


def start(state: State, debounce_ms: int = 200, seen: Fingerprint | None = None) -> threading.Event:
    """Watch `state`'s scenario and recording paths in a daemon thread; set the event returned to stop it.
    `seen`: the files as they were before the state was loaded (`fingerprint`), so that a change made while it
    loaded is read at the first tick; else as they are now."""
    _log.setLevel(logging.INFO)  # the reload lines, heard by the logging a host set up too
    stop = threading.Event()
    paths = _watched([*state.settings.scenarios, *state.settings.recordings])
    watcher = _Watcher(state, paths, stop, debounce_ms, seen)
    threading.Thread(target=watcher.run, daemon=True, name="watch").start()
    return stop


def _watched(paths: Iterable[Path]) -> list[Path]:
    """The paths as absolute ones, and where a path is a link, what it links to as well."""
    found: dict[Path, None] = {}
    for path in paths:
        found[path.absolute()] = None
        found[path.resolve()] = None
    return list(found)


class _Watcher:
    def __init__(
        self, state: State, paths: Sequence[Path], stop: threading.Event, debounce_ms: int, seen: Fingerprint | None
    ) -> None:
        self.state, self.paths, self.stop, self.debounce_ms = state, paths, stop, debounce_ms
        self.changes: queue.Queue[set[Path]] = queue.Queue()
        self.gone: tuple[Path, ...] = ()  # the watched paths found gone, last time
        self.seen = _fingerprint(paths) if seen is None else seen  # the files as the state last read them
        self.emptied: float | None = None  # when a file that had content was first found empty, waiting

    def run(self) -> None:
        plan: dict[Spot, None] = {}
        groups: list[threading.Event] = []
        try:
            while not self.stop.is_set():
                now = dict.fromkeys(spot(p) for p in self.paths)
                if now != plan:  # a folder went or came back: watch from where things are now
                    for group in groups:
                        group.set()
                    groups = [self._group(s) for s in now]
                    if plan:  # (at start, the first tick compares with the files as they were before the load)
                        self._reload()
                    plan = now
                try:
                    batch = self.changes.get(timeout=TICK)
                except queue.Empty:  # (a change no notification told of, made while a watch was starting)
                    self._reload()
                    continue
                while not self.changes.empty():
                    batch |= self.changes.get_nowait()
                if any(relevant(c, p) for c in batch for p in self.paths):
                    self._reload()
        finally:
            for group in groups:
                group.set()

    def _group(self, where: Spot) -> threading.Event:
        """A thread watching from one spot, handing its batches of changes over; set the event to end it."""
        ended = threading.Event()

        def watch() -> None:
            try:
                for batch in watchfiles.watch(
                    where.root,
                    stop_event=_Either(ended, self.stop),
                    debounce=self.debounce_ms,
                    step=50,
                    raise_interrupt=False,
                    recursive=where.recursive,
                    force_polling=where.polled,
                    poll_delay_ms=200,
                    watch_filter=None,
                ):
                    self.changes.put({Path(p) for _, p in batch})
            except (OSError, RuntimeError) as exc:  # its root went as it started: the next check re-plans
                _log.debug("watching %s ended: %s", where.root, exc)

        threading.Thread(target=watch, daemon=True, name=f"watch {where.root}").start()
        return ended

    def _reload(self) -> None:
        """If any watched file changed since the state last read them, reload it and log one line of what
        changed and what is served now; or, when a watched path is gone, keep everything in service and say
        so once."""
        gone = tuple(p for p in self.paths if not p.exists())
        if gone:
            if gone != self.gone:
                missing = ", ".join(map(_shown, gone))
                _log.warning("%s: gone; still serving the last good set until it is back: %s", missing, self._served())
            self.gone = gone
            return
        now = _fingerprint(self.paths)
        if now == self.seen and not self.gone:
            return
        if self._being_written(now):
            return
        changed = sorted({_shown(f) for f, *_ in set(now) ^ set(self.seen)}) or [_shown(p) for p in self.gone]
        self.gone, self.seen = (), now
        problems = self.state.reload()
        for problem in problems:
            _log.warning("refused %s (its last good version stays in service)", problem)
        files = {problem.split(": ", 1)[0] for problem in problems}
        refused = f"; {_many(len(files), 'file')} refused, as last good" if problems else ""
        _log.info("reloaded after changes to %s: serving %s%s", ", ".join(changed), self._served(), refused)

    def _being_written(self, now: Fingerprint) -> bool:
        """Whether a file that had content is empty `now`, for less than EMPTIED seconds yet: emptied to be
        written, most likely. The next tick looks again; one left empty is read as empty after that."""
        had = {file for file, _, _, size in self.seen if size}
        if not any(size == 0 and file in had for file, _, _, size in now):
            self.emptied = None
            return False
        if self.emptied is None:
            self.emptied = time.monotonic()
        return time.monotonic() - self.emptied < EMPTIED

    def _served(self) -> str:
        """What the state serves, in words: how many scenarios and recordings, from where."""
        settings = self.state.settings
        text = f"{_many(len(self.state.book.scenarios), 'scenario')} from {', '.join(map(str, settings.scenarios))}"
        if settings.recordings:
            count = len(self.state.library) if self.state.library is not None else 0
            text += f", {_many(count, 'recording')} from {', '.join(map(str, settings.recordings))}"
        return text


def _shown(path: str | Path) -> str:
    """A path as the command line most likely gave it: from the working directory when it is under it."""
    try:
        return str(Path(path).relative_to(Path.cwd()))
    except ValueError:
        return str(path)


def _many(count: int, noun: str) -> str:
    return f"{count} {noun}{'' if count == 1 else 's'}"


Fingerprint = tuple[tuple[str, int, int, int], ...]


def fingerprint(paths: Iterable[Path]) -> Fingerprint:
    """What `start` compares with, taken before the state loads: the files of `paths` as `_watched` reads them."""
    return _fingerprint(_watched(paths))


def _fingerprint(paths: Iterable[Path]) -> Fingerprint:
    """The files the paths stand for (a folder's YAML files), each with its modification time and size: cheap
    to take every tick, and different after any save."""
    found = []
    for path in paths:
        try:
            files = sorted(p for p in path.iterdir() if p.suffix in SUFFIXES) if path.is_dir() else [path]
        except OSError:
            files = []
        for file in files:
            try:
                s = file.stat()
            except OSError:
                continue
            found.append((str(file), s.st_ino, s.st_mtime_ns, s.st_size))
    return tuple(found)


class _Either:
    """Set when either event is: what watchfiles polls to know when to stop."""

    def __init__(self, one: threading.Event, other: threading.Event) -> None:
        self.one, self.other = one, other

    def is_set(self) -> bool:
        return self.one.is_set() or self.other.is_set()
