"""The server's connection rules: no client can hold a connection, or the server, for ever."""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import pytest

from emulator import server as emulator_server
from emulator.app import Settings, create_app
from tests.conftest import Server, serve_app

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


def test_an_idle_connection_that_never_sends_a_request_is_closed(strict: Server) -> None:
    """1,200 idle connections were never closed: uvicorn's keep-alive timer starts only after a response."""
    with socket.create_connection((strict.host, strict.port)) as sock:
        closed, sent = closed_within(sock, 4 * RULES.request_timeout + 2)
    assert closed and sent == b""


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


def test_past_the_connection_cap_a_new_connection_is_closed_at_once(strict: Server) -> None:
    held = [socket.create_connection((strict.host, strict.port)) for _ in range(RULES.max_connections)]
    try:
        time.sleep(0.2)
        with socket.create_connection((strict.host, strict.port)) as extra:
            closed, sent = closed_within(extra, 2)
        assert closed and sent == b""
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
