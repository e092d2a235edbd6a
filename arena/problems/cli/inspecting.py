"""`arena problems verify` and `show`: a pack's signature and catalog, and what it holds."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena.cliutil import fail, out
from arena.problems.cli.common import load, print_counts


def verify_cmd(
    pack_path: Annotated[Path, typer.Argument(help="The pack to verify.")],
    catalog_dir: Annotated[Path | None, typer.Option("--catalog", help="Check it was made for this catalog.")] = None,
    signer: Annotated[
        str | None,
        typer.Option(
            "--pack.signer",
            "--signer",
            envvar="ARENA_PACK_SIGNER",
            help="The arena operator's ss58 address the pack must be signed by "
            "(required: ask the operator, not the pack).",
        ),
    ] = None,
    allow_dev_signer: Annotated[
        bool,
        typer.Option(
            "--pack.allow_dev_signer",
            envvar="ARENA_PACK_ALLOW_DEV_SIGNER",
            help="Accept a pack signed by a public development key (//Alice, "
            "//Bob, ...): a local demo or test only, never a real "
            "subnet.",
        ),
    ] = False,
) -> None:
    """Check a pack's signature, that its signer is the one you pinned (--pack.signer) and not a public development
    key, and (with --catalog) that it was made for that catalog: what `arena-validator run` checks."""
    from arena.catalog import Catalog, CatalogError
    from arena.problems.pack import PackError, load_pack

    digest = None
    if catalog_dir is not None:
        try:
            digest = Catalog.open(catalog_dir).digest
        except CatalogError as exc:
            fail(str(exc))
    try:
        pack = load_pack(
            pack_path,
            catalog_digest=digest,
            require_signature=True,
            trusted_signers={signer} if signer else set(),
            allow_dev_signer=allow_dev_signer,
        )
    except PackError as exc:
        fail(str(exc))
    out.print(
        f"ok: {len(pack.problems)} problems signed by {pack.signer}"
        + (f", made for catalog {digest}" if digest else ""),
        highlight=False,
    )


def _summary_rows(pack: Any, summary: dict[str, Any]) -> list[tuple[str, str]]:
    """The pack's summary as (key, text) lines, one line each, never wrapped or cut: ids and digests copy whole."""
    rows: list[tuple[str, str]] = []
    for key, value in summary.items():
        if key == "sealed_batches":
            rows.append(
                (
                    key,
                    f"{len(value)} (slots at blocks {value[0]['open_block']}..{value[-1]['open_block']}, "
                    f"drand rounds {value[0]['drand_round']}..{value[-1]['drand_round']})"
                    if value
                    else "none: the race pool is in clear",
                )
            )
        elif key != "splits":
            rows.append((key, json.dumps(value) if isinstance(value, dict) else str(value)))
    rot = pack.rotation
    rows.append(
        (
            "qualifying",
            f"{rot.qualify_problems} problems made fresh for each round; a submission races once it scores at least "
            f"{rot.qualify_share:g} x the leader's score on the same problems"
            if rot.qualify_share > 0
            else "off: every accepted submission races",
        )
    )
    rows.append(
        (
            "samples",
            f"{rot.samples} per (miner, problem) a race; standings over the last {rot.window} race(s); "
            + (f"each run by {rot.shard_r} validators (sharded)" if rot.shard_r else "every validator runs every run"),
        )
    )
    rows.append(("payer", rot.payer or "each validator's --gateway.payer"))
    pinned = rot.copy_similarity
    rows.append(("copy_similarity", f"{pinned:g}" if pinned is not None else "each validator's --copies.similarity"))
    return rows


def show_cmd(
    pack_path: Annotated[Path, typer.Argument(help="The pack to show.")],
    problem_id: Annotated[str | None, typer.Option("--problem", help="Show one problem whole.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    signer: Annotated[
        bool,
        typer.Option("--signer", help="Print only the signer's ss58 address (what validators pin with --pack.signer)."),
    ] = False,
) -> None:
    """Summarise a pack (catalog, signer, rotation, splits per task) or print one problem."""
    pack = load(pack_path)
    if signer:
        if pack.signer is None:
            fail(f"{pack_path} is not signed; sign it with `arena problems pack`")
        out.print(pack.signer, highlight=False)
        return
    if problem_id is not None:
        problem = pack.problem(problem_id)
        if problem is None:
            fail(f"no problem {problem_id!r} in {pack_path}; `arena problems show {pack_path}` lists them")
        out.print_json(problem.model_dump_json())
        return
    summary = {
        "pack_id": pack.pack_id,
        "created_at": pack.created_at,
        "catalog_digest": pack.catalog_digest,
        "generator_version": pack.generator_version,
        "signer": pack.signer,
        "signed": bool(pack.signature),
        "public_only": pack.public_only,
        "ruleset": pack.ruleset,
        "rotation": pack.rotation.model_dump(),
        "splits": pack.split_counts(),
        "problems": len(pack.problems),
        "sealed_batches": [
            {"slot": b.slot, "open_block": b.open_block, "drand_round": b.reveal_round, "problems": b.n_problems}
            for b in pack.sealed
        ],
    }
    if as_json:
        out.print_json(json.dumps(summary))
        return
    rows = _summary_rows(pack, summary)
    out.print(f"pack {pack_path}", highlight=False)
    for key, text in rows:
        out.print(f"  {key:<18} {text}", highlight=False, soft_wrap=True, markup=False)
    print_counts(pack.problems, "problems")
    sample = Table(title="first problems")
    width = max((len(p.problem_id) for p in pack.problems[:8]), default=10)
    sample.add_column("problem_id", no_wrap=True, min_width=width)  # an id is never wrapped or cut
    for column in ("task", "split", "difficulty", "query"):
        sample.add_column(column, overflow="fold")
    for p in pack.problems[:8]:
        sample.add_row(p.problem_id, p.task, p.split, p.difficulty, p.query[:140])
    out.print(sample)
