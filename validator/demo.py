"""`arena-validator demo`: one whole race on a laptop, with nothing faked.

1. builds a small seeded catalog and generates problems from it, splits them (public / race / held-out clusters)
   and signs the pack with an operator key;
2. starts a `LocalChain` (a dev chain in a file, 1-second blocks) and registers a validator and six miners with
   wallets made by the bittensor SDK;
3. each miner writes its agent (the offline template, a lighter and a deeper variant, a copy of the template with
   its comments changed, a hostile agent, and a subnet-15 one-file agent, `miner_template/sn15`, whose ReAct loop
   talks to a scripted model behind a local OpenAI-compatible server, `validator.demo_llm`), serves it with
   `arena-miner serve` and commits its hash on chain with `arena-miner submit`, exactly as real miners do;
4. the validator node (`build_node`, the code path of `arena-validator run`) syncs the commitments, fetches and checks
   the bundles, rejects the copy, races the rest in the bubblewrap sandbox on SQLite, closes the race and sets
   weights on the local chain;
5. prints the leaderboard, the copy it rejected, the weight vector, and where the trajectories are.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from rich import box
from rich.table import Table

from arena.cliutil import err, out, progress_bar
from sandbox.bundle import copy_dir
from validator.demo_llm import MODEL as DEMO_MODEL
from validator.demo_llm import ScriptedLLMServer

#: The offline template's entry point; its bundle is the folder around it (``agent.py`` and the package ``baseline/``).
MINER_TEMPLATE = Path(__file__).resolve().parent.parent / "miner_template" / "offline" / "agent.py"
SN15_AGENT = MINER_TEMPLATE.parent.parent / "sn15" / "agent.py"

HOSTILE_AGENT = '''"""A hostile agent: it tries to leave the sandbox, read the node's secrets and forge a result."""

import os
import socket


def agent_main(problem):
    for target in (("1.1.1.1", 53), ("127.0.0.1", 22)):
        try:
            socket.create_connection(target, timeout=1).close()
            print("escaped to", target)
        except OSError:
            pass
    for path in ("/etc/shadow", os.path.expanduser("~/.bittensor"), "/root"):
        try:
            print(os.listdir(path) if os.path.isdir(path) else open(path).read()[:100])
        except OSError:
            pass
    print('{"harness": 1, "status": "ok", "return": {"answer": "forged"}}')
    return {"answer": "trust me"}
'''


def _variant(source: str, **constants: Any) -> str:
    for name, value in constants.items():
        source, n = re.subn(rf"^{name} = .*$", f"{name} = {value!r}", source, count=1, flags=re.M)
        assert n == 1, f"{name} not found in the offline template"
    return source


def _copycat(source: str) -> str:
    """The template with another docstring and added comments: a different sha256, the same normalized source."""
    body = source.split('"""', 2)[2]
    return ('"""My very own shopping agent (definitely not the template)."""\n# written from scratch, honest\n'
            + body.replace("\ndef ", "\n# a helper of mine\ndef "))


def write_template(folder: Path, source: str | None = None) -> Path:
    """The offline template's bundle in ``folder``, with ``source`` (a variant of its ``agent.py``) as its entry
    point; the template's own ``agent.py`` when None."""
    copy_dir(MINER_TEMPLATE.parent, folder)
    if source is not None:
        (folder / "agent.py").write_text(source)
    return folder


def write_agents(folder: Path) -> dict[str, Path]:
    template = MINER_TEMPLATE.read_text()
    from_template = {  # the template's bundle, each with its own agent.py
        "offline": template,
        "offline-lite": _variant(template, MAX_CALLS=8),
        "offline-deep": _variant(template, MAX_CALLS=60, VIEW_BATCH=30),
        "copycat": _copycat(template),
    }
    one_file = {"hostile": HOSTILE_AGENT, "sn15": SN15_AGENT.read_text()}
    agents = {name: write_template(folder / name, source) for name, source in from_template.items()}
    for name, source in one_file.items():
        agent = folder / name
        agent.mkdir(parents=True, exist_ok=True)
        (agent / "agent.py").write_text(source)
        agents[name] = agent
    return agents


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _bin(name: str) -> str:
    found = Path(sys.executable).parent / name
    return str(found) if found.exists() else name


def _axon_published(chain: Any, hotkey: str) -> bool:
    neuron = chain.metagraph().by_hotkey(hotkey)
    return neuron is not None and neuron.axon is not None


def _wallet(path: Path, name: str) -> Any:
    from validator.chain.bittensor_chain import create_wallet

    return create_wallet(name, "default", path)


DEMO_MARKER = ".shoparena-demo"  # the demo replaces only a folder holding this (or an earlier demo's files)
_DEMO_NAMES = re.compile(r"^(agents|catalog|chain\.sqlite(-wal|-shm)?|pack\.json|serve-[\w-]+\.log|validator|wallets|"
                         r"trajectories)$")


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
    return (f"--dir {root} is not a demo folder (no {DEMO_MARKER}) and the demo replaces its folder; give a new or "
            "empty folder")


def run_demo(root: Path, *, size: int = 20_000, problems: int = 60, per_race: int = 10, wall_seconds: float = 60.0,
             concurrency: int = 2) -> int:
    """The whole demo in `root` (made afresh). Returns the process exit code."""
    from arena.beacon import QUICKNET_ROUND_1000
    from arena.catalog import Catalog
    from arena.catalog.build import build_catalog
    from arena.log import get_logger
    from arena.problems.generate import GENERATOR_VERSION, generate_problems
    from arena.problems.pack import Rotation, new_pack, sealed_pack, write_pack
    from arena.problems.splits import assign_splits
    from validator.chain.local import LocalChain
    from validator.node import build_node, open_store
    from validator.settings import load_settings
    from validator.store.repository import make_engine
    from validator.store.schema import upgrade

    log = get_logger("demo")
    started = time.time()
    if problem := demo_folder_problem(root):
        err.print(f"[bold red]error:[/] {problem}", highlight=False)
        return 2
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    (root / DEMO_MARKER).write_text("made by `arena-validator demo`, which replaces this folder when run again\n")
    wallets = root / "wallets"

    # 1. catalog and a signed pack ---------------------------------------------------------------------------------
    out.rule("[bold]1. catalog and problem pack")
    catalog_dir = root / "catalog"
    build_catalog(7, size, catalog_dir, force=True)
    catalog = Catalog.open(catalog_dir)
    report = generate_problems(catalog, problems, seed=1)
    split = assign_splits(report.problems, {"public": 0.1, "race": 0.7, "held_out": 0.2}, seed=1)
    operator = _wallet(wallets, "operator")
    # one race per 10 minutes of 1 s blocks; a new submission first races 3 public problems (the qualifying round)
    rotation = Rotation(cadence_blocks=600, problems_per_race=per_race, qualify_share=0.95, qualify_problems=3)
    unsealed = new_pack(split, catalog_digest=catalog.digest, generator_version=GENERATOR_VERSION, rotation=rotation)
    counts = {s: sum(1 for p in split if p.split == s) for s in ("public", "race", "held_out")}
    out.print(f"catalog {catalog_dir}: {size:,} products; problems for pack {unsealed.pack_id}: {len(split)} "
              f"({counts['public']} public, {counts['race']} race, {counts['held_out']} held out); the race pool is "
              "sealed once the miners have committed", highlight=False)

    # 2. local chain, validator and miners -------------------------------------------------------------------------
    out.rule("[bold]2. local chain")
    chain_path = root / "chain.sqlite"
    chain = LocalChain.init(chain_path, netuid=1, block_time=1.0, weights_rate_limit=10)
    validator = _wallet(wallets, "validator")
    chain.register(validator, validator_permit=True, stake=1000.0)
    agents = write_agents(root / "agents")
    for name in agents:
        neuron = chain.register(_wallet(wallets, name))
        out.print(f"uid {neuron.uid}: miner {name} ({neuron.hotkey})", highlight=False)

    # 3. miners serve and commit, as real miners do ----------------------------------------------------------------
    out.rule("[bold]3. miners publish their agents")
    common = ["--wallet.path", str(wallets), "--chain", "localchain", "--localchain.path", str(chain_path)]
    servers: list[subprocess.Popen[bytes]] = []
    stops: list[Any] = []
    env = {**os.environ, "ARENA_LOG_LEVEL": "WARNING"}
    try:
        for name, agent in agents.items():
            port = _free_port()
            servers.append(subprocess.Popen(
                [_bin("arena-miner"), "serve", str(agent), "--port", str(port), "--host", "127.0.0.1",
                 "--refresh", "2", "--wallet.name", name, *common],
                stdout=subprocess.DEVNULL, stderr=open(root / f"serve-{name}.log", "wb"), env=env,
                start_new_session=True))
            hotkey = _wallet(wallets, name).hotkey.ss58_address
            deadline = time.time() + 60
            while not _axon_published(chain, hotkey):
                if time.time() > deadline or servers[-1].poll() is not None:
                    err.print(f"[bold red]error:[/] miner {name}'s bundle server did not start; see "
                              f"{root / f'serve-{name}.log'}")
                    return 1
                time.sleep(0.2)
            if name == "copycat":  # the copy is committed after the original, in a later block
                first = chain.block()
                while chain.block() <= first:
                    time.sleep(0.2)
            done = subprocess.run([_bin("arena-miner"), "submit", str(agent), "--wallet.name", name, *common],
                                  capture_output=True, text=True, env=env)
            if done.returncode != 0:
                err.print(f"[bold red]error:[/] miner {name} could not submit: {done.stderr.strip()}")
                return 1
            out.print(f"{name}: {done.stdout.strip().splitlines()[-1] if done.stdout.strip() else 'submitted'}",
                      highlight=False)

        # 4. the operator seals the race pool ----------------------------------------------------------------------
        out.rule("[bold]4. the race pool, sealed until its slot")
        start = chain.block() + 3
        timed = unsealed.model_copy(update={"rotation": rotation.model_copy(update={"start_block": start})})
        # every batch is sealed to quicknet round 1000, the one pulse that exists offline; on a real chain each
        # batch has the future round of its own slot
        sealed, _ = sealed_pack(timed, fixed_round=1000)
        pack = sealed.signed(operator.hotkey)
        pack_path = write_pack(pack, root / "pack.json")
        chain.publish_pulse(1000, QUICKNET_ROUND_1000, reveal_block=start)
        out.print(f"pack {pack.pack_id}: {sum(b.n_problems for b in pack.sealed)} race problems in "
                  f"{len(pack.sealed)} batches, each sealed with drand timelock encryption (round 1000), signed by "
                  f"{operator.hotkey.ss58_address}; slot 0 opens at block {start}, where the local chain shows round "
                  "1000's recorded pulse (a stand-in for subtensor's Drand pallet)", highlight=False)

        # 5. the validator node ------------------------------------------------------------------------------------
        out.rule("[bold]5. the validator races them")
        data_dir = root / "validator"
        llm = ScriptedLLMServer().__enter__()  # the node's LLM upstream for the sn15 miner; stopped in finally
        stops.append(llm)
        settings = load_settings({
            "chain": "localchain", "localchain_path": chain_path, "wallet_name": "validator",
            "wallet_path": wallets, "data_dir": data_dir, "catalog": catalog_dir, "pack": str(pack_path),
            "pack_signer": operator.hotkey.ss58_address, "concurrency": concurrency, "max_attempts": 2,
            "sandbox_backend": "process", "sandbox_wall_seconds": wall_seconds, "weight_policy": "top_heavy",
            "weight_shadow": "sn15_top_half",
            "burn_uid": 0, "gateway_upstream": llm.base_url.rstrip("/"), "gateway_models": [DEMO_MODEL],
        }, env_file=None)
        engine = make_engine(settings.db_url)
        upgrade(engine)
        engine.dispose()
        store = open_store(settings)
        node = build_node(settings, log=log, store=store, block_time=1.0, retry_backoff=1.0)
        with progress_bar() as bar:
            task = bar.add_task("runs", total=None, rate="")

            def race_done() -> bool:
                races = [r for r in store.races() if r.status in {"running", "closed"}]
                if races:
                    counts = store.count_runs(races[0].race_id)
                    total = sum(counts.values())
                    final = counts.get("finished", 0) + counts.get("errored", 0)
                    bar.update(task, total=total, completed=final, rate=f"{counts.get('errored', 0)} errored")
                sets = store.weight_sets()
                return bool(sets) and sets[0].status in {"set", "failed"}

            asyncio.run(node.run(until=race_done, poll=0.5))
    finally:
        for stop in stops:
            stop.__exit__(None, None, None)
        for server in servers:
            try:
                os.killpg(server.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
        for server in servers:
            try:
                server.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(server.pid, signal.SIGKILL)

    # 6. results ---------------------------------------------------------------------------------------------------
    out.rule("[bold]6. results")
    names = {}
    for name in agents:
        names[_wallet(wallets, name).hotkey.ss58_address] = name
    races = [r for r in store.races() if r.status == "closed"]
    if not races:
        err.print("[bold red]error:[/] the race did not close; see the log above")
        return 1
    race = races[0]
    table = Table(title=f"race {race.race_id}: the {len(race.problem_ids)} problems of the batch sealed to "
                        f"{race.seed_hash.replace('drand:', 'drand round ')}, opened at block {race.seed_block}",
                  box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False,
                  collapse_padding=True)
    tasks = sorted({t for r in store.race_results(race.race_id) for t in r.per_task})
    for column in ("#", "miner", "uid", "score", "succ", "judge", "err", *tasks):
        table.add_column(column, justify="left" if column == "miner" else "right", no_wrap=True)
    for r in store.race_results(race.race_id):
        qualities = [s.judge_quality for run in store.runs(race_id=race.race_id, hotkey=r.hotkey)
                     if (s := store.score(run.run_id)) is not None and s.judge_quality is not None]
        quality = f"{sum(qualities) / len(qualities):.2f}" if qualities else "-"
        table.add_row(str(r.rank), names.get(r.hotkey, r.hotkey[:12]), str(r.uid), f"{r.score:.3f}",
                      f"{r.success_rate:.0%}", quality, str(r.errored),
                      *(f"{r.per_task.get(t, 0):.2f}" for t in tasks))
    out.print(table)
    out.print("score: mean over the race's problems of success x the judge's coefficient (the offline judge finds no "
              "LLM reasoning in the rule-based agents: gate 0.1, coefficient 0.39; sn15 reasons through the scripted "
              "model, and its answer is the last recommend_product of the steps it returned, handed to the gateway)",
              highlight=False)
    for q in store.qualifications(race.pack_id):
        sub = store.submission(q.submission_id)
        who = names.get(sub.hotkey, sub.hotkey[:12]) if sub is not None else str(q.submission_id)
        out.print(f"qualifying: {who} {q.status}, {q.score if q.score is None else f'{q.score:.3f}'} on the public "
                  f"qualifying set ({q.reason})", highlight=False)
    for sub in store.all_submissions():
        if sub.status in {"copy", "rejected"}:
            out.print(f"[yellow]{sub.status}[/]: {names.get(sub.hotkey, sub.hotkey)} ({sub.sha256[:12]}): "
                      f"{sub.reason}", highlight=False)
    ws = store.weight_sets()[0]
    vector = ", ".join(f"uid {uid}: {w:.3f}" for uid, w in ws.vector.items())
    out.print(f"weights ({ws.policy}, burn uid {settings.burn_uid}): {vector}; on chain: {ws.status} at block "
              f"{ws.block}", highlight=False)
    from arena.weights import MinerResult, describe_ties

    ranked = [MinerResult(hotkey=r.hotkey, score=min(1.0, max(0.0, r.score)), commitment_block=r.commitment_block)
              for r in store.race_results(race.race_id)]
    for line in describe_ties(ranked, {r.hotkey: r.uid for r in store.race_results(race.race_id)
                                       if r.uid is not None}, name=lambda hotkey: names.get(hotkey, hotkey[:12])):
        out.print(line, highlight=False)
    if ws.shadow_vector:
        shadow = ", ".join(f"uid {uid}: {w:.5f}" for uid, w in ws.shadow_vector.items())
        out.print(f"shadow weights ({ws.shadow_policy}, stored beside the live ones, never sent): {shadow}",
                  highlight=False)
    published = [store.problem(pid) for pid in race.problem_ids]
    out.print(f"published: the race closed, so its {len(published)} problems (sealed in the pack until block "
              f"{race.seed_block}) are in the store and the API with their answers, e.g. {published[0].problem_id}: "
              f"gold {', '.join(r['product_id'] for r in published[0].data['reward'])}", highlight=False)
    on_chain = chain.weights().get(0, {})
    out.print("chain's view of validator uid 0: " + ", ".join(f"uid {u}: {w:.3f}" for u, w in on_chain.items()),
              highlight=False)
    exported = export_trajectories(store, race.race_id, root / "trajectories", names)
    out.print(f"trajectories: {exported} (one JSONL per run, the gateway's log); store: {settings.db_url}; chain: "
              f"{chain_path}; took {time.time() - started:.0f}s", highlight=False)
    out.print(f"see it in a browser: arena-validator dashboard --database-url {settings.db_url}  (then open "
              f"http://127.0.0.1:{settings.api_port}/)", highlight=False)
    return 0


def export_trajectories(store: Any, race_id: str, folder: Path, names: dict[str, str]) -> Path:
    for run in store.runs(race_id=race_id):
        target = folder / names.get(run.hotkey, run.hotkey) / f"{run.problem_id}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "w") as fh:
            for event in store.events(run.run_id):
                fh.write(event.model_dump_json() + "\n")
    return folder
