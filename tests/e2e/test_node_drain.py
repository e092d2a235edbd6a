"""A graceful stop: `arena-validator run` on PostgreSQL and a LocalChain, sent SIGTERM mid-race. The runs in flight
finish within --stop.drain_seconds and no new run starts; past the deadline the runs still running are put back
(pending, no error, never blamed on the miner) and the next start runs them; the race closes with every run once."""

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
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, open_store
from validator.chain.commitment import encode_commitment

pytestmark = pytest.mark.slow  # the node as a process, agents that sleep

EXE = str(Path(sys.executable).parent / "arena-validator")
MINERS = ["drain-a", "drain-b", "drain-c"]
PER_RACE = 2
SLEEP = 8.0  # seconds each run's agent sleeps: longer than the short deadline below, far shorter than the long one


def sleepy_agent(folder: Path, name: str) -> Path:
    return write_template(
        folder,
        MINER_TEMPLATE.read_text() + f"\n\nMINER = {name!r}\n\n_solve_now = agent_main\n\n\ndef agent_main(problem):\n"
        f"    time.sleep({SLEEP})\n    return _solve_now(problem)\n",
    )


@pytest.fixture
def bundle_server(tmp_path: Path) -> Iterator[tuple[str, Path]]:
    folder = tmp_path / "www"
    folder.mkdir()
    handler = lambda *a, **kw: http.server.SimpleHTTPRequestHandler(*a, directory=str(folder), **kw)  # noqa: E731
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}", folder
    server.shutdown()


def wait_until(predicate, timeout: float, what: str) -> None:  # type: ignore[no-untyped-def]
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def world(tmp_path: Path, bundle_server: tuple[str, Path], url: str) -> list[str]:
    """A LocalChain whose miners committed sleepy agents, a catalog and pack: the node's `run` flags."""
    base_url, www = bundle_server
    inputs = build_arena_inputs(tmp_path, size=3000, problems=12, per_race=PER_RACE, cadence=100_000)
    setup = make_chain(tmp_path, MINERS, block_time=0.5)
    for name in MINERS:
        bundle = pack_dir(sleepy_agent(tmp_path / "agents" / name, name))
        (www / f"{name}.tar.gz").write_bytes(bundle.data)
        setup.chain.set_commitment(setup.miners[name], encode_commitment(bundle.sha256, f"{base_url}/{name}.tar.gz"))
    return [
        *run_flags(setup, tmp_path / "node", url, inputs),
        *("--concurrency", "2", "--sandbox.wall_seconds", "120", "--api.port", "0", "--no-pool"),
    ]


def test_sigterm_drains_then_puts_back_and_the_next_start_finishes_the_race(
    tmp_path: Path, bundle_server: tuple[str, Path]
) -> None:
    with fresh_database("arena_drain") as url:
        store = open_store(url)
        args = world(tmp_path, bundle_server, url)
        log = tmp_path / "node.log"

        def start(drain: float) -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                [EXE, "run", *args, "--stop.drain_seconds", str(drain)],
                stdout=open(log, "ab"),
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={**os.environ, "ARENA_LOG_LEVEL": "INFO"},
            )

        def running() -> set[str]:
            return {r.run_id for r in store.runs() if r.status in {"starting", "running"}}

        # 1. a long deadline: the runs in flight finish and are recorded; no other run starts
        node = start(drain=600)
        wait_until(lambda: len(running()) == 2, 240, "two runs in flight")
        in_flight = running()
        node.send_signal(signal.SIGTERM)
        assert node.wait(timeout=300) == 0, log.read_text()[-3000:]
        runs = store.runs()
        assert len(runs) == len(MINERS) * PER_RACE
        started = {r.run_id for r in runs if r.attempt > 0}
        assert started == in_flight, "a run started after SIGTERM"
        assert all(r.status == "finished" for r in runs if r.run_id in in_flight), [(r.status, r.error) for r in runs]
        assert all(r.status == "pending" and r.error_code is None for r in runs if r.run_id not in in_flight)
        assert "node.drained" in log.read_text()

        # 2. a deadline shorter than the agents: the runs still running are put back, never blamed on the miner
        node = start(drain=1)
        wait_until(lambda: len(running()) == 2, 240, "two more runs in flight")
        cut = running()
        node.send_signal(signal.SIGTERM)
        assert node.wait(timeout=120) == 0, log.read_text()[-3000:]
        for run in store.runs():
            if run.run_id in cut:
                assert (run.status, run.error_code, run.blame) == ("pending", None, None), (run.status, run.error)
                assert not store.events(run.run_id)  # nothing of the cut attempt is kept
        assert ProcessSandbox("bwrap").reap(cut) == 0  # their sandboxes went with the deadline

        # 3. the next start runs them; the race closes with every run finished once
        node = start(drain=600)
        try:
            wait_until(lambda: [r.status for r in store.races()] == ["closed"], 600, "the race to close")
        finally:
            node.send_signal(signal.SIGTERM)
            node.wait(timeout=300)
        runs = store.runs()
        assert all(r.status == "finished" for r in runs), [(r.status, r.error) for r in runs]
        for run in runs:
            seqs = [e.seq for e in store.events(run.run_id)]
            assert seqs and seqs == list(range(len(seqs)))  # one whole trajectory per run
        assert len(store.race_results(store.races()[0].race_id)) == len(MINERS)
        store.close()


def alive(pid: int) -> bool:
    """The process runs (a zombie no longer does)."""
    try:
        return Path(f"/proc/{pid}/stat").read_text().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


STOP = """import os, signal, sys, time
pid = int(open(sys.argv[1]).read())
os.kill(pid, signal.SIGTERM)
def alive():
    try:
        return open(f"/proc/{pid}/stat").read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False
while alive():
    time.sleep(0.2)
"""
START = """import os, subprocess, sys
log, pid_file, *command = sys.argv[1:]
node = subprocess.Popen(command, stdout=open(log, "ab"), stderr=subprocess.STDOUT, start_new_session=True)
open(pid_file, "w").write(str(node.pid))
"""


def test_upgrade_check_restarts_a_running_node_between_races_only(
    tmp_path: Path, bundle_server: tuple[str, Path]
) -> None:
    """`upgrade-check --apply` beside a running node: while its race runs nothing is done (exit 3, the node keeps
    racing); once the race closed, the node is stopped (it drains and exits 0) and started again."""
    import shlex

    with fresh_database("arena_upgrade_node") as url:
        store = open_store(url)
        command = [EXE, "run", *world(tmp_path, bundle_server, url), "--stop.drain_seconds", "600"]
        log, pid_file, channel = tmp_path / "node.log", tmp_path / "node.pid", tmp_path / "channel"
        (tmp_path / "stop.py").write_text(STOP)
        (tmp_path / "start.py").write_text(START)
        channel.write_text("99.0.0\n")
        node = subprocess.Popen(command, stdout=open(log, "ab"), stderr=subprocess.STDOUT, start_new_session=True)
        pid_file.write_text(str(node.pid))
        steps = [
            *("--install", f"{sys.executable} -c pass"),
            *("--stop", shlex.join([sys.executable, str(tmp_path / "stop.py"), str(pid_file)])),
            *("--start", shlex.join([sys.executable, str(tmp_path / "start.py"), str(log), str(pid_file), *command])),
        ]

        def check() -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [EXE, "upgrade-check", "--database-url", url, "--upgrade.channel", str(channel), "--apply", *steps],
                capture_output=True,
                text=True,
                timeout=600,
            )

        try:
            wait_until(lambda: any(r.status == "running" for r in store.runs()), 240, "a run in flight")
            during = check()
            assert during.returncode == 3 and "is running (restarts happen between races only)" in during.stdout
            assert node.poll() is None  # left alone mid-race
            wait_until(lambda: [r.status for r in store.races()] == ["closed"], 600, "the race to close")
            done = check()
            assert done.returncode == 0, done.stdout + done.stderr
            assert node.wait(timeout=60) == 0  # stopped by the upgrade, drained
            restarted = int(pid_file.read_text())
            assert restarted != node.pid and alive(restarted)
            wait_until(lambda: log.read_text().count("node.started") == 2, 240, "the node to start again")
        finally:
            for pid in {node.pid, int(pid_file.read_text())}:
                try:
                    os.kill(pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
            node.wait(timeout=120)
            wait_until(lambda: not alive(int(pid_file.read_text())), 120, "the restarted node to stop")
        store.close()
