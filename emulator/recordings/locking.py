"""An advisory lock between the processes that write one cassette, held on a sidecar file (`CASSETTE.lock`)
that is never renamed nor removed: the cassette itself is replaced by a rename at each rewrite, so a lock on
it would be lost to whoever opened the file before the rename.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import contextmanager
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
        fd = os.open(sidecar(cassette), os.O_RDWR | os.O_CREAT, 0o600)
    except OSError:
        if not reading:
            raise
        yield
        return
    try:
        _lock(fd)
        try:
            yield
        finally:
            _unlock(fd)
    finally:
        os.close(fd)


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
