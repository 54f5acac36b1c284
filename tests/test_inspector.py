"""The inspector page (`GET /_emulator/`) in a real browser: headless Chromium from Debian's packages, driven
by Playwright (which cannot download its own browsers here). `.ci/deps` installs it."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from emulator.app import Settings
from tests.conftest import Server

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# Chromium as the machine allows it: no sandbox (root in CI), no GPU, and no background connections, which a
# closed network refuses many at a time.
FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

pytestmark = pytest.mark.skipif(
    not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed: run .ci/deps, as the test command does"
)


@pytest.fixture
def page() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            yield browser.new_page(viewport={"width": 1400, "height": 900})
        finally:
            browser.close()


def test_a_request_appears_on_the_inspector_and_opens_to_its_bodies(
    page: Any, make_server: Callable[[Settings], Server]
) -> None:
    server = make_server(Settings())
    page.goto(f"{server.base_url}/_emulator/")
    page.get_by_text("No requests yet").wait_for()
    prompt = "Show me <img src=x onerror=document.title='owned'> as text"
    with server.openai(default_headers={"x-emulator-test-id": "in-the-browser"}) as sdk:
        reply = sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": prompt}])
    row = page.locator("tr.entry", has_text="in-the-browser")
    row.wait_for(timeout=15_000)
    assert "chat_completions" in row.inner_text() and "default" in row.inner_text()
    assert "200" in row.locator("td.status").inner_text()
    row.click()
    detail = page.locator("tr.detail")
    detail.get_by_text("answer 200").wait_for(timeout=15_000)
    shown = detail.inner_text()
    assert prompt in shown  # the request body, as text: its markup did not run
    assert (reply.choices[0].message.content or "")[:40] in shown  # the answer body
    assert page.title() == "emulator: requests"
    page.fill("#test_id", "another-test")  # the filter hides it
    page.get_by_text("No requests yet").wait_for()
    page.fill("#test_id", "in-the-browser")
    row.wait_for()


def test_a_stream_shows_its_events_with_their_timing(page: Any, make_server: Callable[[Settings], Server]) -> None:
    server = make_server(Settings())
    page.goto(f"{server.base_url}/_emulator/")
    with (
        server.anthropic() as sdk,
        sdk.messages.stream(
            model="claude-sonnet-4-6", max_tokens=20, messages=[{"role": "user", "content": "stream to the page"}]
        ) as stream,
    ):
        stream.get_final_message()
    row = page.locator("tr.entry", has_text="messages")
    row.wait_for(timeout=15_000)
    row.click()
    detail = page.locator("tr.detail")
    detail.get_by_text("events, first token").wait_for(timeout=15_000)
    text = detail.inner_text()
    assert "message_start" in text and "message_stop" in text and " ms  content_block_delta" in text
