"""A small real arena for race tests: a built catalog, a generated and signed pack, a LocalChain with a validator and
miners (SDK wallets), and agent bundles (the offline template, a variant, a hostile agent)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import bittensor as bt
from bittensor.sp_core import Keypair

from arena.catalog import Catalog
from arena.catalog.build import build_catalog
from arena.problems.pack import Rotation, new_pack, write_pack
from arena.problems.splits import assign_splits
from arena.tasks.shoppingbench.generate import GENERATOR_VERSION, generate_problems
from demo.agents import HOSTILE_AGENT, MINER_TEMPLATE, variant, write_template
from sandbox.bundle import pack_dir
from validator.chain.bittensor_chain import create_wallet
from validator.chain.local import LocalChain

AGENTS = {
    "offline": lambda: MINER_TEMPLATE.read_text(),
    "lite": lambda: variant(MINER_TEMPLATE.read_text(), MAX_CALLS=4),
    "hostile": lambda: HOSTILE_AGENT,
}
#: The agents that are the offline template's bundle (its package ``baseline/`` beside their ``agent.py``).
TEMPLATE_AGENTS = ("offline", "lite")


def make_wallet(path: Path, name: str) -> bt.Wallet:
    return create_wallet(name, "default", path)


def build_arena_inputs(
    root: Path,
    *,
    size: int = 3000,
    problems: int = 24,
    per_race: int = 4,
    cadence: int = 5,
    splits: dict[str, float] | None = None,
) -> tuple[Path, Path, str]:
    """A catalog and a signed pack in `root` (split by `splits`, default 10% public, 70% race, 20% held out);
    returns (catalog dir, pack path, signer address)."""
    catalog_dir = root / "catalog"
    build_catalog(3, size, catalog_dir, force=True)
    catalog = Catalog.open(catalog_dir)
    generated = generate_problems(catalog, problems, seed=2).problems
    split = assign_splits(generated, splits or {"public": 0.1, "race": 0.7, "held_out": 0.2}, seed=2)
    operator = Keypair.create_from_uri("//ShopArenaTestOperator")
    pack = new_pack(
        split,
        catalog_digest=catalog.digest,
        generator_version=GENERATOR_VERSION,
        rotation=Rotation(cadence_blocks=cadence, problems_per_race=per_race),
    ).signed(operator)
    return catalog_dir, write_pack(pack, root / "pack.json"), operator.ss58_address


def with_rotation(inputs: tuple[Path, Path, str], out: Path, **update: Any) -> tuple[Path, Path, str]:
    """The inputs with their pack's rotation changed by ``update`` (e.g. the qualifying round's share), signed again
    by the same operator into ``out``."""
    from arena.problems.pack import load_pack

    catalog_dir, pack_path, signer = inputs
    pack = load_pack(pack_path, trusted_signers={signer})
    rotation = pack.rotation.model_copy(update=update)
    operator = Keypair.create_from_uri("//ShopArenaTestOperator")
    signed = pack.model_copy(update={"rotation": rotation, "signer": None, "signature": None}).signed(operator)
    return catalog_dir, write_pack(signed, out), signer


@dataclass
class ChainSetup:
    path: Path
    wallets: Path
    chain: LocalChain
    validators: list[Any]
    miners: dict[str, Any]


def make_chain(
    root: Path, miners: list[str], *, validators: int = 1, block_time: float = 0.5, rate_limit: int = 5
) -> ChainSetup:
    path = root / "chain.sqlite"
    chain = LocalChain.init(path, netuid=1, block_time=block_time, weights_rate_limit=rate_limit)
    wallets = root / "wallets"
    vals = []
    for i in range(validators):
        wallet = make_wallet(wallets, f"validator{i}")
        chain.register(wallet, validator_permit=True, stake=100.0)
        vals.append(wallet)
    found = {}
    for name in miners:
        wallet = make_wallet(wallets, name)
        chain.register(wallet)
        found[name] = wallet
    return ChainSetup(path, wallets, chain, vals, found)


def write_agent(folder: Path, name: str) -> Path:
    if name in TEMPLATE_AGENTS:
        return write_template(folder, AGENTS[name]())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "agent.py").write_text(AGENTS[name]())
    return folder


def place_submission(store: Any, data_dir: Path, hotkey: str, agent_dir: Path, block: int) -> Any:
    """Accept a bundle the way `sync_submissions` leaves one: unpacked under data_dir/bundles/<sha256>."""
    from sandbox.bundle import unpack

    bundle = pack_dir(agent_dir)
    target = data_dir / "bundles" / bundle.sha256
    if not target.exists():
        unpack(bundle.data, target)
    sub, _ = store.add_submission(hotkey=hotkey, sha256=bundle.sha256, commitment_block=block, source="test")
    return store.set_submission(sub.id, status="accepted", size_bytes=len(bundle.data))


def open_store(url: str) -> Any:
    """A store at ``url`` with the schema migrated to head."""
    from validator.store.repository import Store, make_engine
    from validator.store.schema import upgrade

    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    return Store.open(url)


def start_node(url: str, chain: Any, wallet: Any, inputs: tuple[Path, Path, str], data_dir: Path, **config: Any) -> Any:
    """A started node (`Arena`) on a fresh store at ``url``: the inputs' catalog and trusted pack, the process
    sandbox (bubblewrap), the chain's miners known; ``config`` overrides the test defaults of `ArenaConfig`."""
    from arena.catalog import Catalog
    from arena.problems.pack import load_pack
    from sandbox.backends import Limits
    from sandbox.backends.process import ProcessSandbox
    from validator.races import Arena, ArenaConfig

    store = open_store(url)
    catalog_dir, pack_path, signer = inputs
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    store.upsert_miners(chain.metagraph().neurons)
    settings = {"data_dir": data_dir, "limits": Limits(wall_seconds=60), "fork_rule": False, **config}  # variants race
    arena = Arena(
        store=store,
        chain=chain,
        wallet=wallet,
        pack=pack,
        catalog=catalog,
        sandbox=ProcessSandbox("bwrap"),
        config=ArenaConfig(**settings),
    )
    arena.start()
    return arena


def drive(arena: Any, done: Any, what: str = "the races") -> list[str]:
    """Dispatch, judge and close until ``done()``; returns the races closed meanwhile."""
    import asyncio
    import time

    closed: list[str] = []
    deadline = time.time() + 300
    while not done():
        assert time.time() < deadline, f"{what} did not close"
        asyncio.run(arena.dispatch())
        asyncio.run(arena.judge_runs())
        closed += arena.close_races()
    return closed


def run_race(arena: Any, store: Any) -> None:
    """Run the node's jobs (`Node`) until the race's weights are set (or failed)."""
    import asyncio

    from validator.scheduler import Node

    node = Node(arena, block_time=0.5, dispatch_seconds=0.5, close_seconds=0.5)

    def done() -> bool:
        sets = store.weight_sets()
        return bool(sets) and sets[-1].status in {"set", "failed"}

    asyncio.run(asyncio.wait_for(node.run(until=done, poll=0.2, handle_signals=False), timeout=600))


def race_until_final(arena: Any, store: Any) -> list[Any]:
    """Open the node's race and run the node as `arena-validator run` does (`validator.scheduler.Node`: sandboxes
    reaped and lost runs recovered at start, then every job on its interval, `recover` among them, so a run whose
    record failed is ended as the node's fault as a running node ends it) until each run of the race is final
    (`Arena.final`) or one is blamed on the node (retried, never final: the caller's assertions show it at once);
    the node stopped, the race's runs."""
    import asyncio

    from validator.scheduler import Node

    arena.start()  # the pack registered, for the race to open on it; `Node.run` starts the node again
    try:
        race_id = arena.open_race()
    finally:
        arena.stop()
    assert race_id is not None

    def settled() -> bool:
        runs = store.runs(race_id=race_id)
        return all(arena.final(r) for r in runs) or any(r.blame == "validator" for r in runs)

    node = Node(arena, block_time=0.5, dispatch_seconds=0.2, close_seconds=0.5, recover_seconds=0.5, log=arena.log)
    # a bound for a failing test (a run never settled), nothing timed
    asyncio.run(asyncio.wait_for(node.run(until=settled, poll=0.2, handle_signals=False), timeout=300))
    return list(store.runs(race_id=race_id))
