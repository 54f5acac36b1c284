"""Who may call the admin API: on loopback, loopback Hosts and no foreign Origin; beyond it, the token."""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable

import pytest

from emulator.http.app import Settings
from tests.conftest import Server

CHAT = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]})


def call(server: Server, method: str, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        body = CHAT if path.startswith("/v1/") else None
        sent = {"content-type": "application/json", "authorization": "Bearer sk-test"} | (headers or {})
        conn.request(method, path, body=body, headers=sent)
        response = conn.getresponse()
        return response.status, response.read().decode()
    finally:
        conn.close()


@pytest.mark.parametrize(
    ("headers", "status"),
    [
        ({"host": "localhost:8000"}, 200),
        ({"host": "127.0.0.1"}, 200),
        ({"host": "127.8.9.10:1234"}, 200),
        ({"host": "[::1]:8000"}, 200),
        ({"host": "localhost", "origin": "http://localhost:3000"}, 200),
        ({"host": "attacker.example"}, 403),  # DNS rebinding: the page's name, our address
        ({"host": "localhost.attacker.example:8000"}, 403),
        ({"host": "localhost", "origin": "https://attacker.example"}, 403),  # a cross-origin reset
        ({"host": "localhost", "origin": "null"}, 403),
    ],
)
def test_on_loopback_the_admin_api_answers_loopback_names_only(
    server: Server, headers: dict[str, str], status: int
) -> None:
    assert call(server, "GET", "/_emulator/requests?test_id=admin", headers)[0] == status
    assert call(server, "POST", "/_emulator/reset?test_id=admin", headers)[0] == status
    assert call(server, "GET", "/health", headers)[0] == 200  # never guarded
    assert call(server, "POST", "/v1/chat/completions", headers)[0] == 200


def test_beyond_loopback_the_admin_api_needs_the_token(make_server: Callable[[Settings], Server]) -> None:
    server = make_server(Settings(host="0.0.0.0", admin_token="s3cret-admin"))
    status, body = call(server, "GET", "/_emulator/requests")
    assert status == 401 and "needs its token" in body
    assert call(server, "POST", "/_emulator/reset", {"authorization": "Bearer wrong"})[0] == 401
    assert call(server, "GET", "/_emulator/requests", {"authorization": "Bearer s3cret-admin"})[0] == 200
    assert call(server, "GET", "/_emulator/report?token=s3cret-admin")[0] == 200
    assert call(server, "GET", "/health")[0] == 200
    assert call(server, "POST", "/v1/chat/completions")[0] == 200  # the API itself needs no admin token


def test_beyond_loopback_with_no_token_the_admin_api_refuses_and_names_the_flag(
    make_server: Callable[[Settings], Server],
) -> None:
    server = make_server(Settings(host="0.0.0.0"))
    status, body = call(server, "POST", "/_emulator/reset")
    assert status == 401 and "--admin-token" in body
    assert call(server, "POST", "/v1/chat/completions")[0] == 200


@pytest.mark.parametrize("path", ["/_emulator/", "/metrics", "/_emulator/requests?since=0&bodies=false"])
def test_the_inspector_and_metrics_are_guarded_as_the_admin_api_is(
    make_server: Callable[[Settings], Server], server: Server, path: str
) -> None:
    assert call(server, "GET", path, {"host": "localhost:8000"})[0] == 200
    assert call(server, "GET", path, {"host": "attacker.example"})[0] == 403
    assert call(server, "GET", path, {"host": "localhost", "origin": "https://attacker.example"})[0] == 403
    beyond = make_server(Settings(host="0.0.0.0", admin_token="s3cret-admin"))
    assert call(beyond, "GET", path)[0] == 401
    joined = "&" if "?" in path else "?"
    assert call(beyond, "GET", f"{path}{joined}token=s3cret-admin")[0] == 200  # the page and its feed: ?token=
