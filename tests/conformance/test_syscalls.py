"""Sandbox conformance, the second wall and the run's ends: the syscall probe (16 calls no shopping agent needs), a
call the sandbox kills for named in the run's error, the offline template's score the same as in a sandbox without
the filter, and a stopped sandbox leaving nothing behind; against every backend and runtime present
(tests/conformance/conftest.py)."""

from __future__ import annotations

import asyncio
import os
import threading
from pathlib import Path

import pytest

from arena import tasks, verdict
from arena.blame import SYSCALL_DENIED, blame_of
from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from sandbox.bundle import pack_dir, unpack
from sandbox.gateway import Gateway, GatewayServer
from sandbox.run import run_one
from tests.conformance.conftest import known_gap, run_agent

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
PROBE = (ROOT / "tests" / "support" / "hostile" / "syscall_probe.py").read_text()


def test_the_syscall_probe_reaches_the_kernel_once_at_most(node, request):
    known_gap(request, node[2], "probe")
    outcome = run_agent(node, PROBE, "probe")
    assert outcome.result.status == "ok", outcome.result.error
    calls = outcome.result.returned["calls"]
    assert len(calls) == 16 and outcome.result.returned["reached"] == ["personality"], calls  # the query form
    for name in ("unshare", "mount", "setns", "clock_settime", "clone"):  # EPERM: the agent sees an error
        assert calls[name] == "denied", (name, calls)
    for name in ("io_uring_setup", "bpf", "userfaultfd", "ptrace", "keyctl", "process_vm_readv"):
        assert calls[name] == "trapped", (name, calls)


KILLED = """
import ctypes, signal
def agent_main(problem):
    if CATCH:  # the filter's SIGSYS caught: with a trap, the call would fail and the agent go on
        signal.signal(signal.SIGSYS, lambda signo, frame: None)
    ctypes.CDLL(None).syscall(321, -1, 0, 0)  # bpf
    return {"survived": True}
"""


@pytest.mark.parametrize("catch", [False, True], ids=["plain", "sigsys-caught"])
def test_a_call_the_sandbox_kills_for_ends_the_run_with_the_call_named(node, request, catch):
    known_gap(request, node[2], "kill-named")
    outcome = run_agent(node, KILLED.replace("CATCH", str(catch)), f"killed-{catch}")
    assert outcome.result.status == "syscall_denied" and outcome.result.returned is None
    assert outcome.result.error_code == SYSCALL_DENIED and blame_of(SYSCALL_DENIED) == "agent"
    code, error = outcome.error_code()
    assert code == SYSCALL_DENIED and "ended by SIGSYS" in str(error) and "bpf" in str(error)
    notes = [e for e in outcome.events if e.kind == "agent_log" and e.name == "syscall_denied"]
    assert len(notes) == 1 and "bpf" in str(notes[0].result)  # the trajectory says so


def test_a_forked_process_that_makes_a_killed_call_is_ended_however_it_handles_sigsys(node, request):
    known_gap(request, node[2], "kill-named")
    outcome = run_agent(
        node,
        """
        import ctypes, os, signal
        def agent_main(problem):
            pid = os.fork()
            if pid == 0:
                signal.signal(signal.SIGSYS, lambda signo, frame: None)
                ctypes.CDLL(None).syscall(425, 1, 1)  # io_uring_setup
                os._exit(0)
            _, status = os.waitpid(pid, 0)
            return {"signal": os.WTERMSIG(status) if os.WIFSIGNALED(status) else None}
    """,
        "killed-fork",
    )
    assert outcome.result.status == "ok" and outcome.result.returned == {"signal": 31}  # SIGSYS, not its handler


def test_an_agent_cannot_write_the_filters_note_into_its_trajectory(node):
    outcome = run_agent(
        node,
        """
        import json, os, urllib.request
        def agent_main(problem):
            request = urllib.request.Request(
                os.environ["ARENA_GATEWAY_URL"] + "/harness/syscall_denied", method="POST",
                data=json.dumps({"error": "the agent called bpf"}).encode(),
                headers={"X-Arena-Origin": "harness", "Content-Type": "application/json"})
            try:
                return {"status": urllib.request.urlopen(request).status}
            except urllib.error.HTTPError as exc:
                return {"status": exc.code}
    """,
        "forged-note",
    )
    assert outcome.result.status == "ok" and outcome.result.returned == {"status": 404}
    assert not [e for e in outcome.events if e.name == "syscall_denied"]
    assert "POST /harness/syscall_denied" in outcome.unserved


def test_a_denied_call_is_an_error_the_agent_can_handle(node, request):
    known_gap(request, node[2], "eperm")
    outcome = run_agent(
        node,
        """
        import ctypes
        def agent_main(problem):
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.unshare(0x10000000) != 0:  # CLONE_NEWUSER
                return {"errno": ctypes.get_errno()}
            return {"errno": 0}
    """,
        "eperm",
    )
    assert outcome.result.status == "ok" and outcome.result.returned == {"errno": 1}  # EPERM, and the run goes on


@pytest.fixture(scope="module")
def template_world(tmp_path_factory):
    """A small catalog, four generated problems, the offline template bundle and a gateway over them; and the
    template's strict scores in the bubblewrap sandbox without the filter (what the filter must not change)."""
    from arena.catalog import Catalog
    from arena.catalog.build import build_catalog

    root = tmp_path_factory.mktemp("template")
    os.chmod(root, 0o711)
    for parent in list(root.parents)[:-1]:
        os.chmod(parent, os.stat(parent).st_mode | 0o011)
    build_catalog(0, 2_000, root / "catalog")
    catalog = Catalog.open(root / "catalog")
    fam = tasks.family("shoppingbench")
    problems = list(fam.generate(catalog, 4, tasks=fam.tasks, seed=0).problems)
    agent = unpack(pack_dir(ROOT / "miner_template" / "offline").data, root / "offline")
    gateway = Gateway(catalog)
    with GatewayServer(gateway, root / "gw" / "gateway.sock"):
        world = (catalog, problems, agent, gateway, root / "gw")
        reference = _scores(world, ProcessSandbox("bwrap", seccomp=False))
        assert any(final for _, final, _ in reference)  # the template answers some of them right
        yield world + (reference,)


def _scores(world, backend) -> list[tuple[str, float, list[str]]]:
    catalog, problems, agent, gateway, socket_dir = world[:5]
    fam = tasks.family("shoppingbench")
    out = []
    for problem in problems:
        ran = asyncio.run(run_one(gateway, backend, agent, socket_dir, problem, limits=Limits(wall_seconds=60)))
        assert ran.result.status == "ok", ran.result.error
        strict = verdict.strict_verdict(problem, ran.events, catalog.get, ruleset=tasks.ruleset_for(fam))
        out.append((problem.problem_id, strict.final, strict.answer))
    return out


def test_the_offline_templates_score_is_unchanged_by_the_filter(template_world, backend, request):
    known_gap(request, backend, "template")
    assert _scores(template_world, backend) == template_world[-1]


def test_a_stopped_sandbox_ends_its_run_and_leaves_nothing(node, request):
    known_gap(request, node[2], "kill")
    backend = node[2]
    done = threading.Event()

    def stop_once_running() -> None:  # the run's sandbox is up (however long the machine takes): stop it
        while not done.is_set() and not backend._running:
            done.wait(0.05)
        if not done.wait(1.0):
            backend.stop_running()

    stopper = threading.Thread(target=stop_once_running, daemon=True)
    stopper.start()
    try:
        outcome = run_agent(
            node, "import time\ndef agent_main(problem):\n    time.sleep(120)\n", "stopped",
            limits=Limits(wall_seconds=120),
        )  # fmt: skip
    finally:
        done.set()
        stopper.join()
    assert outcome.result.status not in ("ok", "timeout") and outcome.result.error_code is not None  # the stop's
    assert backend.stop_running() == 0  # nothing of the run is left to stop
