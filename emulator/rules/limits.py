"""Rate limits: a token-bucket limiter per API key (and test id), and the headers that report it.

Requests per minute, tokens per minute and requests per day each fill a bucket continuously, as
OpenAI's and Anthropic's limiters do; a request takes one request and its tokens (prompt and answer)
from every bucket, or is refused with the time until it would fit. Pure: the caller passes the clock.
"""

from __future__ import annotations

import functools
import math
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, NamedTuple

from emulator.core.recent import CAPACITY, Recent
from emulator.core.wire import Headers

WINDOWS = {"requests_per_minute": 60.0, "tokens_per_minute": 60.0, "requests_per_day": 86_400.0}


@dataclass(frozen=True, slots=True)
class Limits:
    """The size of each bucket (None: unlimited, and not reported), and whether a spent bucket refuses."""

    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    requests_per_day: int | None = None
    enforce: bool = True  # False: the buckets count down in the headers, and never refuse

    def __bool__(self) -> bool:
        return any(v is not None for v in (self.requests_per_minute, self.tokens_per_minute, self.requests_per_day))


# What every answer reports unless `--limits` says otherwise: limits as generous as a high usage tier's, which
# only report. A bucket that runs dry stays at 0 remaining and refuses nothing, so that no test suite or
# benchmark meets a 429 it did not ask for.
DEFAULT = Limits(requests_per_minute=10_000, tokens_per_minute=10_000_000, requests_per_day=10_000_000, enforce=False)
OFF = Limits()  # `--limits off`: no buckets, no headers


class Bucket(NamedTuple):
    """One limit's state after a request: its size, what is left, and seconds until it is full again."""

    limit: int
    remaining: int
    reset: float


class Verdict(NamedTuple):
    """A request's take from the buckets: allowed or not, and each bucket's state after it, by `Limits` field
    name. Named tuples, not dataclasses: one is made for every answer."""

    allowed: bool
    buckets: Mapping[str, Bucket]
    retry_after: float = 0.0  # seconds until the refused request would fit
    spent: str | None = None  # the limit that refused it

    @property
    def message(self) -> str:
        """OpenAI's wording, which Codex reads its delay from ("Please try again in 1.2s")."""
        label = (self.spent or "").replace("_per_", " per ")
        limit = self.buckets[self.spent].limit if self.spent else 0
        return f"Rate limit reached on {label}: limit {limit}. Please try again in {self.retry_after:.3g}s."


def sizes(limits: Limits) -> list[tuple[str, int, float]]:
    """The buckets `limits` has: each one's name, size and refill rate (per second), in `WINDOWS`' order."""
    return [(name, size, size / WINDOWS[name]) for name in WINDOWS if (size := getattr(limits, name))]


class Limiter:
    """The buckets of every (test id, API key) seen; the only state is their levels and when they were read."""

    def __init__(self, limits: Limits, capacity: int = CAPACITY) -> None:
        self.limits = limits
        self._sizes = sizes(limits)
        # The same, with each bucket's index and whether it counts tokens (else requests): for `_report`.
        self._plan = [
            (i, name, size, rate, name == "tokens_per_minute") for i, (name, size, rate) in enumerate(self._sizes)
        ]
        self._slots = {flavor: self._slots_of(flavor) for flavor in ("openai", "anthropic", "infercom")}
        # (test id, key) → each bucket's level, then when it was read; the least recently used forgotten first
        self._levels: Recent[tuple[str, str], list[float] | None] = Recent(capacity)

    def take(self, scope: tuple[str, str], tokens: int, now: float) -> Verdict:
        """Take one request and its `tokens` from every bucket of `scope` at time `now`, or refuse (only when
        enforcing) with the time until it would fit. A bucket that only reports stops at empty."""
        read = self._levels.use(scope, None)
        if read is None:
            read = self._levels[scope] = [size for _, size, _ in self._sizes] + [now]
        elapsed, read[-1] = now - read[-1], now
        if not self.limits.enforce:
            return self._report(read, tokens, elapsed)
        wait, spent = 0.0, None
        for i, (name, size, rate) in enumerate(self._sizes):  # `if`s, not min() and max(): a third faster
            level = read[i] + elapsed * rate
            read[i] = level = level if level < size else size
            want = tokens if name == "tokens_per_minute" else 1
            # A request larger than the whole bucket goes through when the bucket is full, leaving it in debt.
            if want > level and level < size:
                needed = ((want if want < size else size) - level) / rate
                if needed > wait:
                    wait, spent = needed, name
        buckets = {}
        for i, (name, size, rate) in enumerate(self._sizes):
            if spent is None:
                read[i] -= tokens if name == "tokens_per_minute" else 1
            level = read[i]
            buckets[name] = bucket(size, level, rate)
        return tuple.__new__(Verdict, (spent is None, buckets, wait, spent))

    def _report(self, read: list[float], tokens: int, elapsed: float) -> Verdict:
        """Limits that only report: take what the request wants, stopping at empty; refuse nothing."""
        buckets = {}
        for i, name, size, rate, per_token in self._plan:
            level = read[i] + elapsed * rate
            if level > size:
                level = float(size)
            level -= tokens if per_token else 1
            if level < 0:
                level = 0.0
            read[i] = level
            buckets[name] = tuple.__new__(Bucket, (size, int(level), (size - level) / rate))
        return tuple.__new__(Verdict, (True, buckets, 0.0, None))

    def report(self, scope: tuple[str, str], tokens: int, now: float, flavor: str) -> Headers:
        """For limits that only report (the default, on every answer): take what the request wants from the
        buckets of `scope`, stopping at empty, and render them as `headers(flavor, …)` would, in one pass,
        with no `Verdict` between; the names and limits encoded once, only what changes encoded here."""
        read = self._levels.use(scope, None)
        if read is None:
            read = self._levels[scope] = [size for _, size, _ in self._sizes] + [now]
        elapsed, read[-1] = now - read[-1], now
        for i, _, size, rate, per_token in self._plan:
            level = read[i] + elapsed * rate
            if level > size:
                level = float(size)
            level -= tokens if per_token else 1
            read[i] = level if level > 0 else 0.0
        found: Headers = []
        openai = flavor == "openai"  # the default's flavor: its resets called directly, not through `_RESETS`
        reset_of = _RESETS[flavor]
        for (limit, remaining, reset), choices in self._slots[flavor]:
            i, size, encoded, rate = choices[0]
            if len(choices) > 1 and int(read[choices[1][0]]) < int(read[i]):  # the tighter of two request buckets
                i, size, encoded, rate = choices[1]
            level = read[i]
            wait = (size - level) / rate
            found.append((limit, encoded))
            found.append((remaining, str(int(level)).encode()))  # as b"%d" % level, without the formatting
            found.append((reset, _go_reset(now, wait) if openai else reset_of(now, wait)))
        return found

    def _slots_of(self, flavor: str) -> list[tuple[tuple[bytes, bytes, bytes], list[tuple[int, int, bytes, float]]]]:
        """What `report` renders for a flavor: each header triple's names, and the bucket(s) it reports
        (index, size, size encoded, rate), chosen as `headers` chooses them."""
        at = {name: (i, size, b"%d" % size, rate) for i, (name, size, rate) in enumerate(self._sizes)}
        minute, tokens, day = (at.get(n) for n in WINDOWS)
        if flavor == "infercom":
            pairs = [(_REQUESTS, [minute]), (_DAY, [day])]
        elif flavor == "anthropic":
            pairs = [(_ANTHROPIC_REQUESTS, [minute, day]), (_ANTHROPIC_TOKENS, [tokens])]
        else:
            pairs = [(_REQUESTS, [minute, day]), (_TOKENS, [tokens])]
        return [(names, [c for c in choices if c]) for names, choices in pairs if any(choices)]

    def reset(self, test_id: str | None = None) -> None:
        self._levels.forget(lambda key: test_id is None or key[0] == test_id)


def bucket(size: int, level: float, rate: float) -> Bucket:
    """Made as the tuple it is: through `Bucket(…)`, a Python-level `__new__`, it took twice as long."""
    return tuple.__new__(Bucket, (size, int(level) if level > 0 else 0, (size - level) / rate))


def parse(data: Mapping[str, Any], at: str) -> Limits:
    """Enforced limits from a mapping of positive integers (the CLI's `key=value; …`, split); a limit it
    omits is unlimited."""
    values: dict[str, Any] = {}
    for key, raw in data.items():
        if key not in WINDOWS:
            raise ValueError(f"{at}.{key}: unknown limit; expected one of {', '.join(WINDOWS)}")
        try:
            values[key] = int(raw)
        except ValueError:
            raise ValueError(f"{at}.{key}: expected a positive integer, got {raw!r}") from None
        if values[key] < 1:
            raise ValueError(f"{at}.{key}: expected a positive integer, got {raw!r}")
    return Limits(**values)


# --- headers -------------------------------------------------------------------------------------------


def go_duration(seconds: float) -> str:
    """OpenAI's `x-ratelimit-reset-*` format, Go's durations: `12ms`, `1.5s`, `6m0s`, `1h2m3s`; to the
    millisecond, rounded up."""
    return _go_duration(_ms(seconds))


def _ms(seconds: float) -> int:
    """Seconds as milliseconds, rounded up (as math.ceil, in the compiled core's own arithmetic)."""
    ms = int(seconds * 1000)
    return ms + 1 if ms < seconds * 1000 else ms


def _go_text(ms: int) -> str:
    """Go's duration of `ms` milliseconds, in integer arithmetic and string joins the core compiles (a format spec,
    `{:03d}`, went through Python's formatting, a dear step for every reset)."""
    if ms < 1000:
        return f"{ms}ms"
    seconds, fraction = divmod(ms, 1000)
    minutes, seconds = divmod(seconds, 60)
    text = f"{seconds}.{str(1000 + fraction)[1:].rstrip('0')}s" if fraction else f"{seconds}s"
    if minutes < 60:
        return f"{minutes}m{text}" if minutes else text
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes}m{text}"


_go_duration = functools.lru_cache(maxsize=4096)(_go_text)  # answers close in time share their resets


@functools.lru_cache(maxsize=256)
def rfc3339(at: int) -> str:
    """Anthropic's resets: a second of the clock as an RFC 3339 time; cached, as answers share their second."""
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(at))


def _go_reset(now: float, seconds: float) -> bytes:
    """The bytes of a reset, kept by its milliseconds in a plain dict, emptied when it holds `_KEPT`: resets repeat
    within a few values (a bucket with room: a few ms; an emptied one: just under its whole window), and through
    `lru_cache` and `encode` a reset was dear, hit or miss, two resets an answer."""
    ms = _ms(seconds)
    found = _GO_RESETS.get(ms)
    if found is None:
        if len(_GO_RESETS) >= _KEPT:
            _GO_RESETS.clear()
        found = _GO_RESETS[ms] = _go_text(ms).encode()
    return found


_GO_RESETS: dict[int, bytes] = {}
_KEPT = 4096


def _clock_reset(now: float, seconds: float) -> bytes:
    return rfc3339(math.ceil(now + seconds)).encode()


def _unix_reset(now: float, seconds: float) -> bytes:
    return b"%d" % math.ceil(now + seconds)


# How each flavor writes a bucket's reset, from the clock and the seconds until the bucket is full.
_RESETS = {"openai": _go_reset, "anthropic": _clock_reset, "infercom": _unix_reset}


def _names(pattern: str, kind: str) -> tuple[bytes, bytes, bytes]:
    return (
        pattern.format(field="limit", kind=kind).encode(),
        pattern.format(field="remaining", kind=kind).encode(),
        pattern.format(field="reset", kind=kind).encode(),
    )


OPENAI = "x-ratelimit-{field}-{kind}"
ANTHROPIC = "anthropic-ratelimit-{kind}-{field}"
_REQUESTS, _TOKENS, _DAY = _names(OPENAI, "requests"), _names(OPENAI, "tokens"), _names(OPENAI, "requests-day")
_ANTHROPIC_REQUESTS, _ANTHROPIC_TOKENS = _names(ANTHROPIC, "requests"), _names(ANTHROPIC, "tokens")


def headers(flavor: str, verdict: Verdict, now: float) -> Headers:
    """The buckets as a provider reports them, by `flavor`, as raw header pairs:
    - `openai`: `x-ratelimit-*` (wire-formats.md §4.1), requests from the tightest request bucket, and tokens;
      resets as Go durations;
    - `anthropic`: `anthropic-ratelimit-*` (wire-formats.md §4.2), the same buckets, resets as RFC 3339 times;
    - `infercom`: `x-ratelimit-*` (seed 003), requests per minute and per day, resets as Unix timestamps.
    A bucket the limits do not have is not reported."""
    buckets = verdict.buckets
    minute, day = buckets.get("requests_per_minute"), buckets.get("requests_per_day")
    if flavor == "infercom":
        pairs = ((_REQUESTS, minute), (_DAY, day))
    else:
        requests = day if minute is None or (day is not None and day.remaining < minute.remaining) else minute
        tokens = buckets.get("tokens_per_minute")
        anthropic = flavor == "anthropic"
        pairs = (
            ((_ANTHROPIC_REQUESTS, requests), (_ANTHROPIC_TOKENS, tokens))
            if anthropic
            else ((_REQUESTS, requests), (_TOKENS, tokens))
        )
    reset_of = _RESETS[flavor]
    found: Headers = []
    for (limit, remaining, reset), bucket in pairs:
        if bucket:
            found += (
                (limit, b"%d" % bucket.limit),
                (remaining, b"%d" % bucket.remaining),
                (reset, reset_of(now, bucket.reset)),
            )
    return found
