"""An advisory lock between the processes that write one cassette, held on a sidecar file (`CASSETTE.lock`):
the cassette itself is replaced by a rename at each rewrite, so a lock on it would be lost to whoever opened the
file before the rename. The sidecar lasts as long as the lock is held: its holder removes it before letting go,
and a process that locked a sidecar already removed (it opened it before the removal) tries again, so that two
never hold it at once and no `.lock` file is left beside the cassettes.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager, suppress
from pathlib import Path


def sidecar(cassette: Path) -> Path:
    """The lock file of a cassette: beside it, its name and `.lock`."""
    return cassette.with_name(cassette.name + ".lock")


@contextmanager
def locked(cassette: Path, reading: bool = False) -> Iterator[None]:
    """Hold the cassette's lock (waiting for it) for the block: every writer of the cassette takes it across
    reading what is on disk, merging and writing. Advisory: a process that does not ask is not stopped.
    `reading`: only reading, so where no lock file can be made (a read-only folder), read without one."""
    try:
        cassette.parent.mkdir(parents=True, exist_ok=True)
        fd = _take(sidecar(cassette))
    except OSError:
        if not reading:
            raise
        yield
        return
    try:
        yield
    finally:
        with suppress(OSError):
            os.unlink(sidecar(cassette))  # while held: a process waiting on it finds it gone, and tries again
        _unlock(fd)
        os.close(fd)


def _take(path: Path) -> int:
    """A descriptor of `path`, locked, and still the file at `path` once locked (waiting for it)."""
    while True:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            _lock(fd)
            if _same(fd, path):
                return fd
            _unlock(fd)
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)  # removed by the holder it waited for: another is being made


def _same(fd: int, path: Path) -> bool:
    try:
        here, there = os.fstat(fd), os.stat(path)
    except FileNotFoundError:
        return False
    return (here.st_dev, here.st_ino) == (there.st_dev, there.st_ino)


if sys.platform == "win32":  # pragma: no cover - the CI runs on Linux
    import msvcrt

    def _lock(fd: int) -> None:
        while True:
            try:
                msvcrt.locking(fd, msvcrt.LK_LOCK, 1)  # retries for 10 s, then raises: wait on
                return
            except OSError:
                continue

    def _unlock(fd: int) -> None:
        os.lseek(fd, 0, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def _lock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_EX)

    def _unlock(fd: int) -> None:
        fcntl.flock(fd, fcntl.LOCK_UN)
