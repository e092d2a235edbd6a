"""Weights: a closed race's results through the policy, stored, and sent within the rate limit."""

from __future__ import annotations

import time

from arena.backoff import doubling
from arena.weights import MinerResult, compute_weights, describe_ties
from validator.chain.port import ChainError
from validator.races.base import ArenaParts


class Weighing(ArenaParts):
    """`weigh` and `set_weights`."""

    def weigh(self) -> int | None:
        """A weight set for the latest closed race that has none; returns its id."""
        races = [r for r in self.store.races(status="closed")]
        if not races:
            return None
        race = races[-1]
        if any(ws.race_id == race.race_id for ws in self.store.weight_sets()):
            return None
        graph = self.chain.metagraph()
        uids = {n.hotkey: n.uid for n in graph.neurons}
        results = [
            MinerResult(
                hotkey=r.hotkey,
                score=min(1.0, max(0.0, r.score)),
                commitment_block=r.commitment_block,
                low=r.low,  # the standing's interval: only the band policy reads it
                high=r.high,
            )
            for r in self.store.race_results(race.race_id)
        ]
        pooled = self.pooling.weigh_input(race, results)  # the pooled standings (`--pool`), or None: not ready yet
        if pooled is None:
            return None
        results = pooled
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
        self._info("weights.computed", race_id=race.race_id, vector=vector, ties=describe_ties(results, uids))
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
                self._info("weights.rate_limited", weight_set=ws.id, retry_in_blocks=limit.blocks_to_wait)
                if self.metrics is not None:
                    self.metrics.set_weights.labels(result="rate_limited").inc()
                return "rate_limited"
            outcome = self.chain.set_weights(self.wallet, vector)
        except ChainError as exc:
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
            self._warn(
                "weights.error",
                weight_set=ws.id,
                code=exc.code,
                error=exc.message,
                failures=failures,
                retry_in_s=round(delay, 3),
            )
            if self.metrics is not None:
                self.metrics.set_weights.labels(result=exc.code).inc()
            return status
        status = "set" if outcome.success else "failed"
        if self.metrics is not None:
            self.metrics.set_weights.labels(result=status).inc()
        self.store.update_weight_set(ws.id, status=status, outcome=outcome.model_dump(mode="json"), block=outcome.block)
        self._info(
            "weights.set" if outcome.success else "weights.failed",
            weight_set=ws.id,
            block=outcome.block,
            message=outcome.message,
        )
        return status
