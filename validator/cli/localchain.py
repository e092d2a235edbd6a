"""`arena-validator localchain`: LocalChain, a dev chain in a SQLite file, for demos and tests."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated

import typer
from rich.table import Table

from arena.clihelp import App
from arena.cliutil import fail, natural_width, out
from validator.cli.flags import with_settings
from validator.settings import Settings

chain_app = App(no_args_is_help=True, help="LocalChain: a dev chain in a SQLite file, for demos and tests.")


def _chain_path(settings: Settings) -> Path:
    return settings.localchain_path.expanduser()


@chain_app.command("init")
@with_settings(fields=("localchain_path", "netuid"))
def localchain_init(
    settings: Settings,
    block_time: Annotated[float, typer.Option(help="Seconds per block.", min=0.01)] = 12.0,
    rate_limit: Annotated[int, typer.Option("--weights-rate-limit", help="Blocks between weight sets.", min=0)] = 100,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing chain file.")] = False,
) -> None:
    """Create a LocalChain file (netuid from --netuid, default 1)."""
    from validator.chain.local import LocalChain
    from validator.chain.port import ChainError

    path = _chain_path(settings)
    try:
        chain = LocalChain.init(
            path,
            netuid=settings.netuid if settings.netuid is not None else 1,
            block_time=block_time,
            weights_rate_limit=rate_limit,
            overwrite=overwrite,
        )
    except ChainError as exc:
        fail(exc.message)
    out.print(
        f"LocalChain at {path}: netuid {chain.netuid}, {block_time:g} s blocks, weights rate limit "
        f"{rate_limit} blocks; next: arena-validator localchain register --wallet.name NAME"
    )


@chain_app.command("register")
@with_settings(fields=("localchain_path", "wallet_name", "wallet_hotkey", "wallet_path"))
def localchain_register(
    settings: Settings,
    validator_permit: Annotated[
        bool, typer.Option("--validator-permit", help="Give the hotkey a validator permit.")
    ] = False,
    stake: Annotated[float, typer.Option(help="Stake to record for the hotkey (TAO).", min=0)] = 0.0,
    create: Annotated[
        bool,
        typer.Option(
            "--create",
            help="Create the wallet (unencrypted dev keys) if missing: in wallets/ beside the chain file unless "
            "--wallet.path is given.",
        ),
    ] = False,
) -> None:
    """Register the wallet's hotkey (--wallet.name/--wallet.hotkey/--wallet.path) on the LocalChain."""

    from arena.wallet import WalletError, check_names, localchain_wallet_path, localchain_wallets
    from validator.chain.bittensor_chain import create_wallet, load_wallet
    from validator.chain.local import LocalChain
    from validator.chain.port import ChainError

    try:
        check_names(settings.wallet_name, settings.wallet_hotkey)
    except WalletError as exc:
        fail(exc.message)
    folder = settings.wallet_dir
    if "wallet_path" not in settings.model_fields_set:  # dev wallets stay with the chain, never in ~/.bittensor
        chain_file = _chain_path(settings)
        folder = localchain_wallets(chain_file) if create else localchain_wallet_path(chain_file, settings.wallet_name)
    try:
        chain = LocalChain(_chain_path(settings))
        if create:
            create_wallet(settings.wallet_name, settings.wallet_hotkey, folder)
        wallet = load_wallet(settings.wallet_name, settings.wallet_hotkey, folder)
        neuron = chain.register(wallet, validator_permit=validator_permit, stake=stake)
    except ChainError as exc:
        fail(exc.message)
    role = "validator" if neuron.validator_permit else "miner"
    out.print(
        f"registered {neuron.hotkey} as uid {neuron.uid} ({role}) on netuid {chain.netuid} (wallet "
        f"{settings.wallet_name!r} in {folder})"
    )


@chain_app.command("show")
@with_settings(fields=("localchain_path",))
def localchain_show(
    settings: Settings, as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False
) -> None:
    """Show the LocalChain: block, neurons, commitments and the latest weights."""
    from validator.chain.local import LocalChain
    from validator.chain.port import ChainError

    try:
        chain = LocalChain(_chain_path(settings))
        info, graph, commitments, weights = chain.info(), chain.metagraph(), chain.commitments(), chain.weights()
    except ChainError as exc:
        fail(exc.message)
    if as_json:
        out.print_json(
            json.dumps(
                {
                    "info": info,
                    "neurons": [n.model_dump() for n in graph.neurons],
                    "commitments": {k: v.model_dump() for k, v in commitments.items()},
                    "weights": {str(k): {str(u): w for u, w in v.items()} for k, v in weights.items()},
                },
                default=str,
            )
        )
        return
    out.print(
        f"LocalChain {_chain_path(settings)}: netuid {info['netuid']}, block {info['block']}, "
        f"{info['block_time']:g} s blocks, weights rate limit {info['weights_rate_limit']}"
    )
    table = Table(title=f"{len(graph.neurons)} neurons")
    for column in ("uid", "hotkey", "role", "stake", "axon", "commitment", "at block"):
        table.add_column(column, no_wrap=True)
    lines = []
    for n in graph.neurons:
        c = commitments.get(n.hotkey)
        role, axon = "validator" if n.validator_permit else "miner", n.axon.url if n.axon else ""
        table.add_row(str(n.uid), n.hotkey, role, f"{n.stake:g}", axon, c.value if c else "", str(c.block) if c else "")
        committed = f"commitment {c.value} at block {c.block}" if c else "no commitment"
        lines.append(f"uid {n.uid} {role}, stake {n.stake:g}: {n.hotkey}; axon {axon or '-'}; {committed}")
    if natural_width(table) <= out.width:
        out.print(table)
    else:  # too narrow for the table: a line per neuron, never cut (hotkeys and commitments copy whole)
        out.print(f"{len(graph.neurons)} neurons", highlight=False)
        for line in lines:
            out.print(f"  {line}", highlight=False, soft_wrap=True, markup=False)
    for uid, row in sorted(weights.items()):
        shown = ", ".join(f"{u}: {w:.4f}" for u, w in sorted(row.items()))
        out.print(f"weights set by uid {uid}: {shown}")
