"""The nine kinds of copies of the offline template, and the copies that hide its code from a check reading only
``*.py`` files (`tests/support/hidden_copies.py`), as hostile miners in one race on a node (LocalChain, bubblewrap,
the fork rule on, as every node runs it): the honest miner races the template, committed first; each copy, committed
later, races too and earns nothing more than the honest template (nothing at all: none beats it beyond noise). The
template behind padding past the reading budget never gets that far: it is refused when packed or verified."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from sandbox.bundle import BundleError, pack_dir
from tests.support.copy_variants import VARIANTS, write_variants
from tests.support.hidden_copies import write_hidden
from tests.support.race import build_arena_inputs, make_chain, open_store, place_submission, run_race, start_node
from validator.submissions.similarity import TEMPLATES


@pytest.mark.slow  # a race of thirteen miners in bubblewrap
def test_no_copy_of_the_template_earns_more_than_the_honest_template_in_a_race(tmp_path: Path) -> None:
    inputs = build_arena_inputs(tmp_path / "arena", size=2000, problems=12, per_race=2)
    hidden = write_hidden(tmp_path / "hidden")
    with pytest.raises(BundleError, match="what the copy check reads of a bundle"):
        pack_dir(hidden.pop("behind_padding"))
    names = ["honest", *VARIANTS, *hidden]
    setup = make_chain(tmp_path, names)
    data_dir = tmp_path / "node"
    arena = start_node(
        f"sqlite:///{tmp_path / 'node.sqlite'}", setup.chain, setup.validators[0], inputs, data_dir, fork_rule=True
    )
    store = arena.store
    folders = {"honest": TEMPLATES["template:offline"], **write_variants(tmp_path / "variants"), **hidden}
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
    for kind in names[1:]:
        assert weight[kind] <= weight["honest"], (kind, weight)
        verdict = verdicts[hotkeys[kind]]
        assert verdict.copy and weight[kind] == 0.0, (kind, verdict.reason)
        assert verdict.copy_of in set(hotkeys.values()) and verdict.similarity >= 0.8
    assert verdicts[hotkeys["base64_data"]].kind == "behaviour"  # no code evidence: its code is never read
    arena.stop()
    store.close()


@pytest.mark.slow  # a race of two miners in bubblewrap
def test_an_honest_update_is_not_zeroed_in_favour_of_a_copy_of_its_first_version(tmp_path: Path) -> None:
    """The updater commits the template (block 10); the copier commits a copy of it (block 20); the updater then
    commits v2, still similar to v1 (block 30). The node orders by the block each has stood for its agent since:
    the copier is the copy, the updater earns."""
    inputs = build_arena_inputs(tmp_path / "arena", size=2000, problems=12, per_race=2)
    setup = make_chain(tmp_path, ["updater", "copier"])
    data_dir = tmp_path / "node"
    arena = start_node(
        f"sqlite:///{tmp_path / 'node.sqlite'}", setup.chain, setup.validators[0], inputs, data_dir, fork_rule=True
    )
    store = arena.store
    variants = write_variants(tmp_path / "variants")
    updater, copier = (setup.miners[n].hotkey.ss58_address for n in ("updater", "copier"))
    place_submission(store, data_dir, updater, TEMPLATES["template:offline"], block=10)
    place_submission(store, data_dir, copier, variants["local_renamed"], block=20)
    place_submission(store, data_dir, updater, variants["dead_code"], block=30)
    run_race(arena, store)

    race = next(r for r in store.races() if r.status == "closed" and r.kind == "race")
    verdicts = {v.hotkey: v for v in store.copy_verdicts(race_id=race.race_id)}
    assert updater not in verdicts and verdicts[copier].copy and verdicts[copier].copy_of == updater
    uids = {n.hotkey: n.uid for n in setup.chain.metagraph().neurons}
    (ws,) = [w for w in store.weight_sets() if w.race_id == race.race_id]
    assert float(ws.vector.get(str(uids[updater]), 0.0)) > 0
    assert float(ws.vector.get(str(uids[copier]), 0.0)) == 0.0
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
