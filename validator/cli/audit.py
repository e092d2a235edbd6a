"""`arena-validator audit`: re-derive a past race from chain, pack and published results bundles (no store)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer
from rich.table import Table

from arena.cliutil import fail, out
from validator.cli.flags import with_settings
from validator.settings import Settings

if TYPE_CHECKING:
    from validator.audit import AuditReport

CHAIN = ("chain", "subtensor_network", "subtensor_chain_endpoint", "netuid", "localchain_path")
WALLET = ("wallet_name", "wallet_hotkey", "wallet_path")


@with_settings(
    fields=(
        *CHAIN,
        *WALLET,
        "catalog",
        "pack",
        "pack_signer",
        "pack_allow_dev_signer",
        "weight_policy",
        "burn_uid",
        "data_dir",
        "copy_similarity",
    )
)
def audit_cmd(
    settings: Settings,
    race_id: Annotated[str, typer.Option("--race", help="The race to audit (<pack id prefix>-<start block>).")],
    miner: Annotated[str | None, typer.Option("--miner", help="Also list this miner hotkey's runs.")] = None,
    json_file: Annotated[
        Path | None, typer.Option("--json", help="Write per validator: hotkey, matches, reason.")
    ] = None,
    cutoff_blocks: Annotated[
        int | None,
        typer.Option(
            "--cutoff-blocks",
            help="Blocks from the race's start to its pooling cut-off "
            "(default: 3/4 of the pack's cadence, as the node's).",
            min=1,
        ),
    ] = None,
    weights_block: Annotated[
        int | None, typer.Option("--weights-block", help="Compare the weights as of this block (default: now).")
    ] = None,
    timeout: Annotated[float, typer.Option("--timeout", help="Seconds to fetch one bundle.", min=0.1)] = 20.0,
) -> None:
    """Audit a past race: fetch every results bundle its validators committed by the cut-off, re-derive every strict
    verdict from its trajectory, pool the verified runs, compute the weights they imply with the subnet's policy,
    and say per validator whether the weights it set on chain match, u16 for u16. The fork rule is applied as every
    node applies it (a later agent close to an earlier one by code or behaviour earns only by beating it beyond
    noise): the raced agents' bundles are fetched into --data-dir's bundles folder (a node's own are reused). Needs
    the race's --pack and --catalog, the chain, and a wallet whose hotkey signs the fetches; no store."""
    from arena.weights import parse_policy
    from validator.audit import AuditError, audit_race
    from validator.chain import open_chain
    from validator.chain.port import ChainError
    from validator.node import NodeError, open_pack, open_wallet

    try:
        catalog, pack = open_pack(settings)
        wallet = open_wallet(settings)
        chain = open_chain(settings)
        report = audit_race(
            chain,
            pack,
            catalog.get,
            race_id,
            wallet=wallet,
            policy=parse_policy(settings.weight_policy, burn_uid=settings.burn_uid),
            cutoff_blocks=cutoff_blocks,
            weights_block=weights_block,
            miner=miner,
            timeout=timeout,
            agents=settings.data_dir,
            threshold=settings.copy_similarity,
        )
    except (NodeError, AuditError) as exc:
        fail(str(exc))
    except ChainError as exc:
        fail(exc.message)
    print_report(report, miner)
    if json_file is not None:
        rows = [{"hotkey": v.hotkey, "matches": v.matches, "reason": v.reason} for v in report.validators]
        json_file.write_text(json.dumps(rows, indent=2) + "\n")


def print_report(report: AuditReport, miner: str | None) -> None:
    """The audit's report on the terminal: the race, refusals, pooled standings, implied weights, each validator's
    verdict, and a miner's own runs with --miner."""
    verified = sum(v.bundle == "verified" for v in report.validators)
    out.print(
        f"race {report.race_id}: {len(report.problems)} problems from block {report.start_block}, cut-off block "
        f"{report.cutoff_block}; {verified} results bundle(s) verified, {len(report.refusals)} refused; weights "
        f"as of block {report.weights_block}",
        highlight=False,
    )
    if report.note:
        out.print(f"note: {report.note}", highlight=False)
    for refusal in report.refusals:
        out.print(f"refused ({refusal.kind}): {refusal.reason}", highlight=False)
    standings = Table(title="pooled standings")
    for column in ("rank", "miner", "score", "95% interval", "P(rank 1)", "samples", "validators"):
        standings.add_column(column)
    for s in report.standings:
        standings.add_row(
            str(s.rank),
            s.miner,
            f"{s.score:.4f}",
            f"{s.low:.3f}-{s.high:.3f}",
            f"{s.p_rank1:.2f}",
            str(s.samples),
            str(s.validators),
        )
    out.print(standings)
    for c in report.copies:
        out.print(f"{c.hotkey}: {c.reason}", highlight=False, soft_wrap=True)
    out.print(f"implied weights: {json.dumps({str(k): round(v, 6) for k, v in report.expected.items()})}")
    table = Table(title="validators")
    for column in ("uid", "hotkey", "bundle", "runs", "weights match", "reason"):
        table.add_column(column)
    for v in report.validators:
        table.add_row(str(v.uid), v.hotkey, v.bundle, str(v.runs), "yes" if v.matches else "NO", v.reason)
    out.print(table)
    if miner is not None:
        runs = Table(title=f"runs of miner {miner}")
        for column in ("validator", "problem", "sample", "success", "final", "error"):
            runs.add_column(column)
        for r in report.miner_runs:
            runs.add_row(
                r["validator"],
                r["problem_id"],
                str(r["attempt"]),
                str(r["success"]),
                f"{r['final']:.3f}",
                str(r["error_code"] or ""),
            )
        out.print(runs)
