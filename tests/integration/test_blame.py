"""Blame where it belongs, with the real pieces: the gateway in front of a real OpenAI-compatible HTTP server (the one
double: an upstream LLM this machine cannot reach), the bubblewrap sandbox, the store, LocalChain.

A fault of the node's own infrastructure (here: its upstream LLM answering 502) is never a miner's zero, whether the
agent let the error through or caught it and carried on; an agent's own failure (no answer, budget spent, a bundle
that cannot be unpacked) is final with its code."""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from arena import blame
from arena.catalog import Catalog
from arena.problems.pack import load_pack
from demo.agents import MINER_TEMPLATE, write_template
from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from sandbox.env import sandbox_python
from sandbox.gateway import Budgets, Gateway, Upstream
from tests.support.llm_agents import CATCH, LET_THROUGH, MODEL, llm_agent
from tests.support.node import open_store
from tests.support.openai_server import Fail, OpenAIServer
from tests.support.race import build_arena_inputs, make_chain, place_submission, race_until_final
from validator.api import create_app
from validator.chain.local import LocalChain
from validator.races import Arena, ArenaConfig
from validator.store.repository import Store

pytestmark = pytest.mark.slow  # the bubblewrap sandbox, the gateway and an OpenAI-compatible server


def plain_agent(folder: Path, source: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "agent.py").write_text(source)
    return folder


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"), problems=16, per_race=3)


def make_arena(
    store: Store,
    chain: LocalChain,
    wallet: Any,
    inputs: tuple[Path, Path, str],
    data_dir: Path,
    *,
    gateway: Gateway | None = None,
    budgets: Budgets | None = None,
    log: Any = None,
    sandbox: ProcessSandbox | None = None,
    **config: Any,
) -> Arena:
    """The node's race machinery on the test's pack; `config` overrides the test defaults of ArenaConfig."""
    catalog_dir, pack_path, signer = inputs
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    settings = {
        "concurrency": 2,
        "max_attempts": 3,
        "retry_backoff": 0.2,
        "limits": Limits(wall_seconds=60),
        "budgets": budgets or Budgets(),
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
        gateway=gateway or Gateway(catalog),
        log=log,
    )


def drive(arena: Arena, store: Store, done: Any, deadline: float = 300.0) -> None:
    """Dispatch and judge until `done()` (a condition on the store), within a generous deadline."""
    end = time.time() + deadline
    while not done():
        assert time.time() < end, "the runs did not reach the expected state in time"
        asyncio.run(arena.dispatch())
        asyncio.run(arena.judge_runs())
        time.sleep(0.1)


def test_an_upstream_llm_failing_mid_run_is_the_nodes_fault_and_the_run_is_retried_and_scored(
    inputs: Any, tmp_path: Path
) -> None:
    down = threading.Event()
    down.set()

    def upstream(body: dict[str, Any]) -> str:
        if down.is_set():
            raise Fail(502, "bad gateway (upstream overloaded)")
        return "look for the cheapest matching listing"

    names = {"lets-through": LET_THROUGH, "catches": CATCH}
    setup = make_chain(tmp_path, list(names))
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    hotkeys = {}
    for i, (name, guard) in enumerate(names.items()):
        hotkeys[name] = setup.miners[name].hotkey.ss58_address
        place_submission(
            store, data_dir, hotkeys[name], llm_agent(tmp_path / "agents" / name, name, guard), block=10 + i
        )
    with OpenAIServer(upstream, models=(MODEL,)) as server:
        catalog = Catalog.open(inputs[0])
        gateway = Gateway(catalog, upstream=Upstream(base_url=server.base_url, models=[MODEL]))
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir, gateway=gateway)
        arena.start()
        try:
            race_id = arena.open_race()
            assert race_id is not None
            asyncio.run(arena.dispatch())
            # the upstream answered 502 to every LLM call: every run is the node's fault, put back for a retry
            runs = store.runs(race_id=race_id)
            assert len(runs) == 6
            for run in runs:
                assert (run.status, run.error_code, run.blame) == ("pending", blame.UPSTREAM_LLM_DOWN, "validator")
                assert store.score(run.run_id) is None  # nothing scored, no zero recorded
                (attempt,) = run.sandbox["attempts"]
                assert attempt["code"] == blame.UPSTREAM_LLM_DOWN and attempt["upstream_errors"]
                assert attempt["upstream_errors"][0]["status"] == 502
            # whether the agent let the 502 through (it raised) or caught it and answered, the blame is the node's
            by_name = {n: [r for r in runs if r.hotkey == hk] for n, hk in hotkeys.items()}
            assert {r.sandbox["status"] for r in by_name["lets-through"]} == {"raised"}
            assert {r.sandbox["status"] for r in by_name["catches"]} == {"ok"}
            assert all(r.sandbox["answer"] for r in by_name["catches"])
            assert arena.close_races() == []

            down.clear()  # the upstream recovers
            drive(arena, store, lambda: all(r.status == "finished" for r in store.runs(race_id=race_id)))
            assert arena.close_races() == [race_id]
        finally:
            arena.stop()
    runs = store.runs(race_id=race_id)
    assert all(r.attempt == 2 and r.status == "finished" and r.error_code is None for r in runs)
    finals: dict[str, dict[str, float]] = {name: {} for name in names}
    for run in runs:
        score = store.score(run.run_id)
        assert score is not None and score.final is not None
        assert not run.sandbox["upstream_errors"]  # the attempt that counts met no upstream fault
        name = next(n for n, hk in hotkeys.items() if hk == run.hotkey)
        finals[name][run.problem_id] = score.final
    # both agents made the same calls once the upstream was back: the same verdicts, nothing lost to the outage
    assert finals["lets-through"] == finals["catches"]
    results = {r.hotkey: r for r in store.race_results(race_id)}
    for name, hotkey in hotkeys.items():
        assert results[hotkey].errored == 0
        assert results[hotkey].score == pytest.approx(sum(finals[name].values()) / 3)
    # the run page shows the upstream errors of the attempt they ended
    client = TestClient(create_app(store))
    page = client.get(f"/api/runs/{runs[0].run_id}").json()
    (attempt,) = page["attempts"]
    assert attempt["code"] == 2005 and attempt["blame"] == "validator"
    assert "502" in attempt["upstream_errors"][0]["error"] and attempt["upstream_error_count"] >= 1
    shown = browser_run_page(store, runs[0].run_id, tmp_path)
    assert len(shown["upstream"]) == attempt["upstream_error_count"] and all("502" in row for row in shown["upstream"])
    assert "2005" in shown["attempts"][0] and "validator" in shown["attempts"][0]
    store.close()


def browser_run_page(store: Store, run_id: str, tmp_path: Path) -> dict[str, list[str]]:
    """The run page as a headless Chromium renders it: the rows of its upstream-errors and attempts tables."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    from sandbox.serving import ThreadedServer
    from tests.e2e.test_dashboard import chromium

    browser, driver_path = chromium()
    options = webdriver.ChromeOptions()
    options.binary_location = browser
    for flag in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
    ):
        options.add_argument(flag)
    server = ThreadedServer(create_app(store)).start()
    driver = webdriver.Chrome(service=Service(driver_path), options=options)
    try:
        driver.get(f"{server.url}/#/run/{run_id}")
        WebDriverWait(driver, 30).until(ec.presence_of_element_located((By.CSS_SELECTOR, "#upstream tbody tr")))
        return {
            name: [row.text for row in driver.find_elements(By.CSS_SELECTOR, f"#{name} tbody tr")]
            for name in ("upstream", "attempts")
        }
    finally:
        driver.quit()
        server.stop()


NO_ANSWER_AGENT = """
def agent_main(problem):
    return {"thought": "nothing fits"}
"""

SPENDER_AGENT = """
from arena_agent import BudgetExhausted, call_tool


def agent_main(problem):
    try:
        while True:
            call_tool("find_product", q=problem["query"][:40])
    except BudgetExhausted:
        return None
"""


def test_no_answer_a_spent_budget_and_an_invalid_bundle_are_the_agents_and_final(inputs: Any, tmp_path: Path) -> None:
    import hashlib

    names = ["silent", "spender", "broken"]
    setup = make_chain(tmp_path, names)
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    hotkeys = {n: setup.miners[n].hotkey.ss58_address for n in names}
    place_submission(
        store, data_dir, hotkeys["silent"], plain_agent(tmp_path / "a" / "silent", NO_ANSWER_AGENT), block=10
    )
    place_submission(
        store, data_dir, hotkeys["spender"], plain_agent(tmp_path / "a" / "spender", SPENDER_AGENT), block=11
    )
    # a bundle that passed its hash check but cannot be unpacked (a truncated archive, stored as fetched)
    garbage = b"\x1f\x8b\x08\x00 not really a tar.gz"
    sha = hashlib.sha256(garbage).hexdigest()
    (data_dir / "bundles").mkdir(parents=True, exist_ok=True)
    (data_dir / "bundles" / f"{sha}.tar.gz").write_bytes(garbage)
    sub, _ = store.add_submission(hotkey=hotkeys["broken"], sha256=sha, commitment_block=12, source="test")
    store.set_submission(sub.id, status="accepted", size_bytes=len(garbage))
    arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir, budgets=Budgets(tool_calls=5))
    arena.start()
    try:
        race_id = arena.open_race()
        assert race_id is not None
        drive(arena, store, lambda: all(arena.final(r) for r in store.runs(race_id=race_id)))
        assert arena.close_races() == [race_id]
    finally:
        arena.stop()
    expected = {"silent": blame.NO_ANSWER, "spender": blame.BUDGET_EXHAUSTED, "broken": blame.BUNDLE_INVALID}
    for name, code in expected.items():
        runs = store.runs(race_id=race_id, hotkey=hotkeys[name])
        assert len(runs) == 3
        for run in runs:
            assert (run.status, run.error_code, run.blame, run.attempt) == ("errored", code, "agent", 1), run.error
    spender = store.runs(race_id=race_id, hotkey=hotkeys["spender"])[0]
    assert spender.sandbox["budget_refusals"] >= 1 and "budget" in (spender.error or "")
    results = {r.hotkey: r for r in store.race_results(race_id)}
    assert all(results[hotkeys[n]].score == 0.0 and results[hotkeys[n]].errored == 3 for n in names)
    store.close()


def test_a_sandbox_not_ready_by_the_deadline_is_the_nodes_fault_2001_and_retried(inputs: Any, tmp_path: Path) -> None:
    """The deadline passes before the run's input is written (the sandbox's start held up): no agent code ran, so it
    is the node's sandbox failing, retried, not the agent's timeout (1003). Held up by a real cause: the agents'
    Python on a filesystem whose reads hang, as a hung mount's do (its pyvenv.cfg a FIFO nobody writes), so its
    interpreter waits at its first read, before the harness's ready line, however long the deadline."""
    venv = Path(tempfile.mkdtemp(prefix="shoparena-hung-python-"))  # readable by the sandbox's user (nobody)
    try:
        venv.chmod(0o755)
        (venv / "bin").mkdir(mode=0o755)
        (venv / "bin" / "python").symlink_to(os.path.realpath(sandbox_python()))  # under /usr: seen inside
        os.mkfifo(venv / "pyvenv.cfg", 0o644)
        setup = make_chain(tmp_path, ["held-up"])
        store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
        data_dir = tmp_path / "node"
        store.upsert_miners(setup.chain.metagraph().neurons)
        agent = plain_agent(tmp_path / "a" / "held-up", NO_ANSWER_AGENT)
        place_submission(store, data_dir, setup.miners["held-up"].hotkey.ss58_address, agent, block=10)
        sandbox = ProcessSandbox("bwrap", python=str(venv / "bin" / "python"))
        arena = make_arena(
            store, setup.chain, setup.validators[0], inputs, data_dir, sandbox=sandbox, limits=Limits(wall_seconds=1)
        )
        arena.start()
        try:
            race_id = arena.open_race()
            assert race_id is not None
            asyncio.run(arena.dispatch())
        finally:
            arena.stop()
        runs = store.runs(race_id=race_id)
        assert len(runs) == 3
        for run in runs:
            assert (run.status, run.error_code, run.blame, run.attempt) == (
                "pending",
                blame.SANDBOX_FAILED,
                "validator",
                1,
            )
            assert "not ready to run within 11s" in (run.error or ""), run.error
            assert [a["code"] for a in run.sandbox["attempts"]] == [blame.SANDBOX_FAILED]
            assert store.score(run.run_id) is None  # nothing scored, no zero recorded
        store.close()
    finally:
        shutil.rmtree(venv)


def test_every_code_has_one_entry_and_the_store_takes_blame_from_it() -> None:
    from validator.store.repository import blame_of

    assert all(
        (c.code < 2000) == (c.blame == "agent") and c.retried == (c.blame == "validator")
        for c in blame.CODES.values()
        if c.code != blame.PROVIDER_DROPPED  # not the agent's, and final: a provider the race went on without
    )
    assert not blame.retried(blame.PROVIDER_DROPPED) and blame.blame_of(blame.PROVIDER_DROPPED) == "validator"
    assert {blame_of(c) for c in (1006, 1007, 1008)} == {"agent"} and blame_of(2005) == "validator"
    with pytest.raises(ValueError, match="unknown run error code 1999"):
        blame_of(1999)


def test_the_gateway_dying_mid_run_is_2002_and_the_node_serves_it_again(inputs: Any, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["late"])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    late = MINER_TEMPLATE.read_text() + (
        "\n\n_solve_now = agent_main\n\n\ndef agent_main(problem):\n    time.sleep(2)\n    return _solve_now(problem)\n"
    )
    place_submission(
        store,
        data_dir,
        setup.miners["late"].hotkey.ss58_address,
        write_template(tmp_path / "a" / "late", late),
        block=10,
    )
    arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir)
    arena.start()
    try:
        race_id = arena.open_race()
        assert race_id is not None
        dispatching = threading.Thread(target=lambda: asyncio.run(arena.dispatch()))
        dispatching.start()
        deadline = time.time() + 120
        while not store.runs(race_id=race_id, status="running"):
            assert time.time() < deadline, "no run reached its sandbox"
            time.sleep(0.05)
        server = arena._server
        assert server is not None
        server.stop()  # the gateway dies under the runs in flight
        dispatching.join(300)
        runs = store.runs(race_id=race_id)
        assert all((r.status, r.error_code, r.blame) == ("pending", blame.GATEWAY_FAULT, "validator") for r in runs)
        assert arena.recover() == 0 and arena._server is not None and arena._server.alive  # served again
        drive(arena, store, lambda: all(r.status == "finished" for r in store.runs(race_id=race_id)))
    finally:
        arena.stop()
    for run in store.runs(race_id=race_id):
        assert run.attempt == 2 and [a["code"] for a in run.sandbox["attempts"]] == [blame.GATEWAY_FAULT]
    store.close()


def test_healthz_says_when_runs_are_stuck_and_a_race_cannot_close(inputs: Any, tmp_path: Path) -> None:
    from validator.scheduler import Node

    setup = make_chain(tmp_path, ["offline"])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    place_submission(
        store,
        data_dir,
        setup.miners["offline"].hotkey.ss58_address,
        write_template(tmp_path / "a" / "offline"),
        block=10,
    )
    arena = make_arena(
        store,
        setup.chain,
        setup.validators[0],
        inputs,
        data_dir,
        limits=Limits(wall_seconds=0.5),
        stuck_grace=0.5,
        race_stall=2.0,
    )
    node = Node(arena, block_time=0.5)
    client = TestClient(create_app(store, health=node.health))
    arena.start()
    try:
        race_id = arena.open_race()
        assert race_id is not None
        # a run left in a sandbox state by a fault, no sandbox behind it, and no recovery yet
        stuck = store.runs(race_id=race_id)[0].run_id
        store.transition(stuck, "starting")
        store.transition(stuck, "running")
        deadline = time.time() + 60
        while not (arena.progress()["overdue_runs"] and arena.progress()["stalled_races"]):
            assert time.time() < deadline, "progress never flagged the stuck run"
            time.sleep(0.1)
        health = client.get("/healthz")
        checks = health.json()["checks"]
        assert health.status_code == 503 and not checks["runs"]["ok"] and stuck in checks["runs"]["detail"]
        assert not checks["races"]["ok"] and race_id in checks["races"]["detail"]
        arena.recover()  # the node's own recovery ends the lost attempt (2006) and puts the run back
    finally:
        arena.stop()
    run = store.run(stuck)
    assert run is not None and run.status == "pending" and run.sandbox["attempts"][0]["code"] == blame.NODE_INTERRUPTED
    assert client.get("/healthz").json()["checks"]["runs"]["ok"]
    store.close()


def test_a_run_the_node_cannot_score_is_its_own_fault_2007(inputs: Any, tmp_path: Path) -> None:
    from bittensor.sp_core import Keypair

    from arena.problems.pack import new_pack, write_pack
    from arena.tasks.shoppingbench.generate import GENERATOR_VERSION, generate_problems

    setup = make_chain(tmp_path, ["offline"])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    place_submission(
        store,
        data_dir,
        setup.miners["offline"].hotkey.ss58_address,
        write_template(tmp_path / "a" / "offline"),
        block=10,
    )
    first = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir)
    first.start()
    try:
        race_id = first.open_race()
        assert race_id is not None
        run_id = store.runs(race_id=race_id)[0].run_id
        store.transition(run_id, "starting")
        store.transition(run_id, "running")
        store.record_run(run_id, "scoring", [])  # the node stopped before it stored the strict score
    finally:
        first.stop()
    # it comes back with the next pack (new problems), which does not hold that run's problem, and the store holds
    # it as a family this node does not know (written by a newer version of the node): scoring it fails, in our code
    from validator.store.models import ProblemRow

    with store.session() as s:
        row = s.get(ProblemRow, store.run(run_id).problem_id)  # type: ignore[union-attr]
        assert row is not None
        row.data = {**row.data, "task": "compare"}
    operator = Keypair.create_from_uri("//ShopArenaTestOperator")
    fresh = generate_problems(first.catalog, 6, seed=11).problems
    assert store.run(run_id).problem_id not in {p.problem_id for p in fresh}  # type: ignore[union-attr]
    following = new_pack(
        fresh,
        catalog_digest=first.pack.catalog_digest,
        generator_version=GENERATOR_VERSION,
        rotation=first.pack.rotation,
        embed=False,
    ).signed(operator)
    next_pack = write_pack(following, tmp_path / "next-pack.json")
    log = _Log()
    second = make_arena(
        store, setup.chain, setup.validators[0], (inputs[0], next_pack, operator.ss58_address), data_dir, log=log
    )
    second.start()
    try:
        second.recover()
    finally:
        second.stop()
    run = store.run(run_id)
    assert run is not None and (run.status, run.error_code, run.blame) == ("pending", blame.SCORING_FAILED, "validator")
    assert store.score(run_id) is None  # never a zero
    failed = [kw for event, kw in log.records if event == "races.scoring_failed"]
    assert failed and "compare" in failed[0]["traceback"]
    store.close()


class _Log:
    def __init__(self) -> None:
        self.records: list[tuple[str, dict[str, Any]]] = []

    def info(self, event: str, **kw: Any) -> None:
        self.records.append((event, kw))

    warning = error = info


# An agent whose calls and output carry NUL characters, which PostgreSQL cannot store in text or JSON: in a search,
# in its answer, in what it prints and returns. Were the node to fail writing them, the agent would turn its own
# wrong answer into the node's fault.
NUL_AGENT = """
from arena_agent import call_tool


def agent_main(problem):
    call_tool("find_product", q="lamp\\x00shade")
    call_tool("recommend_product", product_ids="\\x00123")
    print("done\\x00")
    return {"answer": "\\x00"}
"""


def test_nul_characters_in_an_agents_calls_are_stored_and_its_answer_scored_on_postgres(
    inputs: Any, tmp_path: Path
) -> None:
    from tests.support.postgres import fresh_database

    setup = make_chain(tmp_path, ["nul"])
    with fresh_database() as url:
        store = open_store(url)
        data_dir = tmp_path / "node"
        store.upsert_miners(setup.chain.metagraph().neurons)
        hotkey = setup.miners["nul"].hotkey.ss58_address
        place_submission(store, data_dir, hotkey, plain_agent(tmp_path / "a" / "nul", NUL_AGENT), block=10)
        runs = race_until_final(make_arena(store, setup.chain, setup.validators[0], inputs, data_dir), store)
        # the agent's own wrong answer: scored (0), final on its first attempt, never the node's fault
        assert all((r.status, r.attempt, r.error_code) == ("finished", 1, None) for r in runs), [r.error for r in runs]
        for run in runs:
            score = store.score(run.run_id)
            assert score is not None and score.success == 0.0 and score.final == 0.0
            answer = [e for e in store.events(run.run_id) if e.name == "recommend_product"][-1]
            assert answer.arguments == {"product_ids": "\ufffd123"}  # NUL is stored as U+FFFD, everywhere alike
        store.close()
