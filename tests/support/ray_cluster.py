"""A real Ray cluster on this machine: a head and worker nodes, each its own `ray start --block` process group (GCS,
raylet, workers), started exactly as an operator starts them (`ray start --head`, then `ray start --address ...
--labels shoparena=worker` with the worker's own `ARENA_CATALOG`), and stopped or killed by their process group ids
only (never `ray stop`, which would stop every Ray cluster of this user on the machine).

Kept small for a shared 2-core machine: the head takes no runs (0 CPUs), every node's object store is 80 MB."""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import psutil

RAY = str(Path(sys.executable).parent / "ray")
OBJECT_STORE = 80 * 10**6


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@dataclass
class RayNode:
    name: str
    proc: subprocess.Popen[bytes]
    log: Path
    port: int  # its raylet's node manager port (how `ray.nodes()` tells nodes apart on one machine)

    def node_id(self) -> str:
        import ray

        for node in ray.nodes():
            if node["Alive"] and node["NodeManagerPort"] == self.port:
                return str(node["NodeID"])
        raise LookupError(f"Ray node {self.name} is not alive")


class LocalRayCluster:
    def __init__(self, root: Path | None = None) -> None:
        # Ray's unix sockets live under its temp dir: keep the path short (sockets are limited to 107 bytes)
        self.tmp = Path(tempfile.mkdtemp(prefix="ray-", dir="/tmp"))
        self.logs = Path(root) if root is not None else self.tmp
        self.logs.mkdir(parents=True, exist_ok=True)
        self.address = ""
        self.head: RayNode | None = None
        self.workers: dict[str, RayNode] = {}

    def _env(self, extra: dict[str, str]) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.startswith(("RAY_", "ARENA_CATALOG"))}
        # a lost node is noticed in a few seconds rather than Ray's default half minute
        env.update(
            RAY_USAGE_STATS_ENABLED="0",
            RAY_health_check_period_ms="1000",
            RAY_health_check_failure_threshold="3",
            RAY_health_check_initial_delay_ms="1000",
            **extra,
        )
        return env

    def _start(self, name: str, args: list[str], env: dict[str, str]) -> RayNode:
        port = free_port()
        log = self.logs / f"ray-{name}.log"
        ports = [
            "--node-ip-address",
            "127.0.0.1",
            "--node-manager-port",
            str(port),
            "--object-store-memory",
            str(OBJECT_STORE),
            "--dashboard-agent-listen-port",
            str(free_port()),
            "--metrics-export-port",
            str(free_port()),
            "--runtime-env-agent-port",
            str(free_port()),
            "--disable-usage-stats",
        ]
        proc = subprocess.Popen(
            [RAY, "start", "--block", *args, *ports],
            stdout=open(log, "ab"),
            stderr=subprocess.STDOUT,
            env=self._env(env),
            start_new_session=True,
        )
        node = RayNode(name, proc, log, port)
        deadline = time.monotonic() + 120
        while "Ray runtime started" not in log.read_text(errors="replace"):
            if proc.poll() is not None or time.monotonic() > deadline:
                self._kill(node)
                raise RuntimeError(f"ray node {name} did not start:\n{log.read_text(errors='replace')[-3000:]}")
            time.sleep(0.2)
        return node

    def start(self) -> LocalRayCluster:
        port = free_port()
        self.head = self._start(
            "head",
            [
                "--head",
                "--port",
                str(port),
                "--num-cpus",
                "0",
                "--include-dashboard",
                "false",
                "--temp-dir",
                str(self.tmp),
            ],
            {},
        )
        self.address = f"127.0.0.1:{port}"
        return self

    def add_worker(
        self, name: str, catalog: Path, *, cpus: int = 1, memory_mb: int = 1536, env: dict[str, str] | None = None
    ) -> RayNode:
        """A worker node taking ShopArena runs, with its own catalog copy (and `env` added to its environment); one
        at a time (Ray's node start is not safe to run concurrently on one machine)."""
        node = self._start(
            name,
            [
                "--address",
                self.address,
                "--num-cpus",
                str(cpus),
                "--memory",
                str(memory_mb * 2**20),
                "--labels",
                "shoparena=worker",
            ],
            # as docs/cluster.md starts a worker
            {"ARENA_CATALOG": str(catalog), "RAY_worker_niceness": "0", **(env or {})},
        )
        self.workers[name] = node
        return node

    def kill(self, name: str) -> None:
        """The worker host lost: every process of the node killed at once (raylet, its workers, their sandboxes);
        it is no longer one of the cluster's workers."""
        self._kill(self.workers.pop(name))

    def settle(self, timeout: float = 300) -> None:
        """Wait until Ray's own view of the cluster is this one's: the head and the workers started, each alive, and
        no node killed still listed as alive (Ray takes a few health checks to notice a lost node). A test that
        starts before then would place runners on a node that is gone, or miss one that is still joining. Needs this
        process joined to the cluster (`ray.init`)."""
        import ray

        wanted = {node.port for node in [*([self.head] if self.head else []), *self.workers.values()]}
        deadline = time.monotonic() + timeout  # a safety bound, never an assertion on how long it took
        while True:
            alive = {node["NodeManagerPort"] for node in ray.nodes() if node["Alive"]}
            if alive == wanted:
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"the Ray cluster did not settle: alive node ports {alive}, wanted {wanted}")
            time.sleep(0.2)

    def tasks(self, name: str) -> list[str]:
        """The Ray tasks the node's worker processes are running now, by their process title (`ray::<task name>`;
        the dispatcher names a run's task `run-<run id>`)."""
        return [
            title.removeprefix("ray::")
            for title in self._titles(self.workers[name])
            if title.startswith("ray::")
            and not title.startswith(("ray::IDLE", "ray::DashboardAgent", "ray::RuntimeEnvAgent"))
        ]

    def signal_task(self, name: str, task: str, sig: int) -> None:
        """Signal the worker process of node `name` running `task` (SIGSTOP: a worker that hangs)."""
        for proc in self._tree(self.workers[name]):
            try:
                if " ".join(proc.cmdline()).split()[:1] == [f"ray::{task}"]:
                    proc.send_signal(sig)
                    return
            except psutil.Error:
                continue
        raise LookupError(f"node {name} runs no task {task}")

    @staticmethod
    def _tree(node: RayNode) -> list[psutil.Process]:
        try:
            return [psutil.Process(node.proc.pid), *psutil.Process(node.proc.pid).children(recursive=True)]
        except psutil.NoSuchProcess:
            return []

    def _titles(self, node: RayNode) -> list[str]:
        titles = []
        for proc in self._tree(node):
            try:  # a process title set over argv comes back padded: its first word is the title
                words = " ".join(proc.cmdline()).split()
            except psutil.Error:
                continue
            if words:
                titles.append(words[0] if words[0].startswith("ray::") else " ".join(words))
        return titles

    @classmethod
    def _kill(cls, node: RayNode, sig: int = signal.SIGKILL) -> None:
        tree = cls._tree(node)  # Ray's worker processes start their own sessions: not in the node's process group
        try:
            os.killpg(node.proc.pid, sig)
        except ProcessLookupError:
            pass
        for proc in tree[1:]:
            try:
                proc.send_signal(sig)
            except psutil.Error:
                continue
        try:
            node.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            os.killpg(node.proc.pid, signal.SIGKILL)
            node.proc.wait(timeout=30)

    def stop(self) -> None:
        for node in [*self.workers.values(), *([self.head] if self.head else [])]:
            if node.proc.poll() is None:
                self._kill(node, signal.SIGTERM)
            try:  # what a graceful stop left behind in the group
                os.killpg(node.proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(self.tmp, ignore_errors=True)

    def __enter__(self) -> LocalRayCluster:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
