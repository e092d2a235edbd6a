"""The qualifying round on the node's code: a pack with `qualify_share`, real store, LocalChain, bubblewrap sandbox,
gateway, strict scoring and the offline judge. A new submission first races problems made fresh for its round; the
rotation's race waits until the submissions committed before it are decided, then races only those that passed; a
later submission that scores under the share of the leader's qualifying score never races; a qualifying round the
validator failed is void and run again, never a miner's exclusion."""

from __future__ import annotations

import shutil
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

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
from validator.races import Arena

pytestmark = pytest.mark.slow  # races in bubblewrap behind the gateway

SHARE, QUALIFY = 0.95, 4
#: an agent that answers without recommending anything: every strict check fails, final score 0
EMPTY_AGENT = 'def agent_main(problem):\n    return "I found nothing that fits."\n'


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    root = tmp_path_factory.mktemp("qualifying")
    inputs = build_arena_inputs(root, problems=40, per_race=2)
    # product problems only: the template solves nearly all, so the leader's score in a round is never 0
    update = {"qualify_share": SHARE, "qualify_problems": QUALIFY, "cadence_blocks": 10, "task_mix": {"product": 1.0}}
    return with_rotation(inputs, root / "qualifying.json", **update)


def make_node(tmp_path: Path, chain: Any, wallet: Any, inputs: tuple[Path, Path, str]) -> Arena:
    url = f"sqlite:///{tmp_path / 'node.sqlite'}"
    return start_node(url, chain, wallet, inputs, tmp_path / "node", max_attempts=2, retry_backoff=0.0)


def settle(arena: Arena) -> list[str]:
    """Dispatch, judge and close until no race (of either kind) is running; returns the races closed."""
    return drive(arena, lambda: not arena.store.races(status="running", kind=None))


def at(arena: Arena, block: int) -> int:
    """`block`, once the LocalChain has produced it (its hash seeds the race drawn there)."""
    while arena.chain.block() < block:
        time.sleep(0.1)
    return block


def submit(arena: Arena, tmp_path: Path, setup: Any, name: str, agent: str, block: int) -> Any:
    folder = tmp_path / "agents" / name
    if agent == "empty":
        folder.mkdir(parents=True)
        (folder / "agent.py").write_text(EMPTY_AGENT)
    else:
        write_agent(folder, agent)
    return place_submission(
        arena.store, arena.config.data_dir, setup.miners[name].hotkey.ss58_address, folder, block=block
    )


def store_final(store: Any, run: Any) -> float:
    """A run's final score as its race counts it (0 unless it finished)."""
    score = store.score(run.run_id)
    return float(score.final or 0.0) if run.status == "finished" and score is not None else 0.0


def test_qualifying_gates_the_race_by_a_share_of_the_leaders_qualifying_score(inputs, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["strong", "weak", "late"])
    arena = make_node(tmp_path, setup.chain, setup.validators[0], inputs)
    store = arena.store
    try:
        strong = submit(arena, tmp_path, setup, "strong", "offline", block=1)
        weak = submit(arena, tmp_path, setup, "weak", "empty", block=2)

        # the race of the slot waits while the submissions committed before it are qualifying
        assert arena.open_race(block=at(arena, 10)) is None
        qualifying = store.races(kind="qualifying")
        assert [r.status for r in qualifying] == ["running", "running"] and not store.races()
        assert {r.hotkey for r in store.runs()} == {strong.hotkey, weak.hotkey}
        # each round's problems were made fresh from the block after the commitment's: in no pack, none alike
        in_pack = {p.problem_id for p in arena.pack.problems}
        rounds = {r.race_id: r for r in qualifying}
        for sub in (strong, weak):
            race = rounds[arena.qualifying.race_id(sub.id, 1)]
            assert race.seed_block == sub.commitment_block + 1
            assert race.seed_hash == setup.chain.block_hash(race.seed_block)
            assert len(race.problem_ids) == QUALIFY and not set(race.problem_ids) & in_pack
            assert {r.problem_id for r in store.runs(race_id=race.race_id)} == set(race.problem_ids)
            assert {store.problem(pid).split for pid in race.problem_ids} == {"qualifying"}  # type: ignore[union-attr]
        assert not set(qualifying[0].problem_ids) & set(qualifying[1].problem_ids)

        settle(arena)
        first = {q.submission_id: q for q in store.qualifications()}
        # no race has closed: no leader, so every qualifying score passes (and is kept, with why)
        assert {first[strong.id].status, first[weak.id].status} == {"passed"}
        assert first[strong.id].score > 0.0 and first[weak.id].score == 0.0
        assert first[strong.id].leader_score is None and "no leader" in (first[strong.id].reason or "")

        race_id = arena.open_race(block=at(arena, 10))
        assert race_id is not None and store.race(race_id).kind == "race"  # type: ignore[union-attr]
        assert {r.hotkey for r in store.runs(race_id=race_id)} == {strong.hotkey, weak.hotkey}
        settle(arena)
        leader = store.leader()
        assert leader is not None and leader.hotkey == strong.hotkey

        # a later submission scoring under 0.95 x the leader's qualifying score does not race
        late = submit(arena, tmp_path, setup, "late", "empty", block=15)
        assert arena.open_race(block=at(arena, 20)) is None  # it is qualifying: the slot waits for the decision
        settle(arena)
        decided = store.qualification(late.id, arena.pack.pack_id)
        assert decided is not None and decided.status == "failed"
        assert decided.leader_hotkey == strong.hotkey
        # the leader ran the late submission's problems in the same round: the bar is its score there
        round_ = store.race(decided.race_id)
        assert round_ is not None and round_.plan == {"reference": strong.id}
        leader_runs = [r for r in store.runs(race_id=decided.race_id) if r.submission_id == strong.id]
        assert sorted(r.problem_id for r in leader_runs) == sorted(round_.problem_ids)
        finals = [store_final(store, r) for r in leader_runs]
        assert decided.leader_score is not None and decided.leader_score == pytest.approx(sum(finals) / len(finals))
        assert decided.score == 0.0 < SHARE * decided.leader_score
        next_race = arena.open_race(block=at(arena, 20))
        assert next_race is not None and next_race != race_id
        raced = {r.hotkey for r in store.runs(race_id=next_race)}
        assert late.hotkey not in raced and strong.hotkey in raced

        # the weights come from the races only: a qualifying round is never paid
        settle(arena)
        assert arena.weigh() is not None
        assert {ws.race_id for ws in store.weight_sets()} <= {r.race_id for r in store.races()}

        # the submissions page shows each qualification with its figures; race lists keep the kinds apart
        api = TestClient(create_app(store))
        items = {s["id"]: s for s in api.get("/api/submissions").json()["items"]}
        assert items[late.id]["qualifying"]["status"] == "failed"
        assert items[late.id]["qualifying"]["leader_score"] == pytest.approx(decided.leader_score)
        assert items[late.id]["qualifying"]["share"] == SHARE
        assert items[strong.id]["qualifying"]["status"] == "passed"
        kinds = {r["kind"] for r in api.get("/api/races").json()["items"]}
        assert kinds == {"race"}
        assert len(api.get("/api/races?kind=qualifying").json()["items"]) == 3
    finally:
        arena.stop()
        store.close()


def test_a_qualifying_round_the_validator_failed_is_void_and_run_again(inputs, tmp_path: Path) -> None:
    setup = make_chain(tmp_path, ["strong"])
    arena = make_node(tmp_path, setup.chain, setup.validators[0], inputs)
    arena.config.fault_wait = 0.0  # --races.fault_wait 0: a round the validator's fault holds is voided at once
    store = arena.store
    try:
        sub = submit(arena, tmp_path, setup, "strong", "offline", block=1)
        bundle = arena.config.data_dir / "bundles" / sub.sha256
        kept = tmp_path / "kept-bundle"
        shutil.move(bundle, kept)  # the node lost the bundle: every run fails on the validator's side
        assert arena.open_race(block=at(arena, 10)) is None
        settle(arena)
        void = store.qualification(sub.id, arena.pack.pack_id)
        assert void is not None and void.status == "void" and void.score is None
        assert [r.status for r in store.races(kind="qualifying")] == ["voided"]
        assert all(r.blame == "validator" for r in store.runs())
        assert arena.candidates() and not arena._eligible()  # not raced meanwhile, and not shut out either

        shutil.move(kept, bundle)
        assert arena.open_race(block=at(arena, 10)) is None  # qualifying again (attempt 2)
        again = store.qualification(sub.id, arena.pack.pack_id)
        assert again is not None and again.attempt == 2 and again.status == "running"
        settle(arena)
        assert store.qualification(sub.id, arena.pack.pack_id).status == "passed"  # type: ignore[union-attr]
        race_id = arena.open_race(block=at(arena, 10))
        assert race_id is not None
        assert {r.hotkey for r in store.runs(race_id=race_id)} == {sub.hotkey}
    finally:
        arena.stop()
        store.close()
