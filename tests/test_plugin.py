"""The pytest plugin, as a user meets it: a test file of their own, in an empty folder, that uses only the
documented fixture API, run by pytest with the plugin loaded from the package's entry point."""

from __future__ import annotations

import json
import textwrap
from collections.abc import Callable
from pathlib import Path

import openai
import pytest

from emulator.http.app import Settings
from tests.conftest import Server
from tests.test_posted import admin

pytest_plugins = ["pytester"]

USER_TESTS = """
import openai
import anthropic
import ollama
from google import genai
import pytest


def test_two_scripted_429s_are_retried_and_counted(emulator):
    emulator.fault("status=429", times=2)
    with openai.OpenAI(base_url=emulator.openai_base_url, api_key="k", max_retries=2) as client:
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    assert reply.choices[0].message.content
    assert [r["status"] for r in emulator.requests()] == [429, 429, 200]
    assert [r["body"]["messages"][0]["content"] for r in emulator.requests()] == ["hi"] * 3


def test_a_client_built_from_the_environment_is_routed(emulator):
    with openai.OpenAI(max_retries=0) as gpt, anthropic.Anthropic(max_retries=0) as claude:
        gpt.chat.completions.create(model="m", messages=[{"role": "user", "content": "env"}])
        claude.messages.create(model="claude-sonnet-4-6", max_tokens=20, messages=[{"role": "user", "content": "env"}])
    assert [r["endpoint"] for r in emulator.requests()] == ["chat_completions", "messages"]


def test_a_scenario_for_this_test(emulator):
    emulator.scenario({"name": "greeting", "match": {"last_user": "hello"}, "reply": {"text": "Hi from the test."}})
    with openai.OpenAI() as client:
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hello"}])
    assert reply.choices[0].message.content == "Hi from the test."


def test_isolation_another_test_sees_none_of_that(emulator):
    with openai.OpenAI() as client:
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hello"}])
    assert reply.choices[0].message.content != "Hi from the test."
    assert len(emulator.requests()) == 1


@pytest.mark.emulator(fault="status=503", profile="openai")
def test_a_fault_and_a_profile_from_the_marker(emulator):
    assert emulator.openai_base_url.endswith("/openai/v1")
    with openai.OpenAI(max_retries=1) as client, pytest.raises(openai.InternalServerError):
        client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert [(r["status"], r["profile"]) for r in emulator.requests()] == [(503, "openai")] * 2


@pytest.mark.emulator(scenario={"name": "json", "reply": {"text": "{}"}}, timing="latency_ms=50")
def test_a_scenario_and_timing_from_the_marker(emulator):
    with openai.OpenAI() as client:
        reply = client.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert reply.choices[0].message.content == "{}"
    (entry,) = emulator.requests()
    assert entry["timing"] == "latency_ms=50" and entry["duration_ms"] >= 50
    assert emulator.report()["verdict"] == "pass"


def test_azure_and_ollama_clients_built_from_the_environment_are_routed(emulator):
    with openai.AzureOpenAI(max_retries=0) as azure, ollama.Client() as local:
        azure.chat.completions.create(model="a-deployment", messages=[{"role": "user", "content": "env"}])
        azure.embeddings.create(model="an-embedder", input="env")
        local.chat(model="llama3.2", messages=[{"role": "user", "content": "env"}])
    assert [r["endpoint"] for r in emulator.requests()] == ["chat_completions", "embeddings", "ollama_chat"]
    assert emulator.azure_endpoint == emulator.ollama_host and "/_t/" in emulator.ollama_host


def test_google_and_vertex_clients_built_from_the_environment_are_routed(emulator):
    emulator.fault("status=503", times=1)
    with genai.Client() as gemini:
        with pytest.raises(genai.errors.ServerError):
            gemini.models.generate_content(model="gemini-2.5-flash", contents="env")
        assert gemini.models.generate_content(model="gemini-2.5-flash", contents="env").text
    with anthropic.AnthropicVertex(region="us-east5", project_id="p", access_token="t", max_retries=0) as vertex:
        vertex.messages.create(model="claude-sonnet-5", max_tokens=20, messages=[{"role": "user", "content": "env"}])
    assert [(r["endpoint"], r["status"]) for r in emulator.requests()] == [
        ("generate_content", 503), ("generate_content", 200), ("messages", 200)
    ]


def test_bedrock_clients_built_from_the_environment_are_routed(emulator):
    import boto3

    runtime = boto3.client("bedrock-runtime")
    said = runtime.converse(modelId="amazon.nova-pro-v1:0", messages=[{"role": "user", "content": [{"text": "env"}]}])
    assert said["output"]["message"]["content"][0]["text"]
    runtime.close()
    with anthropic.AnthropicBedrock(max_retries=0) as claude:
        asked = [{"role": "user", "content": "env"}]
        claude.messages.create(model="anthropic.claude-sonnet-4-5-20250929-v1:0", max_tokens=20, messages=asked)
    assert [r["endpoint"] for r in emulator.requests()] == ["converse", "invoke_model"]
"""


def test_a_users_test_file_passes_with_the_documented_fixture_api(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_user=USER_TESTS)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-W", "error")
    result.assert_outcomes(passed=USER_TESTS.count("def test_"))


def test_the_base_urls_carry_the_test_scope_in_the_path(server: Server) -> None:
    """`/_t/{test_id}/v1/…` is `/v1/…` with `x-emulator-test-id`, under a profile prefix too."""
    with server.openai("/_t/path-scope") as sdk:
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "scoped"}])
    with server.anthropic("/_t/path-scope/anthropic") as claude:
        claude.messages.create(model="claude-sonnet-4-6", max_tokens=10, messages=[{"role": "user", "content": "x"}])
    status, entries = admin(server, "GET", "/_emulator/requests", **{"x-emulator-test-id": "path-scope"})
    paths = [(e["path"], e["profile"], e["test_id"]) for e in entries["requests"]]
    assert status == 200
    assert paths == [
        ("/v1/chat/completions", "inferam", "path-scope"),
        ("/anthropic/v1/messages", "anthropic", "path-scope"),
    ]


def test_record_once_then_replay_without_the_upstream(
    pytester: pytest.Pytester, make_server: Callable[[Settings], Server]
) -> None:
    upstream = make_server(Settings(frozen_time=1767225600))
    pytester.makepyfile(
        test_recorded=textwrap.dedent(
            """
            import openai

            def test_weather(emulator):
                reply = openai.OpenAI().chat.completions.create(
                    model="m", messages=[{"role": "user", "content": "recorded once"}]
                )
                print("ANSWER", reply.choices[0].message.content)
            """
        )
    )
    recorded = pytester.runpytest_subprocess(
        "-s", "--emulator-record-mode=once", f"--emulator-upstream={upstream.base_url}"
    )
    recorded.assert_outcomes(passed=1)
    cassette = Path(pytester.path) / "cassettes" / "test_recorded" / "test_weather.yaml"
    assert cassette.exists() and "recorded once" in cassette.read_text()
    answer = [line for line in recorded.outlines if line.startswith("ANSWER")]
    replayed = pytester.runpytest_subprocess("-s", "--emulator-upstream=http://127.0.0.1:9")  # mode none: replay
    replayed.assert_outcomes(passed=1)
    assert [line for line in replayed.outlines if line.startswith("ANSWER")] == answer


def test_a_recording_mode_without_an_upstream_is_a_usage_error(pytester: pytest.Pytester) -> None:
    pytester.makepyfile(test_x="def test_x(emulator):\n    pass\n")
    result = pytester.runpytest_subprocess("--emulator-record-mode=all")
    result.stderr.fnmatch_lines(["*--emulator-record-mode=all records: it needs --emulator-upstream URL*"])


def test_a_tests_faults_are_checked_as_headers_are_and_a_requests_own_header_wins(server: Server) -> None:
    scope = {"x-emulator-test-id": "directed"}
    for body, words in [
        ({"spec": "status; status=99"}, "status"),
        ({"spec": "status=429", "times": 0}, "times: expected a whole number of at least 1"),
        ({"times": 2}, "no fault (spec) was given"),
        ({"timing": "tokens_per_second=0"}, "tokens_per_second"),
        ({"scenario": "nowhere"}, "no scenario is named 'nowhere'"),
        ({"fault": "status=429"}, "Unknown field(s) fault"),
        ({}, "a JSON object"),
    ]:
        status, answer = admin(server, "POST", "/_emulator/faults", json.dumps(body), **scope)
        assert status == 400 and words in answer["error"]["message"], (body, answer)
    status, answer = admin(server, "POST", "/_emulator/faults", json.dumps({"spec": "status=429", "times": 1}), **scope)
    assert (status, answer["times"]) == (201, 1)
    with server.openai(default_headers=scope) as sdk:
        with pytest.raises(
            openai.InternalServerError
        ):  # a request's own header wins over the test's fault, and spends none of its strikes
            sdk.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "x"}], extra_headers={"x-emulator-fault": "status=500"}
            )
        with pytest.raises(openai.RateLimitError):
            sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])  # times=1: spent
    assert admin(server, "GET", "/_emulator/faults", **scope)[1]["times"] == 0
    assert admin(server, "DELETE", "/_emulator/faults", **scope)[1]["deleted"] is True
    assert admin(server, "GET", "/_emulator/faults", **scope)[1] == {"test_id": "directed"}


def test_emulator_conform_checks_what_the_session_recorded(
    pytester: pytest.Pytester, make_server: Callable[[Settings], Server]
) -> None:
    upstream = make_server(Settings(frozen_time=1767225600))
    pytester.makepyfile(
        test_conformed=textwrap.dedent(
            """
            import openai

            def test_weather(emulator):
                client = openai.OpenAI()
                client.chat.completions.create(model="m", messages=[{"role": "user", "content": "conform me"}])
                list(client.responses.create(model="m", input="and me, streamed", stream=True))
            """
        )
    )
    options = ["--emulator-record-mode=all", f"--emulator-upstream={upstream.base_url}/inferam", "--emulator-conform"]
    result = pytester.runpytest_subprocess(*options)
    result.assert_outcomes(passed=1)
    result.stdout.fnmatch_lines(["*emulator conform: 0 of 2 recorded interactions differ*"])
    assert result.ret == 0
    cassette = Path(pytester.path) / "cassettes" / "test_conformed" / "test_weather.yaml"
    # The provider's news, as a re-recording would bring it: a field the emulator never sends.
    text = cassette.read_text()
    cassette.write_text(text.replace('{"id":"chatcmpl-', '{"service_tier":"default","id":"chatcmpl-', 1))
    again = pytester.runpytest_subprocess("--emulator-record-mode=new_episodes", *options[1:])
    again.stdout.fnmatch_lines(["*- service_tier*", "*emulator conform: 1 of 2 recorded interactions differ*"])
    assert again.ret == 1
