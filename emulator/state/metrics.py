"""`GET /metrics`: what the emulator answered, in Prometheus' text format through `prometheus_client`.

prometheus_client's metric objects take a lock on every increment, so the answering path counts in plain
dicts and lists here (one event loop, no lock needed), and `Collector` builds the metric families only when
`/metrics` is read. Every label is bounded: `endpoint` one of `ENDPOINTS`, `profile` a profile's name,
`status` the HTTP status or `none`, `source` one of scenario, recording, default or `none` (refused)."""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from prometheus_client import CollectorRegistry, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily, HistogramMetricFamily, Metric
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from emulator.journal import Counted, Delivered, source_kind

ENDPOINTS = (
    *("chat_completions", "responses", "messages", "count_tokens", "input_tokens", "compact", "models"),
    *("embeddings", "completions", "ollama_chat", "ollama_generate", "ollama_embed"),
    *("generate_content", "embed_content", "converse", "invoke_model"),
)
TOKENS = ("input", "output", "reasoning", "cached")
# Seconds: from a quick local answer to a paced or stalled stream.
BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0, 300.0)
CONTENT_TYPE = CONTENT_TYPE_LATEST


class Histogram:
    """Counts per bucket (the last is +Inf) and the sum of what was observed."""

    def __init__(self) -> None:
        self.counts = [0] * (len(BUCKETS) + 1)
        self.sum = 0.0

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
        self.requests: dict[tuple[str, str, int | None, str | None], int] = {}
        self.faults: dict[str, int] = {}
        self.tokens = [0, 0, 0, 0]  # input, output, reasoning, cached
        self.first_byte = Histogram()
        self.duration = Histogram()
        self.active_streams = 0

    def count(self, endpoint: str, profile: str, delivered: Delivered, entry: Counted | None) -> None:
        """Count an answer that went out, by what its journal entry says of it (None: it has none): its source,
        fault and tokens. In one call, its labels as they come: this runs for every answer, `/metrics` only
        when scraped."""
        source = fault = usage = None
        status = delivered.status
        if entry is not None:
            source, fault, usage = entry
            if status != 200:
                usage = None  # an error's tokens were never spent
        labels = (endpoint, profile, status, source)
        requests = self.requests
        requests[labels] = requests.get(labels, 0) + 1
        if fault:
            self.faults[fault] = self.faults.get(fault, 0) + 1
        if usage is not None:
            tokens, (given, made, cached, reasoning) = self.tokens, usage
            tokens[0] += given
            tokens[1] += made
            tokens[2] += reasoning
            tokens[3] += cached
        ttft, duration = delivered.ttft, delivered.duration
        if ttft is not None:
            first = self.first_byte
            first.counts[bisect_left(BUCKETS, ttft)] += 1
            first.sum += ttft
        done = self.duration
        done.counts[bisect_left(BUCKETS, duration)] += 1
        done.sum += duration


def snapshot(meter: Meter) -> dict[str, Any]:
    """A meter's counts as JSON values: what a worker publishes for `/metrics` to sum (`total`)."""
    return {
        "requests": [[*labels, value] for labels, value in meter.requests.items()],
        "faults": meter.faults,
        "tokens": meter.tokens,
        "first_byte": [meter.first_byte.counts, meter.first_byte.sum],
        "duration": [meter.duration.counts, meter.duration.sum],
        "active_streams": meter.active_streams,
    }


def total(snapshots: Iterable[Mapping[str, Any]]) -> Meter:
    """One meter counting what every snapshot counted."""
    meter = Meter()
    for taken in snapshots:
        for *labels, value in taken["requests"]:
            key = (labels[0], labels[1], labels[2], labels[3])
            meter.requests[key] = meter.requests.get(key, 0) + value
        for kind, value in taken["faults"].items():
            meter.faults[kind] = meter.faults.get(kind, 0) + value
        meter.tokens = [a + b for a, b in zip(meter.tokens, taken["tokens"], strict=True)]
        for histogram, (counts, observed) in (
            (meter.first_byte, taken["first_byte"]),
            (meter.duration, taken["duration"]),
        ):
            histogram.counts = [a + b for a, b in zip(histogram.counts, counts, strict=True)]
            histogram.sum += observed
        meter.active_streams += taken["active_streams"]
    return meter


class Collector:
    """The metric families of a `Meter`, built when scraped."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter

    def collect(self) -> Iterator[Metric]:
        meter = self.meter
        requests = CounterMetricFamily(
            "emulator_requests", "Requests answered.", labels=("endpoint", "profile", "status", "source")
        )
        counted: dict[tuple[str, str, str, str], int] = {}
        for (endpoint, profile, status, source), value in meter.requests.items():
            labels = (endpoint, profile, "none" if status is None else str(status), source_kind(source) or "none")
            counted[labels] = counted.get(labels, 0) + value
        for labels, value in sorted(counted.items()):
            requests.add_metric(labels, value)
        yield requests
        faults = CounterMetricFamily("emulator_faults", "Faults that struck an answer.", labels=("kind",))
        for kind, value in sorted(meter.faults.items()):
            faults.add_metric((kind,), value)
        yield faults
        tokens = CounterMetricFamily("emulator_tokens", "Tokens in the answers' usage.", labels=("kind",))
        for kind, value in zip(TOKENS, meter.tokens, strict=True):
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
