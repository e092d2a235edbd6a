"""`arena-validator config`: the node's effective settings (`show`) and what the node needs before it starts
(`check`)."""

from __future__ import annotations

import json
from typing import Annotated, Any

import typer
from rich.table import Table

from arena.clihelp import App
from arena.cliutil import out, print_table
from validator.cli.flags import with_settings
from validator.settings import Settings, field_flag, setting_sources

config_app = App(no_args_is_help=True, help="The node's effective settings.")

#: where `config show` and `config check` send a reader for the settings they take (every one, as the node does)
SETTINGS_EPILOG = (
    "Takes every setting of the node, as flag, ARENA_* variable or .env line: `arena-validator run --help` lists "
    "them by group, deploy/.env.example and docs/validator.md (Settings) document each."
)


@config_app.command("show", epilog=SETTINGS_EPILOG)
@with_settings(hidden=True)
def config_show(
    settings: Settings,
    given: dict[str, Any],
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
) -> None:
    """Print the effective settings and where each came from (flag > ARENA_* environment > .env > default), secrets
    masked. With --json: each setting by name, and under "from" where each came from (flag, env, .env, default)."""
    shown = settings.masked()
    sources = setting_sources(given)
    if as_json:  # "from" is a Python keyword, so no setting can ever be named so
        out.print_json(json.dumps({**shown, "from": sources}, default=str))
        return
    table = Table(title="arena-validator settings", show_lines=False)
    table.add_column("setting", overflow="fold")
    table.add_column("flag", overflow="fold")
    table.add_column("value", overflow="fold")
    table.add_column("from", overflow="fold")
    for name, value in shown.items():
        table.add_row(name, field_flag(name), "" if value is None else str(value), sources[name])
    print_table(table)
    out.print(
        "from: flag (this command line), env (ARENA_* in the environment), .env (the file in this folder), default",
        highlight=False,
    )


@config_app.command("check", epilog=SETTINGS_EPILOG)
@with_settings(hidden=True)
def config_check(settings: Settings) -> None:
    """Check what the node needs before it starts: the store (reachable, schema current), the chain (reachable),
    the wallet (hotkey readable), our hotkey on the metagraph with a validator permit, (when --catalog or --pack
    is set) the pack: its catalog, its signature, its signer the pinned --pack.signer, and with --dispatch ray the
    cluster: its workers, their catalogs and sandboxes. One line per check."""
    from validator.chain import open_chain, our_neuron
    from validator.chain.bittensor_chain import load_wallet
    from validator.chain.port import ChainError
    from validator.store.repository import StoreError, make_engine, wait_for
    from validator.store.schema import SchemaError, check_current

    failures = 0

    def report(name: str, ok: bool, detail: str) -> None:
        nonlocal failures
        failures += not ok
        mark = "[green]ok[/]  " if ok else "[bold red]fail[/]"
        out.print(f"{mark} {name:8s} {detail}", highlight=False)

    try:
        engine = make_engine(settings.db_url, create=False)
        wait_for(engine)
        check_current(engine)
        report("store", True, engine.url.render_as_string(hide_password=True))
    except (StoreError, SchemaError) as exc:
        report("store", False, str(exc))
    hotkey = None
    try:
        wallet = load_wallet(settings.wallet_name, settings.wallet_hotkey, settings.wallet_dir)
        hotkey = wallet.hotkey.ss58_address
        report("wallet", True, f"{settings.wallet_name}/{settings.wallet_hotkey}: {hotkey}")
    except ChainError as exc:
        report("wallet", False, exc.message)
    try:
        chain = open_chain(settings)
        graph = chain.metagraph()
        report(
            "chain", True, f"{chain.network} netuid {chain.netuid}: block {chain.block()}, {len(graph.neurons)} neurons"
        )
        if hotkey is not None:
            neuron = our_neuron(chain, hotkey, metagraph=graph)
            report("hotkey", True, f"uid {neuron.uid}, validator permit")
    except ChainError as exc:
        report("chain" if exc.code not in {"not_registered", "no_permit"} else "hotkey", False, exc.message)
    if settings.pack is not None or settings.catalog is not None:
        _check_catalog_and_pack(settings, report)
    if settings.dispatch == "ray":
        from validator.dispatch.report import cluster_report

        for name, ok, detail in cluster_report(settings):
            report(name, ok, detail)
    if failures:
        raise typer.Exit(1)


def _check_catalog_and_pack(settings: Settings, report: Any) -> None:
    """`config check`'s catalog line (its size and digest) and pack line (signature, signer, catalog)."""
    from arena.catalog import Catalog, CatalogError
    from validator.node import NodeError, open_pack

    if settings.catalog is not None:
        try:
            catalog = Catalog.open(settings.catalog.expanduser())
            report("catalog", True, f"{settings.catalog}: {catalog.num_products:,} products, {catalog.digest}")
        except CatalogError as exc:
            report("catalog", False, str(exc))
            report("pack", False, "not checked: a pack is checked against its catalog, which did not open")
            return
    try:
        _, pack = open_pack(settings)
        sealed = f", race problems sealed in {len(pack.sealed)} batches" if pack.sealed else ""
        report(
            "pack", True, f"{pack.pack_id}: {len(pack.problems)} problems signed by the pinned {pack.signer}{sealed}"
        )
    except NodeError as exc:
        report("pack", False, str(exc))
