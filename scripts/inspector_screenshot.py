"""Retake `docs/inspector.png`: an emulator in this process, a short run of traffic through the official SDKs (a
streamed answer, an agent's tool loop, a retried 503 and a 429 the client gave up on), and the inspector in
Debian's headless chromium with the streamed answer opened beside the list.

    python scripts/inspector_screenshot.py [--out docs/inspector.png]

Needs the test extras (the SDKs, Playwright) and `.ci/deps` (chromium). Everything runs on loopback.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import shutil
import sys
import urllib.request
from pathlib import Path
from typing import Any

import anthropic
import openai

from emulator.http.app import Settings, create_app
from emulator.http.background import Background

REPO = Path(__file__).resolve().parent.parent
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# No sandbox (root in CI), no GPU, and no background connections, which a closed network refuses.
FLAGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
         "--disable-component-update", "--disable-sync"]  # fmt: skip
WEATHER: list[Any] = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]


def post(url: str, body: object, test_id: str) -> None:
    headers = {"content-type": "application/json", "x-emulator-test-id": test_id}
    urllib.request.urlopen(urllib.request.Request(url, json.dumps(body).encode(), headers), timeout=10).read()


def traffic(base_url: str) -> None:
    """The run the screenshot shows."""
    checkout = {"x-emulator-test-id": "checkout"}
    with openai.OpenAI(base_url=f"{base_url}/v1", api_key="sk-demo", max_retries=0, default_headers=checkout) as sdk:
        messages: list[Any] = [{"role": "user", "content": "What is the weather in Paris today?"}]
        for _ in range(2):  # the agent loop: a tool call, its result, the answer
            reply = sdk.chat.completions.create(model="demo-agent", messages=messages, tools=WEATHER)
            message = reply.choices[0].message
            if not message.tool_calls:
                break
            messages += [message.model_dump(exclude_none=True)]
            messages += [{"role": "tool", "tool_call_id": c.id, "content": '{"celsius": 18, "sky": "sunny"}'}
                         for c in message.tool_calls]  # fmt: skip
        post(f"{base_url}/_emulator/faults", {"spec": "status=503", "times": 1}, "checkout")
        retrying = sdk.with_options(max_retries=2)  # shares the client's connections: not closed on its own
        retrying.chat.completions.create(model="m", messages=[{"role": "user", "content": "Summarise my refunds"}])
        post(f"{base_url}/_emulator/faults", {"spec": "status=429; retry_after=1", "times": 1}, "checkout")
        with contextlib.suppress(openai.RateLimitError):  # the client gives up: the report's finding
            sdk.chat.completions.create(model="m", messages=[{"role": "user", "content": "And my open invoices?"}])
    with anthropic.Anthropic(base_url=base_url, api_key="sk-demo", default_headers={"x-emulator-test-id": "docs"}) as a:
        question: list[Any] = [{"role": "user", "content": "How does a circuit breaker protect a service?"}]
        with a.messages.stream(model="claude-sonnet-4-6", max_tokens=120, messages=question) as stream:
            stream.get_final_message()


def shoot(url: str, out: Path) -> None:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, headless=True, args=FLAGS)
        try:
            page = browser.new_page(viewport={"width": 1500, "height": 860}, device_scale_factor=1)
            page.goto(f"{url}/_emulator/")
            row = page.locator("tr.entry", has_text="circuit breaker protect")
            row.wait_for(timeout=15_000)
            row.click()
            page.locator("#entry .said").wait_for(timeout=15_000)
            page.wait_for_timeout(300)
            page.screenshot(path=str(out))
        finally:
            browser.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=REPO / "docs" / "inspector.png")
    args = parser.parse_args(argv)
    if not Path(CHROMIUM).exists():
        print("Debian's chromium is not installed: run .ci/deps", file=sys.stderr)
        return 1
    with Background(create_app(Settings(scenarios=(REPO / "scenarios",), seed=0))) as running:
        traffic(running.url)
        shoot(running.url, args.out)
    print(args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
