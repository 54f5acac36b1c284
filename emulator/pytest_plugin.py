"""The pytest plugin (registered through the `pytest11` entry point: installing the package is enough).

    def test_retries(emulator):
        emulator.fault("status=429", times=2)
        client = OpenAI()  # routed by OPENAI_BASE_URL, which the fixture set
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
        assert [r["status"] for r in emulator.requests()] == [429, 429, 200]

- The `emulator` fixture is one test's view of a server: its own call counters, faults, scenarios, journal
  and rate limits, by a test id carried in the base URLs' path (`/_t/{test_id}/v1`), so that an app that
  lets a base URL be set but no header is scoped too. While the test runs, `OPENAI_BASE_URL`,
  `ANTHROPIC_BASE_URL`, `AZURE_OPENAI_ENDPOINT` (`AzureOpenAI()`), `OLLAMA_HOST` (`ollama.Client()`),
  `GOOGLE_GEMINI_BASE_URL` and `GOOGLE_VERTEX_BASE_URL` (`genai.Client()`), `ANTHROPIC_VERTEX_BASE_URL`
  (`AnthropicVertex()`), `AWS_ENDPOINT_URL_BEDROCK_RUNTIME` (boto3's `bedrock-runtime`) and
  `ANTHROPIC_BEDROCK_BASE_URL` (`AnthropicBedrock()`) point at it; and, when unset, `OPENAI_API_KEY`,
  `ANTHROPIC_API_KEY`, `AZURE_OPENAI_API_KEY`, `OPENAI_API_VERSION`, `GEMINI_API_KEY` (unless `GOOGLE_API_KEY`
  is set), and made-up AWS credentials and region are set. The handle's `azure_endpoint`, `ollama_host`,
  `gemini_base_url`, `anthropic_vertex_base_url` and `bedrock_endpoint_url` are the same URLs.
- `@pytest.mark.emulator(scenario=…, fault=…, timing=…, profile=…, lenient=True)` sets them for one test.
- One server per session, in process on a free loopback port, loading no scenario files unless given
  `--emulator-scenarios PATH`; or an existing one, `--emulator-url URL` (with `--emulator-admin-token`, or
  `EMULATOR_ADMIN_TOKEN`, when it listens beyond loopback).
- Record and replay per test, as pytest-recording does: `--emulator-record-mode=none|once|new_episodes|all`
  and `--emulator-upstream URL`, a cassette per test at `<test dir>/cassettes/<module>/<test>.yaml`. Under
  `none`, a test with a cassette is answered from it alone, one without as usual.

The server side is the admin API (`emulator/http/admin.py`): `/_emulator/scenarios`, `/_emulator/faults`,
`/_emulator/requests`, `/_emulator/report` and `/_emulator/reset`, each scoped by `x-emulator-test-id`.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import urllib.error
import urllib.request
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

import pytest

RECORD_MODES = ("none", "once", "new_episodes", "all")
KEY = "sk-emulator"  # the API key set for clients built from the environment, when none is set
AWS = {
    "AWS_ACCESS_KEY_ID": "AKIDEMULATOR",
    "AWS_SECRET_ACCESS_KEY": "emulator",
    "AWS_REGION": "us-east-1",  # AnthropicBedrock's
    "AWS_DEFAULT_REGION": "us-east-1",  # boto3's
}
AZURE_VERSION = "2024-10-21"  # the `api-version` set for `AzureOpenAI()`, when none is set


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("emulator", "the LLM API emulator (the `emulator` fixture)")
    group.addoption("--emulator-url", metavar="URL", help="use this running emulator instead of one in process")
    group.addoption(
        "--emulator-admin-token",
        metavar="TOKEN",
        default=os.environ.get("EMULATOR_ADMIN_TOKEN"),
        help="its admin token, when it listens beyond loopback (default: $EMULATOR_ADMIN_TOKEN)",
    )
    group.addoption(
        "--emulator-scenarios",
        metavar="PATH",
        action="append",
        default=[],
        help="scenario files or folders for the in-process emulator (default: none)",
    )
    group.addoption(
        "--emulator-record-mode",
        choices=RECORD_MODES,
        default="none",
        help="record and replay a cassette per test, at <test dir>/cassettes/<module>/<test>.yaml (default: none, "
        "replaying a test's cassette when it has one)",
    )
    group.addoption("--emulator-upstream", metavar="URL", help="the upstream a recording mode forwards to")
    group.addoption(
        "--emulator-conform",
        action="store_true",
        help="after the session, run `emulator conform` over the cassettes it recorded; fail it on a difference",
    )


def pytest_configure(config: pytest.Config) -> None:
    mode = config.getoption("emulator_record_mode")
    if mode != "none" and not config.getoption("emulator_upstream"):
        raise pytest.UsageError(f"--emulator-record-mode={mode} records: it needs --emulator-upstream URL")
    config.addinivalue_line(
        "markers",
        "emulator(scenario=None, fault=None, timing=None, profile=None, lenient=False): the emulator fixture's "
        "scenario (a name, or a mapping as written in YAML), fault and timing (spec strings), profile, and whether "
        "the openai and anthropic profiles let unknown models and fields by, for this test",
    )


class Emulator:
    """One test's view of the emulator; see the module's doc."""

    def __init__(self, url: str, test_id: str, profile: str | None, token: str | None, scoped: bool = True) -> None:
        self.url, self.test_id, self.profile, self._token = url, test_id, profile, token
        self._scoped = scoped  # False: a recording proxy of the test's own, which has no admin API
        root = f"{url}/_t/{test_id}" if scoped else url
        self.anthropic_base_url = f"{root}/{profile}" if profile else root
        self.openai_base_url = f"{self.anthropic_base_url}/v1"
        self.azure_endpoint = root  # `AzureOpenAI(azure_endpoint=…)` adds `/openai/deployments/…`
        self.ollama_host = root  # `ollama.Client(host=…)` adds `/api/…`
        self.gemini_base_url = root  # google-genai adds `/v1/models/…` (Vertex: `/v1beta1/projects/…`)
        self.anthropic_vertex_base_url = f"{root}/v1"  # `AnthropicVertex` adds `/projects/…`
        self.bedrock_endpoint_url = root  # boto3 and `AnthropicBedrock` add `/model/…`
        self._directions: dict[str, Any] = {}

    def fault(self, spec: str, times: int | None = None) -> None:
        """Fault this test's answering requests (all, or the first `times`): the fault vocabulary's spec, as
        `x-emulator-fault` takes it. A request's own header wins over it; it wins over a scenario's."""
        self._direct(spec=spec, times=times)

    def timing(self, spec: str) -> None:
        """Pace this test's answers: a timing spec, as `x-emulator-timing` takes it."""
        self._direct(timing=spec)

    def scenario(self, scenario: Mapping[str, Any] | str) -> None:
        """Answer this test from a scenario: one as written in YAML (a mapping), tried before the files' as
        its `match` says, or, without a `match`, answering every request of the test; or a loaded one's name,
        answering every request of the test."""
        if not isinstance(scenario, str):
            self._admin("POST", "/_emulator/scenarios", dict(scenario))
            if "match" in scenario:
                return
            scenario = str(scenario.get("name"))
        self._direct(scenario=scenario)

    def lenient(self, lenient: bool = True) -> None:
        """Under the openai and anthropic profiles, answer this test's requests for unknown models and with unknown
        fields (the model's parameter and range checks stay); each journal entry's `lenient` says what would have
        been refused."""
        self._direct(lenient=lenient)

    def requests(self) -> list[dict[str, Any]]:
        """This test's journal entries, oldest first, each with its request's `body` and its `response`."""
        return list(self._admin("GET", "/_emulator/requests")["requests"])

    def report(self) -> dict[str, Any]:
        """The client report for this test: how its client behaved under the faults it met."""
        return dict(self._admin("GET", "/_emulator/report"))

    def reset(self) -> None:
        """Forget this test's counters, journal, scenarios and faults."""
        self._admin("POST", "/_emulator/reset")

    def _direct(self, **directions: Any) -> None:
        self._directions |= directions
        self._admin("POST", "/_emulator/faults", self._directions)

    def _admin(self, method: str, path: str, body: Any = None) -> Any:
        if not self._scoped:
            raise RuntimeError(
                f"{method} {path}: this test is answered by its cassette's recording proxy, which keeps no "
                "journal, faults or scenarios (--emulator-record-mode)"
            )
        headers = {"x-emulator-test-id": self.test_id, "content-type": "application/json"}
        if self._token:
            headers["authorization"] = f"Bearer {self._token}"
        data = None if body is None else json.dumps(body).encode()
        asked = urllib.request.Request(f"{self.url}{path}", data=data, headers=headers, method=method)
        try:
            with urllib.request.urlopen(asked, timeout=30) as response:
                return json.load(response)
        except urllib.error.HTTPError as exc:
            with exc:
                detail = exc.read().decode("utf-8", "replace")
            with contextlib.suppress(ValueError, KeyError, TypeError):  # the admin API's words, when it sent some
                detail = json.loads(detail)["error"]["message"]
            raise ValueError(f"the emulator refused {method} {path} ({exc.code}): {detail}") from None


@pytest.fixture(scope="session")
def _emulator_url(request: pytest.FixtureRequest) -> Iterator[str]:
    """The session's emulator: the one given, else one started in process on first use."""
    given = request.config.getoption("emulator_url")
    if given:
        yield given.rstrip("/")
        return
    from emulator.http.app import Settings, create_app
    from emulator.http.background import Background

    paths = tuple(Path(p) for p in request.config.getoption("emulator_scenarios"))
    with Background(create_app(Settings(scenarios=paths))) as running:
        yield running.url


@pytest.fixture
def emulator(request: pytest.FixtureRequest, _emulator_url: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[Emulator]:
    """One test's view of the emulator (see the module's doc)."""
    marker = request.node.get_closest_marker("emulator")
    asked: dict[str, Any] = dict(marker.kwargs) if marker else {}
    unknown = sorted(set(asked) - {"scenario", "fault", "timing", "profile", "lenient"})
    if unknown:
        raise pytest.UsageError(
            f"@pytest.mark.emulator takes scenario, fault, timing, profile and lenient, not {unknown}"
        )
    profile = asked.get("profile")
    token = request.config.getoption("emulator_admin_token")
    with _recording(request) as proxy:
        handle = Emulator(proxy or _emulator_url, _test_id(request.node), profile, token, scoped=proxy is None)
        if proxy is None:
            handle.reset()  # a clean slate, also on a shared server that saw this test id in an earlier run
            if asked.get("scenario") is not None:
                handle.scenario(asked["scenario"])
            if asked.get("fault"):
                handle.fault(asked["fault"])
            if asked.get("timing"):
                handle.timing(asked["timing"])
            if asked.get("lenient"):
                handle.lenient()
        monkeypatch.setenv("OPENAI_BASE_URL", handle.openai_base_url)
        monkeypatch.setenv("ANTHROPIC_BASE_URL", handle.anthropic_base_url)
        monkeypatch.setenv("AZURE_OPENAI_ENDPOINT", handle.azure_endpoint)
        monkeypatch.setenv("OLLAMA_HOST", handle.ollama_host)
        monkeypatch.setenv("GOOGLE_GEMINI_BASE_URL", handle.gemini_base_url)
        monkeypatch.setenv("GOOGLE_VERTEX_BASE_URL", handle.gemini_base_url)
        monkeypatch.setenv("ANTHROPIC_VERTEX_BASE_URL", handle.anthropic_vertex_base_url)
        if not (os.environ.get("GOOGLE_API_KEY") or os.environ.get("GEMINI_API_KEY")):  # both set: the SDK warns
            monkeypatch.setenv("GEMINI_API_KEY", KEY)
        monkeypatch.setenv("AWS_ENDPOINT_URL_BEDROCK_RUNTIME", handle.bedrock_endpoint_url)
        monkeypatch.setenv("ANTHROPIC_BEDROCK_BASE_URL", handle.bedrock_endpoint_url)
        for variable, value in AWS.items():  # signed with made-up credentials, as any will do here
            if not os.environ.get(variable):
                monkeypatch.setenv(variable, value)
        for variable in ("OPENAI_API_KEY", "ANTHROPIC_API_KEY", "AZURE_OPENAI_API_KEY"):
            if not os.environ.get(variable):
                monkeypatch.setenv(variable, KEY)
        if not os.environ.get("OPENAI_API_VERSION"):  # `AzureOpenAI()` wants one
            monkeypatch.setenv("OPENAI_API_VERSION", AZURE_VERSION)
        yield handle
        if proxy is None:
            handle.reset()


@contextlib.contextmanager
def _recording(request: pytest.FixtureRequest) -> Iterator[str | None]:
    """The test's own recording proxy (its URL) while the test runs, when its record mode and cassette call
    for one; else None."""
    config, node = request.config, request.node
    mode, upstream = config.getoption("emulator_record_mode"), config.getoption("emulator_upstream")
    cassette = node.path.parent / "cassettes" / node.path.stem / f"{_file_name(node.name)}.yaml"
    if mode == "none" and not cassette.exists():
        yield None
        return
    from emulator.http.background import Background
    from emulator.http.recorder import Recorder

    proxy = Recorder(upstream or "http://127.0.0.1:9", cassette, mode, speed=0)  # none: replays, forwards nothing
    if mode != "none":
        config.stash.setdefault(_RECORDED, set()).add(cassette)
    with Background(proxy, lifespan=True) as running:
        yield running.url


_RECORDED = pytest.StashKey[set[Path]]()  # the cassettes this session recorded into


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """`--emulator-conform`: the emulator's own answers to what the session recorded must look like the
    recorded ones (`emulator conform`); a difference fails the session, each one printed."""
    config = session.config
    held: set[Path] = config.stash.get(_RECORDED, set())
    recorded = sorted(held)
    if not config.getoption("emulator_conform") or not recorded:
        return
    from emulator.answering import conformance
    from emulator.cli.conform import recorded as read_back

    lines, differ, compared = [], 0, 0
    for interaction in read_back([c for c in recorded if c.exists()]):
        profile = conformance.profile_for(interaction, None)
        if profile is None:  # an upstream that is no public API nor a profile prefix: nothing to render under
            lines.append(f"{interaction.source}: skipped, no profile noted (give the upstream URL a profile prefix)")
            continue
        try:
            found = conformance.conform(interaction, profile)
        except ValueError:
            continue  # an error answer, or an endpoint with nothing to render afresh
        compared += 1
        if found:
            differ += 1
            lines += [f"{interaction.source} (profile {profile}):", *(f"  {d}" for d in found)]
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    summary = f"emulator conform: {differ} of {compared} recorded interactions differ"
    if reporter is not None:
        reporter.write_line("\n".join([*lines, summary]))
    if differ:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


def _test_id(node: pytest.Item) -> str:
    """A test's id for the server: readable, safe in a URL path, unique per test (its node id's digest)."""
    digest = hashlib.sha256(node.nodeid.encode()).hexdigest()[:8]
    return f"{_file_name(node.name)[:60]}-{digest}"


def _file_name(name: str) -> str:
    return re.sub(r"[^A-Za-z0-9._-]+", "-", name).strip("-") or "test"
