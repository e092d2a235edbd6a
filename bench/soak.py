"""Soak benchmark: one node left alone for many races (prints figures; asserts nothing).

    python bench/soak.py --races 200 --probe --json var/soak.json   # the goal: 200 races (about 2 h on 2 busy cores)
    python bench/soak.py --races 40 --probe --json var/soak40.json  # before/after a change (about 25 minutes)
    python bench/soak.py --races 20                                 # a quick look (about 12 minutes)

SIGTERM or Ctrl-C ends it after the race it waits for: it still prints (and writes) the figures of the races run.

`arena-validator run` as an operator runs it, a process of its own: the store on PostgreSQL (a fresh database on the
test server, `tests/support/postgres.py`), a LocalChain at fast blocks (`--block-time` seconds a block; a race every
`--cadence` blocks, minutes of chain time at 12 s a block; the node's results bundle committed by `--cutoff-blocks`
after a race's start), bubblewrap sandboxes, pooling on (alone, the node weighs its own results after the cut-off),
an OpenAI-compatible upstream on loopback for the agents that call a model (`tests/support/hostile.obedient_model`).
Eight miners commit bundles on chain, served over HTTP: the offline template and two variants of it, a slow
template, the demo's hostile agent, the test suite's parrot and planted-word agents, and a template that calls the
model; two of them commit a new version every `--resubmit-every` races. One race at a time: a race whose runs
outlast the slot delays the next one's opening (the node's rule), so on a busy machine the runs set the pace.

Sampled every time a race closes (or is voided): the node's RSS, open file descriptors, threads and child processes
(psutil), the store's size (pg_database_size), the work folders' size (--data-dir and the node's private work folder),
the Docker containers and images present, runs lost (a closed race's run not final, or ended by a fault of the
validator's) and doubled (two runs of one unit, or a trajectory not 0..n-1), races closed and voided, races whose
weights are set, races whose results bundle missed the cut-off (`pools_late`: no bundle of its own), the seconds
since the last close. Prints the growth per 100 races; RSS growth is measured from the sample of race
min(20, races/2) (the first races warm caches). `--json FILE` writes the totals and every sample.

`--probe` looks inside the node's memory: the node runs under a wrapper (`PROBE`, the same `arena-validator run`)
whose thread records glibc's malloc statistics (mallinfo2: bytes in malloc's heaps, in use, free inside them, in
mmapped chunks) and, with `--probe-trace`, Python's own allocations (tracemalloc's traced bytes, and a snapshot
before the warm race and at the last, whose largest differences by line are printed; tracemalloc doubles the node's
RSS); each sample also reads the node's /proc/<pid>/smaps: anonymous RSS and the glibc thread arenas' heaps (64 MiB
reservations). Python's allocations flat while malloc's free bytes grow is fragmentation of malloc's heaps, not a
leak of objects.
"""

from __future__ import annotations

import argparse
import http.server
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import psutil  # noqa: E402
from sqlalchemy import create_engine, text  # noqa: E402

from demo.agents import HOSTILE_AGENT, MINER_TEMPLATE, variant, write_template  # noqa: E402
from demo.scripted_llm import OpenAIServer  # noqa: E402
from sandbox.bundle import pack_dir  # noqa: E402
from tests.support.hostile import obedient_model, write_agent  # noqa: E402
from tests.support.llm_agents import CATCH, MODEL, llm_agent  # noqa: E402
from tests.support.postgres import fresh_database  # noqa: E402
from tests.support.race import build_arena_inputs, make_chain, open_store  # noqa: E402
from validator.chain.commitment import encode_commitment  # noqa: E402

EXE = str(Path(sys.executable).parent / "arena-validator")
RESUBMITTERS = ("offline", "lite")
ARCHIVE = "trajectories.jsonl"  # under --retention short: where the janitor archives old trajectories
MINERS = ("offline", "lite", "deep", "slow", "hostile", "parrot", "planted", "asks")

# The node under --probe: a thread writes glibc's mallinfo2 (and tracemalloc's traced bytes) to $SOAK_PROBE every
# second, and dumps a tracemalloc snapshot for each `<name>.req` file the bench drops beside it; then the CLI runs.
PROBE = r"""
import ctypes, json, os, sys, threading, time, tracemalloc
out, trace = os.environ["SOAK_PROBE"], os.environ.get("SOAK_PROBE_TRACE") == "1"
if trace:
    tracemalloc.start(1)
FIELDS = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks", "uordblks", "fordblks", "keepcost")
class Mallinfo2(ctypes.Structure):
    _fields_ = [(f, ctypes.c_size_t) for f in FIELDS]
libc = ctypes.CDLL(None)
libc.mallinfo2.restype = Mallinfo2
folder = os.path.dirname(out)
def probe():
    while True:
        m = libc.mallinfo2()
        row = {f: getattr(m, f) for f in FIELDS}
        if trace:
            row["traced"] = tracemalloc.get_traced_memory()[0]
            for name in os.listdir(folder):
                if name.endswith(".req"):
                    tracemalloc.take_snapshot().dump(os.path.join(folder, name[:-4] + ".snap"))
                    os.remove(os.path.join(folder, name))
        with open(out + ".tmp", "w") as f:
            json.dump(row, f)
        os.replace(out + ".tmp", out)
        time.sleep(1.0)
threading.Thread(target=probe, daemon=True, name="soak-probe").start()
sys.argv[0] = "arena-validator"
from validator.cli import app
app()
"""


def agent_source(name: str, version: int) -> str | None:
    """The agent.py of miner `name`'s `version` (None: a hostile agent of the test suite, written whole)."""
    template = MINER_TEMPLATE.read_text()
    tag = f"\n\nSOAK_MINER = {name!r}\nSOAK_VERSION = {version}\n"
    if name == "offline":
        return template + tag
    if name == "lite":
        return variant(template, MAX_CALLS=4) + tag
    if name == "deep":
        return variant(template, MAX_CALLS=60, VIEW_BATCH=30) + tag
    if name == "slow":
        return (
            template
            + tag
            + "\n_solve_now = agent_main\n\n\ndef agent_main(problem):\n    time.sleep(1.5)\n"
            + ("    return _solve_now(problem)\n")
        )
    return None


def write_miner(folder: Path, name: str, version: int) -> Path:
    if name in {"parrot", "planted"}:
        return write_agent(name, folder)
    if name == "asks":  # one model call per problem through the gateway (errors caught), then the template's answer
        return llm_agent(folder, name, CATCH)
    if name == "hostile":
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "agent.py").write_text(HOSTILE_AGENT)
        return folder
    return write_template(folder, agent_source(name, version))


class Soak:
    def __init__(self, root: Path, args: argparse.Namespace) -> None:
        self.root, self.args = root, args
        self.www = root / "www"
        self.www.mkdir(parents=True)

    def serve(self) -> None:
        """The miners' bundles over HTTP: a thread, started after the catalog's forked build (a fork of a process
        with threads can deadlock its child, as it did here once)."""
        handler = lambda *a, **kw: _Quiet(*a, directory=str(self.www), **kw)  # noqa: E731
        self.http = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=self.http.serve_forever, daemon=True).start()
        self.base = f"http://127.0.0.1:{self.http.server_address[1]}"

    def commit(self, name: str, version: int) -> None:
        """Miner `name` commits its bundle `version` on chain (served from the bench's HTTP server)."""
        bundle = pack_dir(write_miner(self.root / "agents" / f"{name}-{version}", name, version))
        (self.www / f"{name}-{version}.tar.gz").write_bytes(bundle.data)
        url = f"{self.base}/{name}-{version}.tar.gz"
        self.setup.chain.set_commitment(self.setup.miners[name], encode_commitment(bundle.sha256, url))

    def run(self, url: str) -> dict[str, Any]:
        a, root = self.args, self.root
        t0 = time.perf_counter()
        catalog, pack, signer = build_arena_inputs(
            root, size=a.catalog_size, problems=max(40, a.per_race * 8), per_race=a.per_race, cadence=a.cadence
        )
        self.serve()
        self.setup = make_chain(root, list(MINERS), block_time=a.block_time, rate_limit=max(1, a.cadence // 4))
        for name in MINERS:
            self.commit(name, 1)
        store = open_store(url)
        print(
            f"setup {time.perf_counter() - t0:.1f}s: {len(MINERS)} miners, {a.per_race} problems a race, a race "
            f"every {a.cadence} blocks ({a.cadence * a.block_time:.0f}s here, {a.cadence * 12 / 60:.0f} min of "
            f"chain time at 12 s a block)",
            flush=True,
        )
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        (root / "tmp").mkdir()
        with OpenAIServer(obedient_model, models=(MODEL,)) as llm:
            flags = {
                "--chain": "localchain",
                "--localchain.path": str(self.setup.path),
                "--wallet.name": "validator0",
                "--wallet.path": str(self.setup.wallets),
                "--data-dir": str(root / "node"),
                "--database-url": url,
                "--catalog": str(catalog),
                "--pack": str(pack),
                "--pack.signer": signer,
                "--concurrency": str(a.concurrency),
                "--sandbox.wall_seconds": "60",
                "--api.port": str(port),
                "--gateway.upstream": llm.base_url,
                "--gateway.models": MODEL,
                "--stop.drain_seconds": "30",
                "--pool.cutoff_blocks": str(a.cutoff_blocks),
            }
            env = {**os.environ, "ARENA_LOG_LEVEL": "INFO", "TMPDIR": str(root / "tmp")}
            head = [EXE]
            if a.retention == "short":  # a month fast-forwarded: what the janitor keeps is a few races' worth
                days = f"{a.keep_races * a.cadence * a.block_time / 86400:.6f}"
                flags.update(
                    {
                        "--janitor.seconds": "60",
                        "--retention.bundle_days": days,
                        "--retention.results_days": "0",
                        "--retention.trajectory_days": days,
                        "--retention.archive": str(root / "node" / ARCHIVE),
                    }
                )
            if a.probe:
                (root / "probe").mkdir()
                head = [sys.executable, "-c", PROBE]
                env.update(
                    SOAK_PROBE=str(root / "probe" / "malloc.json"), SOAK_PROBE_TRACE="1" if a.probe_trace else "0"
                )
            node = subprocess.Popen(
                [*head, "run", *(x for kv in flags.items() for x in kv)],
                stdout=open(root / "node.log", "ab"),
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env=env,
            )
            try:
                samples = self.watch(node, store, url)
            finally:
                node.send_signal(signal.SIGTERM)
                try:
                    node.wait(timeout=120)
                except subprocess.TimeoutExpired:
                    os.killpg(node.pid, signal.SIGKILL)
                    node.wait()
        store.close()
        result = summary(samples)
        if a.probe_trace and samples:
            result["python_growth_top"] = snapshot_diff(root / "probe", samples)
        return result

    def watch(self, node: subprocess.Popen[bytes], store: Any, url: str) -> list[dict[str, Any]]:
        a = self.args
        proc = psutil.Process(node.pid)
        engine = create_engine(url)
        samples: list[dict[str, Any]] = []
        seen: set[str] = set()
        deadline = time.time() + a.races * a.cadence * a.block_time * 3 + 600
        version, started = 1, time.time()
        try:
            while len(samples) < a.races:
                if STOP.is_set():
                    print(f"stopped at race {len(samples)} of {a.races}: the figures below are of those", flush=True)
                    break
                if node.poll() is not None:
                    print(f"the node exited {node.returncode}; see {self.root / 'node.log'}", flush=True)
                    break
                if time.time() > deadline:
                    print("the soak ran out of time: races did not close", flush=True)
                    break
                ended = [r for r in store.races(kind=None) if r.status in {"closed", "voided"}]
                new = [r for r in ended if r.race_id not in seen]
                if not new:
                    STOP.wait(1.0)
                    continue
                seen.update(r.race_id for r in new)
                row = self.sample(proc, store, engine, ended)
                row["seconds"] = round(row["at"] - (samples[-1]["at"] if samples else started), 1)
                samples.append(row)
                if a.probe:
                    row.update(probe(proc.pid, self.root / "probe", len(samples), warm_race(a.races), a.races))
                print(line(len(samples), a.races, row), flush=True)
                if len(samples) % a.resubmit_every == 0:
                    version += 1
                    for name in RESUBMITTERS:
                        self.commit(name, version)
            self.settle(store)
            if samples:
                samples[-1].update(weights_set=weights_set(store))
        finally:
            engine.dispose()
        return samples

    def settle(self, store: Any, timeout: float = 300.0) -> None:
        """Wait (bounded) for the last closed race's weights, so the count is not one behind."""
        until = time.time() + timeout
        while time.time() < until:
            closed = store.races(status="closed")
            if not closed or closed[-1].race_id in {w.race_id for w in store.weight_sets() if w.status == "set"}:
                return
            time.sleep(1.0)

    def sample(self, proc: psutil.Process, store: Any, engine: Any, ended: list[Any]) -> dict[str, Any]:
        with engine.connect() as conn:
            db = count(conn, "SELECT pg_database_size(current_database())")
            dup_units = count(
                conn,
                "SELECT count(*) FROM (SELECT race_id, hotkey, problem_id, sample FROM runs "
                "GROUP BY race_id, hotkey, problem_id, sample HAVING count(*) > 1) d",
            )
            bad_logs = count(
                conn,
                "SELECT count(*) FROM (SELECT run_id FROM trajectory_events GROUP BY run_id "
                "HAVING min(seq) <> 0 OR max(seq) + 1 <> count(*)) b",
            )
            lost = count(  # a closed race's run not final, or ended by the validator's fault
                conn,
                "SELECT count(*) FROM runs JOIN races USING (race_id) WHERE races.status = 'closed' AND "
                "(runs.status NOT IN ('finished', 'errored') OR runs.blame = 'validator')",
            )
            late = count(conn, "SELECT count(*) FROM race_pools WHERE status = 'late'")
            tables = {  # the store's largest tables (with their TOAST and indexes): what grows, if it does
                str(name): int(size)
                for name, size in conn.execute(
                    text(
                        "SELECT relname, pg_total_relation_size(oid) FROM pg_class WHERE relkind = 'r' AND "
                        "relnamespace = 'public'::regnamespace ORDER BY 2 DESC LIMIT 6"
                    )
                )
            }
        closed = {r.race_id for r in ended if r.status == "closed"}
        try:  # the operator's archive of dropped trajectories: data moved out of the store, not the node's junk
            archive = (self.root / "node" / ARCHIVE).stat().st_size
        except OSError:
            archive = 0
        return {
            "at": round(time.time(), 1),
            "rss_bytes": proc.memory_info().rss,
            "fds": proc.num_fds(),
            "threads": proc.num_threads(),
            "children": len(proc.children(recursive=True)),
            "store_bytes": db,
            "work_bytes": du(self.root / "node") + du(self.root / "tmp") - archive,
            "archive_bytes": archive,
            "store_tables": tables,
            "work_folders": {
                **{p.name: du(p) for p in sorted((self.root / "node").iterdir()) if p.is_dir()},
                "tmp": du(self.root / "tmp"),
            },
            "containers": docker_count("ps", "-aq"),
            "images": docker_count("images", "-q"),
            "runs_lost": lost,
            "runs_doubled": dup_units + bad_logs,
            "races_closed": len(closed),
            "races_voided": sum(1 for r in ended if r.status == "voided"),
            "weights_set": weights_set(store),
            "pools_late": late,
        }


def warm_race(races: int) -> int:
    """The race RSS growth is measured from: the first races warm caches."""
    return max(min(20, races // 2), 1)


def probe(pid: int, folder: Path, race: int, warm: int, last: int) -> dict[str, Any]:
    """The node's memory under --probe: smaps (anonymous RSS; glibc's thread arenas: their heaps are 64 MiB
    reservations, a read-write part followed by a no-access rest) and the probe thread's latest malloc statistics;
    with --probe-trace, a tracemalloc snapshot is asked for the race before the warm one and for the last (a snapshot
    allocates, then frees, a copy of every trace: tens of MiB left free in the probe thread's malloc arena, so one
    taken at every race grows RSS by itself)."""
    row: dict[str, Any] = {}
    try:
        maps = smaps(pid)
    except OSError:
        maps = []
    row["anon_bytes"] = sum(m["Anonymous"] for m in maps)
    heaps = [m for m, nxt in zip(maps, [*maps[1:], {}], strict=True) if is_thread_heap(m, nxt)]
    row["thread_arenas"] = len(heaps)
    row["thread_arenas_rss_bytes"] = sum(m["Rss"] for m in heaps)
    try:
        row["malloc"] = json.loads((folder / "malloc.json").read_text())
    except (OSError, ValueError):
        row["malloc"] = None
    if race in {max(warm - 1, 1), last}:  # after this race's RSS is read: a snapshot's own garbage is not counted
        (folder / f"race-{race}.req").touch()
    return row


def smaps(pid: int) -> list[dict[str, Any]]:
    maps: list[dict[str, Any]] = []
    for raw in Path(f"/proc/{pid}/smaps").read_text().splitlines():
        head = raw.split()
        if "-" in head[0] and not head[0].endswith(":"):
            lo, hi = (int(x, 16) for x in head[0].split("-"))
            maps.append(
                {
                    "lo": lo,
                    "hi": hi,
                    "perms": head[1],
                    "path": head[5] if len(head) > 5 else "",
                    "Rss": 0,
                    "Anonymous": 0,
                }
            )
        elif head[0] in {"Rss:", "Anonymous:"} and maps:
            maps[-1][head[0][:-1]] = int(head[1]) * 1024
    return maps


def is_thread_heap(m: dict[str, Any], nxt: dict[str, Any]) -> bool:
    """A glibc thread arena's heap: 64 MiB aligned (HEAP_MAX_SIZE on 64-bit), anonymous, read-write, the rest of the
    reservation no-access right after it (or the whole 64 MiB read-write)."""
    size = 64 * 2**20
    if m["path"] or not m["perms"].startswith("rw") or m["lo"] % size:
        return False
    whole = m["hi"] - m["lo"]
    if whole == size:
        return True
    return bool(nxt) and nxt["lo"] == m["hi"] and nxt["perms"].startswith("---") and nxt["hi"] - m["lo"] == size


def snapshot_diff(folder: Path, samples: list[dict[str, Any]], top: int = 10) -> list[str]:
    """Python's allocations that grew most from the warm race's snapshot to the last one (tracemalloc, by line)."""
    import tracemalloc

    deadline = time.time() + 30
    snaps = sorted(folder.glob("race-*.snap"), key=lambda p: int(p.stem.split("-")[1]))
    while len(snaps) < 2 and time.time() < deadline:
        time.sleep(1)
        snaps = sorted(folder.glob("race-*.snap"), key=lambda p: int(p.stem.split("-")[1]))
    if len(snaps) < 2:
        return []
    first, last = (tracemalloc.Snapshot.load(str(p)) for p in (snaps[0], snaps[-1]))
    stats = last.compare_to(first, "lineno")
    total = sum(s.size_diff for s in stats)
    return [f"{snaps[0].stem} -> {snaps[-1].stem}: python {total / 2**20:+.2f} MiB in all"] + [
        str(s) for s in stats[:top]
    ]


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: Any) -> None:
        return None


def count(conn: Any, sql: str) -> int:
    return int(conn.execute(text(sql)).scalar() or 0)


def weights_set(store: Any) -> int:
    return len({w.race_id for w in store.weight_sets() if w.status == "set"})


def du(path: Path) -> int:
    total = 0
    for folder, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(folder, name)).st_size
            except OSError:
                pass
    return total


def docker_count(*args: str) -> int | None:
    docker = shutil.which("docker")
    if docker is None:
        return None
    done = subprocess.run([docker, *args], capture_output=True, text=True, timeout=60)
    return len(done.stdout.split()) if done.returncode == 0 else None


def line(i: int, n: int, row: dict[str, Any]) -> str:
    inside = ""
    if "anon_bytes" in row:
        m = row["malloc"] or {}
        inside = (
            f", anon {row['anon_bytes'] / 2**20:.0f} MiB, thread arenas {row['thread_arenas']} "
            f"({row['thread_arenas_rss_bytes'] / 2**20:.0f} MiB), malloc heaps {m.get('arena', 0) / 2**20:.0f} MiB "
            f"(in use {m.get('uordblks', 0) / 2**20:.0f}, free {m.get('fordblks', 0) / 2**20:.0f}), mmapped "
            f"{m.get('hblkhd', 0) / 2**20:.0f} MiB"
            + (f", python {m['traced'] / 2**20:.0f} MiB" if "traced" in m else "")
        )
    return (
        f"race {i:>3}/{n}: rss {row['rss_bytes'] / 2**20:.0f} MiB, fds {row['fds']}, threads {row['threads']}, "
        f"children {row['children']}, store {row['store_bytes'] / 2**20:.1f} MiB, work "
        f"{row['work_bytes'] / 2**20:.1f} MiB, containers {row['containers']}, images {row['images']}, closed "
        f"{row['races_closed']}, voided {row['races_voided']}, weights set {row['weights_set']}, lost "
        f"{row['runs_lost']}, doubled {row['runs_doubled']}, archive {row['archive_bytes'] / 2**20:.1f} MiB, pools "
        f"late {row['pools_late']}, "
        f"{row['seconds']:.0f}s{inside}"
    )


def summary(samples: list[dict[str, Any]]) -> dict[str, Any]:
    if not samples:
        return {"races": 0, "samples": []}
    first, last = samples[0], samples[-1]
    base = samples[warm_race(len(samples)) - 1]

    def per_100(key: str) -> float:  # from the warm sample on (caches of the judge fill over the first races)
        return round(
            (float(last[key] or 0) - float(base[key] or 0)) / max(len(samples) - samples.index(base) - 1, 1) * 100, 1
        )

    disk = ("store_bytes", "work_bytes")
    half = samples[len(samples) // 2]
    return {
        "races": len(samples),
        "races_closed": last["races_closed"],
        "races_voided": last["races_voided"],
        "weights_set": last["weights_set"],
        "runs_lost": last["runs_lost"],
        "runs_doubled": last["runs_doubled"],
        "pools_late": last["pools_late"],
        "seconds_a_race": round((last["at"] - first["at"]) / max(len(samples) - 1, 1), 1),
        "rss_growth_pct": round((last["rss_bytes"] - base["rss_bytes"]) / base["rss_bytes"] * 100, 2),
        "rss_from_race": samples.index(base) + 1,
        "fds_first": first["fds"],
        "fds_last": last["fds"],
        "threads_first": first["threads"],
        "threads_last": last["threads"],
        "children_max": max(s["children"] for s in samples),
        "disk_growth_bytes": sum(last[k] for k in disk) - sum(first[k] for k in disk),
        "disk_growth_second_half_bytes": sum(last[k] for k in disk) - sum(half[k] for k in disk),
        "archive_bytes": last.get("archive_bytes", 0),
        "per_100_races": {
            k: per_100(k)
            for k in ("rss_bytes", "fds", "threads", "children", *disk, "archive_bytes", "containers", "images")
        },
        "samples": samples,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--races", type=int, default=200, help="races to run (each sampled when it closes)")
    parser.add_argument("--per-race", type=int, default=2, help="problems a race (x 8 miners = runs a race)")
    parser.add_argument("--cadence", type=int, default=24, help="blocks between races (the pack's rotation)")
    parser.add_argument("--block-time", type=float, default=1.0, help="the LocalChain's seconds a block")
    parser.add_argument(
        "--cutoff-blocks", type=int, default=40, help="the node's --pool.cutoff_blocks (a race's runs: 20-35 s here)"
    )
    parser.add_argument("--concurrency", type=int, default=3, help="the node's runs at once")
    parser.add_argument("--resubmit-every", type=int, default=5, help="races between two new versions")
    parser.add_argument("--catalog-size", type=int, default=3000)
    parser.add_argument("--json", type=Path, default=None, help="write the totals and every sample to this file")
    parser.add_argument(
        "--retention",
        choices=("short", "node"),
        default="short",
        help="short: the janitor every minute, results bundles at its next pass once nothing needs them, superseded "
        "bundles and trajectories (archived first) after --keep-races races; node: the node's defaults (days)",
    )
    parser.add_argument("--keep-races", type=int, default=5, help="races' worth of time --retention short keeps")
    parser.add_argument("--probe", action="store_true", help="sample the node's malloc heaps and smaps too")
    parser.add_argument(
        "--probe-trace", action="store_true", help="with --probe: trace Python's allocations (tracemalloc; slower)"
    )
    args = parser.parse_args()
    if (
        min(args.races, args.per_race, args.resubmit_every, args.cutoff_blocks, args.keep_races) < 1
        or args.cadence < 4
        or args.block_time <= 0
    ):
        parser.error(
            "--races, --per-race, --resubmit-every, --cutoff-blocks, --keep-races >= 1, --cadence >= 4, "
            "--block-time > 0"
        )
    signal.signal(signal.SIGTERM, _stop)
    signal.signal(signal.SIGINT, _stop)
    with tempfile.TemporaryDirectory(prefix="bench-soak-") as tmp, fresh_database("arena_soak") as url:
        os.chmod(tmp, 0o711)  # the sandbox's user traverses it to the node's work folder (TMPDIR below)
        result = Soak(Path(tmp), args).run(url)
    print_summary(result)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")


#: set by SIGTERM or Ctrl-C: the soak stops after the race it waits for, and still prints (and writes) its figures
STOP = threading.Event()


def _stop(*_: Any) -> None:  # the node is stopped and the database dropped on the way out
    STOP.set()


def print_summary(r: dict[str, Any]) -> None:
    if not r["races"]:
        print("no race closed")
        return
    print(
        f"--- {r['races']} races: {r['races_closed']} closed, {r['races_voided']} voided, weights set for "
        f"{r['weights_set']}; runs lost {r['runs_lost']}, doubled {r['runs_doubled']}; pools late {r['pools_late']}; "
        f"{r['seconds_a_race']:g} s a race"
    )
    print(f"rss       {r['rss_growth_pct']:+.2f}% from race {r['rss_from_race']} to the last")
    print(
        f"fds       {r['fds_first']} -> {r['fds_last']}; threads {r['threads_first']} -> {r['threads_last']}; "
        f"children at most {r['children_max']} at a close"
    )
    print(
        f"disk      {r['disk_growth_bytes'] / 2**20:+.1f} MiB (store and work folders; "
        f"{r['disk_growth_second_half_bytes'] / 2**20:+.1f} MiB over the second half of the races); trajectories "
        f"archived {r['archive_bytes'] / 2**20:.1f} MiB"
    )
    for row in r.get("python_growth_top", []):
        print(f"python    {row}")
    growth = [
        f"{k.removesuffix('_bytes')} {v / 2**20:+.1f} MiB" if k.endswith("_bytes") else f"{k} {v:+g}"
        for k, v in r["per_100_races"].items()
    ]
    print(
        f"per 100   races from race {r['rss_from_race']}: "
        + ", ".join(growth)
        + " (containers and images: the whole engine, shared on this machine)"
    )


if __name__ == "__main__":
    main()
