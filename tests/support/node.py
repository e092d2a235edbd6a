"""A running node for fault tests: its log kept, a slow agent, a private PostgreSQL cluster one can stop, the
node's race machinery on bubblewrap, and the node's scheduled jobs in a thread of their own."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time
import traceback
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from arena.catalog import Catalog
from arena.problems.pack import load_pack
from demo.agents import MINER_TEMPLATE, write_template
from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from validator.chain.local import LocalChain
from validator.metrics import Metrics
from validator.races import Arena, ArenaConfig
from validator.scheduler import Node
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

ROOT = Path(__file__).resolve().parents[2]


class Log:
    """The node's log, kept (the same calls a structlog logger takes)."""

    def __init__(self) -> None:
        self.records: list[tuple[str, str, dict[str, Any]]] = []

    def _add(self, level: str, event: str, **kw: Any) -> None:
        self.records.append((level, event, kw))

    def info(self, event: str, **kw: Any) -> None:
        self._add("info", event, **kw)

    def warning(self, event: str, **kw: Any) -> None:
        self._add("warning", event, **kw)

    def error(self, event: str, **kw: Any) -> None:
        self._add("error", event, **kw)


def slow_agent(folder: Path, name: str, seconds: float) -> Path:
    return write_template(
        folder,
        MINER_TEMPLATE.read_text() + f"\n\nMINER = {name!r}\n\n_solve_now = agent_main\n\n\n"
        f"def agent_main(problem):\n    time.sleep({seconds})\n    return _solve_now(problem)\n",
    )


def wait_until(predicate: Any, what: str, timeout: float = 300.0) -> None:
    deadline = time.time() + timeout
    while not predicate():
        assert time.time() < deadline, f"timed out waiting for {what}"
        time.sleep(0.2)


class PrivatePostgres:
    """A throwaway cluster of our own (scripts/postgres with its own folder and port), so stopping it touches no
    other test's server."""

    def __init__(self) -> None:
        self.dir = Path(f"/var/lib/shoparena/pg-faults-{uuid.uuid4().hex[:8]}")
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.env = {**os.environ, "ARENA_PG_DIR": str(self.dir), "ARENA_PG_PORT": str(self.port)}

    def start(self) -> str:
        done = subprocess.run(
            ["bash", str(ROOT / "scripts" / "postgres"), "start"], capture_output=True, text=True, env=self.env
        )
        assert done.returncode == 0, done.stderr
        match = re.search(r"ARENA_TEST_DATABASE_URL=(\S+)", done.stdout)
        assert match, done.stdout
        return match.group(1)

    def stop(self) -> None:
        subprocess.run(
            ["bash", str(ROOT / "scripts" / "postgres"), "stop"], capture_output=True, env=self.env, check=True
        )


def private_postgres() -> Iterator[PrivatePostgres]:
    """A private cluster, stopped and removed after the test (the body of a `postgres` fixture)."""
    # scripts/test installs PostgreSQL: its absence is a broken set-up, never a skipped test
    assert shutil.which("pg_ctl") or list(Path("/usr/lib/postgresql").glob("*/bin/pg_ctl")), (
        "PostgreSQL server is not installed (bash scripts/system-packages --tests)"
    )
    server = PrivatePostgres()
    try:
        yield server
    finally:
        server.stop()
        shutil.rmtree(server.dir, ignore_errors=True)


def run_flags(setup: Any, data_dir: Path, url: str, inputs: tuple[Path, Path, str]) -> list[str]:
    """The flags of `arena-validator run` that every node started as a process takes: its LocalChain and validator
    wallet (`tests.support.race.make_chain`'s ``setup``), data folder, store, catalog and signed pack."""
    catalog_dir, pack_path, signer = inputs
    return [
        *("--chain", "localchain", "--localchain.path", str(setup.path)),
        *("--wallet.name", "validator0", "--wallet.path", str(setup.wallets)),
        *("--data-dir", str(data_dir), "--database-url", url),
        *("--catalog", str(catalog_dir), "--pack", str(pack_path), "--pack.signer", signer),
    ]


def open_store(url: str) -> Store:
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    return Store.open(url)


def make_arena(
    store: Store,
    chain: LocalChain,
    wallet: Any,
    inputs: tuple[Path, Path, str],
    data_dir: Path,
    metrics: Metrics | None = None,
    gateway: Any = None,
    sandbox: Any = None,
    **config: Any,
) -> Arena:
    """The node's race machinery on the inputs' pack, bubblewrap, the node's log kept (`Log`); `config` overrides the
    test defaults of `ArenaConfig`."""
    catalog_dir, pack_path, signer = inputs
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    # the fork rule off: these races field the template's variants as distinct miners (tests/unit/test_fork_rule.py
    # and test_races race it on)
    settings = {
        "concurrency": 2,
        "max_attempts": 3,
        "retry_backoff": 0.2,
        "limits": Limits(wall_seconds=60),
        "fork_rule": False,
        **config,
    }
    return Arena(
        store=store,
        chain=chain,
        wallet=wallet,
        pack=pack,
        catalog=catalog,
        sandbox=sandbox or ProcessSandbox("bwrap"),
        config=ArenaConfig(data_dir=data_dir, **settings),
        log=Log(),
        metrics=metrics,
        gateway=gateway,
    )


class RunningNode:
    """A node's jobs running in a thread of their own until `stop()`."""

    def __init__(self, node: Node) -> None:
        self.node = node
        self.done = threading.Event()
        self.error: BaseException | None = None
        self.loop: asyncio.AbstractEventLoop | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        try:
            asyncio.run(self._main())
        except BaseException as exc:  # noqa: BLE001 - reported by stop()
            self.error = exc

    async def _main(self) -> None:
        self.loop = asyncio.get_running_loop()
        await self.node.run(until=self.done.is_set, poll=0.2, handle_signals=False)

    def __enter__(self) -> RunningNode:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.done.set()
        self.thread.join(120)
        assert not self.thread.is_alive(), "the node did not stop:\n" + _stacks(self.loop)
        assert self.error is None, repr(self.error)


def _stacks(loop: asyncio.AbstractEventLoop | None) -> str:
    """Every thread's stack and the node's tasks' awaits, the newest last: where a node that does not stop waits."""
    names = {t.ident: t.name for t in threading.enumerate()}
    lines = [
        f"--- thread {names.get(ident, ident)}\n" + "".join(traceback.format_stack(frame)[-12:])
        for ident, frame in sys._current_frames().items()
    ]
    for task in asyncio.all_tasks(loop) if loop is not None else ():
        awaits, coro = [], task.get_coro()
        while coro is not None and getattr(coro, "cr_frame", None) is not None:
            frame = coro.cr_frame
            awaits.append(f"  {frame.f_code.co_filename}:{frame.f_lineno} {frame.f_code.co_name}\n")
            coro = coro.cr_await
        lines.append(f"--- task {task.get_name()} awaiting {coro!r:.200}\n" + "".join(awaits))
    return "\n".join(lines)
