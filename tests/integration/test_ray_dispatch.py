"""Races across a real Ray cluster on this machine (`--dispatch ray`): a head and workers, each its own `ray start` with
its own resources and catalog copy, the node (store, chain, judge, weights) in this process; every fault of
docs/cluster.md ("Faults")."""

from __future__ import annotations

import asyncio
import contextlib
import functools
import http.server
import json
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psutil
import pytest
from prometheus_client import generate_latest

from arena import blame
from arena.catalog import Catalog
from arena.catalog.build import build_catalog
from arena.problems.pack import load_pack
from demo.agents import MINER_TEMPLATE, write_template
from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from sandbox.bundle import pack_dir
from tests.support.node import open_store, run_flags
from tests.support.race import build_arena_inputs, make_chain, place_submission, write_agent
from tests.support.ray_cluster import LocalRayCluster
from validator.api.views import live
from validator.chain.commitment import encode_commitment
from validator.dispatch import namespace_of
from validator.dispatch.ray import RayDispatcher
from validator.metrics import Metrics
from validator.races import Arena, ArenaConfig
from validator.scheduler import Node
from validator.store.repository import Store

pytestmark = pytest.mark.slow  # a Ray cluster of its own processes, races in bubblewrap

MINERS = ["offline", "lite", "hostile"]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    # one race per validator: the next rotation slot is far away
    return build_arena_inputs(tmp_path_factory.mktemp("arena"), size=3000, problems=24, per_race=4, cadence=100_000)


#: the worker hosts' side of a reply corrupted on its way back (tests/support/ray_reply/sitecustomize.py)
CUTTER = Path(__file__).resolve().parents[1] / "support" / "ray_reply"


@pytest.fixture(scope="module")
def cut_replies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Where a test puts a file named ``run`` or ``collect`` to have the workers cut the next such reply in half."""
    return tmp_path_factory.mktemp("cut-replies")


def worker_env(cut_replies: Path) -> dict[str, str]:
    """A worker host's environment: able to corrupt a reply when a test asks. Every worker the module starts has it,
    one started again in a killed one's place too, or a test's cut would hang on which worker took its run."""
    return {
        "PYTHONPATH": os.pathsep.join([str(CUTTER), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "SHOPARENA_TEST_CUT_REPLIES": str(cut_replies),
    }


@pytest.fixture(scope="module")
def cluster(
    inputs: tuple[Path, Path, str], cut_replies: Path, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[LocalRayCluster]:
    """A head (no CPUs: it takes no runs) and two workers with one CPU each (one run at a time each), both holding
    the node's catalog, each able to corrupt a reply when a test asks (`cut_replies`); this process joins as the
    node (the Ray driver)."""
    import ray

    with LocalRayCluster(tmp_path_factory.mktemp("ray-logs")) as found:
        found.add_worker("a", inputs[0], env=worker_env(cut_replies))
        found.add_worker("b", inputs[0], env=worker_env(cut_replies))
        ray_dispatcher(found, inputs)  # this process joins the cluster as the node (its Ray driver)
        try:
            yield found
        finally:
            ray.shutdown()


@pytest.fixture(autouse=True)
def free_runners(cluster: LocalRayCluster) -> Iterator[None]:
    """Each test starts on the cluster as it is meant to be (a worker killed and started again by an earlier test
    has joined, the killed one is gone from Ray's view), and its runners (detached actors holding the workers' CPUs)
    are ended after it: the next test's node makes its own."""
    cluster.settle()
    yield
    import ray

    for actor in ray.util.list_named_actors(all_namespaces=True):
        if actor["name"].startswith("runner-"):
            try:
                ray.kill(ray.get_actor(actor["name"], namespace=actor["namespace"]))
            except ValueError:  # ended meanwhile
                continue
    wait_until(lambda: not runners(), "the runners to end")


def runners(namespace: str | None = None) -> list[str]:
    import ray

    return [
        a["name"]
        for a in ray.util.list_named_actors(all_namespaces=True)
        if a["name"].startswith("runner-") and namespace in (None, a["namespace"])
    ]


def make_arena(
    store: Store,
    setup: Any,
    wallet: Any,
    inputs: tuple[Path, Path, str],
    data_dir: Path,
    dispatcher: Any = None,
    gateway: Any = None,
) -> Arena:
    catalog_dir, pack_path, signer = inputs
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    config = ArenaConfig(  # the fork rule off: "offline" and "lite" race as distinct miners
        data_dir=data_dir,
        concurrency=2,
        max_attempts=3,
        retry_backoff=0.2,
        limits=Limits(wall_seconds=60),
        fork_rule=False,
    )
    arena = Arena(
        store=store,
        chain=setup.chain,
        wallet=wallet,
        pack=pack,
        catalog=catalog,
        sandbox=None if dispatcher is not None else ProcessSandbox("bwrap"),
        config=config,
        dispatcher=dispatcher,
        gateway=gateway,
    )
    arena.metrics = Metrics(store, run_timeout=60)
    return arena


def ray_dispatcher(cluster: LocalRayCluster, inputs: tuple[Path, Path, str]) -> RayDispatcher:
    return RayDispatcher.connect(cluster.address, catalog_digest=Catalog.open(inputs[0]).digest, memory_mb=1024)


def warmed(cluster: LocalRayCluster, inputs: tuple[Path, Path, str]) -> RayDispatcher:
    """A node's dispatcher as `arena-validator run` opens it: every worker's runners readied before the first run
    (`RayDispatcher.warm`), so which worker takes runs does not hang on whose runner was ready first."""
    dispatcher = ray_dispatcher(cluster, inputs)
    assert dispatcher.warm() == {}
    assert dispatcher.capacity(2) == 2  # a and b, one run each
    return dispatcher


def seed(store: Store, setup: Any, root: Path, data_dir: Path, agents: dict[str, Path]) -> dict[str, str]:
    store.upsert_miners(setup.chain.metagraph().neurons)
    hotkeys = {}
    for i, (name, folder) in enumerate(agents.items()):
        hotkeys[name] = setup.miners[name].hotkey.ss58_address
        place_submission(store, data_dir, hotkeys[name], folder, block=10 + i)
    return hotkeys


def race(arena: Arena, store: Store, block: int | None = None) -> None:
    if block is not None:  # the rotation slot every validator of this test races
        arena.start()
        try:
            arena.open_race(block=block)
        finally:
            arena.stop()
    node = Node(arena, block_time=0.5, dispatch_seconds=0.5, close_seconds=0.5)

    def done() -> bool:
        sets = store.weight_sets()
        return bool(sets) and sets[-1].status in {"set", "failed"}

    asyncio.run(asyncio.wait_for(node.run(until=done, poll=0.2, handle_signals=False), timeout=900))


def slow_agent(folder: Path, name: str, seconds: float = 2.0) -> Path:
    """The offline template, taking a couple of seconds per problem, so a worker can be killed mid-run."""
    return write_template(
        folder,
        MINER_TEMPLATE.read_text() + f"\n\nMINER = {name!r}\n\n_solve_now = agent_main\n\n\n"
        f"def agent_main(problem):\n    time.sleep({seconds})\n    return _solve_now(problem)\n",
    )


def outcome(store: Store, runs: list[Any]) -> dict[tuple[str, str], Any]:
    """What a race decided per (miner, problem): status, code, the strict verdict, the final score, and the
    trajectory (every gateway call with its arguments and result; not its timing)."""
    found = {}
    for run in runs:
        score = store.score(run.run_id)
        calls = [
            (
                e.seq,
                e.kind,
                e.name,
                json.dumps(e.arguments, sort_keys=True),
                json.dumps(e.result, sort_keys=True),
                e.status,
            )
            for e in store.events(run.run_id)
        ]
        found[(run.hotkey, run.problem_id)] = (
            run.status,
            run.error_code,
            None if score is None else (score.success, score.final, score.strict["answer"]),
            (run.sandbox or {}).get("answer"),
            calls,
        )
    return found


def keep_archives(data_dir: Path, agents: dict[str, Path]) -> None:
    """Beside the unpacked bundles their committed bytes, as a sync keeps them (the dispatcher sends those): the first
    miner's its own, the second's another miner's bytes (not its bundle: never sent, or that miner would run another
    agent's code), the third's none (packed from its folder)."""
    packed = [pack_dir(folder) for folder in agents.values()]
    (data_dir / "bundles" / f"{packed[0].sha256}.tar.gz").write_bytes(packed[0].data)
    (data_dir / "bundles" / f"{packed[1].sha256}.tar.gz").write_bytes(packed[2].data)


def test_a_race_over_two_workers_equals_the_same_race_dispatched_locally(
    cluster: LocalRayCluster, inputs: Any, tmp_path: Path
) -> None:
    setup = make_chain(tmp_path, MINERS, validators=2)
    agents = {name: write_agent(tmp_path / "agents" / name, name) for name in MINERS}
    block = setup.chain.block()
    slot = block - block % 100_000
    results = []
    for i, wallet in enumerate(setup.validators):
        store = open_store(f"sqlite:///{tmp_path / f'v{i}.sqlite'}")
        seed(store, setup, tmp_path, tmp_path / f"node{i}", agents)
        if i == 1:
            keep_archives(tmp_path / "node1", agents)
        dispatcher = warmed(cluster, inputs) if i == 1 else None
        arena = make_arena(store, setup, wallet, inputs, tmp_path / f"node{i}", dispatcher)
        race(arena, store, block=slot)
        runs = store.runs()
        race_id = store.races()[0].race_id
        results.append(
            {
                "runs": runs,
                "outcome": outcome(store, runs),
                "scores": {r.hotkey: (r.rank, r.score, r.success_rate) for r in store.race_results(race_id)},
                "vector": json.dumps(store.weight_sets()[-1].vector),
                "problems": store.races()[0].problem_ids,
                "metrics": generate_latest(arena.metrics.registry).decode(),
            }
        )
        store.close()
    local, spread = results
    assert len(local["runs"]) == len(MINERS) * 4 and local["problems"] == spread["problems"]
    # the same decisions, run for run: statuses, codes, answers, strict verdicts, final scores, whole trajectories
    assert spread["outcome"] == local["outcome"]
    assert spread["scores"] == local["scores"] and spread["vector"] == local["vector"]
    assert any(o[0] == "finished" and o[2][0] == 1.0 for o in spread["outcome"].values())  # not all zeros
    # every run went to a worker, and both workers took runs; the node ran none itself
    workers = {cluster.workers[name].node_id()[:12] for name in ("a", "b")}
    ran_on = [r.sandbox["worker"] for r in spread["runs"]]
    assert set(ran_on) == workers, ran_on
    assert {r.sandbox["worker"] for r in local["runs"]} == {"local"}
    for worker in workers:
        assert f'shoparena_worker_runs_total{{worker="{worker}"}} {float(ran_on.count(worker))}' in spread["metrics"]
    store = Store.open(f"sqlite:///{tmp_path / 'v1.sqlite'}")  # the dashboard's live race shows runs per worker
    store.set_race_status(store.races()[0].race_id, "running")  # as it did while it ran
    assert live(store)["races"][0]["runs_by_worker"] == {w: ran_on.count(w) for w in sorted(workers)}
    store.close()


def test_a_worker_with_another_catalog_refuses_work_and_its_runs_go_elsewhere(
    cluster: LocalRayCluster, inputs: Any, tmp_path: Path
) -> None:
    other = tmp_path / "other-catalog"
    build_catalog(4, 300, other, force=True)
    stray = cluster.add_worker("stray", other)
    try:
        stray_id = stray.node_id()
        # what the operator sees before starting the node: the worker and its catalog, refused, in one line
        checked = subprocess.run(
            [
                str(Path(sys.executable).parent / "arena-validator"),
                "config",
                "check",
                "--dispatch",
                "ray",
                "--ray.address",
                cluster.address,
                "--catalog",
                str(inputs[0]),
                "--database-url",
                f"sqlite:///{tmp_path / 'absent.sqlite'}",
                "--chain",
                "localchain",
                "--localchain.path",
                str(tmp_path / "absent-chain.sqlite"),
            ],
            capture_output=True,
            text=True,
            timeout=300,
            env={**{k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}, "COLUMNS": "1000"},
            cwd=tmp_path,
        )
        lines = checked.stdout.splitlines()
        assert checked.returncode == 1
        assert any(line.startswith("ok") and "cluster" in line and "3 workers" in line for line in lines), lines
        assert (
            sum(1 for line in lines if line.startswith("ok") and "worker" in line and "process-bwrap" in line) == 2
        ), lines
        refused = [line for line in lines if line.startswith("fail") and stray_id[:12] in line]
        assert len(refused) == 1 and "refuses runs: its catalog" in refused[0] and str(other) in refused[0], lines

        setup = make_chain(tmp_path, MINERS[:2])
        store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
        agents = {name: write_agent(tmp_path / "agents" / name, name) for name in MINERS[:2]}
        seed(store, setup, tmp_path, tmp_path / "node", agents)
        dispatcher = ray_dispatcher(cluster, inputs)
        problems = dispatcher.warm()  # the stray worker's runner refuses when it warms up: before any run
        assert list(problems) == [stray_id] and "refuses runs: its catalog" in problems[stray_id]
        arena = make_arena(store, setup, setup.validators[0], inputs, tmp_path / "node", dispatcher)
        race(arena, store)
        runs = store.runs()
        assert len(runs) == 8 and all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
        assert not [r for r in runs if r.sandbox.get("attempts")]  # no run went to the stray worker
        assert stray_id[:12] not in {r.sandbox["worker"] for r in runs}
        assert set(dispatcher.refused) == {stray_id} and dispatcher.capacity(2) == 2
        store.close()
    finally:
        cluster.kill("stray")


def test_a_reply_corrupted_on_its_way_back_is_the_workers_fault_2008_and_the_run_is_retried(
    cluster: LocalRayCluster, inputs: Any, tmp_path: Path, cut_replies: Path
) -> None:
    """A runner's reply that reaches the node as bytes that do not unpack (cut in half on the worker host, after the
    runner packed it) is the worker's fault: 2008, the validator's, retried (docs/cluster.md, "Faults"); the run
    finishes on its next attempt and the miner's race is as if nothing had happened: no zero, no error counted."""
    setup = make_chain(tmp_path, ["offline"])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    hotkeys = seed(store, setup, tmp_path, tmp_path / "node", {"offline": write_agent(tmp_path / "a", "offline")})
    arena = make_arena(store, setup, setup.validators[0], inputs, tmp_path / "node", warmed(cluster, inputs))
    (cut_replies / "run").touch()  # the next run's reply, whichever worker sends it
    race(arena, store)
    assert not (cut_replies / "run").exists()  # a reply was cut
    runs = store.runs()
    assert len(runs) == 4 and all((r.status, r.error_code, r.blame) == ("finished", None, None) for r in runs), [
        (r.status, r.error) for r in runs
    ]
    retried = [r for r in runs if r.sandbox.get("attempts")]
    assert len(retried) == 1 and retried[0].attempt == 2, [(r.attempt, r.sandbox.get("attempts")) for r in runs]
    [cut] = retried[0].sandbox["attempts"]
    assert cut["code"] == blame.WORKER_LOST and "the worker's reply does not unpack" in cut["error"], cut
    assert {r.attempt for r in runs if r is not retried[0]} == {1}
    finals = [store.score(r.run_id) for r in runs]
    assert all(s is not None and s.final is not None for s in finals)
    [result] = store.race_results(store.races()[0].race_id)
    assert result.hotkey == hotkeys["offline"] and result.errored == 0
    assert result.score == pytest.approx(sum(s.final for s in finals if s is not None) / 4)
    store.close()


def wait_until(predicate: Any, what: str, timeout: float = 300) -> None:
    """A safety bound for a wait on a state (never an assertion on how long it took)."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.2)


@pytest.fixture
def bundle_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A plain HTTP server for the miners' packed bundles (their commitments carry its URL)."""
    folder = tmp_path / "www"
    folder.mkdir()
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(folder))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", folder
    server.shutdown()


def test_the_node_killed_mid_race_re_attaches_to_its_runs_still_executing_on_the_workers(
    cluster: LocalRayCluster, inputs: Any, tmp_path: Path, bundle_server: tuple[str, Path], cut_replies: Path
) -> None:
    """`arena-validator run --dispatch ray` as a process, SIGKILLed mid-race with a run on each worker and started
    again: the runs it had in flight went on on their runners (detached actors), and the restarted node takes their
    results instead of running them again: each finishes once, on its first attempt, blamed on nobody; the finished
    ones are never run again; none is lost or doubled. But the first reply it collects is corrupted on its way back
    (cut in half on the worker host, and handed over only once its runner runs a new run too): that run is the
    worker's fault, 2008, and runs again (its second attempt), never the miner's zero; the new run beside it on
    the same runner goes on (the runner is not killed for the bad reply) and finishes on its first attempt."""
    base_url, www = bundle_server
    names = ["slow-a", "slow-b"]
    setup = make_chain(tmp_path, names)
    for name in names:
        bundle = pack_dir(slow_agent(tmp_path / "agents" / name, name))
        (www / f"{name}.tar.gz").write_bytes(bundle.data)
        setup.chain.set_commitment(setup.miners[name], encode_commitment(bundle.sha256, f"{base_url}/{name}.tar.gz"))
    url = f"sqlite:///{tmp_path / 'node.sqlite'}"
    open_store(url).close()
    args = [
        str(Path(sys.executable).parent / "arena-validator"),
        "run",
        *run_flags(setup, tmp_path / "node", url, inputs),
        "--sandbox.wall_seconds",
        "60",
        "--dispatch",
        "ray",
        "--ray.address",
        cluster.address,
        "--api.port",
        "0",
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    store = Store.open(url)

    def count(status: str) -> int:
        return len(store.runs(status=status))

    namespace = namespace_of(tmp_path / "node")

    def in_flight_on_runners() -> bool:
        """Two runs finished and every run the node has claimed handed to its runner (a run is `running` in the store
        a moment before its runner has it: a node killed then leaves it to the next start's `recover`, 2006, tested in
        tests/integration/test_blame.py); both runners busy with slow agents, the node claims no other run meanwhile."""
        claimed = {r.run_id for r in store.runs(status=("starting", "running"))}
        return count("finished") >= 2 and len(claimed) >= 2 and claimed <= held_by_runners(namespace)

    log = open(tmp_path / "node.log", "ab")
    node = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=tmp_path)
    try:
        wait_until(in_flight_on_runners, "the race to be under way, its runs on the runners")
    finally:
        os.killpg(node.pid, signal.SIGKILL)
        node.wait(timeout=60)
    interrupted = {r.run_id for r in store.runs(status=("starting", "running"))}
    finished = {r.run_id: (r.finished_at, r.attempt) for r in store.runs(status="finished")}
    assert interrupted
    # the killed node's runs go on: its runners (in the node's own namespace) hold every run it had in flight
    assert interrupted <= held_by_runners(namespace)
    import ray

    for name in runners(namespace):  # each run it had in flight has ended there, its reply waiting: the restarted
        runner = ray.get_actor(name, namespace=namespace)  # node finds every runner free and sends each a new run
        for run_id in ray.get(runner.held.remote(), timeout=60):
            ray.get(runner.collect.remote(run_id), timeout=300)  # a safety bound: the reply, not consumed
    assert len(store.runs(status="pending")) >= 2  # a new run for each runner

    # the first reply the restarted node collects, cut, and handed over only once its runner runs a new run too
    (cut_replies / "collect").touch()
    node = subprocess.Popen(args, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True, cwd=tmp_path)
    try:
        wait_until(lambda: any(ws.status == "set" for ws in store.weight_sets()), "the weights to be set")
    finally:
        node.send_signal(signal.SIGTERM)
        assert node.wait(timeout=60) == 0, (tmp_path / "node.log").read_text()[-3000:]
    runs = store.runs()
    assert len(runs) == 8 and len({(r.hotkey, r.problem_id) for r in runs}) == 8
    assert all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
    for run_id, (at, attempt) in finished.items():  # never run again
        run = store.run(run_id)
        assert run is not None and (run.finished_at, run.attempt) == (at, attempt)
    for run in runs:
        seqs = [e.seq for e in store.events(run.run_id)]
        assert seqs and seqs == list(range(len(seqs)))  # one whole trajectory per run, stored once
    assert not (cut_replies / "collect").exists()  # a collected reply was cut
    beside = (cut_replies / "collect.beside").read_text().split()
    (cut_replies / "collect.beside").unlink()
    assert beside, "no run ran on the cut reply's runner beside it"
    for run_id in beside:  # its runner kept: the new run on it lived on, and finished on its first attempt
        run = store.run(run_id)
        assert run is not None and run.attempt == 1 and not run.sandbox.get("attempts"), run_id
    cut = {r.run_id for r in runs if r.sandbox.get("attempts")}
    assert len(cut) == 1 and cut < interrupted, [(r.run_id, r.sandbox.get("attempts")) for r in runs]
    for run in [r for r in runs if r.run_id in interrupted]:  # re-attached: its first attempt, no error, no blame
        if run.run_id in cut:  # or its collected reply did not unpack: the worker's fault, and it ran again
            [attempt] = run.sandbox["attempts"]
            assert attempt["code"] == blame.WORKER_LOST and "reply does not unpack" in attempt["error"], attempt
            assert run.attempt == 2 and (run.error_code, run.blame) == (None, None)
        else:
            assert run.attempt == 1 and not run.sandbox.get("attempts"), run.sandbox.get("attempts")
        assert store.score(run.run_id) is not None
    text = (tmp_path / "node.log").read_text()
    reattached = [line for line in text.splitlines() if "races.reattached" in line]
    assert {i for i in interrupted if any(f"run_id={i}" in line for line in reattached)} == interrupted - cut
    assert {r.sandbox["worker"] for r in runs} <= {cluster.workers[n].node_id()[:12] for n in ("a", "b")}
    # stopped cleanly, the node ended its runners: the workers are free for other work
    wait_until(lambda: not runners(namespace), "the node's runners to end")
    store.close()


def held_by_runners(namespace: str) -> set[str]:
    """The run ids the runners of a node's namespace are running or hold a reply of."""
    import ray

    found: set[str] = set()
    for name in runners(namespace):
        found |= set(ray.get(ray.get_actor(name, namespace=namespace).held.remote(), timeout=60))
    return found


def test_a_stuck_worker_is_given_up_after_the_wall_clock_plus_a_grace(
    cluster: LocalRayCluster, inputs: Any, tmp_path: Path
) -> None:
    """A worker process that stops answering mid-run (frozen) is bounded by the run's wall clock plus the grace: its
    task is cancelled (the process killed), the run is the validator's fault (2008) and runs again elsewhere."""
    names = ["slow-a", "slow-b"]
    setup = make_chain(tmp_path, names)
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    seed(store, setup, tmp_path, tmp_path / "node", {n: slow_agent(tmp_path / "agents" / n, n) for n in names})
    dispatcher = warmed(cluster, inputs)  # b's runner ready: the first two runs go one to each worker
    dispatcher.grace = 5.0
    arena = make_arena(store, setup, setup.validators[0], inputs, tmp_path / "node", dispatcher)
    arena.config.limits = Limits(wall_seconds=30)
    watcher = Store.open(f"sqlite:///{tmp_path / 'node.sqlite'}")
    frozen: list[tuple[str, int]] = []
    done = threading.Event()

    on_b = cluster.workers["b"].node_id()

    def freeze_a_run_on_b() -> None:
        while not done.is_set() and not frozen:
            running = {r.run_id for r in watcher.runs(status="running")}
            busy = [s for s in list(dispatcher.pool.slots.values()) if s.node_id == on_b and s.busy & running]
            if busy and busy[0].pid:
                os.kill(busy[0].pid, signal.SIGSTOP)  # the runner's process (its run's thread) hangs
                frozen.append((sorted(busy[0].busy)[0], busy[0].pid))
            else:
                done.wait(0.1)

    thread = threading.Thread(target=freeze_a_run_on_b, daemon=True)
    thread.start()
    try:
        race(arena, store)
    finally:
        done.set()
        thread.join()
        watcher.close()
    runs = store.runs()
    assert len(runs) == 8 and all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
    ((run_id, pid),) = frozen
    stuck = store.run(run_id)
    assert stuck is not None and stuck.attempt == 2
    (attempt,) = stuck.sandbox["attempts"]
    assert attempt["code"] == blame.WORKER_LOST and "within its wall clock plus 5s" in attempt["error"]
    assert all(not r.sandbox.get("attempts") for r in runs if r.run_id != stuck.run_id)
    for run in runs:
        seqs = [e.seq for e in store.events(run.run_id)]
        assert seqs and seqs == list(range(len(seqs)))
    # a frozen host cannot be helped from the node: its result, if it ever comes, is taken by no one; this one
    # thaws, and the kill of its runner ends it (Ray's kill, or the runner itself once it finds it was given up)
    with contextlib.suppress(ProcessLookupError):
        os.kill(pid, signal.SIGCONT)
    wait_until(lambda: not psutil.pid_exists(pid) or psutil.Process(pid).status() == "zombie", "the runner to end")
    # and its slot takes runs again: the runner made in its place is on worker b (one that lived on would hold b's
    # CPU, and every later race would run a slot short)
    wait_until(lambda: dispatcher.capacity(2) == 2, "worker b's slot to take runs again")
    assert store.run(stuck.run_id).attempt == 2  # type: ignore[union-attr]
    store.close()


def test_a_worker_killed_mid_race_loses_no_run_and_doubles_none(
    cluster: LocalRayCluster, inputs: Any, tmp_path: Path, cut_replies: Path
) -> None:
    names = ["slow-a", "slow-b"]
    setup = make_chain(tmp_path, names)
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    agents = {name: slow_agent(tmp_path / "agents" / name, name) for name in names}
    seed(store, setup, tmp_path, tmp_path / "node", agents)
    victim = cluster.workers["b"].node_id()
    dispatcher = warmed(cluster, inputs)  # b's runner ready: the first two runs go one to each worker
    arena = make_arena(store, setup, setup.validators[0], inputs, tmp_path / "node", dispatcher)
    watcher = Store.open(f"sqlite:///{tmp_path / 'node.sqlite'}")
    killed = threading.Event()

    def kill_when_b_runs_a_run() -> None:
        # worker b is running a run's task, and that run is in its sandbox
        while not killed.is_set():
            running = {r.run_id for r in watcher.runs(status="running")}
            if any(s.node_id == victim and s.busy & running for s in list(dispatcher.pool.slots.values())):
                cluster.kill("b")
                killed.set()
            else:
                killed.wait(0.1)

    thread = threading.Thread(target=kill_when_b_runs_a_run, daemon=True)
    thread.start()
    try:
        race(arena, store)
    finally:
        killed.set()
        thread.join()
        watcher.close()
        # a new host in its place, as the others are, for the tests that run after this one
        cluster.add_worker("b", inputs[0], env=worker_env(cut_replies))
    runs = store.runs()
    assert len(runs) == 8 and len({(r.hotkey, r.problem_id) for r in runs}) == 8
    assert all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
    lost = [r for r in runs if r.sandbox.get("attempts")]
    assert lost  # the run on worker b when it died
    for run in lost:
        assert [a["code"] for a in run.sandbox["attempts"]] == [blame.WORKER_LOST] and run.attempt == 2
        assert run.sandbox["worker"] != victim[:12]
    for run in runs:  # one trajectory per run, whole: the lost attempt left nothing behind
        seqs = [e.seq for e in store.events(run.run_id)]
        assert seqs and seqs == list(range(len(seqs)))
    assert [r.status for r in store.races()] == ["closed"] and store.weight_sets()[-1].status == "set"
    store.close()


def test_warm_up_finds_a_refusing_worker_before_any_run_and_a_restarted_worker_takes_runs(
    cluster: LocalRayCluster, inputs: Any, tmp_path: Path
) -> None:
    """The node readies the workers' processes when it starts (`RayDispatcher.warm`): a worker holding another
    catalog is found then, so no run is sent to it and none needs a second attempt; worker b, killed and started
    again by the test before this one, re-attached and takes runs beside a."""
    other = tmp_path / "other-catalog"
    build_catalog(4, 300, other, force=True)
    stray = cluster.add_worker("stray", other)
    try:
        cluster.settle()  # the stray node has joined
        stray_id = stray.node_id()
        dispatcher = ray_dispatcher(cluster, inputs)
        problems = dispatcher.warm()
        assert list(problems) == [stray_id] and "refuses runs: its catalog" in problems[stray_id]
        assert dispatcher.capacity(2) == 2  # a and b, one run each
        setup = make_chain(tmp_path, MINERS[:2])
        store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
        agents = {name: write_agent(tmp_path / "agents" / name, name) for name in MINERS[:2]}
        seed(store, setup, tmp_path, tmp_path / "node", agents)
        race(make_arena(store, setup, setup.validators[0], inputs, tmp_path / "node", dispatcher), store)
        runs = store.runs()
        assert len(runs) == 8 and all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
        assert not [r for r in runs if r.sandbox.get("attempts")]  # no run went to the stray worker
        workers = {r.sandbox["worker"] for r in runs}
        assert workers == {cluster.workers[n].node_id()[:12] for n in ("a", "b")}, workers
        store.close()
    finally:
        cluster.kill("stray")


def test_a_race_on_a_ray_worker_runs_in_the_docker_sandbox(
    cluster: LocalRayCluster, inputs: Any, tmp_path: Path
) -> None:
    """`--sandbox.backend docker` with `--dispatch ray`: the worker opens the Docker sandbox (the engine of its host,
    DOCKER_HOST in the environment it started in) and every run of the race finishes in a container there."""
    setup = make_chain(tmp_path, MINERS[:1])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    agents = {name: write_agent(tmp_path / "agents" / name, name) for name in MINERS[:1]}
    seed(store, setup, tmp_path, tmp_path / "node", agents)
    dispatcher = RayDispatcher.connect(
        cluster.address, catalog_digest=Catalog.open(inputs[0]).digest, memory_mb=1024, backend="docker"
    )
    workers = {cluster.workers[n].node_id() for n in ("a", "b")}
    assert not set(dispatcher.warm()) & workers  # both open the Docker sandbox (a node killed just now may linger)
    race(make_arena(store, setup, setup.validators[0], inputs, tmp_path / "node", dispatcher), store)
    runs = store.runs()
    assert len(runs) == 4 and all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
    assert {r.sandbox["backend"] for r in runs} == {"docker"}
    assert {r.sandbox["worker"] for r in runs} <= {w[:12] for w in workers}
    assert all(store.score(r.run_id) is not None for r in runs)
    store.close()


def test_a_miner_pays_with_its_own_key_on_a_ray_worker_and_the_key_is_nowhere_there(
    cluster: LocalRayCluster, inputs: Any, tmp_path: Path
) -> None:
    """`--gateway.payer miner` with `--dispatch ray`: the key goes to the run's runner in memory, in the call itself;
    the worker's gateway adds it to the run's upstream requests. The miner's provider sees its key, the node's
    upstream is never asked; the agent (hunting for it) finds nothing; the key is in none of the workers' files:
    Ray's logs and spilled objects, the runners' work folders, nor the node's store and data folder."""
    from pydantic import SecretStr

    from arena.spend import Provider
    from sandbox.gateway import Gateway, Upstream
    from tests.integration.test_miner_pays_race import HUNTER, MINER_KEY, NODE_KEY, PRICE, serve_key
    from tests.support.llm_agents import MODEL
    from tests.support.openai_server import OpenAIServer
    from validator.races.keys import KeyRing

    setup = make_chain(tmp_path, ["payer"])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    agent = write_template(tmp_path / "agents" / "payer", MINER_TEMPLATE.read_text() + HUNTER)
    seed(store, setup, tmp_path, data_dir, {"payer": agent})
    server = serve_key(setup, "payer", MINER_KEY)
    reply = "look for the cheapest match"
    try:
        with (
            OpenAIServer(lambda body: reply, models=(MODEL,), keys=(NODE_KEY,)) as node,
            OpenAIServer(lambda body: reply, models=(MODEL,), keys=(MINER_KEY,)) as miner,
        ):
            upstream = Upstream(base_url=node.base_url, api_key=SecretStr(NODE_KEY), models=[MODEL])
            dispatcher = RayDispatcher.connect(
                cluster.address, catalog_digest=Catalog.open(inputs[0]).digest, memory_mb=1024, upstream=upstream
            )
            gateway = Gateway(Catalog.open(inputs[0]), upstream=upstream)
            arena = make_arena(store, setup, setup.validators[0], inputs, data_dir, dispatcher, gateway)
            providers = {"local": Provider(base_url=miner.base_url, models={MODEL: PRICE})}
            arena.use_keys(
                KeyRing(store=store, chain=setup.chain, wallet=setup.validators[0], providers=providers, payer="miner")
            )
            race(arena, store)
            works = {s.work for s in dispatcher.pool.slots.values() if s.work}
            pids = {s.pid for s in dispatcher.pool.slots.values() if s.pid}
    finally:
        server.stop()
    runs = store.runs()
    assert len(runs) == 4 and all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
    assert all(r.sandbox["spend"]["payer"] == "miner" and r.sandbox["worker"] != "local" for r in runs)
    assert set(miner.auth_headers) == {f"Bearer {MINER_KEY}"} and node.auth_headers == []
    assert works  # the runners' folders on the workers, grepped below
    haystacks = [tmp_path / "node.sqlite", *data_dir.rglob("*"), *cluster.tmp.rglob("*"), *cluster.logs.rglob("*")]
    for work in works:
        haystacks += Path(work).rglob("*")
    read = []
    for path in haystacks:
        if path.is_file() and not path.is_symlink():
            try:
                data = path.read_bytes()
            except OSError:  # a socket, or a file Ray removed meanwhile
                continue
            read.append(path.name)
            assert MINER_KEY.encode() not in data and b"sk-miner" not in data, f"the miner's key leaked into {path}"
    # the runners' own log files were among those read (Ray names a worker process's logs after its pid)
    assert pids and all(any(name.startswith("worker-") and f"-{pid}." in name for name in read) for pid in pids)
    for run in runs:  # the agent's hunt (its LLM calls carry what it found) came back empty
        for event in store.events(run.run_id):
            assert "sk-miner" not in json.dumps(event.arguments) + json.dumps(event.result)
    store.close()


def test_a_race_s_agents_are_staged_on_every_runner_when_it_opens_and_a_run_stages_one_itself_when_not(
    cluster: LocalRayCluster, inputs: Any, tmp_path: Path
) -> None:
    """Opening a race sends its agents to every runner to stage then (`Arena.prepare`, `RayDispatcher.prepare`), so a
    runner's first run of an agent finds it staged and stages nothing; an agent no runner staged ahead (a runner
    that joined later, a staging that failed there) is sent with its run and staged by it, and the run is the same."""
    from sandbox.gateway import Budgets
    from validator.dispatch import Attempt

    setup = make_chain(tmp_path, MINERS[:2])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    agents = {name: write_agent(tmp_path / "agents" / name, name) for name in MINERS[:2]}
    seed(store, setup, tmp_path, data_dir, agents)
    raced = {pack_dir(folder).sha256 for folder in agents.values()}
    dispatcher = warmed(cluster, inputs)
    arena = make_arena(store, setup, setup.validators[0], inputs, data_dir, dispatcher)
    arena.start()
    try:
        assert arena.open_race() is not None  # no run dispatched: only the opening sent the agents
        slots = list(dispatcher.pool.slots.values())
        assert len(slots) == 2

        def staged_everywhere() -> bool:
            for slot in slots:
                dispatcher.pool.staged_ahead(slot)
            return all(slot.staged == raced for slot in slots)

        wait_until(staged_everywhere, "the runners to stage the race's agents")
        for slot in slots:  # on the workers' disks, each runner's own folder
            assert slot.work and all((Path(slot.work) / "agents" / sha / "agent.py").is_file() for sha in raced)
        problem = arena.problems.problem(store.runs()[0].problem_id)
        outsider = slow_agent(tmp_path / "agents" / "outsider", "outsider", 0.1)  # never raced: no runner staged it
        for folder, staged_by_run in [(agents[MINERS[0]], False), (outsider, True)]:
            sha256 = pack_dir(folder).sha256
            attempt = Attempt(
                f"direct-{sha256[:8]}", folder, sha256, tmp_path / "gw", problem, Limits(wall_seconds=60), Budgets()
            )
            outcome = asyncio.run(dispatcher.run(attempt))
            assert dispatcher.last_facts["staged"] is staged_by_run
            assert outcome.result.error_code is None and outcome.events, outcome.result.error
            assert outcome.worker in {cluster.workers[n].node_id()[:12] for n in ("a", "b")}
    finally:
        arena.stop()
        store.close()


def test_a_runner_holding_another_run_s_reply_is_kept_when_a_run_on_it_is_given_up(
    cluster: LocalRayCluster, inputs: Any, tmp_path: Path, cut_replies: Path
) -> None:
    """A restarted node adopts runners each holding a finished run's reply (`held`, the slot free meanwhile) and
    sends them new runs. One whose reply does not unpack, and one stuck past its bound, are each the worker's fault
    (2008), but their runner is not killed while the reply it holds waits: killed, that finished run would be lost
    (2008, run again, its result and spend thrown away). The stuck one's runner takes no run and is killed once the
    reply it held is collected (docs/cluster.md, "Faults")."""
    from sandbox.gateway import Budgets
    from validator.dispatch import Attempt, DispatchError

    setup = make_chain(tmp_path, MINERS[:1])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    agents = {MINERS[0]: write_agent(tmp_path / "agents" / MINERS[0], MINERS[0])}
    seed(store, setup, tmp_path, tmp_path / "node", agents)
    first = warmed(cluster, inputs)
    arena = make_arena(store, setup, setup.validators[0], inputs, tmp_path / "node", first)
    arena.start()
    try:
        assert arena.open_race() is not None
        problem = arena.problems.problem(store.runs()[0].problem_id)
    finally:
        arena.stop()
        store.close()

    def attempt(run_id: str, folder: Path) -> Attempt:
        sha256 = pack_dir(folder).sha256
        return Attempt(run_id, folder, sha256, tmp_path / "gw", problem, Limits(wall_seconds=60), Budgets())

    async def both() -> list[Any]:  # one on each worker: the earlier node's, finished, their replies kept there
        return await asyncio.gather(*(first.run(attempt(r, agents[MINERS[0]])) for r in ("held-a", "held-b")))

    assert all(o.result.error_code is None for o in asyncio.run(both()))
    node = warmed(cluster, inputs)  # the restarted node: both runners adopted, each holding a reply
    assert set(node.pool.held) == {"held-a", "held-b"} and len(node.pool.free()) == 2
    pids = {s.name: s.pid for s in node.pool.slots.values()}

    (cut_replies / "run.cut").touch()  # this run's reply only: a run of an earlier test may still end meanwhile
    with pytest.raises(DispatchError, match="does not unpack"):
        asyncio.run(node.run(attempt("cut", agents[MINERS[0]])))
    assert {s.name: s.pid for s in node.pool.slots.values()} == pids  # both runners kept, as they were
    assert len(node.pool.free()) == 2

    node.grace = -58.0  # this run's bound: 2 s, its agent takes 30
    with pytest.raises(DispatchError, match="within its wall clock"):
        asyncio.run(node.run(attempt("stuck", slow_agent(tmp_path / "agents" / "slow", "slow", 30.0))))
    node.grace = 60.0
    [doomed] = [s for s in node.pool.slots.values() if s.doomed]
    assert doomed.pid == pids[doomed.name] and node.pool.free() != [] and doomed not in node.pool.free()
    for run_id in ("held-a", "held-b"):  # each finished run's result taken as it was, on its first attempt
        outcome = asyncio.run(node.reattach(run_id, Limits(wall_seconds=60)))
        assert outcome.result.error_code is None and outcome.events, outcome.result.error
    assert doomed.name not in node.pool.slots or node.pool.slots[doomed.name] is not doomed  # killed, made anew
    assert doomed.pid is not None
    wait_until(lambda: not psutil.pid_exists(doomed.pid), "the stuck run's runner to end")
    assert not (cut_replies / "run.cut").exists()
