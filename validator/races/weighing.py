"""Weighing: a closed race's standings through the weight policy, stored, and sent within the rate limit."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from arena.backoff import doubling
from arena.weights import MinerResult, compute_weights, describe_ties, parse_policy
from validator.chain.port import ChainError, ChainPort
from validator.races.base import Signals
from validator.races.config import ArenaConfig
from validator.store.models import Race
from validator.store.repository import Store

#: Where a closed race's standings come from, given this node's own: the standings to weigh (the pool's, say), or None
#: while they are not ready (the weights wait for them).
StandingsSource = Callable[[Race, list[MinerResult]], "list[MinerResult] | None"]


class Weighing:
    """`weigh` and `set_weights`: owns the live and shadow policies. Its input is a closed race's standings: this
    node's own results, or what `source` makes of them (the pooled standings of many validators)."""

    def __init__(self, *, store: Store, chain: ChainPort, wallet: Any, config: ArenaConfig, signals: Signals) -> None:
        self.store, self.chain, self.wallet, self.config, self.signals = store, chain, wallet, config, signals
        self.policy = parse_policy(config.weight_policy, burn_uid=config.burn_uid)
        self.shadow_policy = (
            parse_policy(config.weight_shadow, burn_uid=config.burn_uid) if config.weight_shadow else None
        )
        self.source: StandingsSource | None = None
        #: the fork rule: the standings without the race's copies (`validator.races.copying`)
        self.copies: Callable[[Race, list[MinerResult]], list[MinerResult]] | None = None

    @property
    def hotkey(self) -> str:
        return str(self.wallet.hotkey.ss58_address)

    def standings(self, race: Race) -> list[MinerResult] | None:
        """The race's standings to weigh: this node's results, or the source's (None: not ready yet), without the
        copies the fork rule finds (they earn nothing)."""
        own = [
            MinerResult(
                hotkey=r.hotkey,
                score=min(1.0, max(0.0, r.score)),
                commitment_block=r.commitment_block,
                low=r.low,  # the standing's interval: only the band policy reads it
                high=r.high,
            )
            for r in self.store.race_results(race.race_id)
        ]
        results = own if self.source is None else self.source(race, own)
        if results is None:
            return results
        results = self.with_costs(race, results)
        return results if self.copies is None else self.copies(race, results)

    def with_costs(self, race: Race, results: list[MinerResult]) -> list[MinerResult]:
        """Each miner's cost per solved problem in the race, as this node measured it (the ``cost_aware`` policy's
        tie-break; no other policy reads it)."""
        from arena.spend import cost_per_solved

        costs = self.store.miner_costs(race.race_id)
        return [
            r.model_copy(update={"cost_per_solved": cost_per_solved(*costs.get(r.hotkey, (0.0, 0)))}) for r in results
        ]

    def weigh(self) -> int | None:
        """A weight set for the latest closed race that has none; returns its id."""
        races = [r for r in self.store.races(status="closed")]
        if not races:
            return None
        race = races[-1]
        if any(ws.race_id == race.race_id for ws in self.store.weight_sets()):
            return None
        results = self.standings(race)
        if results is None:
            return None
        uids = {n.hotkey: n.uid for n in self.chain.metagraph().neurons}
        vector = compute_weights(results, uids, self.policy)
        shadow = compute_weights(results, uids, self.shadow_policy) if self.shadow_policy is not None else None
        ws = self.store.add_weight_set(
            policy=self.policy.name,
            vector=vector,
            race_id=race.race_id,
            shadow_policy=self.shadow_policy.name if self.shadow_policy else None,
            shadow_vector=shadow,
        )
        for older in self.store.weight_sets():
            if older.id != ws.id and older.status in {"pending", "rate_limited"}:
                self.store.update_weight_set(older.id, status="failed", outcome={"superseded_by": ws.id})
        self.signals.info("weights.computed", race_id=race.race_id, vector=vector, ties=describe_ties(results, uids))
        return ws.id

    def set_weights(self) -> str | None:
        """Send the latest pending weight set within the rate limit; store what became of it.

        A chain that cannot take it (unreachable, locked, any error but the rate limit) leaves it pending, sent again
        after `weights_retry` seconds doubling up to `weights_retry_max`, for as long as it takes: it is given up only
        when a newer race's set supersedes it (`weigh`). Returns the set's status, or "waiting" during a backoff."""
        pending = [ws for ws in self.store.weight_sets() if ws.status in {"pending", "rate_limited"}]
        if not pending:
            return None
        ws = pending[-1]
        retry_at = float((ws.outcome or {}).get("retry_at") or 0.0)
        if ws.status == "pending" and retry_at > time.time():
            return "waiting"
        vector = {int(uid): float(w) for uid, w in ws.vector.items()}
        try:
            limit = self.chain.rate_limit(self.hotkey)
            if not limit.ready:
                self.store.update_weight_set(
                    ws.id,
                    status="rate_limited",
                    outcome={"retry_in_blocks": limit.blocks_to_wait, "block": limit.block},
                )
                self.signals.info("weights.rate_limited", weight_set=ws.id, retry_in_blocks=limit.blocks_to_wait)
                if self.signals.metrics is not None:
                    self.signals.metrics.set_weights.labels(result="rate_limited").inc()
                return "rate_limited"
            outcome = self.chain.set_weights(self.wallet, vector)
        except ChainError as exc:
            return self._refused(ws, exc)
        status = "set" if outcome.success else "failed"
        if self.signals.metrics is not None:
            self.signals.metrics.set_weights.labels(result=status).inc()
        self.store.update_weight_set(ws.id, status=status, outcome=outcome.model_dump(mode="json"), block=outcome.block)
        self.signals.info(
            "weights.set" if outcome.success else "weights.failed",
            weight_set=ws.id,
            block=outcome.block,
            message=outcome.message,
        )
        return status

    def _refused(self, ws: Any, exc: ChainError) -> str:
        """A weight set the chain did not take: rate limited (sent again when the limit allows), or pending again
        after a backoff that doubles with each failure in a row."""
        status = "rate_limited" if exc.code == "rate_limited" else "pending"
        failures = int((ws.outcome or {}).get("failures") or 0) + 1 if status == "pending" else 0
        delay = doubling(self.config.weights_retry, failures, cap=self.config.weights_retry_max)
        self.store.update_weight_set(
            ws.id,
            status=status,
            outcome={
                "error": exc.code,
                "message": exc.message,
                "retry_in_blocks": exc.retry_in_blocks,
                "failures": failures,
                "retry_at": time.time() + delay,
            },
        )
        self.signals.warn(
            "weights.error",
            weight_set=ws.id,
            code=exc.code,
            error=exc.message,
            failures=failures,
            retry_in_s=round(delay, 3),
        )
        if self.signals.metrics is not None:
            self.signals.metrics.set_weights.labels(result=exc.code).inc()
        return status
