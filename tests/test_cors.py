"""CORS on the emulated API routes only: a page on another origin (loopback by default, others by `--cors-origin`)
may call them; the admin API, `/metrics` and the inspector answer no page. Anthropic wants a browser's call to say
it means it. The browser test drives both JS SDKs from a page on another origin in Debian's chromium."""

from __future__ import annotations

import http.client
import json
from typing import Any

import anthropic
import pytest

from emulator.http.app import Settings
from tests.browser import chromium, import_map, js_sdks, needs_chromium, site
from tests.conftest import Server, call

PAGE = "http://localhost:5173"  # a front-end dev server's origin


def ask(
    server: Server, method: str, path: str, headers: dict[str, str], body: bytes = b""
) -> tuple[int, dict[str, str], bytes]:
    conn = http.client.HTTPConnection(server.host, server.port, timeout=10)
    try:
        conn.request(method, path, body=body or None, headers=headers)
        response = conn.getresponse()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
    finally:
        conn.close()


def preflight(
    server: Server, path: str, origin: str, wanted: str = "authorization, content-type"
) -> tuple[int, dict[str, str]]:
    status, headers, _ = ask(
        server,
        "OPTIONS",
        path,
        {"origin": origin, "access-control-request-method": "POST", "access-control-request-headers": wanted},
    )
    return status, headers


@pytest.mark.parametrize(
    "path",
    [
        "/v1/chat/completions",
        "/openai/v1/responses",
        "/anthropic/v1/messages",
        "/_t/page-test/v1/models",
        "/v1beta/models/gemini-2.5-flash:streamGenerateContent",  # @google/genai in a page
        "/vertex/v1beta1/publishers/google/models/gemini-2.5-flash:generateContent",
        "/model/amazon.nova-pro-v1:0/converse",
    ],
)
@pytest.mark.parametrize("origin", [PAGE, "http://127.0.0.1:3000", "https://[::1]:8443"])
def test_a_loopback_page_may_call_the_api_routes(server: Server, path: str, origin: str) -> None:
    status, headers = preflight(server, path, origin, "x-stainless-os, anthropic-version, x-api-key")
    assert status == 204
    assert headers["access-control-allow-origin"] == origin and "origin" in headers["vary"].lower()
    assert "POST" in headers["access-control-allow-methods"]
    assert headers["access-control-allow-headers"] == "x-stainless-os, anthropic-version, x-api-key"


@pytest.mark.parametrize("path", ["/_emulator/requests", "/_emulator/scenarios", "/metrics", "/_emulator/inspector"])
def test_the_admin_api_metrics_and_inspector_answer_no_page(server: Server, path: str) -> None:
    status, headers = preflight(server, path, PAGE)
    assert status >= 400 and not any(k.startswith("access-control-") for k in headers)
    status, headers, _ = ask(server, "GET", path, {"origin": PAGE})
    assert not any(k.startswith("access-control-") for k in headers)


def test_another_origin_needs_cors_origin(server: Server, make_server: Any) -> None:
    site = "https://demo.example.test"
    status, headers = preflight(server, "/v1/chat/completions", site)
    assert status == 403 and "access-control-allow-origin" not in headers
    allowing = make_server(Settings(cors_origins=(site,)))
    status, headers = preflight(allowing, "/v1/chat/completions", site)
    assert status == 204 and headers["access-control-allow-origin"] == site
    anyone = make_server(Settings(cors_origins=("*",)))
    assert preflight(anyone, "/v1/chat/completions", "https://elsewhere.test")[0] == 204


def test_an_answer_names_the_origin_and_exposes_what_the_sdks_read(server: Server) -> None:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": "hi"}]}).encode()
    sent = {"origin": PAGE, "authorization": "Bearer k", "content-type": "application/json"}
    status, headers, _ = ask(server, "POST", "/v1/chat/completions", sent, body)
    assert status == 200 and headers["access-control-allow-origin"] == PAGE
    exposed = {h.strip() for h in headers["access-control-expose-headers"].split(",")}
    assert {"x-request-id", "retry-after", "x-ratelimit-remaining-requests", "request-id"} <= exposed
    stream = json.dumps({"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]}).encode()
    status, headers, raw = ask(server, "POST", "/v1/chat/completions", sent, stream)
    assert status == 200 and headers["access-control-allow-origin"] == PAGE and raw.endswith(b"data: [DONE]\n\n")
    refused = {**sent, "x-emulator-fault": "status=429; retry_after=2"}
    status, headers, _ = ask(server, "POST", "/v1/chat/completions", refused, body)
    assert status == 429 and headers["access-control-allow-origin"] == PAGE and headers["retry-after"] == "2"


def test_anthropic_wants_a_browser_to_say_it_means_it(server: Server) -> None:
    with (
        server.anthropic("/anthropic", default_headers={"origin": PAGE}) as page,
        pytest.raises(anthropic.AuthenticationError) as caught,
    ):
        page.messages.create(model="claude-haiku-4-5", max_tokens=20, messages=[{"role": "user", "content": "hi"}])
    body: Any = caught.value.body
    assert body["error"] == {
        "type": "authentication_error",
        "message": "CORS requests must set 'anthropic-dangerous-direct-browser-access' header",
    }
    meant = {"origin": PAGE, "anthropic-dangerous-direct-browser-access": "true"}
    with server.anthropic("/anthropic", default_headers=meant) as page:
        assert page.messages.create(
            model="claude-haiku-4-5", max_tokens=20, messages=[{"role": "user", "content": "hi"}]
        )
    with server.anthropic(default_headers={"origin": PAGE}) as inferam:  # Inferam takes any headers (seed 004)
        assert inferam.messages.create(model="m", max_tokens=20, messages=[{"role": "user", "content": "hi"}])
    with server.openai("/openai", default_headers={"origin": PAGE}) as gpt:  # OpenAI answers any origin's calls
        assert gpt.chat.completions.create(model="gpt-4.1", messages=[{"role": "user", "content": "hi"}]).choices


# --- both JS SDKs, in a browser, from a page on another origin -------------------------------------------------------

SCRIPT = """
import OpenAI from "openai";
import Anthropic from "@anthropic-ai/sdk";

window.run = async (base) => {
  const said = (text) => [{ role: "user", content: text }];
  const out = {};
  const gpt = new OpenAI({ baseURL: `${base}/openai/v1`, apiKey: "sk-page", dangerouslyAllowBrowser: true });
  out.chat = (await gpt.chat.completions.create({ model: "gpt-4.1", messages: said("Name a colour.") }))
    .choices[0].message.content;
  const chunks = await gpt.chat.completions.create({ model: "gpt-4.1", messages: said("Count."), stream: true });
  out.chatStream = "";
  for await (const chunk of chunks) out.chatStream += chunk.choices[0]?.delta?.content ?? "";
  out.responses = (await gpt.responses.create({ model: "gpt-4.1", input: "Name a fruit." })).output_text;
  out.responsesStream = (await gpt.responses.stream({ model: "gpt-4.1", input: "Name a tree." }).finalResponse())
    .output_text;
  const claude = new Anthropic({ baseURL: `${base}/anthropic`, apiKey: "sk-page", dangerouslyAllowBrowser: true });
  out.messages = (await claude.messages.create({ model: "claude-haiku-4-5", max_tokens: 60, messages: said("Hi.") }))
    .content[0].text;
  const streamed = claude.messages.stream({ model: "claude-haiku-4-5", max_tokens: 60, messages: said("Yo.") });
  out.messagesStream = (await streamed.finalMessage()).content[0].text;
  // a 429 set for one request of each scope: each SDK waits its retry-after, tries again, and reads the headers
  const retried = new OpenAI({ baseURL: `${base}/_t/page-gpt/openai/v1`, apiKey: "sk-page",
    dangerouslyAllowBrowser: true });
  const gptAgain = await retried.chat.completions.create({ model: "gpt-4.1", messages: said("Again?") })
    .withResponse();
  out.gptRetried = gptAgain.data.choices[0].message.content;
  out.gptRemaining = gptAgain.response.headers.get("x-ratelimit-remaining-requests");
  out.gptRequestId = gptAgain.response.headers.get("x-request-id");
  const claudeRetried = new Anthropic({ baseURL: `${base}/_t/page-claude/anthropic`, apiKey: "sk-page",
    dangerouslyAllowBrowser: true });
  const claudeAgain = await claudeRetried.messages.create({ model: "claude-haiku-4-5", max_tokens: 60,
    messages: said("Again?") }).withResponse();
  out.claudeRetried = claudeAgain.data.content[0].text;
  out.claudeRemaining = claudeAgain.response.headers.get("anthropic-ratelimit-requests-remaining");
  out.claudeRequestId = claudeAgain.response.headers.get("request-id");
  return out;
};
window.ready = true;
"""


@needs_chromium
def test_both_js_sdks_call_from_a_page_on_another_origin(server: Server) -> None:
    folder = js_sdks()
    page_html = (
        '<!doctype html><html><head><script type="importmap">'
        + json.dumps(import_map(folder))
        + f'</script></head><body><script type="module">{SCRIPT}</script></body></html>'
    )
    for scope in ("page-gpt", "page-claude"):
        fault = {"spec": "status=429; retry_after=1", "times": 1}
        assert call(server.port, "POST", "/_emulator/faults", fault, {"x-emulator-test-id": scope})[0] == 201
    with site(folder, {"/page.html": page_html}) as origin, chromium() as browser:
        page = browser.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{origin}/page.html")
        page.wait_for_function("window.ready === true", timeout=30_000)
        out = page.evaluate("base => window.run(base)", server.base_url)
    assert errors == []
    for key in ("chat", "chatStream", "responses", "responsesStream", "messages", "messagesStream"):
        assert isinstance(out[key], str) and out[key].strip(), key
    assert out["gptRetried"] and out["claudeRetried"]
    assert str(out["gptRemaining"]).isdigit() and str(out["claudeRemaining"]).isdigit()
    assert out["gptRequestId"].startswith("req_") and out["claudeRequestId"].startswith("req_011")
    for scope in ("page-gpt", "page-claude"):
        entries = call(server.port, "GET", f"/_emulator/requests?test_id={scope}")[1]["requests"]
        assert sorted(e["status"] for e in entries) == [200, 429]  # struck once, then answered
