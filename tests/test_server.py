"""The server's connection rules: no client can hold a connection, or the server, for ever."""

from __future__ import annotations

import asyncio
import contextlib
import contextvars
import http.client
import json
import logging
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from uvicorn.protocols.http.flow_control import FlowControl
from uvicorn.protocols.http.httptools_impl import HttpToolsProtocol, RequestResponseCycle
from uvicorn.server import ServerState

from emulator import server as emulator_server
from emulator.http.app import Settings, create_app
from emulator.http.background import Background
from emulator.server import WHOLE
from emulator.server.connection import Connection, Shared
from emulator.server.exchange import Exchange, Flow
from tests.conftest import Server, launch, read_until, serve_app

pytestmark = pytest.mark.alone  # wall-clock measurements: run apart (conftest.py)

RULES = emulator_server.Rules(request_timeout=1.0, keep_alive=5.0, max_connections=4, shutdown_grace=1.0)


@pytest.fixture
def strict() -> Iterator[Server]:
    yield from serve_app(create_app(Settings()), rules=RULES)


def closed_within(sock: socket.socket, seconds: float) -> tuple[bool, bytes]:
    """Whether the server closes `sock` within `seconds`, and what it sent first."""
    sock.settimeout(seconds)
    received = b""
    try:
        while chunk := sock.recv(4096):
            received += chunk
    except TimeoutError:
        return False, received
    except ConnectionResetError:
        pass
    return True, received


def test_an_idle_connection_that_never_sends_a_request_is_closed(
    strict: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """1,200 idle connections were never closed: uvicorn's keep-alive timer starts only after a response. The
    close is logged, as a client sees only the connection end."""
    with (
        caplog.at_level(logging.INFO, logger="emulator.server"),
        socket.create_connection((strict.host, strict.port)) as sock,
    ):
        closed, sent = closed_within(sock, 4 * RULES.request_timeout + 2)
    assert closed and sent == b""
    said = [r.getMessage() for r in caplog.records if r.name == "emulator.server"]
    assert said == ["closed 1 connection that sent no whole request within 1 s"], said


def test_a_request_waiting_unread_past_the_deadline_is_answered_not_reset() -> None:
    """Under load, one of 200 connections got a reset instead of its answer, with nothing in the server's log.
    One way to get exactly that: the server accepted it, its request sat in the socket unread by a busy loop past
    the deadline, and the deadline closed it; a socket closed with unread bytes sends a reset. Here the server's
    reading of one connection is paused past the deadline."""
    with (
        Background(create_app(Settings()), rules=RULES) as running,
        socket.create_connection((running.host, running.port)) as sock,
    ):
        deadline = time.monotonic() + 5
        while not running.server.connections and time.monotonic() < deadline:
            time.sleep(0.01)
        (connection,) = running.server.connections
        connection.loop.call_soon_threadsafe(connection.transport.pause_reading)
        time.sleep(0.1)
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"authorization: Bearer sk-test\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)
        )
        time.sleep(2.5 * RULES.request_timeout + 1)  # the deadline passed, and the once-a-second sweep ran
        assert not connection.transport.is_closing()
        connection.loop.call_soon_threadsafe(connection.transport.resume_reading)
        sock.settimeout(10)
        assert read_until_blank(sock).startswith(b"HTTP/1.1 200")


def read_until_blank(sock: socket.socket) -> bytes:
    """What `sock` receives up to the end of a response's head."""
    received = b""
    while b"\r\n\r\n" not in received and (chunk := sock.recv(4096)):
        received += chunk
    return received


def test_a_request_that_trickles_in_is_cut_at_the_deadline_with_a_408(strict: Server) -> None:
    """Every byte reset uvicorn's timer, so a byte every few seconds held the connection for ever."""
    started = time.monotonic()
    received = b""
    with socket.create_connection((strict.host, strict.port)) as sock:
        sock.settimeout(0.3)
        for byte in b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\n":  # 15 s at this pace
            try:
                sock.sendall(bytes([byte]))
                received = sock.recv(4096)  # the server answered, or closed
                break
            except TimeoutError:
                continue
            except OSError:
                break
        closed, rest = closed_within(sock, 4 * RULES.request_timeout + 2)
    assert closed and time.monotonic() - started < 4 * RULES.request_timeout + 4
    assert (received + rest).startswith(b"HTTP/1.1 408")


def test_a_request_that_arrives_in_time_is_answered_however_long_its_answer(strict: Server) -> None:
    conn = http.client.HTTPConnection(strict.host, strict.port, timeout=10)
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    headers = {"content-type": "application/json", "authorization": "Bearer sk-test"}
    conn.request("POST", "/v1/chat/completions", body, headers | {"x-emulator-timing": "latency_ms=2500"})
    answered = conn.getresponse()
    assert answered.read() and answered.status == 200  # it took longer than the request deadline, and was answered
    time.sleep(RULES.request_timeout / 2)
    conn.request("POST", "/v1/chat/completions", body, headers)  # the same connection, kept alive
    assert conn.getresponse().status == 200
    conn.close()


def test_past_the_connection_cap_a_new_connection_is_closed_at_once(
    strict: Server, caplog: pytest.LogCaptureFixture
) -> None:
    """Closed, and logged: a client sees only a reset, so the log says why (once a second at most)."""
    held = [socket.create_connection((strict.host, strict.port)) for _ in range(RULES.max_connections)]
    try:
        time.sleep(0.2)
        with caplog.at_level(logging.WARNING, logger="emulator.server"):
            with socket.create_connection((strict.host, strict.port)) as extra:
                closed, sent = closed_within(extra, 2)
            assert closed and sent == b""
        said = [r.getMessage() for r in caplog.records if r.name == "emulator.server"]
        assert said == [f"closed 1 new connection: {RULES.max_connections} open, at --max-connections 4"], said
        held.pop().close()
        time.sleep(0.2)
        conn = http.client.HTTPConnection(strict.host, strict.port, timeout=5)
        conn.request("GET", "/health")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        for sock in held:
            sock.close()


def test_shutdown_ends_a_running_stream_after_the_grace() -> None:
    """A stream paced for minutes kept `SIGTERM` waiting in "Waiting for background tasks to complete"."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [sys.executable, "-m", "emulator", "serve", "--port", str(port), "--shutdown-grace", "1"]
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=os.environ)
    try:
        deadline = time.monotonic() + 20
        while True:
            try:
                sock = socket.create_connection(("127.0.0.1", port), timeout=10)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.05)
        body = b'{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"authorization: Bearer sk-test\r\nx-emulator-timing: ttft_ms=600000\r\n"
            b"content-length: %d\r\n\r\n%s" % (len(body), body)
        )
        assert sock.recv(4096).startswith(b"HTTP/1.1 200")  # streaming, and waiting ten minutes to go on
        started = time.monotonic()
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
        assert time.monotonic() - started < 4 * 1 + 2  # the grace, then the stream is cut
        sock.close()
    finally:
        process.kill()
        process.wait()


# --- a request's exchange (`server.exchange.Exchange`): byte for byte what uvicorn's cycle writes, the oracle ---


class _Transport:
    """What a cycle writes, and whether it closed."""

    def __init__(self) -> None:
        self.written, self.closed = b"", False

    def write(self, data: bytes) -> None:
        self.written += data

    def close(self) -> None:
        self.closed = True

    def is_closing(self) -> bool:
        return self.closed

    def resume_reading(self) -> None:
        return None


DATE = b"Tue, 01 Dec 2026 00:00:00 GMT"
# uvicorn's cycle's names for what an exchange owes, and the exchange's own.
NAMES = {"chunked_encoding": "chunked", "expected_content_length": "expected_length", "message_event": "event"}


def _cycle(kind: type, method: str = "POST", keep_alive: bool = True) -> Any:
    """uvicorn's cycle (the oracle) or the server's exchange, for one request of `method`, writing to a `_Transport`,
    every answer beginning with the same `date`."""
    transport, scope = _Transport(), {"method": method, "type": "http"}
    if kind is RequestResponseCycle:
        return RequestResponseCycle(
            scope=scope,  # type: ignore[arg-type]
            transport=transport,  # type: ignore[arg-type]
            flow=FlowControl(transport),  # type: ignore[arg-type]
            logger=logging.getLogger("test"),
            access_logger=logging.getLogger("test.access"),
            access_log=False,
            default_headers=[(b"date", DATE)],
            message_event=asyncio.Event(),
            expect_100_continue=False,
            keep_alive=keep_alive,
            on_response=lambda: None,
        )
    return Exchange(
        scope, transport, Flow(transport), b"date: %s\r\n" % DATE, False, keep_alive, lambda: None, None, None
    )


def _owed(cycle: Any, names: tuple[str, ...]) -> list[Any]:
    """What `cycle` owes and has done, by uvicorn's names, whichever kind it is."""
    ours = isinstance(cycle, Exchange)
    return [getattr(cycle, NAMES.get(name, name) if ours else name) for name in names]


def _event(cycle: Any) -> Any:
    return cycle.event if isinstance(cycle, Exchange) else cycle.message_event


HEADS = {
    "a whole answer": (200, [(b"x-request-id", b"req_1"), (b"content-length", b"2"), (b"content-type", b"a/b")]),
    "a stream": (200, [(b"x-request-id", b"req_1"), (b"content-type", b"text/event-stream; charset=utf-8")]),
    "no headers": (204, []),
    "a 304": (304, [(b"etag", b"x")]),
    "chunked, said": (200, [(b"transfer-encoding", b"chunked")]),
    "connection: close": (200, [(b"connection", b"keep-alive, close"), (b"content-length", b"0")]),
    "a name twice": (200, [(b"set-cookie", b"a=1"), (b"set-cookie", b"b=2"), (b"content-length", b"0")]),
    "upper case": (200, [(b"X-Request-Id", b"req_1"), (b"content-length", b"0")]),
    "a tab in a value": (429, [(b"x-why", b"a\tb"), (b"content-length", b"0")]),
}


@pytest.mark.parametrize("case", HEADS)
@pytest.mark.parametrize("method", ["POST", "HEAD"])
@pytest.mark.parametrize("keep_alive", [True, False])
def test_the_fast_head_is_uvicorns_byte_for_byte(case: str, method: str, keep_alive: bool) -> None:
    status, headers = HEADS[case]
    cycles = [_cycle(kind, method, keep_alive) for kind in (RequestResponseCycle, Exchange)]
    for cycle in cycles:
        asyncio.run(cycle.send({"type": "http.response.start", "status": status, "headers": headers}))
    theirs, ours = cycles
    assert ours.transport.written == theirs.transport.written
    owed = ("chunked_encoding", "expected_content_length", "keep_alive", "response_started")
    assert _owed(ours, owed) == _owed(theirs, owed)


@pytest.mark.parametrize("case", HEADS)
@pytest.mark.parametrize("method", ["POST", "HEAD"])
@pytest.mark.parametrize("keep_alive", [True, False])
def test_a_whole_answer_in_one_write_is_uvicorns_start_and_body(case: str, method: str, keep_alive: bool) -> None:
    """`server.WHOLE`: the head and the body in one write, where uvicorn's start and body messages write twice: the
    same bytes, and the same state after (complete, the connection closed unless kept alive, the protocol told)."""
    status, headers = HEADS[case]
    length = dict(headers).get(b"content-length")
    body = b"x" * int(length) if length is not None else b"" if status in (204, 304) else b"a body"  # chunked
    cycles = [_cycle(kind, method, keep_alive) for kind in (RequestResponseCycle, Exchange)]
    told = [0, 0]
    theirs, ours = cycles
    theirs.on_response = lambda: told.__setitem__(0, told[0] + 1)
    ours.done = lambda: told.__setitem__(1, told[1] + 1)
    asyncio.run(theirs.send({"type": "http.response.start", "status": status, "headers": headers}))
    asyncio.run(theirs.send({"type": "http.response.body", "body": body}))
    asyncio.run(ours.send({"type": WHOLE, "status": status, "headers": headers, "body": body}))
    assert ours.transport.written == theirs.transport.written
    owed = ("chunked_encoding", "expected_content_length", "keep_alive", "response_started", "response_complete")
    assert _owed(ours, owed) == _owed(theirs, owed)
    assert (ours.transport.closed, ours.event.is_set()) == (theirs.transport.closed, True)
    assert told == [1, 1]


RECEIVED = {  # a cycle's state when its app asks for the body: (body in, more to come, event set, reading paused)
    "a whole body in": (b'{"a": 1}', False, True, False),
    "a whole body in, reading paused": (b"x" * 70_000, False, True, True),
    "a part in, more to come": (b"{", True, True, False),
    "nothing in yet": (b"", True, False, False),
}


@pytest.mark.parametrize("case", RECEIVED)
@pytest.mark.parametrize("ending", ["none", "disconnected", "complete", "100-continue"])
def test_receive_gives_what_uvicorns_gives(case: str, ending: str) -> None:
    """`Exchange.receive` does not await an event already set: the same message as uvicorn's, the same state after."""
    body, more, is_set, paused = RECEIVED[case]
    results = []
    for kind in (RequestResponseCycle, Exchange):
        cycle = _cycle(kind)
        cycle.body, cycle.more_body, cycle.flow.read_paused = bytearray(body), more, paused
        cycle.disconnected, cycle.response_complete = ending == "disconnected", ending == "complete"
        cycle.waiting_for_100_continue = ending == "100-continue"

        async def received(cycle: Any = cycle) -> Any:
            if is_set:
                _event(cycle).set()
            else:  # what the connection does when the body comes
                asyncio.get_running_loop().call_later(0.01, _event(cycle).set)
            return await cycle.receive()

        message = asyncio.run(received())
        results.append(
            (message, bytes(cycle.body), _event(cycle).is_set(), cycle.flow.read_paused, cycle.transport.written)
        )
    assert results[1] == results[0]


@pytest.mark.parametrize("body", [b"x", b"xxx"])
def test_a_whole_answer_not_its_length_is_refused_as_uvicorn_refuses_it(body: bytes) -> None:
    headers = [(b"content-length", b"2")]
    message = "longer" if len(body) > 2 else "shorter"
    ours = _cycle(Exchange)
    with pytest.raises(RuntimeError, match=f"Response content {message} than Content-Length"):
        asyncio.run(ours.send({"type": WHOLE, "status": 200, "headers": headers, "body": body}))
    theirs = _cycle(RequestResponseCycle)
    asyncio.run(theirs.send({"type": "http.response.start", "status": 200, "headers": headers}))
    with pytest.raises(RuntimeError, match=f"Response content {message} than Content-Length"):
        asyncio.run(theirs.send({"type": "http.response.body", "body": body}))


@pytest.mark.parametrize(("name", "value"), [(b"x-bad name", b"v"), (b"x-ok", b"line\r\nbreak"), (b"x-ok", b"nul\x00")])
def test_the_fast_head_refuses_what_uvicorn_refuses(name: bytes, value: bytes) -> None:
    for kind in (RequestResponseCycle, Exchange):
        cycle = _cycle(kind)
        with pytest.raises(RuntimeError, match="Invalid HTTP header"):
            asyncio.run(cycle.send({"type": "http.response.start", "status": 200, "headers": [(name, value)]}))
        assert cycle.transport.written == b""


# --- the outbox: the whole answers of one turn of the loop, written together at its end -------------------------


class _Socket(_Transport):
    """A connection's transport, as the protocol sees it: what is written once it is closing is dropped, as uvloop
    drops it."""

    def write(self, data: bytes) -> None:
        if not self.closed:
            super().write(data)

    def get_extra_info(self, name: str, default: Any = None) -> Any:
        return default

    def pause_reading(self) -> None:
        return None


async def _echo(scope: Any, receive: Any, send: Any) -> None:
    """An app answering each request with its body, whole (`WHOLE`)."""
    body = (await receive())["body"]
    headers = [(b"content-length", str(len(body)).encode())]
    await send({"type": WHOLE, "status": 200, "headers": headers, "body": body})


def _request(body: bytes) -> bytes:
    return b"POST /x HTTP/1.1\r\nhost: h\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)


def _answer(body: bytes) -> bytes:
    return b"HTTP/1.1 200 OK\r\ncontent-length: %d\r\n\r\n%s" % (len(body), body)


def _connections(count: int, app: Any = _echo, keep_alive: float = 5.0) -> list[Any]:
    """`count` connections of one server, made on the running loop, serving `app`."""
    shared = Shared(app, emulator_server.Rules(keep_alive=keep_alive), asyncio.get_running_loop(), None, {})
    made = []
    for _ in range(count):
        connection = Connection(shared)
        connection.connection_made(_Socket())
        made.append(connection)
    return made


def test_the_answers_of_one_turn_go_out_together_at_its_end() -> None:
    """Each connection's answer, its own bytes, none before the loop's turn ends, all in the next: one wake-up of
    a client on the other core for all of them (`server.Outbox`)."""

    async def run() -> tuple[list[bytes], list[bytes]]:
        connections = _connections(3)
        for index, connection in enumerate(connections):
            connection.data_received(_request(b"answer %d" % index))
        await asyncio.sleep(0)  # the apps' tasks run, and answer
        during = [connection.transport.written for connection in connections]
        await asyncio.sleep(0)
        return during, [connection.transport.written for connection in connections]

    during, after = asyncio.run(run())
    assert during == [b"", b"", b""]
    assert after == [_answer(b"answer %d" % index) for index in range(3)]


def test_a_lone_connection_is_answered_at_once() -> None:
    """With one connection open nothing can go with its answer: it is written as it is made, a turn sooner."""

    async def run() -> bytes:
        (connection,) = _connections(1)
        connection.data_received(_request(b"alone"))
        await asyncio.sleep(0)
        written: bytes = connection.transport.written
        return written

    assert asyncio.run(run()) == _answer(b"alone")


AFTER_HELD = {  # what comes on a connection holding an answer, before the turn ends; what it writes after the answer
    "its next request": (lambda c: c.data_received(_request(b"next")), b"", False),
    "a request llhttp refuses": (lambda c: c.data_received(b"NOT HTTP\r\n\r\n"), b"HTTP/1.1 400 Bad Request", True),
    "the server shutting down": (lambda c: c.shutdown(), b"", True),
    "its keep-alive timer": (lambda c: c._idle(), b"", True),
}


@pytest.mark.parametrize("case", AFTER_HELD)
def test_what_a_connection_holds_goes_before_anything_else_on_it(case: str) -> None:
    """The order on a connection is kept, and nothing held is lost to a close."""
    happen, then, closes = AFTER_HELD[case]

    async def run() -> tuple[bytes, bool, bytes]:
        connection, _ = _connections(2)
        connection.data_received(_request(b"first"))
        await asyncio.sleep(0)
        assert connection.held == _answer(b"first")
        happen(connection)
        written, closed = connection.transport.written, connection.transport.closed
        await asyncio.sleep(0)
        await asyncio.sleep(0)  # the next request's answer, held in its turn, then written
        return written, closed, connection.transport.written

    written, closed, finally_ = asyncio.run(run())
    assert written.startswith(_answer(b"first") + then)
    assert closed is closes
    if case == "its next request":
        assert finally_ == _answer(b"first") + _answer(b"next")


def test_an_answer_held_for_a_client_gone_is_dropped_quietly() -> None:
    async def run() -> tuple[bytes, bytes]:
        gone, stays = _connections(2)
        gone.data_received(_request(b"lost"))
        stays.data_received(_request(b"kept"))
        await asyncio.sleep(0)
        gone.transport.close()  # the client left: its transport is closing before the turn ends
        gone.connection_lost(None)
        await asyncio.sleep(0)
        return gone.transport.written, stays.transport.written

    assert asyncio.run(run()) == (b"", _answer(b"kept"))


class _Eager:
    """An app the protocol may run outside a task (`eager`), answering with its body after `wait` (a coroutine
    function, given the body), and noting whether it ran in a task and what a context variable held."""

    eager = True

    def __init__(self, wait: Any = None) -> None:
        self.wait, self.seen = wait, list[tuple[bool, bytes | None]]()

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        body, more = b"", True
        while more:
            message = await receive()
            body, more = body + message["body"], message["more_body"]
        self.seen.append((asyncio.current_task() is not None, _MARK.get()))
        _MARK.set(body)
        if self.wait is not None:
            await self.wait(body)
        headers = [(b"content-length", str(len(body)).encode())]
        await send({"type": WHOLE, "status": 200, "headers": headers, "body": body})


_MARK: contextvars.ContextVar[bytes | None] = contextvars.ContextVar("_MARK", default=None)


async def _read(connection: Any, data: bytes) -> bytes:
    """`data` read by `connection` as the loop reads a socket, outside any task; what it wrote within that read."""
    loop = asyncio.get_running_loop()
    written = loop.create_future()

    def read() -> None:
        connection.data_received(data)
        written.set_result(connection.transport.written)

    loop.call_soon(read)
    result: bytes = await written
    return result


def test_an_app_that_may_be_is_answered_with_no_task_after_the_reads_of_its_turn() -> None:
    """No task: a plain callback in the loop's next turn, where a task's first step would run, so that every
    request read in a turn is read (and stamped) before any is answered; each in a context of its own (what one
    sets, the next does not see)."""

    async def run() -> tuple[list[Any], list[bytes], list[Any], int]:
        app = _Eager()
        connections = _connections(2, app)
        loop = asyncio.get_running_loop()
        read = loop.create_future()

        def burst() -> None:  # the loop's reading of two sockets in one turn
            for index, connection in enumerate(connections):
                connection.data_received(_request(b"answer %d" % index))
            read.set_result(list(app.seen))

        loop.call_soon(burst)
        during = await read
        await asyncio.sleep(0)
        await asyncio.sleep(0)
        return during, [c.transport.written for c in connections], app.seen, len(connections[0].shared.tasks)

    during, written, seen, tasks = asyncio.run(run())
    assert during == []
    assert written == [_answer(b"answer 0"), _answer(b"answer 1")]
    assert seen == [(False, None), (False, None)]
    assert tasks == 0


def test_an_app_run_outside_a_task_that_waits_goes_on_in_one_that_can_be_cancelled() -> None:
    """What it awaits is awaited in a task (`server.in_task` for what needs one: `asyncio.timeout` here); a
    task cancelled (the shutdown's grace over) throws in where it waits."""
    cancelled: list[bytes] = []

    async def wait(body: bytes) -> None:
        await emulator_server.in_task()
        async with asyncio.timeout(5):  # refused outside a task ("Timeout should be used inside a task")
            try:
                await asyncio.sleep(0.01 if body == b"short" else 60)
            except asyncio.CancelledError:
                cancelled.append(body)
                raise

    async def run() -> tuple[bytes, bytes, list[bool]]:
        app = _Eager(wait)
        short, long = _connections(2, app)
        assert await _read(short, _request(b"short")) == b""
        assert await _read(long, _request(b"long")) == b""
        assert len(short.shared.tasks) == 2
        await asyncio.sleep(0.2)
        for task in list(long.shared.tasks):
            task.cancel()
        await asyncio.sleep(0.05)
        return short.transport.written, long.transport.written, [task.done() for task in short.shared.tasks]

    short, long, running = asyncio.run(run())
    assert short == _answer(b"short")
    assert long.startswith(b"HTTP/1.1 500 Internal Server Error")  # what uvicorn answers for a task cancelled
    assert cancelled == [b"long"] and running == []


def test_an_app_run_outside_a_task_that_asks_for_a_turn_gives_the_loop_one() -> None:
    """`asyncio.sleep(0)` in an app begun outside a task (a long answer letting other connections be served):
    once it is in a task, each such turn goes to the loop, where it was taken back at once and the loop waited."""
    between: list[int] = []

    async def turns(body: bytes) -> None:
        await emulator_server.in_task()
        loop = asyncio.get_running_loop()
        for n in range(3):
            loop.call_soon(between.append, n)  # runs only if the loop gets its turn
            await asyncio.sleep(0)
            between.append(-1)

    async def run() -> bytes:
        app = _Eager(turns)
        (connection,) = _connections(1, app)
        assert await _read(connection, _request(b"turns")) == b""
        for _ in range(10):
            await asyncio.sleep(0)
        written: bytes = connection.transport.written
        return written

    assert asyncio.run(run()) == _answer(b"turns")
    assert between == [0, -1, 1, -1, 2, -1]


def test_a_request_whose_body_comes_later_is_run_as_uvicorn_runs_it() -> None:
    """A body not whole when its head is read: a task at once, reading the body as it comes."""

    async def run() -> tuple[bytes, list[Any]]:
        app = _Eager()
        (connection,) = _connections(1, app)
        whole = _request(b"in two parts")
        assert await _read(connection, whole[:-5]) == b""
        assert await _read(connection, whole[-5:]) == b""
        await asyncio.sleep(0)
        return connection.transport.written, app.seen

    written, seen = asyncio.run(run())
    assert written == _answer(b"in two parts")
    assert seen == [(True, None)]


def test_two_requests_in_one_read_are_answered_in_order_the_second_outliving_the_keep_alive_timer() -> None:
    """The first is answered outside a task, the second (queued behind it, as uvicorn queues a pipelined request)
    in one; the keep-alive timer, shorter than the second's answer, does not cut it."""

    async def wait(body: bytes) -> None:
        if body == b"slow":
            await asyncio.sleep(0.3)

    async def run() -> bytes:
        (connection,) = _connections(1, _Eager(wait), keep_alive=0.05)
        assert await _read(connection, _request(b"fast") + _request(b"slow")) == b""
        await asyncio.sleep(0.5)
        written: bytes = connection.transport.written
        return written

    assert asyncio.run(run()) == _answer(b"fast") + _answer(b"slow")  # cut, it would have no second answer


def test_pipelined_answers_whole_and_streamed_keep_their_order_among_busy_connections(strict: Server) -> None:
    """On a real server with other connections open (so answers are held): four requests sent at once on one
    connection, whole answers and a stream between them, come back in the order asked, each whole."""
    chat = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Say something short."}]}
    asked = [
        ("/v1/chat/completions", chat, "chat.completion"),
        ("/v1/chat/completions", chat | {"stream": True}, "text/event-stream"),
        ("/v1/responses", {"model": "gpt-4o-mini", "input": "And again."}, "response"),
        ("/v1/chat/completions", chat | {"n": 2}, "chat.completion"),
    ]
    data = b"".join(_request_to(path, body) for path, body, _ in asked)
    address = (strict.host, strict.port)
    with contextlib.ExitStack() as closing:
        others = [closing.enter_context(socket.create_connection(address)) for _ in range(2)]
        sock = closing.enter_context(socket.create_connection(address))
        reader = closing.enter_context(sock.makefile("rb"))
        sock.sendall(data)
        for other in others:  # busy meanwhile: their answers are held in the same turns
            other.sendall(_request_to("/v1/chat/completions", chat))
        got = []
        for _ in asked:
            response = http.client.HTTPResponse(_Reading(reader))  # type: ignore[arg-type]
            response.begin()
            body = response.read()
            kind = response.getheader("content-type", "")
            got.append("text/event-stream" if kind.startswith("text/event-stream") else json.loads(body)["object"])
            assert response.status == 200
        for other in others:
            other.settimeout(30)
            assert other.recv(65536).startswith(b"HTTP/1.1 200 OK")
    assert got == [kind for _, _, kind in asked]


def _request_to(path: str, body: object) -> bytes:
    encoded = json.dumps(body).encode()
    head = f"POST {path} HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\nauthorization: Bearer sk-test\r\n"
    return head.encode() + b"content-length: %d\r\n\r\n" % len(encoded) + encoded


class _Reading:
    """A socket for `http.client.HTTPResponse` that reads one buffered file, which a response read to its end does
    not close: responses one after another."""

    def __init__(self, reader: Any) -> None:
        self.reader = reader

    def makefile(self, mode: str) -> Any:
        return self

    def __getattr__(self, name: str) -> Any:
        return getattr(self.reader, name)

    def close(self) -> None:
        return None


# --- secrets in logs ----------------------------------------------------------------------------------------


def test_the_access_log_redacts_secret_query_values(tmp_path: Path) -> None:
    """`GET /_emulator/requests?token=s3cr3t-TOKEN-value` reached the access log as sent."""
    secrets = {"token": "tok-9f8e7d6c5b4a", "key": "AIzaSyFAKE-0123456789", "api_key": "sk-ant-fake-42"}
    process, port = launch([sys.executable, "-m", "emulator", "serve", "--port", "0"], cwd=tmp_path)
    try:
        read_until(process, "INFO:     Started server process")
        for name, value in secrets.items():
            conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            conn.request("GET", f"/_emulator/requests?bodies=false&{name}={value}&since=0")
            assert conn.getresponse().read()
            conn.request("GET", f"/v1/models?{name}={value}", headers={"authorization": f"Bearer {value}"})
            assert conn.getresponse().read()
            conn.close()
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
    for name, value in secrets.items():
        assert value not in out, out
        assert f'"GET /_emulator/requests?bodies=false&{name}=***&since=0 HTTP/1.1" 200' in out, out
        assert f'"GET /v1/models?{name}=*** HTTP/1.1" 200' in out, out


def test_ctrl_c_during_a_stream_says_what_it_cut_in_one_line(tmp_path: Path) -> None:
    """Ctrl-C during a stream waited the grace, cut it, and logged a 25-line `CancelledError` traceback."""
    process, port = launch(
        [sys.executable, "-m", "emulator", "serve", "--port", "0", "--shutdown-grace", "1"], cwd=tmp_path
    )
    try:
        read_until(process, "INFO:     Started server process")
        body = b'{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'
        with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
            sock.sendall(
                b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
                b"authorization: Bearer sk-test\r\nx-emulator-timing: ttft_ms=600000\r\n"
                b"content-length: %d\r\n\r\n%s" % (len(body), body)
            )
            assert sock.recv(4096).startswith(b"HTTP/1.1 200")
            process.send_signal(signal.SIGINT)
            out, _ = process.communicate(timeout=60)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    assert process.returncode == 0, out
    assert "Traceback" not in out and "CancelledError" not in out and "Exception in ASGI" not in out, out
    assert out.count("shutdown: cut 1 answer still running after the 1 s grace (--shutdown-grace)") == 1, out


def test_a_client_that_expects_100_continue_is_told_to_go_on_and_its_headers_lose_trailing_blanks() -> None:
    """The protocol's own per-header step (compiled in the wheel) does what uvicorn's does: `Expect: 100-continue`
    makes the cycle say `100 Continue` when the app first asks for the body, not before; a header's value loses
    the blanks after it (RFC 9110, section 5.5), so the test id is the journal's without them."""
    with (
        Background(create_app(Settings()), rules=RULES) as running,
        socket.create_connection((running.host, running.port)) as sock,
    ):
        body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
        sock.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
            b"Expect: 100-Continue\r\nauthorization: Bearer sk-test\r\n"
            b"x-emulator-test-id: blanks \t \r\ncontent-length: %d\r\n\r\n" % len(body)
        )
        sock.settimeout(10)
        assert read_until_blank(sock) == b"HTTP/1.1 100 Continue\r\n\r\n"
        sock.sendall(body)
        assert read_until_blank(sock).startswith(b"HTTP/1.1 200")
        journal = http.client.HTTPConnection(running.host, running.port, timeout=10)
        journal.request("GET", "/_emulator/requests?test_id=blanks&bodies=false")
        found = json.loads(journal.getresponse().read())["requests"]
        journal.close()
    assert [e["status"] for e in found] == [200]


def test_the_cycles_flag_wakes_its_waiters_as_an_asyncio_event_does() -> None:
    """`turns.Flag`, which the protocol gives each cycle in place of uvicorn's `asyncio.Event`: set wakes every
    waiter, a set flag is waited on at once, clear makes the next wait wait, and a cancelled waiter is let go."""
    from emulator.server.turns import Flag

    async def check() -> None:
        flag = Flag()
        waiting = [asyncio.ensure_future(flag.wait()) for _ in range(3)]
        await asyncio.sleep(0)
        assert not any(w.done() for w in waiting) and not flag.is_set()
        flag.set()
        assert await asyncio.gather(*waiting) == [True, True, True] and flag.waiters == []
        assert await asyncio.wait_for(flag.wait(), 1) is True
        flag.clear()
        left = asyncio.ensure_future(flag.wait())
        await asyncio.sleep(0)
        left.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await left
        assert flag.waiters == [] and not flag.is_set()
        later = asyncio.ensure_future(flag.wait())
        asyncio.get_running_loop().call_later(0.01, flag.set)
        assert await asyncio.wait_for(later, 1) is True

    asyncio.run(check())


class _Pausing(_Socket):
    """A transport that notes when reading is paused and resumed."""

    def __init__(self) -> None:
        super().__init__()
        self.pauses: list[str] = []

    def pause_reading(self) -> None:
        self.pauses.append("pause")

    def resume_reading(self) -> None:
        self.pauses.append("resume")


class _Seeing:
    """An app that notes each request's scope (the transport-specific extensions aside) and the messages it received
    until its body was whole, and answers with the body's length (start and body messages, as a plain ASGI app)."""

    def __init__(self) -> None:
        self.seen: list[Any] = []

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        messages = [await receive()]
        while messages[-1].get("more_body"):
            messages.append(await receive())
        shown = {k: v for k, v in scope.items() if k not in ("extensions", "state")}
        self.seen.append((shown, [(m["type"], len(m.get("body", b"")), m.get("more_body")) for m in messages]))
        size = str(sum(len(m.get("body", b"")) for m in messages)).encode()
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"%d" % len(size))]})
        await send({"type": "http.response.body", "body": size})


UVICORNS_CASES = {
    "a plain request": [_request(b"hello")],
    "a path escaped, a query": [b"GET /a%20b/c%2Fd?x=1&y=%2F HTTP/1.1\r\nhost: h\r\n\r\n"],
    "HTTP/1.0": [b"POST /x HTTP/1.0\r\ncontent-length: 2\r\n\r\nhi"],
    "two pipelined in one read": [_request(b"one") + _request(b"two, longer")],
    "a body in pieces": [_request(b"0123456789")[:-6], b"456", b"789"],
    "a body past the high-water mark": [
        b"POST /big HTTP/1.1\r\nhost: h\r\ncontent-length: 200000\r\n\r\n" + b"x" * 70_000,
        b"y" * 70_000,
        b"z" * 60_000,
    ],
    "an invalid request": [b"NOT HTTP AT ALL\r\n\r\n"],
    "an upgrade it does not take": [
        b"GET /ws HTTP/1.1\r\nhost: h\r\nconnection: upgrade\r\nupgrade: websocket\r\n"
        b"sec-websocket-version: 13\r\nsec-websocket-key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
    ],
}


@pytest.mark.parametrize("case", UVICORNS_CASES)
def test_the_connections_request_steps_are_uvicorns(case: str) -> None:
    """The server's own connection against uvicorn's httptools protocol (the oracle), fed the same bytes in the same
    reads: the same scopes and messages reach the app, the same bytes go out, reading is paused and resumed alike,
    the connection ends alike, and as many answers are counted."""

    async def serve(kind: type) -> Any:
        app = _Seeing()
        if kind is HttpToolsProtocol:
            config = uvicorn.Config(
                app, ws="none", access_log=False, server_header=False, date_header=False, lifespan="off"
            )
            config.load()
            connection: Any = HttpToolsProtocol(config, ServerState(), {})
        else:
            connection = Connection(Shared(app, emulator_server.Rules(), asyncio.get_running_loop(), None, {}))
        transport = _Pausing()
        connection.connection_made(transport)
        for data in UVICORNS_CASES[case]:
            connection.data_received(data)
            for _ in range(5):
                await asyncio.sleep(0)
        await asyncio.sleep(0.01)
        if kind is HttpToolsProtocol:
            timer, answered = connection.timeout_keep_alive_task, connection.server_state.total_requests
        else:
            timer, answered = connection.keep_alive_timer, connection.shared.answered
        if timer is not None:
            timer.cancel()
        return app.seen, transport.written, transport.pauses, transport.closed, answered

    theirs, ours = (asyncio.run(serve(kind)) for kind in (HttpToolsProtocol, Connection))
    assert ours == theirs
    assert theirs[1]  # something was answered: the case is not vacuous


# --- the hostile round's classes: pipelining a byte at a time, deadlines behind an answer, garbage, stuck peers ---


def _responses(sock: socket.socket, count: int) -> list[tuple[int, bytes]]:
    """`count` responses read one after another from `sock`: (status, body)."""
    sock.settimeout(30)
    got = []
    with sock.makefile("rb") as reader:
        for _ in range(count):
            response = http.client.HTTPResponse(_Reading(reader))  # type: ignore[arg-type]
            response.begin()
            got.append((response.status, response.read()))
    return got


@pytest.mark.parametrize("step", [1, 7, 61])
def test_pipelined_requests_written_a_few_bytes_at_a_time_are_all_answered_in_order(strict: Server, step: int) -> None:
    chat = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Count to three."}]}
    data = _request_to("/v1/chat/completions", chat) + b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n"
    data += _request_to("/v1/responses", {"model": "gpt-4o-mini", "input": "Then stop."})
    with socket.create_connection((strict.host, strict.port)) as sock:
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        for start in range(0, len(data), step):
            sock.sendall(data[start : start + step])
            time.sleep(0.0005)
        got = _responses(sock, 3)
    assert [status for status, _ in got] == [200, 200, 200]
    kinds = [json.loads(body).get("object", json.loads(body).get("status")) for _, body in got]
    assert kinds == ["chat.completion", "ok", "response"]


def test_an_answer_pipelined_behind_another_and_slower_than_the_deadline_is_answered_whole(strict: Server) -> None:
    """The deadline for a whole request restarted at the previous answer, and closed the connection under the second
    answer, which was being made: a request being answered owes no deadline."""
    chat = {"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "Slowly, please."}]}
    slow = _request_to("/v1/chat/completions", chat).replace(
        b"content-length", b"x-emulator-timing: latency_ms=%d\r\ncontent-length" % (2500 * RULES.request_timeout)
    )
    with socket.create_connection((strict.host, strict.port)) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n" + slow)
        got = _responses(sock, 2)
    assert [status for status, _ in got] == [200, 200]
    assert json.loads(got[1][1])["object"] == "chat.completion"


def test_a_request_followed_by_garbage_is_answered_then_refused_with_no_traceback(
    strict: Server, caplog: pytest.LogCaptureFixture
) -> None:
    with caplog.at_level(logging.INFO), socket.create_connection((strict.host, strict.port)) as sock:
        sock.sendall(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n\x00\x01 not http at all\r\n\r\n")
        got = _responses(sock, 2)
        closed, rest = closed_within(sock, 5)
    assert [status for status, _ in got] == [200, 400] and closed and rest == b""
    assert json.loads(got[0][1])["status"] == "ok" and got[1][1] == b"Invalid HTTP request received."
    assert not [r for r in caplog.records if r.exc_info or "Exception" in r.getMessage()], caplog.text


async def _flood(scope: Any, receive: Any, send: Any) -> None:
    """An app that answers with 64 MB in 1 MB chunks, whoever reads them."""
    await receive()
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", b"text/plain")]})
    for _ in range(64):
        await send({"type": "http.response.body", "body": b"x" * 1_000_000, "more_body": True})
    await send({"type": "http.response.body", "body": b""})


@pytest.mark.parametrize(("stream", "timing"), [(True, b""), (False, b""), (True, b"tokens_per_second=0.5")])
def test_a_client_that_half_closes_after_its_request_gets_the_whole_answer(
    server: Server, stream: bool, timing: bytes
) -> None:
    """A client that shuts its sending side once its request is out (as `nc -N` and some uploaders do): a streamed
    answer delivered nothing, a plain one arrived. Both arrive, then the server closes. A paced one arrives at once:
    nothing tells a client that stopped sending from one that left, so nothing waits on it (one that left is
    written to, and gone)."""
    chat = {"model": "m", "stream": stream, "messages": [{"role": "user", "content": "Name three rivers."}]}
    asked = _request_to("/v1/chat/completions", chat)
    if timing:
        asked = asked.replace(b"content-length", b"x-emulator-timing: %s\r\ncontent-length" % timing)
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(asked + b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")
        sock.shutdown(socket.SHUT_WR)
        closed, data = closed_within(sock, 10)  # paced, its events would take minutes
    assert closed and data.count(b"HTTP/1.1 200 OK\r\n") == 2, data[-300:]
    answer, _, health = data.rpartition(b"HTTP/1.1 200 OK\r\n")
    assert answer.endswith(b"data: [DONE]\n\n\r\n0\r\n\r\n" if stream else b"}") and health.endswith(b'"ok"}')


def test_a_stall_for_a_client_that_half_closed_ends_as_for_one_that_left(server: Server) -> None:
    """A stall holds the socket until the client gives up: one that sends nothing more may be gone, so it is
    closed after what the stall let out, not held for ever."""
    chat = {"model": "m", "stream": True, "messages": [{"role": "user", "content": "Name three rivers."}]}
    asked = _request_to("/v1/chat/completions", chat)
    asked = asked.replace(b"content-length", b"x-emulator-fault: stall; after_events=2\r\ncontent-length")
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(asked)
        sock.shutdown(socket.SHUT_WR)
        closed, data = closed_within(sock, 10)
    assert closed and data.startswith(b"HTTP/1.1 200 OK\r\n") and b"[DONE]" not in data


def test_a_client_that_half_closes_in_the_middle_of_its_request_is_closed_unanswered(server: Server) -> None:
    whole = _request_to("/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    with socket.create_connection((server.host, server.port), timeout=10) as sock:
        sock.sendall(whole[:-10])
        sock.shutdown(socket.SHUT_WR)
        closed, data = closed_within(sock, 10)
    assert closed and data == b""


def test_a_client_that_stops_reading_is_dropped_after_the_write_timeout(caplog: pytest.LogCaptureFixture) -> None:
    """Clients that asked for a long answer and never read it kept it in the server's memory for as long as they kept
    the connection; now a peer that leaves written bytes unread `write_timeout` seconds is dropped, said in the log."""
    rules = emulator_server.Rules(request_timeout=1.0, write_timeout=1.0)
    with (
        caplog.at_level(logging.INFO, logger="emulator.server"),
        Background(_flood, rules=rules) as running,
        socket.create_connection((running.host, running.port)) as sock,
    ):
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.sendall(b"GET /big HTTP/1.1\r\nhost: x\r\n\r\n")
        assert sock.recv(1024).startswith(b"HTTP/1.1 200 OK")  # the head, then nothing more is read
        assert running.server.connections
        deadline = time.monotonic() + 4 * (rules.write_timeout + 1) + 5
        while running.server.connections and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not running.server.connections  # dropped, never read
    said = [r.getMessage() for r in caplog.records if r.name == "emulator.server"]
    assert "dropped 1 connection that left an answer unread for 1 s" in said, said


def test_the_json_log_is_one_object_a_line_secrets_redacted_and_the_level_is_kept(tmp_path: Path) -> None:
    """`--log-format json`: the server's lines and the access log's, each a JSON object with its fields; a query's
    secret is `***` there too. At `--log-level warning` neither the start line nor the access log is written."""
    command = [sys.executable, "-m", "emulator", "serve", "--port", "0", "--log-format", "json"]
    process, port = launch(command, cwd=tmp_path)
    try:
        started = read_until(process, '{"time"')[-1]
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/v1/models?api_key=sk-hidden-7f3a&limit=2", headers={"authorization": "Bearer sk-x"})
        assert conn.getresponse().read()
        conn.close()
        access = json.loads(read_until(process, '{"time"')[-1])
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
    assert json.loads(started) | {"time": ""} == {
        "time": "", "level": "INFO", "logger": "emulator.server", "message": f"Started server process [{process.pid}]"
    }  # fmt: skip
    assert access["path"] == "/v1/models?api_key=***&limit=2" and access["status"] == 200, access
    assert access["method"] == "GET" and access["logger"] == "emulator.access" and access["client"].startswith("127.")
    assert "sk-hidden-7f3a" not in out
    quiet, port = launch([*command[:-2], "--log-level", "warning"], cwd=tmp_path)
    try:
        read_until(quiet, "scenarios:")
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        conn.request("GET", "/health")
        assert conn.getresponse().status == 200
        conn.close()
    finally:
        quiet.send_signal(signal.SIGTERM)
        said, _ = quiet.communicate(timeout=60)
    assert "Started server process" not in said and "/health" not in said, said


def _limited(tmp_path: Path, soft: int, hard: int) -> tuple[subprocess.Popen[str], int]:
    serve = f"{sys.executable} -m emulator serve --port 0 --max-connections 1000"
    return launch(["bash", "-c", f"ulimit -Sn {soft}; ulimit -Hn {hard}; exec {serve}"], cwd=tmp_path)


def test_a_descriptor_limit_is_raised_to_what_max_connections_needs(tmp_path: Path) -> None:
    """Go's runtime raises a server's soft limit on open files to its hard one; so does the emulator, as far as
    `--max-connections` needs. Below, past some 960 connections the system refused new ones, unsaid."""
    process, _ = _limited(tmp_path, 100, 5000)
    try:
        said = read_until(process, "scenarios:")
        limits = Path(f"/proc/{process.pid}/limits").read_text()
    finally:
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
    assert not [line for line in said if line.startswith("warning")], said
    soft = next(line.split()[3] for line in limits.splitlines() if line.startswith("Max open files"))
    assert int(soft) == 1000 + emulator_server.SPARE_DESCRIPTORS


def test_a_descriptor_limit_too_low_for_max_connections_is_said_at_start_and_when_it_is_hit(tmp_path: Path) -> None:
    process, port = _limited(tmp_path, 100, 200)
    held: list[socket.socket] = []
    try:
        warned = read_until(process, "warning")[-1]
        read_until(process, "INFO:     Started")
        for _ in range(200 - emulator_server.SPARE_DESCRIPTORS + 20):
            held.append(socket.create_connection(("127.0.0.1", port), timeout=10))
        hit = read_until(process, "WARNING")[-1]
    finally:
        for sock in held:
            sock.close()
        process.send_signal(signal.SIGTERM)
        process.communicate(timeout=60)
    assert "may open 200 files (ulimit -n), too few for --max-connections 1000" in warned
    assert "(ulimit -n 1064)" in warned
    assert f"{200 - emulator_server.SPARE_DESCRIPTORS} connections open" in hit and "limit on open files (200" in hit


def test_an_http_1_0_client_gets_a_stream_without_chunks_ended_by_the_close(server: Server) -> None:
    """HTTP/1.0 has no chunked coding: a streamed answer (no length known) is its bytes as they are, and the
    connection's close ends it. A 1.1 client on the same route gets chunks."""
    body = b'{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}'

    def ask(version: bytes) -> tuple[bytes, bytes]:
        with socket.create_connection((server.host, server.port), timeout=10) as sock:
            head = b"POST /v1/chat/completions %s\r\nhost: x\r\nauthorization: Bearer k\r\n" % version
            sock.sendall(head + b"connection: close\r\ncontent-length: %d\r\n\r\n" % len(body) + body)
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        answer_head, _, rest = data.partition(b"\r\n\r\n")
        return answer_head.lower(), rest

    old_head, old_body = ask(b"HTTP/1.0")
    assert b"transfer-encoding" not in old_head and b"connection: close" in old_head
    assert old_body.startswith(b"data: {") and old_body.endswith(b"data: [DONE]\n\n")
    new_head, new_body = ask(b"HTTP/1.1")
    assert b"transfer-encoding: chunked" in new_head and new_body.endswith(b"0\r\n\r\n")


def test_a_head_past_64_kib_is_answered_431_and_closed(server: Server) -> None:
    """A 32 MB header was taken whole; the real APIs answer a head that large 431."""
    for head in (
        b"x-big: " + b"a" * 70_000 + b"\r\n",
        b"".join(b"x-h%d: %s\r\n" % (i, b"b" * 100) for i in range(700)),
    ):
        with socket.create_connection((server.host, server.port), timeout=10) as sock:
            sock.sendall(b"GET /health HTTP/1.1\r\nhost: x\r\n" + head + b"\r\n")
            data = b""
            while chunk := sock.recv(65536):
                data += chunk
        assert data.startswith(b"HTTP/1.1 431 Request Header Fields Too Large\r\n")
        assert data.endswith(b"Request header fields too large.")
    with socket.create_connection((server.host, server.port), timeout=10) as sock:  # a large but fair head is fine
        sock.sendall(b"GET /health HTTP/1.1\r\nhost: x\r\nconnection: close\r\nx-ok: " + b"c" * 30_000 + b"\r\n\r\n")
        assert sock.recv(65536).startswith(b"HTTP/1.1 200 OK")
