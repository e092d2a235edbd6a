"""`arena-validator demo`, steps 5 and 7: two validators race the same sealed slot on the demo's LocalChain, each
publishes its results bundle (committed on chain, served by its API to the other), both pool the two bundles and set
the same weights; then `arena-validator audit` re-derives the race from the chain, the pack and the bundles and says,
per validator, whether the weights it set match the pooled evidence."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from typing import Any

from arena.cliutil import err, out
from demo.local import executable, free_port
from demo.progress import RaceProgress

#: the pooling cut-off, from the slot's block (1 s blocks): the two pool as soon as both committed, well before it
CUTOFF_BLOCKS = 300
#: the demo's validators: (wallet name, data folder under the demo's root, stake)
VALIDATORS = (("validator", "validator", 1000.0), ("validator2", "validator2", 600.0))
VALIDATOR_NAMES = tuple(name for name, _, _ in VALIDATORS)


def validator_settings(demo: Any, wallet: str, folder: str, *, upstream: str, concurrency: int, wall: float) -> Any:
    """One demo validator's settings: the `arena-validator run` settings of a node pooling on the LocalChain."""
    from demo.llm import MODEL
    from validator.settings import load_settings

    return load_settings(
        {
            "chain": "localchain",
            "localchain_path": demo.chain_path,
            "wallet_name": wallet,
            "wallet_path": demo.wallets,
            "data_dir": demo.root / folder,
            "catalog": demo.catalog_dir,
            "pack": str(demo.pack_path),
            "pack_signer": demo.operator.hotkey.ss58_address,
            "concurrency": concurrency,
            "max_attempts": 2,
            "sandbox_backend": "process",
            "sandbox_wall_seconds": wall,
            "weight_policy": "top_heavy",
            "weight_shadow": "sn15_top_half",
            "burn_uid": 0,
            "gateway_upstream": upstream,
            "gateway_models": [MODEL],
            "api_port": free_port(),  # published as the validator's axon: where the other fetches its bundle
            # the two pool as soon as both committed (--pool.early); the cut-off (from the slot's block) only bounds
            # a node that never commits. Bundles are public at once: the demo's audit reads them after the weights
            "pool": True,
            "pool_early": True,  # the demo's two validators are one operator's: no one commits twice
            "pool_cutoff_blocks": CUTOFF_BLOCKS,
            "pool_wait_blocks": 30,
            "pool_public_blocks": 0,
        },
        env_file=None,
    )


def race_two_validators(demo: Any, *, wall_seconds: float, concurrency: int) -> list[Any]:
    """5. Both validator nodes (`build_node`, the code path of `arena-validator run`, each with its API serving its
    results bundles) race the slot, pool and set weights, until both weights are set (or
    failed), a line per race stage on stdout meanwhile (`demo.progress`). Returns the nodes' stores, the first
    validator's first."""
    from arena.log import get_logger
    from demo.llm import ScriptedLLMServer
    from validator.node import build_node, open_store, serve_api
    from validator.store.repository import make_engine
    from validator.store.schema import upgrade

    out.rule("[bold]5. two validators race the slot and pool their results")
    llm = ScriptedLLMServer().__enter__()  # the nodes' LLM upstream for the sn15 miner; stopped with the demo
    demo.stops.append(llm)
    each = concurrency  # each validator as the operator sets it (a real one has its own machine)
    nodes, stores = [], []
    for wallet, folder, _ in VALIDATORS:
        settings = validator_settings(
            demo, wallet, folder, upstream=llm.base_url.rstrip("/"), concurrency=each, wall=wall_seconds
        )
        engine = make_engine(settings.db_url, own_dir=settings.data_dir)
        upgrade(engine)
        engine.dispose()
        store = open_store(settings)
        node = build_node(settings, log=get_logger(f"demo.{wallet}"), store=store, block_time=1.0, retry_backoff=1.0)
        server = serve_api(node, settings)
        demo.stops.append(_Stopper(server))
        nodes.append(node)
        stores.append(store)
        if demo.settings is None:
            demo.settings, demo.store = settings, store
    progress = RaceProgress(stores, VALIDATOR_NAMES, chain=demo.chain, slot_block=demo.slot_block)

    def done() -> bool:
        progress.update()
        return all(s.weight_sets() and s.weight_sets()[0].status in {"set", "failed"} for s in stores)

    def until() -> bool:  # both weights set, or Ctrl-C (the first node handles the signals)
        return nodes[0].stopping.is_set() or done()

    async def both() -> None:
        await asyncio.gather(*(node.run(until=until, poll=0.5, handle_signals=i == 0) for i, node in enumerate(nodes)))

    asyncio.run(both())
    progress.update(now=True)
    return stores


class _Stopper:
    """A started server, stopped as the demo's other services are (`_Demo.stop`)."""

    def __init__(self, server: Any) -> None:
        self.server = server

    def __exit__(self, *_: Any) -> None:
        self.server.stop()


def print_pool(demo: Any, stores: list[Any], names: dict[str, str]) -> bool:
    """The race's pooling as each validator saw it, and whether both set the same vector; False if they did not."""
    race = [r for r in stores[0].races() if r.status == "closed"][0]
    vectors = []
    for (wallet, _, _), store in zip(VALIDATORS, stores, strict=True):
        pool = store.race_pool(race.race_id)
        sets = store.weight_sets()
        vectors.append(sets[0].vector if sets else None)
        if pool is None:
            out.print(f"{wallet}: did not pool race {race.race_id}", highlight=False)
            continue
        checked = ", ".join(
            f"{names.get(h, h[:12])} {v['status']}"
            + (f" ({v['runs']} runs)" if v.get("runs") else "")
            + (f": {v['kind']}: {v['reason']}" if v.get("reason") else "")
            for h, v in sorted((pool.state or {}).get("validators", {}).items())
        )
        out.print(
            f"{wallet}: bundle {(pool.bundle_sha256 or '-')[:16]} committed at block {pool.committed_block}; "
            f"pool {pool.status}: {checked or 'no bundle checked'}",
            highlight=False,
        )
    same = vectors[0] is not None and all(v == vectors[0] for v in vectors)
    out.print(
        "both validators set the same weight vector from the pooled runs"
        if same
        else f"[yellow]the validators' vectors differ[/]: {vectors}",
        highlight=False,
    )
    return same


def audit(demo: Any, race_id: str, names: dict[str, str]) -> int:
    """7. `arena-validator audit --race ID` as anyone would run it (no store: the chain, the pack, the bundles), its
    verdict per validator written to `audit.json` and said in one line each; 0 when every validator's weights match."""
    out.rule("[bold]7. audit by anyone")
    wallet, _, _ = VALIDATORS[0]
    verdicts = demo.root / "audit.json"
    command = [
        executable("arena-validator"),
        "audit",
        "--race",
        race_id,
        "--cutoff-blocks",
        str(CUTOFF_BLOCKS),
        "--json",
        str(verdicts),
        "--chain",
        "localchain",
        "--localchain.path",
        str(demo.chain_path),
        "--pack",
        str(demo.pack_path),
        "--catalog",
        str(demo.catalog_dir),
        "--pack.signer",
        demo.operator.hotkey.ss58_address,
        "--wallet.path",
        str(demo.wallets),
        "--wallet.name",
        wallet,
        "--data-dir",  # where the audit keeps the raced agents it fetches from the miners (the fork rule's evidence)
        str(demo.root / "audit"),
    ]
    done = subprocess.run(
        command, capture_output=True, text=True, env={**os.environ, "ARENA_LOG_LEVEL": "WARNING", "COLUMNS": "200"}
    )
    for line in done.stdout.strip().splitlines():
        out.print(line, highlight=False)
    if done.returncode != 0 or not verdicts.exists():
        err.print(f"[bold red]audit:[/] {done.stderr.strip()[-2000:]}", highlight=False)
        return 1
    rows = json.loads(verdicts.read_text())
    for row in rows:
        name = names.get(row["hotkey"], row["hotkey"])
        out.print(
            f"audit: {name}: {row['reason'] if row['matches'] else '[red]' + row['reason'] + '[/]'}", highlight=False
        )
    return 0 if rows and all(row["matches"] for row in rows) else 1
