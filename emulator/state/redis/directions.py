"""The tests' directions in Redis: JSON in a hash by test id; a fault's `times` counted down in the `direct` script,
so that a fault strikes exactly that many requests whichever worker answers them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict
from typing import Any

from emulator.core.sse import encode, loads
from emulator.rules.faults import FAULT_HEADER
from emulator.state.directions import Directed, added
from emulator.state.redis.link import RedisLink
from emulator.state.redis.posted import RedisPosted
from emulator.state.values import Directions


class RedisDirected(Directed):
    """The directions, and on the way the posted scenarios (`posted`) caught up with: the `direct` script answers
    their version with the directions."""

    def __init__(self, link: RedisLink, posted: RedisPosted) -> None:
        self.link, self.posted = link, posted
        self.looked = [link.key("posted:version"), link.key("directions")]

    @property
    def active(self) -> bool:
        """Always: another worker may have been told, so every request looks (`look_up`)."""
        return True

    async def direct(self, test_id: str, directions: Directions) -> None:
        await self.link.client().hset(self.looked[1], test_id, encode(asdict(directions)))

    async def undirect(self, test_id: str) -> bool:
        return bool(await self.link.client().hdel(self.looked[1], test_id))

    async def of(self, test_id: str) -> Directions | None:
        mine, everyone = await self.link.client().hmget(self.looked[1], [test_id, ""])
        held = mine or everyone
        return None if held is None else Directions(**loads(held))

    async def headers_for(self, test_id: str, sent: Mapping[str, str]) -> dict[str, str]:
        """As `LocalDirected.headers_for`, a fault's `times` counted down in Redis; and the posted scenarios are
        brought up to date on the way."""
        return await self.added(await self._direct(test_id, sent), sent)

    async def look_up(self, test_id: str, sent: Mapping[str, str]) -> dict[str, str] | None:
        """None unless the test has directions or the posted scenarios moved on."""
        found = await self._direct(test_id, sent)
        moved = found[0] != self.posted.version
        headers = await self.added(found, sent)
        return headers if found[1] is not None or moved else None

    def _direct(self, test_id: str, sent: Mapping[str, str]) -> Any:
        """The `direct` script's answer (the posted scenarios' version, the directions, whether a fault struck);
        awaited."""
        return self.link.run("direct", self.looked, [test_id, int(FAULT_HEADER in sent)])

    async def added(self, found: Sequence[Any], sent: Mapping[str, str]) -> dict[str, str]:
        """The headers the `direct` script's answer adds to those `sent`; the posted scenarios caught up with."""
        version, held, struck = found
        await self.posted.catch_up(version)
        return {} if held is None else added(Directions(**loads(held)), bool(struck), sent)

    async def reset(self, test_id: str | None) -> None:
        if test_id is None:
            await self.link.client().delete(self.looked[1])
        else:
            await self.link.client().hdel(self.looked[1], test_id)
