"""The state's values: what `emulator serve` configures (`Settings`), what a test sets for its own requests
(`Directions`), what a request's shape takes from the stores at once (`Before`), and the keys stores count by."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from emulator import journal
from emulator.core import recent
from emulator.core.conversation import Fault, Timing
from emulator.core.wire import Pairs
from emulator.rules import limits, profiles
from emulator.rules.limits import DEFAULT as LIMITS
from emulator.rules.limits import Limits
from emulator.state.kept import DEFAULT as KEPT
from emulator.state.kept import Bounds

CallKey = tuple[str, str, str]  # what a `replies` scenario counts calls by: (test id, scenario, API key)
LAST = "\0last"  # `Counts.issue`'s retry that takes the number issued last (a retry the SDK counted)


@dataclass(frozen=True)
class Settings:
    """What `emulator serve` configures; every field has a default that suits tests."""

    scenarios: Sequence[Path] = field(default_factory=tuple)
    # files in those folders that are not scenario files, left out (`./scenarios` read by default may hold others)
    foreign: frozenset[Path] = frozenset()
    seed: int = 0
    frozen_time: int | None = None  # `created` for every response; None follows the real clock
    max_body_bytes: int = 32 * 1024 * 1024
    fault: Fault | None = None  # for every request (`--fault`); a scenario's or a header's wins
    timing: Timing | None = None  # for every request (`--timing`)
    limits: Limits = LIMITS  # per API key; by default they report and never refuse
    profile: str = profiles.DEFAULT  # the upstream plain /v1 stands in for; /NAME/v1 picks another
    recordings: Sequence[Path] = field(default_factory=tuple)  # cassettes (files or directories) to replay
    replay_speed: float = 1.0  # scales the recorded gaps: 0 replays as fast as possible
    strict: bool = False  # replay only: a request no recording matches is an error naming the nearest one
    models: Sequence[str] = ()  # more models the public profiles know (`--model`), beside their catalogs
    lenient: bool = False  # the public profiles accept unknown models and fields, and journal what they let by
    max_clients: int = recent.CAPACITY  # (test id, key, conversation)s whose counts are kept; least recent go
    journal_size: int = journal.CAPACITY  # entries the journal keeps; the oldest go first
    journal_bytes: int = journal.MAX_BYTES  # bytes of bodies the journal keeps; the oldest go first
    kept: Bounds = KEPT  # stored responses and threads: how many, how many bytes, how long
    scrub: Sequence[tuple[str, str]] = ()  # (pattern, replacement) for request bodies, before matching recordings
    host: str = "127.0.0.1"  # the address bound: beyond loopback, the admin API needs `admin_token`
    cors_origins: Sequence[str] = ()  # web origins the API routes answer besides loopback ones (`--cors-origin`)
    admin_token: str | None = None
    state: str | None = None  # where what requests share is kept: None in this process, else a redis:// URL
    # An OpenAI- or Anthropic-compatible server answering what no scenario or recording does, instead of the default
    # (`--fallback-upstream`, `http/fallback.py`): its root URL, the dialects it speaks (`profiles.CHAT`, …), the
    # operator's environment variable holding its key (never a client's), and a cassette its answers go into.
    fallback_upstream: str | None = None
    fallback_dialects: Sequence[str] = (profiles.CHAT,)
    fallback_key_env: str = "EMULATOR_FALLBACK_API_KEY"
    fallback_record: Path | None = None
    fallback_timeout: float = 300.0  # seconds the upstream has to answer in whole


@dataclass
class Directions:
    """What a test set for its own requests (`POST /_emulator/faults`, these its fields), each in its header's
    grammar: a fault's spec and how many more requests it strikes (None: all), pacing, a scenario by name."""

    spec: str | None = None  # the fault
    times: int | None = None
    timing: str | None = None
    scenario: str | None = None
    lenient: bool = False  # the public profiles accept unknown models and fields (`x-emulator-lenient`)


Look = tuple[str, Mapping[str, str]]  # a request's test id and headers, for its test's directions to be looked up


class Before(NamedTuple):
    """`Stores.before_shape`: the prompt cache's tokens, the attempt's number, the rate limits' verdict (where
    enforced) and headers; or, when it was asked to look up the test's directions and found any (or posted
    scenarios changed), only the headers they add (`again`): nothing was taken, and the request goes round again."""

    cached: int
    attempt: int
    verdict: limits.Verdict | None = None
    rates: Pairs = ()
    again: dict[str, str] | None = None
