"""Scrubbing: replacements applied to every string of a request body, before matching and before writing,
so that what differs between two runs of the same client (a working directory, a date, a wall time) does not
keep a recording from matching.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterable
from typing import Any

import re2

# Volatile text the agent CLIs send, scrubbed by default (found by recording each CLI twice, from two working
# directories): Codex's tool output carries a chunk id and the command's wall time, different on every run,
# and its `<environment_context>` the working directory, the shell, the date and the time zone; Claude Code's
# system prompt names the working directory, the machine, its memory folder (under the project's path) and
# the date, and inside a git repository its status.
DEFAULT_SCRUBS = (
    (r"Chunk ID: [0-9a-fA-F]+", "Chunk ID: …"),
    (r"Wall time: [0-9.]+ seconds", "Wall time: … seconds"),
    (r"<(cwd|shell|current_date|timezone|root)>[^<]*</(cwd|shell|current_date|timezone|root)>", r"<\1>…</\2>"),
    (r"(Primary working directory|Is a git repository|Platform|Shell|OS Version): [^\n]*", r"\1: …"),
    (r"persistent file-based memory at `[^`]*`", "persistent file-based memory at `…`"),
    (r"Today's date is [0-9]{4}-[0-9]{2}-[0-9]{2}", "Today's date is …"),
    (r"(?s)gitStatus: .*?\n\n", "gitStatus: …\n\n"),
)
SCRUB_KEY = "emulator_scrub"  # a cassette's own scrubbers, written once when it is created


class Scrubber:
    """Replacements applied to every string of a request body, before matching and before writing (vcrpy's
    `before_record_request`, declared rather than coded): `(pattern, replacement)` pairs, RE2 patterns."""

    def __init__(self, scrubs: Iterable[tuple[str, str]] = DEFAULT_SCRUBS) -> None:
        self.scrubs = tuple(dict.fromkeys(scrubs))  # in order, once each
        self._compiled = [(re2.compile(p), _template(r)) for p, r in self.scrubs]

    def touches(self, text: str) -> bool:
        """Whether any pattern matches `text`: else scrubbing leaves it as it is, and nothing need be parsed."""
        return any(pattern.search(text) for pattern, _ in self._compiled)

    def text(self, text: str) -> str:
        for pattern, replacement in self._compiled:
            if pattern.search(text):
                text = pattern.sub(replacement, text)
        return text

    def body(self, body: bytes | str) -> bytes:
        """A request body with every string in it scrubbed (the whole text, if it is not JSON); untouched, as
        it came."""
        text = text_of(body)
        if not self.touches(text):
            return body if isinstance(body, bytes) else body.encode()
        try:
            parsed = json.loads(text)
        except ValueError:
            return self.text(text).encode()
        return json.dumps(self.json(parsed), ensure_ascii=False, separators=(",", ":")).encode()

    def json(self, value: Any) -> Any:
        """A parsed JSON value with every string in it scrubbed."""
        return self._json(value)

    def _json(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, list):
            return [self._json(v) for v in value]
        if isinstance(value, dict):
            return {k: self._json(v) for k, v in value.items()}
        return value

    def __add__(self, more: Iterable[tuple[str, str]]) -> Scrubber:
        return Scrubber((*self.scrubs, *more))


_GROUP = re.compile(r"\\(\d+)|\\g<(\w+)>")  # group references in a replacement


def _template(replacement: str) -> Callable[[Any], str]:
    """A replacement as a function of the match, its group references (backslash and a number, or
    backslash-g and a name) expanded here: the RE2 bindings garble the non-ASCII characters of a replacement
    string (`…` came out as three Latin-1 characters)."""
    parts = _GROUP.split(replacement)  # literal, group number, group name, literal, …

    def expand(match: Any) -> str:
        out = []
        for i in range(0, len(parts), 3):
            out.append(parts[i])
            if i + 2 < len(parts):
                ref = parts[i + 1] if parts[i + 1] is not None else parts[i + 2]
                out.append(match.group(int(ref) if ref.isdigit() else ref) or "")
        return "".join(out)

    return expand


def scrub_spec(text: str) -> tuple[str, str]:
    """`--scrub 'REGEX=>REPLACEMENT'`, checked: the pattern must be RE2's."""
    pattern, arrow, replacement = text.partition("=>")
    if not arrow or not pattern:
        raise ValueError(f"--scrub: expected REGEX=>REPLACEMENT, got {text!r}")
    try:
        re2.compile(pattern)
    except re2.error as exc:
        raise ValueError(f"--scrub: {pattern!r} is not a regular expression in RE2's syntax: {exc}") from None
    return pattern, replacement


def text_of(body: bytes | str | None) -> str:
    """A body as text (undecodable bytes replaced), empty for none."""
    return body.decode("utf-8", "replace") if isinstance(body, bytes) else body or ""
