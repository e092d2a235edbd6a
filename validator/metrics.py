"""Prometheus metrics of a node (prometheus_client, one registry per node).

Live, observed by the race machinery as it works: runs reaching a final status by outcome and blame, sandbox
duration (buckets sized to the run timeout), gateway calls and their latency by kind, judge latency and failures,
set-weights results, other validators' results bundles refused (by kind) or not fetched. Read from the store at each
scrape (so they are right after a restart, and in `arena-validator dashboard` over a store no node is running on):
runs by status, the queue depth (pending runs ready to start), races by status, weight sets by status; and, when a
node's `Arena` is attached, whether the node progresses (`Arena.progress`): runs past their wall clock, races that
cannot close, the age of a closed race whose weights are not set. The scheduler reports each job's failures and last
success, and the gateway's upstream LLM failures are counted (each makes its run a validator-blamed 2005, retried).
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from arena.trajectory import TrajectoryEvent


def timeout_buckets(timeout: float) -> list[float]:
    """Duration buckets from 1/128 of the run timeout to the timeout (and just past it, for runs killed there)."""
    return sorted({round(timeout / 2**i, 3) for i in range(8)} | {round(timeout * 1.1, 3)})


class StoreCollector(Collector):
    """Gauges computed from the store at scrape time."""

    def __init__(self, store: Any, progress: Any = None) -> None:
        self.store = store
        self.progress = progress  # a callable returning `Arena.progress()`, or None

    def collect(self) -> Iterator[GaugeMetricFamily]:
        """The store's gauges, and `shoparena_store_up`: 0 when the store cannot be read (its gauges are then left
        out, so a scrape during a store outage still answers with everything the node knows without it)."""
        try:
            families = list(self._from_store())
        except Exception:  # noqa: BLE001 - a store outage is reported as a gauge, never as a failed scrape
            families = []
        yield GaugeMetricFamily(
            "shoparena_store_up", "1 when the store answered this scrape, 0 when it did not", value=1 if families else 0
        )
        yield from families

    def _from_store(self) -> Iterator[GaugeMetricFamily]:
        from datetime import UTC, datetime

        counts = self.store.status_counts(datetime.now(UTC))
        runs, ready, races, weights = counts.runs, counts.ready, counts.races, counts.weight_sets
        by_status = GaugeMetricFamily("shoparena_runs", "runs in the store by status", labels=["status"])
        for status, n in runs:
            by_status.add_metric([status], n)
        yield by_status
        yield GaugeMetricFamily("shoparena_queue_depth", "pending runs ready to start", value=ready or 0)
        race_gauge = GaugeMetricFamily("shoparena_races", "races in the store by status", labels=["status"])
        for status, n in races:
            race_gauge.add_metric([status], n)
        yield race_gauge
        weight_gauge = GaugeMetricFamily("shoparena_weight_sets", "weight sets by status", labels=["status"])
        for status, n in weights:
            weight_gauge.add_metric([status], n)
        yield weight_gauge
        if self.progress is not None:
            progress = self.progress()
            yield GaugeMetricFamily(
                "shoparena_runs_overdue",
                "runs in a sandbox past their wall clock plus a grace",
                value=len(progress["overdue_runs"]),
            )
            yield GaugeMetricFamily(
                "shoparena_races_stalled",
                "running races no run of which moved for too long",
                value=len(progress["stalled_races"]),
            )
            yield GaugeMetricFamily(
                "shoparena_races_fault_waiting",
                "running races waiting for a validator fault to clear (voided if it outlasts the wait)",
                value=len(progress.get("fault_waits", [])),
            )
            unset = progress["weights_unset"]
            yield GaugeMetricFamily(
                "shoparena_weights_unset_seconds",
                "seconds since the latest closed race closed without its weights set (0 when set or within the grace)",
                value=unset["seconds"] if unset else 0.0,
            )


class Metrics:
    def __init__(self, store: Any = None, *, run_timeout: float = 300.0) -> None:
        self.registry = CollectorRegistry()
        self.runs = Counter(
            "shoparena_runs_final", "runs that reached a final status", ["outcome", "blame"], registry=self.registry
        )
        self.sandbox_seconds = Histogram(
            "shoparena_sandbox_seconds",
            "a run's sandbox, start to exit",
            buckets=timeout_buckets(run_timeout),
            registry=self.registry,
        )
        self.gateway_calls = Counter(
            "shoparena_gateway_calls",
            "calls agents made through the gateway",
            ["kind", "outcome"],
            registry=self.registry,
        )
        self.gateway_seconds = Histogram(
            "shoparena_gateway_call_seconds",
            "gateway call latency",
            ["kind"],
            buckets=(0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 30, 120),
            registry=self.registry,
        )
        self.judge_seconds = Histogram(
            "shoparena_judge_seconds",
            "one run's judgment",
            ["judge"],
            buckets=(0.001, 0.01, 0.1, 0.5, 1, 5, 15, 60, 300),
            registry=self.registry,
        )
        self.judge_failures = Counter(
            "shoparena_judge_failures", "judgments deferred: the judge was unavailable", registry=self.registry
        )
        self.set_weights = Counter(
            "shoparena_set_weights", "set-weights attempts by result", ["result"], registry=self.registry
        )
        self.pool_refused = Counter(
            "shoparena_pool_bundles_refused",
            "other validators' results bundles refused, by kind (validator.races.pooling)",
            ["kind"],
            registry=self.registry,
        )
        self.pool_unfetched = Counter(
            "shoparena_pool_bundles_unfetched",
            "tries to fetch a committed results bundle that failed (tried again until the weights are due)",
            registry=self.registry,
        )
        self.worker_runs = Counter(
            "shoparena_worker_runs",
            "runs that came back from a sandbox, per worker (local, or a Ray worker's node id)",
            ["worker"],
            registry=self.registry,
        )
        self.providers_dropped = Counter(
            "shoparena_providers_dropped",
            "miners' providers a race went on without after --gateway.provider_failures failures (the log says why)",
            ["provider"],
            registry=self.registry,
        )
        self.upstream_errors = Counter(
            "shoparena_upstream_llm_errors",
            "upstream LLM failures seen by the gateway during runs",
            registry=self.registry,
        )
        self._spend_counters()
        self.job_failures = Counter(
            "shoparena_job_failures", "scheduled jobs that failed", ["job"], registry=self.registry
        )
        self.job_last_success = Gauge(
            "shoparena_job_last_success_timestamp_seconds",
            "when each scheduled job last succeeded",
            ["job"],
            registry=self.registry,
        )
        self.collector: StoreCollector | None = None
        if store is not None:
            self.collector = StoreCollector(store)
            self.registry.register(self.collector)

    def watch(self, progress: Any) -> None:
        """Report the node's progress (`Arena.progress`) at each scrape."""
        if self.collector is not None:
            self.collector.progress = progress

    def watch_host(self, host: Any) -> None:
        """Report the host (`validator.upkeep.host.Host`: disk, memory, chain, weights, janitor) at each scrape."""
        from validator.upkeep.host import HostCollector

        self.registry.register(HostCollector(host))

    def run_final(self, outcome: str, blame: str | None) -> None:
        self.runs.labels(outcome=outcome, blame=blame or "none").inc()

    def _spend_counters(self) -> None:
        self.llm_spend = Counter(
            "shoparena_llm_spend_usd",
            "USD agents' LLM calls cost at the operator's prices, by who paid (validator or miner)",
            ["payer"],
            registry=self.registry,
        )
        self.llm_tokens = Counter(
            "shoparena_llm_tokens",
            "agents' LLM tokens, by who paid and direction (in, out)",
            ["payer", "direction"],
            registry=self.registry,
        )

    def spent(self, spend: Any) -> None:
        """A run's LLM spend (`arena.spend.RunSpend`), by who paid."""
        self.llm_spend.labels(payer=spend.payer).inc(spend.cost)
        self.llm_tokens.labels(payer=spend.payer, direction="in").inc(spend.prompt_tokens)
        self.llm_tokens.labels(payer=spend.payer, direction="out").inc(spend.completion_tokens)

    def sandbox(self, seconds: float, events: Sequence[TrajectoryEvent], worker: str | None = None) -> None:
        self.sandbox_seconds.observe(seconds)
        self.worker_runs.labels(worker=worker or "local").inc()
        for event in events:
            outcome = "error" if event.error or event.status >= 400 else "ok"
            self.gateway_calls.labels(kind=event.kind, outcome=outcome).inc()
            self.gateway_seconds.labels(kind=event.kind).observe(event.duration_ms / 1000)
