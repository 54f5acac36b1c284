"""`--watch`: a scenario file edited, broken or removed while the server runs."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest

from emulator import watch
from emulator.app import Settings, create_app
from tests.conftest import Server, serve_app


def scenario(text: str) -> str:
    return f"scenarios: [{{name: watched, match: {{last_user: ping}}, reply: {{text: {text}}}}}]\n"


def answered(server: Server) -> str:
    with server.openai() as client:
        raw = client.chat.completions.with_raw_response.create(
            model="m", messages=[{"role": "user", "content": "ping"}]
        )
    return f"{raw.headers['x-emulator-source']}: {raw.parse().choices[0].message.content}"


def eventually(check: Callable[[], bool], seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def test_a_watched_file_takes_effect_keeps_its_last_good_version_and_goes(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "a.yaml").write_text(scenario("first"))
    app = create_app(Settings(scenarios=(folder,)))
    stop = watch.start(app.state.emulator, debounce_ms=50)
    running = serve_app(app)
    server = next(running)
    try:
        assert answered(server) == "watched: first"
        time.sleep(0.3)  # the watcher is set up
        (folder / "a.yaml").write_text(scenario("second"))
        assert eventually(lambda: answered(server) == "watched: second")
        with caplog.at_level("WARNING", logger="emulator.watch"):
            (folder / "a.yaml").write_text(scenario("third") + "  - {name: broken}\n")
            assert eventually(lambda: "kept the last good version" in caplog.text)
        assert answered(server) == "watched: second"  # the broken file's last good version serves
        (folder / "b.yaml").write_text(scenario("from b").replace("watched", "other").replace("ping", "pong"))
        (folder / "a.yaml").unlink()
        assert eventually(lambda: answered(server).startswith("default"))
        assert caplog.text.count("kept the last good version") == 1  # each error logged once
    finally:
        stop.set()
        next(running, None)
