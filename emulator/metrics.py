"""`GET /metrics`: what the emulator answered, in Prometheus' text format through `prometheus_client`.

prometheus_client's metric objects take a lock on every increment, so the answering path counts in plain
dicts and lists here (one event loop, no lock needed), and `Collector` builds the metric families only when
`/metrics` is read. Every label is bounded: `endpoint` one of `ENDPOINTS`, `profile` a profile's name,
`status` the HTTP status or `none`, `source` one of scenario, recording, default or `none` (refused)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterator

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from emulator.conversation import Usage

ENDPOINTS = ("chat_completions", "responses", "messages", "count_tokens", "models")
SOURCES = ("scenario", "recording", "default")
# Seconds: from a quick local answer to a paced or stalled stream.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class Histogram:
    """Counts per bucket (the last is +Inf) and the sum of what was observed."""

    def __init__(self) -> None:
        self.counts = [0] * (len(BUCKETS) + 1)
        self.sum = 0.0

    def observe(self, seconds: float) -> None:
        self.counts[bisect_left(BUCKETS, seconds)] += 1
        self.sum += seconds

    def cumulative(self) -> list[tuple[str, float]]:
        total, found = 0, []
        for bound, count in zip((*map(str, BUCKETS), "+Inf"), self.counts, strict=True):
            total += count
            found.append((bound, float(total)))
        return found


class Meter:
    """The counters the answering path increments: requests by (endpoint, profile, status, source), faults by
    kind, tokens by kind, two histograms, and the streams being played now."""

    def __init__(self) -> None:
        self.requests: dict[tuple[str, str, str, str], int] = {}
        self.faults: dict[str, int] = {}
        self.tokens = {"input": 0, "output": 0, "reasoning": 0, "cached": 0}
        self.first_byte = Histogram()
        self.duration = Histogram()
        self.active_streams = 0

    def count(
        self,
        endpoint: str,
        profile: str,
        status: int | None,
        source: str | None,
        fault: str | None,
        usage: Usage | None,
        ttft: float | None,
        duration: float,
    ) -> None:
        labels = (endpoint, profile, "none" if status is None else str(status), source if source in SOURCES else "none")
        self.requests[labels] = self.requests.get(labels, 0) + 1
        if fault:
            self.faults[fault] = self.faults.get(fault, 0) + 1
        if usage is not None:
            tokens = self.tokens
            tokens["input"] += usage.input_tokens
            tokens["output"] += usage.output_tokens
            tokens["reasoning"] += usage.reasoning_tokens
            tokens["cached"] += usage.cached_tokens
        if ttft is not None:
            self.first_byte.observe(ttft)
        self.duration.observe(duration)


class Collector:
    """The metric families of a `Meter`, built when scraped."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter

    def collect(self) -> Iterator[Metric]:
        meter = self.meter
        requests = CounterMetricFamily(
            "emulator_requests", "Requests answered.", labels=("endpoint", "profile", "status", "source")
        )
        for labels, value in sorted(meter.requests.items()):
            requests.add_metric(labels, value)
        yield requests
        faults = CounterMetricFamily("emulator_faults", "Faults that struck an answer.", labels=("kind",))
        for kind, value in sorted(meter.faults.items()):
            faults.add_metric((kind,), value)
        yield faults
        tokens = CounterMetricFamily("emulator_tokens", "Tokens in the answers' usage.", labels=("kind",))
        for kind, value in meter.tokens.items():
            tokens.add_metric((kind,), value)
        yield tokens
        for name, doc, histogram in (
            ("emulator_time_to_first_token_seconds", "Time to the first body byte.", meter.first_byte),
            ("emulator_request_duration_seconds", "Time from a request's arrival to its answer's end.", meter.duration),
        ):
            family = HistogramMetricFamily(name, doc)
            family.add_metric([], histogram.cumulative(), histogram.sum)
            yield family
        yield GaugeMetricFamily("emulator_active_streams", "Answers being played now.", meter.active_streams)


def exposition(meter: Meter) -> bytes:
    """The metrics in Prometheus' text format."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(Collector(meter))
    return generate_latest(registry)
