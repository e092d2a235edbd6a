"""Steps 8-10 of the funnel, on the workspace's survivors (redone whole on a resume: they are quick): the cap per
problem, the leak-guarded split, decontamination against public test sets; then the leak audit of what is kept."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from validator.corpus.decontaminate import Decontaminator, TestSet
from validator.corpus.extract import ProblemInfo, problem_info
from validator.corpus.normalize import dumps
from validator.corpus.options import CorpusError, ExportOptions
from validator.corpus.split import SplitOutcome, SplitProblem, SplitRow, audit_split, split_corpus


@dataclass
class Selection:
    """What steps 8-10 decided, for the writer: the kept problems, the rows each test set removed, the audit."""

    infos: dict[str, ProblemInfo]
    contamination: dict[str, dict[str, int]]  # test set -> reason -> rows dropped
    audit: dict[str, Any]


def select(store: Any, db: sqlite3.Connection, options: ExportOptions, test_sets: Sequence[TestSet]) -> Selection:
    """Steps 8-10 on the workspace's rows, then the audit; raises `CorpusError` (writing nothing) if it fails."""
    with db:
        db.execute("UPDATE rows SET drop_step = NULL, drop_reason = NULL, side = NULL, cluster = NULL")
        cap(db, options.cap_per_problem)
    ids = [r[0] for r in db.execute("SELECT DISTINCT problem_id FROM rows WHERE drop_step IS NULL")]
    infos = {p.problem_id: problem_info(p) for p in store.export_problems(ids)}
    problems = {pid: info.problem for pid, info in infos.items()}
    held_out = store.held_out_answers()
    outcome = split(db, problems, options, held_out)
    contamination = decontaminate(db, problems, outcome, test_sets, options.near_threshold)
    audit = audit_split(
        (
            (side, problems[pid], orjson.loads(rec))
            for side, pid, rec in db.execute(
                "SELECT side, problem_id, recommended FROM rows WHERE drop_step IS NULL ORDER BY chat_hash"
            )
        ),
        held_out,
    )
    if not audit["passed"]:
        raise CorpusError(
            f"the split's leak audit failed ({dumps(audit)}); nothing was written: please report "
            "this with the store's funnel"
        )
    return Selection(infos=infos, contamination=contamination, audit=audit)


def cap(db: sqlite3.Connection, cap_per_problem: int) -> None:
    """8. At most `cap_per_problem` rows per problem: best judge quality first, then round-robin over miners, then
    the final score."""
    db.execute(
        """
        UPDATE rows SET drop_step = 'cap', drop_reason = 'over_cap' WHERE chat_hash IN (
          SELECT chat_hash FROM (
            SELECT chat_hash, ROW_NUMBER() OVER (PARTITION BY problem_id
                                                 ORDER BY quality DESC, miner_rank, final DESC, chat_hash) AS rn
            FROM (SELECT chat_hash, problem_id, quality, final,
                         ROW_NUMBER() OVER (PARTITION BY problem_id, hotkey
                                            ORDER BY quality DESC, final DESC, chat_hash) AS miner_rank
                  FROM rows))
          WHERE rn > ?)""",
        (cap_per_problem,),
    )


def split(
    db: sqlite3.Connection, problems: dict[str, SplitProblem], options: ExportOptions, held_out: set[str]
) -> SplitOutcome:
    """9. Each surviving row's side and leak cluster; rows of held-out problems or answers dropped."""
    survivors = (
        SplitRow(key=h, problem_id=p, recommended=tuple(orjson.loads(r)))
        for h, p, r in db.execute(
            "SELECT chat_hash, problem_id, recommended FROM rows WHERE drop_step IS NULL ORDER BY chat_hash"
        )
    )
    outcome = split_corpus(
        problems, survivors, held_out_fraction=options.held_out_fraction, seed=options.seed, held_out_answers=held_out
    )
    with db:
        db.executemany(
            "UPDATE rows SET drop_step = 'split', drop_reason = ? WHERE chat_hash = ?",
            [(reason, key) for key, reason in sorted(outcome.dropped.items())],
        )
        db.executemany(
            "UPDATE rows SET side = ?, cluster = ? WHERE problem_id = ? AND drop_step IS NULL",
            [(outcome.side[p], outcome.cluster[p], p) for p in sorted(outcome.side)],
        )
    return outcome


def decontaminate(
    db: sqlite3.Connection,
    problems: dict[str, SplitProblem],
    outcome: SplitOutcome,
    test_sets: Sequence[TestSet],
    threshold: float,
) -> dict[str, dict[str, int]]:
    """10. Rows whose problem's query a public test set holds (exactly or nearly) dropped; the count per test set
    and reason."""
    contamination: dict[str, dict[str, int]] = {
        t.name: {"exact_query": 0, "near_duplicate_query": 0} for t in test_sets
    }
    if not test_sets:
        return contamination
    cleaner = Decontaminator(test_sets, threshold)
    with db:
        for problem_id in sorted(outcome.side):
            found = cleaner.match(problems[problem_id].query)
            if found is None:
                continue
            reason, name = found
            n = db.execute(
                "UPDATE rows SET drop_step = 'decontaminate', drop_reason = ? WHERE problem_id = ? "
                "AND drop_step IS NULL",
                (reason, problem_id),
            ).rowcount
            contamination[name][reason] += n
    return contamination
