"""Shared fixtures: a real uvicorn server on a free loopback port, and SDK clients pointed at it."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anthropic
import openai
import pytest

from emulator.http.app import Settings, create_app
from emulator.http.background import Background

HERE = Path(__file__).parent
SCENARIOS = HERE / "scenarios"
BUNDLED = HERE.parent / "scenarios"
FROZEN = 1767225600


# Every process a test starts carries this variable, naming the run: set at the session's start, inherited by
# children and theirs. At the session's end, any process still carrying it was left running by a test (the ones
# seen had been re-parented to PID 1, out of reach of a walk down the process tree): the run fails naming it.
RUN = "RUN_OF_EMULATOR_TESTS"
GRACE = 5.0  # seconds a process that is on its way out gets before it counts as left running


def pytest_configure(config: pytest.Config) -> None:
    os.environ.setdefault(RUN, f"{os.getpid()}-{time.time_ns()}")  # an xdist worker keeps its controller's
    config.addinivalue_line(
        "markers",
        "alone: measures the server's idle CPU, pacing or deadlines against the wall clock; the README's test "
        "command runs these in a pass of their own, after the rest has run in parallel (pytest-xdist)",
    )
    config.addinivalue_line(
        "markers",
        "install: builds what users install, as they build it (minutes of both CPUs for each build); the README's "
        "test command runs these last, in a pass of their own",
    )


@pytest.hookimpl(wrapper=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> Any:
    """After every fixture is torn down: fail the run if a process it started is still alive, and end it."""
    result = yield
    if hasattr(session.config, "workerinput"):  # an xdist worker: its controller checks, once all have exited
        return result
    deadline = time.monotonic() + GRACE
    while (left := survivors(os.environ[RUN])) and time.monotonic() < deadline:
        time.sleep(0.1)
    if left:
        reporter = session.config.pluginmanager.get_plugin("terminalreporter")
        if reporter is not None:
            reporter.ensure_newline()
            reporter.write_sep("=", f"{len(left)} processes the tests started are still running", red=True)
            for pid, line in left.items():
                reporter.write_line(f"  {pid}: {line}")
        for pid in left:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    return result


def survivors(run: str) -> dict[int, str]:
    """Processes whose environment names this run, but this process and its ancestors: pid -> parent and
    command line."""
    mark = f"{RUN}={run}".encode()
    ours = set(ancestors())
    found = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) in ours:
            continue
        try:
            environ = Path(entry.path, "environ").read_bytes()
            command = Path(entry.path, "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            parent = Path(entry.path, "stat").read_text().rpartition(")")[2].split()[1]
        except OSError:  # gone, a zombie, or not ours to read
            continue
        if mark in environ.split(b"\0"):
            found[int(entry.name)] = f"parent {parent}, {command.strip()}"
    return found


def ancestors() -> list[int]:
    pids, pid = [], os.getpid()
    while pid > 1:
        pids.append(pid)
        try:
            pid = int(Path(f"/proc/{pid}/stat").read_text().rpartition(")")[2].split()[1])
        except (OSError, ValueError):
            break
    return pids


@dataclass
class Server:
    base_url: str
    host: str
    port: int

    def openai(self, prefix: str = "", /, **options: object) -> openai.OpenAI:
        """The official SDK in strict validation mode, no retries unless asked; `prefix` picks a profile."""
        options = {"max_retries": 0, "timeout": 10.0, "api_key": "sk-test"} | options
        return openai.OpenAI(
            base_url=f"{self.base_url}{prefix}/v1",
            _strict_response_validation=True,
            **options,  # type: ignore[arg-type]
        )

    def anthropic(self, prefix: str = "", /, **options: object) -> anthropic.Anthropic:
        """The official Anthropic SDK in strict validation mode, no retries unless asked; no `/v1`: it adds that."""
        options = {"max_retries": 0, "timeout": 10.0, "api_key": "sk-test"} | options
        return anthropic.Anthropic(
            base_url=f"{self.base_url}{prefix}",
            _strict_response_validation=True,
            **options,  # type: ignore[arg-type]
        )


def serve(settings: Settings) -> Iterator[Server]:
    """Run the emulator under uvicorn in a thread, on a socket bound to a free loopback port."""
    yield from serve_app(create_app(settings))


def serve_app(app: Any, **options: Any) -> Iterator[Server]:
    """Run any ASGI app under the emulator's server in a thread, on a free loopback port."""
    with Background(app, **options) as running:
        yield Server(running.url, running.host, running.port)


def launch(command: list[str], cwd: Path, env: dict[str, str] | None = None) -> tuple[subprocess.Popen[str], int]:
    """`emulator serve` or `record` as a subprocess (stderr into stdout), and the port its banner's first line
    shows: once that line is out, the port is bound and listening."""
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=cwd, env=env)
    assert process.stdout is not None
    first = process.stdout.readline()
    found = re.search(r"http://127\.0\.0\.1:(\d+)", first)
    if found is None:
        process.kill()
        pytest.fail(f"no URL in the banner: {first}{process.communicate()[0]}")
    return process, int(found[1])


def read_until(process: subprocess.Popen[str], prefix: str) -> list[str]:
    """The process's next lines, up to and including the first that starts with `prefix`."""
    assert process.stdout is not None
    lines = [process.stdout.readline()]
    while lines[-1] and not lines[-1].startswith(prefix):
        lines.append(process.stdout.readline())
    return lines


def call(
    port: int, method: str, path: str, body: object = None, headers: Mapping[str, str] | None = None
) -> tuple[int, Any]:
    """One request to 127.0.0.1:`port`, with `body` as JSON: the status and the JSON answer (None when it is
    not JSON). No retry: it is meant for a server whose banner is out."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        data = None if body is None else json.dumps(body)
        conn.request(method, path, data, ({"content-type": "application/json"} if data else {}) | dict(headers or {}))
        response = conn.getresponse()
        answer = response.read()
    finally:
        conn.close()
    try:
        return response.status, json.loads(answer)
    except ValueError:
        return response.status, None


def settled(base_url: str, test_id: str, within: float = 30.0) -> list[dict[str, Any]]:
    """The test's journal entries once every one of them is complete: an answer's entry is completed after its
    last byte went out, so a client can ask for it (on another worker, or under load) before it is."""
    deadline = time.monotonic() + within
    while True:
        with urllib.request.urlopen(f"{base_url}/_emulator/requests?test_id={test_id}&bodies=false") as response:
            entries: list[dict[str, Any]] = json.load(response)["requests"]
        if all(e["duration_ms"] is not None for e in entries) or time.monotonic() > deadline:
            return entries
        time.sleep(0.02)


@pytest.fixture(scope="session")
def server() -> Iterator[Server]:
    """The emulator with the test scenarios and the bundled ones, a frozen clock and seed 0."""
    yield from serve(Settings(scenarios=(SCENARIOS, BUNDLED), frozen_time=FROZEN))


@pytest.fixture(scope="module")
def connection(server: Server) -> Iterator[http.client.HTTPConnection]:
    """One keep-alive connection to the shared server, for raw requests in property tests."""
    conn = KeptAlive(server.host, server.port, timeout=10)
    yield conn
    conn.close()


class KeptAlive(http.client.HTTPConnection):
    """A keep-alive connection that sends once more on a fresh one when the server had closed it, as HTTP clients
    do: under two CPU burners Hypothesis paused past the server's keep-alive between two examples, the send met a
    broken pipe, and the connection, left mid-request, failed the 24 tests after it. A server that drops the
    connection on a request itself still fails the test: it drops the second send too."""

    def request(self, method: str, url: str, body: Any = None, headers: Any = None, **options: Any) -> None:
        self._sent = (method, url, body, headers or {}, options)
        try:
            super().request(method, url, body, headers or {}, **options)
        except (BrokenPipeError, ConnectionResetError, http.client.CannotSendRequest):
            self.close()
            super().request(method, url, body, headers or {}, **options)

    def getresponse(self) -> http.client.HTTPResponse:
        try:
            return super().getresponse()
        except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
            self.close()
            method, url, body, headers, options = self._sent
            super().request(method, url, body, headers, **options)
            return super().getresponse()


@pytest.fixture
def client(server: Server) -> Iterator[openai.OpenAI]:
    with server.openai() as sdk:
        yield sdk


@pytest.fixture
def test_id(request: pytest.FixtureRequest) -> str:
    """Each test's own scope on the shared server: its stored responses, threads and id sequences are its own."""
    return str(request.node.name)


@pytest.fixture
def gpt(server: Server, test_id: str) -> Iterator[openai.OpenAI]:
    """The openai SDK, strict, on the `openai` profile, in the test's own scope."""
    with server.openai("/openai", default_headers={"x-emulator-test-id": test_id}) as client:
        yield client


@pytest.fixture
def claude(server: Server, test_id: str) -> Iterator[anthropic.Anthropic]:
    """The anthropic SDK on the `anthropic` profile, in the test's own scope."""
    with server.anthropic("/anthropic", default_headers={"x-emulator-test-id": test_id}) as client:
        yield client


@pytest.fixture
def make_server() -> Iterator[Callable[[Settings], Server]]:
    """Start extra servers with other settings; each stops at the end of the test."""
    stops: list[Iterator[Server]] = []

    def start(settings: Settings) -> Server:
        running = serve(settings)
        stops.append(running)
        return next(running)

    yield start
    for running in stops:
        next(running, None)


REDIS_SERVER = shutil.which("redis-server")


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Debian's redis-server on a free loopback port, persisting nothing, for the session: its URL."""
    if REDIS_SERVER is None:
        pytest.skip("Debian's redis-server is not installed: run .ci/deps, as the test command does")
    with socket.socket() as probe:  # a free port; redis-server cannot be told to pick one itself
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    command = [REDIS_SERVER, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"]
    process = subprocess.Popen(command, cwd=tmp_path_factory.mktemp("redis"), stdout=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 30
        while True:  # listening once a connection is accepted
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if process.poll() is not None or time.monotonic() > deadline:
                    pytest.fail(f"redis-server did not start on port {port}")
                time.sleep(0.05)
        yield f"redis://127.0.0.1:{port}/0"
    finally:
        process.terminate()
        process.wait(timeout=10)
