"""The ShoppingBench family's hooks for `arena problems`: its importer (``arena problems import``: ShoppingBench's
test records and ORO's suites, optionally with a catalog rebuilt so every problem is playable) and its self-check
(golds pass, recorded distractors fail, and a blind baseline's success per task)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any, Unpack

from arena.tasks.base import SelfcheckOptions
from arena.tasks.hooks import Imported, Importer, ImportOptions, SelfCheckReport, Table

IMPORT_VERSION = "shoppingbench-import/1"


def import_records(files: Sequence[Path], options: ImportOptions) -> Imported:
    """ShoppingBench test records or ORO suites (task detected per record); with a catalog to rebuild, a gold
    product named by several problems is built once to meet them all, and problems that cannot be satisfied
    together are left out, each reported in one line."""
    from arena.tasks.shoppingbench.importer import import_files

    report = import_files(files)
    made = Imported(list(report.problems), list(report.bad), version=IMPORT_VERSION)
    if options.rebuild_catalog is None or not made.problems:
        return made
    from arena.tasks.shopping.rebuild import rebuild_catalog

    total = options.background_size + sum(len(p.reward) for p in made.problems)
    rebuilt = rebuild_catalog(
        made.problems,
        options.rebuild_catalog,
        background_seed=options.background_seed,
        background_size=options.background_size,
        force=options.force,
        progress=options.step("rebuilding catalog", total),
    )
    made.problems, made.catalog_digest = list(rebuilt.problems), rebuilt.digest
    made.notes += [f"unsatisfiable {skipped}" for skipped in rebuilt.skipped]
    made.summary.append(
        f"rebuilt catalog {options.rebuild_catalog}: {rebuilt.products:,} products ({rebuilt.golds} golds, "
        f"{rebuilt.distractors} distractors, {rebuilt.web_pages} web pages); digest {rebuilt.digest}"
    )
    return made


IMPORTER = Importer(
    command="import",
    help="Import ShoppingBench test records or ORO suites (task detected per record); bad records are reported by "
    "line.\n\nWith --rebuild-catalog, a gold product named by several problems is built once to meet them all; "
    "problems that cannot be satisfied together are left out, each reported in one line with the constraint that "
    "clashes.",
    files_help="ShoppingBench test files (product, shop, voucher, web JSONL) or ORO problem suites (one JSON array).",
    run=import_records,
    rebuild="optional",
    default_background="100k",
)


def _fairness_tables(report: Any) -> list[Table]:
    """The catalog's contradictions per field, and the tool-visible oracle per task."""
    tables = []
    if report.consistency is not None:
        found = report.consistency
        fields = Table(
            f"consistency: {found['contradicting_products']} of {found['products']} products contradict themselves",
            ["field", "products contradicting"],
        )
        fields.rows.extend([name, str(n)] for name, n in found["by_field"].items())
        tables.append(fields)
    if report.oracle:
        seen = Table("tool-visible oracle", ["task", "problems", "solved", "distractors", "distractors passing"])
        for name, row in report.oracle.items():
            seen.rows.append(
                [name, str(row.problems), f"{row.rate:.1%}", str(row.distractors), str(row.distractors_passed)]
            )
        tables.append(seen)
    return tables


def selfcheck(problems: Sequence[Any], catalog: Any, **options: Unpack[SelfcheckOptions]) -> SelfCheckReport:
    """Every gold answer and every recorded distractor through the ruleset (gold 100%, distractors 0%), the blind
    baseline (top search hits, no reading): its success per task should stay low; the catalog's contradictions per
    field (none) and the tool-visible oracle (every problem solved, no distractor passing)."""
    step, vectors, ruleset = options.get("step"), options.get("vectors"), options.get("ruleset")
    from arena.tasks.shoppingbench.selfcheck import selfcheck as check

    report = check(
        problems,
        catalog.get,
        vectors=vectors,
        progress=step("self-check", len(problems)) if step else None,
        catalog=catalog,
        ruleset=ruleset,
    )
    golds = Table("self-check", ["task", "problems", "gold pass", "distractors", "distractor pass"])
    for name, row in report.by_task.items():
        golds.rows.append(
            [name, str(row.problems), f"{row.gold_rate:.1%}", str(row.distractors), f"{row.distractor_pass_rate:.1%}"]
        )
    blind = Table(
        f"blind baseline (top search hits, nothing read), {ruleset or 'shoppingbench'} ruleset",
        ["task", "problems", "top hits for the query", "top hit for the top web result"],
    )
    for name, hits in report.baseline.items():
        web = "" if hits.web_rate is None else f"{hits.web_rate:.1%}"
        blind.rows.append([name, str(hits.problems), f"{hits.query_rate:.1%}", web])
    tables = [golds, blind, *_fairness_tables(report)]
    failed = {line.split(":", 1)[0] for line in report.failures}
    return SelfCheckReport(
        tables=tables,
        failures=list(report.failures),
        ok=report.ok,
        figures=report.summary(),
        kept=[p for p in problems if p.problem_id not in failed],
    )
