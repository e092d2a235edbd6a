"""A store with a history across races, for the dashboard's tests: the demo's real race (its real runs, trajectories,
verdicts, copy and weights), then three more races written with the store's own calls, as the node writes them:

- race 2 (seed block 600, closed): offline-lite wins, offline-deep second, offline third, hostile last;
- race 3 (seed block 1200, closed): offline-lite wins again (champion since race 2); offline and offline-deep tie,
  the tie broken by offline's earlier commitment; hostile's runs end 1004 (out of memory: exit 137, stderr kept);
- race 4 (seed block 1800, running): some runs finished and scored, some in a sandbox, some pending, one errored.

A weight set lands for each closed race. Races 2-4 draw from a second pack holding copies of the demo's problems
(the demo stores only the batch it raced); their runs have no trajectory (their scores are written directly); the
demo's race holds the real ones.

`add_session_race` adds, to any store with submissions, a closed race of one shopping session (docs/sessions.md) played
by the session family's scripted reference agent through the family's own tools, each call logged as the gateway logs
it, then scored by the family and judged by the offline judge as the node does (`play_session`, `session_run`).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from arena import tasks
from arena.judge.offline import OfflineJudge
from arena.scoring.models import strict_score
from arena.tasks.answer import raw_answer
from arena.tasks.session.agents import Outcome
from arena.tasks.session.oracle import reference_agent
from arena.tasks.session.problem import SessionProblem
from arena.tools.registry import ToolContext, ToolError, ToolRegistry
from arena.trajectory import TrajectoryEvent
from validator.races import race_scores
from validator.races.sampling import race_standings
from validator.store.models import Submission
from validator.store.repository import Store

STDERR = 'Traceback (most recent call last):\n  File "agent.py", line 9, in agent_main\nMemoryError\n'


@dataclass
class History:
    names: dict[str, str]  # demo agent name -> hotkey
    races: list[str]  # race ids, oldest first: demo, 2, 3, 4 (running)
    oom_runs: list[str]  # race 3's hostile runs (1004)
    live_race: str


def _sandbox(**extra: Any) -> dict[str, Any]:
    base = {
        "backend": "process-bwrap",
        "status": "ok",
        "exit_code": 0,
        "elapsed_s": 0.4,
        "timed_out": False,
        "oom": False,
        "stderr_tail": "",
        "answer": None,
        "upstream_errors": [],
        "budget_refusals": 0,
        "attempts": [],
    }
    return {**base, **extra}


def _finish(store: Store, run_id: str, gold: str, final: float, success: bool) -> None:
    store.transition(run_id, "starting")
    store.transition(run_id, "running")
    answer = gold if success else "1000000001"
    store.record_run(run_id, "scoring", [], tool_calls=3, sandbox=_sandbox(answer=answer))
    strict = {
        "task": "product",
        "ruleset": "shoppingbench",
        "ruleset_version": "1",
        "answer": [answer],
        "success": success,
        "gt": 1.0 if success else 0.0,
        "rule": 1.0 if success else 0.0,
        "products": [
            {
                "slot": 0,
                "gold_id": gold,
                "answer_id": answer,
                "known": True,
                "checks": [
                    {
                        "name": "gt",
                        "passed": success,
                        "evidence": f"answer {answer} {'is' if success else 'is not'} the gold",
                    }
                ],
            }
        ],
        "checks": [],
    }
    store.save_score(
        run_id,
        success=1.0 if success else 0.0,
        strict=strict,
        final=final,
        judge_quality=0.1,
        judge_coefficient=0.3875,
        judge={
            "gate": "no_reasoning",
            "quality": 0.1,
            "coefficient": 0.3875,
            "judge": "offline",
            "rubric_version": "test",
            "explanation": "rule-based",
        },
        judge_evidence=[],
        status="finished",
    )


def _oom(store: Store, run_id: str) -> None:
    store.transition(run_id, "starting")
    store.transition(run_id, "running")
    store.record_run(
        run_id,
        "errored",
        [],
        error_code=1004,
        error="the agent was killed: out of memory",
        sandbox=_sandbox(
            status="killed",
            exit_code=137,
            oom=True,
            stderr_tail=STDERR,
            attempts=[
                {
                    "attempt": 1,
                    "code": 1004,
                    "blame": "agent",
                    "error": "killed: out of memory",
                    "upstream_errors": [],
                    "upstream_error_count": 0,
                }
            ],
        ),
    )


def close(store: Store, race_id: str) -> None:
    """Close a race the way the node does: its results by `race_scores` and its standings (`race_standings`: the
    interval, P(rank 1), pass@k), ranked by score, then commitment block."""
    runs = store.runs(race_id=race_id)
    rows = []
    for r in runs:
        score = store.score(r.run_id) if r.status == "finished" else None
        rows.append(
            {
                "hotkey": r.hotkey,
                "submission_id": r.submission_id,
                "problem_id": r.problem_id,
                "status": r.status,
                "blame": r.blame,
                "attempt": r.attempt,
                "task": "product",
                "final": score.final if score else 0.0,
                "success": bool(score and score.success),
            }
        )
    scores = race_scores(rows)
    uids = {m.hotkey: m.uid for m in store.miners()}
    blocks = {h: store.submission(s["submission_id"]).commitment_block for h, s in scores.items()}  # type: ignore
    race = store.race(race_id)
    assert race is not None
    for hotkey, standing in race_standings(store, race, rows, blocks, window=1).items():
        scores[hotkey].update(standing)
    ranked = sorted(scores, key=lambda h: (-scores[h]["score"], blocks[h], h))
    store.save_race_results(
        race_id,
        [
            {"hotkey": h, "uid": uids.get(h), "commitment_block": blocks[h], **scores[h], "rank": i + 1}
            for i, h in enumerate(ranked)
        ],
    )


def _weights(store: Store, race_id: str, block: int) -> None:
    uids = {m.hotkey: m.uid for m in store.miners()}
    shares = [0.5, 0.12, 0.09, 0.0]
    vector = {0: 0.29}
    for r in store.race_results(race_id):
        uid = uids.get(r.hotkey)
        if uid is not None and r.rank is not None:
            vector[uid] = shares[r.rank - 1] if r.rank <= len(shares) else 0.0
    ws = store.add_weight_set(policy="top_heavy", vector=vector, race_id=race_id)
    store.update_weight_set(ws.id, status="set", outcome={"success": True, "block": block}, block=block)


def names_of(demo_stdout: str) -> dict[str, str]:
    """The demo's miners by name, from its output ("uid 1: miner offline (5Hmq...)")."""
    return {m.group(1): m.group(2) for m in re.finditer(r"uid \d+: miner (\S+) \((\w+)\)", demo_stdout)}


def grow(store: Store, names: dict[str, str]) -> History:
    """Add races 2-4 to the demo's store. `names`: demo agent name -> hotkey (`names_of`)."""
    (first,) = store.races(status="closed")
    # the demo stores only the batch it raced: races 2-4 draw from a second pack of the demo's problems, copied
    source = [p for p in store.problems(first.pack_id) if (p.data.get("reward") or [{}])[0].get("product_id")]
    copies = [
        {**source[n % len(source)].data, "problem_id": f"{source[n % len(source)].problem_id}-h{n}", "split": "race"}
        for n in range(12)
    ]
    pack_id = "pack-history"
    store.add_pack(pack_id=pack_id, name="history", digest="0" * 64, problems=copies, activate=False)
    pool = store.problems(pack_id, split="race")
    gold = {p.problem_id: str(p.data["reward"][0]["product_id"]) for p in pool}
    subs: list[Submission] = sorted(store.latest_submissions(), key=lambda s: s.commitment_block)
    by_hotkey = {s.hotkey: s for s in subs}
    # the demo's four racing agents (a miner the demo adds later does not race these)
    by_name = {n: by_hotkey[names[n]] for n in ("offline", "offline-lite", "offline-deep", "hostile")}
    races = [first.race_id]
    # how many of its 4 problems each miner solves (and its final per success) in races 2 and 3
    plans = {
        600: {"offline-lite": 4, "offline-deep": 3, "offline": 2, "hostile": 0},
        1200: {"offline-lite": 4, "offline": 2, "offline-deep": 2, "hostile": None},
    }
    oom: list[str] = []
    for n, (block, plan) in enumerate(plans.items()):
        problems = [p.problem_id for p in pool[4 * n : 4 * n + 4]]
        race_id = f"{pack_id[:16]}-{block}"
        store.create_race(
            race_id=race_id, pack_id=pack_id, seed_block=block, seed_hash=f"0x{block:064x}", problem_ids=problems
        )
        store.create_runs(race_id, [(sub, pid) for sub in by_name.values() for pid in problems])
        store.set_race_status(race_id, "running")
        for name, sub in by_name.items():
            solved = plan[name]
            for i, run in enumerate(store.runs(race_id=race_id, hotkey=sub.hotkey)):
                if solved is None:
                    _oom(store, run.run_id)
                    oom.append(run.run_id)
                else:
                    _finish(store, run.run_id, gold[run.problem_id], 0.3875 if i < solved else 0.0, i < solved)
        close(store, race_id)
        _weights(store, race_id, block + 26)
        races.append(race_id)
    # race 4: running
    problems = [p.problem_id for p in pool[8:12]]
    live = f"{pack_id[:16]}-1800"
    store.create_race(race_id=live, pack_id=pack_id, seed_block=1800, seed_hash=f"0x{1800:064x}", problem_ids=problems)
    store.create_runs(live, [(sub, pid) for sub in by_name.values() for pid in problems])
    store.set_race_status(live, "running")
    lite = store.runs(race_id=live, hotkey=by_name["offline-lite"].hotkey)
    for run in lite[:3]:
        _finish(store, run.run_id, gold[run.problem_id], 0.3875, True)
    store.transition(lite[3].run_id, "starting")
    store.transition(lite[3].run_id, "running")
    offline = store.runs(race_id=live, hotkey=by_name["offline"].hotkey)
    _finish(store, offline[0].run_id, gold[offline[0].problem_id], 0.0, False)
    hostile = store.runs(race_id=live, hotkey=by_name["hostile"].hotkey)
    _oom(store, hostile[0].run_id)
    races.append(live)
    return History(names=names, races=races, oom_runs=oom, live_race=live)


# --- a session run, played in-process --------------------------------------------------------------------------------

START = datetime(2026, 1, 1, tzinfo=UTC)


class Recording(ToolRegistry):
    """The session family's tools, each call logged as the gateway logs it (a `TrajectoryEvent`, its result as JSON)."""

    def __init__(self) -> None:
        super().__init__()
        for tool in tasks.family("session").tools():
            self.register(tool.fn, results=tool.results)
        self.events: list[TrajectoryEvent] = []

    def call(self, name: str, arguments: dict[str, Any] | str | None, ctx: ToolContext) -> Any:
        at = START + timedelta(seconds=len(self.events))
        base = {"run_id": "", "seq": len(self.events), "kind": "tool_call", "name": name, "started_at": at}
        try:
            result = super().call(name, arguments, ctx)
        except ToolError as exc:
            self.events.append(TrajectoryEvent(**base, arguments=arguments, error=str(exc), status=422))
            raise
        self.events.append(TrajectoryEvent(**base, arguments=arguments, result=json.loads(json.dumps(result))))
        return result


def play_session(problem: SessionProblem, catalog: Any) -> tuple[Outcome, list[TrajectoryEvent]]:
    """The reference agent's session on ``problem``, ended by ``terminate`` as an agent ends its run: how it went and
    the gateway's log of it."""
    tools = Recording()
    outcome = reference_agent(problem, catalog, tools)
    tools.call("terminate", {"status": "success"}, ToolContext(catalog=catalog))
    return outcome, tools.events


def session_run(
    store: Store, run_id: str, problem: SessionProblem, events: list[TrajectoryEvent], catalog: Any
) -> None:
    """Finish run ``run_id`` with these events as the node does: the family's strict verdict, the offline judge."""
    events = [e.model_copy(update={"run_id": run_id}) for e in events]
    store.transition(run_id, "starting")
    store.transition(run_id, "running")
    answer = raw_answer(events)
    store.record_run(run_id, "scoring", events, tool_calls=len(events), sandbox=_sandbox(answer=answer, elapsed_s=1.2))
    score = tasks.score(problem, answer, catalog.get, events=events)
    strict = score.model_dump(mode="json")
    store.save_score(run_id, success=float(score.success), final=None, strict=strict)
    judge = OfflineJudge()
    verdict = judge.judge(problem.public(), events)
    store.save_judgment(
        run_id,
        verdict=verdict.model_dump(mode="json"),
        quality=verdict.quality,
        coefficient=verdict.coefficient,
        final=judge.rubric.final(strict_score(strict, score.success), verdict.quality),
        evidence=verdict.evidence,
    )


def add_session_race(store: Store, catalog: Any, hotkey: str, *, seed: int = 1) -> tuple[str, SessionProblem]:
    """A closed race of one session problem generated from ``catalog``, run by ``hotkey``'s latest submission with
    the reference agent: the run's id and its problem."""
    made = tasks.family("session").generate(catalog, 1, tasks=("session",), seed=seed).problems
    assert made, "the session generator kept no problem from this catalog"
    # its own id: the store keys problems by id across packs, and a demo's pack may hold the same generated problem
    problem = made[0].model_copy(update={"problem_id": f"{made[0].problem_id}-dash"})
    assert isinstance(problem, SessionProblem)
    outcome, events = play_session(problem, catalog)
    assert outcome.success, outcome
    pack_id = "pack-sessions"
    data = {**problem.model_dump(mode="json"), "split": "race"}
    store.add_pack(pack_id=pack_id, name="sessions", digest="1" * 64, problems=[data], activate=False)
    submission = next(s for s in store.latest_submissions() if s.hotkey == hotkey)
    race_id = "pack-sessions-2400"
    store.create_race(
        race_id=race_id, pack_id=pack_id, seed_block=2400, seed_hash=f"0x{2400:064x}", problem_ids=[problem.problem_id]
    )
    store.create_runs(race_id, [(submission, problem.problem_id)])
    store.set_race_status(race_id, "running")
    (run,) = store.runs(race_id=race_id)
    session_run(store, run.run_id, problem, events, catalog)
    close(store, race_id)
    return run.run_id, problem
