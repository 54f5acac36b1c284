"""`GET /_emulator/`: the inspector, a page that lists requests live and opens each to its request folded by
messages and its answer as the client assembled it, with what went wrong (the client report's findings) and
the conversations the requests make.

The page is plain HTML, CSS and JavaScript of our own, files in the package (`emulator/pages/`) that the server
serves as they are: no framework, no build step, nothing fetched from elsewhere, so it works offline. Its script
reads the admin API; what the list needs beyond the journal's fields (a preview, a search, a transcript, the
conversations) is computed here, from journal views, by `stories`, `transcript` and `assembly`.

The page's shell and its files hold no data and are served to anyone; everything they show comes through the
guarded admin routes, with the token the page keeps in `sessionStorage`.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from functools import cache
from importlib import resources
from typing import Any

from emulator import assembly, journal, stories, transcript

TYPES = {".html": "text/html; charset=utf-8", ".css": "text/css; charset=utf-8", ".js": "text/javascript"}
SHELL = "inspector.html"


@cache
def asset(name: str) -> tuple[bytes, str] | None:
    """One of the page's files by name (`list.js`), with its content type; None for any other name."""
    kind = TYPES.get(name[name.rfind(".") :]) if "." in name else None
    if kind is None or "/" in name or "\\" in name or name.startswith("."):
        return None
    found = resources.files("emulator") / "pages" / name
    return (found.read_bytes(), kind) if found.is_file() else None


def page() -> bytes:
    shell = asset(SHELL)
    assert shell is not None, "emulator/pages/inspector.html is missing from the package"
    return shell[0]


def searched(views: Iterable[Mapping[str, Any]], query: str) -> list[Mapping[str, Any]]:
    """The views whose request or answer holds every word of `query` (case aside)."""
    words = query.lower().split()
    return [v for v in views if all(w in stories.text(v) for w in words)] if words else list(views)


def listed(view: Mapping[str, Any], bodies: bool, preview: bool) -> dict[str, Any]:
    """A journal view as the list asks for it: whole or without its bodies, with a preview or without."""
    row = dict(view) if bodies else {k: v for k, v in view.items() if k not in journal.FULL_ONLY}
    if preview:
        row["preview"] = stories.preview(view)
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


def conversations(views: Sequence[Mapping[str, Any]], holding: int | None = None) -> dict[str, Any]:
    """The conversations the views make: those of more than one request, or (`holding`) the one that holds
    that entry; with a preview of each request they name."""
    found = stories.conversations(views)
    if holding is not None:
        found = [c for c in found if any(holding in t["requests"] for t in c["turns"])]
    else:
        found = [c for c in found if len(c["turns"]) > 1 or len(c["turns"][0]["requests"]) > 1]
    named = {i for c in found for t in c["turns"] for i in t["requests"]}
    rows = {v["id"]: listed(v, False, True) for v in views if v["id"] in named}
    return {"conversations": found, "requests": rows}
