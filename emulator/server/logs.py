"""The emulator's logging, set up in one place (`setup`): where its lines go (the server's start and stop, the state
store's outages, `--watch`'s reloads, the connections the rules closed), at which level, in which form (`INFO:
message`, as the access log's lines beside them, or one JSON object a line for people who ship logs), and the
secrets kept out of them. The access log itself is the server's (`emulator.server.access`).

A host that set logging up itself (pytest's capture, an application's config) hears the lines through its own root
handlers, as they propagate.
"""

from __future__ import annotations

import json
import logging
import re
import sys
import time

# A query parameter that carries a secret, by its name: the admin token (`?token=`, the documented way to open the
# inspector beyond loopback), an API key as some clients send it (`?key=`, `?api_key=`), and their kin.
SECRET_PARAMETER = re.compile(r"(?i)([?&](?:[a-z0-9_.-]*[_.-])?(?:token|key|api_key|apikey|secret|password)=)[^&#\s]*")
LEVELS = ("debug", "info", "warning", "error")


def redacted(query: str) -> str:
    """A query string with the values of its secret parameters replaced by `***`."""
    return SECRET_PARAMETER.sub(r"\1***", "?" + query)[1:] if "=" in query else query


FORMATS = ("text", "json")


class Plain(logging.Formatter):
    """`INFO:     message`, as the access log's lines look beside them (and uvicorn's always have)."""

    def format(self, record: logging.LogRecord) -> str:
        line = f"{record.levelname + ':':<10}{record.getMessage()}"
        return f"{line}\n{self.formatException(record.exc_info)}" if record.exc_info else line


class Json(logging.Formatter):
    """One JSON object a line: time, level, logger, message (and the traceback, when there is one)."""

    def format(self, record: logging.LogRecord) -> str:
        fields = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(record.created)),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        if record.exc_info:
            fields["traceback"] = self.formatException(record.exc_info)
        return json.dumps(fields)


def setup(level: str = "info", form: str = "text") -> None:
    """The emulator's lines at `level` and above, in `form`, on stderr where nothing set logging up; the level is
    kept where something did. Idempotent: whichever runs first (the server, `--watch`) sets it up."""
    ours = logging.getLogger("emulator")
    ours.setLevel(level.upper())
    if logging.getLogger().handlers:
        return
    handler = next((h for h in ours.handlers if getattr(h, "emulator", False)), None)
    if handler is None:
        handler = logging.StreamHandler(sys.stderr)
        handler.emulator = True  # type: ignore[attr-defined]
        ours.addHandler(handler)
    handler.setFormatter(Json() if form == "json" else Plain())


class _Sparse:
    """One kind of closed connection, logged at most once a second with how many there were since the last line."""

    __slots__ = ("at", "since")

    def __init__(self) -> None:
        self.at, self.since = -1.0, 0

    def due(self) -> int:
        """Count one more; how many to log now (0 within a second of the last line)."""
        self.since += 1
        now = time.monotonic()
        if now - self.at < 1.0:
            return 0
        count, self.since, self.at = self.since, 0, now
        return count


_REFUSED, _OVERDUE, _STUCK, _FULL = _Sparse(), _Sparse(), _Sparse(), _Sparse()


def refused(open_now: int, cap: int) -> None:
    """Say that a connection was closed over `--max-connections`: a client sees only a reset, so the log must
    tell why. At most one line a second, counting the refusals since the last."""
    if count := _REFUSED.due():
        logging.getLogger("emulator.server").warning(
            "closed %d new connection%s: %d open, at --max-connections %d", count, _s(count), open_now, cap
        )


def full(open_now: int, limit: int) -> None:
    """Say that the connections fill what the descriptor limit allows: past it, the system refuses new ones with a
    reset, unseen by the server. As `refused` does."""
    if _FULL.due():
        logging.getLogger("emulator.server").warning(
            "%d connections open, the most this process's limit on open files (%d, ulimit -n) leaves room for:"
            " new ones fail until some close; raise the limit",
            open_now,
            limit,
        )


def overdue(timeout: float) -> None:
    """Say that a connection was closed for sending no whole request within `timeout` seconds, as `refused` does."""
    if count := _OVERDUE.due():
        logging.getLogger("emulator.server").info(
            "closed %d connection%s that sent no whole request within %g s", count, _s(count), timeout
        )


def stuck(timeout: float) -> None:
    """Say that a connection was dropped for leaving its answer unread `timeout` seconds, as `refused` does."""
    if count := _STUCK.due():
        logging.getLogger("emulator.server").info(
            "dropped %d connection%s that left an answer unread for %g s", count, _s(count), timeout
        )


def _s(count: int) -> str:
    return "" if count == 1 else "s"
