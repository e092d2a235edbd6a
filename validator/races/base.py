"""What the parts of the arena share: its state, its log, its problems."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from arena import tasks
from arena.catalog import Catalog
from arena.judge import Judge
from arena.problems.pack import Pack as ProblemPack
from arena.tasks import ProblemBase
from sandbox.backends import Sandbox
from sandbox.gateway import Gateway, GatewayServer
from validator.chain.port import ChainPort
from validator.dispatch import Dispatcher
from validator.qualifying import Qualifying
from validator.races.config import ArenaConfig
from validator.races.stages import StageTimes
from validator.store.repository import Store


class ArenaParts:
    """What every part of the arena reads: set by `Arena.__init__`, declared here so each part is typed alone."""

    store: Store
    chain: ChainPort
    wallet: Any
    pack: ProblemPack
    catalog: Catalog
    sandbox: Sandbox | None
    config: ArenaConfig
    gateway: Gateway
    dispatcher: Dispatcher
    judge: Judge
    fallback_judge: Judge
    policy: Any
    shadow_policy: Any
    log: Any
    _metrics: Any
    metrics: Any  # a validator.metrics.Metrics, or None (a property of `Arena`)
    in_flight: dict[str, asyncio.Task[Any]]
    stages: StageTimes
    qualifying: Qualifying
    pooling: Any  # validator.races.pooling.Pooling
    _problems: dict[str, ProblemBase]
    _vectors: dict[str, list[str]]
    _batch_wait: dict[int, tuple[float, int, str]]
    _batch_since: dict[int, float]
    _sync_wait: dict[int, float]
    _relay: Any
    _work: Path | None
    _server: GatewayServer | None
    _judging: set[str]
    _scored: dict[str, tuple[tuple[float, float], list[Any], float]]
    _bundles: dict[int, str]
    _judge_gate: tuple[Any, asyncio.Semaphore] | None
    _judge_tokens: dict[str, int]
    _judge_failures: dict[str, int]
    _lost: dict[str, tuple[int, str]]
    _qualify_wait: str | None

    @property
    def hotkey(self) -> str:
        return str(self.wallet.hotkey.ss58_address)

    def _info(self, event: str, **kw: Any) -> None:
        if self.log is not None:
            self.log.info(event, **kw)

    def _warn(self, event: str, **kw: Any) -> None:
        if self.log is not None:
            self.log.warning(event, **kw)

    def gold_vectors(self, problem_id: str) -> list[Any] | None:
        """The gold title embeddings of a problem: the pack's, or its opened batch's."""
        if problem_id in self._vectors:
            from arena.problems.pack import decode_vector

            return [decode_vector(text) for text in self._vectors[problem_id]] or None
        return self.pack.gold_vectors(problem_id)

    def _problem(self, problem_id: str) -> ProblemBase | None:
        """A problem of the pack, or of a batch opened earlier (read back from the store after a restart)."""
        found = self._problems.get(problem_id)
        if found is None and self.pack.sealed:
            row = self.store.problem(problem_id)
            if row is not None:
                found = self._problems[problem_id] = tasks.parse_problem(row.data)
        return found
