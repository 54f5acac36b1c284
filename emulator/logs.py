"""The emulator's logging, set up in one place: the filters on uvicorn's loggers (secrets out of the access log,
the shutdown's cut answers in one line, not a traceback each) and where the emulator's own lines go (the state
store's outages, `--watch`'s reloads, the shutdown's count).

`emulator serve` leaves logging to uvicorn, which configures its own loggers only: the emulator's lines get one
handler of their own on stderr, formatted as uvicorn's beside them. A host that set logging up itself (pytest's
capture, an application's config) hears them through its own root handlers, as they propagate.
"""

from __future__ import annotations

import asyncio
import logging
import re
import sys
import time

# A query parameter that carries a secret, by its name: the admin token (`?token=`, the documented way to open the
# inspector beyond loopback), an API key as some clients send it (`?key=`, `?api_key=`), and their kin.
SECRET_PARAMETER = re.compile(r"(?i)([?&](?:[a-z0-9_.-]*[_.-])?(?:token|key|api_key|apikey|secret|password)=)[^&#\s]*")


class Redacted(logging.Filter):
    """The access log with the values of secret query parameters replaced by `***`: uvicorn logs the path with
    its query string as the client sent it, `?token=…` included."""

    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if isinstance(args, tuple) and len(args) > 2 and isinstance(args[2], str) and "=" in args[2]:
            record.args = (*args[:2], SECRET_PARAMETER.sub(r"\1***", args[2]), *args[3:])
        return True


class Quiet(logging.Filter):
    """uvicorn's log at shutdown, made to say what happened in one line: the answers its grace cut are counted
    (`server.Server.shutdown`), not each logged as an "Exception in ASGI application" with a 25-line traceback,
    and its own "Cancel N running task(s)" line is left to ours."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.msg == "Cancel %s running task(s), timeout graceful shutdown exceeded":
            return False
        # Cancelled by the grace's end, or by the loop's end after a second Ctrl-C: never an error of the app's.
        return not (record.exc_info and isinstance(record.exc_info[1], asyncio.CancelledError))


class AsUvicorn(logging.Formatter):
    """`INFO:     message`, as uvicorn's own lines look beside them."""

    def format(self, record: logging.LogRecord) -> str:
        return f"{record.levelname + ':':<10}{record.getMessage()}"


def setup() -> None:
    """The filters on uvicorn's loggers, and a stderr handler for the emulator's own lines at INFO where nothing
    set logging up; idempotent, so whichever runs first (the server's configuration, `--watch`) sets it up."""
    _filtered("uvicorn.access", Redacted)
    _filtered("uvicorn.error", Quiet)
    ours = logging.getLogger("emulator")
    if not ours.handlers and not logging.getLogger().handlers:
        handler = logging.StreamHandler(sys.stderr)
        handler.setFormatter(AsUvicorn())
        ours.addHandler(handler)
        ours.setLevel(logging.INFO)


def _filtered(name: str, kind: type[logging.Filter]) -> None:
    found = logging.getLogger(name)
    if not any(isinstance(f, kind) for f in found.filters):
        found.addFilter(kind())


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


_REFUSED, _OVERDUE = _Sparse(), _Sparse()


def refused(open_now: int, cap: int) -> None:
    """Say that a connection was closed over `--max-connections`: a client sees only a reset, so the log must
    tell why. At most one line a second, counting the refusals since the last."""
    if count := _REFUSED.due():
        logging.getLogger("emulator.server").warning(
            "closed %d new connection%s: %d open, at --max-connections %d", count, _s(count), open_now, cap
        )


def overdue(timeout: float) -> None:
    """Say that a connection was closed for sending no whole request within `timeout` seconds, as `refused` does."""
    if count := _OVERDUE.due():
        logging.getLogger("emulator.server").info(
            "closed %d connection%s that sent no whole request within %g s", count, _s(count), timeout
        )


def _s(count: int) -> str:
    return "" if count == 1 else "s"
