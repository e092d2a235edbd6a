"""`arena-validator demo`, step 6: what the race left in the store and on the chain, printed."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any, Protocol

from rich import box
from rich.table import Table

from arena import tasks
from arena.cliutil import err, out, print_table


class DemoRun(Protocol):
    """What the results read of the demo (`demo.run`): its folder, chain, settings and store."""

    root: Path
    started: float
    chain_path: Path
    chain: Any
    settings: Any
    store: Any


def print_results(demo: DemoRun, names: dict[str, str]) -> int:
    """6. The leaderboard, the qualifying round, the copy rejected, the weights and their ties, the published
    problems, the chain's view and where the trajectories are. `names`: each miner's name by hotkey."""
    out.rule("[bold]6. results")
    store = demo.store
    races = [r for r in store.races() if r.status == "closed"]
    if not races:
        err.print("[bold red]error:[/] the race did not close; see the log above")
        return 1
    race = races[0]
    print_table(_leaderboard(store, race, names))
    out.print(
        "score: mean over the race's problems of success x the judge's coefficient (the offline judge finds no "
        "LLM reasoning in the rule-based agents: gate 0.1, coefficient 0.39; sn15 reasons through the scripted "
        "model, and its answer is the last recommend_product of the steps it returned, handed to the gateway)",
        highlight=False,
    )
    for q in store.qualifications(race.pack_id):
        sub = store.submission(q.submission_id)
        who = names.get(sub.hotkey, sub.hotkey[:12]) if sub is not None else str(q.submission_id)
        out.print(
            f"qualifying: {who} {q.status}, {q.score if q.score is None else f'{q.score:.3f}'} on problems made "
            f"fresh for its round ({q.reason})",
            highlight=False,
        )
    for sub in store.all_submissions():
        if sub.status in {"copy", "rejected"}:
            out.print(
                f"[yellow]{sub.status}[/]: {names.get(sub.hotkey, sub.hotkey)} ({sub.sha256[:12]}): {sub.reason}",
                highlight=False,
            )
    for v in store.copy_verdicts(race_id=race.race_id):  # the fork rule: a later agent close to an earlier one
        who, of = names.get(v.hotkey, v.hotkey[:12]), names.get(v.copy_of, v.copy_of[:12])
        verdict = "earns nothing" if v.copy else "earns: it beats the earlier beyond noise"
        out.print(
            f"[yellow]{'copy' if v.copy else 'fork'}[/]: {who} is close to {of} ({v.kind} similarity "
            f"{v.similarity:.3f}{f', via {v.via}' if v.via else ''}); its score {v.score:.3f} against {of}'s "
            f"interval top {v.earlier_high:.3f}: {verdict}",
            highlight=False,
        )
    _weights(demo, race, names)
    published = [store.problem(pid) for pid in race.problem_ids]
    out.print(
        f"published: the race closed, so its {len(published)} problems (sealed in the pack until block "
        f"{race.seed_block}) are in the store and the API with their answers, e.g. {published[0].problem_id}: "
        f"gold {', '.join(tasks.parse_problem(published[0].data).gold_ids)}",
        highlight=False,
    )
    on_chain = demo.chain.weights().get(0, {})
    out.print(
        "chain's view of validator uid 0: " + ", ".join(f"uid {u}: {w:.3f}" for u, w in on_chain.items()),
        highlight=False,
    )
    settings = demo.settings
    exported = export_trajectories(store, race.race_id, demo.root / "trajectories", names)
    out.print(
        f"trajectories: {exported} (one JSONL per run, the gateway's log); store: {settings.db_url}; chain: "
        f"{demo.chain_path}; took {time.time() - demo.started:.0f}s",
        highlight=False,
    )
    out.print(
        f"see it in a browser: arena-validator dashboard --database-url {settings.db_url}  (then open "
        f"http://127.0.0.1:{settings.api_port}/)",
        highlight=False,
    )
    return 0


def _leaderboard(store: Any, race: Any, names: dict[str, str]) -> Table:
    """The race's results: rank, miner, uid, score, success rate, the judge's mean quality, errors, per task."""
    table = Table(
        title=f"race {race.race_id}: the {len(race.problem_ids)} problems of the batch sealed to "
        f"{race.seed_hash.replace('drand:', 'drand round ')}, opened at block {race.seed_block}",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        show_edge=False,
        collapse_padding=True,
    )
    tasks = sorted({t for r in store.race_results(race.race_id) for t in r.per_task})
    for column in ("#", "miner", "uid", "score", "succ", "judge", "err", *tasks):
        table.add_column(column, justify="left" if column == "miner" else "right", no_wrap=True)
    for r in store.race_results(race.race_id):
        qualities = [
            s.judge_quality
            for run in store.runs(race_id=race.race_id, hotkey=r.hotkey)
            if (s := store.score(run.run_id)) is not None and s.judge_quality is not None
        ]
        quality = f"{sum(qualities) / len(qualities):.2f}" if qualities else "-"
        table.add_row(
            str(r.rank),
            names.get(r.hotkey, r.hotkey[:12]),
            str(r.uid),
            f"{r.score:.3f}",
            f"{r.success_rate:.0%}",
            quality,
            str(r.errored),
            *(f"{r.per_task.get(t, 0):.2f}" for t in tasks),
        )
    return table


def _weights(demo: DemoRun, race: Any, names: dict[str, str]) -> None:
    """The weight vector set on chain, how its ties were broken, and the shadow policy's vector."""
    from arena.weights import MinerResult, describe_ties

    store = demo.store
    ws = store.weight_sets()[0]
    vector = ", ".join(f"uid {uid}: {w:.3f}" for uid, w in ws.vector.items())
    out.print(
        f"weights ({ws.policy}, burn uid {demo.settings.burn_uid}): {vector}; on chain: {ws.status} at block "
        f"{ws.block}",
        highlight=False,
    )
    ranked = [
        MinerResult(hotkey=r.hotkey, score=min(1.0, max(0.0, r.score)), commitment_block=r.commitment_block)
        for r in store.race_results(race.race_id)
    ]
    for line in describe_ties(
        ranked,
        {r.hotkey: r.uid for r in store.race_results(race.race_id) if r.uid is not None},
        name=lambda hotkey: names.get(hotkey, hotkey[:12]),
    ):
        out.print(line, highlight=False)
    if ws.shadow_vector:
        shadow = ", ".join(f"uid {uid}: {w:.5f}" for uid, w in ws.shadow_vector.items())
        out.print(
            f"shadow weights ({ws.shadow_policy}, stored beside the live ones, never sent): {shadow}", highlight=False
        )


def export_trajectories(store: Any, race_id: str, folder: Path, names: dict[str, str]) -> Path:
    for run in store.runs(race_id=race_id):
        target = folder / names.get(run.hotkey, run.hotkey) / f"{run.problem_id}.jsonl"
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "w") as fh:
            for event in store.events(run.run_id):
                fh.write(event.model_dump_json() + "\n")
    return folder
