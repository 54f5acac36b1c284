"""The recordings in service (`Library`): found by (method, path, body), by conversation in any dialect, or
as an agent session replayed step by step; a miss names the nearest (`nearest`).
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Iterable, Mapping
from typing import Any, Protocol

from emulator.core.conversation import Prompt, Reply
from emulator.core.errors import EmulatorError
from emulator.core.identity import conversation, loose
from emulator.core.recent import Recent
from emulator.core.sse import loads
from emulator.recordings import nearest as near
from emulator.recordings.matching import api_path, match_key
from emulator.recordings.recording import Recording
from emulator.recordings.scrub import Scrubber

_log = logging.getLogger("emulator.recordings")
STREAMS = ("text/event-stream", "application/vnd.amazon.eventstream")  # a recorded answer that streamed: SSE, AWS's


class Reader(Protocol):
    """What replay needs of a dialect to answer a recorded conversation in another one."""

    def parse_request(
        self, body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = ...
    ) -> Prompt: ...
    def read_response(self, body: bytes, stream: bool) -> Reply: ...


class Library:
    """Recordings by (method, path, body); the first recording of a request answers it, every time.

    Each successful recording that a `Reader` understands is also indexed by its conversation
    (`identity.conversation`): a request that matches no body, for instance the same conversation asked in
    another dialect, or streamed where the recording was not, is answered with the recorded `Reply`.
    """

    def __init__(
        self, recordings: Iterable[Recording], readers: Mapping[str, Reader] = {}, scrubber: Scrubber | None = None
    ) -> None:
        self.scrubber = scrubber or Scrubber()
        self._warned: Recent[str, int] = Recent(10_000)  # conversations already warned of
        self.recordings: dict[tuple[str, str, str], Recording] = {}
        self.conversations: dict[str, tuple[Recording, Reply]] = {}
        # by the conversation with tool results' contents left out; None where two conversations share one
        self.sessions: dict[str, tuple[str, Recording, Reply] | None] = {}
        self.readers = readers
        self.index = near.Index()  # for the nearest recording to a miss: built with the library, as it grows
        for r in recordings:
            self.add(r)

    def add(self, r: Recording) -> None:
        """A recording more (its request scrubbed); one of the same request already held keeps answering it."""
        scrubbed = self.scrubber.body(r.request).decode()
        if scrubbed != r.request:  # else its key stands: `match_key` of the same text
            r = dataclasses.replace(r, request=scrubbed, key=match_key(scrubbed))
        if self.recordings.setdefault((r.method, r.path, r.key), r) is r:
            self.index.add(r)
        reader = self.readers.get(r.path)
        if reader and r.status == 200 and r.method == "POST":
            understood = _understood(reader, r)
            if understood:
                key, session, reply = understood
                self.conversations.setdefault(key, (r, reply))
                held = self.sessions.get(session, (key, r, reply))
                self.sessions[session] = held if held is not None and held[0] == key else None

    def answer(self, prompt: Prompt) -> tuple[Recording, Reply] | None:
        """The recording of the same conversation, in whatever dialect it was recorded, and what it said."""
        return self.conversations.get(prompt.conversation or conversation(prompt))

    def session(self, prompt: Prompt) -> tuple[Recording, Reply] | None:
        """The recording of the same conversation but for what its tools printed (an agent session replayed
        step by step), unless two recorded conversations are that alike: an ambiguous match is a miss."""
        found = self.sessions.get(loose(prompt)) if any(m.role == "tool" for m in prompt.messages) else None
        return (found[1], found[2]) if found else None

    def __len__(self) -> int:
        return len(self.recordings)

    def find(self, method: str, path: str, body: bytes) -> Recording | None:
        """The recording of this very request (scrubbed as the recordings are)."""
        return self.recordings.get((method.upper(), api_path(path), match_key(body, self.scrubber)))

    def nearest(self, method: str, path: str, body: bytes) -> tuple[Recording, list[str]] | None:
        """The recording a request that matched none was most likely meant to match, and where they differ
        (paths, the first one first): see `nearest.nearest`."""
        return self.index.nearest(method, path, near.parsed(match_key(body, self.scrubber)))

    def warn_once(self, conversation: str, nearest: str | None) -> None:
        """Log, once per conversation, that a request fell through to the default while recordings are loaded."""
        if conversation in self._warned:
            return
        self._warned.count(conversation)
        _log.warning("no recording matches a request; the default answers it. The nearest is %s", nearest)

    def nearest_words(self, method: str, path: str, body: bytes) -> str | None:
        """`nearest` in words: which recording, the first path that differs with both values, the others."""
        return near.words(self.index, method, path, near.parsed(match_key(body, self.scrubber)))


def _understood(reader: Reader, recording: Recording) -> tuple[str, str, Reply] | None:
    """A recording's conversation key, that key without its tool results' contents, and its answer; None when
    its request or answer cannot be read back."""
    try:
        prompt = reader.parse_request(loads(recording.request.encode()), {})
        stream = recording.headers.get("content-type", "").startswith(STREAMS)
        return conversation(prompt), loose(prompt), reader.read_response(recording.body, stream)
    except (EmulatorError, ValueError, LookupError, TypeError, AttributeError):
        return None
