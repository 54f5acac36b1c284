"""`emulator serve --workers 2 --state redis://…`, as a subprocess on a free loopback port, driven by the official
SDKs: requests land on both workers, and what they share stays coherent across them.

The two workers accept on one socket, so which of them takes a connection is the kernel's choice: each check
sends its requests in concurrent rounds, each on a fresh connection, until the journal shows both workers
answered some (`spread`), and holds on whatever mix that was. No check depends on how long anything takes.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import re
import signal
import socket
import subprocess
import sys
import time
import uuid
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import openai
import pytest
import redis

from emulator.http.app import Settings, create_app
from emulator.state import State
from emulator.state import redis as shared_redis
from tests.conftest import REDIS_SERVER, call, launch, read_until
from tests.test_plugin import USER_TESTS

EMULATOR = [sys.executable, "-m", "emulator"]
STEPS = 400  # of the `counted` scenario: more than any check sends
DAILY = 1000  # requests per day per key: the bucket refills 0.0116 a second, so `remaining` counts down by ones
T = TypeVar("T")
pytest_plugins = ["pytester"]


@dataclass
class Workers:
    process: subprocess.Popen[str]
    port: int

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def openai(self, test_id: str, prefix: str = "", **options: Any) -> openai.OpenAI:
        """A new client, so a new connection: the kernel picks the worker again."""
        headers = {"x-emulator-test-id": test_id}
        return openai.OpenAI(
            base_url=f"{self.url}{prefix}/v1",
            api_key=options.pop("api_key", "sk-workers"),
            max_retries=0,
            timeout=30,
            default_headers=headers,
            _strict_response_validation=True,
            **options,
        )

    def journal(self, test_id: str) -> list[dict[str, Any]]:
        status, found = call(self.port, "GET", f"/_emulator/requests?test_id={test_id}&bodies=false")
        assert status == 200, found
        return list(found["requests"])

    def spread(self, test_id: str, send: Callable[[int], T], batch: int = 12, rounds: int = 20) -> list[T]:
        """`send(i)` in concurrent rounds of `batch` until the journal shows both workers answered the test's
        requests; everything sent returned, in order."""
        results: list[T] = []
        with ThreadPoolExecutor(batch) as pool:
            for _ in range(rounds):
                results += pool.map(send, range(len(results), len(results) + batch))
                if len(workers_of(self.journal(test_id))) == 2:
                    return results
        pytest.fail(f"{len(results)} requests, all answered by one worker: {workers_of(self.journal(test_id))}")


def workers_of(entries: list[dict[str, Any]]) -> set[str]:
    return {entry["worker"] for entry in entries}


@pytest.fixture(scope="module")
def workers(redis_server: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Workers]:
    folder = tmp_path_factory.mktemp("workers")
    steps = "\n".join(f"      - text: step {i}" for i in range(STEPS))
    (folder / "counted.yaml").write_text(f"scenarios:\n  - name: counted\n    replies:\n{steps}\n")
    command = [*EMULATOR, "serve", "--port", "0", "--workers", "2", "--state", f"{redis_server}?prefix=workers"]
    command += ["--scenarios", str(folder), "--limits", f"requests_per_day={DAILY}", "--no-access-log"]
    process, port = launch(command, cwd=folder)
    read_until(process, "workers: 2, sharing state in redis://127.0.0.1:")
    try:
        yield Workers(process, port)
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
    assert process.returncode == 0, out
    assert "Traceback" not in out, out


def new_test_id() -> str:
    return f"w-{uuid.uuid4().hex[:12]}"


def chat(client: openai.OpenAI, text: str = "hi", model: str = "m") -> str:
    with client:
        answer = client.chat.completions.create(model=model, messages=[{"role": "user", "content": text}])
    return answer.choices[0].message.content or ""


def test_a_replies_scenario_counts_its_calls_across_workers(workers: Workers) -> None:
    """Every call of `replies` gets the next step, whichever worker takes it: no step twice, none skipped."""
    tid = new_test_id()
    said = workers.spread(tid, lambda i: chat(workers.openai(tid), model="counted"))
    assert sorted(said, key=lambda s: int(s.split()[1])) == [f"step {i}" for i in range(len(said))]


def test_the_journal_is_one_across_workers(workers: Workers) -> None:
    """Every request is journalled once, under an id of its own, and any worker reads the whole journal."""
    tid = new_test_id()
    said = workers.spread(tid, lambda i: chat(workers.openai(tid), f"number {i}"))
    readings = [workers.journal(tid) for _ in range(6)]  # each on a fresh connection: either worker
    for entries in readings:
        assert [e["id"] for e in entries] == [e["id"] for e in readings[0]]
    ids = [e["id"] for e in readings[0]]
    assert len(ids) == len(set(ids)) == len(said) and ids == sorted(ids)
    assert {e["endpoint"] for e in readings[0]} == {"chat_completions"}
    for entry_id in ids[:: max(1, len(ids) // 8)]:  # one entry at a time, in full, from either worker
        status, entry = call(workers.port, "GET", f"/_emulator/requests/{entry_id}")
        assert (
            status == 200 and entry["id"] == entry_id and entry["body"]["messages"][0]["content"].startswith("number")
        )


def test_a_fault_for_one_request_strikes_exactly_once(workers: Workers) -> None:
    tid = new_test_id()
    status, _ = call(
        workers.port, "POST", "/_emulator/faults", {"spec": "status=503", "times": 1}, {"x-emulator-test-id": tid}
    )
    assert status == 201

    def send(i: int) -> int:
        try:
            chat(workers.openai(tid))
        except openai.InternalServerError as error:
            return error.status_code
        return 200

    statuses = workers.spread(tid, send)
    assert sorted(statuses) == [200] * (len(statuses) - 1) + [503]
    assert sorted(e["status"] for e in workers.journal(tid)) == sorted(statuses)


def test_a_posted_scenario_is_seen_by_every_worker(workers: Workers) -> None:
    tid = new_test_id()
    posted = {"name": "posted-here", "match": {"last_user": "hello"}, "reply": {"text": "Posted through one worker."}}
    status, _ = call(workers.port, "POST", "/_emulator/scenarios", posted, {"x-emulator-test-id": tid})
    assert status == 201
    said = workers.spread(tid, lambda i: chat(workers.openai(tid), "hello"))
    assert set(said) == {"Posted through one worker."}
    assert (
        chat(workers.openai(new_test_id()), "hello") != "Posted through one worker."
    )  # another test's, not this one's


def test_a_stored_response_is_found_by_the_other_worker(workers: Workers) -> None:
    """Responses' `previous_response_id`, on a fresh connection each time: the conversation carries on."""
    tid = new_test_id()
    with workers.openai(tid, "/openai") as client:
        first = client.responses.create(model="gpt-5", input="Remember the word apple.")

    def follow(i: int) -> str:
        with workers.openai(tid, "/openai") as client:
            return client.responses.create(model="gpt-5", input=f"Question {i}?", previous_response_id=first.id).id

    answered = workers.spread(tid, follow)
    assert len(set(answered)) == len(answered)
    entries = workers.journal(tid)
    creator = entries[0]["worker"]
    assert any(e["worker"] != creator and e["status"] == 200 for e in entries[1:])  # found by the other worker
    assert all(e["status"] == 200 for e in entries)


def test_rate_limit_remaining_counts_down_across_workers(workers: Workers) -> None:
    tid, key = new_test_id(), f"sk-{uuid.uuid4().hex}"

    def remaining(i: int) -> int:
        with workers.openai(tid, api_key=key) as client:
            raw = client.chat.completions.with_raw_response.create(
                model="m", messages=[{"role": "user", "content": "hi"}]
            )
        return int(raw.headers["x-ratelimit-remaining-requests"])

    left = workers.spread(tid, remaining)
    assert sorted(left, reverse=True) == list(range(DAILY - 1, DAILY - 1 - len(left), -1))


def test_metrics_sum_both_workers(workers: Workers) -> None:
    before = answered(workers)
    tid = new_test_id()
    sent = workers.spread(tid, lambda i: chat(workers.openai(tid)))
    # A worker publishes its counts once an answer is out, just after the client has it: read until they are in.
    for _ in range(200):
        counted = answered(workers) - before
        if counted >= len(sent):
            break
    assert counted == len(sent)


def whole_or_streamed(client: openai.OpenAI, i: int) -> None:
    """The `i`th answer, asked of `client` (then closed): an odd one whole, an even one streamed to its end."""
    with client:
        if i % 2:
            chat(client, f"question {i}")
        else:
            for _ in client.chat.completions.create(
                model="m", messages=[{"role": "user", "content": f"question {i}"}], stream=True
            ):
                pass


def test_metrics_match_the_journal_after_concurrent_answers_in_two_workers(workers: Workers) -> None:
    """665 of 666, 651 of 652, 784 of 785, never catching up: a worker's publications of its counts could land
    out of order, the older last (`test_shared_redis.py` holds the order itself). After 400 answers sent 24 at a
    time, whole and streamed, and scraped all along, `/metrics` counts exactly what the journal holds."""
    before = answered(workers)
    tid = new_test_id()

    def send(i: int) -> bool:
        """One answer, whole or streamed; whether it was a 200 (a cut connection may make it the state's 503)."""
        try:
            whole_or_streamed(workers.openai(tid), i)
        except openai.InternalServerError as error:
            assert error.status_code == 503, error
            return False
        return True

    sending = True

    def scrape() -> None:  # as Prometheus does meanwhile, through either worker
        while sending:
            answered(workers)

    with ThreadPoolExecutor(28) as pool:
        helpers = [pool.submit(scrape) for _ in range(4)]
        try:
            ok = sum(pool.map(send, range(400)))
        finally:
            sending = False
        for helper in helpers:
            helper.result()
    journalled = [e for e in workers.journal(tid) if e["status"] == 200 and e["duration_ms"] is not None]
    deadline = time.monotonic() + 30
    while len(journalled) < ok and time.monotonic() < deadline:  # the last entries are completed as we read
        journalled = [e for e in workers.journal(tid) if e["status"] == 200 and e["duration_ms"] is not None]
    assert ok == 400 and len(journalled) == ok and len(workers_of(journalled)) == 2
    counted = [answered(workers) - before for _ in range(6)]  # each read on a fresh connection: either worker
    assert counted == [ok] * 6, (ok, counted)


def answered(workers: Workers) -> float:
    """Chat completions answered 200 by the default, as `/metrics` counts them (read on a fresh connection)."""
    conn = http.client.HTTPConnection("127.0.0.1", workers.port, timeout=30)
    try:
        conn.request("GET", "/metrics")
        text = conn.getresponse().read().decode()
    finally:
        conn.close()
    found = re.search(
        r'emulator_requests_total\{endpoint="chat_completions",profile="inferam",source="default",status="200"\} (\S+)',
        text,
    )
    return float(found[1]) if found else 0.0


def test_the_pytest_plugins_isolation_holds_against_two_workers(workers: Workers, pytester: pytest.Pytester) -> None:
    """docs/pytest.md's tests as written, `duration_ms >= 50` read at once included: it read None one run in three
    under load, the entry completed after the answer's last byte, by a write to Redis the next request could
    overtake."""
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-W", "error", f"--emulator-url={workers.url}")
    result.assert_outcomes(passed=USER_TESTS.count("def test_"))


def test_an_answer_once_received_has_its_entry_complete_on_either_worker(workers: Workers) -> None:
    """Each answer, whole or streamed, then at once the journal read on a fresh connection (either worker): its
    entry complete, never `duration_ms` None, for the entry is completed before the answer's last byte goes."""
    tid = new_test_id()
    opened: list[dict[str, Any]] = []
    for i in range(40):
        whole_or_streamed(workers.openai(tid), i)
        opened += [e for e in workers.journal(tid) if e["duration_ms"] is None]
    assert opened == [], opened
    assert len(workers.journal(tid)) == 40


def test_workers_without_state_say_what_is_per_worker(tmp_path: Path) -> None:
    """The banner says what each worker keeps for itself; a signal stops both workers gracefully, status 0."""
    process, port = launch([*EMULATOR, "serve", "--port", "0", "--workers", "2"], cwd=tmp_path)
    try:
        banner = read_until(process, "workers: ")
        started = [*read_until(process, "INFO:     Started server process"), *read_until(process, "INFO:     Started")]
        assert call(port, "GET", "/health")[0] == 200
    finally:
        process.send_signal(signal.SIGINT)
        out, _ = process.communicate(timeout=60)
    assert "each with its own state (no --state): per worker are the journal and its ids" in banner[-1]
    assert process.returncode == 0, out
    assert "Traceback" not in out and "KeyboardInterrupt" not in out, out
    pids = set(re.findall(r"Started server process \[(\d+)\]", "".join(started)))
    assert len(pids) == 2 and set(re.findall(r"Finished server process \[(\d+)\]", out)) == pids


def test_one_worker_keeps_state_in_process() -> None:
    """The default: no Redis, no workers line, the state's own methods."""
    state = create_app(Settings()).state.emulator
    assert type(state) is State and not state.directions.active


def test_an_unreachable_state_store_is_refused_before_the_banner(tmp_path: Path) -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = subprocess.run(
        [*EMULATOR, "serve", "--port", "0", "--state", f"redis://127.0.0.1:{port}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 2 and not done.stdout
    assert f"the state store redis://127.0.0.1:{port} (--state) does not answer" in done.stderr


# --- the shared state failing: the emulator's own fault, answered as one ----------------------------------------


def start_redis(folder: Path, port: int = 0) -> tuple[subprocess.Popen[bytes], int]:
    """A redis-server of the test's own on a free loopback port (or `port`), persisting nothing, once it listens."""
    if REDIS_SERVER is None:
        pytest.skip("Debian's redis-server is not installed: run .ci/deps, as the test command does")
    if not port:
        with socket.socket() as probe:
            probe.bind(("127.0.0.1", 0))
            port = probe.getsockname()[1]
    command = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(command, cwd=folder, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, port
        except OSError:
            if process.poll() is not None or time.monotonic() > deadline:
                process.kill()
                pytest.fail(f"redis-server did not start on port {port}")
            time.sleep(0.05)


def health(port: int) -> dict[str, Any]:
    status, body = call(port, "GET", "/health")
    assert status == 200, body
    return dict(body)


def sent_through(port: int, test_id: str, stream: bool = False) -> tuple[list[int], list[Any]]:
    """Two requests on one keep-alive connection (the second must find it usable): their statuses and bodies (an
    error's JSON, a stream's text)."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    statuses, bodies = [], []
    headers = {"content-type": "application/json", "authorization": "Bearer sk-x", "x-emulator-test-id": test_id}
    if stream:
        headers["x-emulator-timing"] = "ttft_ms=100; tokens_per_second=100"
    try:
        for i in range(2):
            data = {"model": "m", "stream": stream, "messages": [{"role": "user", "content": f"hi {i}"}]}
            conn.request("POST", "/v1/chat/completions", json.dumps(data), headers)
            response = conn.getresponse()
            raw = response.read()
            statuses.append(response.status)
            bodies.append(raw.decode() if stream and response.status == 200 else json.loads(raw))
    finally:
        conn.close()
    return statuses, bodies


OUTAGES = {
    "killed": "SIGKILL, then started again on its port",
    "paused": "SIGSTOP, then SIGCONT",
    "full": "maxmemory 1 byte with noeviction, then unbounded again",
}


@pytest.mark.parametrize("outage", OUTAGES)
def test_the_state_store_failing_is_answered_as_a_503_and_survived(tmp_path: Path, outage: str) -> None:
    """Redis killed: a third of requests got no HTTP answer (a 500, then a closed connection on keep-alive) and a
    traceback each. Now every request gets an HTTP answer: a stream already playing completes, a request after
    gets the dialect's 503 saying the shared state is unreachable, the connection stays usable, `/health` stays
    200 and says so, and the log has one line as the outage begins and one as it ends, no traceback."""
    redis_process, redis_port = start_redis(tmp_path)
    log = tmp_path / "server.log"
    command = [*EMULATOR, "serve", "--port", "0", "--workers", "2", "--no-access-log"]
    command += ["--state", f"redis://127.0.0.1:{redis_port}/0?prefix=outage"]
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path)
    try:
        port = banner_port(log, process)
        tid = new_test_id()
        assert sent_through(port, tid)[0] == [200, 200] and health(port)["state"] == "ok"
        with ThreadPoolExecutor(8) as pool:
            playing = [pool.submit(sent_through, port, tid, True) for _ in range(8)]  # streams, 1 s or so each
            time.sleep(0.3)
            if outage == "killed":
                redis_process.kill()
                redis_process.wait()
            elif outage == "paused":
                redis_process.send_signal(signal.SIGSTOP)
            else:
                configure(redis_port, maxmemory="1", **{"maxmemory-policy": "noeviction"})
            during = [pool.submit(sent_through, port, tid) for _ in range(16)]
            for future in playing:  # each stream completed, or was refused whole with a 503 before it began
                statuses, bodies = future.result()
                assert statuses in ([200, 200], [200, 503], [503, 503]), (statuses, bodies)
                for status, body in zip(statuses, bodies, strict=True):
                    assert "data: [DONE]" in body if status == 200 else unreachable(body), body
            for future in during:
                statuses, bodies = future.result()
                assert statuses == [503, 503], (statuses, bodies)  # the connection served the second request too
                assert all(unreachable(body) for body in bodies), bodies
        assert health(port)["state"] == "unreachable"
        if outage == "killed":
            redis_process, _ = start_redis(tmp_path, redis_port)
        elif outage == "paused":
            redis_process.send_signal(signal.SIGCONT)
        else:
            configure(redis_port, maxmemory="0")
        deadline = time.monotonic() + 30
        while sent_through(port, tid)[0] != [200, 200] or health(port)["state"] != "ok":
            assert time.monotonic() < deadline, "the server did not come back with its store"
            time.sleep(0.2)
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        if redis_process.poll() is None:
            redis_process.send_signal(signal.SIGCONT)
            redis_process.terminate()
            redis_process.wait(timeout=10)
    text = log.read_text()
    assert process.returncode == 0, text
    assert "Traceback" not in text and "Exception in ASGI application" not in text, text
    began = text.count(f"the state store redis://127.0.0.1:{redis_port}/0 is unreachable")
    ended = text.count(f"the state store redis://127.0.0.1:{redis_port}/0 is back after")
    # Once per outage in each worker that met it, and once as it ended in each that has been asked since.
    assert 1 <= began <= 2 and 1 <= ended <= began, text


def unreachable(body: Any) -> bool:
    """Whether `body` is the OpenAI-shaped 503 of a shared state that does not answer."""
    error = body["error"]
    return error["type"] == "service_unavailable_error" and "shared state is unreachable" in error["message"]


def banner_port(log: Path, process: subprocess.Popen[bytes]) -> int:
    """The port in the banner of a server logging to `log`, once its workers have started."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        text = log.read_text()
        found = re.search(r"http://127\.0\.0\.1:(\d+)", text)
        if found and text.count("Started server process") == 2:
            return int(found[1])
        assert process.poll() is None, text
        time.sleep(0.05)
    pytest.fail(f"the server did not start: {log.read_text()}")


def configure(port: int, **settings: str) -> None:
    """CONFIG SET on the Redis at `port`, by a client of the test's own."""
    client = redis.Redis(port=port, socket_timeout=10)
    try:
        for name, value in settings.items():
            client.config_set(name, value)
    finally:
        client.close()


def test_workers_mint_one_sequence_of_response_ids(workers: Workers, make_server: Callable[[Settings], Any]) -> None:
    """The same body sent again and again through both workers gets a new id each time, none twice, the very ids
    one process mints for as many repeats: the sequence is kept in Redis."""
    tid = new_test_id()

    def send(i: int) -> str:
        with workers.openai(tid, "/openai") as client:
            return client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}]).id

    minted = workers.spread(tid, send)
    alone = make_server(Settings())
    with alone.openai("/openai", default_headers={"x-emulator-test-id": tid}) as client:
        expected = [
            client.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}]).id
            for _ in minted
        ]
    assert len(set(minted)) == len(minted) and set(minted) == set(expected)


def test_stored_chat_completions_and_background_responses_are_every_worker_s(workers: Workers) -> None:
    """What one worker stored, any lists, reads, updates and deletes: the store and its lists are in Redis."""
    tid = new_test_id()

    def store(i: int) -> str:
        with workers.openai(tid, "/openai") as client:
            asked: Any = [{"role": "user", "content": f"Fact {i} about queues?"}]
            return client.chat.completions.create(
                model="gpt-4.1", messages=asked, store=True, metadata={"i": str(i)}
            ).id

    made = workers.spread(tid, store)
    listings = []
    for _ in range(4):  # each on a new connection: either worker; in the order kept (sent concurrently)
        with workers.openai(tid, "/openai") as client:
            listings.append([c.id for c in client.chat.completions.list(limit=100)])
    assert all(listed == listings[0] for listed in listings) and sorted(listings[0]) == sorted(made)
    with workers.openai(tid, "/openai") as client:
        assert client.chat.completions.update(made[0], metadata={"i": "first"}).metadata == {"i": "first"}
    with workers.openai(tid, "/openai") as client:
        assert [c.id for c in client.chat.completions.list(metadata={"i": "first"})] == [made[0]]
        assert client.chat.completions.delete(made[1]).deleted
    with workers.openai(tid, "/openai") as client:
        assert made[1] not in [c.id for c in client.chat.completions.list(limit=100)]
        background = client.responses.create(model="gpt-4.1", input="What is a deque?", background=True)
    assert background.status == "queued"
    for _ in range(4):
        with workers.openai(tid, "/openai") as client:
            assert client.responses.retrieve(background.id).status == "completed"  # no pacing: answered at once


STREAM = b'{"model": "m", "stream": true, "messages": [{"role": "user", "content": "hi"}]}'


def held_stream(port: int, test_id: str) -> socket.socket:
    """A stream that waits ten minutes for its first token, begun (its status line read)."""
    sock = socket.create_connection(("127.0.0.1", port), timeout=30)
    sock.sendall(
        b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n"
        b"authorization: Bearer sk-test\r\nx-emulator-timing: ttft_ms=600000\r\nx-emulator-test-id: %s\r\n"
        b"content-length: %d\r\n\r\n%s" % (test_id.encode(), len(STREAM), STREAM)
    )
    assert sock.recv(4096).startswith(b"HTTP/1.1 200")
    return sock


def test_shutdown_refuses_new_connections_and_completes_the_entries_it_cut(tmp_path: Path, redis_server: str) -> None:
    """After SIGTERM to `--workers 2`, a new connection 0.3 s later hung for the whole grace (the supervisor still
    held the socket), a stream the grace cut stayed open in the shared journal for ever (`response: null`), and
    the cut was logged as a traceback. Now: refused at once, the entry completed as ended by the server, one
    line saying how many answers were cut."""
    url = f"{redis_server}?prefix=shutdown-{uuid.uuid4().hex[:8]}"
    log = tmp_path / "server.log"
    command = [*EMULATOR, "serve", "--port", "0", "--workers", "2", "--state", url, "--shutdown-grace", "3"]
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, cwd=tmp_path)
    tid = new_test_id()
    try:
        port = banner_port(log, process)
        stream = held_stream(port, tid)
        process.send_signal(signal.SIGTERM)
        time.sleep(0.3)
        started = time.monotonic()
        with pytest.raises(OSError), socket.create_connection(("127.0.0.1", port), timeout=10) as late:
            late.sendall(b"GET /health HTTP/1.1\r\nhost: x\r\n\r\n")  # refused, or reset: not left waiting
            if not late.recv(4096):
                raise ConnectionResetError("closed unanswered")
        refused_after = time.monotonic() - started
        process.wait(timeout=60)
        stream.close()
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()
    text = log.read_text()
    assert refused_after < 1.0, (refused_after, text)  # the grace is 3 s
    assert process.returncode == 0 and "Traceback" not in text and "CancelledError" not in text, text
    assert text.count("shutdown: cut 1 answer still running after the 3 s grace (--shutdown-grace)") == 1, text

    async def entries() -> list[dict[str, Any]]:
        state = shared_redis.shared_state(Settings(state=url))
        try:
            return await state.journal.find({"test_id": tid})
        finally:
            await state.close()

    (entry,) = asyncio.run(entries())
    assert entry["status"] == 200 and entry["ended"] == "server" and entry["duration_ms"] >= 3000, entry
    assert entry["response"] is not None


def test_a_second_stop_to_the_supervisor_ends_every_worker_at_once(tmp_path: Path) -> None:
    """The first Ctrl-C stops the workers gracefully, a running answer given `--shutdown-grace` (60 s here); a
    second one ends them at once, as docs/reliability.md says of one process. It waited out the grace."""
    command = [*EMULATOR, "serve", "--port", "0", "--workers", "2", "--shutdown-grace", "60"]
    process, port = launch(command, cwd=tmp_path)
    paced: socket.socket | None = None
    try:
        read_until(process, "workers: ")
        read_until(process, "INFO:     Started")
        read_until(process, "INFO:     Started")
        paced = socket.create_connection(("127.0.0.1", port), timeout=10)  # an answer running for a minute
        body = b'{"model":"m","stream":true,"messages":[{"role":"user","content":"hi"}]}'
        paced.sendall(
            b"POST /v1/chat/completions HTTP/1.1\r\nhost: x\r\nauthorization: Bearer k\r\n"
            b"x-emulator-timing: ttft_ms=600000\r\ncontent-length: %d\r\n\r\n" % len(body) + body
        )
        assert paced.recv(12) == b"HTTP/1.1 200"
        process.send_signal(signal.SIGINT)
        time.sleep(1)
        assert process.poll() is None  # the grace: the running answer is waited for
        asked = time.monotonic()
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
        took = time.monotonic() - asked
    finally:
        if process.poll() is None:
            process.kill()
        process.communicate(timeout=30)
        if paced is not None:
            paced.close()
    assert took < 10, took  # at once, not after the 60 s grace
