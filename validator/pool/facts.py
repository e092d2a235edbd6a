"""The race a results bundle must be of (`RaceFacts`), as a node that raced it knows it from its store."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from validator.pool.models import RaceFacts


def race_facts(
    race: Any,
    *,
    store: Any,
    netuid: int,
    problem: Callable[[str], Any],
    lookup: Callable[[str], Any],
    ruleset_for: Callable[..., Any],
    gold_vectors: Callable[[str], Any],
) -> RaceFacts:
    """The race's problems (published once it closed), the pack's ruleset, the miners this node raced (hotkey ->
    agent sha256), the sample bound, and the bundles accepted from earlier races (a replay is refused)."""
    plan = race.plan or {}
    raced = {row["hotkey"]: row["submission_id"] for row in store.race_rows(race.race_id)}
    agents: dict[str, str | None] = {h: getattr(store.submission(i), "sha256", None) for h, i in raced.items()}
    if set(plan.get("miners") or []) - set(agents):  # sharded: miners of the race this node made no run of
        latest = {sub.hotkey: sub.sha256 for sub in store.latest_submissions()}
        agents = {h: agents.get(h) or latest.get(h) for h in plan["miners"]}
    known = {h: sha for h, sha in agents.items() if sha}
    miners = known if known and len(known) == len(agents) else None  # a miner not known here: any hotkey
    seen = {
        v["sha256"]: p.race_id
        for p in store.race_pools()
        if p.race_id != race.race_id
        for v in (p.state or {}).get("validators", {}).values()
        if v.get("status") == "verified"
    }
    return RaceFacts(
        race_id=race.race_id,
        pack_id=race.pack_id,
        netuid=netuid,
        problems={pid: problem(pid) for pid in race.problem_ids},
        lookup=lookup,
        ruleset=ruleset_for,
        gold_vectors=gold_vectors,
        samples=sample_bound(race),
        miners=miners,
        seen=seen,
    )


def sample_bound(race: Any) -> int:
    """How many sample indices a (miner, problem) of the race may have: the plan's k, and its make-up samples (the
    j-th missing unit of the race before is sample k + j // problems: `validator.races.sharding.make_up`)."""
    plan = race.plan or {}
    make_up, problems = int(plan.get("make_up") or 0), max(1, len(race.problem_ids))
    return int(plan.get("samples") or 1) + -(-make_up // problems)
