"""A run's last try (docs/architecture.md, "Close"; docs/scoring.md, "An LLM call the upstream chokes on"): once a
race's fault wait is spent and the node's own probe finds its upstream well, every held run gets one more try, on
which a 5xx met while the upstream was seen well is the agent's request's doing. The race closes without a held run
only once that run failed its own last try: never one that reached its retry budget after the race's last chance was
given, nor one whose attempt was recorded across it (the dispatcher records on the event loop, the close job runs in
a thread). The attempts are made by hand in the order each case names (`tests/integration/test_llm_choker.py` and
`test_llm_choker_pages.py` race real chokers on a running node, where these orders come with load)."""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from arena import blame
from arena.catalog import Catalog
from sandbox.gateway import Gateway, Upstream
from tests.support.llm_agents import MODEL
from tests.support.node import make_arena, open_store, slow_agent
from tests.support.openai_server import OpenAIServer
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, place_submission

pytestmark = pytest.mark.slow  # the node's race machinery on PostgreSQL, an HTTP upstream LLM


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"), problems=16, per_race=2, cadence=20)


def _claim(arena: Any, run_id: str) -> Any:
    """An attempt of a run begun as the dispatcher begins one: the run as the dispatch job read it, then claimed."""
    run = arena.store.run(run_id)
    arena.store.claim(run_id, running=True)
    return run


def _record(arena: Any, run: Any, last: bool) -> None:
    """The attempt of an agent that chokes its upstream recorded: the upstream's failure (2005, retried), or, read as
    the run's last try (``last``: `Dispatching.last_try`, as `_record` reads it), what it answered (nothing: 1006)."""
    code = blame.NO_ANSWER if last else blame.UPSTREAM_LLM_DOWN
    arena.dispatching.fail(run.run_id, code, "answered nothing" if last else "upstream LLM answered 500 (well)")


def _attempt(arena: Any, run_id: str) -> None:
    run = _claim(arena, run_id)
    _record(arena, run, arena.dispatching.last_try(run))


@contextmanager
def _choking_race(
    inputs: Any, tmp_path: Path, left_out: str | None = None, **config: Any
) -> Iterator[tuple[Any, str, str, str]]:
    """A race of two miners whose agents choke their upstream on one of its two problems and answer nothing on the
    other (final at once): (the node's arena, the race, the early and the late choker's run on that problem), the
    runs made by hand (`_attempt`); the store, the race's closing and the node's probe of its upstream (a real HTTP
    server answering every call) are the node's own. Checks, once the body closed the race, that it closed with
    both runs scored as what they answered (1006), none left out; or, with ``left_out`` ("early" or "late"), that
    run left out (still the validator's error: not in its miner's score), the race closed without it."""
    names = ["early", "late"]
    setup = make_chain(tmp_path, names, rate_limit=0)
    hotkeys = {name: setup.miners[name].hotkey.ss58_address for name in names}
    with fresh_database("lasttry") as url, OpenAIServer(lambda body: "ok", models=(MODEL,)) as server:
        store = open_store(url)
        data_dir = tmp_path / "node"
        store.upsert_miners(setup.chain.metagraph().neurons)
        for i, name in enumerate(names):
            place_submission(store, data_dir, hotkeys[name], slow_agent(tmp_path / "a" / name, name, 0.0), 1 + i)
        gateway = Gateway(Catalog.open(inputs[0]), upstream=Upstream(base_url=server.base_url, models=[MODEL]))
        arena = make_arena(store, setup.chain, setup.validators[0], inputs, data_dir, gateway=gateway, **config)
        arena.start()
        try:
            race = arena.open_race()
            assert race is not None
            runs = sorted(store.runs(race_id=race), key=lambda r: r.problem_id)
            choked = [r.run_id for r in runs if r.problem_id == runs[0].problem_id]
            for run in runs:
                if run.run_id not in choked:  # the other problem: answered nothing, final
                    _claim(arena, run.run_id)
                    _record(arena, run, True)
            by_name = {name: next(r for r in choked if store.run(r).hotkey == hotkeys[name]) for name in names}  # type: ignore[union-attr]
            yield arena, race, by_name["early"], by_name["late"]
        finally:
            arena.stop()
        assert store.race(race).status == "closed"  # type: ignore[union-attr]
        results = {r.hotkey: r for r in store.race_results(race)}
        for name in names:
            held = store.run(by_name[name])
            assert held is not None
            if name == left_out:
                assert (held.status, held.blame) == ("errored", "validator")  # counted for nobody (`draw.race_scores`)
            else:  # scored as what it answered, on both problems
                assert (held.status, held.error_code, held.blame) == ("errored", blame.NO_ANSWER, "agent")
                assert results[hotkeys[name]].runs == 2
        closed_without = "races.closed_without" in [event for _, event, _ in arena.log.records]
        assert closed_without == (left_out is not None)
        store.close()


def test_a_run_that_reaches_its_retry_budget_after_the_races_last_chance_still_gets_its_last_try(
    inputs: Any, tmp_path: Path
) -> None:
    """The race's last chance (its fault wait spent, the node's probe finding its upstream well) is given while one
    choker's run is held and the other's is still within its retry budget. That one reaches its budget afterwards,
    its failure not read as a last try: it is given its last try all the same, where its choking is its own (1006),
    and the race never closes without it (on the code before it did: the run left out of its miner's score, which
    then counted its other problem alone)."""
    with _choking_race(inputs, tmp_path, max_attempts=2, fault_wait=0.0) as (arena, race, early, late):
        _attempt(arena, early)
        _attempt(arena, early)  # past its retry budget: held
        _attempt(arena, late)  # within its budget: retried
        assert arena.close_races() == []  # the race waits for the fault
        assert arena.close_races() == []  # the wait spent, the probe finds the upstream well: the last chance
        assert "races.fault_unconfirmed" in [event for _, event, _ in arena.log.records]
        _attempt(arena, late)  # its budget spent after the last chance was given: held, not yet its last try
        _attempt(arena, early)  # its last try: the agent's
        assert arena.close_races() == []  # the late run is given its last try, the race not closed without it
        assert arena.store.run(late).status == "pending"
        _attempt(arena, late)  # its last try: the agent's
        assert arena.close_races() == [race]
        assert arena.store.run(late).attempt == 3


def test_a_run_whose_attempt_is_recorded_across_the_races_last_chance_still_gets_its_last_try(
    inputs: Any, tmp_path: Path
) -> None:
    """Both chokers' runs held and tried again within the fault wait; the late one's record reads that its attempt is
    no last try just before the close job gives the race its last chance, and lands just after (the dispatcher
    records on the event loop, the close job runs in a thread). That run is given its last try all the same, the
    race never closed without it (on the code before it was)."""
    with _choking_race(inputs, tmp_path, max_attempts=2, fault_wait=1.0, fault_retry=0.0) as (arena, race, *runs):
        early, late = runs
        for run_id in runs * 2:
            _attempt(arena, run_id)  # both past their retry budget: held
        assert arena.close_races() == []  # the race waits for the fault
        assert arena.close_races() == []  # within the wait: both tried again
        attempt = _claim(arena, late)
        reading = arena.dispatching.last_try(attempt)  # as its record reads it: no last chance yet
        _attempt(arena, early)  # the upstream's again: held
        time.sleep(1.0)
        assert arena.close_races() == []  # the wait spent, the probe finds the upstream well: the last chance
        assert "races.fault_unconfirmed" in [event for _, event, _ in arena.log.records]
        _record(arena, attempt, reading)  # lands after the chance: the upstream's, held
        _attempt(arena, early)  # its last try: the agent's
        assert arena.close_races() == []  # the late run is given its last try, the race not closed without it
        assert arena.store.run(late).status == "pending"
        _attempt(arena, late)  # its last try: the agent's
        assert arena.close_races() == [race]


def test_a_run_whose_last_try_fails_where_no_last_try_is_read_is_closed_without(inputs: Any, tmp_path: Path) -> None:
    """A held run whose every attempt fails on a path that never reads whether it is the last try (the miner's key
    server not answering, 2011: nobody's fault, retried; a sandbox fault raised) is given its last try once, and the
    race closes without it when that try fails too: a miner whose key server never answers cannot hold the race, and
    the weights, for ever (on the code before, the run was put back at every close tick)."""

    def unreachable(arena: Any, run_id: str) -> None:
        _claim(arena, run_id)
        arena.dispatching.fail(run_id, blame.PROVIDER_DOWN, "the miner's key server did not answer")

    with _choking_race(inputs, tmp_path, left_out="late", max_attempts=2, fault_wait=0.0) as (arena, race, *runs):
        early, late = runs
        for _ in range(2):
            _attempt(arena, early)
            unreachable(arena, late)  # both past their retry budget: held
        assert arena.close_races() == []  # the race waits for the fault
        assert arena.close_races() == []  # the wait spent, the probe finds the upstream well: the last chance
        assert arena.store.run(late).status == "pending"
        _attempt(arena, early)  # its last try: the agent's
        unreachable(arena, late)  # its last try, failed where no last try is read
        assert arena.close_races() == [race]
        assert arena.store.run(late).attempt == 3
