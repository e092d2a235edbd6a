"""The store's one repository: every read and write the node makes, on PostgreSQL or SQLite with the same code.

Rules it keeps:
- a run moves only along its status machine (`validator.store.moves`: `pending -> starting -> running -> scoring ->
  judged -> finished`, or `errored`; a validator-blamed `errored` run goes back to `pending` for a retry); an illegal
  move is a `StoreError`, never a silent overwrite;
- trajectory events are written in batches (one multi-row INSERT per batch), and a run's events commit together with
  its status change (`record_run`), so a crash never leaves a run `scoring` without its trajectory;
- everything is idempotent where a resumed job may repeat it (`upsert_miners`, `create_runs`, `add_pack`).

Connecting is lazy: `Store(url)` builds the engine; `Store.open(url)` also checks the database answers (retrying with
backoff) and that its schema is the code's (`validator.store.schema.check_current`).

The repository is one class, `Store`, mixed from one part per aggregate: runs and their events (`runs`), races and
their results (`races`), scores (`scores`), miners and submissions (`submissions`), packs and problems (`packs`),
weight sets (`weights`), race pools (`pools`), the corpus export's reads (`corpus`), qualifying rounds
(`qualifying`), copy verdicts (`copies`) and the API's pages (`views`); connecting is `validator.store.engine`, the
run status machine `validator.store.moves`.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sqlalchemy import Engine
from sqlalchemy.orm import Session, sessionmaker

from validator.store.copies import CopiesStore
from validator.store.corpus import CorpusStore
from validator.store.engine import EVENT_BATCH, make_engine, wait_for
from validator.store.errors import StoreError
from validator.store.moves import FINAL_STATUSES, RUN_STATUSES
from validator.store.packs import PacksStore
from validator.store.pools import PoolsStore
from validator.store.qualifying import QualifyingStore
from validator.store.races import RacesStore
from validator.store.runs import RunsStore
from validator.store.scores import ScoresStore
from validator.store.submissions import SubmissionsStore
from validator.store.upkeep import UpkeepStore
from validator.store.views import ViewsStore
from validator.store.weights import WeightsStore


def blame_of(code: int | None) -> str | None:
    """Who is to blame for a run error code, from `arena.blame`'s one table (1xxx the agent, 2xxx the validator);
    `ValueError` for a code the table does not hold."""
    from arena.blame import blame_of as table_blame

    return table_blame(code)


class Store(
    RunsStore,
    ScoresStore,
    RacesStore,
    SubmissionsStore,
    PacksStore,
    WeightsStore,
    PoolsStore,
    CorpusStore,
    QualifyingStore,
    CopiesStore,
    ViewsStore,
    UpkeepStore,
):
    """The node's repository over one database (PostgreSQL or SQLite)."""

    def __init__(self, url: str, *, engine: Engine | None = None) -> None:
        self.engine = engine or make_engine(url)
        self.dialect = self.engine.dialect.name
        self._sessions = sessionmaker(self.engine, expire_on_commit=False)

    @classmethod
    def open(cls, url: str, *, attempts: int = 1, check_schema: bool = True, log: Any = None) -> Store:
        """A store whose database answers and whose schema is this code's (else `StoreError` / `SchemaError`)."""
        from validator.store.schema import check_current

        store = cls(url, engine=make_engine(url, create=not check_schema))  # a current schema must exist already
        wait_for(store.engine, attempts=attempts, log=log)
        if check_schema:
            check_current(store.engine)
        return store

    def close(self) -> None:
        self.engine.dispose()

    @contextmanager
    def session(self) -> Iterator[Session]:
        """One transaction: committed when the block ends, rolled back on any error."""
        with self._sessions.begin() as session:
            yield session


__all__ = [
    "Store",
    "StoreError",
    "make_engine",
    "wait_for",
    "blame_of",
    "RUN_STATUSES",
    "FINAL_STATUSES",
    "EVENT_BATCH",
]
