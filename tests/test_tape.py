"""Several recorders on one cassette (`recordings.Tape`), each in its own process: nothing any of them
recorded is lost, and a re-recording replaces only the interaction it re-recorded."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from emulator import recordings
from emulator.recordings import locking

# A recorder in a process of its own: opens the tape, says so, then runs one command a line from stdin
# (`add|QUESTION|ANSWER` appends, `redo|QUESTION|ANSWER` re-records as --mode all does), answering each with
# the source of what it saved; `burst|N|TAG` appends N and re-records a seed after every third, at once.
WORKER = """
import json, sys
from pathlib import Path
from emulator.recordings import Tape

def item(text, answer):
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": text}]})
    response = {"status": {"code": 200, "message": "OK"}, "headers": {"content-type": ["application/json"]},
                "body": {"string": json.dumps({"answer": answer})}}
    return ("POST", "http://up/v1/chat/completions", body, {}, response, {"headers_after": 0.01, "event_gaps": []})

tape = Tape(Path(sys.argv[1]))
print("opened", tape.loaded, flush=True)
for line in sys.stdin:
    verb, *rest = line.strip().split("|")
    if verb == "burst":
        count, tag = int(rest[0]), rest[1]
        for i in range(count):
            tape.add(*item(f"{tag} {i}", tag))
            if i % 3 == 0:
                tape.add(*item(f"seed {i // 3 % 10}", tag), replace=True)
        print("done", flush=True)
    else:
        print(tape.add(*item(rest[0], rest[1]), replace=verb == "redo").source, flush=True)
"""


class Worker:
    def __init__(self, cassette: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", WORKER, str(cassette)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self.opened = self.read()

    def read(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()

    def ask(self, command: str) -> str:
        self.send(command)
        return self.read()

    def close(self) -> None:
        self.process.communicate(timeout=60)  # closes its stdin, reads to the end of its stdout
        assert self.process.returncode == 0


def seeded(cassette: Path, count: int = 10) -> None:
    tape = recordings.Tape(cassette)
    for i in range(count):
        tape.add(*interaction(f"seed {i}", "original"))


def interaction(text: str, answer: str) -> tuple[Any, ...]:
    body = json.dumps({"model": "m", "messages": [{"role": "user", "content": text}]})
    response = {"status": {"code": 200, "message": "OK"}, "headers": {"content-type": ["application/json"]}}
    response["body"] = {"string": json.dumps({"answer": answer})}
    return ("POST", "http://up/v1/chat/completions", body, {}, response, {"headers_after": 0.01, "event_gaps": []})


def on_disk(cassette: Path) -> list[tuple[str, str]]:
    """Each interaction in the file: its question and its answer."""
    return [
        (json.loads(r.request)["messages"][0]["content"], json.loads(r.body)["answer"])
        for r in recordings.read(cassette)
    ]


def test_a_re_recording_keeps_what_another_recorder_appended_meanwhile(tmp_path: Path) -> None:
    """Two `emulator record --mode all` on one file: A appended, then B re-recorded one interaction it had
    loaded and wrote the whole file from its copy: A's interaction was gone (10 on disk instead of 11)."""
    cassette = tmp_path / "same.yaml"
    seeded(cassette)
    a, b = Worker(cassette), Worker(cassette)
    try:
        assert a.opened == b.opened == "opened 10"
        assert a.ask("add|new from a|a") == "same.yaml#10"
        assert b.ask("redo|seed 3|b") == "same.yaml#10"  # the 11th, once its old one is out
        assert a.ask("add|more from a|a") == "same.yaml#11"  # A counts what B's rewrite left
    finally:
        a.close()
        b.close()
    held = on_disk(cassette)
    assert len(held) == 12
    assert ("new from a", "a") in held and ("more from a", "a") in held
    assert ("seed 3", "b") in held and ("seed 3", "original") not in held
    assert [q for q, answer in held if answer == "original"] == [f"seed {i}" for i in range(10) if i != 3]


def test_two_recorders_hammering_one_cassette_lose_nothing(tmp_path: Path) -> None:
    cassette = tmp_path / "hammered.yaml"
    seeded(cassette)
    workers = [Worker(cassette), Worker(cassette)]
    try:
        for worker, tag in zip(workers, ("a", "b"), strict=True):
            worker.send(f"burst|60|{tag}")
        assert [w.read() for w in workers] == ["done", "done"]
    finally:
        for worker in workers:
            worker.close()
    held = on_disk(cassette)
    for tag in ("a", "b"):  # every interaction each recorded is there, once
        mine = sorted(q for q, answer in held if answer == tag)
        assert mine == sorted([f"{tag} {i}" for i in range(60)] + [f"seed {i % 10}" for i in range(20)])
    # Each seed was re-recorded by both: its original gave way to the first, and the second was added beside
    # it (its own copy of the original was gone), never written over what the other recorded.
    assert [q for q, answer in held if answer == "original"] == []
    assert len(held) == 2 * (60 + 20)
    assert not locking.sidecar(cassette).exists()  # removed by its last holder: nothing left beside the cassette


def test_the_lock_excludes_every_other_holder_and_leaves_no_file(tmp_path: Path) -> None:
    """Its holder removes the lock file before letting go; one that locked the removed file tries again (per-test
    recording in pytest left a `.lock` beside every cassette)."""
    cassette, count = tmp_path / "counted.yaml", tmp_path / "count"
    count.write_text("0")

    def add(times: int) -> None:
        for _ in range(times):
            with locking.locked(cassette):
                now = int(count.read_text())
                time.sleep(0)  # let another thread try its luck in the middle
                count.write_text(str(now + 1))

    threads = [threading.Thread(target=add, args=(150,)) for _ in range(6)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert count.read_text() == "900"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["count"]


def test_an_append_after_a_recorder_killed_mid_write_keeps_the_file_readable(tmp_path: Path) -> None:
    cassette = tmp_path / "cut.yaml"
    seeded(cassette, 3)
    tape = recordings.Tape(cassette)
    whole = cassette.read_text()
    with cassette.open("a") as f:  # another recorder, killed halfway through its item
        f.write(whole[whole.index("\n- ") + 1 :][:90])
    tape.add(*interaction("after the cut", "mine"))
    assert on_disk(cassette) == [*((f"seed {i}", "original") for i in range(3)), ("after the cut", "mine")]


def test_a_cassette_where_no_lock_file_can_be_made_is_opened_for_replay_only(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A cassette in a read-only checkout: a recorder that replays it takes no lock, one that writes must."""
    seeded(tmp_path / "held.yaml", 2)
    monkeypatch.setattr(locking, "sidecar", lambda cassette: Path("/proc/no-such-folder/held.yaml.lock"))
    tape = recordings.Tape(tmp_path / "held.yaml")
    assert tape.loaded == 2
    with pytest.raises(OSError):
        tape.add(*interaction("new", "refused"))
    assert len(on_disk(tmp_path / "held.yaml")) == 2
