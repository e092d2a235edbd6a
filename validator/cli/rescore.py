"""`arena-validator rescore`: score a race's stored runs again after a ruleset or rubric change."""

from __future__ import annotations

from typing import Annotated

import typer
from rich.table import Table

from arena.cliutil import fail, print_table
from validator.cli.flags import STORE, with_settings
from validator.settings import Settings


@with_settings(fields=(*STORE, "catalog", "pack", "pack_signer", "pack_allow_dev_signer"))
def rescore_cmd(
    settings: Settings,
    race_id: Annotated[str, typer.Option("--race", help="The race whose stored runs to score again.")],
    ruleset: Annotated[
        str | None, typer.Option("--ruleset", help="shoppingbench or sn15 (default: the pack's).")
    ] = None,
) -> None:
    """Score a race's stored runs again after a ruleset or rubric change. The answer is read again from each run's
    stored trajectory; the judge's stored quality makes the final score by the current rubric. The replaced verdicts
    are kept beside the new ones with their versions; the race's stored results and weights already set are not
    changed (the table shows each miner's mean before and after). Needs --pack and --catalog of the race."""
    from arena.cliutil import progress_bar
    from arena.judge.rubric import SN15_RUBRIC
    from arena.tasks import UnknownRuleset, get_ruleset
    from validator.node import NodeError, open_pack, open_store
    from validator.rescore import RescoreError, rescore_race

    try:
        store = open_store(settings)
        catalog, pack = open_pack(settings)
    except NodeError as exc:
        fail(str(exc))
    try:
        rules = get_ruleset(ruleset or pack.ruleset)
    except UnknownRuleset as exc:
        fail(f"--ruleset: {exc}")
    with progress_bar() as bar:
        task = bar.add_task("rescoring", total=None, rate="")
        try:
            report = rescore_race(
                store, pack, catalog.get, race_id, ruleset=rules, rubric=SN15_RUBRIC, progress=lambda: bar.advance(task)
            )
        except RescoreError as exc:
            fail(str(exc))
    table = Table(
        title=f"race {race_id} rescored by {report.ruleset} (rubric {report.rubric}): {report.revised} "
        f"of {report.runs} scored runs revised, {report.flipped} changed success, "
        f"{report.unchanged} unchanged"
    )
    for column in ("hotkey", "mean before", "mean after"):
        table.add_column(column, justify="left" if column == "hotkey" else "right")
    for hotkey, (before, after) in report.per_miner.items():
        table.add_row(hotkey, f"{before:.4f}", f"{after:.4f}")
    print_table(table)
