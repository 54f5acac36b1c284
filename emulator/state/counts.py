"""Counts requests share: the calls a `replies` scenario had, the attempts at a request (for chaos, and the request
id of a client that does not count its retries), and the numbers of response ids in a sequence."""

from __future__ import annotations

from emulator.core.recent import Recent
from emulator.state.values import LAST, CallKey


class Counts:
    """The store's interface; `LocalCounts` in this process, `redis.counters.RedisCounts` in Redis."""

    async def next_call(self, key: CallKey) -> int:
        """How many calls a `replies` scenario had from this test id and key before this one."""
        raise NotImplementedError

    async def next_attempt(self, request: tuple[str, str, str]) -> int:
        """This attempt's number, from 0, at a request (test id, key, conversation)."""
        raise NotImplementedError

    async def issue(self, sequence: tuple[str, str, str], retry: str | None) -> int:
        """The number of a request's response id in its `sequence` (test id, API key, body digest): the next one, from
        0; or, for a retry, the one it had. `retry` names which: `LAST` (the SDK counted a retry: the number issued
        last), an idempotency key (the number issued to that key), or None (no retry)."""
        raise NotImplementedError

    async def reset(self, test_id: str | None) -> None:
        """Forget the counts of one test, or all; the attempts, which no test id scopes, all of them."""
        raise NotImplementedError


class LocalCounts(Counts):
    """The counts in this process, each bounded however many clients come (`capacity` keys)."""

    def __init__(self, capacity: int) -> None:
        self.calls: Recent[CallKey, int] = Recent(capacity)
        self.attempts: Recent[tuple[str, str, str], int] = Recent(capacity)
        self.issued: Recent[tuple[str, ...], int] = Recent(capacity)

    async def next_call(self, key: CallKey) -> int:
        return self.calls.count(key)

    async def next_attempt(self, request: tuple[str, str, str]) -> int:
        return self.attempts.count(request)

    async def issue(self, sequence: tuple[str, str, str], retry: str | None) -> int:
        if retry is not None and (held := self.issued.get((*sequence, retry))) is not None:
            return held
        number = self.issued.count(sequence)
        for slot in [LAST] if retry is None or retry == LAST else [LAST, retry]:
            self.issued.pop((*sequence, slot))
            self.issued.use((*sequence, slot), number)
        return number

    async def reset(self, test_id: str | None) -> None:
        self.calls.forget(lambda key: test_id is None or key[0] == test_id)
        self.attempts.clear()
        self.issued.forget(lambda key: test_id is None or key[0] == test_id)
