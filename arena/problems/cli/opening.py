"""`arena problems open`: open a sealed race batch of a pack once its drand round is out."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from arena.cliutil import fail, out
from arena.problems.cli.common import Force, load, not_over, print_counts, write


def open_cmd(
    pack_path: Annotated[Path, typer.Argument(help="A pack with sealed race batches.")],
    slot: Annotated[int, typer.Option("--slot", help="The batch (rotation slot, from 0) to open.")],
    signature: Annotated[
        str | None, typer.Option(help="The drand quicknet signature of the batch's round (hex).")
    ] = None,
    relay: Annotated[
        str | None, typer.Option(help="A drand HTTP relay to fetch it from, e.g. https://api.drand.sh")
    ] = None,
    out_pack: Annotated[
        Path | None,
        typer.Option("--out", help="Write the batch's problems (answers included) as an unsigned pack here."),
    ] = None,
    force: Force = False,
) -> None:
    """Open a sealed race batch whose drand round has passed (its race is over): anyone can, with the round's
    signature from any drand relay. Before the round, no one can."""
    from arena.problems.pack import new_pack
    from arena.problems.seal import SealError, open_batch

    pack = load(pack_path)
    if not pack.sealed:
        fail(f"{pack_path} has no sealed batches; its race problems are in clear (`arena problems show`)")
    if not 0 <= slot < len(pack.sealed):
        fail(f"--slot {slot}: the pack has batches 0 to {len(pack.sealed) - 1}")
    if (signature is None) == (relay is None):
        fail("give the round's signature with --signature HEX, or a drand relay with --relay URL")
    if out_pack is not None and out_pack.is_dir():
        fail(f"--out {out_pack} is a folder; give a file name")
    not_over(out_pack, force)
    batch = pack.sealed[slot]
    if relay is not None:
        from arena.beacon import BeaconError, DrandRelay

        try:
            signature = DrandRelay(relay).signature(batch.reveal_round)
        except BeaconError as exc:
            fail(str(exc))
        if signature is None:
            fail(f"drand round {batch.reveal_round} is not out yet: {batch.describe()} stays sealed until then")
    try:
        opened = open_batch(batch, signature or "")
    except SealError as exc:
        fail(str(exc))
    print_counts(opened.problems, f"{batch.describe()}: {len(opened.problems)} problems")
    if out_pack is not None:
        from arena.problems.pack import Pack

        made = new_pack(
            opened.problems,
            catalog_digest=pack.catalog_digest,
            generator_version=pack.generator_version,
            rotation=pack.rotation,
            embed=False,
            ruleset=pack.ruleset,
        )
        vectors = {k: v for k, v in opened.title_embeddings.items() if v}
        made = Pack.model_validate({**made.model_dump(mode="json"), "title_embeddings": vectors})
        write(made, out_pack)
        out.print(f"wrote {len(opened.problems)} problems of {batch.describe()} -> {out_pack}", highlight=False)
