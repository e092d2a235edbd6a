"""`export_corpus`: the funnel run over a store, into a workspace next to ``out``, then moved into place."""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from validator.corpus.decontaminate import TestSet
from validator.corpus.extract import extract
from validator.corpus.normalize import dumps
from validator.corpus.options import BATCH, CORPUS_VERSION, CorpusError, ExportOptions, Progress
from validator.corpus.selection import select
from validator.corpus.workspace import Workspace
from validator.corpus.writer import write_corpus


@dataclass
class ExportResult:
    out: Path
    train: int
    eval: int
    funnel: dict[str, Any]
    stats: dict[str, Any]
    resumed_from: int  # runs an earlier, interrupted export had already done


def _digest(store: Any, options: ExportOptions, test_sets: Sequence[TestSet], until: datetime | None) -> str:
    where = store.engine.url.render_as_string(hide_password=True)
    payload = {
        "version": CORPUS_VERSION,
        "store": where,
        "options": options.described(test_sets),
        "until_effective": until.isoformat() if until else None,
    }
    return hashlib.sha256(dumps(payload).encode()).hexdigest()


def check_export(store: Any, out: Path, options: ExportOptions) -> dict[str, Any]:
    """Everything that can be refused before anything is written (one line per problem): the options, the output
    folder, an empty store, a window without runs. Returns the store's run counts."""
    problems = options.problems()
    if problems:
        raise CorpusError(*problems)
    if out.exists():
        raise CorpusError(f"{out} already exists; the export never overwrites: choose a new --out or remove it")
    counts: dict[str, Any] = store.export_counts(since=options.since, until=options.until, tasks=options.tasks)
    if counts["runs"] == 0:
        raise CorpusError(
            "the store holds no runs yet: there is nothing to export; run races first "
            "(arena-validator run, or arena-validator demo)"
        )
    if counts["final"] == 0:
        raise CorpusError(f"none of the store's {counts['runs']} runs has ended yet; export when races have run")
    if counts["selected"] == 0:
        window = (
            f"between {options.since.isoformat() if options.since else 'the beginning'} and "
            f"{options.until.isoformat() if options.until else 'now'}"
        )
        tasks = f" of task {', '.join(sorted(options.tasks))}" if options.tasks else ""
        raise CorpusError(
            f"no run ended {window}{tasks}: the store's {counts['final']} ended runs span "
            f"{counts['first_ended'].isoformat()} to {counts['last_ended'].isoformat()}; widen "
            "--since/--until or --task"
        )
    return counts


def export_corpus(
    store: Any,
    out: str | os.PathLike[str],
    options: ExportOptions | None = None,
    *,
    progress: Progress | None = None,
    batch_size: int = BATCH,
) -> ExportResult:
    """Run the funnel over `store` (a `validator.store.repository.Store`) and write the corpus to `out`.

    `progress(stage, done, total)` is called as work advances (stages ``extract``, ``write``). An exception raised
    there (or anywhere) stops the export with everything done so far kept in the workspace: calling again with the
    same options resumes. Raises `CorpusError` for anything the user can fix, before writing anything."""
    options = options or ExportOptions()
    out = Path(out).absolute()
    counts = check_export(store, out, options)
    test_sets = [TestSet.load(p) for p in options.decontaminate]
    space = Workspace(out, _digest(store, options, test_sets, options.until))
    # the snapshot's upper bound: the first attempt's start time, kept by the workspace so a resume reads the same
    # runs (never written to the output files, so a rerun on the same store gives the same bytes)
    provisional = options.until or datetime.now(UTC)
    try:
        space.open()
    except OSError as exc:
        space.close()
        raise CorpusError(f"cannot write next to {out}: {exc.strerror or exc}; choose another --out") from None
    try:
        assert space.db is not None  # open() connected it
        stored_until = space.get("until_effective")
        if stored_until is None:
            with space.db:
                space.set("until_effective", provisional.isoformat())
            stored_until = provisional.isoformat()
        effective_until = datetime.fromisoformat(stored_until)
        selected = store.export_counts(since=options.since, until=effective_until, tasks=options.tasks)["selected"]
        done_before = int(space.get("processed") or 0)
        extract(store, space, options, effective_until, selected, progress, batch_size)
        selection = select(store, space.db, options, test_sets)
        funnel, stats, train, evaluation = write_corpus(space, options, test_sets, counts, selection, progress)
    except BaseException:
        space.close()
        raise
    space.finish()
    return ExportResult(out=out, train=train, eval=evaluation, funnel=funnel, stats=stats, resumed_from=done_before)
