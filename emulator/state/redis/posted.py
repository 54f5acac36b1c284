"""Posted scenarios in Redis: as they were sent, in a hash, with a version every change bumps; a process that finds
the version moved parses them again (it looks on every request, in the script that takes what its shape needs)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from emulator import scenarios
from emulator.core.sse import encode, loads
from emulator.state.posted import Files, Posted
from emulator.state.redis.link import RedisLink


class RedisPosted(Posted):
    def __init__(self, link: RedisLink, files: Files) -> None:
        super().__init__(files)
        self.link = link
        self.version: bytes | None = None  # of the posted scenarios this process holds
        self._parsed: dict[bytes, tuple[bytes, scenarios.Scenario]] = {}  # field -> (its stamp, the scenario)
        self._at = (link.key("posted"), link.key("posted:version"))

    async def refresh(self) -> None:
        await self.catch_up(await self.link.client().get(self._at[1]) or b"0")

    async def catch_up(self, version: bytes) -> bool:
        """Hold the posted scenarios of `version`, unless they are held already: each parsed again only when it
        changed. Whether they were not."""
        if version == self.version:
            return False
        async with self.link.client().pipeline(transaction=True) as pipe:  # the scenarios and their version, as one
            pipe.get(self._at[1])
            pipe.hgetall(self._at[0])
            current, held = await pipe.execute()  # the version None (none posted yet) as "0"
        parsed, found = {}, []
        for field, value in held.items():
            stamp, _, source = value.partition(b"\n")
            known = self._parsed.get(field)
            if known is None or known[0] != stamp:
                known = (stamp, scenarios.parse(loads(source))[0])
            parsed[field] = known
            found.append((tuple(map(int, stamp.split())), field.decode().partition("\0")[0], known[1]))
        posted: dict[str, dict[str, scenarios.Scenario]] = {}
        for _, test_id, scenario in sorted(found, key=lambda f: f[0]):  # oldest first, as `LocalPosted` keeps them
            posted.setdefault(test_id, {})[scenario.name] = scenario
        self.held, self._parsed, self.books = posted, parsed, {}
        self.version = current or b"0"
        return True

    async def post(self, test_id: str, posted: Sequence[scenarios.Scenario], sources: Sequence[Any] = ()) -> list[str]:
        if len(sources) != len(posted):
            raise ValueError("Redis keeps posted scenarios as sent: give each one's source")
        args = [
            arg for s, source in zip(posted, sources, strict=True) for arg in (f"{test_id}\0{s.name}", encode(source))
        ]
        await self.link.run("post", list(self._at), args)
        await self.refresh()
        return [s.name for s in posted]

    async def unpost(self, test_id: str, name: str) -> bool:
        removed = await self.link.run("unpost", list(self._at), [f"{test_id}\0{name}"])
        await self.refresh()
        return bool(removed)

    async def reset(self, test_id: str | None) -> None:
        client = self.link.client()
        if test_id is None:
            await client.delete(self._at[0])
            await client.incr(self._at[1])
        else:
            held = [f for f in await client.hkeys(self._at[0]) if f.startswith(f"{test_id}\0".encode())]
            if held:
                await self.link.run("unpost", list(self._at), held)
        await self.refresh()
