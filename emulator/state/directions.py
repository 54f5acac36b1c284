"""What tests set for their own requests at run time (`POST /_emulator/faults`): a fault and how many requests it
strikes, pacing, a scenario by name, leniency; applied to a request as the headers they stand for."""

from __future__ import annotations

from collections.abc import Mapping

from emulator import scenarios
from emulator.rules.faults import FAULT_HEADER, TIMING_HEADER
from emulator.rules.validation import LENIENT_HEADER
from emulator.state.values import Directions


class Directed:
    """The store's interface, by test id ("" for everyone); `LocalDirected` in this process, `RedisDirected` in
    Redis."""

    @property
    def active(self) -> bool:
        """Whether a request must look its test's directions up: else none were set."""
        raise NotImplementedError

    async def direct(self, test_id: str, directions: Directions) -> None:
        """Set what `test_id`'s requests ("" for everyone's) get unless they say otherwise."""
        raise NotImplementedError

    async def undirect(self, test_id: str) -> bool:
        """Forget what a test set for its requests; whether it had set anything."""
        raise NotImplementedError

    async def of(self, test_id: str) -> Directions | None:
        """What a test set for its requests, or else what was set for everyone."""
        raise NotImplementedError

    async def look_up(self, test_id: str, sent: Mapping[str, str]) -> dict[str, str] | None:
        """`headers_for`, or None when a request that began without them may go on as it is: its test (and
        everyone) has no directions, and nothing else it was answered from changed (in Redis: the posted
        scenarios)."""
        raise NotImplementedError

    async def headers_for(self, test_id: str, sent: Mapping[str, str]) -> dict[str, str]:
        """The headers a request of `test_id` gets from its test's directions, beside those it `sent` (which
        win); a fault given `times` strikes that many requests, counted here."""
        raise NotImplementedError

    async def reset(self, test_id: str | None) -> None:
        raise NotImplementedError


def added(directions: Directions, struck: bool, sent: Mapping[str, str]) -> dict[str, str]:
    """The headers `directions` add to those `sent`; the fault's when it `struck`."""
    found = {FAULT_HEADER: directions.spec} if struck and directions.spec else {}
    if directions.timing and TIMING_HEADER not in sent:
        found[TIMING_HEADER] = directions.timing
    if directions.scenario and scenarios.SCENARIO_HEADER not in sent:
        found[scenarios.SCENARIO_HEADER] = directions.scenario
    if directions.lenient:
        found[LENIENT_HEADER] = "1"
    return found


class LocalDirected(Directed):
    def __init__(self) -> None:
        self.held: dict[str, Directions] = {}

    @property
    def active(self) -> bool:
        return bool(self.held)

    async def direct(self, test_id: str, directions: Directions) -> None:
        self.held[test_id] = directions

    async def undirect(self, test_id: str) -> bool:
        return self.held.pop(test_id, None) is not None

    async def of(self, test_id: str) -> Directions | None:
        return self.held.get(test_id) or self.held.get("")

    async def look_up(self, test_id: str, sent: Mapping[str, str]) -> dict[str, str] | None:
        return None if await self.of(test_id) is None else await self.headers_for(test_id, sent)

    async def headers_for(self, test_id: str, sent: Mapping[str, str]) -> dict[str, str]:
        directions = await self.of(test_id)
        if directions is None:
            return {}
        struck = bool(directions.spec) and FAULT_HEADER not in sent and directions.times != 0
        if struck and directions.times is not None:
            directions.times -= 1
        return added(directions, struck, sent)

    async def reset(self, test_id: str | None) -> None:
        if test_id is None:
            self.held.clear()
        else:
            self.held.pop(test_id, None)
