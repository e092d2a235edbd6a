"""The store that `bench/corpus.py` exports: miners, a pack, and closed races of made-up runs with their scores and
gateway events, bulk-inserted (see that script's docstring for what the runs look like)."""

from __future__ import annotations

import json
import random
import time
import uuid
from datetime import UTC, datetime, timedelta
from typing import Any

from sqlalchemy import insert, text

from arena import blame
from validator.chain.port import Neuron
from validator.store.models import Run, Score
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

MINERS = 40
T0 = datetime(2026, 1, 1, tzinfo=UTC)


# --- filling the store --------------------------------------------------------------------------------------------


def problem(i: int, held_out: bool = False) -> dict[str, Any]:
    gold = f"{9_000_000_000 + i}"
    return {
        "problem_id": f"p{i:05d}",
        "task": "product",
        "split": "held_out" if held_out else "race",
        "cluster_id": f"c{i // 2:05d}",
        "query": query_of(i),
        "reward": [{"product_id": gold, "title": [f"Storage basket model {i}"]}],
    }


def query_of(i: int) -> str:
    return f"Looking for a model {i} storage basket in colour {i % 17} with free shipping under {200 + i} PHP"


def listing(i: int, page: int) -> list[dict[str, Any]]:
    return [
        {
            "product_id": f"{9_000_000_000 + (i * 7 + j + 10 * page) % 5000}",
            "shop_id": f"{100 + j}",
            "title": f"Storage basket model {(i * 7 + j + 10 * page) % 5000} woven rattan with lid and handles",
            "price": 150.0 + j * 3.5,
            "service": ["freeShipping", "COD"][: 1 + j % 2],
            "sold_count": 10 * j,
        }
        for j in range(10)
    ]


def details(ids: list[str]) -> list[dict[str, Any]]:
    return [
        {
            "product_id": pid,
            "short_description": "Handwoven rattan basket with a lid;Brand new;",
            "description": "A handwoven rattan storage basket with a fitted lid and two handles. " * 3,
            "sku_options": {"1": {"color_family": "natural"}, "2": {"color_family": "black"}},
            "attributes": {"material": ["rattan"], "capacity": ["30l"]},
        }
        for pid in ids
    ]


def llm(
    seq: int, text_: str, call_id: str | None, name: str, arguments: dict[str, Any], history: int
) -> dict[str, Any]:
    request = {
        "model": "qwen3-4b",
        "temperature": 0,
        "messages": [{"role": "user", "content": "previous turns " * 40}] * history,
    }
    result = {
        "id": f"chatcmpl-{seq}",
        "object": "chat.completion",
        "model": "qwen3-4b",
        "choices": [
            {
                "index": 0,
                "finish_reason": "tool_calls" if call_id else "stop",
                "message": {
                    "role": "assistant",
                    "content": text_,
                    "tool_calls": [
                        {
                            "id": call_id,
                            "type": "function",
                            "function": {"name": name, "arguments": json.dumps(arguments)},
                        }
                    ]
                    if call_id
                    else None,
                },
            }
        ],
        "usage": {
            "prompt_tokens": 900 + 300 * history,
            "completion_tokens": len(text_.split()) + 12,
            "total_tokens": 912 + 300 * history + len(text_.split()),
        },
    }
    return {
        "seq": seq,
        "kind": "llm_call",
        "name": "qwen3-4b",
        "arguments": request,
        "result": result,
        "tokens": {"prompt_tokens": 900, "completion_tokens": 40, "total_tokens": 940},
    }


def shown_of(recommend: str) -> str:
    return recommend.split(",")[0]


def tool(seq: int, name: str, arguments: dict[str, Any], result: Any) -> dict[str, Any]:
    return {"seq": seq, "kind": "tool_call", "name": name, "arguments": arguments, "result": result}


def trajectory(
    index: int, p: int, query: str, agent: str, recommend: str, rng: random.Random, style: str
) -> tuple[list[dict[str, Any]], str]:
    """`agent`: "llm" (the LLM issues every call: Axis A), "narrated" (the LLM only narrates, the code calls: Axis
    B) or "code" (no LLM: Axis B)."""
    """The events of one run, and its defect (or "")."""
    rival = listing(p, 0)[3]["product_id"]
    shown = recommend.split(",")
    defect = rng.choices(["", "incomplete", "twice"], [0.93, 0.05, 0.02])[0]
    events: list[dict[str, Any]] = []
    if agent != "code":
        events.append({"seq": 0, "kind": "tool_call", "name": "schemas", "arguments": {}, "result": None})
        steps = [
            (f"I will search the catalog for the request ({style}).", "find_product", {"q": query}, listing(p, 0)),
            (
                "Reading the details of the two best listings.",
                "view_product_information",
                {"product_ids": f"{recommend},{rival}"},
                details([*shown, rival]),
            ),
            (
                f"Comparing {recommend} and {rival}: {recommend} is rattan with a lid and cheaper than {rival}, "
                f"which lacks the lid; {recommend} fits the request better ({style}).",
                "recommend_product",
                {"product_ids": recommend},
                f"Having recommended the products to the user: {recommend}.",
            ),
            ("Done.", "terminate", {"status": "success"}, "The interaction has been completed with status: success"),
        ]
        if defect == "incomplete":
            steps = steps[:3]
        for k, (words, name, arguments, result) in enumerate(steps):
            call_id = f"call_{index}_{k}" if agent == "llm" else None
            events.append(llm(len(events), words, call_id, name, arguments, history=1 + 2 * k))
            events.append(tool(len(events), name, arguments, result))
            if defect == "twice" and name == "recommend_product":
                events.append(tool(len(events), name, arguments, result))
    else:
        calls = [
            ("find_product", {"q": query}, listing(p, 0)),
            ("find_product", {"q": query, "page": 2}, listing(p, 1)),
            ("view_product_information", {"product_ids": f"{recommend},{rival}"}, details([*shown, rival])),
            (
                "recommend_product",
                {"product_ids": recommend},
                f"Having recommended the products to the user: {recommend}.",
            ),
            ("terminate", {"status": "success"}, "The interaction has been completed with status: success"),
        ]
        if defect == "incomplete":
            calls = calls[:4]
        for name, arguments, result in calls:
            events.append(tool(len(events), name, arguments, result))
            if defect == "twice" and name == "recommend_product":
                events.append(tool(len(events), name, arguments, result))
    return events, defect


def fill(url: str, runs: int, problems: int) -> dict[str, Any]:
    """Fill the fresh database at `url` with `runs` closed race runs over `problems` problems; its figures."""
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    store = Store.open(url)
    started = time.perf_counter()
    subs = _miners(store)
    held_out = _pack(store, problems)
    queries = {f"p{i:05d}": problem(i)["query"] for i in range(problems)}
    per_race = max(1, problems // 20)
    races = -(-runs // (per_race * MINERS))
    rng = random.Random(15)
    made = 0
    for r in range(races):
        race_id = f"race-{r:04d}"
        first = (r * per_race) % problems
        pids = [f"p{(first + k) % problems:05d}" for k in range(per_race)]
        store.create_race(race_id=race_id, pack_id="bench", seed_block=r, seed_hash=f"0x{r:04x}", problem_ids=pids)
        run_rows, score_rows, event_rows = [], [], []
        for pid in pids:
            for m, sub in enumerate(subs):
                if made >= runs:
                    break
                run_row, score_row, events = _run(made, race_id, pid, m, sub, queries[pid], rng, problems, held_out)
                made += 1
                run_rows.append(run_row)
                event_rows += events
                if score_row is not None:
                    score_rows.append(score_row)
        _store_race(store, race_id, run_rows, score_rows, event_rows)
        if r % 10 == 0 or r == races - 1:
            print(f"  filled {made:,} runs ({time.perf_counter() - started:.0f} s)", flush=True)
    with store.engine.connect() as conn:
        size = conn.execute(text("SELECT pg_database_size(current_database())")).scalar()
        events = conn.execute(text("SELECT count(*) FROM trajectory_events")).scalar()
    store.close()
    return {
        "runs": made,
        "events": events,
        "bytes": size,
        "seconds": time.perf_counter() - started,
        "last_ended": (T0 + timedelta(seconds=made)).isoformat(),
    }


def _miners(store: Store) -> list[Any]:
    """The miners, registered, each with one submission."""
    neurons = [Neuron(uid=i + 1, hotkey=f"5Miner{i:02d}", coldkey=f"ck{i}") for i in range(MINERS)]
    store.upsert_miners(neurons)
    return [
        store.add_submission(hotkey=n.hotkey, sha256=f"{i:064x}", commitment_block=10 + i)[0]
        for i, n in enumerate(neurons)
    ]


def _pack(store: Store, problems: int) -> int:
    """The pack: `problems` race problems and one in ten as many held out; the number held out."""
    held_out = max(1, problems // 10)
    store.add_pack(
        pack_id="bench",
        name="bench",
        digest="b" * 64,
        problems=[problem(i) for i in range(problems)]
        + [problem(problems + i, held_out=True) for i in range(held_out)],
    )
    return held_out


def _run(
    index: int, race_id: str, pid: str, m: int, sub: Any, query: str, rng: random.Random, problems: int, held_out: int
) -> tuple[dict[str, Any], dict[str, Any] | None, list[dict[str, Any]]]:
    """Run number `index`, of miner `m` (submission `sub`) on problem `pid`: its row, its score's row (None when it
    errored) and its gateway events. Draws from `rng` in a fixed order, so the same arguments make the same store."""
    p = int(pid[1:])
    run_id = uuid.UUID(int=rng.getrandbits(128)).hex
    ended = T0 + timedelta(seconds=index)
    agent = ("llm", "narrated", "llm", "code")[m % 4]
    llm_agent = agent != "code"
    errored = rng.random() < 0.02
    wins = rng.random() < (0.7 if llm_agent else 0.5)
    recommend = f"{9_000_000_000 + p}" if wins else listing(p, 0)[5]["product_id"]
    if wins and rng.random() < 0.01:  # it also recommends a held-out problem's answer
        recommend += f",{9_000_000_000 + problems + rng.randrange(held_out)}"
    style = "standard" if rng.random() < 0.35 else f"run {index}"  # a third repeat a chat
    events, _ = trajectory(index, p, query, agent, recommend, rng, style)
    if errored:
        events = events[:2]
    run_row = {
        "run_id": run_id,
        "race_id": race_id,
        "submission_id": sub.id,
        "problem_id": pid,
        "hotkey": sub.hotkey,
        "status": "errored" if errored else "finished",
        "error_code": blame.TIMED_OUT if errored else None,
        "blame": blame.blame_of(blame.TIMED_OUT) if errored else None,
        "attempt": 1,
        "created_at": ended,
        "finished_at": None if errored else ended,
        "errored_at": ended if errored else None,
        "sandbox": {},
        "tool_calls": len(events),
        "llm_calls": 4 if llm_agent else 0,
        "tokens": 0,
        "cost": 0.0,
    }
    for e in events:
        e.update(run_id=run_id, started_at=ended)
    if errored:
        return run_row, None, events
    return run_row, _score(run_id, p, ended, llm_agent, wins, recommend, rng), events


def _score(
    run_id: str, p: int, ended: datetime, llm_agent: bool, wins: bool, recommend: str, rng: random.Random
) -> dict[str, Any]:
    """The score's row of a finished run: strict success, the judge's quality and the final score from them."""
    quality = (0.9 if rng.random() < 0.8 else 0.7) if llm_agent else 0.1
    success = 1.0 if wins else 0.0
    final = success * (1.0 if quality >= 0.8 else 0.3 + 0.875 * quality)
    return {
        "run_id": run_id,
        "success": success,
        "final": final,
        "judge_quality": quality,
        "judge_coefficient": 1.0 if quality >= 0.8 else 0.3 + 0.875 * quality,
        "strict": {
            "task": "product",
            "answer": recommend.split(","),
            "success": bool(wins),
            "products": [
                {"slot": 0, "gold_id": f"{9_000_000_000 + p}", "answer_id": shown_of(recommend), "known": True}
            ],
        },
        "judge": {"gate": "sound" if quality == 0.9 else ("no_comparison" if quality == 0.7 else "no_reasoning")},
        "judge_evidence": [],
        "scored_at": ended,
        "judged_at": ended,
    }


def _store_race(
    store: Store,
    race_id: str,
    run_rows: list[dict[str, Any]],
    score_rows: list[dict[str, Any]],
    event_rows: list[dict[str, Any]],
) -> None:
    """One race's rows in one transaction (bulk inserts; the events by COPY), then the race closed."""
    with store.session() as s:
        s.execute(insert(Run.__table__), run_rows)
        if score_rows:
            s.execute(insert(Score.__table__), score_rows)
        store.add_events(event_rows, session=s)
    store.set_race_status(race_id, "closed")
