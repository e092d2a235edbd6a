"""The node's pooling of race results with the other validators (`--pool`, on by default).

Two jobs and one question, each idempotent and resumed from the store's `race_pools` row of the race:

- `publish` (when a race closes, then every block until it is done): this node's results bundle of the race is built,
  stored and served (`validator.pool`), and its hash committed on chain (``sr1:<sha256>``) before the race's cut-off
  block; a commitment the chain refuses (rate or space limit, unreachable) is tried again with backoff until the
  cut-off, after which the race is `late` (this node's runs are then not in the pool; it still pools the others').
- `pool` (every block, after the cut-off): every permit holder's bundle committed in the race's window is fetched and
  verified; one that fails a check is refused whole (one line naming the validator, counted on /metrics by kind,
  kept on the race's pool row for the API and the race page); one that cannot be fetched is tried again until the
  weights are due, then left out (said in the log and on the row). The verified runs are pooled with
  `arena.pooling.pool`. Nothing waits past the due block.
- `weigh_input` (asked by `Weighing.weigh`): the results the weights come from: the pooled standings when more than
  one validator's bundle verified, this node's own results when it raced alone (pooling off, the only permit holder,
  nobody else committed, or the pool could not be made by the due block); None while the pool is not ready (the
  weights wait for it).

The cut-off is anchored on the race's start block (its slot, the same on every validator), never on this node's close
(which differs between validators and would give them different committed sets): ``cutoff = start +
pool_cutoff_blocks`` (default 3/4 of the pack's cadence), ``due = cutoff + pool_wait_blocks`` (default 1/8). The node
pools once the cut-off has passed, reading the commitments as of the cut-off block: the one set every validator
reads. With `pool_early` (`--pool.early`) it pools as soon as every permit holder has committed a bundle of the race,
which is the same set unless a validator commits another bundle of the race before the cut-off (then nodes that
pooled early and nodes that pooled at the cut-off disagree): for a chain whose validators trust one another, such as
the demo's.
"""

from __future__ import annotations

import time
from typing import Any

from arena.backoff import doubling
from arena.weights import MinerResult
from validator.chain.port import ChainError
from validator.chain.results import commit_results, results_commitments
from validator.races.base import ArenaParts

#: refusals that a later try may cure (the network, the serving node); the others are final at once
RETRYABLE = {"unreachable", "slow", "truncated"}
WAITING = {"building", "committing", "committed", "late"}


class Pooling:
    """The node's pooling jobs over the arena's store, chain and wallet (see the module's docstring)."""

    def __init__(self, arena: ArenaParts) -> None:
        self.arena = arena
        self._commit_wait: dict[str, tuple[float, int]] = {}  # race -> (next try, failures in a row)

    @property
    def on(self) -> bool:
        return bool(self.arena.config.pool)

    # --- the race's blocks --------------------------------------------------------------------------------------

    def cutoff_block(self, seed_block: int) -> int:
        config, cadence = self.arena.config, self.arena.pack.rotation.cadence_blocks
        blocks = config.pool_cutoff_blocks if config.pool_cutoff_blocks is not None else max(1, cadence * 3 // 4)
        return int(seed_block) + int(blocks)

    def due_block(self, seed_block: int) -> int:
        config, cadence = self.arena.config, self.arena.pack.rotation.cadence_blocks
        wait = config.pool_wait_blocks if config.pool_wait_blocks is not None else max(1, cadence // 8)
        return self.cutoff_block(seed_block) + int(wait)

    # --- publish ------------------------------------------------------------------------------------------------

    def publish(self) -> list[str]:
        """Build, store and commit this node's bundle of every closed race that has none committed yet, before its
        cut-off. Returns the races whose commitment landed now."""
        if not self.on:
            return []
        store, done = self.arena.store, []
        for race in store.races(status="closed"):
            pool = store.race_pool(race.race_id)
            if pool is not None and pool.status not in {"building", "committing"}:
                continue
            if pool is None:
                if self.arena.chain.block() > self.due_block(race.seed_block):
                    continue  # a race closed before pooling was on (or long ago): weighed alone, as it was
                pool = store.save_race_pool(
                    race.race_id,
                    status="building",
                    cutoff_block=self.cutoff_block(race.seed_block),
                    due_block=self.due_block(race.seed_block),
                    state={},
                )
            block = self.arena.chain.block()
            if block > pool.cutoff_block:
                note = (
                    f"this node's results bundle missed the cut-off (block {pool.cutoff_block}, now {block}): "
                    "its runs are not pooled; it pools the others'"
                )
                store.save_race_pool(race.race_id, status="late", state={**pool.state, "note": note})
                self.arena._warn("pool.late", race_id=race.race_id, cutoff_block=pool.cutoff_block, block=block)
                continue
            if pool.bundle_sha256 is None:
                from validator.pool import PoolError

                try:
                    sha256 = self._build(race)
                except PoolError as exc:  # e.g. over the size other validators accept: pool the others' only
                    note = f"this node's results bundle was not published: {exc}"
                    store.save_race_pool(race.race_id, status="late", state={**pool.state, "note": note})
                    self.arena._warn("pool.not_published", race_id=race.race_id, error=str(exc))
                    continue
                pool = store.save_race_pool(race.race_id, status="committing", bundle_sha256=sha256)
                self.arena._info("pool.bundle_built", race_id=race.race_id, sha256=sha256)
            if self._commit(race.race_id, pool):
                done.append(race.race_id)
        return done

    def _commit(self, race_id: str, pool: Any) -> bool:
        """Commit the bundle's hash; a refusal waits `weights_retry` seconds doubling (capped at a minute)."""
        next_try, failures = self._commit_wait.get(race_id, (0.0, 0))
        if time.time() < next_try:
            return False
        try:
            outcome = commit_results(
                self.arena.chain, self.arena.wallet, pool.bundle_sha256, self.arena.config.pool_url
            )
        except ChainError as exc:
            backoff = doubling(self.arena.config.weights_retry, failures + 1, cap=60.0)
            self._commit_wait[race_id] = (time.time() + backoff, failures + 1)
            state = {**pool.state, "commit_error": f"{exc.code}: {exc.message}"}
            self.arena.store.save_race_pool(race_id, status="committing", state=state)
            self.arena._warn("pool.commit_failed", race_id=race_id, code=exc.code, error=exc.message)
            return False
        self._commit_wait.pop(race_id, None)
        state = {key: value for key, value in pool.state.items() if key != "commit_error"}
        self.arena.store.save_race_pool(race_id, status="committed", committed_block=outcome.block, state=state)
        self.arena._info("pool.committed", race_id=race_id, sha256=pool.bundle_sha256, block=outcome.block)
        return True

    # --- pool ---------------------------------------------------------------------------------------------------

    def pool(self) -> list[str]:
        """Fetch, verify and pool the committed bundles of every race past its cut-off (or whose permit holders
        all committed); returns the races pooled now."""
        if not self.on:
            return []
        done = []
        for pool in self.arena.store.race_pools(statuses={"committed", "late"}):
            race = self.arena.store.race(pool.race_id)
            if race is not None and self._pool_race(race, pool):
                done.append(race.race_id)
        return done

    def _pool_race(self, race: Any, pool: Any) -> bool:
        from validator.pool.inputs import holders_at, pin_block, registered_at

        chain, block = self.arena.chain, self.arena.chain.block()
        past = block > pool.cutoff_block
        holders = holders_at(chain, pool.cutoff_block if past else None)
        state = dict(pool.state)
        # past the cut-off, the commitments as of the cut-off block: the one committed set every validator reads
        seen = results_commitments(chain, block=pool.cutoff_block if past else None)
        found = {c.hotkey: c for c in seen if c.hotkey in holders and race.seed_block <= c.block <= pool.cutoff_block}
        committed = {h: {"sha256": c.sha256, "url": c.url, "block": c.block} for h, c in sorted(found.items())}
        state["committed"] = committed
        if not past and not (self.arena.config.pool_early and set(holders) <= set(committed)):
            self.arena.store.save_race_pool(race.race_id, status=pool.status, state=state)
            return False  # more may still commit (or, with --pool.early, recommit) until the cut-off
        # stakes and permits as of the pinned block (the cut-off): the same on every validator whenever it pools
        state["stake_block"] = pin_block(pool.cutoff_block, block, (c.block for c in found.values()))
        holders = holders if past else holders_at(chain, state["stake_block"])
        validators: dict[str, dict[str, Any]] = dict(state.get("validators") or {})
        runs: dict[str, list[dict[str, Any]]] = dict(state.get("runs") or {})
        dates: dict[str, Any] = dict(state.get("dates") or {})
        for hotkey, entry in committed.items():
            known = validators.get(hotkey, {})
            if known.get("status") in {"verified", "refused"} and known.get("sha256") == entry["sha256"]:
                continue
            runs.pop(hotkey, None)
            dates.pop(hotkey, None)
            validators[hotkey], pooled = self._check(race, found[hotkey], holders, final=block > pool.due_block)
            if pooled is not None:
                runs[hotkey], dates[hotkey] = pooled
        state["validators"], state["runs"], state["dates"] = validators, runs, dates
        waiting = sorted(h for h, v in validators.items() if v["status"] == "unfetched")
        if waiting:  # tried again next block, until the weights are due
            self.arena.store.save_race_pool(race.race_id, status=pool.status, state=state)
            return False
        without = sorted(h for h, v in validators.items() if v["status"] == "refused" and v["kind"] in RETRYABLE)
        if without:
            state["note"] = (
                f"weighed without the bundles of {', '.join(without)}: not fetched by the due block {pool.due_block}"
            )
            self.arena._warn("pool.weighed_without", race_id=race.race_id, validators=without)
        if len(runs) < 2:
            self.arena.store.save_race_pool(race.race_id, status="alone", state=state)
            self.arena._info("pool.alone", race_id=race.race_id, verified=sorted(runs))
            return True
        # what the fork rule weighs the validators' dates by (`validator.pool.copies.pooled_dates`), pinned as the
        # stakes are: every validator's stake and every miner's registration block as of the pinned block
        state["stakes"] = {h: float(n.stake) for h, n in sorted(holders.items())}
        state["registered"] = registered_at(chain, state["stake_block"])
        state["standings"] = self._standings(race, runs, holders)
        self.arena.store.save_race_pool(race.race_id, status="pooled", state=state)
        self.arena._info("pool.pooled", race_id=race.race_id, validators=sorted(runs), miners=len(state["standings"]))
        return True

    def _check(
        self, race: Any, commitment: Any, holders: dict[str, Any], *, final: bool
    ) -> tuple[dict[str, Any], tuple[list[dict[str, Any]], dict[str, Any]] | None]:
        """One validator's committed bundle fetched and verified: (its row for the pool, its pooled runs and its
        ``dates``, or None)."""
        hotkey, entry = commitment.hotkey, {"sha256": commitment.sha256}
        outcome = self._fetch_and_verify(race, commitment, holders)
        if isinstance(outcome, tuple):
            return {"status": "verified", "sha256": entry["sha256"], "runs": len(outcome[0])}, outcome
        row = {"status": "refused", "sha256": entry["sha256"], "kind": outcome.kind, "reason": outcome.reason}
        if outcome.kind in RETRYABLE and not final:
            if self.arena.metrics is not None and hasattr(self.arena.metrics, "pool_unfetched"):
                self.arena.metrics.pool_unfetched.inc()
            self.arena._warn("pool.unfetched", race_id=race.race_id, validator=hotkey, reason=outcome.reason)
            return {**row, "status": "unfetched"}, None
        self.arena._warn(
            "pool.refused", race_id=race.race_id, validator=hotkey, kind=outcome.kind, reason=outcome.reason
        )
        if self.arena.metrics is not None and hasattr(self.arena.metrics, "pool_refused"):
            self.arena.metrics.pool_refused.labels(kind=outcome.kind).inc()
        return row, None

    def _standings(
        self, race: Any, runs: dict[str, list[dict[str, Any]]], holders: dict[str, Any]
    ) -> list[dict[str, Any]]:
        """The pooled standings (`arena.pooling.pool`), each with its miner's commitment block: the same inputs, by
        the same rules, as `arena-validator audit` takes them (`validator.audit`), so the audit finds these weights."""
        from arena.pooling import PooledRun
        from validator.pool.inputs import NEVER, pooled_standings

        by_validator = {h: [PooledRun.model_validate(r) for r in rows] for h, rows in sorted(runs.items())}
        standings, blocks = pooled_standings(
            self.arena.chain,
            by_validator,
            holders,
            self.arena.pack.rotation,
            start=race.seed_block,
            seed_hash=race.seed_hash,
            problem_ids=race.problem_ids,
            earlier=self._window(race),
        )
        return [{**s.model_dump(mode="json"), "commitment_block": blocks.get(s.miner, NEVER)} for s in standings]

    def _window(self, race: Any) -> list[Any]:
        """The verified runs this node pooled of the W - 1 race slots before `race` (`validator.pool.inputs`)."""
        from arena.pooling import PooledRun
        from validator.pool.inputs import RaceRuns, window_starts
        from validator.races.draw import race_id_for

        out = []
        for start in window_starts(race.seed_block, self.arena.pack.rotation):
            race_id = race_id_for(race.pack_id, start)
            earlier, pool = self.arena.store.race(race_id), self.arena.store.race_pool(race_id)
            runs = (pool.state or {}).get("runs") if pool is not None else None
            if earlier is not None and runs:
                by_validator = {h: [PooledRun.model_validate(r) for r in rows] for h, rows in sorted(runs.items())}
                out.append(RaceRuns(race_id, earlier.seed_block, earlier.seed_hash, earlier.problem_ids, by_validator))
        return out

    # --- the weights' input -------------------------------------------------------------------------------------

    def waiting(self, race_id: str) -> bool:
        """Whether the race's weights wait for its pool, within their due block (health: not a stuck node)."""
        pool = self.arena.store.race_pool(race_id) if self.on else None
        return pool is not None and pool.status in WAITING and self.arena.chain.block() <= pool.due_block

    def alone(self) -> bool:
        """Whether this node is the subnet's only validator-permit holder (as of now): nobody to pool with, so its
        weights come from its own runs as soon as its race closes, exactly as with pooling off (its bundle is still
        published, for the audit)."""
        from validator.pool.inputs import holders_at

        return set(holders_at(self.arena.chain, None)) <= {self.arena.hotkey}

    def weigh_input(self, race: Any, own: list[MinerResult]) -> list[MinerResult] | None:
        """What the race's weights come from: the pooled standings, this node's own results when it races alone,
        None while the pool is not ready and the weights not yet due."""
        if not self.on or self.alone():
            return own
        pool = self.arena.store.race_pool(race.race_id)
        if pool is not None and pool.status in {"committed", "late"} and self._pool_race(race, pool):
            pool = self.arena.store.race_pool(race.race_id)  # pooled now (its last tries made once due)
        if pool is None or pool.status in WAITING:
            due = pool.due_block if pool is not None else self.due_block(race.seed_block)
            if self.arena.chain.block() <= due:
                return None
            self.arena._warn("pool.not_pooled", race_id=race.race_id, due_block=due, weighed="this node's runs")
            return own
        if pool.status == "alone":
            return own
        uids = {n.hotkey for n in self.arena.chain.metagraph().neurons}
        return [
            MinerResult(
                hotkey=s["miner"],
                score=min(1.0, max(0.0, float(s["score"]))),
                commitment_block=s["commitment_block"],
                low=s["low"],  # the pooled standing's interval: the band policy reads it
                high=s["high"],
            )
            for s in pool.state.get("standings") or []
            if s["miner"] in uids  # a miner deregistered since: no uid to weigh (as the audit leaves it out)
        ]

    # --- the bundles (`validator.pool`) -------------------------------------------------------------------------

    @property
    def shelf(self) -> Any:
        """The results bundles this node holds and serves (`<data_dir>/results`)."""
        from validator.pool.shelf import ResultsShelf

        return ResultsShelf(self.arena.config.data_dir / "results")

    def _build(self, race: Any) -> str:
        """This node's results bundle of the closed race, built, signed and put on the shelf (served from there to
        the validators that published theirs, to anyone from its public block); returns its sha256."""
        from arena.copies import pinned_threshold
        from validator.pool.build import build_bundle
        from validator.races.copying import held_dates

        store, config = self.arena.store, self.arena.config
        threshold = pinned_threshold(self.arena.pack, config.copy_similarity)  # as the fork rule reads it
        earlier = [p for p in store.race_pools() if p.bundle_sha256 and p.race_id != race.race_id]
        prev = earlier[-1].bundle_sha256 if earlier else ""
        chain = self.arena.chain
        built = build_bundle(
            self.arena.store,
            race.race_id,
            self.arena.wallet,
            netuid=chain.netuid,
            created_block=chain.block(),
            prev=prev or "",
            dates_of=lambda raced: held_dates(store, config.data_dir, threshold, raced),
        )
        self.shelf.put(built.sha256, built.data, self._release(race))
        return str(built.sha256)

    def _release(self, race: Any) -> Any:
        """Who may fetch a bundle of the race from this node: the validators that published theirs, and anyone from
        `pool_public_blocks` after the weights are due (a copier reads the pooled evidence only once it is late)."""
        from validator.pool.shelf import Release

        public = self.due_block(race.seed_block) + int(self.arena.config.pool_public_blocks)
        return Release(race_id=race.race_id, race_start=race.seed_block, public_block=public)

    def _fetch_and_verify(self, race: Any, commitment: Any, holders: dict[str, Any]) -> Any:
        """The committed bundle's pooled runs (as json) and its ``dates``, or its `Refusal`: this node's own read
        from its shelf, another's fetched (signed request) from its URL or axon, every one verified the same way."""
        from validator.pool import Refusal, fetch_results, verify_bundle
        from validator.pool.pooled import to_pooled

        config = self.arena.config
        raw = self.shelf.get(commitment.sha256) if commitment.hotkey == self.arena.hotkey else None
        if raw is None:
            raw = fetch_results(commitment, wallet=self.arena.wallet, max_bytes=config.pool_max_bytes)
            if isinstance(raw, Refusal):
                return raw
        verified = verify_bundle(
            raw,
            commitment.sha256,
            validator=commitment.hotkey,
            race=self._facts(race),
            permit_holders=set(holders),
            max_bytes=config.pool_max_bytes,
        )
        if isinstance(verified, Refusal):
            return verified
        if commitment.hotkey != self.arena.hotkey:
            self.shelf.put(commitment.sha256, raw, self._release(race))  # kept: an auditor may ask this node too
        return [run.model_dump(mode="json") for run in to_pooled(verified)], verified.bundle.dates

    def _facts(self, race: Any) -> Any:
        """The race a bundle must be of (`validator.pool.facts.race_facts`), as this node knows it."""
        from validator.pool.facts import race_facts

        arena = self.arena
        return race_facts(
            race,
            store=arena.store,
            netuid=arena.chain.netuid,
            problem=arena._problem,
            lookup=arena.catalog.get,
            ruleset_for=arena.pack.ruleset_for,
            gold_vectors=arena.gold_vectors,
        )
