"""Faults bench: a validator fault held for its full length on a running node never zeroes a miner (prints figures;
asserts nothing).

    python bench/faults.py --json var/faults.json               # the goals: LLM 300 s, engine 120 s, store 120 s
    python bench/faults.py --only store --seconds 30            # one fault, shorter

`arena-validator run` as an operator runs it, a process of its own, on services of the bench's own that it stops
and starts again: a private PostgreSQL cluster (`scripts/postgres` on a free port, its own data folder: the store),
a private Docker engine (`scripts/dockerd`, its own socket and data root: the sandbox backend, with the sandbox image
copied from the engine at DOCKER_HOST or built), and an OpenAI-compatible upstream on loopback (the gateway's LLM;
stopped: connection refused). LocalChain at `--block-time` seconds a block, a race every `--cadence` blocks, the
node's own retry budget and fault wait (`--races.fault_wait`: half the cadence by default). Five well-behaved
miners (nothing of theirs fails on its own): the offline template and a variant, a slow template (1.5 s a problem,
so runs sit in their containers), one that calls the model and carries on without it, and one that needs it (its
run fails when the upstream does: the node's fault, 2005).

Each fault starts mid-race (a run in its sandbox) and lasts its full length: `llm` (the upstream stopped), `engine`
(dockerd stopped: its containers die with it), `store` (PostgreSQL stopped: fast shutdown, every connection cut).
Then the service comes back and the bench waits for a race to close with every miner. Per fault: runs blamed on
miners (errored with a blame other than the validator's, in the races the fault touched: must be 0), runs retried
(attempt > 1), miners dropped (a closed race's results missing a miner that had runs: must be 0), each touched
race's outcome (closed with every miner, or voided with its reason), the node alive throughout, /healthz during
the fault, and the recovery time (service back to the next race closed with every miner; to /healthz ok).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from sqlalchemy import create_engine, text  # noqa: E402

from bench.soak import Soak  # noqa: E402
from demo.scripted_llm import OpenAIServer  # noqa: E402
from tests.support.hostile import obedient_model  # noqa: E402
from tests.support.llm_agents import LET_THROUGH, MODEL, llm_agent  # noqa: E402
from tests.support.race import build_arena_inputs, make_chain, open_store  # noqa: E402

EXE = str(Path(sys.executable).parent / "arena-validator")
SCRIPTS = ROOT / "scripts"
MINERS = ("offline", "lite", "slow", "asks", "thinks")
FAULTS = {"llm": 300.0, "engine": 120.0, "store": 120.0}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Service:
    """One of the bench's private services, started and stopped by its script in `scripts/`."""

    def __init__(self, script: str, env: dict[str, str]) -> None:
        self.script, self.env = script, {**os.environ, **env}

    def start(self) -> str:
        done = subprocess.run(
            ["bash", str(SCRIPTS / self.script), "start"], env=self.env, capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(f"scripts/{self.script} start failed: {done.stderr.strip().splitlines()[-1:]}")
        return done.stdout.strip().split("=", 1)[1]

    def stop(self) -> None:
        subprocess.run(["bash", str(SCRIPTS / self.script), "stop"], env=self.env, capture_output=True)


class Dockerd(Service):
    def __init__(self, folder: Path) -> None:
        self.folder, self.sock = folder, folder / "docker.sock"
        super().__init__("dockerd", {"ARENA_DOCKERD_DIR": str(folder), "ARENA_DOCKERD_SOCK": str(self.sock)})

    def stop(self) -> None:
        """dockerd stopped and gone (its containers with it), not merely signalled."""
        pidfile = self.folder / "dockerd.pid"
        pid = int(pidfile.read_text()) if pidfile.exists() else None
        super().stop()
        until = time.time() + 90
        while pid is not None and Path(f"/proc/{pid}").exists() and time.time() < until:
            time.sleep(0.5)

    def load_image(self, tag: str) -> None:
        """The sandbox image in this engine: copied from the engine at DOCKER_HOST, else built here."""
        mine = {**os.environ, "DOCKER_HOST": f"unix://{self.sock}"}
        save = subprocess.Popen(["docker", "save", tag], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
        loaded = subprocess.run(["docker", "load"], stdin=save.stdout, env=mine, capture_output=True)
        if save.wait() != 0 or loaded.returncode != 0:
            print(f"building {tag} in the bench's engine (not in the engine at DOCKER_HOST)", flush=True)
            subprocess.run([sys.executable, "-m", "sandbox.image.build"], env=mine, check=True, cwd=ROOT)


class Upstream:
    """The gateway's LLM: a scripted OpenAI-compatible server on a fixed port, stopped and started again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.server: OpenAIServer | None = None
        self.base_url = f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> None:
        self.server = OpenAIServer(obedient_model, models=(MODEL,), port=self.port).__enter__()

    def stop(self) -> None:
        if self.server is not None:
            self.server.__exit__(None, None, None)
            self.server = None


class Bench(Soak):
    def __init__(self, root: Path, args: argparse.Namespace) -> None:
        super().__init__(root, args)
        self.pg = Service("postgres", {"ARENA_PG_DIR": str(root / "pg"), "ARENA_PG_PORT": str(free_port())})
        self.dockerd, self.llm = Dockerd(root / "dockerd"), Upstream()

    def services(self) -> str:
        """The private services up; returns the store's URL (a fresh database on the private cluster)."""
        base = self.pg.start()
        engine = create_engine(base, isolation_level="AUTOCOMMIT")
        with engine.connect() as conn:
            conn.execute(text("CREATE DATABASE arena_faults"))
        engine.dispose()
        self.dockerd.start()
        from sandbox.image.build import image_tag

        self.image = image_tag()
        self.dockerd.load_image(self.image)
        self.llm.start()
        return base.rsplit("/", 1)[0] + "/arena_faults"

    def node_flags(self, url: str, catalog: Path, pack: Path, signer: str) -> dict[str, str]:
        self.api = free_port()
        return {
            "--chain": "localchain",
            "--localchain.path": str(self.setup.path),
            "--wallet.name": "validator0",
            "--wallet.path": str(self.setup.wallets),
            "--data-dir": str(self.root / "node"),
            "--database-url": url,
            "--catalog": str(catalog),
            "--pack": str(pack),
            "--pack.signer": signer,
            "--sandbox.backend": "docker",
            "--sandbox.image": self.image,
            "--api.port": str(self.api),
            "--gateway.upstream": self.llm.base_url,
            "--gateway.models": MODEL,
        }

    def run(self, url: str) -> dict[str, Any]:
        a, root = self.args, self.root
        catalog, pack, signer = build_arena_inputs(root, problems=40, per_race=2, cadence=a.cadence)
        self.serve()
        self.setup = make_chain(root, list(MINERS), block_time=a.block_time, rate_limit=max(1, a.cadence // 4))
        for name in MINERS:
            self.commit(name, 1)
        open_store(url).close()
        (root / "tmp").mkdir()
        flags = self.node_flags(url, catalog, pack, signer)
        env = {**os.environ, "DOCKER_HOST": f"unix://{self.dockerd.sock}", "TMPDIR": str(root / "tmp")}
        self.node = subprocess.Popen(
            [EXE, "run", *(x for kv in flags.items() for x in kv)],
            stdout=open(root / "node.log", "ab"),
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**env, "ARENA_LOG_LEVEL": "INFO"},
        )
        self.db = create_engine(url, pool_pre_ping=True)
        rows = []
        try:
            first = self.wait(lambda: self.closed_after(0.0), "the first race to close", a.cadence * a.block_time * 4)
            print(f"node up: race {first} closed with every miner", flush=True)
            for name in a.only or list(FAULTS):
                rows.append(self.fault(name, a.seconds or FAULTS[name]))
                print(row_line(rows[-1]), flush=True)
        finally:
            self.node.send_signal(signal.SIGTERM)
            try:
                self.node.wait(timeout=90)
            except subprocess.TimeoutExpired:
                os.killpg(self.node.pid, signal.SIGKILL)
                self.node.wait()
            self.db.dispose()
        return {"faults": rows, "node_log": str(root / "node.log")}

    def commit(self, name: str, version: int) -> None:
        if name == "thinks":  # needs the model: fails when the upstream does
            from sandbox.bundle import pack_dir
            from validator.chain.commitment import encode_commitment

            bundle = pack_dir(llm_agent(self.root / "agents" / name, name, LET_THROUGH))
            (self.www / f"{name}.tar.gz").write_bytes(bundle.data)
            url = f"{self.base}/{name}.tar.gz"
            self.setup.chain.set_commitment(self.setup.miners[name], encode_commitment(bundle.sha256, url))
            return
        super().commit(name, version)

    # --- one fault ----------------------------------------------------------------------------------------------

    def fault(self, name: str, seconds: float) -> dict[str, Any]:
        stop, start = {
            "llm": (self.llm.stop, self.llm.start),
            "engine": (self.dockerd.stop, self.dockerd.start),
            "store": (self.pg.stop, self.pg.start),
        }[name]
        mid = self.wait(self.mid_race, "a run in its sandbox", self.args.cadence * self.args.block_time * 4)
        t0 = time.time()
        stop()
        print(f"{name} down for {seconds:.0f}s (race {mid} running)", flush=True)
        seen: list[str] = []
        while time.time() < t0 + seconds:
            time.sleep(min(15.0, max(0.0, t0 + seconds - time.time())))
            status, lines = self.health()
            seen += [line for line in lines if line not in seen]
            alive = "alive" if self.node.poll() is None else f"EXITED {self.node.returncode}"
            print(f"  {time.time() - t0:4.0f}s: node {alive}, /healthz {status}", flush=True)
        start()
        t1 = time.time()
        print(f"{name} back after {t1 - t0:.0f}s", flush=True)
        limit = self.args.cadence * self.args.block_time * 6 + 300
        healthy = self.wait(lambda: self.health()[0] == "ok" or None, "/healthz ok", limit, quiet=True)
        recovered = self.wait(lambda: self.closed_after(t1), "a race to close with every miner", limit)
        t2 = time.time()
        return {
            "fault": name,
            "seconds": round(t1 - t0, 1),
            "node_alive": self.node.poll() is None,
            "health_during": seen[:6],
            "healthy_after_s": None if healthy is None else round(healthy - t1, 1),
            "recovered_after_s": None if recovered is None else round(t2 - t1, 1),
            **self.touched(mid, t0, t2),
        }

    def mid_race(self) -> str | None:
        rows = self.query("SELECT race_id FROM runs WHERE status = 'running' LIMIT 1")
        return rows[0][0] if rows else None

    def closed_after(self, since: float) -> str | None:
        """A race closed after `since` (epoch seconds) with a result for every miner that had runs in it."""
        for race_id, closed in self.query(
            "SELECT race_id, extract(epoch from closed_at) FROM races WHERE status = 'closed' ORDER BY closed_at"
        ):
            if closed is not None and float(closed) > since and not self.dropped(race_id):
                return str(race_id)
        return None

    def dropped(self, race_id: str) -> list[str]:
        ran = {h for (h,) in self.query("SELECT DISTINCT hotkey FROM runs WHERE race_id = :r", r=race_id)}
        have = {h for (h,) in self.query("SELECT hotkey FROM race_results WHERE race_id = :r", r=race_id)}
        return sorted(ran - have)

    def touched(self, mid: str, t0: float, t2: float) -> dict[str, Any]:
        """The races the fault touched: the one running when it began, and every one opened before the recovery."""
        races = self.query(
            "SELECT race_id, status, coalesce(reason, '') FROM races WHERE race_id = :m OR "
            "(extract(epoch from opened_at) >= :t0 AND extract(epoch from opened_at) <= :t2) ORDER BY opened_at",
            m=mid,
            t0=t0,
            t2=t2,
        )
        ids = [r[0] for r in races]
        runs = self.query(
            "SELECT hotkey, status, coalesce(blame, ''), coalesce(error_code, 0), attempt FROM runs "
            "WHERE race_id = ANY(:ids)",
            ids=ids,
        )
        blamed = [r for r in runs if r[1] == "errored" and r[2] != "validator"]
        outcome = []
        for race_id, status, reason in races:
            missing = self.dropped(race_id) if status == "closed" else []
            outcome.append({"race_id": race_id, "status": status, "dropped": missing, "reason": reason[:160]})
        return {
            "runs_blamed_on_miners": len(blamed),
            "blamed_codes": sorted({int(r[3]) for r in blamed}),
            "runs_retried": sum(1 for r in runs if int(r[4]) > 1),
            "miners_dropped": sum(len(o["dropped"]) for o in outcome),
            "races": outcome,
        }

    # --- probes -------------------------------------------------------------------------------------------------

    def query(self, sql: str, **params: Any) -> list[Any]:
        try:
            with self.db.connect() as conn:
                return list(conn.execute(text(sql), params))
        except Exception:  # noqa: BLE001 - the store is down: nothing seen this time
            return []

    def health(self) -> tuple[str, list[str]]:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.api}/healthz", timeout=10) as resp:
                body = json.loads(resp.read())
        except urllib.error.HTTPError as exc:
            body = json.loads(exc.read() or b"{}")
        except OSError as exc:
            return "unreachable", [f"{type(exc).__name__}: {exc}"]
        return str(body.get("status")), [str(line)[:200] for line in body.get("degraded", [])]

    def wait(self, found: Any, what: str, timeout: float, quiet: bool = False) -> Any:
        until = time.time() + timeout
        while time.time() < until:
            value = found()
            if value is not None:
                return time.time() if value is True or quiet else value
            time.sleep(2.0)
        print(f"  gave up after {timeout:.0f}s waiting for {what}", flush=True)
        return None


def row_line(r: dict[str, Any]) -> str:
    voided = sum(1 for o in r["races"] if o["status"] == "voided")
    closed = sum(1 for o in r["races"] if o["status"] == "closed")
    return (
        f"{r['fault']:<7} {r['seconds']:>5.0f}s down: blamed on miners {r['runs_blamed_on_miners']}, retried "
        f"{r['runs_retried']}, miners dropped {r['miners_dropped']}; races touched {len(r['races'])} ({closed} closed "
        f"with every miner, {voided} voided); node alive {r['node_alive']}; recovered {r['recovered_after_s']}s "
        f"after (healthz ok {r['healthy_after_s']}s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--only", nargs="+", choices=list(FAULTS), help="the faults to inject (default: all three)")
    parser.add_argument("--seconds", type=float, help="every fault's length (default: llm 300, engine 120, store 120)")
    parser.add_argument("--cadence", type=int, default=30, help="blocks between races")
    parser.add_argument("--block-time", type=float, default=2.0, help="the LocalChain's seconds a block")
    parser.add_argument("--json", type=Path, default=None, help="write every fault's row to this file")
    args = parser.parse_args()
    if (args.seconds is not None and args.seconds <= 0) or args.cadence < 4 or args.block_time <= 0:
        parser.error("--seconds and --block-time must be > 0, --cadence >= 4")
    for tool in ("docker", "dockerd", "bwrap"):
        if shutil.which(tool) is None:
            parser.error(f"{tool} is not installed")
    signal.signal(signal.SIGTERM, _stop)
    with tempfile.TemporaryDirectory(prefix="bench-faults-") as tmp:
        os.chmod(tmp, 0o711)  # the postgres user and the sandbox's user traverse it
        bench = Bench(Path(tmp), args)
        try:
            result = bench.run(bench.services())
        finally:
            bench.llm.stop()
            bench.dockerd.stop()
            bench.pg.stop()
    print("--- faults")
    for row in result["faults"]:
        print(row_line(row))
        for race in row["races"]:
            print(f"    {race['race_id']}: {race['status']}{' ' + race['reason'] if race['reason'] else ''}")
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(json.dumps(result, indent=2) + "\n")


def _stop(*_: Any) -> None:  # the node and the private services are stopped on the way out
    raise SystemExit(143)


if __name__ == "__main__":
    main()
