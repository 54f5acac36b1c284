"""`emulator serve --watch`: scenario files and cassettes added, changed or removed take effect without a
restart. The home of watchfiles.

A thread waits on the paths given to `--scenarios` and `--recordings` and has the state reload after each
batch of changes. A scenario file that fails validation keeps its last good version in service, and a set
of cassettes that fails keeps the last good library; each distinct error is logged once.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path

import watchfiles

from emulator.state import State

_log = logging.getLogger("emulator.watch")


def start(state: State, debounce_ms: int = 200) -> threading.Event:
    """Watch `state`'s scenario and recording paths in a daemon thread; set the event returned to stop it."""
    stop = threading.Event()
    paths = [*state.settings.scenarios, *state.settings.recordings]
    thread = threading.Thread(target=_watch, args=(state, paths, stop, debounce_ms), daemon=True, name="watch")
    thread.start()
    return stop


def _watch(state: State, paths: Sequence[Path], stop: threading.Event, debounce_ms: int) -> None:
    logged: set[str] = set()
    existing = [p for p in paths if p.exists()]
    if not existing:
        return
    for _ in watchfiles.watch(*existing, stop_event=stop, debounce=debounce_ms, step=50, raise_interrupt=False):
        for problem in state.reload():
            if problem not in logged:
                logged.add(problem)
                _log.warning("kept the last good version: %s", problem)
