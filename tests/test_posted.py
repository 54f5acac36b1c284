"""Scenarios at run time: `POST /_emulator/scenarios`, scoped by test id, validated as files are."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from emulator.http.app import Settings
from tests.conftest import BUNDLED, Server


def admin(server: Server, method: str, path: str, body: str | None = None, **headers: str) -> tuple[int, Any]:
    import http.client

    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request(method, path, body=body, headers=headers)
        response = conn.getresponse()
        return response.status, json.loads(response.read())
    finally:
        conn.close()


def answer(server: Server, text: str, test_id: str = "", model: str = "m") -> tuple[str, str]:
    """Which source answered `text`, and what it said."""
    headers = {"x-emulator-test-id": test_id} if test_id else {}
    with server.openai() as client:
        raw = client.chat.completions.with_raw_response.create(
            model=model, messages=[{"role": "user", "content": text}], extra_headers=headers
        )
    return raw.headers["x-emulator-source"], raw.parse().choices[0].message.content or ""


@pytest.fixture
def server(make_server: Callable[[Settings], Server]) -> Server:
    return make_server(Settings(scenarios=(BUNDLED,)))


def test_a_scenario_posted_for_a_test_id_answers_that_test_only(server: Server) -> None:
    scenario = {"name": "greeting", "match": {"last_user": "hello"}, "reply": {"text": "Posted hello."}}
    status, body = admin(server, "POST", "/_emulator/scenarios", json.dumps(scenario), **{"x-emulator-test-id": "t1"})
    assert (status, body) == (201, {"scenarios": ["greeting"], "test_id": "t1"})
    assert answer(server, "hello there", "t1") == ("greeting", "Posted hello.")
    assert answer(server, "hello there", "t2")[0] == "default"  # another test does not see it
    assert answer(server, "hello there")[0] == "default"
    admin(server, "POST", "/_emulator/reset?test_id=t1")
    assert answer(server, "hello there", "t1")[0] == "default"  # gone with its test id's reset


def test_posted_scenarios_come_first_newest_first_and_shadow_a_file_scenario(server: Server) -> None:
    yaml = """scenarios:
  - {name: haiku, reply: {text: a posted haiku}}
  - {name: first, match: {last_user: weather}, reply: {text: older}}
"""
    assert admin(server, "POST", "/_emulator/scenarios", yaml, **{"content-type": "application/yaml"})[0] == 201
    assert answer(server, "hi", model="haiku") == ("haiku", "a posted haiku")  # the file's haiku, shadowed
    newer = {"name": "second", "match": {"last_user": "weather"}, "reply": {"text": "newer"}}
    admin(server, "POST", "/_emulator/scenarios", json.dumps(newer))
    assert answer(server, "the weather?") == ("second", "newer")
    own = {"name": "mine", "match": {"last_user": "weather"}, "reply": {"text": "a test's own"}}
    admin(server, "POST", "/_emulator/scenarios", json.dumps(own), **{"x-emulator-test-id": "t"})
    assert answer(server, "the weather?", "t") == ("mine", "a test's own")  # before everyone's
    replaced = {"name": "second", "match": {"last_user": "weather"}, "reply": {"text": "replaced"}}
    admin(server, "POST", "/_emulator/scenarios", json.dumps(replaced))
    assert answer(server, "the weather?") == ("second", "replaced")
    status, listed = admin(server, "GET", "/_emulator/scenarios")
    names = [(s["name"], s["source"], s["test_id"]) for s in listed["scenarios"]]
    posted = [("second", "posted", None), ("first", "posted", None), ("haiku", "posted", None), ("mine", "posted", "t")]
    assert status == 200 and names[:4] == posted  # newest first, everyone's then each test's
    assert ("haiku", f"{BUNDLED / 'examples.yaml'}: scenarios[2]", None) in names[4:]  # the file's, listed too
    assert admin(server, "DELETE", "/_emulator/scenarios/second")[0] == 200
    assert answer(server, "the weather?") == ("first", "older")
    assert admin(server, "DELETE", "/_emulator/scenarios/second")[0] == 404
    admin(server, "POST", "/_emulator/reset")  # a global reset removes every posted scenario
    assert answer(server, "hi", model="haiku")[0] == "haiku" and answer(server, "the weather?")[0] != "first"


def test_a_bad_scenario_is_a_400_listing_every_mistake_with_its_path(server: Server) -> None:
    bad = {
        "scenarios": [
            {"name": "x", "match": {"last_user": {"regex": "("}}, "reply": {"finish_reason": "done"}},
            {"reply": {"txt": 1}},
        ]
    }
    status, body = admin(server, "POST", "/_emulator/scenarios", json.dumps(bad))
    assert status == 400
    mistakes = body["error"]["mistakes"]
    assert [m.split(":")[0] for m in mistakes] == [
        "scenarios[0].reply.finish_reason",
        "scenarios[0].match.last_user.regex",
        "scenarios[1].name",
        "scenarios[1].reply.txt",
    ]
    assert admin(server, "GET", "/_emulator/scenarios")[1]["scenarios"][0]["source"] != "posted"  # none taken
    assert admin(server, "POST", "/_emulator/scenarios", "{not json: [")[0] == 400


def test_a_body_past_the_admin_limit_is_refused_without_being_kept(server: Server) -> None:
    """A posted scenario of 200 MB was read whole and parsed: the admin API now stops at its limit (1 MiB)."""
    import http.client

    padding = "# " + "x" * 1022 + "\n"
    body = "scenarios: [{name: big, reply: {text: hi}}]\n" + padding * 1100  # 1.1 MiB
    conn = http.client.HTTPConnection(server.host, server.port, timeout=30)
    try:
        conn.request("POST", "/_emulator/scenarios", body=body, headers={"content-type": "application/yaml"})
        response = conn.getresponse()
        answer = json.loads(response.read())
    finally:
        conn.close()
    assert response.status == 413 and "limit of 1,048,576 bytes" in answer["error"]["message"]
    assert "big" not in [s["name"] for s in admin(server, "GET", "/_emulator/scenarios")[1]["scenarios"]]
