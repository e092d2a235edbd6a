"""Race benchmark (prints figures; asserts nothing).

    python bench/race.py                                  # 32 miners x 30 problems, offline agent, bubblewrap
    python bench/race.py --miners 4 --problems 6          # a quick look
    python bench/race.py --dispatch ray --miners 8 --problems 10   # local, then a local Ray cluster of 1 and 2 workers
    python bench/race.py --miners 4 --problems 6 --json race.json  # the rows also written to a file

A real race on the node's code path: a built catalog and a signed pack, a LocalChain with a validator and N miners
(each a distinct bundle of the offline template), the store on SQLite, the process sandbox (bubblewrap), the gateway,
strict scoring, race close and weights set on the local chain.

Rows:
- wall time from the race opening to weights set, and runs per minute;
- summed sandbox time (each sandbox's start to exit: the agent, and its waits on the gateway's answers, shown apart
  from the gateway's own timing of each call) and the node's own time per run (a run's span from `starting` to
  `finished` minus its sandbox time: staging, gateway bookkeeping, the trajectory write, scoring, waiting for the
  judge and judging; the judge is on: the node's default, offline), as a mean (every cost counted, one-off costs
  such as a process's first run included) and a median (the typical run); the overhead is the node's summed time
  over the summed sandbox time. A run is `starting` only once a run slot is free (the dispatch gate; with Ray a
  free runner), so no queue wait is in it;
- the node process's CPU time per run (steadier than wall time when other work shares the machine);
- the node's time per run split by stage (`validator.races.StageTimes`, each stage's summed time over the race's
  runs): staging, gateway, trajectory write, strict scoring, judge wait, judge, close (every tick of the close job);
- the cost of opening a sealed batch (per race: the race's problems sealed to a real drand round, then opened
  with its signature, see `cost_rows`); the qualifying round (`RaceBench.qualifying`: four new submissions race
  problems made fresh for their rounds on a node of their own; seconds per submission and the cost of deciding);
- idle share: wall time x concurrency not covered by any run (scheduling gaps).

With `--dispatch ray` the same race (same pack, slot, miners) is run three times, each by its own validator on the
same chain: dispatched locally at `--concurrency`, then across a real Ray cluster started on this machine (a head and
`--workers` worker nodes of `--worker-cpus` CPUs each, by default as many as `--concurrency`, every one its own `ray
start` process group; the node readies their worker processes before the race, as it does when it starts), and the
summary prints runs per minute for each, the node's per-run overhead of Ray dispatch against local dispatch, and
whether scores and weight vectors are identical to local dispatch's. `--agent-sleep S` makes every agent wait S
seconds before it solves (an agent waiting on its model): the runs are then bound by waiting, not by the CPU.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.catalog import Catalog  # noqa: E402
from arena.problems.pack import load_pack  # noqa: E402
from demo.agents import MINER_TEMPLATE, write_template  # noqa: E402
from sandbox.backends import Limits  # noqa: E402
from sandbox.backends.process import ProcessSandbox  # noqa: E402
from sandbox.bundle import pack_dir  # noqa: E402
from tests.support.race import build_arena_inputs, make_chain, place_submission  # noqa: E402
from validator.races import Arena, ArenaConfig  # noqa: E402
from validator.scheduler import Node  # noqa: E402
from validator.store.repository import Store, make_engine  # noqa: E402
from validator.store.schema import upgrade  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--miners", type=int, default=32)
    parser.add_argument("--problems", type=int, default=30, help="problems per race")
    parser.add_argument("--concurrency", type=int, default=2)
    parser.add_argument("--catalog-size", type=int, default=20_000)
    parser.add_argument(
        "--dispatch",
        choices=("local", "ray"),
        default="local",
        help="ray: race locally, then on a local Ray cluster of 1 and 2 workers (up to --workers)",
    )
    parser.add_argument("--workers", type=int, default=2, help="the most Ray workers to race on (--dispatch ray)")
    parser.add_argument(
        "--worker-cpus",
        type=int,
        default=None,
        help="CPUs of each Ray worker, one run each (default: --concurrency, so one worker takes as many runs at once "
        "as local dispatch)",
    )
    parser.add_argument(
        "--agent-sleep",
        type=float,
        default=0.0,
        help="seconds each agent sleeps before it solves a problem (an agent that waits on its model, as a real LLM "
        "agent does); with Ray, where two workers should approach 2x one",
    )
    parser.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="write one row per race to FILE as JSON: label, runs, seconds, runs_per_min, node_ms_per_run, and with "
        "Ray workers and overhead_ms_per_run (the node's time per run over local dispatch's)",
    )
    args = parser.parse_args()
    args.worker_cpus = args.worker_cpus or args.concurrency
    if args.json is not None and not args.json.parent.is_dir():
        parser.error(f"--json: no folder {args.json.parent}")

    with tempfile.TemporaryDirectory(prefix="bench-race-") as tmp:
        root = Path(tmp)
        t0 = time.perf_counter()
        catalog_dir, pack_path, signer = build_arena_inputs(
            root, size=args.catalog_size, problems=int(args.problems / 0.6) + 4, per_race=args.problems, cadence=100_000
        )  # one race: the next slot is far away
        names = [f"miner{i:02d}" for i in range(args.miners)]
        races = 1 if args.dispatch == "local" else 1 + args.workers
        setup = make_chain(root, names, validators=races, block_time=0.5, rate_limit=5)
        template = MINER_TEMPLATE.read_text()
        if args.agent_sleep:
            template += (
                f"\n\n_solve_now = agent_main\n\n\ndef agent_main(problem):\n    import time\n\n"
                f"    time.sleep({args.agent_sleep})\n    return _solve_now(problem)\n"
            )
        agents = {name: write_template(root / "agents" / name, f"# {name}\n" + template) for name in names}
        catalog = Catalog.open(catalog_dir)
        pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
        race_pool = sum(1 for p in pack.problems if p.split == "race")
        print(
            f"setup {time.perf_counter() - t0:.1f}s: {args.miners} miners, race pool {race_pool} problems "
            f"(drawing {min(args.problems, race_pool)}), concurrency {args.concurrency}"
        )
        block = setup.chain.block()
        slot = block - block % 100_000  # every validator of this bench races the same slot
        bench = RaceBench(root, setup, agents, catalog, pack, slot)
        local = bench.race(0, "local", args.concurrency)
        if args.dispatch == "local":
            for row in bench.qualifying(args.concurrency):
                print(row)
            write_json(args.json, [local])
            return
        from tests.support.ray_cluster import LocalRayCluster
        from validator.dispatch.ray import RayDispatcher

        rows = [local]
        with LocalRayCluster(root / "ray-logs") as cluster:
            for n in range(1, args.workers + 1):
                cluster.add_worker(
                    f"w{n}", catalog_dir, cpus=args.worker_cpus, memory_mb=args.worker_cpus * Limits().memory_mb + 512
                )
                dispatcher = RayDispatcher.connect(
                    cluster.address, catalog_digest=catalog.digest, memory_mb=Limits().memory_mb
                )
                while len(dispatcher.workers()) < n:  # the worker just started is listed by the head
                    time.sleep(0.2)
                dispatcher.warm()  # as the node does when it starts: a warm runner on every slot before the race
                row = bench.race(n, f"ray, {n} worker{'s' if n > 1 else ''}", args.concurrency, dispatcher)
                rows.append({**row, "workers": n})
            import ray

            ray.shutdown()
        print_dispatch_summary(rows)
        write_json(args.json, rows)


def write_json(path: Path | None, rows: list[dict[str, Any]]) -> None:
    """The races' rows as JSON (the figures only: no vectors or per-run finals)."""
    if path is None:
        return
    local = rows[0]
    out = []
    for row in rows:
        item = {
            "label": row["label"],
            "runs": row["runs"],
            "seconds": round(row["wall"], 3),
            "runs_per_min": round(row["per_min"], 1),
            "node_ms_per_run": round(row["overhead"] * 1000, 1),
            "node_ms_median": round(row["median"] * 1000, 1),
            "sandbox_s_per_run": round(row["agent"], 3),
            "gateway_s_per_run": round(row["gateway"], 3),
            "slots": row["slots"],
            "errored": row["errored"],
        }
        if "workers" in row:
            item["workers"] = row["workers"]
            item["overhead_ms_per_run"] = round((row["overhead"] - local["overhead"]) * 1000, 1)
            item["same_as_local"] = all(row[key] == local[key] for key in ("finals", "scores", "vector"))
        out.append(item)
    path.write_text(json.dumps(out, indent=1) + "\n")
    print(f"rows written to {path}")


class RaceBench:
    """One race of the bench's pack and miners, raced by validator `i` of the chain into its own store."""

    def __init__(self, root: Path, setup: Any, agents: dict[str, Path], catalog: Any, pack: Any, slot: int) -> None:
        self.root, self.setup, self.agents, self.slot = root, setup, agents, slot
        self.catalog, self.pack = catalog, pack

    def race(self, i: int, label: str, concurrency: int, dispatcher: Any = None) -> dict[str, Any]:
        root, setup = self.root, self.setup
        url = f"sqlite:///{root / f'node{i}.sqlite'}"
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()
        store = Store.open(url)
        store.upsert_miners(setup.chain.metagraph().neurons)
        for j, (name, agent) in enumerate(self.agents.items()):
            sub = place_submission(store, root / f"node{i}", setup.miners[name].hotkey.ss58_address, agent, 1 + j)
            archive = root / f"node{i}" / "bundles" / f"{sub.sha256}.tar.gz"  # kept beside the folder, as a sync does
            archive.write_bytes(pack_dir(agent).data)
        config = ArenaConfig(
            data_dir=root / f"node{i}",
            concurrency=concurrency,
            max_attempts=2,
            retry_backoff=1.0,
            limits=Limits(wall_seconds=120),
        )
        arena = Arena(
            store=store,
            chain=setup.chain,
            wallet=setup.validators[i],
            pack=self.pack,
            catalog=self.catalog,
            sandbox=None if dispatcher else ProcessSandbox("bwrap"),
            config=config,
            dispatcher=dispatcher,
        )
        arena.start()
        try:
            arena.open_race(block=self.slot)
        finally:
            arena.stop()
        node = Node(arena, block_time=0.5, dispatch_seconds=0.5, close_seconds=1.0)

        def done() -> bool:
            sets = store.weight_sets()
            return bool(sets) and sets[-1].status in {"set", "failed"}

        slots = arena.dispatcher.capacity(concurrency)
        print(f"--- {label}: {slots} runs at once")
        started, cpu = time.perf_counter(), _cpu()
        asyncio.run(node.run(until=done, poll=0.5, handle_signals=False))
        wall, cpu = time.perf_counter() - started, _cpu() - cpu
        row = race_rows(store, arena, wall, cpu, slots)
        race_id = store.races()[0].race_id
        row.update(
            label=label,
            vector=store.weight_sets()[-1].vector,
            scores={r.hotkey: (r.rank, r.score) for r in store.race_results(race_id)},
            finals={
                (r.hotkey, r.problem_id): (r.status, r.error_code, (store.score(r.run_id) or r).final)
                for r in store.runs()
            },
        )
        store.close()
        return row

    def qualifying(self, concurrency: int, miners: int = 4) -> list[str]:
        """The qualifying round's rows: `miners` new submissions each race problems made fresh for their round (as
        many as the pack's public split holds, up to 30; generating them is part of the cost) on a node of their
        own, driven as the node's jobs drive it (start, dispatch, close and decide); the cost per submission, and
        the node's own cost of deciding (the decision stored)."""
        root, setup = self.root, self.setup
        public = sum(1 for p in self.pack.problems if p.split == "public")
        if not public:
            return ["qualify   the qualifying round: not measured (the bench's pack has no public problem)"]
        rotation = self.pack.rotation.model_copy(update={"qualify_share": 0.95, "qualify_problems": min(public, 30)})
        pack = self.pack.model_copy(update={"rotation": rotation})
        url = f"sqlite:///{root / 'qualify.sqlite'}"
        engine = make_engine(url)
        upgrade(engine)
        engine.dispose()
        store = Store.open(url)
        store.upsert_miners(setup.chain.metagraph().neurons)
        for j, (name, agent) in enumerate(list(self.agents.items())[:miners]):
            place_submission(store, root / "qualify", setup.miners[name].hotkey.ss58_address, agent, block=1 + j)
        config = ArenaConfig(
            data_dir=root / "qualify",
            concurrency=concurrency,
            max_attempts=2,
            retry_backoff=1.0,
            limits=Limits(wall_seconds=120),
        )
        arena = Arena(
            store=store,
            chain=setup.chain,
            wallet=setup.validators[0],
            pack=pack,
            catalog=self.catalog,
            sandbox=ProcessSandbox("bwrap"),
            config=config,
        )
        arena.start()
        decide = 0.0
        started = time.perf_counter()
        try:
            started_rounds = arena.qualifying.start(self.slot)
            while store.races(status="running", kind="qualifying"):
                asyncio.run(arena.dispatch())
                mark = time.perf_counter()
                arena.close_races()  # closing a qualifying race decides its submission
                decide += time.perf_counter() - mark
        finally:
            arena.stop()
        wall = time.perf_counter() - started
        runs = store.runs()
        agent = sum(float((r.sandbox or {}).get("elapsed_s", 0.0)) for r in runs)
        decided = store.qualifications(pack.pack_id)
        store.close()
        per_submission = wall / max(started_rounds, 1)
        statuses = ", ".join(sorted(q.status for q in decided))
        return [
            f"qualify   the qualifying round: {started_rounds} new submissions x {rotation.qualify_problems} "
            f"fresh problems = {len(runs)} runs in {wall:.1f}s wall ({per_submission:.1f}s per submission at "
            f"{concurrency} at once; {agent / max(len(runs), 1):.2f}s agent time per run)",
            f"          decided: {statuses}; the closing ticks that decided them took "
            f"{decide * 1000 / max(len(decided), 1):.1f} ms per submission (the qualifying race closed, the "
            "leader's figures read, the decision stored)",
        ]


def race_rows(store: Any, arena: Any, wall: float, cpu: float, concurrency: int) -> dict[str, Any]:
    """Print the race's rows; returns the figures the dispatch summary compares."""
    runs = store.runs()
    agent = sum(float((r.sandbox or {}).get("elapsed_s", 0.0)) for r in runs)
    # the sandbox's time holds its gateway's answers to the agent's calls: on the node's gateway (local dispatch,
    # one process for every run at once) or the runner's own (Ray: a process per run slot)
    gateway = sum(e.duration_ms for r in runs for e in store.events(r.run_id)) / 1000
    ended = [r for r in runs if r.starting_at and (r.finished_at or r.errored_at)]
    spans = [((r.finished_at or r.errored_at) - r.starting_at).total_seconds() for r in ended]
    node_time = sum(spans) - agent
    each = [span - float((r.sandbox or {}).get("elapsed_s", 0.0)) for r, span in zip(ended, spans, strict=True)]
    median = statistics.median(each) if each else 0.0
    errored = sum(1 for r in runs if r.status == "errored")
    print(f"race      {len(runs)} runs in {wall:.1f}s wall ({len(runs) / wall * 60:.0f} runs/min), {errored} errored")
    print(
        f"agents    {agent:.1f}s summed sandbox time ({agent / max(len(runs), 1):.2f}s per run, of which "
        f"{gateway / max(len(runs), 1):.2f}s waiting on the gateway's answers)"
    )
    print(
        f"node      {node_time:.1f}s summed per-run overhead ({node_time / max(len(runs), 1) * 1000:.0f} ms per "
        f"run, median {median * 1000:.0f} ms) = {node_time / agent:.1%} of sandbox time"
    )
    print(
        f"cpu       {cpu / max(len(runs), 1) * 1000:.0f} ms of the node process's CPU per run (its gateway "
        "serving the agents' calls included; steadier than wall time on a shared machine)"
    )
    stages = getattr(arena, "stages", None)  # validator.races.StageTimes; absent in older nodes
    if stages is None:
        print("stages    not instrumented in this version of the node")
    else:
        per_run = {stage: stages.seconds[stage] / max(len(runs), 1) * 1000 for stage in stages.seconds}
        print(
            "stages    ms per run (the node's default judge, offline): "
            + ", ".join(f"{stage.replace('_', ' ')} {ms:.1f}" for stage, ms in per_run.items())
            + f"; sum {sum(per_run.values()):.1f}"
        )
        cpus = {stage: ms / max(len(runs), 1) * 1000 for stage, ms in stages.cpu.items() if ms is not None}
        print(
            "          of which CPU: "
            + ", ".join(f"{stage.replace('_', ' ')} {ms:.1f}" for stage, ms in cpus.items())
            + f"; sum {sum(cpus.values()):.1f}"
        )
    for row in cost_rows(arena):
        print(row)
    idle = wall * concurrency - sum(spans)
    print(
        f"idle      {max(idle, 0):.1f}s of {wall * concurrency:.1f} slot-seconds "
        f"({max(idle, 0) / (wall * concurrency):.1%}) not covered by a run"
    )
    return {
        "runs": len(runs),
        "wall": wall,
        "per_min": len(runs) / wall * 60,
        "agent": agent / max(len(runs), 1),
        "gateway": gateway / max(len(runs), 1),
        "overhead": node_time / max(len(runs), 1),
        "median": median,
        "slots": concurrency,
        "errored": errored,
    }


def print_dispatch_summary(rows: list[dict[str, Any]]) -> None:
    local = rows[0]
    print("--- dispatch summary")
    for row in rows:
        print(
            f"dispatch  {row['label']:<16} {row['slots']} at once: {row['per_min']:.0f} runs/min, "
            f"{row['agent']:.2f}s sandbox time ({row['gateway']:.2f}s of it the gateway's) and "
            f"{row['overhead'] * 1000:.0f} ms node overhead per run (median {row['median'] * 1000:.0f} ms)"
        )
    for row in rows[1:]:
        same = all(row[key] == local[key] for key in ("finals", "scores", "vector"))
        print(
            f"ray cost  {row['label']}: {(row['overhead'] - local['overhead']) * 1000:+.0f} ms per run against "
            f"local dispatch, median {(row['median'] - local['median']) * 1000:+.0f} ms (the call to the runner "
            f"and back, staging on the worker, the worker's gateway, the log's transfer); scores "
            f"and weight vector {'identical to' if same else 'DIFFERENT from'} local dispatch's"
        )


def _cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)  # this process only: the sandboxes are its children
    return usage.ru_utime + usage.ru_stime


def cost_rows(arena: Any, repeats: int = 5) -> list[str]:
    """The rows of the benchmark beyond the race itself: the cost of opening a sealed batch (per race) and of
    the qualifying round.

    The sealed batch: the problems this race drew (with their gold title vectors), sealed to drand quicknet round 1000
    as `arena problems pack` seals a slot's batch, then opened with that round's real signature as the node opens
    one (`arena.problems.seal.open_batch`: timelock decryption, the sha256 check, the problems parsed), the median of
    `repeats` openings; fetching the round's signature from the chain or a relay is not included."""
    from arena.beacon import QUICKNET_ROUND_1000
    from arena.problems.seal import open_batch, seal_batch

    races = arena.store.races()
    raced = set(races[-1].problem_ids) if races else set()
    pack = arena.pack
    problems = [p for p in pack.problems if p.problem_id in raced]
    if not problems:
        sealed = "sealed    opening a sealed batch (per race): not measured (the race drew no problem)"
    else:
        batch = seal_batch(
            problems,
            slot=0,
            open_block=0,
            reveal_round=1000,
            title_embeddings={p.problem_id: pack.title_embeddings.get(p.problem_id, []) for p in problems},
        )
        seconds = []
        for _ in range(repeats):
            started = time.perf_counter()
            open_batch(batch, QUICKNET_ROUND_1000)
            seconds.append(time.perf_counter() - started)
        sealed = (
            f"sealed    opening a sealed batch: {statistics.median(seconds) * 1000:.1f} ms per race "
            f"({len(problems)} problems, {len(batch.ciphertext) / 1024:.0f} KiB sealed; median of {repeats}; "
            "the beacon fetch not included)"
        )
    return [sealed]


if __name__ == "__main__":
    main()
