"""The janitor on a running node frees what nothing needs and spares what something does: a miner's superseded bundle
goes, the bundle of a running race's submission stays even once superseded; a staged agent nobody needs goes; the
bubblewrap cgroup of a finished run and the process left in it are reaped, the cgroup of the run in flight and one
of a run this store does not hold are not; a dead node's work folder goes, a live one stays; an abandoned corpus
workspace goes, one an export holds stays; the node's log is rotated; old trajectories are archived before they are
dropped; a pass cut short between rename and delete is finished by the next. Real pieces: PostgreSQL, bubblewrap,
cgroups, LocalChain, the scheduler's jobs."""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import tempfile
import uuid
from pathlib import Path
from typing import Any

import pytest

from tests.support.node import RunningNode, make_arena, open_store, slow_agent, wait_until
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.node import upkeep_for
from validator.scheduler import Node
from validator.settings import Settings

pytestmark = pytest.mark.slow  # a node on PostgreSQL, bubblewrap and cgroups

OLD = 40 * 86400  # seconds: older than every retention the test sets


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"), problems=16, per_race=2, cadence=100_000)


def settings_for(data_dir: Path, **more: Any) -> Settings:
    return Settings(_env_file=None, data_dir=data_dir, floor_disk_mb=0, floor_memory_mb=0, **more)


def backdate(*paths: Path) -> None:
    for path in paths:
        for p in [path, *path.rglob("*")] if path.is_dir() else [path]:
            os.utime(p, (p.stat().st_atime - OLD, p.stat().st_mtime - OLD))


def work_folder(pid: int) -> Path:
    folder = Path(tempfile.gettempdir()) / f"shoparena-node-jt{uuid.uuid4().hex[:8]}"
    folder.mkdir()
    (folder / "node.pid").write_text(str(pid))
    return folder


def leftover_process(run_id: str) -> subprocess.Popen[bytes]:
    """A process left in the pids cgroup of `run_id`, as a node killed mid-cleanup leaves one."""
    cgroup = Path("/sys/fs/cgroup/pids/shoparena") / run_id
    cgroup.mkdir(parents=True, exist_ok=True)
    proc = subprocess.Popen(["sleep", "600"])
    (cgroup / "cgroup.procs").write_text(str(proc.pid))
    return proc


def test_a_pass_frees_what_nothing_needs_and_spares_a_running_race(inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["upgrader", "racer"])
    data_dir = tmp_path / "node"
    log_file = data_dir / "logs" / "node.log"
    with fresh_database("janitor") as url:
        store = open_store(url)
        store.upsert_miners(setup.chain.metagraph().neurons)
        hk = {name: w.hotkey.ss58_address for name, w in setup.miners.items()}
        old = place_submission(store, data_dir, hk["upgrader"], slow_agent(tmp_path / "a1", "v1", 0.0), block=10)
        # a run of either stays in its sandbox 30 s: the janitor's pass below must fall within one (12 s was short
        # of a pass under CI's load: the run ended during it)
        new = place_submission(store, data_dir, hk["upgrader"], slow_agent(tmp_path / "a2", "v2", 30.0), block=20)
        raced = place_submission(store, data_dir, hk["racer"], slow_agent(tmp_path / "r1", "r1", 30.0), block=10)
        backdate(data_dir / "bundles")
        settings = settings_for(data_dir, log_file=log_file, retention_log_mb=0.001, retention_log_keep=2)
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir, concurrency=1)
        host, janitor = upkeep_for(settings, arena, log=arena.log, block_time=0.5)
        node = Node(arena, block_time=0.5, dispatch_seconds=0.2, log=arena.log, host=host, janitor=janitor)
        gone_pid = subprocess.Popen(["true"])
        gone_pid.wait()  # its pid no longer runs
        dead_work, live_work = work_folder(gone_pid.pid), work_folder(os.getpid())
        corpus = data_dir / "corpus"
        abandoned, held = corpus / ".train.partial", corpus / ".eval.partial"
        for ws in (abandoned, held):
            ws.mkdir(parents=True)
            (ws / "work.sqlite").write_bytes(b"x" * 4096)
            (ws / "lock").touch()
            backdate(ws)
        log_file.parent.mkdir(parents=True)
        log_file.write_text("line\n" * 1000)
        (log_file.parent / "node.log.1").write_text("one\n")
        (log_file.parent / "node.log.2").write_text("two\n")
        (log_file.parent / "node.log.7").write_text("seven\n")
        leftover: subprocess.Popen[bytes] | None = None
        export_lock = open(held / "lock", "a")  # noqa: SIM115 - an export holds this workspace until the end
        fcntl.flock(export_lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        try:
            with RunningNode(node):
                wait_until(lambda: "janitor" in node.last_ok, "the node's first janitor pass")
                assert not (data_dir / "bundles" / old.sha256).exists()  # superseded, in no race
                assert (data_dir / "bundles" / new.sha256).is_dir() and (data_dir / "bundles" / raced.sha256).is_dir()
                wait_until(  # the node opens the race of slot 0 itself
                    lambda: arena.in_flight and any(r.status == "finished" for r in store.runs()),
                    "one run of the race finished and the other in its sandbox",
                )
                finished = next(r for r in store.runs() if r.status == "finished")
                flying = next(iter(arena.in_flight))
                work = arena.dispatching.work
                assert work is not None
                # the racer commits a new version mid-race: its raced bundle is superseded, but the race needs it
                place_submission(store, data_dir, hk["racer"], slow_agent(tmp_path / "r2", "r2", 0.0), block=30)
                stale_stage = work / "agents" / old.sha256
                stale_stage.mkdir(parents=True)
                leftover = leftover_process(finished.run_id)
                foreign_id = f"other-node-{uuid.uuid4().hex[:8]}"
                foreign = leftover_process(foreign_id)
                try:
                    done = janitor.run()
                    assert done.errors == [], done.errors
                    assert flying in arena.in_flight  # the pass ran while the run was in its sandbox
                    assert leftover.wait(timeout=30) is not None  # the finished run's process was killed
                    assert not (Path("/sys/fs/cgroup/pids/shoparena") / finished.run_id).exists()
                    assert (Path("/sys/fs/cgroup/pids/shoparena") / flying).is_dir()  # the live run's
                    assert foreign.poll() is None  # a run this store does not hold: not ours to reap
                finally:
                    foreign.kill()
                    foreign.wait()
                    (Path("/sys/fs/cgroup/pids/shoparena") / foreign_id).rmdir()
                freed = {f.what: f for f in done.freed}
                assert freed["sandbox leftovers"].items == [finished.run_id]
                assert (data_dir / "bundles" / raced.sha256).is_dir()  # superseded, still raced
                flying_run = store.run(flying)
                assert flying_run is not None
                flying_sub = store.submission(flying_run.submission_id)
                assert flying_sub is not None
                assert not stale_stage.exists() and (work / "agents" / flying_sub.sha256).is_dir()  # in flight
                assert not dead_work.exists() and live_work.is_dir()
                assert not abandoned.exists() and held.is_dir()
                assert (log_file.parent / "node.log.1").read_text().startswith("line\n")
                assert (log_file.parent / "node.log.2").read_text() == "one\n"
                assert not (log_file.parent / "node.log.7").exists()
                # what the pass freed is in the node's log, sweep by sweep
                lines = [kw for _lvl, event, kw in arena.log.records if event == "janitor.freed"]
                assert {"bundles", "staged agents", "dead nodes' work folders", "corpus workspaces", "logs"} <= {
                    kw["what"] for kw in lines
                }
                assert node.health()["janitor"][0] is True and "last pass" in node.health()["janitor"][1]
        finally:
            export_lock.close()
            if leftover is not None and leftover.poll() is None:
                leftover.kill()
            for folder in (dead_work, live_work):
                subprocess.run(["rm", "-rf", str(folder)], check=False)
            store.close()


def test_old_trajectories_are_archived_before_they_are_dropped(inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["quick"])
    data_dir = tmp_path / "node"
    archive = data_dir / "archive" / "trajectories.jsonl"
    with fresh_database("janitor") as url:
        store = open_store(url)
        store.upsert_miners(setup.chain.metagraph().neurons)
        hotkey = setup.miners["quick"].hotkey.ss58_address
        place_submission(store, data_dir, hotkey, slow_agent(tmp_path / "q", "quick", 0.0), block=10)
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir)
        node = Node(arena, block_time=0.5, dispatch_seconds=0.2, close_seconds=0.5, log=arena.log)
        try:
            with RunningNode(node):  # the node opens the race of slot 0, races it, closes it, sets its weights
                wait_until(lambda: store.weight_sets(status="set"), "the race closed and its weights set")
            (race,) = store.races(status="closed")
            race_id = race.race_id
            trimmed = [kw for _l, event, kw in arena.log.records if event == "memory.trimmed"]
            assert race_id in [r for kw in trimmed for r in kw["races"]]  # malloc's free pages handed back after it
            runs = store.runs(race_id=race_id)
            events = {r.run_id: len(store.events(r.run_id)) for r in runs}
            assert all(events.values())
            # the trash a pass cut short left (renamed, not yet deleted) is finished by the next pass
            trash = data_dir / "bundles" / ".janitor-trash-0123456789ab-deadbeef"
            (trash / "sub").mkdir(parents=True)
            (trash / "sub" / "agent.py").write_text("x = 1\n")
            settings = settings_for(data_dir, retention_trajectory_days=1e-9, retention_archive=archive)
            _host, janitor = upkeep_for(settings, arena, log=arena.log)
            looked = janitor.run(dry_run=True)
            assert race_id in {f.what: f for f in looked.freed}["trajectories"].items and not archive.exists()
            done = janitor.run()
            assert race_id in {f.what: f for f in done.freed}["trajectories"].items
            kept = [json.loads(line) for line in archive.read_text().splitlines()]
            assert {k["run_id"]: len(k["events"]) for k in kept if k["race_id"] == race_id} == events
            assert all(store.events(r.run_id) == [] for r in runs)
            assert store.race_results(race_id)  # the race's results stay
            assert not trash.exists()
            assert janitor.run().items == 0  # nothing left to do: a second pass is a no-op
        finally:
            store.close()


def test_old_results_bundles_go_and_those_still_needed_stay(tmp_path: Path) -> None:
    """Races at blocks 100..500 of a rotation whose window is 2 (the race at 500 raced with 1); the weights of the
    race at 400 set at block 480 (the store's latest block: 500), those of the race at 500 not yet; the race at 150
    still pooling. Old and public: gone; still pooling, not yet public, in the window, or weights not set: kept; an
    envelope with no release (a put cut short): left alone."""
    import hashlib

    from validator.node import janitor_for
    from validator.pool.shelf import Release, ResultsShelf

    data_dir = tmp_path / "node"
    shelf = ResultsShelf(data_dir / "results")

    def bundle(race_id: str, start: int, public: int, who: str = "own") -> str:
        data = json.dumps({"body": {"race_id": race_id, "validator": who}, "signature": "0x00"}).encode()
        sha = hashlib.sha256(data).hexdigest()
        shelf.put(sha, data, Release(race_id=race_id, race_start=start, public_block=public))
        return sha

    with fresh_database("janitor") as url:
        store = open_store(url)
        try:
            store.add_pack(pack_id="pk", name="t", digest="d" * 64, problems=[])
            for start in (100, 150, 200, 300, 400, 500):
                store.create_race(race_id=f"pk-{start}", pack_id="pk", seed_block=start, seed_hash="0x", problem_ids=[])
                store.set_race_plan(f"pk-{start}", {"window": 2 if start == 300 else 1})
                store.set_race_status(f"pk-{start}", "closed")
            ws = store.add_weight_set(policy="wta", vector={0: 1.0}, race_id="pk-400")
            store.update_weight_set(ws.id, status="set", outcome={}, block=480)
            old = [bundle("pk-100", 100, 250), bundle("pk-100", 100, 250, "other"), bundle("pk-200", 200, 350)]
            store.save_race_pool("pk-150", status="committed", cutoff_block=175, due_block=190, state={})
            pooling = bundle("pk-150", 150, 260)  # still pooling: its weights wait for it
            unpublic = bundle("pk-300", 300, 900)  # public from block 900: still served to racing validators only
            windowed = bundle("pk-400", 400, 450)  # weights set, public, but the next pools read it back
            pending = bundle("pk-500", 500, 450)  # its weights not set yet
            cut_short = data_dir / "results" / ("c" * 64)  # an envelope whose release was never written
            cut_short.write_bytes(b"{}")
            settings = settings_for(data_dir)
            assert settings.retention_results_days == 30
            kept = janitor_for(settings, store, None).run()  # every race ended just now: within 30 days
            assert {f.what: f for f in kept.freed}["results bundles"].items == []
            janitor = janitor_for(settings_for(data_dir, retention_results_days=0), store, None)
            looked = {f.what: f for f in janitor.run(dry_run=True).freed}["results bundles"]
            assert sorted(looked.items) == sorted(old) and all(shelf.has(sha) for sha in old)
            done = {f.what: f for f in janitor.run().freed}["results bundles"]
            assert sorted(done.items) == sorted(old) and done.bytes == looked.bytes > 0
            for sha in old:
                assert shelf.get(sha) is None and shelf.release(sha) is None  # GET /results/<sha256>: 404
            assert all(shelf.has(sha) for sha in (pooling, unpublic, windowed, pending)) and cut_short.exists()
            assert sorted(p.name for p in (data_dir / "results").iterdir() if p.name.startswith(".")) == []
        finally:
            store.close()
