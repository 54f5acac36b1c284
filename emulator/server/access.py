"""The access log: a line for each answer, noted as its head is written and written with the others of the same tick
of the server (a tenth of a second) in one write (`AccessLog`). Compiled with the connection.

Through the logging module, uvicorn's access log cost more than half of the requests a second a server answers
(a record, a filter, a formatter and a flushed write for each line); noted as a tuple and written a tick's lines at a
time, it costs a few per cent. The line is uvicorn's (`INFO:     127.0.0.1:50000 - "GET /v1/models HTTP/1.1" 200
OK`), or one JSON object (`--log-format json`); the values of secret query parameters are replaced by `***`."""

from __future__ import annotations

import asyncio
import json
import time
import urllib.parse
from http import HTTPStatus
from typing import Any, Final, TextIO

from emulator.server.logs import redacted


def _phrase(status: int) -> str:
    try:
        return f"{status} {HTTPStatus(status).phrase}"
    except ValueError:
        return str(status)


_STATUS: Final = {status: _phrase(status) for status in range(100, 600)}
# Paths as a line shows them (percent-encoded again), by the path: a client asks the same few, and quoting is
# interpreted Python (urllib's), the dearest step of a line.
_QUOTED: Final[dict[str, str]] = {}


def _quoted(path: str) -> str:
    found = _QUOTED.get(path)
    if found is None:
        found = urllib.parse.quote(path)
        if len(path) <= 512:  # short ones only, so that what it holds stays small whatever a client sends
            if len(_QUOTED) >= 1024:  # paths that vary without end: quoted each time again
                _QUOTED.clear()
            _QUOTED[path] = found
    return found


class AccessLog:
    """The lines of the answers begun since the server's last tick, written together to `stream` at the next one
    (`flush`), or at once past `BATCH` of them: written a turn of the loop at a time, a single connection made a
    system call (and a flush) an answer."""

    BATCH = 256

    def __init__(self, loop: asyncio.AbstractEventLoop, stream: TextIO, form: str = "text") -> None:
        self.loop = loop
        self.stream = stream
        self.json = form == "json"
        self.pending: list[tuple[Any, str, str, bytes, str, int]] = []

    def note(self, scope: dict[str, Any], status: int) -> None:
        """An answer's head is being written: its line goes out at the server's next tick."""
        pending = self.pending
        pending.append(
            (scope["client"], scope["method"], scope["path"], scope["query_string"], scope["http_version"], status)
        )
        if len(pending) == self.BATCH:
            self.loop.call_soon(self.flush)

    def flush(self) -> None:
        """Write the lines noted since the last flush."""
        pending, self.pending = self.pending, []
        if not pending:
            return
        lines = [self._line(entry) for entry in pending]
        try:
            self.stream.write("".join(lines))
            self.stream.flush()
        except (OSError, ValueError):  # the log's reader went away (a closed pipe): the answers go on
            pass

    def _line(self, entry: tuple[Any, str, str, bytes, str, int]) -> str:
        client, method, path, query, version, status = entry
        target = _quoted(path)
        if query:
            asked = query.decode("ascii", "replace")
            target += "?" + redacted(asked)
        who = f"{client[0]}:{client[1]}" if client else ""
        said = _STATUS.get(status) or str(status)
        if not self.json:
            return f'INFO:     {who} - "{method} {target} HTTP/{version}" {said}\n'
        fields = {
            "time": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
            "level": "INFO",
            "logger": "emulator.access",
            "message": f'{who} - "{method} {target} HTTP/{version}" {said}',
            "client": who,
            "method": method,
            "path": target,
            "http_version": version,
            "status": status,
        }
        return json.dumps(fields) + "\n"
