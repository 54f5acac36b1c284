"""The client report: from the journal, what the server could see of how a client behaved under the
faults it met. Each finding names the rule, the requests and what happened; no finding, no verdict
against the client.

A retry is the same request again (same body, same key, same test id). The SDKs' own rules
(wire-formats.md §4.3-4.4): 408, 409, 429 and 5xx are retried, other 4xx are not, `x-should-retry`
overrides both, and `retry-after` / `retry-after-ms` say how long to wait first.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from emulator.journal import Entry

RETRYABLE = frozenset({408, 409, 429}) | frozenset(range(500, 600))


def retryable(status: int, should_retry: bool | None) -> bool:
    """Whether a client should retry this status: `x-should-retry` when sent, else the SDKs' rule."""
    return should_retry if should_retry is not None else status in RETRYABLE


MIDSTREAM = frozenset({"stream_error", "truncate", "malformed", "stall", "reset"})
CONNECTION = frozenset({"reset", "empty", "garbage"})
EARLY = 0.05  # seconds of slack: a retry this much before retry-after ran out still counts as on time

RULES = {
    "retried_too_soon": "retried before the retry-after it was given had elapsed",
    "retried_non_retryable": "retried a status that must not be retried",
    "gave_up_on_retryable": "did not retry a failure that should be retried",
    "no_comeback_after_midstream": "never came back after a stream broke mid-way",
    "held_stalled_connection": "held a stalled connection until the server gave up (no read timeout)",
}


@dataclass(frozen=True, slots=True)
class Finding:
    rule: str
    requests: tuple[int, ...]  # journal ids
    detail: str


def grade(entries: Iterable[Entry]) -> dict[str, Any]:
    """The report over journal entries: findings by rule, and how many faulted requests were checked."""
    by_request: dict[tuple[str, str, str], list[Entry]] = defaultdict(list)
    for e in entries:
        if e.request:
            by_request[(e.test_id, e.key, e.request)].append(e)
    findings: list[Finding] = []
    checked = 0
    for attempts in by_request.values():
        attempts.sort(key=lambda e: e.time)
        for i, e in enumerate(attempts):
            if not e.kind:
                continue
            checked += 1
            retry = attempts[i + 1] if i + 1 < len(attempts) else None
            findings += _judge(e, retry)
    return {
        "verdict": "fail" if findings else "pass",
        "faulted_requests": checked,
        "findings": [asdict(f) | {"means": RULES[f.rule]} for f in findings],
    }


def _judge(e: Entry, retry: Entry | None) -> list[Finding]:
    ids = (e.id,) if retry is None else (e.id, retry.id)
    if e.kind == "status" and e.status is not None:
        should = e.retryable
        if retry is None:
            if should:
                return [Finding("gave_up_on_retryable", ids, f"{e.status} was not retried")]
            return []
        if not should:
            return [Finding("retried_non_retryable", ids, f"{e.status} was retried")]
        waited = retry.time - e.time
        if e.retry_after and waited + EARLY < e.retry_after:
            return [
                Finding("retried_too_soon", ids, f"retried after {waited:.2f}s; retry-after said {e.retry_after:g}s")
            ]
        return []
    found = []
    if e.kind == "stall" and e.ended == "server":
        found.append(Finding("held_stalled_connection", ids, "the server closed the stalled stream; the client waited"))
    if retry is None:
        if e.stream and e.kind in MIDSTREAM:
            found.append(Finding("no_comeback_after_midstream", ids, f"the stream broke ({e.fault}); no new request"))
        elif e.kind in CONNECTION:
            found.append(Finding("gave_up_on_retryable", ids, f"a connection failure ({e.kind}) was not retried"))
    return found
