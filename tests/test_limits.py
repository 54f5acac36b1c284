"""Rate limits: the token buckets, the headers that count down, and the 429 when a bucket is spent."""

from __future__ import annotations

import email.utils
import math
import time
from dataclasses import replace
from typing import Any

import anthropic
import openai
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from emulator.http.app import Settings
from emulator.rules import limits
from emulator.rules.limits import Limiter, Limits

USER: Any = [{"role": "user", "content": "hi"}]


def test_buckets_count_down_and_refill() -> None:
    limiter = Limiter(Limits(requests_per_minute=3, tokens_per_minute=100))
    scope = ("", "key")
    verdicts = [limiter.take(scope, 30, now=1000.0) for _ in range(4)]
    assert [v.allowed for v in verdicts] == [True, True, True, False]
    assert [v.buckets["requests_per_minute"].remaining for v in verdicts[:3]] == [2, 1, 0]
    assert verdicts[2].buckets["tokens_per_minute"].remaining == 10
    refused = verdicts[3]
    assert refused.spent == "requests_per_minute" and refused.retry_after == pytest.approx(20.0)  # 1 of 3 a minute
    assert "Please try again in 20s" in refused.message
    assert limiter.take(scope, 30, now=1020.0).allowed  # refilled enough for one more
    assert limiter.take(("", "other"), 30, now=1000.0).allowed  # another key has its own buckets


def test_tokens_limit_and_requests_larger_than_the_bucket() -> None:
    limiter = Limiter(Limits(tokens_per_minute=60))
    assert limiter.take(("", "k"), 100, now=0.0).allowed  # a full bucket lets a large request through, in debt
    refused = limiter.take(("", "k"), 10, now=1.0)
    assert not refused.allowed and refused.spent == "tokens_per_minute"
    assert refused.retry_after == pytest.approx(49.0)  # from -39 back to 10 at one token a second


@pytest.mark.parametrize(
    ("seconds", "text"), [(0.012, "12ms"), (1.5, "1.5s"), (360.0, "6m0s"), (90.5, "1m30.5s"), (3723.0, "1h2m3s")]
)
def test_go_durations(seconds: float, text: str) -> None:
    assert limits.go_duration(seconds) == text


@settings(max_examples=500, deadline=None)
@given(st.floats(min_value=-10, max_value=100_000, allow_nan=False) | st.integers(0, 9000).map(lambda ms: ms / 1000))
def test_a_reset_in_bytes_is_its_go_duration_rounded_up(seconds: float) -> None:
    """The openai flavor's reset bytes (`_go_reset`, kept by their milliseconds) are the text of the milliseconds
    rounded up, as `go_duration` writes them, on the first call and on the kept one."""
    wanted = limits._go_duration(math.ceil(seconds * 1000)).encode()  # what it was before it was kept
    assert limits._go_reset(0.0, seconds) == wanted
    assert limits._go_reset(0.0, seconds) == wanted


@settings(max_examples=500, deadline=None)
@given(st.integers(-5000, 10_000_000) | st.integers(0, 120_000))
def test_a_go_duration_is_written_as_go_writes_it(ms: int) -> None:
    """Go's duration of a number of milliseconds, against a plain writing of Go's rules."""
    if ms < 1000:
        wanted = f"{ms}ms"
    else:
        hours, rest = divmod(ms, 3_600_000)
        minutes, rest = divmod(rest, 60_000)
        seconds = f"{rest / 1000:.3f}".rstrip("0").rstrip(".") + "s"
        wanted = (f"{hours}h{minutes}m" if hours else f"{minutes}m" if minutes else "") + seconds
    assert limits._go_text(ms) == wanted


def test_openai_headers_count_down_then_429(make_server: Any) -> None:
    """Each request's tokens take the bucket longer to refill than any machine takes between two requests: with
    100,000 tokens a minute and "hi" (42 tokens), two requests 25 ms apart left as many tokens as one (it failed
    under load), so the prompt here costs thousands of tokens of a bucket of 10,000."""
    tokens_per_minute = 10_000
    server = make_server(Settings(limits=Limits(requests_per_minute=2, tokens_per_minute=tokens_per_minute)))
    long: Any = [{"role": "user", "content": "river " * 2000}]
    with server.openai() as client:
        raw = client.chat.completions.with_raw_response
        first = raw.create(model="m", messages=long).headers
        second = raw.create(model="m", messages=long).headers
        with pytest.raises(openai.RateLimitError) as caught:
            client.chat.completions.create(model="m", messages=long)
    assert (first["x-ratelimit-limit-requests"], first["x-ratelimit-remaining-requests"]) == ("2", "1")
    assert second["x-ratelimit-remaining-requests"] == "0"
    cost = tokens_per_minute - int(first["x-ratelimit-remaining-tokens"])
    assert cost / (tokens_per_minute / 60) > 10  # seconds to refill one request's tokens
    assert int(first["x-ratelimit-remaining-tokens"]) > int(second["x-ratelimit-remaining-tokens"])
    assert second["x-ratelimit-reset-requests"].endswith("s")
    headers = caught.value.response.headers
    assert 1 <= int(headers["retry-after"]) <= 30 and headers["x-ratelimit-remaining-requests"] == "0"
    assert caught.value.code == "rate_limit_exceeded" and "try again in" in caught.value.message


def test_anthropic_headers_use_rfc_3339_resets(make_server: Any) -> None:
    server = make_server(Settings(limits=Limits(requests_per_minute=1)))
    with server.anthropic() as client:
        ok = client.messages.with_raw_response.create(model="m", max_tokens=50, messages=USER).headers
        with pytest.raises(anthropic.RateLimitError) as caught:
            client.messages.create(model="m", max_tokens=50, messages=USER)
    assert (ok["anthropic-ratelimit-requests-limit"], ok["anthropic-ratelimit-requests-remaining"]) == ("1", "0")
    reset = ok["anthropic-ratelimit-requests-reset"]
    assert (
        reset.endswith("Z")
        and 0
        < email.utils.parsedate_to_datetime(
            time.strftime("%a, %d %b %Y %H:%M:%S GMT", time.strptime(reset, "%Y-%m-%dT%H:%M:%SZ"))
        ).timestamp()
        - time.time()
        <= 61
    )
    assert caught.value.type == "rate_limit_error" and int(caught.value.response.headers["retry-after"]) >= 1


def test_limits_off_no_headers(make_server: Any) -> None:
    server = make_server(Settings(limits=limits.OFF))  # `--limits off`
    with server.openai() as client:
        headers = client.chat.completions.with_raw_response.create(model="m", messages=USER).headers
    assert not any(name.startswith("x-ratelimit") for name in headers)


def test_buckets_that_only_report_count_down_to_empty_and_never_refuse() -> None:
    limiter = Limiter(Limits(requests_per_minute=2, tokens_per_minute=100, enforce=False))
    verdicts = [limiter.take(("", "k"), 60, now=0.0) for _ in range(4)]
    assert all(v.allowed for v in verdicts)
    assert [v.buckets["requests_per_minute"].remaining for v in verdicts] == [1, 0, 0, 0]
    assert [v.buckets["tokens_per_minute"].remaining for v in verdicts] == [40, 0, 0, 0]
    assert verdicts[-1].buckets["requests_per_minute"].reset == pytest.approx(60.0)  # empty, not in debt


def test_every_answer_reports_the_default_limits_counting_down(server: Any) -> None:
    """By default every answer carries its profile's rate-limit headers (the figures in docs/faults.md), counting down
    per key, and nothing is refused."""
    with server.openai(api_key="sk-default-limits") as gpt:
        raw = gpt.chat.completions.with_raw_response.create(model="m", messages=USER)
    first, usage = raw.headers, raw.parse().usage
    assert (first["x-ratelimit-limit-requests"], first["x-ratelimit-limit-tokens"]) == ("10000", "10000000")
    assert first["x-ratelimit-remaining-requests"] == "9999"  # a full bucket, less this request
    assert usage and first["x-ratelimit-remaining-tokens"] == str(10_000_000 - usage.total_tokens)
    assert first["x-ratelimit-reset-requests"].endswith("ms")  # refilling at 10000 a minute: one in 6 ms
    with server.anthropic(api_key="sk-default-limits-2") as claude:
        headers = claude.messages.with_raw_response.create(model="m", max_tokens=20, messages=USER).headers
    assert headers["anthropic-ratelimit-requests-limit"] == "10000"
    assert headers["anthropic-ratelimit-tokens-limit"] == "10000000"
    assert headers["anthropic-ratelimit-requests-reset"].endswith("Z")
    before = int(time.time())  # a reset is a whole second, rounded up: never before the request
    with openai.OpenAI(base_url=f"{server.base_url}/infercom/v1", api_key="sk-default-limits-3") as infercom:
        headers = infercom.chat.completions.with_raw_response.create(model="MiniMax-M2.7", messages=USER).headers
    assert (headers["x-ratelimit-limit-requests"], headers["x-ratelimit-limit-requests-day"]) == ("10000", "10000000")
    assert int(headers["x-ratelimit-reset-requests-day"]) >= before


def test_a_limit_the_spec_omits_is_unlimited_and_not_reported(make_server: Any) -> None:
    server = make_server(Settings(limits=Limits(requests_per_minute=5)))
    with server.openai() as client:
        headers = client.chat.completions.with_raw_response.create(model="m", messages=USER).headers
    assert headers["x-ratelimit-limit-requests"] == "5"
    assert not any(name.endswith("-tokens") for name in headers)


def test_the_buckets_of_the_least_recently_seen_clients_are_forgotten_past_capacity() -> None:
    """Per-test-id state was never evicted: a server under CI runs that each bring a new test id grew without end."""
    limiter = Limiter(Limits(requests_per_minute=3), capacity=2)
    left = [limiter.take((s[0], s[1]), 1, now=0.0).buckets["requests_per_minute"].remaining for s in ("ab", "cd")]
    assert left == [2, 2]
    limiter.take(("a", "b"), 1, now=0.0)  # "ab" is now the most recently seen; a third client pushes out "cd"
    limiter.take(("e", "f"), 1, now=0.0)
    assert limiter.take(("a", "b"), 1, now=0.0).buckets["requests_per_minute"].remaining == 0
    assert limiter.take(("c", "d"), 1, now=0.0).buckets["requests_per_minute"].remaining == 2  # a full bucket anew


@pytest.mark.parametrize("flavor", ["openai", "anthropic", "infercom"])
@pytest.mark.parametrize(
    "quota",
    [limits.DEFAULT, Limits(requests_per_minute=5, requests_per_day=3, enforce=False), Limits(tokens_per_minute=90)],
    ids=["default", "requests-only", "tokens-only"],
)
def test_the_one_pass_report_renders_what_take_and_headers_do(flavor: str, quota: Limits) -> None:
    """`Limiter.report` is the default's fast path; it must say exactly what the general path says."""
    fast, general = Limiter(replace(quota, enforce=False)), Limiter(replace(quota, enforce=False))
    for step in range(12):
        now, tokens = 1_000.0 + step * 0.7, 20 + 7 * step
        assert fast.report(("", "k"), tokens, now, flavor) == limits.headers(
            flavor, general.take(("", "k"), tokens, now), now
        )
