"""Rate limits: a token-bucket limiter per API key (and test id), and the headers that report it.

Requests per minute, tokens per minute and requests per day each fill a bucket continuously, as
OpenAI's and Anthropic's limiters do; a request takes one request and its tokens (prompt and answer)
from every bucket, or is refused with the time until it would fit. Pure: the caller passes the clock.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

WINDOWS = {"requests_per_minute": 60.0, "tokens_per_minute": 60.0, "requests_per_day": 86_400.0}


@dataclass(frozen=True, slots=True)
class Limits:
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    requests_per_day: int | None = None

    def __bool__(self) -> bool:
        return any(v is not None for v in (self.requests_per_minute, self.tokens_per_minute, self.requests_per_day))


@dataclass(frozen=True, slots=True)
class Bucket:
    """One limit's state after a request: its size, what is left, and seconds until it is full again."""

    limit: int
    remaining: int
    reset: float


@dataclass(frozen=True, slots=True)
class Verdict:
    allowed: bool
    buckets: Mapping[str, Bucket]  # by the Limits field name
    retry_after: float = 0.0  # seconds until the refused request would fit
    spent: str | None = None  # the limit that refused it

    @property
    def message(self) -> str:
        """OpenAI's wording, which Codex reads its delay from ("Please try again in 1.2s")."""
        label = (self.spent or "").replace("_per_", " per ")
        limit = self.buckets[self.spent].limit if self.spent else 0
        return f"Rate limit reached on {label}: limit {limit}. Please try again in {self.retry_after:.3g}s."


class Limiter:
    """The buckets of every (test id, API key) seen; the only state is their levels and when they were read."""

    def __init__(self, limits: Limits) -> None:
        self.limits = limits
        self._levels: dict[tuple[str, str, str], tuple[float, float]] = {}  # → (level, at)

    def take(self, scope: tuple[str, str], tokens: int, now: float) -> Verdict:
        wants = {"requests_per_minute": 1, "tokens_per_minute": tokens, "requests_per_day": 1}
        levels, wait, spent = {}, 0.0, None
        for name, size in self._sizes():
            rate = size / WINDOWS[name]
            level, at = self._levels.get((*scope, name), (float(size), now))
            level = min(float(size), level + (now - at) * rate)
            levels[name] = (size, level, rate)
            # A request larger than the whole bucket goes through when the bucket is full, leaving it in debt.
            if wants[name] > level and level < size:
                needed = (min(wants[name], size) - level) / rate
                if needed > wait:
                    wait, spent = needed, name
        allowed = spent is None
        buckets = {}
        for name, (size, level, rate) in levels.items():
            if allowed:
                level -= wants[name]
            self._levels[(*scope, name)] = (level, now)
            buckets[name] = Bucket(size, max(0, math.floor(level)), (size - level) / rate)
        return Verdict(allowed, buckets, wait, spent)

    def reset(self, test_id: str | None = None) -> None:
        for key in [k for k in self._levels if test_id is None or k[0] == test_id]:
            del self._levels[key]

    def _sizes(self) -> list[tuple[str, int]]:
        return [(name, size) for name in WINDOWS if (size := getattr(self.limits, name)) is not None]


def parse(data: Mapping[str, Any], at: str) -> Limits:
    """Limits from a mapping of positive integers (the CLI's `key=value; …`, split)."""
    values = {}
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
    """OpenAI's `x-ratelimit-reset-*` format, Go's durations: `12ms`, `1.5s`, `6m0s`, `1h2m3s`."""
    if seconds < 1:
        return f"{math.ceil(seconds * 1000)}ms"
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    text = f"{round(secs, 3):g}s"
    if minutes or hours:
        text = f"{int(minutes)}m{text}"
    return f"{int(hours)}h{text}" if hours else text


def openai_headers(verdict: Verdict) -> dict[str, str]:
    """`x-ratelimit-*` (wire-formats.md §4.1): requests from the tightest request bucket, and tokens;
    resets as Go durations."""
    return _report(_requests_and_tokens(verdict), "x-ratelimit-{field}-{kind}", go_duration)


def anthropic_headers(verdict: Verdict, now: float) -> dict[str, str]:
    """`anthropic-ratelimit-*` (wire-formats.md §4.2), resets as RFC 3339 times."""

    def rfc3339(reset: float) -> str:
        return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(math.ceil(now + reset)))

    return _report(_requests_and_tokens(verdict), "anthropic-ratelimit-{kind}-{field}", rfc3339)


def infercom_headers(verdict: Verdict, now: float) -> dict[str, str]:
    """Infercom's `x-ratelimit-*` (seed 003): requests per minute and per day, resets as Unix timestamps."""
    buckets = verdict.buckets
    pairs = [("requests", buckets.get("requests_per_minute")), ("requests-day", buckets.get("requests_per_day"))]
    return _report(pairs, "x-ratelimit-{field}-{kind}", lambda reset: str(math.ceil(now + reset)))


def _requests_and_tokens(verdict: Verdict) -> list[tuple[str, Bucket | None]]:
    return [
        ("requests", _tightest(verdict, "requests_per_minute", "requests_per_day")),
        ("tokens", verdict.buckets.get("tokens_per_minute")),
    ]


def _report(pairs: list[tuple[str, Bucket | None]], name: str, reset: Callable[[float], str]) -> dict[str, str]:
    """Limit, remaining and reset of each bucket, under the provider's header names and reset format."""
    headers = {}
    for kind, bucket in pairs:
        if bucket:
            headers[name.format(field="limit", kind=kind)] = str(bucket.limit)
            headers[name.format(field="remaining", kind=kind)] = str(bucket.remaining)
            headers[name.format(field="reset", kind=kind)] = reset(bucket.reset)
    return headers


def _tightest(verdict: Verdict, *names: str) -> Bucket | None:
    buckets = [verdict.buckets[n] for n in names if n in verdict.buckets]
    return min(buckets, key=lambda b: b.remaining) if buckets else None
