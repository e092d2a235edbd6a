"""The nine kinds of copies of the offline template as hostile miners in one race on a node (LocalChain, bubblewrap,
the fork rule on, as every node runs it): the honest miner races the template, committed first; each copy, committed
later, races too and earns nothing more than the honest template (nothing at all: none beats it beyond noise)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.copy_variants import VARIANTS, write_variants
from tests.support.race import build_arena_inputs, make_chain, open_store, place_submission, run_race, start_node
from validator.submissions.similarity import TEMPLATES


@pytest.mark.slow  # a race of ten miners in bubblewrap
def test_no_copy_of_the_template_earns_more_than_the_honest_template_in_a_race(tmp_path: Path) -> None:
    inputs = build_arena_inputs(tmp_path / "arena", size=2000, problems=12, per_race=2)
    names = ["honest", *VARIANTS]
    setup = make_chain(tmp_path, names)
    data_dir = tmp_path / "node"
    arena = start_node(
        f"sqlite:///{tmp_path / 'node.sqlite'}", setup.chain, setup.validators[0], inputs, data_dir, fork_rule=True
    )
    store = arena.store
    folders = {"honest": TEMPLATES["template:offline"], **write_variants(tmp_path / "variants")}
    hotkeys = {name: setup.miners[name].hotkey.ss58_address for name in names}
    for block, name in enumerate(names, start=10):
        place_submission(store, data_dir, hotkeys[name], folders[name], block=block)
    run_race(arena, store)

    race = next(r for r in store.races() if r.status == "closed" and r.kind == "race")
    raced = {r.hotkey for r in store.race_results(race.race_id)}
    assert raced == set(hotkeys.values())  # every copy raced: the fork rule weighs them, nothing stops them earlier
    verdicts = {v.hotkey: v for v in store.copy_verdicts(race_id=race.race_id)}
    uids = {n.hotkey: n.uid for n in setup.chain.metagraph().neurons}
    (ws,) = [w for w in store.weight_sets() if w.race_id == race.race_id]
    weight = {name: float(ws.vector.get(str(uids[hotkeys[name]]), 0.0)) for name in names}
    assert weight["honest"] > 0 and hotkeys["honest"] not in verdicts
    for kind in VARIANTS:
        assert weight[kind] <= weight["honest"], (kind, weight)
        verdict = verdicts[hotkeys[kind]]
        assert verdict.copy and weight[kind] == 0.0, (kind, verdict.reason)
        assert verdict.copy_of in set(hotkeys.values()) and verdict.similarity >= 0.8
    arena.stop()
    store.close()


def test_submissions_show_of_an_unknown_miner_is_one_clear_line(tmp_path: Path) -> None:
    url = f"sqlite:///{tmp_path / 'node.sqlite'}"
    open_store(url).close()
    cli = [sys.executable, "-m", "validator.cli", "submissions", "show", "5Nobody", "--database-url", url]
    done = subprocess.run(cli, capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "Traceback" not in done.stderr
    lines = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    assert len(lines) == 1 and "no submission '5Nobody' in the store" in lines[0], lines
