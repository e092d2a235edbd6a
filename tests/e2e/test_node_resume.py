"""The node as a process: `arena-validator run` on a LocalChain, miners committing bundles on chain, stopped with
SIGTERM and killed with SIGKILL mid-race, restarted each time; every run must finish exactly once."""

from __future__ import annotations

import http.server
import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from demo.agents import MINER_TEMPLATE, write_template
from sandbox.backends.process import ProcessSandbox
from sandbox.bundle import pack_dir
from tests.support.node import run_flags
from tests.support.race import build_arena_inputs, make_chain
from validator.chain.commitment import encode_commitment
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

pytestmark = pytest.mark.slow  # the node as a process, its miners' bundle servers

EXE = str(Path(sys.executable).parent / "arena-validator")
MINERS = ["slow-a", "slow-b", "slow-c"]
PER_RACE = 6


def slow_agent(folder: Path, name: str) -> Path:
    """The offline template, made to take about a second per problem so a race lasts long enough to be killed."""
    return write_template(
        folder,
        MINER_TEMPLATE.read_text()
        + f"\n\nMINER = {name!r}  # distinct miners, not copies of one another\n"
        + "\n\n_solve_now = agent_main\n\n\ndef agent_main(problem):\n    time.sleep(1.0)\n"
        "    return _solve_now(problem)\n",
    )


@pytest.fixture
def bundle_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    """A plain HTTP server for the miners' packed bundles (their commitments carry its URL)."""
    folder = tmp_path / "www"
    folder.mkdir()
    handler = lambda *a, **kw: http.server.SimpleHTTPRequestHandler(*a, directory=str(folder), **kw)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", folder
    server.shutdown()


def start_node(args: list[str], log: Path) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [EXE, "run", *args],
        stdout=open(log, "ab"),
        stderr=subprocess.STDOUT,
        start_new_session=True,
        env={**os.environ, "ARENA_LOG_LEVEL": "INFO"},
    )


def wait_until(predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def test_node_survives_sigterm_and_sigkill_mid_race(tmp_path: Path, bundle_server: tuple[str, Path]) -> None:
    base_url, www = bundle_server
    inputs = build_arena_inputs(tmp_path, size=3000, problems=16, per_race=PER_RACE, cadence=100_000)
    setup = make_chain(tmp_path, MINERS, block_time=0.5)
    for name in MINERS:
        bundle = pack_dir(slow_agent(tmp_path / "agents" / name, name))
        (www / f"{name}.tar.gz").write_bytes(bundle.data)
        setup.chain.set_commitment(setup.miners[name], encode_commitment(bundle.sha256, f"{base_url}/{name}.tar.gz"))
    url = f"sqlite:///{tmp_path / 'node.sqlite'}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    args = [*run_flags(setup, tmp_path / "node", url, inputs), "--concurrency", "2", "--sandbox.wall_seconds", "60"]
    store = Store.open(url)
    log = tmp_path / "node.log"
    total = len(MINERS) * PER_RACE

    def count(status: str) -> int:
        return sum(1 for r in store.runs() if r.status == status)

    # 1. SIGTERM mid-race: the node stops within seconds and leaves no run starting or running
    node = start_node(args, log)
    wait_until(lambda: count("finished") >= 2 and count("running") >= 1, 180, "the race to be under way")
    node.send_signal(signal.SIGTERM)
    assert node.wait(timeout=30) == 0, log.read_text()[-3000:]
    assert count("starting") == 0 and count("running") == 0
    finished_before = {r.run_id: (r.finished_at, r.attempt) for r in store.runs() if r.status == "finished"}

    # 2. SIGKILL mid-race: runs in flight are left behind, as after a power cut
    node = start_node(args, log)
    wait_until(
        lambda: count("finished") >= len(finished_before) + 2 and count("running") >= 1, 180, "more runs to finish"
    )
    os.killpg(node.pid, signal.SIGKILL)
    node.wait(timeout=30)
    interrupted = {r.run_id for r in store.runs() if r.status in {"starting", "running"}}
    assert interrupted  # killed mid-run
    finished_mid = {r.run_id: (r.finished_at, r.attempt) for r in store.runs() if r.status == "finished"}

    # 3. restart: the race completes, weights are set, no run is lost or run twice
    node = start_node(args, log)
    try:
        wait_until(lambda: any(ws.status == "set" for ws in store.weight_sets()), 300, "weights to be set")
    finally:
        node.send_signal(signal.SIGTERM)
        node.wait(timeout=30)
    runs = store.runs()
    assert len(runs) == total and len({(r.hotkey, r.problem_id) for r in runs}) == total
    assert all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
    for run_id, (at, attempt) in {**finished_before, **finished_mid}.items():
        run = store.run(run_id)
        assert run is not None and (run.finished_at, run.attempt) == (at, attempt)  # never run again
    for run in runs:
        seqs = [e.seq for e in store.events(run.run_id)]
        assert seqs == list(range(len(seqs))) and seqs  # one trajectory per run, whole
        if run.run_id in interrupted:
            assert run.attempt >= 2
    assert [r.status for r in store.races()] == ["closed"]
    assert len(store.race_results(store.races()[0].race_id)) == len(MINERS)
    assert ProcessSandbox("bwrap").reap({r.run_id for r in runs}) == 0  # no sandbox of ours left behind
    store.close()
