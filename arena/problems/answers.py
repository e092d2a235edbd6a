"""Scoring answers made by any harness: a JSONL of ``{"problem_id", "product_ids"}`` against a pack and a catalog
(`arena score`). It reads packs, so it lives with them, above `arena.scoring`.

``product_ids`` is what the agent gave its last ``recommend_product`` call: a comma-separated string, read exactly
as the references read it; anything that is not a string (a list included) is no answer, as in both references. A
problem of the pack without an answer line is scored as unanswered (success 0), as both references count a rollout
with no recommendation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from arena.problems.pack import Pack
from arena.scoring.aggregate import SuiteScore, aggregate
from arena.scoring.models import RunScore
from arena.tasks import Ruleset, score


class AnswersError(ValueError):
    """An answers file that cannot be read as answers to this pack; the message says where and what to do."""


def read_answers(path: Path, pack: Pack) -> dict[str, Any]:
    """problem_id -> raw product_ids, from a JSONL file; every problem id must be in the pack, at most once."""
    known = {p.problem_id for p in pack.problems}
    answers: dict[str, Any] = {}
    where: dict[str, int] = {}
    try:
        handle = path.open(encoding="utf-8")
    except FileNotFoundError:
        raise AnswersError(
            f'answers file {path} does not exist; give a JSONL file of {{"problem_id": ..., "product_ids": "id1,id2"}}'
        ) from None
    except OSError as exc:
        raise AnswersError(f"cannot read answers file {path}: {exc.strerror or exc}") from None
    with handle:
        for number, line in enumerate(handle, 1):
            if not line.strip():
                continue
            try:
                row = json.loads(line)
            except json.JSONDecodeError as exc:
                raise AnswersError(
                    f"{path}:{number} is not JSON ({exc.msg}); each line is one "
                    '{"problem_id": ..., "product_ids": ...}'
                ) from None
            except UnicodeDecodeError as exc:
                raise AnswersError(f"{path}:{number} is not UTF-8 ({exc.reason})") from None
            if not isinstance(row, dict) or "problem_id" not in row:
                raise AnswersError(
                    f'{path}:{number} has no problem_id; each line is one {{"problem_id": ..., "product_ids": ...}}'
                )
            problem_id = str(row["problem_id"])
            if problem_id not in known:
                raise AnswersError(
                    f"{path}:{number} answers problem {problem_id!r}, which is not in pack "
                    f"{pack.pack_id}; score it against the pack its problems came from"
                )
            if problem_id in answers:
                raise AnswersError(
                    f"{path}:{number} answers problem {problem_id!r} again (first at line "
                    f"{where[problem_id]}); keep one answer per problem"
                )
            value = row.get("product_ids", "")
            answers[problem_id] = value if isinstance(value, str) else ""  # a non-string is no answer, as in both
            where[problem_id] = number
    return answers


def score_answers(
    pack: Pack, answers: dict[str, Any], lookup: Callable[[str], dict[str, Any] | None], ruleset: Ruleset
) -> Iterator[tuple[str, RunScore | None]]:
    """(problem_id, score) for every problem of the pack, in pack order, each by its family's strict checks
    (`arena.tasks.score`) under ``ruleset`` where its family defines it, else under the pack's ruleset for the
    family (`Pack.ruleset_for`); None for a problem with no answer line."""
    for problem in pack.problems:
        if problem.problem_id not in answers:
            yield problem.problem_id, None
            continue
        yield (
            problem.problem_id,
            score(
                problem,
                answers[problem.problem_id],
                lookup,
                gold_vectors=pack.gold_vectors(problem.problem_id),
                ruleset=pack.ruleset_for(problem.task, ruleset.name),
            ),
        )


def summary(pack: Pack, scores: dict[str, RunScore | None]) -> SuiteScore:
    tasks = {p.problem_id: p.task for p in pack.problems}
    return aggregate((tasks[pid], score) for pid, score in scores.items())
