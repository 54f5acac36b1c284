"""The inspector page (`GET /_emulator/`) in a real browser: headless Chromium from Debian's packages, driven
by Playwright (which cannot download its own browsers here). `.ci/deps` installs it.

Each test drives a fresh emulator through the official SDKs and reads the page as a person would: the rows'
previews and marks, an entry opened by its link, the search, the findings, the conversations, live rows, the
token, and a "copy as curl" command run for real."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from emulator.http.app import Settings
from emulator.journal import assembly, delivery
from tests.browser import chromium, needs_chromium
from tests.conftest import SCENARIOS, Server, call, launch, read_until

REPO = Path(__file__).parent.parent
WEATHER: list[Any] = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
XSS = "Weather in Paris and Tokyo? <img src=x onerror=document.title='owned'>"
WAIT = 60_000  # milliseconds a page may take to show what the journal holds (it polls once a second): a give-up
# bound only; in a fresh clone, beside the compiled wheel's build on two cores, 15 s was too short once

pytestmark = needs_chromium


@pytest.fixture
def browser() -> Iterator[Any]:
    with chromium() as launched:
        yield launched


@pytest.fixture
def page(browser: Any) -> Any:
    return browser.new_page(viewport={"width": 1400, "height": 900})


@pytest.fixture
def server(make_server: Callable[[Settings], Server]) -> Server:
    return make_server(Settings(scenarios=(SCENARIOS,)))


def scoped(test_id: str, **more: str) -> dict[str, str]:
    return {"x-emulator-test-id": test_id} | more


def entries(server: Server, test_id: str) -> list[dict[str, Any]]:
    status, found = call(server.port, "GET", f"/_emulator/requests?test_id={test_id}&bodies=false")
    assert status == 200
    rows: list[dict[str, Any]] = found["requests"]
    return rows


def row(page: Any, entry_id: int) -> Any:
    found = page.locator(f'tr.entry[data-id="{entry_id}"]')
    found.wait_for(timeout=WAIT)
    return found


def test_rows_preview_the_question_and_answer_and_mark_a_stream_a_tool_call_and_a_fault(
    page: Any, server: Server
) -> None:
    page.goto(f"{server.base_url}/_emulator/")
    page.get_by_text("No requests yet").wait_for()
    with server.openai(default_headers=scoped("marks")) as sdk:
        streamed = "".join(
            chunk.choices[0].delta.content or ""
            for chunk in sdk.chat.completions.create(
                model="m", messages=[{"role": "user", "content": "Describe a lighthouse keeper's morning"}], stream=True
            )
            if chunk.choices
        )
        called = sdk.with_options(default_headers=scoped("marks", **{"x-emulator-scenario": "two-calls"}))
        called.chat.completions.create(model="m", messages=[{"role": "user", "content": XSS}], tools=WEATHER)
        faulted = sdk.with_options(default_headers=scoped("marks", **{"x-emulator-fault": "status=503"}))
        with pytest.raises(Exception, match="503"):
            faulted.chat.completions.create(model="m", messages=[{"role": "user", "content": "Is anyone there?"}])
    stream_id, tool_id, fault_id = (e["id"] for e in entries(server, "marks"))

    stream_row = row(page, stream_id)
    assert "Describe a lighthouse keeper's morning" in stream_row.locator(".asked").inner_text()
    assert stream_row.locator(".answered").inner_text().lstrip("‹ ").startswith(" ".join(streamed.split())[:30])
    assert stream_row.locator(".mark.stream").count() == 1 and stream_row.locator(".mark.tool").count() == 0

    tool_row = row(page, tool_id)
    tools = tool_row.locator(".mark.tool").all_inner_texts()
    assert [t.split()[-1] for t in tools] == ["get_weather", "get_weather"]
    assert tool_row.locator(".mark.reasoning").count() == 1 and tool_row.locator(".mark.stream").count() == 0

    assert page.title() == "emulator: requests"  # the markup a client sent is shown, never run
    tool_asked = tool_row.locator(".asked").inner_text()
    assert "<img src=x onerror=document.title='owned'>" in tool_asked

    fault_row = row(page, fault_id)
    assert fault_row.locator(".mark.fault").inner_text() == "fault: status"
    assert fault_row.locator("td.status").inner_text() == "503"
    assert "Is anyone there?" in fault_row.locator(".asked").inner_text()
    assert stream_row.locator(".mark.fault").count() == 0
    # the time to the millisecond
    assert len(fault_row.locator("td.time").inner_text().split(".")[-1]) == 3
    page.keyboard.press("j")  # the keys step through the rows shown, newest first
    page.wait_for_url(f"**/_emulator/#/requests/{fault_id}")
    page.keyboard.press("j")
    page.wait_for_url(f"**/_emulator/#/requests/{tool_id}")
    page.locator("#entry .call .name", has_text="get_weather").first.wait_for(timeout=WAIT)
    page.keyboard.press("Escape")
    page.wait_for_url("**/_emulator/#/")


def test_a_tool_result_is_previewed_as_one(page: Any, server: Server) -> None:
    with server.openai(default_headers=scoped("result")) as sdk:
        asked: list[Any] = [
            {"role": "user", "content": "What is the weather in Lisbon?"},
            {"role": "assistant", "tool_calls": [_call("c1", "Lisbon")]},
            {"role": "tool", "tool_call_id": "c1", "content": "22 degrees and windy"},
        ]
        sdk.chat.completions.create(model="m", messages=asked, tools=WEATHER)
    page.goto(f"{server.base_url}/_emulator/")
    asked_line = row(page, entries(server, "result")[0]["id"]).locator(".asked")
    assert asked_line.locator(".who").inner_text() == "tool result"
    assert "22 degrees and windy" in asked_line.inner_text() and "Lisbon" not in asked_line.inner_text()


def _call(call_id: str, city: str) -> dict[str, Any]:
    arguments = json.dumps({"city": city})
    return {"id": call_id, "type": "function", "function": {"name": "get_weather", "arguments": arguments}}


def test_a_deep_link_opens_an_entry_with_the_stream_assembled_as_the_sdk_did(page: Any, server: Server) -> None:
    question = [{"role": "user", "content": "Why do bridges sway in the wind? Answer at length."}]
    with server.openai(default_headers=scoped("deep")) as sdk:
        chunks = list(sdk.chat.completions.create(model="m", messages=question, stream=True))  # type: ignore[arg-type]
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    finish = next(c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason)
    entry_id = entries(server, "deep")[0]["id"]
    page.goto(f"{server.base_url}/_emulator/#/requests/{entry_id}")
    said = page.locator("#entry .said")
    said.wait_for(timeout=WAIT)
    assert said.text_content() == text and len(text) > 200
    opened = page.locator("#entry")
    assert f"#{entry_id}" in opened.locator("h2").inner_text()
    assert "finish reason" in opened.inner_text() and finish in opened.inner_text()
    assert page.title() == f"emulator: request #{entry_id}"
    assert "Why do bridges sway" in opened.locator(".request .message.user").inner_text()
    opened.locator("details.raw > summary").click()  # the raw events, one click away, with their offsets
    events = opened.locator("table.events tr")
    assert events.count() == len(chunks) + 2  # a header row, each chunk, and [DONE]
    assert " ms" in events.nth(1).inner_text()


def test_a_stream_broken_mid_way_shows_what_the_client_read_and_where_the_fault_struck(
    page: Any, server: Server
) -> None:
    read = []
    broken = {"x-emulator-fault": "truncate; after_events=4", "x-emulator-scenario": "plain-text"}
    with server.openai(default_headers=scoped("broken", **broken)) as sdk:
        asked: list[Any] = [{"role": "user", "content": "Tell me a long story about a tide"}]
        with pytest.raises(Exception):  # noqa: B017 (the SDK's error for a stream cut off is not one class)
            for chunk in sdk.chat.completions.create(model="m", messages=asked, stream=True):
                read.append(chunk.choices[0].delta.content or "" if chunk.choices else "")
    entry_id = entries(server, "broken")[0]["id"]
    page.goto(f"{server.base_url}/_emulator/#/requests/{entry_id}")
    page.locator("#entry .said").wait_for(timeout=WAIT)
    assert page.locator("#entry .said").text_content() == "".join(read) and "".join(read).startswith("Hello")
    assert "ended before its end" in page.locator("#entry .answer").inner_text()
    page.locator("#entry details.raw > summary").click()
    rows = page.locator("#entry table.events tr")
    assert rows.nth(5).get_attribute("class") == "fault-row"  # after the header row and the 4 events sent
    assert "truncate; after_events=4" in rows.nth(5).inner_text()
    assert "truncate" in page.locator("#entry .plan").inner_text()


def test_a_search_finds_one_request_among_fifty_by_a_word_in_its_body(page: Any, server: Server) -> None:
    with server.openai(default_headers=scoped("haystack")) as sdk:
        for n in range(50):
            system = "Answer as a ship's navigator." if n == 37 else "Answer plainly."
            asked: list[Any] = [{"role": "system", "content": system}, {"role": "user", "content": f"Question {n}"}]
            sdk.chat.completions.create(model="m", messages=asked)
    wanted = entries(server, "haystack")[37]["id"]
    page.goto(f"{server.base_url}/_emulator/")
    page.locator("tr.entry").nth(49).wait_for(timeout=WAIT)
    assert page.locator("tr.entry").count() == 50
    page.fill("#f-q", "NAVIGATOR")  # in the system message, which no preview shows: the server searched
    page.wait_for_function("document.querySelectorAll('tr.entry').length === 1", timeout=WAIT)
    assert page.locator("tr.entry").get_attribute("data-id") == str(wanted)
    page.fill("#f-q", "navigator question 12")  # every word, in the request or its answer
    page.get_by_text("No request matches the filter").wait_for(timeout=WAIT)
    page.fill("#f-q", "")
    page.wait_for_function("document.querySelectorAll('tr.entry').length === 50", timeout=WAIT)


def test_the_search_is_the_servers(server: Server) -> None:
    with server.openai(default_headers=scoped("q")) as sdk:
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "Tell me about otters"}])
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "Tell me about herons"}])
    status, found = call(server.port, "GET", "/_emulator/requests?test_id=q&q=Otters&bodies=false&preview=true")
    assert status == 200 and [r["preview"]["prompt"] for r in found["requests"]] == ["Tell me about otters"]
    assert "body" not in found["requests"][0]
    status, page = call(server.port, "GET", "/_emulator/requests?test_id=q&limit=1&preview=true&bodies=false")
    assert [r["preview"]["prompt"] for r in page["requests"]] == ["Tell me about herons"]  # the newest
    older = f"/_emulator/requests?test_id=q&limit=1&before={page['requests'][0]['id']}&preview=true"
    status, page = call(server.port, "GET", older)
    assert [r["preview"]["prompt"] for r in page["requests"]] == ["Tell me about otters"]
    assert page["requests"][0]["body"]["messages"][0]["content"] == "Tell me about otters"  # bodies=true by default
    status, refused = call(server.port, "GET", "/_emulator/requests?limit=some")
    assert status == 400 and "limit" in refused["error"]["message"]
    assert call(server.port, "GET", "/_emulator/static/list.js")[0] == 200
    for name in ("../admin.py", "nothing.js", "inspector.png", "..%2f__init__.py"):
        assert call(server.port, "GET", f"/_emulator/static/{name}")[0] == 404


def test_the_findings_link_to_the_failing_request(page: Any, server: Server) -> None:
    fault = {"x-emulator-fault": "status=429; retry_after=1"}
    with server.openai(default_headers=scoped("gave-up", **fault)) as sdk, pytest.raises(Exception, match="429"):
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "One more try?"}])
    failing = entries(server, "gave-up")[0]["id"]
    page.goto(f"{server.base_url}/_emulator/#/findings")
    page.fill("#f-test_id", "gave-up")
    page.locator("#f-test_id").dispatch_event("change")
    # The view drawn for this filter (an earlier reading, of every test, may still be on its way: it is dropped),
    # then its link once the list has brought the request's status (filled in beside the link, not redrawn).
    page.locator("#findings-view .verdict", has_text="test gave-up").wait_for(timeout=WAIT)
    finding = page.locator(".finding", has_text="gave up on retryable")
    finding.wait_for(timeout=WAIT)
    assert "429 was not retried" in finding.inner_text()
    finding.locator(".request-ref .status", has_text="429").wait_for(timeout=WAIT)
    finding.locator(f'a[href="#/requests/{failing}"]').click()
    page.locator("#entry h2", has_text=f"#{failing}").wait_for(timeout=WAIT)
    assert page.locator("#entry .error").count() == 1
    assert page.locator("#finding-count").inner_text() == "1"


def test_the_conversation_of_a_three_turn_tool_loop(page: Any, server: Server) -> None:
    steps = [
        {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Bergen"}}]},
        {"tool_calls": [{"name": "get_weather", "arguments": {"city": "Tromsø"}}]},
        {"text": "Bergen is wetter than Tromsø today."},
    ]
    loop = {"scenarios": [{"name": "loop", "match": {"last_user": {"contains": "wetter"}}, "steps": steps}]}
    assert call(server.port, "POST", "/_emulator/scenarios", loop, scoped("loop"))[0] == 201
    with server.openai(default_headers=scoped("loop")) as sdk:
        messages: list[Any] = [{"role": "user", "content": "Which is wetter, Bergen or Tromsø?"}]
        while True:
            message = sdk.chat.completions.create(model="m", messages=messages, tools=WEATHER).choices[0].message
            if not message.tool_calls:
                break
            messages.append(message.model_dump(exclude_none=True))
            messages += [{"role": "tool", "tool_call_id": c.id, "content": "rain"} for c in message.tool_calls]
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "Unrelated: hello"}])
    first, second, third, alone = (e["id"] for e in entries(server, "loop"))
    page.goto(f"{server.base_url}/_emulator/#/conversations/{second}")
    story = page.locator(".story")
    story.wait_for(timeout=WAIT)
    assert story.count() == 1 and "3 turn(s), 3 request(s)" in story.inner_text()
    links = story.locator("a.attempt")
    assert [links.nth(i).get_attribute("href") for i in range(3)] == [f"#/requests/{i}" for i in (first, second, third)]
    turns = story.locator(".turn")
    assert [turns.nth(i).locator(".mark.tool").all_inner_texts() for i in range(3)] == [["⚒ get_weather"]] * 2 + [[]]
    assert turns.nth(1).locator(".asked .who").inner_text() == "tool result"  # what the loop sent back
    assert "Bergen is wetter" in turns.nth(2).locator(".answered").inner_text()
    page.goto(f"{server.base_url}/_emulator/#/conversations/{alone}")
    page.locator(".story-head", has_text="1 turn(s), 1 request(s)").wait_for(timeout=WAIT)


def test_the_conversation_of_a_retry_chain(page: Any, server: Server) -> None:
    assert call(server.port, "POST", "/_emulator/faults", {"spec": "status=503", "times": 2}, scoped("retry"))[0] == 201
    with server.openai(default_headers=scoped("retry"), max_retries=2) as sdk:
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "Third time lucky?"}])
    ids = [e["id"] for e in entries(server, "retry")]
    assert len(ids) == 3
    page.goto(f"{server.base_url}/_emulator/#/conversations")
    story = page.locator(".story", has_text="test retry")
    story.wait_for(timeout=WAIT)
    assert "1 turn(s), 3 request(s)" in story.inner_text()
    attempts = story.locator("a.attempt")
    assert [attempts.nth(i).inner_text() for i in range(3)] == [f"#{ids[0]} 503 status", f"#{ids[1]} 503 status",
                                                               f"#{ids[2]} 200"]  # fmt: skip
    assert story.locator(".retry").count() == 2 and "retried after" in story.locator(".retry").first.inner_text()


def test_new_rows_keep_the_scroll_position_and_the_open_entry(page: Any, server: Server) -> None:
    def ask(n: int) -> None:
        with server.openai(default_headers=scoped("live")) as sdk:
            for i in range(n):
                sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": f"Row {i}, please"}])

    ask(40)
    page.goto(f"{server.base_url}/_emulator/")
    page.get_by_text("40 requests").wait_for(timeout=WAIT)
    page.eval_on_selector("#list", "list => { list.scrollTop = 900; }")
    opened = page.locator("tr.entry").nth(20)
    opened_id = opened.get_attribute("data-id")
    opened.click()
    page.locator("#entry .said").wait_for(timeout=WAIT)
    page.eval_on_selector("#list", "list => { list.scrollTop = 900; }")  # the entry pane narrowed the list
    where = "() => { const top = document.querySelector('#list').getBoundingClientRect().top + 40;"
    where += " const r = [...document.querySelectorAll('tr.entry')].find(r => r.getBoundingClientRect().bottom > top);"
    where += " return [r.dataset.id, r.getBoundingClientRect().top]; }"
    before = page.evaluate(where)
    ask(6)
    page.get_by_text("46 requests").wait_for(timeout=WAIT)
    after = page.evaluate(where)
    assert after[0] == before[0] and abs(after[1] - before[1]) < 2  # the same row, in the same place
    assert page.locator("#entry h2").inner_text().startswith(f"#{opened_id}")
    assert page.locator("tr.entry.selected").get_attribute("data-id") == opened_id
    assert page.url.endswith(f"#/requests/{opened_id}")


def test_beyond_loopback_the_token_moves_out_of_the_address_bar(
    browser: Any, make_server: Callable[[Settings], Server]
) -> None:
    server = make_server(Settings(host="0.0.0.0", admin_token="s3cret-admin"))
    with server.openai(default_headers=scoped("beyond")) as sdk:
        sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "Through the container"}])
    page = browser.new_page()
    page.goto(f"{server.base_url}/_emulator/?token=s3cret-admin#/requests/1")
    page.locator("#entry .said").wait_for(timeout=WAIT)
    assert "token" not in page.url and page.url.endswith("/_emulator/#/requests/1")
    assert "Through the container" in page.locator("tr.entry").inner_text()
    page.reload()  # the tab keeps the token: a reload reads the journal still
    page.locator("#entry .said").wait_for(timeout=WAIT)
    assert "s3cret" not in page.locator("#entry").inner_text()  # nor in the curl command or the copied link
    stranger = browser.new_page()  # another tab, no token: the page asks for it
    stranger.goto(f"{server.base_url}/_emulator/")
    stranger.locator("#token").wait_for(timeout=WAIT)
    assert stranger.locator("tr.entry").count() == 0
    stranger.fill("#token", "s3cret-admin")
    stranger.locator("#token-box button").click()
    stranger.locator("tr.entry").wait_for(timeout=WAIT)


@pytest.mark.parametrize("dialect", ["chat", "responses", "messages"])
def test_copy_as_curl_reproduces_the_answer(page: Any, server: Server, dialect: str) -> None:
    test_id = f"curl-{dialect}"
    text: str
    finish: str | None
    calls: list[Any]
    if dialect == "chat":
        with server.openai(default_headers=scoped(test_id, **{"x-emulator-scenario": "text-then-call"})) as sdk:
            asked: list[Any] = [{"role": "user", "content": "It's 'raining' in Oslo?"}]
            with sdk.chat.completions.stream(model="m", messages=asked, tools=WEATHER) as stream:
                final = stream.get_final_completion()
        message = final.choices[0].message
        text, finish = message.content or "", final.choices[0].finish_reason
        calls = [(c.function.name, json.loads(c.function.arguments)) for c in message.tool_calls or ()]
    elif dialect == "responses":  # Codex's dialect, streamed
        weather: list[Any] = [{"type": "function", "name": "get_weather", "strict": False, "parameters": {}}]
        with (
            server.openai(default_headers=scoped(test_id, **{"x-emulator-scenario": "two-calls"})) as sdk,
            sdk.responses.stream(model="gpt-5", input="Weather in two cities?", tools=weather) as stream,
        ):
            response = stream.get_final_response()
        text, details = response.output_text, response.incomplete_details
        finish = details.reason if details else response.status
        calls = [(i.name, json.loads(i.arguments)) for i in response.output if i.type == "function_call"]
    else:
        tools: list[Any] = [{"name": "get_weather", "input_schema": {"type": "object", "properties": {}}}]
        with server.anthropic(default_headers=scoped(test_id)) as claude:
            reply = claude.messages.create(
                model="claude-sonnet-4-6", max_tokens=60, tools=tools,
                messages=[{"role": "user", "content": "What's the weather in Oslo? Use the tool."}],
            )  # fmt: skip
        text = "".join(b.text for b in reply.content if b.type == "text")
        calls, finish = [(b.name, b.input) for b in reply.content if b.type == "tool_use"], reply.stop_reason
    assert calls, "the answer calls a tool"
    entry_id = entries(server, test_id)[0]["id"]
    page.goto(f"{server.base_url}/_emulator/#/requests/{entry_id}")
    command = page.locator("#curl").text_content()
    assert "$API_KEY" in command and "sk-test" not in command
    ran = subprocess.run(
        ["bash", "-c", command], capture_output=True, timeout=30, env=os.environ | {"API_KEY": "sk-other"}
    )
    assert ran.returncode == 0, ran.stderr
    if dialect != "messages":
        got = assembly.assemble({"events": list(delivery.events([(0.0, ran.stdout)]))})
    else:
        got = assembly.assemble({"body": json.loads(ran.stdout)})
    assert got is not None and got["text"] == text and got["finish_reason"] == finish
    assert [(c["name"], c["arguments"]) for c in got["tool_calls"]] == calls


def test_the_screenshot_script_retakes_the_picture(tmp_path: Path) -> None:
    out = tmp_path / "inspector.png"
    script = REPO / "scripts" / "inspector_screenshot.py"
    done = subprocess.run([sys.executable, str(script), "--out", str(out)], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    head = out.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n" and int.from_bytes(head[16:20], "big") == 1500


def test_the_pages_reads_work_across_workers_sharing_state(redis_server: str, tmp_path: Path) -> None:
    command = [sys.executable, "-m", "emulator", "serve", "--port", "0", "--workers", "2", "--no-access-log"]
    process, port = launch([*command, "--state", f"{redis_server}?prefix=inspector"], cwd=tmp_path)
    try:
        read_until(process, "workers: 2, sharing state in redis://127.0.0.1:")
        server = Server(f"http://127.0.0.1:{port}", "127.0.0.1", port)
        with server.openai(default_headers=scoped("shared"), max_retries=1) as sdk:
            sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "Count the herons"}])
            faulted = sdk.with_options(default_headers=scoped("shared", **{"x-emulator-fault": "status=503"}))
            with pytest.raises(Exception, match="503"):
                faulted.chat.completions.create(model="m", messages=[{"role": "user", "content": "Count the egrets"}])
        for _ in range(2):  # each worker answers from the one journal, whichever reads it
            path = "/_emulator/requests?test_id=shared&q=egrets&preview=true&bodies=false"
            status, found = call(port, "GET", path)
            assert status == 200 and [r["preview"]["prompt"] for r in found["requests"]] == ["Count the egrets"] * 2
            status, told = call(port, "GET", "/_emulator/conversations?test_id=shared")
            assert [len(t["requests"]) for c in told["conversations"] for t in c["turns"]] == [2]  # the retried 503
        status, read = call(port, "GET", f"/_emulator/requests/{found['requests'][0]['id']}?transcript=true")
        assert read["transcript"]["answer"]["error"]["message"]
    finally:
        process.send_signal(signal.SIGTERM)
        out, _ = process.communicate(timeout=60)
    assert "Traceback" not in out, out
