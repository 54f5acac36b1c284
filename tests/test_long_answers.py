"""A long scripted answer is made as it is written: a client that never reads it costs the server a little, not
the answer, and one that reads it as fast as it can does not hold the other connections while it is made. A large
request is read the same way: its digest, parse and key in a worker thread, its words a slice at a time."""

from __future__ import annotations

import json
import socket
import threading
import time
import tracemalloc
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
import yaml

from emulator.http.app import Settings, create_app
from emulator.journal import BODY_CAP
from tests.conftest import Server, serve_app

pytestmark = pytest.mark.alone  # wall-clock and memory measurements: run apart (conftest.py)

WORDS = 150_000  # a megabyte of text: 300,000 tokens, 70 MB of Chat's events


@pytest.fixture(scope="module")
def long_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Server]:
    path = tmp_path_factory.mktemp("long") / "long.yaml"
    text = " ".join(f"river{i}" for i in range(WORDS))
    scenario = {"name": "long", "match": {"last_user": {"contains": "ALL OF IT"}}, "reply": {"text": text}}
    path.write_text(yaml.safe_dump({"scenarios": [scenario]}))
    yield from serve_app(create_app(Settings(scenarios=(path,))))


def _request(stream: bool, words: str = "Tell me ALL OF IT.") -> bytes:
    body = json.dumps({"model": "m", "stream": stream, "messages": [{"role": "user", "content": words}]}).encode()
    head = b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer sk-x\r\n"
    head += b"content-type: application/json\r\n"
    return head + b"content-length: %d\r\n\r\n" % len(body) + body


def _read_all(server: Server, stream: bool) -> tuple[int, float]:
    """The whole answer read as fast as the client can: its size in bytes, and how long it took."""
    started = time.perf_counter()
    size = 0
    with socket.create_connection((server.host, server.port), timeout=60) as sock:
        sock.sendall(_request(stream))
        tail = b""
        while True:
            chunk = sock.recv(1 << 20)
            size += len(chunk)
            tail = (tail + chunk)[-16:]
            if not chunk or tail.endswith(b"\r\n0\r\n\r\n" if stream else b"}"):
                break
    return size, time.perf_counter() - started


def _probing(server: Server, during: Any) -> tuple[list[float], float]:
    """`/health`'s waits, every 2 ms on a connection of its own, while `during()` runs; and how long it took."""
    waits: list[float] = []
    done = threading.Event()

    def probe() -> None:
        with socket.create_connection((server.host, server.port), timeout=60) as sock:
            while not done.is_set():
                asked = time.perf_counter()
                sock.sendall(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")
                answer = b""
                while not answer.endswith(b'"ok"}'):
                    answer += sock.recv(4096)
                waits.append(time.perf_counter() - asked)
                time.sleep(0.002)

    prober = threading.Thread(target=probe)
    prober.start()
    try:
        time.sleep(0.05)
        started = time.perf_counter()
        during()
        took = time.perf_counter() - started
    finally:
        done.set()
        prober.join()
    return waits, took


def test_a_large_request_leaves_the_loop_to_the_others(long_server: Server) -> None:
    """A 29 MB question held the loop half a second (its digest, its parse, its words split in one call)."""
    words = " ".join(f"stone{i}" for i in range(2_500_000)) + " What is this?"
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": words}]}).encode()
    head = b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer sk-x\r\n"
    asked = head + b"content-type: application/json\r\ncontent-length: %d\r\n\r\n" % len(body) + body

    def ask() -> None:
        with socket.create_connection((long_server.host, long_server.port), timeout=60) as sock:
            sock.sendall(asked)
            assert sock.recv(64).startswith(b"HTTP/1.1 200 OK")

    ask()  # what a first request warms, warmed
    waits, took = _probing(long_server, ask)
    assert len(waits) > 10
    assert max(waits) < took / 4, (max(waits), took)


def test_a_long_stream_read_at_full_speed_leaves_the_loop_to_the_others(long_server: Server) -> None:
    """It was made whole before its first write: a fifth of a second in which no other client was answered,
    `/health` included. The other clients now wait a few milliseconds at worst, however long the answer."""
    size, _ = _read_all(long_server, True)  # its scenario's pieces cut once; the answer's size
    assert size > 20_000_000
    waits, took = _probing(long_server, lambda: _read_all(long_server, True))
    assert len(waits) > 10
    assert max(waits) < took / 4, (max(waits), took)


def test_clients_that_never_read_a_long_answer_cost_the_server_a_little_of_it(long_server: Server) -> None:
    """Each held its whole answer in the server's memory (fifty of them: three gigabytes). Made as it is written,
    a stream waits for its client with one write in hand; a whole answer is its body, once."""
    streamed, _ = _read_all(long_server, True)
    whole, _ = _read_all(long_server, False)
    clients = 12
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        socks = []
        for index in range(clients):
            sock = socket.create_connection((long_server.host, long_server.port), timeout=60)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.sendall(_request(stream=index % 2 == 0))
            assert sock.recv(64).startswith(b"HTTP/1.1 200 OK")  # begun; nothing more is read
            socks.append(sock)
        time.sleep(1.0)  # the streams write until their clients' windows are full, then wait
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
        for sock in socks:
            sock.close()
    # the journal keeps the first BODY_CAP bytes of each answer, and a whole answer is one body
    allowed = clients // 2 * (whole + BODY_CAP) + clients // 2 * 3 * BODY_CAP
    assert held < allowed < clients // 2 * streamed / 4, (held, allowed, streamed)


def test_a_long_stream_is_journalled_as_its_events_up_to_the_cap(long_server: Server) -> None:
    """The journal keeps what it shows of an answer (its first `BODY_CAP` bytes), as the stream goes out: not the
    answer whole, for as long as the entry is kept."""
    _read_all(long_server, True)
    with httpx.Client(base_url=long_server.base_url, timeout=60) as client:
        listed = client.get("/_emulator/requests", params={"bodies": "false"}).json()["requests"][-1]
        entry = client.get(f"/_emulator/requests/{listed['id']}").json()
    events = entry["response"]["events"]
    assert listed["truncated"] is True and listed["status"] == 200
    assert events[0]["data"]["choices"][0]["delta"]["role"] == "assistant"
    shown = sum(len(json.dumps(event["data"])) for event in events)
    assert 0.5 * BODY_CAP < shown < 1.2 * BODY_CAP
