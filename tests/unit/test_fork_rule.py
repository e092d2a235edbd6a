"""The fork rule: a later agent similar to an earlier one (by code or by behaviour; the templates count as earlier)
earns only if it beats the earlier one beyond noise, else it is a copy and earns nothing while the earlier keeps its
rank. Each of the nine kinds of copies of the offline template is a hostile agent here: it must not earn more than
the honest template it copies, judged from real bundles' fingerprints and the same tool calls."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from arena.copies.behaviour import behaviour_of, compare_behaviour
from arena.copies.fork import Similar, fork_verdicts, without_copies
from arena.weights import MinerResult, compute_weights, parse_policy
from tests.support.copy_variants import VARIANTS, write_variants
from validator.pool.copies import find_copies
from validator.submissions.similarity import TEMPLATES, held_dates

POLICY = parse_policy("top_heavy")


def result(hotkey: str, score: float, block: int, low: float | None = None, high: float | None = None) -> MinerResult:
    if low is None:
        low, high = max(0.0, score - 0.1), min(1.0, score + 0.1)
    return MinerResult(hotkey=hotkey, score=score, commitment_block=block, low=low, high=high)


def call(name: str, **arguments: object) -> dict[str, object]:
    return {"kind": "tool_call", "name": name, "arguments": arguments}


def honest_calls(problem: str) -> tuple[str, ...]:
    return behaviour_of(
        [
            call("find_product", q=f"shoes for {problem}"),
            {"kind": "llm_call", "name": "chat", "arguments": {"messages": ["my own words"]}},
            call("view_product_information", product_ids=["p1"]),
            call("recommend_product", product_ids=[f"p-{problem}"]),
        ]
    )


def test_the_same_tool_calls_and_answers_on_every_problem_is_a_behaviour_copy() -> None:
    problems = {p: [honest_calls(p)] for p in ("a", "b", "c")}
    match = compare_behaviour(problems, {p: [calls] for p, [calls] in problems.items()})
    assert match.copy_ and match.similarity == 1.0 and match.matching == ("a", "b", "c")
    other_answer = {
        p: [honest_calls(p)[:-1] + behaviour_of([call("recommend_product", product_ids=["x"])])] for p in problems
    }
    assert compare_behaviour(problems, other_answer).similarity == 0.0
    # two agents that make no tool call (both crash) are not copies of each other
    assert not compare_behaviour({"a": [()], "b": [()]}, {"a": [()], "b": [()]}).copy_
    # one problem is too little to call anything a copy
    assert not compare_behaviour({"a": [honest_calls("a")]}, {"a": [honest_calls("a")]}).copy_


def test_a_sampled_agent_copied_is_found_within_its_own_spread_and_a_different_one_is_not() -> None:
    def sampled(problem: str, i: int, *, mine: bool = True) -> tuple[str, ...]:
        words = ["cheap", "red", "large", "quiet"] if mine else ["gift", "blue", "tiny", "loud"]
        return behaviour_of(
            [
                call("find_product", q=f"{words[i % 4]} {problem}"),
                call("find_product", q=f"{problem} shoes"),
                call("recommend_product", product_ids=[f"p-{problem}"] if mine else [f"q-{problem}-{i}"]),
            ]
        )

    original = {p: [sampled(p, i) for i in range(4)] for p in "abc"}
    copied = {p: [sampled(p, i + 1) for i in range(4)] for p in "abc"}  # its own draws of the same agent
    other = {p: [sampled(p, i, mine=False) for i in range(4)] for p in "abc"}
    assert compare_behaviour(original, copied).copy_
    assert not compare_behaviour(original, other).copy_


def test_a_similar_later_agent_earns_only_by_beating_the_earlier_beyond_noise() -> None:
    results = [result("first", 0.50, 10), result("copier", 0.55, 20), result("fork", 0.75, 30), result("own", 0.4, 5)]
    evidence = [
        Similar(a="first", b="copier", kind="code", similarity=0.97),
        Similar(a="fork", b="first", kind="behaviour", similarity=1.0, problems=("p1", "p2")),
    ]
    verdicts = {v.hotkey: v for v in fork_verdicts(results, evidence)}
    assert set(verdicts) == {"copier", "fork"}
    assert verdicts["copier"].copy_ and verdicts["copier"].copy_of == "first"
    assert "copy of first: code similarity 0.970" in verdicts["copier"].reason
    assert not verdicts["fork"].copy_ and verdicts["fork"].problems == ("p1", "p2")  # 0.75 > 0.60: beyond noise
    kept = without_copies(results, list(verdicts.values()))
    assert [r.hotkey for r in kept] == ["first", "fork", "own"]
    weights = compute_weights(kept, {"first": 1, "copier": 2, "fork": 3, "own": 4}, POLICY)
    assert 2 not in weights and weights[3] > weights[1] > 0  # the earlier keeps its rank behind the real fork


def test_the_templates_count_as_earlier_ones() -> None:
    """Two miners close to a template: the earliest stands for the template, the later must beat it."""
    results = [result("a", 0.5, 10), result("b", 0.52, 20), result("c", 0.9, 30, 0.85, 0.95)]
    evidence = [
        Similar(a="template:offline", b=h, kind="code", similarity=s) for h, s in (("b", 0.96), ("a", 0.99), ("c", 0.9))
    ]
    verdicts = {v.hotkey: v for v in fork_verdicts(results, evidence)}
    assert set(verdicts) == {"b", "c"} and verdicts["b"].via == "template:offline"
    assert verdicts["b"].copy_of == "a" and verdicts["b"].copy_ and not verdicts["c"].copy_
    assert "both close to template:offline" in verdicts["b"].reason


@pytest.fixture(scope="module")
def variants(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return write_variants(tmp_path_factory.mktemp("variants"))


@pytest.mark.parametrize("kind", list(VARIANTS))
def test_no_copy_of_the_template_earns_more_than_the_honest_template(kind: str, variants: dict[str, Path]) -> None:
    """The honest miner races the offline template; the hostile one races a copy of it (each kind), committed
    later, with the same tool calls and answers (a copy of a deterministic agent) and a score a hair above within
    noise. It earns nothing; the honest one keeps rank 1."""
    folders = {"honest-sha": variants["identical"], "copy-sha": variants[kind]}
    runs = [
        {"miner": miner, "submission": sha, "problem_id": p, "behaviour": honest_calls(p)}
        for miner, sha in (("honest", "honest-sha"), ("hostile", "copy-sha"))
        for p in ("p1", "p2", "p3")
    ]
    results = [result("honest", 0.50, 10), result("hostile", 0.56, 11)]
    kept, verdicts = find_copies(results, runs, folders.get)
    (verdict,) = verdicts
    assert verdict.copy_ and verdict.copy_of == "honest" and verdict.hotkey == "hostile"
    weights = compute_weights(kept, {"honest": 1, "hostile": 2}, POLICY)
    assert weights.get(2, 0.0) <= weights[1]
    assert weights.get(2, 0.0) == 0.0


def test_an_honest_update_keeps_its_place_ahead_of_a_copy_of_its_first_version(
    variants: dict[str, Path], tmp_path: Path
) -> None:
    """Miner A commits v1 (block 10); B copies v1 and commits it (block 20); A then commits v2, still similar to v1
    (block 30). Ordered by the latest commitment B would be the earlier and A a copy earning nothing; ordered pair by
    pair by the block since which each has held the code the two share, A is the earlier (v1 holds it), B the copy."""
    v1, copied, v2 = variants["identical"], variants["local_renamed"], variants["dead_code"]
    folders = {"a-v2": v2, "b-v1": copied}
    runs = [
        {"miner": miner, "submission": sha, "problem_id": p, "behaviour": honest_calls(p)}
        for miner, sha in (("updater", "a-v2"), ("copier", "b-v1"))
        for p in ("p1", "p2", "p3")
    ]
    results = [result("updater", 0.50, 30), result("copier", 0.56, 20)]
    _, by_latest = find_copies(results, runs, folders.get)
    assert [(v.hotkey, v.copy_) for v in by_latest] == [("updater", True)]  # what ordering by the latest did
    unlike = tmp_path / "llm"  # a copy: a stored bundle's fingerprint is cached beside its folder
    shutil.copytree(TEMPLATES["template:llm"], unlike, ignore=shutil.ignore_patterns("__pycache__"))
    history = {"updater": [(30, v2), (5, unlike), (10, v1)], "copier": [(20, copied)]}
    dates = held_dates({"updater": v2, "copier": copied}, history)
    assert dates["updater"]["copier"] == 10 and dates["copier"]["updater"] == 20
    assert dates["updater"]["template:offline"] == 10  # the unlike old agent (block 5) dates nothing
    kept, verdicts = find_copies(results, runs, folders.get, dates=dates)
    (verdict,) = verdicts
    assert verdict.hotkey == "copier" and verdict.copy_of == "updater" and verdict.copy_
    weights = compute_weights(kept, {"updater": 1, "copier": 2}, POLICY)
    assert weights[1] > 0 and weights.get(2, 0.0) == 0.0


def test_a_copy_by_behaviour_alone_earns_nothing(variants: dict[str, Path], tmp_path: Path) -> None:
    """Other code (the LLM template's) that makes exactly the template's calls is a copy by behaviour."""
    other = tmp_path / "llm"
    shutil.copytree(TEMPLATES["template:llm"], other, ignore=shutil.ignore_patterns("__pycache__"))
    folders = {"honest-sha": variants["identical"], "other-sha": other}
    runs = [
        {"miner": miner, "submission": sha, "problem_id": p, "behaviour": list(honest_calls(p))}
        for miner, sha in (("honest", "honest-sha"), ("mimic", "other-sha"))
        for p in ("p1", "p2", "p3")
    ]
    kept, verdicts = find_copies([result("honest", 0.5, 10), result("mimic", 0.5, 12)], runs, folders.get)
    (verdict,) = verdicts
    assert verdict.copy_ and verdict.kind == "behaviour" and verdict.problems == ("p1", "p2", "p3")
    assert [r.hotkey for r in kept] == ["honest"]


def test_validators_given_the_same_evidence_in_any_order_reach_the_same_verdicts() -> None:
    """Pooled validators read the same standings and evidence, each in its own order: one verdict for all."""
    import random

    results = [result(f"m{i}", 0.3 + 0.05 * (i % 4), 10 + i) for i in range(8)]
    evidence = [
        Similar(a="template:offline", b="m1", kind="code", similarity=0.95),
        Similar(a="template:offline", b="m5", kind="code", similarity=0.91),
        Similar(a="m2", b="m6", kind="behaviour", similarity=1.0, problems=("p1", "p2")),
        Similar(a="m2", b="m6", kind="code", similarity=0.88),
        Similar(a="m3", b="m7", kind="code", similarity=0.99),
        Similar(a="m7", b="m3", kind="behaviour", similarity=0.99, problems=("p3",)),  # a tie: one is kept, always
    ]
    first = fork_verdicts(results, evidence)
    rng = random.Random(3)
    for _ in range(20):
        shuffled_results, shuffled_evidence = results[:], evidence[:]
        rng.shuffle(shuffled_results)
        rng.shuffle(shuffled_evidence)
        assert fork_verdicts(shuffled_results, shuffled_evidence) == first
    assert {v.hotkey for v in first} == {"m5", "m6", "m7"}


def _pooled_runs(validators: list[str], agents: dict[str, str], problems: tuple[str, ...]) -> list[Any]:
    from arena.pooling import PooledRun

    return [
        PooledRun(
            validator=v,
            miner=miner,
            submission=sha,
            problem_id=p,
            attempt=0,
            score=0.5,
            success=0.5,
            behaviour=honest_calls(p),
        )
        for v in validators
        for miner, sha in agents.items()
        for p in problems
    ]


def test_a_pooled_race_orders_an_honest_update_ahead_of_a_copy_of_its_first_version(variants: dict[str, Path]) -> None:
    """The same story pooled: each validator's results bundle says pair by pair since which block it holds each
    miner has held the code it shares with the other (`ResultsBundle.dates`). Validator a saw the updater's first
    version (block 10), validator b joined later and holds only its update; the stake-weighted lower median of what
    they say orders the updater first, and both validators (each reading the pooled runs in its own order) and the
    audit reach the same verdict: the copier is the copy."""
    import random

    from validator.pool.copies import pooled_dates

    folders = {"a-v2": variants["dead_code"], "b-v1": variants["local_renamed"]}
    said = {
        "validator-a": {"updater": {"copier": 10}, "copier": {"updater": 20}},
        "validator-b": {"updater": {"copier": 30}, "copier": {"updater": 20}},
    }
    runs = _pooled_runs(["validator-a", "validator-b"], {"updater": "a-v2", "copier": "b-v1"}, ("p1", "p2", "p3"))
    dates = pooled_dates(runs, said, {"validator-a": 100.0, "validator-b": 100.0})
    assert dates == {"updater": {"copier": 10}, "copier": {"updater": 20}}
    results = [result("updater", 0.50, 30), result("copier", 0.56, 20)]
    seen = []
    for seed in range(4):
        shuffled = runs[:]
        random.Random(seed).shuffle(shuffled)
        kept, verdicts = find_copies(results, shuffled, folders.get, dates=pooled_dates(shuffled, said, None))
        seen.append(verdicts)
        (verdict,) = verdicts
        assert verdict.hotkey == "copier" and verdict.copy_of == "updater" and verdict.copy_
        weights = compute_weights(kept, {"updater": 1, "copier": 2}, POLICY)
        assert weights[1] > 0 and weights.get(2, 0.0) == 0.0
    assert all(v == seen[0] for v in seen)
    # without what the bundles say (version 1 bundles), the latest commitment orders them: the update is zeroed
    assert [(v.hotkey, v.copy_) for v in find_copies(results, runs, folders.get, dates={})[1]] == [("updater", True)]


def test_a_lying_validator_below_half_the_stake_moves_no_date_and_none_dates_before_registration() -> None:
    """A validator claiming its favoured miner has held the other's code since block 0: with less than half the
    stake the honest validator's dates stand; with exactly half (two validators of equal stake, where the lower of
    the two is taken) the claim is floored at the miner's registration block, later than the honest author's date."""
    from validator.pool.copies import pooled_dates

    runs = _pooled_runs(["honest", "liar"], {"author": "a", "thief": "t"}, ("p1", "p2"))
    said = {"honest": {"author": {"thief": 30}, "thief": {"author": 60}}, "liar": {"thief": {"author": 0}}}
    assert pooled_dates(runs, said, {"honest": 100.0, "liar": 50.0}) == {
        "author": {"thief": 30},
        "thief": {"author": 60},
    }
    # the lower median the rule had: the liar alone set the thief's date, before the author's
    assert pooled_dates(runs, said, {"honest": 100.0, "liar": 100.0})["thief"]["author"] == 0
    floored = pooled_dates(runs, said, {"honest": 100.0, "liar": 100.0}, {"thief": 45, "author": 0})
    assert floored == {"author": {"thief": 30}, "thief": {"author": 45}}
    results = [result("author", 0.5, 30), result("thief", 0.52, 60)]
    folders: dict[str, Path] = {}
    for dates, expected in ((floored, "thief"), ({"thief": {"author": 0}}, "author")):
        (verdict,) = find_copies(
            results,
            [
                {"miner": r.miner, "submission": r.submission, "problem_id": r.problem_id, "behaviour": r.behaviour}
                for r in runs
            ],
            folders.get,
            dates=dates,
        )[1]
        assert verdict.hotkey == expected and verdict.copy_


def test_a_thief_served_only_to_a_small_colluding_validator_is_dated_by_its_commitment() -> None:
    """The thief serves its agent to a colluding validator of stake 1 only; two honest validators of stake 50 each
    run the author, never the thief. The liar says the thief has held the author's code since block 0. The median is
    weighed over the whole pool's stake (a validator that did not run the thief says no block: late), so the liar's
    1 of 101 dates nothing: the thief is dated by its commitment block, after the author, and is the copy; every
    validator reads the same dates whatever order the runs come in."""
    import random

    from validator.pool.copies import pooled_dates

    honest = _pooled_runs(["honest-1", "honest-2"], {"author": "a"}, ("p1", "p2"))
    colluding = _pooled_runs(["liar"], {"author": "a", "thief": "t"}, ("p1", "p2"))
    runs = honest + colluding
    said = {
        "honest-1": {"author": {"thief": 30}},
        "honest-2": {"author": {"thief": 30}},
        "liar": {"thief": {"author": 0}, "author": {"thief": 90}},
    }
    stakes = {"honest-1": 50.0, "honest-2": 50.0, "liar": 1.0}
    dates = pooled_dates(runs, said, stakes, {"author": 0, "thief": 0})
    assert dates == {"author": {"thief": 30}}
    for seed in range(3):
        shuffled = runs[:]
        random.Random(seed).shuffle(shuffled)
        assert pooled_dates(shuffled, said, stakes, {"author": 0, "thief": 0}) == dates
    results = [result("author", 0.5, 30), result("thief", 0.52, 60)]
    kept, verdicts = find_copies(results, runs, {}.get, dates=dates)
    assert [(v.hotkey, v.copy_of, v.copy_) for v in verdicts] == [("thief", "author", True)]
    weights = compute_weights(kept, {"author": 1, "thief": 2}, POLICY)
    assert weights[1] > 0 and weights.get(2, 0.0) == 0.0
    # with half the pool's stake behind it, a date moves (at an exact half the earlier block, as before)
    assert pooled_dates(runs, said, {"honest-1": 50.0, "honest-2": 0.0, "liar": 50.0})["thief"] == {"author": 0}


def test_two_validators_holding_different_histories_order_a_pooled_race_alike(
    variants: dict[str, Path], tmp_path: Path
) -> None:
    """Two nodes' stores: validator a synced the updater's first version (block 10), the copy of it (20) and the
    update (30); validator b joined later and holds the copy and the update only. What each says in its results bundle
    (`held_dates`, from its own store) differs; the pooled order (`pooled_dates`) is the same for both, and both judge
    the copier the copy and leave the updater its weight."""
    import functools
    import random

    from tests.support.race import open_store, place_submission
    from validator.pool.copies import pooled_dates
    from validator.races.copying import held_dates as store_dates
    from validator.submissions.bundles import bundle_path

    v1, copied, v2 = variants["identical"], variants["local_renamed"], variants["dead_code"]
    said, subs = {}, {}
    for name, history in (
        ("a", [("updater", v1, 10), ("copier", copied, 20), ("updater", v2, 30)]),
        ("b", [("copier", copied, 20), ("updater", v2, 30)]),
    ):
        store = open_store(f"sqlite:///{tmp_path / name}.sqlite")
        for hotkey, folder, block in history:
            subs[hotkey] = place_submission(store, tmp_path / name, hotkey, folder, block=block).sha256
        said[name] = store_dates(store, tmp_path / name, 0.8, subs)
        store.close()
    assert (said["a"]["updater"]["copier"], said["b"]["updater"]["copier"]) == (10, 30)
    assert said["a"]["copier"]["updater"] == said["b"]["copier"]["updater"] == 20
    runs = _pooled_runs(list(said), subs, ("p1", "p2"))
    dates = pooled_dates(runs, said, {"a": 1.0, "b": 1.0})
    assert (dates["updater"]["copier"], dates["copier"]["updater"]) == (10, 20)
    results = [result("updater", 0.50, 30), result("copier", 0.56, 20)]
    judged = []
    for name in said:  # each validator reads the pooled runs in its own order, its own bundle folders
        mine = runs[:]
        random.Random(name).shuffle(mine)
        folder_of = functools.partial(bundle_path, tmp_path / name)
        kept, verdicts = find_copies(results, mine, folder_of, dates=pooled_dates(mine, said, {"a": 1.0, "b": 1.0}))
        judged.append(verdicts)
        assert [(v.hotkey, v.copy_of, v.copy_) for v in verdicts] == [("copier", "updater", True)]
        weights = compute_weights(kept, {"updater": 1, "copier": 2}, POLICY)
        assert weights[1] > 0 and weights.get(2, 0.0) == 0.0
    assert judged[0] == judged[1]


def test_a_seed_committed_early_dates_nothing_it_did_not_hold(tmp_path: Path) -> None:
    """The thief commits the offline template (block 5); an honest author publishes an agent of its own, unlike any
    template (block 30); the thief commits the template with the author's code added (block 60). Pair by pair the
    thief is dated 60 against the author (its seed holds none of the author's code) and the author 30: the thief is
    the copy. Against the template, the thief's seed dates it 5 (it held the template's code then)."""
    own = (Path(__file__).resolve().parents[2] / "arena" / "pooling" / "rule.py").read_text()
    author = tmp_path / "author"
    author.mkdir()
    (author / "agent.py").write_text(own)
    thief = tmp_path / "thief"
    shutil.copytree(TEMPLATES["template:offline"], thief, ignore=shutil.ignore_patterns("__pycache__"))
    (thief / "baseline" / "ranking_rule.py").write_text(own)
    seed = tmp_path / "seed"  # a copy: a stored bundle's fingerprint is cached beside its folder
    shutil.copytree(TEMPLATES["template:offline"], seed, ignore=shutil.ignore_patterns("__pycache__"))
    dates = held_dates(
        {"author": author, "thief": thief}, {"author": [(30, author)], "thief": [(5, seed), (60, thief)]}
    )
    assert dates["thief"]["author"] == 60 and dates["author"]["thief"] == 30
    assert dates["thief"]["template:offline"] == 5 and "template:offline" not in dates["author"]
    runs = [
        {"miner": miner, "submission": miner, "problem_id": p, "behaviour": honest_calls(p)}
        for miner in ("author", "thief")
        for p in ("p1", "p2", "p3")
    ]
    results = [result("author", 0.5, 30), result("thief", 0.52, 60)]
    folders = {"author": author, "thief": thief}
    kept, verdicts = find_copies(results, runs, folders.get, dates=dates)
    assert [(v.hotkey, v.copy_of, v.copy_) for v in verdicts] == [("thief", "author", True)]
    assert [r.hotkey for r in kept] == ["author"]
