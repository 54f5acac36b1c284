"""`GET /_emulator/`: the inspector, a page that lists requests live and opens each to its request folded by
messages and its answer as the client assembled it, with what went wrong (the client report's findings) and
the conversations the requests make.

The page is plain HTML, CSS and JavaScript of our own, files in the package (`emulator/http/pages/`) that the server
serves as they are: no framework, no build step, nothing fetched from elsewhere, so it works offline. Its script
reads the admin API; what the list needs beyond the journal's fields (a preview, a search, a transcript, the
conversations) is computed here, from journal views, by `journal.previews`, `journal.transcript` and `journal.assembly`.

The page's shell and its files hold no data and are served to anyone; everything they show comes through the
guarded admin routes, with the token the page keeps in `sessionStorage`.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any, NamedTuple

from emulator import journal
from emulator.journal import assembly, previews, transcript
from emulator.state import State

TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8", ".js": "text/javascript"}
SHELL = "inspector.html"


@cache
def _files() -> dict[str, tuple[bytes, str]]:
    """The page's files, read once: each by name, with its content type."""
    folder = resources.files("emulator.http") / "pages"
    found = {}
    for item in folder.iterdir():
        kind = TYPES.get(item.name[item.name.rfind(".") :])
        if kind is not None and item.is_file():
            found[item.name] = (item.read_bytes(), kind)
    return found


def asset(name: str) -> tuple[bytes, str] | None:
    """One of the page's files by name (`list.js`), with its content type; None for any other name."""
    return _files().get(name)


def page() -> bytes:
    shell = asset(SHELL)
    assert shell is not None, "emulator/http/pages/inspector.html is missing from the package"
    return shell[0]


class Reading(NamedTuple):
    """What the inspector needs of an entry's bodies: its preview, the words a search looks in, and what its
    request and its answer said (`previews.conversations`; kept without the view, whose bodies it would hold)."""

    preview: dict[str, Any]
    text: str
    told: previews.Told


TEXT_CAP = 64 * 1024  # characters of an entry's words a search looks in
TEXT_BYTES = 64 * 1024 * 1024  # characters of words the readings keep in all


class Readings:
    """The entries' readings, kept once their answer is delivered (it no longer changes), so that the list's
    polls and a search decode each entry's bodies once, not on every call: decoding a 200-event stream is a
    millisecond. Bounded in entries and in characters, the oldest going first; keyed by id and time, so that a
    journal cleared and refilled is read again."""

    def __init__(self, capacity: int = journal.CAPACITY, max_chars: int = TEXT_BYTES) -> None:
        self._kept: OrderedDict[tuple[int, float], Reading] = OrderedDict()
        self._capacity, self._max_chars, self._chars = capacity, max_chars, 0

    def get(self, summary: Mapping[str, Any]) -> Reading | None:
        return self._kept.get((summary["id"], summary["time"]))

    def read(self, view: Mapping[str, Any]) -> Reading:
        """An entry's reading from its full view, kept if its answer is in."""
        preview, text, told = previews.read(view)
        reading = Reading(preview, text[:TEXT_CAP], told._replace(entry={}))  # the summary is given when used
        if view.get("response") is not None:
            self._kept[(view["id"], view["time"])] = reading
            self._chars += len(reading.text)
            while len(self._kept) > self._capacity or self._chars > self._max_chars:
                self._chars -= len(self._kept.popitem(last=False)[1].text)
        return reading


def matches(reading: Reading, query: str) -> bool:
    """Whether an entry's request or answer holds every word of `query` (case aside)."""
    return all(word in reading.text for word in query.lower().split())


def listed(view: Mapping[str, Any], bodies: bool, reading: Reading | None) -> dict[str, Any]:
    """A journal view as the list asks for it: whole or without its bodies, with a preview or without."""
    row = dict(view) if bodies else {k: v for k, v in view.items() if k not in journal.FULL_ONLY}
    if reading is not None:
        row["preview"] = reading.preview
    return row


def read(view: Mapping[str, Any]) -> dict[str, Any]:
    """An entry's transcript: its request folded by messages and its answer as the client assembled it, with
    the answer's headers that matter."""
    answer = view.get("response")
    return {
        "request": transcript.request(view),
        "answer": assembly.assemble(answer),
        "headers": transcript.headers(answer) if answer else {},
    }


def conversations(
    summaries: Sequence[Mapping[str, Any]], readings: Mapping[int, Reading], holding: int | None = None
) -> dict[str, Any]:
    """The conversations the entries make (each summary with its reading): those of more than one request, or
    (`holding`) the one that holds that entry; with each request they name as the list shows it."""
    told = [readings[s["id"]].told._replace(entry=s) for s in summaries if s["id"] in readings]
    found = previews.conversations(told)
    if holding is not None:
        found = [c for c in found if any(holding in t["requests"] for t in c["turns"])]
    else:
        found = [c for c in found if len(c["turns"]) > 1 or len(c["turns"][0]["requests"]) > 1]
    named = {i for c in found for t in c["turns"] for i in t["requests"]}
    rows = {s["id"]: listed(s, False, readings[s["id"]]) for s in summaries if s["id"] in named}
    return {"conversations": found, "requests": rows}


async def listing(
    state: State,
    readings: Readings,
    where: dict[str, str],
    since: int,
    bodies: bool,
    preview: bool,
    query: str,
    limit: int,
    before: int,
) -> list[dict[str, Any]]:
    """The journal as the inspector's list reads it: entries after `since` (and before `before`, if given),
    those holding every word of `query`, the newest `limit` of them, each with its preview if asked. Each
    entry's bodies are decoded once (`Readings`): a few one by one, many in one read of the journal."""
    summaries = [s for s in await state.journal.find(where, since, False) if not before or s["id"] < before]
    if limit and not query:
        summaries = summaries[-limit:]
    reading = await read_all(state, readings, where, summaries) if preview or query else {}
    if query:
        summaries = [s for s in summaries if s["id"] in reading and matches(reading[s["id"]], query)]
        summaries = summaries[-limit:] if limit else summaries
    if bodies:
        full = {v["id"]: v for v in await state.journal.find(where, summaries[0]["id"] - 1, True)} if summaries else {}
        summaries = [full.get(s["id"], s) for s in summaries]
    return [listed(s, bodies, reading.get(s["id"]) if preview else None) for s in summaries]


async def read_all(
    state: State, readings: Readings, where: dict[str, str], summaries: list[dict[str, Any]]
) -> dict[int, Reading]:
    """The entries' readings, by id: kept ones as they are, the others read (a few one by one, many in one read
    of the journal from the oldest of them)."""
    found = {s["id"]: r for s in summaries if (r := readings.get(s)) is not None}
    unread = [s for s in summaries if s["id"] not in found]
    if len(unread) > FEW:
        wanted = {s["id"] for s in unread}
        for view in await state.journal.find(where, unread[0]["id"] - 1, True):
            if view["id"] in wanted:
                found[view["id"]] = readings.read(view)
        return found
    for s in unread:
        entry = await state.journal.entry(s["id"])
        if entry is not None:
            found[s["id"]] = readings.read(entry)
    return found


FEW = 64  # unread entries read one by one; past this many, in one read of the journal from the oldest
