"""The session family's hooks for `arena problems`: its importer (``arena problems import-sessions``: EComAgentBench
task records as sessions, each target rebuilt as a gold product in a catalog, then self-checked) and its self-check
(feasible, needs the conversation, solved by the reference agent, failed by a blind one)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Unpack

from arena.tasks.base import SelfcheckOptions
from arena.tasks.hooks import Imported, Importer, ImportOptions, SelfCheckReport, Table

IMPORT_VERSION = "ecomagentbench-import/1"


def import_sessions(files: Sequence[Path], options: ImportOptions) -> Imported:
    """EComAgentBench tasks as sessions on a rebuilt catalog; with ``keep_failing`` the sessions that fail a
    self-check are packed too."""
    from arena.catalog import Catalog
    from arena.tasks.session.importer import import_files
    from arena.tasks.session.rebuild import rebuild_sessions

    assert options.rebuild_catalog is not None, "import-sessions needs a catalog to rebuild"
    report = import_files(files)
    made = Imported(list(report.problems), list(report.bad), version=IMPORT_VERSION)
    if report.dropped:
        dropped = ", ".join(f"{n} {kind}" for kind, n in sorted(report.dropped.items()))
        made.notes.append(f"rubrics left out (no place in the reward grammar): {dropped}")
    if not made.problems:
        return made
    options.step("rebuilding catalog", None)
    rebuilt = rebuild_sessions(
        report.problems,
        options.rebuild_catalog,
        background_seed=options.background_seed,
        background_size=options.background_size,
        force=options.force,
    )
    made.notes += [f"unsatisfiable {skipped}" for skipped in rebuilt.skipped]
    checked = selfcheck(rebuilt.problems, Catalog.open(options.rebuild_catalog), step=options.step)
    made.notes += [f"self-check {failure}" for failure in checked.failures]
    passed = ", ".join(f"{check} {n}" for check, n in checked.figures["passed"].items())
    made.summary.append(
        f"{len(report.problems)} of {len(report.problems) + len(report.bad)} records imported; "
        f"{len(rebuilt.problems)} playable in {options.rebuild_catalog}; self-checks passed: {passed}; "
        f"{len(checked.kept)} pass them all"
    )
    made.problems = list(rebuilt.problems) if options.keep_failing else list(checked.kept)
    if not made.problems:
        made.nothing = (
            "no imported session passed every self-check; nothing was written (--keep-failing packs them anyway)"
        )
    made.catalog_digest = rebuilt.digest
    return made


IMPORTER = Importer(
    command="import-sessions",
    help="Import EComAgentBench tasks (user_query, user_persona, clarification_script, rubrics, target_product) as "
    "shopping sessions: query rubrics become the opening's needs, persona rubrics the profile's, each clarification "
    "slot a need the shopper says when asked. Each bad record is reported in one line; rubric kinds our reward "
    "grammar cannot hold (rating and review-count minimums, negative attributes, review opinions) are counted and "
    "left out. The sessions are then self-checked on the rebuilt catalog (feasible, needs the conversation, solved "
    "by the reference agent, failed by a blind one) and only those that pass every check are packed.",
    files_help="EComAgentBench task records (JSON Lines, one task per line).",
    run=import_sessions,
    rebuild="required",
    default_background="20k",
    keep_failing=True,
)


def selfcheck(problems: Sequence[Any], catalog: Any, **options: Unpack[SelfcheckOptions]) -> SelfCheckReport:
    """Every session check on every problem; the problems that pass them all, labelled by difficulty."""
    step = options.get("step")
    from arena.tasks.session.rebuild import selfcheck_imported

    if step:
        step("self-checking", None)
    checked = selfcheck_imported(problems, catalog)
    figures = checked.summary()
    table = Table("session self-check", ["check", "sessions past it"])
    table.rows = [[check, f"{n} of {checked.problems}"] for check, n in figures["passed"].items()]
    return SelfCheckReport(
        tables=[table], failures=list(checked.failures), ok=not checked.failures, figures=figures, kept=checked.kept
    )
