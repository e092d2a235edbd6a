"""The qualifying-lookup attacker on a running node: real PostgreSQL, LocalChain, bubblewrap sandbox, gateway, strict
scoring and the offline judge.

The attacker (`tests/support/lookup_agent.py`) is the offline template with the public split's answers baked in,
keyed by problem id and by query. `arena-miner test` on the public split shows the table is right (it answers every
public problem). Then the honest template leads a race, and the attacker qualifies: on problems made fresh for its
round, shown under per-race opaque ids, against the leader on the same problems. The test fails if the attacker's
qualifying score exceeds the template's on those problems by more than noise."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from arena.problems.alias import race_key, shown_id
from arena.problems.pack import write_pack
from tests.support.lookup_agent import answers_of, write_lookup_agent
from tests.support.postgres import fresh_database
from tests.support.race import (
    build_arena_inputs,
    drive,
    make_chain,
    place_submission,
    start_node,
    with_rotation,
    write_agent,
)
from validator.api import create_app

pytestmark = pytest.mark.slow  # races in bubblewrap behind the gateway, on PostgreSQL

QUALIFY = 6
#: noise, as a share of the template's score: the margin the qualifying share (0.95) itself grants. Both agents run
#: the template's code on every fresh problem (deterministic: same tools, same answers), so they tie; one problem
#: looked up of QUALIFY would lift the attacker by a quarter or more of the template's score
NOISE = 0.05


def beyond_noise(score: float, template: float) -> bool:
    return score > template * (1 + NOISE) + 1e-9


#: an agent that shows the test the problem id it was given: it searches for it, then answers nothing
ECHO_AGENT = (
    "def agent_main(problem):\n"
    "    import arena_agent\n"
    "    arena_agent.call_tool('find_product', q=str(problem.get('problem_id')))\n"
    "    return None\n"
)


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("lookup")
    # a public split large enough that the template misses some of it: there the lookup shows what it is worth
    made = build_arena_inputs(root, problems=40, per_race=2, splits={"public": 0.4, "race": 0.6})
    update = {"qualify_share": 0.95, "qualify_problems": QUALIFY, "cadence_blocks": 10}
    return with_rotation(made, root / "qualifying.json", **update)


@pytest.fixture
def database() -> Iterator[str]:
    with fresh_database() as url:
        yield url


def settle(arena: Any) -> list[str]:
    return drive(arena, lambda: not arena.store.races(status="running", kind=None))


def at(arena: Any, block: int) -> int:
    while arena.chain.block() < block:
        time.sleep(0.1)
    return block


def miner_test(agent: Path, problems: Path, catalog: Path, out: Path, n: int) -> dict[str, Any]:
    """`arena-miner test` of ``agent`` on ``problems`` (the public split), its scorecard."""
    out.mkdir(parents=True, exist_ok=True)
    done = subprocess.run(
        [sys.executable, "-m", "miner_template.cli", "test", str(agent), "--problems", str(problems)]
        + ["--catalog", str(catalog), "--n", str(n), "--out", str(out), "--json", str(out / "card.json")],
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "COLUMNS": "200"},
    )
    assert (out / "card.json").is_file(), done.stderr[-3000:]
    return dict(json.loads((out / "card.json").read_text()))


def place(arena: Any, setup: Any, name: str, folder: Path, block: int) -> Any:
    hotkey = setup.miners[name].hotkey.ss58_address
    return place_submission(arena.store, arena.config.data_dir, hotkey, folder, block=block)


def test_a_lookup_of_the_public_answers_earns_no_more_in_qualifying_than_the_template(
    inputs, database: str, tmp_path: Path
) -> None:
    setup = make_chain(tmp_path, ["template", "lookup", "echo"])
    arena = start_node(database, setup.chain, setup.validators[0], inputs, tmp_path / "node", max_attempts=2)
    store = arena.store
    try:
        public = [p for p in arena.pack.problems if p.split == "public"]
        lookup_dir = write_lookup_agent(tmp_path / "agents" / "lookup", public)
        assert len(answers_of(public)) == 2 * len(public) > 0

        # armed: on the public split (which `arena-miner test` keeps for practice, and qualifying once drew from)
        # the table answers every problem, and the lookup beats the template by far more than noise
        template_dir = write_agent(tmp_path / "agents" / "template", "offline")
        public_pack = write_pack(arena.pack.public_view(), tmp_path / "public.json")
        cards = {
            name: miner_test(folder, public_pack, inputs[0], tmp_path / "miner-test" / name, len(public))["problems"]
            for name, folder in (("lookup", lookup_dir), ("template", template_dir))
        }
        assert len(cards["lookup"]) == len(public) and all(row["success"] for row in cards["lookup"]), cards
        on_public = {name: sum(r["final"] or 0.0 for r in rows) / len(rows) for name, rows in cards.items()}
        print(f"\npublic split: lookup {on_public['lookup']:.4f}, template {on_public['template']:.4f}")
        assert beyond_noise(on_public["lookup"], on_public["template"]), on_public

        # the honest template qualifies (no leader yet) and leads the first race
        template = place(arena, setup, "template", template_dir, 1)
        assert arena.open_race(block=at(arena, 10)) is None
        settle(arena)
        race_id = arena.open_race(block=at(arena, 10))
        assert race_id is not None
        settle(arena)
        leader = store.leader()
        assert leader is not None and leader.submission_id == template.id

        # the attacker qualifies on fresh problems, against the leader on the same ones
        echo_dir = tmp_path / "agents" / "echo"
        echo_dir.mkdir(parents=True)
        (echo_dir / "agent.py").write_text(ECHO_AGENT)
        lookup = place(arena, setup, "lookup", lookup_dir, 12)
        echo = place(arena, setup, "echo", echo_dir, 12)
        assert arena.open_race(block=at(arena, 20)) is None  # the slot waits for their decisions
        settle(arena)
        decided = store.qualification(lookup.id, arena.pack.pack_id)
        assert decided is not None and decided.status in {"passed", "failed"}, decided
        round_ = store.race(decided.race_id)
        assert round_ is not None and len(round_.problem_ids) == QUALIFY
        known = set(answers_of(public))
        fresh = [store.problem(pid) for pid in round_.problem_ids]
        assert not {p.problem_id for p in fresh if p} & known and not {p.data["query"] for p in fresh if p} & known
        print(f"\nqualifying: lookup {decided.score:.4f}, template (leader) {decided.leader_score:.4f}")
        assert decided.leader_hotkey == template.hotkey and decided.score is not None
        assert decided.leader_score is not None
        assert not beyond_noise(decided.score, decided.leader_score), (decided.score, decided.leader_score)

        # the agent was shown an opaque id, new in this race; the run page maps it back to the stable one
        echo_qualification = store.qualification(echo.id, arena.pack.pack_id)
        assert echo_qualification is not None
        echo_round = store.race(echo_qualification.race_id)
        assert echo_round is not None and echo_round.seed_hash == round_.seed_hash  # same block: same problems
        api = TestClient(create_app(store))
        for run in store.runs(race_id=echo_round.race_id):
            if run.submission_id != echo.id:
                continue
            shown = shown_id(race_key(echo_round.race_id, echo_round.seed_hash), run.problem_id)
            asked = [e for e in store.events(run.run_id) if e.kind == "tool_call" and e.name == "find_product"]
            assert [e.arguments.get("q") for e in asked] == [shown] and shown != run.problem_id
            page = api.get(f"/api/runs/{run.run_id}").json()
            assert page["problem"]["problem_id"] == run.problem_id and page["problem"]["shown_id"] == shown
        # the same problem in the attacker's round was shown under another id
        other = shown_id(race_key(round_.race_id, round_.seed_hash), round_.problem_ids[0])
        assert other != shown_id(race_key(echo_round.race_id, echo_round.seed_hash), round_.problem_ids[0])
    finally:
        arena.stop()
        store.close()


def test_two_validators_qualify_a_submission_on_the_same_fresh_problems(inputs, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["newcomer"], validators=2)
    agent = write_agent(tmp_path / "agents" / "newcomer", "offline")
    rounds = []
    with fresh_database() as first, fresh_database() as second:
        for i, url in enumerate((first, second)):
            node = start_node(url, setup.chain, setup.validators[i], inputs, tmp_path / f"node{i}")
            try:
                sub = place(node, setup, "newcomer", agent, 3)
                assert node.qualifying.start(at(node, 5)) == 1
                race = node.store.race(node.qualifying.race_id(sub.id, 1))
                assert race is not None and race.seed_block == 4
                rounds.append((race.seed_hash, [node.store.problem(pid).data for pid in race.problem_ids]))  # type: ignore[union-attr]
            finally:
                node.stop()
                node.store.close()
    assert rounds[0] == rounds[1] and len(rounds[0][1]) == QUALIFY
