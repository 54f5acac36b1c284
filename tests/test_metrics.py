"""`GET /metrics`: Prometheus' text format, read back with prometheus_client's own parser, counting what was
sent."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable
from typing import Any

import openai
import pytest
from prometheus_client.parser import text_string_to_metric_families

from emulator.http.app import Settings
from tests.conftest import Server
from tests.test_posted import admin


def scrape(server: Server) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Every sample by name and labels."""
    with urllib.request.urlopen(f"{server.base_url}/metrics", timeout=10) as response:
        assert response.headers["content-type"].startswith("text/plain; version=")
        text = response.read().decode()
    return {
        (sample.name, tuple(sorted(sample.labels.items()))): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def requests_total(samples: dict[Any, float], **labels: str) -> float:
    return samples.get(("emulator_requests_total", tuple(sorted(labels.items()))), 0.0)


def test_metrics_count_requests_faults_tokens_and_timing_as_sent(make_server: Callable[[Settings], Server]) -> None:
    server = make_server(Settings())
    scenario = {"name": "greeting", "match": {"last_user": "hello"}, "reply": {"text": "Hello from a scenario."}}
    assert admin(server, "POST", "/_emulator/scenarios", json.dumps(scenario))[0] == 201
    output = 0
    with server.openai() as sdk:
        for text in ("one", "two", "hello"):
            usage = sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": text}]).usage
            assert usage is not None
            output += usage.completion_tokens
        with pytest.raises(openai.RateLimitError):
            sdk.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}], extra_headers={"x-emulator-fault": "status=429"}
            )
        sdk.models.list()
    with (
        server.anthropic() as claude,
        claude.messages.stream(
            model="claude-sonnet-4-6", max_tokens=20, messages=[{"role": "user", "content": "stream"}]
        ) as stream,
    ):
        output += stream.get_final_message().usage.output_tokens
    samples = scrape(server)
    chat = {"endpoint": "chat_completions", "profile": "inferam"}
    assert requests_total(samples, **chat, status="200", source="default") == 2
    assert requests_total(samples, **chat, status="200", source="scenario") == 1
    assert requests_total(samples, **chat, status="429", source="default") == 1
    assert requests_total(samples, endpoint="messages", profile="inferam", status="200", source="default") == 1
    assert requests_total(samples, endpoint="models", profile="inferam", status="200", source="none") == 1
    assert samples[("emulator_faults_total", (("kind", "status"),))] == 1
    assert samples[("emulator_tokens_total", (("kind", "output"),))] == output
    assert samples[("emulator_tokens_total", (("kind", "input"),))] > 0
    assert samples[("emulator_request_duration_seconds_count", ())] == 6
    assert samples[("emulator_time_to_first_token_seconds_count", ())] == 6
    inf = samples[("emulator_request_duration_seconds_bucket", (("le", "+Inf"),))]
    assert inf == 6 and samples[("emulator_request_duration_seconds_sum", ())] > 0
    assert samples[("emulator_active_streams", ())] == 0


def test_a_stream_being_played_is_an_active_stream(make_server: Callable[[Settings], Server]) -> None:
    server = make_server(Settings())
    with server.openai(timeout=30.0) as sdk:
        stream = sdk.chat.completions.create(
            model="m",
            messages=[{"role": "user", "content": "slowly"}],
            stream=True,
            extra_headers={"x-emulator-timing": "tokens_per_second=5"},
        )
        with stream:
            next(iter(stream))
            assert scrape(server)[("emulator_active_streams", ())] == 1
    deadline = time.monotonic() + 10  # the client hung up: the server sees it go at its next pause
    while scrape(server)[("emulator_active_streams", ())] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert scrape(server)[("emulator_active_streams", ())] == 0


def test_every_endpoint_name_is_one_the_metrics_say_they_bound() -> None:
    """`endpoint` labels come from the answering endpoints' names: `metrics.ENDPOINTS` lists every one of them."""
    from emulator.answering.reading import ENDPOINT_NAMES
    from emulator.state import metrics

    assert set(ENDPOINT_NAMES.values()) | {"count_tokens", "input_tokens", "compact", "models"} <= set(
        metrics.ENDPOINTS
    )
