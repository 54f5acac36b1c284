"""The client report: from the journal, what the server could see of how a client behaved under the
faults it met. Each finding names the rule, the requests and what happened; no finding, no verdict
against the client.

It judges what a client does, whichever layer of it does it: the SDK's own retries, or an application's
retry loop around an SDK built with `max_retries=0` (LangChain.js does that), whose every attempt says
`x-stainless-retry-count: 0`. Requests of one conversation (its key, `identity.py`), API key and test id are
grouped; within a group, attempts chain into one call and its retries:
- an equal `idempotency-key` is the same call, a new one another call (the client said so);
- else a request after a failed attempt is its retry, whatever `x-stainless-retry-count` says: the header
  counts the SDK's own attempts, and an application's loop starts it again at 0 on each of its own;
- else (after an answer) `x-stainless-retry-count` above 0 is a retry of the latest call (the client timed
  out on it), anything else a new call.
(Codex's `x-client-request-id` names its thread, the same on every request of a session: no help here.)

The SDKs' own rules (wire-formats.md §4.3-4.4): 408, 409, 429 and 5xx are retried, other 4xx are not,
`x-should-retry` overrides both, and `retry-after` / `retry-after-ms` say how long to wait first. Google's SDKs
retry 408, 429, 500, 502, 503 and 504 (when retries are on: by default they make one attempt, and a 429 not retried
is a finding), and a `RetryInfo` says how long to wait. A stream that
broke mid-way is not retried by the SDKs: the client comes back with a new call of the same conversation
(streamed or not, as Claude Code falls back), which any later request of the group shows. A call that came
back at least once and then stopped did not give up without retrying, after a status or a broken stream
alike: it ran out of retries (aider and opencode come back five to eight times with backoff, then stop).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable
from dataclasses import asdict, dataclass
from typing import Any

from emulator.journal import Entry

RETRYABLE = frozenset({408, 409, 429}) | frozenset(range(500, 600))
# google-genai's and `@google/genai`'s, when told to retry at all (`retry_options`; reference providers-google.md
# §5.4): these statuses, and no `x-should-retry`.
GOOGLE_RETRYABLE = frozenset({408, 429, 500, 502, 503, 504})


def retryable(status: int, should_retry: bool | None, google: bool = False) -> bool:
    """Whether a client should retry this status: `x-should-retry` when sent, else the SDKs' rule (Google's, for
    Google's clients)."""
    if google:
        return status in GOOGLE_RETRYABLE
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
    """The report over journal entries: findings by rule, how many faulted requests were checked, and each
    call that met a fault with the attempts it made."""
    groups: dict[tuple[str, str, str], list[Entry]] = defaultdict(list)
    for e in entries:
        if e.request:
            groups[(e.test_id, e.key, e.request)].append(e)
    findings: list[Finding] = []
    calls: list[dict[str, Any]] = []
    checked = 0
    for group in groups.values():
        group.sort(key=lambda e: e.time)
        later = {e.id: group[i + 1] if i + 1 < len(group) else None for i, e in enumerate(group)}
        for chain in _calls(group):
            faulted = [e for e in chain if e.kind]
            if not faulted:
                continue
            checked += len(faulted)
            for i, e in enumerate(chain):
                if e.kind:
                    retry = chain[i + 1] if i + 1 < len(chain) else None
                    findings += _judge(e, retry, later[e.id], len(chain))
            last = chain[-1]
            calls.append(
                {
                    "requests": [e.id for e in chain],
                    "attempts": len(chain),
                    "outcome": "stopped" if last.kind or (last.status or 200) >= 400 else "answered",
                }
            )
    return {
        "verdict": "fail" if findings else "pass",
        "faulted_requests": checked,
        "findings": [asdict(f) | {"means": RULES[f.rule]} for f in findings],
        "calls": calls,
    }


def _calls(group: list[Entry]) -> list[list[Entry]]:
    """A group's requests, in time order, chained into calls: each call's first attempt and its retries."""
    calls: list[list[Entry]] = []
    by_key: dict[str, list[Entry]] = {}
    for e in group:
        last = calls[-1] if calls else None
        if e.idempotency:
            call = by_key.get(e.idempotency)
        elif last is not None and (_failed(last[-1]) or (e.attempt or 0) > 0):
            call = last
        else:
            call = None
        if call is None:
            call = []
            calls.append(call)
            if e.idempotency:
                by_key[e.idempotency] = call
        call.append(e)
    return calls


DELIVERED = frozenset({"slice", "drip"})  # faults that cut the answer's bytes differently but deliver all of them


def _failed(e: Entry) -> bool:
    """Whether the client got no answer from this attempt: an error status, none, or a fault that broke it."""
    return (e.kind is not None and e.kind not in DELIVERED) or e.status is None or e.status >= 400


def _judge(e: Entry, retry: Entry | None, later: Entry | None, attempts: int) -> list[Finding]:
    """Findings on a faulted attempt `e`: `retry` is the call's next attempt, `later` the group's next
    request (a new call counts as coming back after a broken stream), `attempts` the call's count (a call
    that came back at least once and then stopped ran out of retries: no finding for stopping)."""
    ids = (e.id,) if retry is None else (e.id, retry.id)
    if e.kind == "status" and e.status is not None:
        should = e.retryable
        if retry is None:
            if should and attempts == 1:
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
    if e.stream and e.kind in MIDSTREAM:
        if later is None and attempts == 1:
            found.append(Finding("no_comeback_after_midstream", ids, f"the stream broke ({e.fault}); no new request"))
    elif e.kind in CONNECTION and retry is None and attempts == 1:
        found.append(Finding("gave_up_on_retryable", ids, f"a connection failure ({e.kind}) was not retried"))
    return found
