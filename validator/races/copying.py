"""Copying: the fork rule (`arena.copies.fork`) applied to a closed race's standings before they are weighed.

The evidence is what every pooled validator holds alike (`validator.pool.copies`): the raced agents' bundles
(content-addressed, so the same fingerprints everywhere; the templates count as earlier agents) and the tool calls
of the race's runs, from the pooled runs when the race was pooled (read from the results bundles' trajectories),
else from this node's own runs. A pooled race's raced agents this node does not hold are fetched first, as
`arena-validator audit` fetches them (`validator.pool.agents.fetch_agents`), so every pooled validator judges from the
same bundles; the code similarity threshold is the pack's (`rotation.copy_similarity`) where it sets one, else
`--copies.similarity`. The verdicts are stored (`copy_verdicts`, shown by `arena-validator submissions
show` and the dashboard's submissions page); a copy is left out of the standings the weights come from.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from arena.copies import pinned_threshold
from arena.copies.behaviour import behaviour_of
from arena.copies.fork import CopyVerdict
from arena.weights import MinerResult
from validator.chain.port import ChainError
from validator.pool.agents import fetch_agents
from validator.pool.copies import find_copies, pooled_dates
from validator.races.base import Signals
from validator.races.config import ArenaConfig
from validator.store.models import Race
from validator.store.repository import Store
from validator.submissions.bundles import bundle_path
from validator.submissions.similarity import held_dates as similarity_dates


def held_dates(
    store: Store,
    data_dir: Path,
    threshold: float,
    raced: Mapping[str, str],
    registered: Mapping[str, int] | None = None,
) -> dict[str, dict[str, int]]:
    """Each pair of raced miners' (hotkey -> its agent's sha256) order as this node holds it: since which block each
    has held the code it shares with the other's agent (and with each template), from its stored submissions
    (`validator.submissions.similarity.held_dates`), never before its hotkey's registration block (``registered``);
    ``threshold`` is the fork rule's. Also what this node publishes in its results bundle's ``dates``."""
    history: dict[str, list[tuple[int, Path]]] = {}
    for sub in store.all_submissions():
        if sub.hotkey in raced:
            history.setdefault(sub.hotkey, []).append((sub.commitment_block, bundle_path(data_dir, sub.sha256)))
    folders = {hotkey: bundle_path(data_dir, sha256) for hotkey, sha256 in raced.items()}
    dates = similarity_dates(folders, history, threshold=threshold)
    floor = registered or {}
    return {x: {y: max(block, int(floor.get(x, 0))) for y, block in mine.items()} for x, mine in dates.items()}


class Copying:
    """`judge`: a race's standings without its copies, the verdicts stored."""

    def __init__(
        self,
        *,
        store: Store,
        config: ArenaConfig,
        signals: Signals,
        chain: Any = None,
        wallet: Any = None,
        pack: Any = None,
        timeout: float = 20.0,
    ) -> None:
        self.store, self.config, self.signals = store, config, signals
        self.chain, self.wallet, self.pack, self.timeout = chain, wallet, pack, timeout
        self._tried: set[tuple[str, str]] = set()  # (race, sha256) fetched once: a weigh retried does not wait again

    @property
    def threshold(self) -> float:
        """The code similarity at which two agents are alike: the pack's where its rotation pins one (so pooled
        validators agree), else the operator's `--copies.similarity`."""
        return pinned_threshold(self.pack, self.config.copy_similarity)

    def _pooled(self, race: Race) -> bool:
        pool = self.store.race_pool(race.race_id)
        return pool is not None and pool.status == "pooled"

    def _fetch(self, race: Race, runs: list[dict[str, Any]]) -> None:
        """A pooled race's raced agents this node does not hold, fetched from their miners' commitments as of the
        race's start (as the audit fetches them), else from a validator whose pooled runs ran it
        (``GET /agents/<sha256>``), each tried once per race; one that cannot be is no code evidence, said in a
        signal."""
        if self.chain is None or not self._pooled(race):
            return
        missing = {
            (str(run["miner"]), str(run["submission"]))
            for run in runs
            if not bundle_path(self.config.data_dir, str(run["submission"])).is_dir()
            and (race.race_id, str(run["submission"])) not in self._tried
        }
        if not missing:
            return
        self._tried.update((race.race_id, sha256) for _, sha256 in missing)
        holders: dict[str, list[str]] = {}
        for run in runs:
            if run.get("validator"):
                holders.setdefault(str(run["submission"]), []).append(str(run["validator"]))
        _, notes = fetch_agents(
            self.chain,
            race.seed_block,
            missing,
            self.config.data_dir,
            wallet=self.wallet,
            timeout=self.timeout,
            holders=holders,
        )
        for note in notes:
            self.signals.info("copies.unfetched", race_id=race.race_id, note=note)

    def _runs(self, race: Race) -> list[dict[str, Any]]:
        """The race's runs (miner, submission, problem_id, behaviour, success, error_code): the pooled ones when
        pooled."""
        pool = self.store.race_pool(race.race_id)
        if pool is not None and pool.status == "pooled":
            return [run for rows in (pool.state.get("runs") or {}).values() for run in rows]
        return [
            {
                "miner": row["miner"],
                "submission": row["submission"],
                "problem_id": row["problem_id"],
                "behaviour": behaviour_of(row["trajectory"]),
                "success": float((row["strict"] or {}).get("success", 0.0)) if row["error_code"] is None else 0.0,
                "error_code": row["error_code"],
            }
            for row in self.store.race_evidence(race.race_id)
        ]

    def _dates(self, race: Race, runs: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
        """Each pair of raced miners' order: for a pooled race, what every validator's results bundle says
        (`pooled_dates`, with the stakes and registration blocks the pool pinned: the same on every node and in the
        audit); for a race this node judged alone, its own (`held_dates`), floored at each hotkey's registration."""
        pool = self.store.race_pool(race.race_id)
        if pool is not None and pool.status == "pooled":
            state = pool.state
            return pooled_dates(runs, state.get("dates") or {}, state.get("stakes"), state.get("registered"))
        raced = {str(run["miner"]): str(run["submission"]) for run in runs}
        registered = None
        if self.chain is not None:
            try:
                registered = {n.hotkey: n.block_at_registration for n in self.chain.metagraph().neurons}
            except ChainError:  # the chain unreachable: this node's own dates, unfloored (said in a signal)
                self.signals.info("copies.unfloored", race_id=race.race_id)
        return held_dates(self.store, self.config.data_dir, self.threshold, raced, registered)

    def _folder(self, sha256: str) -> Path | None:
        folder = bundle_path(self.config.data_dir, sha256)
        return folder if folder.is_dir() else None

    def judge(self, race: Race, results: list[MinerResult]) -> list[MinerResult]:
        runs = self._runs(race)
        self._fetch(race, runs)
        kept, verdicts = find_copies(
            results, runs, self._folder, threshold=self.threshold, dates=self._dates(race, runs)
        )
        self._save(race, verdicts)
        for v in verdicts:
            self.signals.info(
                "copies.copy" if v.copy_ else "copies.fork",
                race_id=race.race_id,
                hotkey=v.hotkey,
                copy_of=v.copy_of,
                kind=v.kind,
                similarity=v.similarity,
            )
        return kept

    def _save(self, race: Race, verdicts: list[CopyVerdict]) -> None:
        ids = {row["hotkey"]: row["submission_id"] for row in self.store.race_rows(race.race_id)}
        rows = [
            {
                "hotkey": v.hotkey,
                "submission_id": ids.get(v.hotkey),
                "copy_of": v.copy_of,
                "copy_of_submission_id": ids.get(v.copy_of),
                "via": v.via,
                "kind": v.kind,
                "similarity": v.similarity,
                "problems": list(v.problems),
                "score": v.score,
                "earlier_score": v.earlier_score,
                "earlier_high": v.earlier_high,
                "copy": v.copy_,
                "reason": v.reason,
            }
            for v in verdicts
        ]
        self.store.save_copy_verdicts(race.race_id, rows)
