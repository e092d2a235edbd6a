"""`arena-validator demo`, the README's main command: one whole race on SQLite in the bubblewrap sandbox, miners
publishing through a LocalChain, a copy rejected, two validators pooling their results, weights set on chain, the
audit's verdict."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from arena import tasks
from validator.chain.local import LocalChain
from validator.store.repository import Store

pytestmark = pytest.mark.slow  # the demo: a whole race in bubblewrap

EXE = str(Path(sys.executable).parent / "arena-validator")


def test_demo_races_the_miners_rejects_the_copy_and_sets_weights(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    done = subprocess.run(
        [EXE, "demo", "--dir", str(root), "--size", "5000", "--problems", "30", "--per-race", "5"],
        capture_output=True,
        text=True,
        timeout=900,
        cwd=tmp_path,
        env={**os.environ, "COLUMNS": "160"},
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    text = done.stdout
    for name in ("offline", "offline-lite", "offline-deep", "hostile", "sn15"):
        assert f" {name} " in text, name
    assert "copy: copycat" in text and "the same normalized source" in text
    assert "on chain: set at block" in text
    # ties, and how they were broken, are printed with the weights (the offline agents may well tie)
    assert "tie at score" in text or "no ties: every ranked miner has its own score" in text
    assert (root / ".shoparena-demo").is_file()  # the marker that lets the next demo replace this folder
    # the race pool was sealed (drand timelock, round 1000 shown by the local chain from slot 0's block), raced at
    # its slot, published after close; the shadow policy's vector is printed beside the live one
    assert "each sealed with drand timelock encryption (round 1000)" in text
    assert "published: the race closed" in text and "shadow weights (sn15_top_half" in text
    assert "INFO httpx" not in done.stdout + done.stderr
    # a line per race stage on stdout; the nodes' log lines in demo.log, not on the terminal
    assert "opening: validator opened race" in text and "weights: validator2: set" in text
    assert re.search(r"race: runs dispatched (\d+)/\1, scoring \1/\1, judging \1/\1", text)
    assert "[info" not in done.stderr and "races.closed" in (root / "demo.log").read_text()
    assert "Traceback" not in done.stdout + done.stderr  # the node stops its jobs quietly

    store = Store.open(f"sqlite:///{root / 'validator' / 'validator.sqlite'}")
    race = [r for r in store.races() if r.status == "closed"][0]
    drawn = {pid: tasks.parse_problem(store.problem(pid).data) for pid in race.problem_ids}  # type: ignore[union-attr]
    assert race.seed_hash == "drand:1000" and all(p.gold_ids for p in drawn.values())
    # the pack mixes ShoppingBench's task types with shopping sessions, and the race drew both by its task mix
    assert "session" in {p.task for p in drawn.values()} and len({p.task for p in drawn.values()}) > 1
    assert store.weight_sets()[0].shadow_policy == "sn15_top_half"
    results = store.race_results(race.race_id)
    assert len(results) == 5  # the copy does not race
    assert {s.status for s in store.all_submissions()} == {"accepted", "copy"}
    runs = store.runs(race_id=race.race_id)
    assert len(runs) == 5 * 5 and {(r.status, r.error_code) for r in runs} <= {("finished", None), ("errored", 1006)}
    # the hostile agent never answers (1006); a template agent may end a session without the shopper's agreement, and
    # then commits nothing (1006 too: its own zero); every other run is scored
    errored = [r for r in runs if r.status == "errored"]
    assert len({r.hotkey for r in errored if drawn[r.problem_id].task != "session"}) == 1
    # a session run is scored by its family: the session check and its weighted rubric, the shopper's replies logged
    talks = [r for r in runs if drawn[r.problem_id].task == "session" and r.status == "finished"]
    assert talks and all(store.score(r.run_id).strict["task"] == "session" for r in talks)  # type: ignore[union-attr]
    assert any(e.name in ("ask_user", "respond") for r in talks for e in store.events(r.run_id))
    hostile = [r for r in results if r.score == 0.0]
    assert hostile and results[0].score > 0
    chain = LocalChain(root / "chain.sqlite")
    vector = {int(k): v for k, v in store.weight_sets()[0].vector.items()}
    assert set(chain.weights()[0]) == set(vector)
    # the SN15-format miner ran unchanged: its model through /inference/, its answer handed over from its steps
    sn15 = sorted((root / "trajectories" / "sn15").glob("*.jsonl"))
    assert len(sn15) == 5
    for path in sn15:
        events = [json.loads(line) for line in path.read_text().splitlines()]
        assert any(e["kind"] == "llm_call" and e["status"] == 200 for e in events), path
        assert [e["name"] for e in events[-2:]] == ["returned_steps", "recommend_product"], path
    trajectories = list((root / "trajectories").rglob("*.jsonl"))
    assert len(trajectories) == len(runs)
    # each accepted submission first raced problems made fresh for its round (no leader yet: every score passes)
    qualified = store.qualifications(race.pack_id)
    assert {q.submission_id for q in qualified} == {s.id for s in store.all_submissions() if s.status == "accepted"}
    assert all(q.status == "passed" and q.score is not None for q in qualified)
    assert text.count("qualifying: ") == len(qualified) and "no leader yet" in text
    fresh = {p.problem_id for p in store.problems(race.pack_id, split="qualifying")}
    assert all(set(r.problem_ids) <= fresh and len(r.problem_ids) == 3 for r in store.races(kind="qualifying"))
    # a second validator raced the same slot; each published its results bundle, verified the other's and pooled
    # both: the two set the same vector, and the audit (chain, pack and bundles only) finds both match the evidence
    assert "both validators set the same weight vector from the pooled runs" in text
    other = Store.open(f"sqlite:///{root / 'validator2' / 'validator.sqlite'}")
    for node in (store, other):
        pool = node.race_pool(race.race_id)
        assert pool is not None and pool.status == "pooled"
        assert [v["status"] for v in pool.state["validators"].values()] == ["verified", "verified"]
    assert other.weight_sets()[0].vector == store.weight_sets()[0].vector
    # the fork rule reached the same verdicts on both from the pooled evidence: the template's lighter and deeper
    # variants are close to it (code), and each earns only if it beat the template beyond noise
    verdicts = [
        sorted((v.hotkey, v.copy_of, v.kind, v.similarity, v.copy) for v in node.copy_verdicts(race_id=race.race_id))
        for node in (store, other)
    ]
    assert verdicts[0] == verdicts[1] and len(verdicts[0]) >= 2
    paid = {int(k) for k, w in store.weight_sets()[0].vector.items() if w > 0}
    uid_of = {r.hotkey: r.uid for r in results}
    assert all(uid_of[h] not in paid for h, _, _, _, copy in verdicts[0] if copy)
    assert "copy: offline-lite is close to offline" in text or "fork: offline-lite is close to offline" in text
    audit = json.loads((root / "audit.json").read_text())
    assert len(audit) == 2 and all(row["matches"] for row in audit)
    assert "audit: validator: its weights match" in text and "audit: validator2: its weights match" in text
    other.close()
    store.close()
