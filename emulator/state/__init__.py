"""The server's state, in one object built from `Settings`: what was loaded (scenarios, recordings, the writer of
default answers) and the stores requests share as they arrive (`Stores`: call counts and chaos attempts, rate-limit
buckets, prompt caches, the journal, what the public APIs keep, the tests' directions, posted scenarios), each
behind its own small interface, in this process or in Redis.

The stores' methods are async: in Redis they wait. Only the answering path's shell awaits them, before and after
the pure stages, which receive plain values.

Layer: above the journal and the sources, below the answering stages that await it. `values` holds the settings
and what the stores hand back; one module a store, its interface and its in-process form (`counts`, `buckets`,
`records`, `kept`, `directions`, `posted`), `stores` the set of them; `metrics` the counters `/metrics` shows;
`redis/` the same stores in Redis.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable, Iterator, Mapping
from pathlib import Path
from typing import Any

from emulator import recordings, scenarios
from emulator.core.conversation import Prompt, Reply
from emulator.default_model.generate import Writer
from emulator.dialects import anthropic_messages, gemini, openai_chat, openai_responses, operations
from emulator.dialects.bedrock import converse, invoke
from emulator.rules import profiles
from emulator.state.posted import Files
from emulator.state.stores import LocalStores, Stores
from emulator.state.values import LAST, Before, CallKey, Directions, Look, Settings

__all__ = ["LAST", "READERS", "Before", "CallKey", "Directions", "Look", "Settings", "State", "Stores"]


class Readers(Mapping[str, recordings.Reader]):
    """Which dialect reads a recording back, by its path from /v1/ on: for replay in another dialect. Google's and
    Bedrock's paths name their model (`/v1beta/models/{model}:generateContent`, Vertex's Claude at
    `…/models/{model}:rawPredict`, `/model/{modelId}/converse`): what reads them puts it into the body first. Each
    operation's dialect is `dialects.operations`'s."""

    FIXED = {"/v1/chat/completions": openai_chat, "/v1/responses": openai_responses, "/v1/messages": anthropic_messages}

    def __getitem__(self, path: str) -> recordings.Reader:
        fixed = self.FIXED.get(path)
        if fixed is not None:
            return fixed
        operation = path.rpartition("/")[2]
        bedrock = operations.BEDROCK.get(operation)
        if path.startswith("/model/") and bedrock is not None:  # Bedrock's `/model/{modelId}/{operation}`
            return _Placed(bedrock, path, invoke.placed if bedrock is invoke else converse.placed)
        model, _, method = path.rpartition("/models/")[2].partition(":")
        google = operations.GOOGLE.get(method)
        # Embeddings answer with vectors, no conversation to replay: not read back.
        if "/models/" not in path or google is None or google.NAME in profiles.VECTORS or model == "count-tokens":
            raise KeyError(path)
        return _Placed(google, path, gemini.placed if google is gemini else profiles.published)

    def __iter__(self) -> Iterator[str]:
        return iter(self.FIXED)

    def __len__(self) -> int:
        return len(self.FIXED)


class _Placed:
    """A dialect that reads a recorded body with what its path says put into it first."""

    def __init__(self, dialect: recordings.Reader, path: str, place: Callable[[str, Any], Any]) -> None:
        self.dialect, self.path, self.place = dialect, path, place

    def parse_request(self, body: Any, headers: Mapping[str, str], fingerprint: str = "", profile: str = "") -> Prompt:
        placed = self.place(self.path, body)
        return self.dialect.parse_request(placed, headers, fingerprint, profile or profiles.DEFAULT)

    def read_response(self, body: bytes, stream: bool) -> Reply:
        return self.dialect.read_response(body, stream)


READERS = Readers()


class State:
    """What was loaded, read and validated once (scenario files, cassettes), and the stores requests share, wired
    together: `stores` makes them (in this process unless told otherwise), and each is an attribute of its own."""

    def __init__(
        self, settings: Settings = Settings(), stores: Callable[[Settings, Files], Stores] = LocalStores
    ) -> None:
        self.settings = settings
        self.book = scenarios.load(settings.scenarios, settings.foreign)
        scrubber = recordings.Scrubber() + settings.scrub
        self.library = recordings.load(settings.recordings, READERS, scrubber) if settings.recordings else None
        self.writer = Writer(settings.seed)
        self.profile = profiles.PROFILES[settings.profile]  # what plain /v1 stands in for
        self.stores = stores(settings, self.files)
        self.in_process = self.stores.in_process
        self.counts = self.stores.counts
        self.buckets = self.stores.buckets
        self.caches = self.stores.caches
        self.journal = self.stores.journal
        self.meter = self.journal.meter  # this process's counters
        self.kept = self.stores.kept
        self.directions = self.stores.directions
        self.posted = self.stores.posted
        # Where work in proportion to a large request runs (its parse, its scenario pick): a worker thread, which
        # the HTTP layer gives (`asyncio.to_thread`); None, in the loop's own turn.
        self.aside: Callable[..., Awaitable[Any]] | None = None
        # What answers in the default's place (`--fallback-upstream`): the HTTP layer gives it (`http/fallback.py`),
        # called with the dialect's name, the prompt, the body as read and the request's headers. None: the default.
        self.fallback: Callable[[str, Prompt, Any, Mapping[str, str]], Awaitable[Reply]] | None = None

    def files(self) -> scenarios.Book:
        """The book of the scenario files in service (`reload` replaces it)."""
        return self.book

    def reload(self) -> list[str]:
        """Read the scenario files and cassettes again (`--watch`): each scenario file that validates replaces
        its last version, one that does not keeps it; cassettes that fail keep the last good library. The
        mistakes, one line each."""
        problems: list[str] = []
        try:
            files = scenarios.yaml_files(self.settings.scenarios)
        except scenarios.ScenarioError as exc:
            files, problems = [p for p in self.settings.scenarios if p.is_file()], [str(exc)]
        files = [file for file in files if file not in self.settings.foreign]
        good = self._good_files()
        for file in files:
            try:
                good[file] = scenarios.load([file]).scenarios
            except scenarios.ScenarioError as exc:
                problems += str(exc).splitlines()
        found = [scenario for file in files for scenario in good.get(file, ())]
        scenarios.unique(found, problems)
        combined = {s.name: s for s in reversed(found)}  # of a name given twice, the first serves
        self.book = scenarios.Book(tuple(s for s in found if combined[s.name] is s))
        if self.settings.recordings:
            try:
                self.library = recordings.load(
                    self.settings.recordings, READERS, self.library.scrubber if self.library else None
                )
            except (OSError, ValueError) as exc:
                problems += str(exc).splitlines()
        self.posted.books.clear()
        return problems

    def _good_files(self) -> dict[Path, tuple[scenarios.Scenario, ...]]:
        """The scenarios in service, by the file they came from (their source names it)."""
        by_file: dict[Path, list[scenarios.Scenario]] = {}
        for scenario in self.book.scenarios:
            by_file.setdefault(Path(scenario.source.rsplit(": scenarios[", 1)[0]), []).append(scenario)
        return {file: tuple(found) for file, found in by_file.items()}

    def book_for(self, test_id: str) -> scenarios.Book:
        """The scenarios a request of `test_id` is answered from: the files' alone until any are posted."""
        return self.posted.book_for(test_id)

    def created(self) -> int:
        """`created` for an answer: the frozen clock, else now."""
        frozen = self.settings.frozen_time
        return frozen if frozen is not None else int(time.time())

    async def reset(self, test_id: str | None = None) -> None:
        """Forget what the stores hold of one test, or everything (see `Stores.reset`)."""
        await self.stores.reset(test_id)

    async def health(self) -> str:
        """ "ok", or (the stores in Redis, failing) "unreachable"."""
        return await self.stores.health()

    async def close(self) -> None:
        """Let go of the stores' connections (in Redis: this process's)."""
        await self.stores.close()
