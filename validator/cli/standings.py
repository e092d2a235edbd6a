"""`arena-validator standings`: the miners' standings as of a closed race, with how sure each one is."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from arena.cliutil import fail, out, print_table
from validator.cli.flags import STORE, with_settings
from validator.settings import Settings


def standings_of(store: Any, race_id: str | None) -> dict[str, Any]:
    """The standings as of `race_id` (default: the latest closed race of the rotation), as `--json` prints them."""
    from validator.api.shapes import RESULT_FIELDS, row
    from validator.api.views import CERTAINTY, TIE_BREAK, noise

    if race_id is None:
        closed = store.races(status="closed")
        if not closed:
            fail(
                "no race has closed yet; run the node (`arena-validator run`) until one closes, or try "
                "`arena-validator demo`"
            )
        race = closed[-1]
    else:
        race = store.race(race_id)
        if race is None:
            fail(f"no race {race_id!r} in the store; leave out --race for the latest closed race")
        if race.status != "closed":
            fail(f"race {race_id} is {race.status}: its standings exist once it closes")
    rows = [row(r, *RESULT_FIELDS) for r in store.race_results(race.race_id)]
    plan = race.plan or {}
    return {
        "race_id": race.race_id,
        "seed_block": race.seed_block,
        "samples_per_problem": int(plan.get("samples", 1)),
        "window": int(plan.get("window", 1)),
        "rows": rows,
        "noise": noise(rows),
        "certainty": CERTAINTY,
        "tie_break": TIE_BREAK,
    }


def _interval(r: dict[str, Any]) -> str:
    return "–" if r["low"] is None else f"{r['low']:.3f}–{r['high']:.3f}"


def _pass(r: dict[str, Any]) -> str:
    at, hat = r.get("pass_at_k") or {}, r.get("pass_hat_k") or {}
    return " ".join(f"{t} {at[t]:.2f}/{hat.get(t, 0.0):.2f}" for t in sorted(at)) or "–"


@with_settings(fields=STORE)
def standings_cmd(
    settings: Settings,
    race_id: Annotated[
        str | None, typer.Option("--race", help="The closed race to show the standings as of (default: the latest).")
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the standings as one JSON object.")] = False,
) -> None:
    """The miners' standings as of a closed race, each with how sure it is.

    score: the mean of the miner's samples over the pack rotation's window of races (`window`, this race included;
    a new submission joins the miner's window and its older versions' races roll out of it race by race, so
    committing again after an unlucky race sheds nothing); k samples per (miner, problem) with the rotation's
    `samples`. 95% interval: the Wilson score interval over the problems the miner ran
    (samples of one problem do not narrow it). P(rank 1): the share of 2000 bootstrap resamples of the problems
    (seeded by the race) in which the miner ranks first. pass@k / pass^k per task: the chance at least one / all of
    its k samples of a problem succeed. When other miners score inside rank 1's interval, the top ranks are within
    noise and the command says so.

    The band weight policy (`--weights.shadow band`, or `--weights.policy band`) pays the miners whose interval
    overlaps the leader's as one band: they split evenly what top_heavy gives the ranks they fill (ties within noise
    share); a miner whose score exactly equals an earlier member's is left out (an exact tie still goes to the
    earlier commitment). Try it as the shadow policy first: its vector is stored beside the live one for every race
    and shown at /api/weights, never sent.

    --json prints {race_id, seed_block, samples_per_problem, window, rows: [{hotkey, uid, rank, score, low, high,
    p_rank1, samples, pass_at_k, pass_hat_k, ...}], noise: {within_noise, note}, certainty, tie_break}."""
    from validator.node import NodeError, open_store

    try:
        store = open_store(settings)
    except NodeError as exc:
        fail(str(exc))
    try:
        found = standings_of(store, race_id)
    finally:
        store.close()
    if as_json:
        out.print_json(json.dumps(found))
        return
    table = Table(
        title=f"standings as of race {found['race_id']} (window {found['window']} race(s), "
        f"{found['samples_per_problem']} sample(s) per problem)"
    )
    for column in ("#", "hotkey", "uid", "score", "95% interval", "P(rank 1)", "samples", "pass@k/pass^k"):
        table.add_column(column, justify="left" if column in ("hotkey", "pass@k/pass^k") else "right")
    for r in found["rows"]:
        table.add_row(
            str(r["rank"]),
            r["hotkey"],
            "–" if r["uid"] is None else str(r["uid"]),
            f"{r['score']:.3f}",
            _interval(r),
            "–" if r["p_rank1"] is None else f"{r['p_rank1']:.0%}",
            "–" if r["samples"] is None else str(r["samples"]),
            _pass(r),
        )
    print_table(table)
    out.print(found["noise"]["note"] + ".", soft_wrap=True)
    out.print(found["certainty"] + ".", soft_wrap=True)
