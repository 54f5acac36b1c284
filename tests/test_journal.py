"""The journal: bounded in entries and in bytes, whatever clients send."""

from __future__ import annotations

import json
import urllib.request
from typing import Any

from emulator import journal
from emulator.app import Settings
from emulator.journal import Journal, Note


def note(model: str = "m", test_id: str = "") -> Note:
    return Note("POST", "/v1/chat/completions", model, "", False, "default", None, 200, None, test_id)


def test_the_oldest_entries_go_past_the_journal_size() -> None:
    log = Journal(capacity=3)
    for i in range(5):
        log.add(note(f"m{i}"))
    assert [e.model for e in log.entries()] == ["m2", "m3", "m4"]


def test_long_texts_a_client_sent_are_cut_and_marked() -> None:
    """1,000 requests with a 1 MB model name added 959 MB to the journal."""
    log = Journal()
    log.add(note("x" * 1_000_000, test_id="t" * 5000))
    (entry,) = log.entries()
    assert entry.model == "x" * journal.LONG + f"…[{1_000_000 - journal.LONG} more]"
    assert entry.test_id.startswith("t" * journal.LONG) and len(entry.test_id) < journal.LONG + 20


def test_a_megabyte_model_name_is_journalled_cut(make_server: Any) -> None:
    server = make_server(Settings(journal_size=2))
    body = json.dumps({"model": "m" * 1_000_000, "messages": [{"role": "user", "content": "hi"}]}).encode()
    for _ in range(3):
        request = urllib.request.Request(
            f"{server.base_url}/v1/chat/completions",
            data=body,
            headers={"content-type": "application/json", "authorization": "Bearer sk-test"},
        )
        with urllib.request.urlopen(request, timeout=10) as response:
            assert response.status == 200
    with urllib.request.urlopen(f"{server.base_url}/_emulator/requests", timeout=10) as response:
        listed = json.load(response)
    entries = listed if isinstance(listed, list) else listed["requests"]
    assert len(entries) == 2
    assert all(len(e["model"]) < journal.LONG + 20 for e in entries)
