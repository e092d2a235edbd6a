"""`arena-validator demo`: one whole race on a laptop, raced by two validators who pool it, with nothing faked.

1. builds a small seeded catalog and generates problems from it, splits them (public / race / held-out clusters)
   and signs the pack with an operator key;
2. starts a `LocalChain` (a dev chain in a file, 1-second blocks) and registers two validators and six miners with
   wallets made by the bittensor SDK;
3. each miner writes its agent (the offline template, a lighter and a deeper variant, a copy of the template with
   its comments changed, a hostile agent, and a subnet-15 one-file agent, `miner_template/sn15`, whose ReAct loop
   talks to a scripted model behind a local OpenAI-compatible server, `demo.llm`), serves it with
   `arena-miner serve` and commits its hash on chain with `arena-miner submit`, exactly as real miners do;
4. the operator seals the race pool until its slot;
5. two validator nodes (`build_node`, the code path of `arena-validator run`, `demo.pool`) each sync the
   commitments, fetch and check the bundles, reject the copy, race the rest in the bubblewrap sandbox on SQLite and
   close the race; each publishes its results bundle (committed on chain, served by its API), fetches and verifies
   the other's, pools both and sets weights on the local chain;
6. prints the leaderboard, the copy rejected, the weight vector, the pooling as each validator saw it, and where the
   trajectories are;
7. ends with `arena-validator audit` of the race: per validator, whether its weights match the pooled evidence.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.cliutil import err, out
from demo.agents import write_agents
from demo.local import executable, free_port
from demo.pool import VALIDATOR_NAMES, VALIDATORS, audit, print_pool, race_two_validators
from demo.results import print_results


def _axon_published(chain: Any, hotkey: str) -> bool:
    neuron = chain.metagraph().by_hotkey(hotkey)
    return neuron is not None and neuron.axon is not None


def _wallet(path: Path, name: str) -> Any:
    from validator.chain.bittensor_chain import create_wallet

    return create_wallet(name, "default", path)


DEMO_MARKER = ".shoparena-demo"  # the demo replaces only a folder holding this (or an earlier demo's files)
_DEMO_NAMES = re.compile(
    r"^(agents|catalog|chain\.sqlite(-wal|-shm)?|pack\.json|(serve-[\w-]+|demo)\.log|validator2?|wallets|audit(\.json)?|"
    r"trajectories)$"
)


def demo_folder_problem(root: Path) -> str | None:
    """Why `root` must not be replaced by the demo (one line), or None: it is absent, empty, or a demo folder."""
    if not root.exists():
        return None
    if not root.is_dir():
        return f"--dir {root} is a file, not a demo folder; give a new folder"
    names = [p.name for p in root.iterdir()]
    legacy = {"pack.json", "chain.sqlite"} <= set(names) and all(_DEMO_NAMES.match(name) for name in names)
    if not names or DEMO_MARKER in names or legacy:
        return None
    return (
        f"--dir {root} is not a demo folder (no {DEMO_MARKER}) and the demo replaces its folder; give a new or "
        "empty folder"
    )


@dataclass
class _Demo:
    """What the demo's steps hand on: its folder, the operator's pack, the chain and its miners, the node's store."""

    root: Path
    log: Any
    started: float
    wallets: Path = field(init=False)
    catalog_dir: Path = field(init=False)
    chain_path: Path = field(init=False)
    operator: Any = None
    rotation: Any = None
    unsealed: Any = None
    chain: Any = None
    agents: dict[str, Path] = field(default_factory=dict)
    pack_path: Path | None = None
    slot_block: int = 0  # the block the race's slot opens at (step 4)
    settings: Any = None
    store: Any = None
    servers: list[subprocess.Popen[bytes]] = field(default_factory=list)
    stops: list[Any] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.wallets = self.root / "wallets"
        self.catalog_dir = self.root / "catalog"
        self.chain_path = self.root / "chain.sqlite"

    def stop(self) -> None:
        """The LLM server and the miners' bundle servers stopped (their process groups, killed if they linger)."""
        for stop in self.stops:
            stop.__exit__(None, None, None)
        for server in self.servers:
            try:
                os.killpg(server.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for server in self.servers:
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)


def run_demo(
    root: Path,
    *,
    size: int = 20_000,
    problems: int = 60,
    per_race: int = 5,
    wall_seconds: float = 60.0,
    concurrency: int = 2,
    log_json: bool = False,
) -> int:
    """The whole demo in `root` (made afresh). Returns the process exit code. The terminal gets the demo's own lines
    (a line per race stage, `demo.progress`); the nodes' log lines go to `root`/demo.log, or with `log_json` to
    stderr as JSON lines."""
    from arena.log import get_logger

    demo = _Demo(root, log=get_logger("demo"), started=time.time())
    if problem := demo_folder_problem(root):
        err.print(f"[bold red]error:[/] {problem}", highlight=False)
        return 2
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / DEMO_MARKER).write_text("made by `arena-validator demo`, which replaces this folder when run again\n")
    _log(root, log_json)
    _catalog_and_pack(demo, size=size, problems=problems, per_race=per_race)
    _local_chain(demo)
    try:
        if not _miners_publish(demo):
            return 1
        _seal(demo)
        stores = race_two_validators(demo, wall_seconds=wall_seconds, concurrency=concurrency)
        code = _results(demo, stores)
    finally:
        demo.stop()
    return code


def _log(root: Path, json: bool) -> None:
    """The nodes' log lines (and the libraries' warnings) into root/demo.log, or JSON lines on stderr."""
    import logging
    import sys

    from arena.log import log_to

    log_to(sys.stderr if json else open(root / "demo.log", "a", encoding="utf-8"), json=json)
    logging.captureWarnings(True)
    for noisy in ("alembic", "bittensor", "httpx"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    where = "stderr, as JSON lines" if json else root / "demo.log"
    out.print(f"the nodes' log: {where}", highlight=False)


SHOPPING_TASKS = ("product", "shop", "voucher", "web")
#: the demo's races: ShoppingBench's four task types and sessions, two of every ten problems
DEMO_TASK_MIX = {"product": 0.25, "shop": 0.2, "voucher": 0.2, "web": 0.15, "session": 0.2}


def _catalog_and_pack(demo: _Demo, *, size: int, problems: int, per_race: int) -> None:
    """1. A small seeded catalog, problems generated from it and split, the pack made (sealed in step 4)."""
    from arena import tasks
    from arena.catalog import Catalog
    from arena.catalog.build import build_catalog
    from arena.problems.pack import Rotation, new_pack
    from arena.problems.splits import assign_splits

    out.rule("[bold]1. catalog and problem pack")
    build_catalog(7, size, demo.catalog_dir, force=True)
    catalog = Catalog.open(demo.catalog_dir)
    # ShoppingBench's four task types and, beside them, multi-turn shopping sessions (a sixth of the problems)
    sessions = max(4, problems // 6)
    shopping = tasks.family("shoppingbench").generate(catalog, problems - sessions, tasks=SHOPPING_TASKS, seed=1)
    talks = tasks.family("session").generate(catalog, sessions, tasks=("session",), seed=1)
    made = [*shopping.problems, *talks.problems]
    split = assign_splits(made, {"public": 0.1, "race": 0.7, "held_out": 0.2}, seed=1)
    demo.operator = _wallet(demo.wallets, "operator")
    # one race per 10 minutes of 1 s blocks; a new submission first races 3 problems made fresh (the qualifying round)
    demo.rotation = Rotation(
        cadence_blocks=600, problems_per_race=per_race, qualify_share=0.95, qualify_problems=3, task_mix=DEMO_TASK_MIX
    )
    demo.unsealed = new_pack(
        split,
        catalog_digest=catalog.digest,
        generator_version=f"{shopping.version}+{talks.version}",
        rotation=demo.rotation,
    )
    counts = {s: sum(1 for p in split if p.split == s) for s in ("public", "race", "held_out")}
    out.print(
        f"catalog {demo.catalog_dir}: {size:,} products; problems for pack {demo.unsealed.pack_id}: "
        f"{len(split)} ({counts['public']} public, {counts['race']} race, {counts['held_out']} held out; "
        f"{len(talks.problems)} of them shopping sessions); the race pool is sealed once the miners have committed",
        highlight=False,
    )


def _local_chain(demo: _Demo) -> None:
    """2. A `LocalChain` with a validator and the miners registered, each miner's agent written."""
    from validator.chain.local import LocalChain

    out.rule("[bold]2. local chain")
    demo.chain = LocalChain.init(demo.chain_path, netuid=1, block_time=1.0, weights_rate_limit=10)
    for name, _, stake in VALIDATORS:  # two validators, who pool their results
        neuron = demo.chain.register(_wallet(demo.wallets, name), validator_permit=True, stake=stake)
        out.print(f"uid {neuron.uid}: {name} (validator permit, stake {stake:g}) ({neuron.hotkey})", highlight=False)
    demo.agents = write_agents(demo.root / "agents")
    for name in demo.agents:
        neuron = demo.chain.register(_wallet(demo.wallets, name))
        out.print(f"uid {neuron.uid}: miner {name} ({neuron.hotkey})", highlight=False)


def _miners_publish(demo: _Demo) -> bool:
    """3. Each miner serves its agent with `arena-miner serve` and commits it with `arena-miner submit`, as real
    miners do: the servers all at once, then each commitment in its own block (the copy after its original). False
    (said on stderr) when one cannot."""
    out.rule("[bold]3. miners publish their agents")
    common = ["--wallet.path", str(demo.wallets), "--chain", "localchain", "--localchain.path", str(demo.chain_path)]
    env = {**os.environ, "ARENA_LOG_LEVEL": "WARNING"}
    for name, agent in demo.agents.items():
        serve = ["serve", str(agent), "--port", str(free_port()), "--host", "127.0.0.1", "--refresh", "2"]
        demo.servers.append(
            subprocess.Popen(
                [executable("arena-miner"), *serve, "--wallet.name", name, *common],
                stdout=subprocess.DEVNULL,
                stderr=open(demo.root / f"serve-{name}.log", "wb"),
                env=env,
                start_new_session=True,
            )
        )
    deadline = time.time() + 60
    for (name, _), server in zip(demo.agents.items(), demo.servers, strict=True):
        hotkey = _wallet(demo.wallets, name).hotkey.ss58_address
        while not _axon_published(demo.chain, hotkey):
            if time.time() > deadline or server.poll() is not None:
                err.print(
                    f"[bold red]error:[/] miner {name}'s bundle server did not start; see "
                    f"{demo.root / f'serve-{name}.log'}"
                )
                return False
            time.sleep(0.2)
    last = -1
    for name, agent in demo.agents.items():  # one after the other, each in a later block: ties go to the earlier
        while demo.chain.block() <= last:
            time.sleep(0.1)
        done = subprocess.run(
            [executable("arena-miner"), "submit", str(agent), "--wallet.name", name, *common],
            capture_output=True,
            text=True,
            env=env,
        )
        if done.returncode != 0:
            err.print(f"[bold red]error:[/] miner {name} could not submit: {done.stderr.strip()}")
            return False
        last = demo.chain.block()
        out.print(
            f"{name}: {done.stdout.strip().splitlines()[-1] if done.stdout.strip() else 'submitted'}", highlight=False
        )
    return True


def _seal(demo: _Demo) -> None:
    """4. The operator seals the race pool (drand timelock, round 1000), signs the pack and the local chain shows
    round 1000's pulse from slot 0's block."""
    from arena.beacon import QUICKNET_ROUND_1000
    from arena.problems.pack import sealed_pack, write_pack

    out.rule("[bold]4. the race pool, sealed until its slot")
    start = demo.slot_block = demo.chain.block() + 3
    timed = demo.unsealed.model_copy(update={"rotation": demo.rotation.model_copy(update={"start_block": start})})
    # every batch is sealed to quicknet round 1000, the one pulse that exists offline; on a real chain each
    # batch has the future round of its own slot
    sealed, _ = sealed_pack(timed, fixed_round=1000)
    pack = sealed.signed(demo.operator.hotkey)
    demo.pack_path = write_pack(pack, demo.root / "pack.json")
    demo.chain.publish_pulse(1000, QUICKNET_ROUND_1000, reveal_block=start)
    out.print(
        f"pack {pack.pack_id}: {sum(b.n_problems for b in pack.sealed)} race problems in "
        f"{len(pack.sealed)} batches, each sealed with drand timelock encryption (round 1000), signed by "
        f"{demo.operator.hotkey.ss58_address}; slot 0 opens at block {start}, where the local chain shows round "
        "1000's recorded pulse (a stand-in for subtensor's Drand pallet)",
        highlight=False,
    )


def _results(demo: _Demo, stores: list[Any]) -> int:
    """6. The results (`demo.results`), the miners and validators named by their wallets; the pooling as each
    validator saw it; 7. the audit's verdict (`demo.pool`)."""
    names = {_wallet(demo.wallets, name).hotkey.ss58_address: name for name in (*demo.agents, *VALIDATOR_NAMES)}
    code = print_results(demo, names)
    if code:
        return code
    same = print_pool(demo, stores, names)
    race = [r for r in demo.store.races() if r.status == "closed"][0]
    verdict = audit(demo, race.race_id, names)
    return 0 if same and verdict == 0 else 1
