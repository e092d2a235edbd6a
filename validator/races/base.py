"""What the parts of the race machine share: the node's signals (its log and metrics) and the problems it holds.

Each part (`validator.races.opening`, `dispatching`, `judging`, `closing`, `weighing`) is a component that owns its
own state and is handed only the collaborators it uses; `validator.races.arena.Arena` composes them."""

from __future__ import annotations

from typing import Any

from arena import tasks
from arena.catalog import Catalog
from arena.problems.pack import Pack as ProblemPack
from arena.tasks import ProblemBase
from sandbox.backends import Sandbox
from sandbox.gateway import Gateway
from validator.chain.port import ChainPort
from validator.dispatch import Dispatcher
from validator.qualifying import Qualifying
from validator.races.config import ArenaConfig
from validator.races.stages import StageTimes
from validator.store.repository import Store


class Signals:
    """The node's log (a structlog logger, or None) and metrics (a `validator.metrics.Metrics`, or None: set once the
    node serves them), shared by every part."""

    def __init__(self, log: Any = None, metrics: Any = None) -> None:
        self.log, self.metrics = log, metrics

    def info(self, event: str, **kw: Any) -> None:
        if self.log is not None:
            self.log.info(event, **kw)

    def warn(self, event: str, **kw: Any) -> None:
        if self.log is not None:
            self.log.warning(event, **kw)

    def error(self, event: str, **kw: Any) -> None:
        if self.log is not None:
            self.log.error(event, **kw)


class Problems:
    """The problems the node races: the pack's, those of the sealed batches it opened and those made fresh for its
    qualifying rounds (both read back from the store after a restart), with their gold title embeddings."""

    def __init__(self, pack: ProblemPack, store: Store) -> None:
        self.pack, self.store = pack, store
        self.known: dict[str, ProblemBase] = {p.problem_id: p for p in pack.problems}
        self.vectors: dict[str, list[str]] = {}  # gold title embeddings of opened sealed batches

    def add(self, problems: list[ProblemBase], vectors: dict[str, list[str]]) -> None:
        """An opened batch's problems and their gold title embeddings."""
        for problem in problems:
            self.known[problem.problem_id] = problem
        self.vectors.update(vectors)

    def add_fresh(self, problems: list[ProblemBase]) -> None:
        """Problems made for a qualifying round (`arena.problems.fresh`), stored and known from now on."""
        self.store.add_problems(self.pack.pack_id, [p.model_dump(mode="json") for p in problems])
        for problem in problems:
            self.known[problem.problem_id] = problem

    def problem(self, problem_id: str) -> ProblemBase | None:
        """A problem of the pack, of a batch opened earlier or of a qualifying round (read back from the store after
        a restart)."""
        found = self.known.get(problem_id)
        if found is None:
            row = self.store.problem(problem_id)
            if row is not None:
                found = self.known[problem_id] = tasks.parse_problem(row.data)
        return found

    def gold_vectors(self, problem_id: str) -> list[Any] | None:
        """The gold title embeddings of a problem: the pack's, its opened batch's, or (a qualifying round's) made by
        its family as a pack would store them."""
        from arena.problems.pack import decode_vector

        if problem_id not in self.vectors:
            problem = self.problem(problem_id)
            if problem is not None and problem.split == "qualifying":
                from arena.problems.pack.making import embed_titles

                self.vectors.update(embed_titles([problem]))
        if problem_id in self.vectors:
            return [decode_vector(text) for text in self.vectors[problem_id]] or None
        return self.pack.gold_vectors(problem_id)


class ArenaParts:
    """What the arena exposes to the helpers that take the whole node (`validator.qualifying.Qualifying`, and any
    later one): declared here so each is typed alone. The race machine's own parts never take the arena."""

    store: Store
    chain: ChainPort
    wallet: Any
    pack: ProblemPack
    catalog: Catalog
    sandbox: Sandbox | None
    config: ArenaConfig
    gateway: Gateway
    dispatcher: Dispatcher
    log: Any
    signals: Signals
    problems: Problems
    metrics: Any  # a validator.metrics.Metrics, or None (a property of `Arena`)
    stages: StageTimes
    qualifying: Qualifying
    pooling: Any  # validator.races.pooling.Pooling

    @property
    def hotkey(self) -> str:
        return str(self.wallet.hotkey.ss58_address)

    def _info(self, event: str, **kw: Any) -> None:
        self.signals.info(event, **kw)

    def _warn(self, event: str, **kw: Any) -> None:
        self.signals.warn(event, **kw)

    def gold_vectors(self, problem_id: str) -> list[Any] | None:
        return self.problems.gold_vectors(problem_id)

    def _problem(self, problem_id: str) -> ProblemBase | None:
        return self.problems.problem(problem_id)
