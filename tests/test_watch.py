"""`--watch`: scenario files and cassettes edited, saved the way editors save, broken, removed, and their
folder deleted and made again, while the server runs."""

from __future__ import annotations

import logging
import queue
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from emulator import recordings
from emulator.http import watch
from emulator.http.app import Settings, create_app
from tests.conftest import Server, serve_app

Watched = tuple[Server, pytest.LogCaptureFixture]


def scenario(text: str, name: str = "watched", question: str = "ping") -> str:
    return f"scenarios: [{{name: {name}, match: {{last_user: {question}}}, reply: {{text: {text}}}}}]\n"


def answered(server: Server, question: str = "ping") -> str:
    with server.openai() as client:
        raw = client.chat.completions.with_raw_response.create(
            model="m", messages=[{"role": "user", "content": question}]
        )
    return f"{raw.headers['x-emulator-source']}: {raw.parse().choices[0].message.content}"


def eventually(check: Callable[[], bool], seconds: float = 15) -> bool:
    deadline = time.monotonic() + seconds
    while not check():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


@pytest.fixture
def watching(caplog: pytest.LogCaptureFixture) -> Iterator[Callable[[Settings], Server]]:
    """A server over `settings`, watched; its log lines captured from the start."""
    stops, running = [], []

    def start(settings: Settings) -> Server:
        app = create_app(settings)
        stops.append(watch.start(app.state.emulator, debounce_ms=50))
        running.append(serve_app(app))
        time.sleep(0.3)  # the watcher is set up
        return next(running[-1])

    with caplog.at_level(logging.INFO, logger="emulator.http.watch"):
        yield start
    for stop in stops:
        stop.set()
    for server in running:
        next(server, None)


def lines(caplog: pytest.LogCaptureFixture, start: int = 0) -> list[str]:
    return [r.getMessage() for r in caplog.records[start:] if r.name == "emulator.http.watch"]


def test_a_watched_file_saved_by_sed_i_is_seen_every_time_with_its_line(
    tmp_path: Path, watching: Callable[[Settings], Server], caplog: pytest.LogCaptureFixture
) -> None:
    """The README's `emulator serve --scenarios scenarios/refunds.yaml --watch`: the first `sed -i` was seen, the
    second never (it writes a new file and renames it over the old; the watch followed the old one), and a
    successful reload logged nothing."""
    file = tmp_path / "refunds.yaml"
    file.write_text(scenario("first"))
    server = watching(Settings(scenarios=(file,)))
    for word in ("second", "third", "fourth"):
        before = len(caplog.records)
        subprocess.run(["sed", "-i", f"s/text: [a-z]*/text: {word}/", str(file)], check=True)
        started = time.monotonic()
        assert eventually(lambda w=word: answered(server) == f"watched: {w}", seconds=10)  # type: ignore[misc]
        assert time.monotonic() - started < 2
        assert eventually(lambda b=before: bool(lines(caplog, b)))  # type: ignore[misc]
        (line,) = lines(caplog, before)
        assert line == f"reloaded after changes to {file}: serving 1 scenario from {file}"
    before = len(caplog.records)
    file.write_text(scenario("typo").replace("reply:", "repyl:"))  # a typo: refused, named, the last good kept
    assert eventually(lambda: any(line.startswith("reloaded") for line in lines(caplog, before)))
    *refused, served = lines(caplog, before)
    assert refused and all(line.startswith(f"refused {file}: scenarios[0]") for line in refused)
    assert any("repyl" in line for line in refused)
    assert served.endswith(f"serving 1 scenario from {file}; 1 file refused, as last good")
    assert answered(server) == "watched: fourth"


def test_emulator_serve_watch_says_each_reload_on_its_stderr(tmp_path: Path) -> None:
    """Run by hand, `emulator serve --watch` reloaded after a `sed -i` and printed nothing: the tests above hear
    the line through pytest's capture, in process. Here the command itself runs, and its stderr is read."""
    file = tmp_path / "refunds.yaml"
    file.write_text(scenario("first"))
    command = [sys.executable, "-m", "emulator", "serve", "--port", "0", "--scenarios", file.name, "--watch"]
    process = subprocess.Popen(
        command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
    )
    assert process.stdout is not None and process.stderr is not None
    heard: queue.Queue[str] = queue.Queue()

    def read() -> None:
        for line in process.stderr or ():
            heard.put(line)

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def next_line(prefix: str) -> str:
        deadline = time.monotonic() + 120  # a give-up bound: a loaded machine starts Python slowly
        while (line := heard.get(timeout=max(deadline - time.monotonic(), 0.1))) and not line.startswith(prefix):
            pass
        return line.rstrip("\n")

    try:
        found = re.search(r"http://127\.0\.0\.1:(\d+)", process.stdout.readline())
        assert found, "no URL in the banner"
        next_line("INFO:     Started server process")
        for word in ("second", "third"):
            subprocess.run(["sed", "-i", f"s/text: [a-z]*/text: {word}/", str(file)], check=True)
            line = next_line("INFO:     reloaded")
            assert line == "INFO:     reloaded after changes to refunds.yaml: serving 1 scenario from refunds.yaml"
            server = Server(f"http://127.0.0.1:{found[1]}", "127.0.0.1", int(found[1]))
            assert answered(server) == f"watched: {word}"
        file.write_text(scenario("typo").replace("reply:", "repyl:"))
        refused = next_line("WARNING:  refused")
        assert refused.startswith("WARNING:  refused refunds.yaml: scenarios[0]") and "repyl" in refused
        served = next_line("INFO:     reloaded")
        assert served.endswith("serving 1 scenario from refunds.yaml; 1 file refused, as last good")
    finally:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=60)
        reader.join(timeout=10)  # at the pipe's end
        process.stdout.close()
        process.stderr.close()
    assert process.returncode == 0


def test_a_watched_folder_deleted_and_made_again_keeps_serving_then_serves_the_new_files(
    tmp_path: Path, watching: Callable[[Settings], Server], caplog: pytest.LogCaptureFixture
) -> None:
    """What `git checkout` or a cache restore does: the server kept running with 0 scenarios and ignored the
    recreated files until restarted, while its log said it "kept the last good version"."""
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "a.yaml").write_text(scenario("first"))
    server = watching(Settings(scenarios=(folder,)))
    served = "watched: first"
    for round_ in ("second", "third"):
        before = len(caplog.records)
        shutil.rmtree(folder)
        assert eventually(lambda b=before: any("gone" in line for line in lines(caplog, b)))  # type: ignore[misc]
        (gone,) = lines(caplog, before)
        assert gone == f"{folder}: gone; still serving the last good set until it is back: 1 scenario from {folder}"
        assert answered(server) == served  # truly still served
        folder.mkdir()
        (folder / "b.yaml").write_text(scenario(round_, name=f"new-{round_}"))
        assert eventually(lambda r=round_: answered(server) == f"new-{r}: {r}", seconds=5)  # type: ignore[misc]
        assert any(line.endswith(f"serving 1 scenario from {folder}") for line in lines(caplog, before))
        served = f"new-{round_}: {round_}"


def test_a_watched_file_whose_folder_goes_and_comes_back_is_followed(
    tmp_path: Path, watching: Callable[[Settings], Server]
) -> None:
    folder = tmp_path / "deep" / "er"
    folder.mkdir(parents=True)
    file = folder / "one.yaml"
    file.write_text(scenario("first"))
    server = watching(Settings(scenarios=(file,)))
    shutil.rmtree(tmp_path / "deep")
    time.sleep(0.5)
    assert answered(server) == "watched: first"
    folder.mkdir(parents=True)  # its parent polled from the nearest folder still there, until it is back
    file.write_text(scenario("again"))
    assert eventually(lambda: answered(server) == "watched: again", seconds=5)
    file.write_text(scenario("then"))  # and watched by notification again
    assert eventually(lambda: answered(server) == "watched: then", seconds=5)


def test_a_watched_folder_takes_effect_keeps_a_broken_files_last_good_version_and_removals(
    tmp_path: Path, watching: Callable[[Settings], Server], caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "scenarios"
    folder.mkdir()
    (folder / "a.yaml").write_text(scenario("first"))
    server = watching(Settings(scenarios=(folder,)))
    assert answered(server) == "watched: first"
    (folder / "a.yaml").write_text(scenario("second"))
    assert eventually(lambda: answered(server) == "watched: second")
    (folder / "a.yaml").write_text(scenario("third") + "  - {name: broken}\n")
    assert eventually(lambda: any(line.startswith(f"refused {folder / 'a.yaml'}") for line in lines(caplog)))
    assert answered(server) == "watched: second"  # the broken file's last good version serves
    (folder / "b.yaml").write_text(scenario("from b", name="other", question="pong"))
    (folder / "a.yaml").unlink()
    assert eventually(lambda: answered(server).startswith("default"))
    assert answered(server, "pong") == "other: from b"
    (folder / "notes.txt").write_text("not YAML: not read, not reloaded")
    (folder / "sub").mkdir()
    (folder / "sub" / "c.yaml").write_text(scenario("deeper"))  # a folder's loader reads no deeper
    time.sleep(0.6)
    assert not any("notes.txt" in line or "sub" in line for line in lines(caplog))


def test_a_watched_cassette_folder_says_how_many_recordings(
    tmp_path: Path, watching: Callable[[Settings], Server], caplog: pytest.LogCaptureFixture
) -> None:
    folder = tmp_path / "recordings"
    folder.mkdir()
    scenarios = tmp_path / "s.yaml"
    scenarios.write_text(scenario("x"))
    watching(Settings(scenarios=(scenarios,), recordings=(folder,)))
    tape = recordings.Tape(folder / "new.yaml")  # as a recorder writes it: appends, then its lock file beside
    tape.add("POST", "http://up/v1/chat/completions", '{"model": "m"}', {}, _answer(), {})
    tape.add("POST", "http://up/v1/chat/completions", '{"model": "n"}', {}, _answer(), {})
    expected = f"serving 1 scenario from {scenarios}, 2 recordings from {folder}"
    assert eventually(lambda: any(line.endswith(expected) for line in lines(caplog)))
    before = len(caplog.records)
    (folder / "new.yaml").write_text("interactions: [{request: {}}]\n")
    assert eventually(lambda: any(line.startswith("reloaded") for line in lines(caplog, before)))
    assert lines(caplog, before)[0].startswith(f"refused {folder / 'new.yaml'}: interactions[0].request.method")
    assert lines(caplog, before)[-1].endswith(f"{expected}; 1 file refused, as last good")


def _answer() -> dict[str, object]:
    return {"status": {"code": 200, "message": "OK"}, "headers": {}, "body": {"string": "{}"}}


def test_each_path_is_watched_from_where_it_lives() -> None:
    here = Path(__file__).parent
    assert watch.spot(here) == watch.Spot(here, recursive=True, polled=False)
    assert watch.spot(here / "test_watch.py") == watch.Spot(here, recursive=False, polled=False)  # never its tree
    assert watch.spot(here / "gone" / "x.yaml") == watch.Spot(here, recursive=False, polled=True)
    assert watch.spot(here / "gone" / "deeper" / "x.yaml") == watch.Spot(here, recursive=False, polled=True)
    file = Path("/srv/s/refunds.yaml")
    assert watch.relevant(file, file) and watch.relevant(Path("/srv/s"), file) and watch.relevant(Path("/srv"), file)
    assert not watch.relevant(Path("/srv/s/.refunds.yaml.swp"), file) and not watch.relevant(Path("/srv/s/x"), file)
    folder = Path("/srv/s")
    assert watch.relevant(Path("/srv/s/a.yml"), folder) and not watch.relevant(Path("/srv/s/a.yaml.lock"), folder)
    assert not watch.relevant(Path("/srv/s/sub/a.yaml"), folder)


def test_a_file_emptied_to_be_written_is_read_once_written_and_one_left_empty_is_read_empty(
    tmp_path: Path, watching: Callable[[Settings], Server], caplog: pytest.LogCaptureFixture
) -> None:
    """`write_text` empties a file and then writes it. On a busy machine a tick fell between the two: the empty
    file, a valid one of no scenarios, was served, then taken as the last good version of the broken write that
    followed ("serving 0 scenarios … 1 file refused, as last good"). Here the gap is held open for half a second,
    longer than two ticks."""
    file = tmp_path / "refunds.yaml"
    file.write_text(scenario("first"))
    server = watching(Settings(scenarios=(file,)))
    before = len(caplog.records)
    with file.open("w") as writing:  # emptied, and not yet written
        time.sleep(0.5)
        writing.write(scenario("typo").replace("reply:", "repyl:"))
    assert eventually(lambda: any(line.startswith("reloaded") for line in lines(caplog, before)))
    time.sleep(0.3)  # no other reload follows
    *refused, served = lines(caplog, before)
    assert refused and all(line.startswith(f"refused {file}") for line in refused), refused
    assert served.endswith(f"serving 1 scenario from {file}; 1 file refused, as last good"), served
    assert answered(server) == "watched: first"
    before = len(caplog.records)
    file.write_text("")  # emptied on purpose: after a second, served as it is
    started = time.monotonic()
    assert eventually(lambda: any(line.startswith("reloaded") for line in lines(caplog, before)))
    assert time.monotonic() - started >= watch.EMPTIED * 0.9
    assert lines(caplog, before)[-1] == f"reloaded after changes to {file}: serving 0 scenarios from {file}"


def test_a_change_made_while_the_server_loads_is_read(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """The window between the load and the watcher's start: a scenario written there (a CI script writes one as
    soon as the port opens) was counted as seen and never loaded. The watcher compares with the files as they
    were before the load (`emulator serve` takes that fingerprint first), so the first tick reads it."""
    file = tmp_path / "late.yaml"
    file.write_text(scenario("before"))
    settings = Settings(scenarios=(file,))
    before = watch.fingerprint([file])
    app = create_app(settings)  # loads "before"
    file.write_text(scenario("written while it loaded") + "\n")  # a change in the window
    with caplog.at_level(logging.INFO, logger="emulator.http.watch"):
        stop = watch.start(app.state.emulator, debounce_ms=50, seen=before)
        try:
            for server in serve_app(app):
                said = lambda running=server: answered(running) == "watched: written while it loaded"  # noqa: E731
                assert eventually(said, seconds=10)
        finally:
            stop.set()
