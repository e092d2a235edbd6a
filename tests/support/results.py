"""Closed races with realistic runs for the results-bundle tests and `bench/pooling.py`: a built catalog, a generated
pack, and per validator a store holding one closed race of every miner on every problem (k samples), each run a
gateway-shaped trajectory (searches returning catalog pages, a product view, the final recommendation) scored by the
real strict checks and judged by the sn15 rubric, exactly as the node stores them."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from arena import tasks
from arena.catalog import Catalog
from arena.catalog.build import build_catalog
from arena.judge.rubric import SN15_RUBRIC
from arena.problems.pack import Pack, Rotation, new_pack
from arena.tasks.answer import raw_answer
from arena.tasks.shoppingbench.generate import GENERATOR_VERSION, generate_problems
from arena.trajectory import TrajectoryEvent
from validator.chain.port import Neuron
from validator.pool.models import RaceFacts
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

START = datetime(2026, 12, 1, tzinfo=UTC)


@dataclass
class World:
    catalog: Catalog
    pack: Pack
    pages: dict[str, list[dict[str, Any]]]  # problem id -> a search page for its query

    def facts(
        self,
        race_id: str,
        *,
        miners: dict[str, str] | None = None,
        samples: int = 1,
        netuid: int = 1,
        seen: dict[str, str] | None = None,
    ) -> RaceFacts:
        return RaceFacts(
            race_id=race_id,
            pack_id=self.pack.pack_id,
            netuid=netuid,
            problems={p.problem_id: p for p in self.pack.problems},
            lookup=self.catalog.get,
            ruleset=self.pack.ruleset_for,
            gold_vectors=self.pack.gold_vectors,
            samples=samples,
            miners=miners,
            seen=seen or {},
        )


def make_world(root: Path, *, problems: int = 6, size: int = 2000, rotation: Rotation | None = None) -> World:
    build_catalog(3, size, root / "catalog", force=True)
    catalog = Catalog.open(root / "catalog")
    generated = [p.model_copy(update={"split": "race"}) for p in generate_problems(catalog, problems, seed=4).problems]
    pack = new_pack(
        generated,
        catalog_digest=catalog.digest,
        generator_version=GENERATOR_VERSION,
        embed=False,
        rotation=rotation or Rotation(),
    )
    pages = {}
    for problem in pack.problems:
        hits = catalog.search(problem.query, limit=10)
        pages[problem.problem_id] = [
            {k: d[k] for k in ("product_id", "shop_id", "title", "price", "service", "sold_count")}
            for d in catalog.documents(h.address for h in hits)
        ]
    return World(catalog, pack, pages)


SYSTEM = (
    "You are a shopping agent. Search the catalog with find_product, read products with view_product_information, "
    "and end with recommend_product naming the product ids that satisfy every requirement of the query. "
) * 4


def trajectory(
    world: World, run_id: str, problem: Any, rng: random.Random, *, solve: bool, searches: int = 3, style: int = 0
) -> list[TrajectoryEvent]:
    """An LLM agent's gateway log: per step an LLM call whose arguments are the whole conversation so far (as the
    gateway logs a chat completion) and a search returning a page of ten products; one product view; the answer.
    Each agent (`style`) pages through the results in its own order: agents that behave alike are copies."""
    page = world.pages[problem.problem_id]
    at = START
    events: list[TrajectoryEvent] = []
    messages: list[dict[str, Any]] = [{"role": "system", "content": SYSTEM}, {"role": "user", "content": problem.query}]

    def add(kind: str, name: str, arguments: Any, result: Any, tokens: dict[str, int] | None = None) -> None:
        nonlocal at
        at += timedelta(milliseconds=rng.randint(50, 900))
        events.append(
            TrajectoryEvent(
                run_id=run_id,
                seq=len(events),
                kind=kind,
                name=name,
                arguments=arguments,
                result=result,
                started_at=at,
                duration_ms=float(rng.randint(5, 400)),
                tokens=tokens or {},
            )
        )

    for i in range(searches):
        call = {"name": "find_product", "arguments": {"q": problem.query, "page": (i + style) % 5 + 1}}
        reply = {"choices": [{"message": {"role": "assistant", "tool_calls": [{"function": call}]}}]}
        add(
            "llm_call",
            "gpt-4o-mini",
            {"model": "gpt-4o-mini", "messages": list(messages)},
            reply,
            {"prompt_tokens": 400 * (i + 1), "completion_tokens": 40, "total_tokens": 400 * (i + 1) + 40},
        )
        add("tool_call", "find_product", call["arguments"], page)
        messages += [reply["choices"][0]["message"], {"role": "tool", "content": page}]
    if page:
        add("tool_call", "view_product_information", {"product_ids": page[0]["product_id"]}, [page[0]])
    gold = ",".join(problem.gold_ids)
    wrong = ",".join(p["product_id"] for p in page[: max(1, len(problem.gold_ids))]) or "nothing"
    add("tool_call", "recommend_product", {"product_ids": gold if solve else wrong}, "ok")
    return events


def open_store(path: Path) -> Store:
    url = f"sqlite:///{path}"
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    return Store.open(url)


def closed_race(
    store: Store,
    world: World,
    race_id: str,
    miners: dict[str, float],
    *,
    seed: int,
    samples: int = 1,
    seed_block: int = 100,
    problem_ids: list[str] | None = None,
    agents: dict[str, str] | None = None,
    searches: int = 3,
) -> dict[str, str]:
    """Race `race_id` closed in `store`: every miner (hotkey -> its solve rate) on every pack problem, `samples`
    times; returns hotkey -> the agent's sha256."""
    rng = random.Random(seed)
    store.upsert_miners([Neuron(uid=i, hotkey=h, coldkey=h) for i, h in enumerate(miners)], block=1)
    agents = agents or {h: f"{i + 1:064x}" for i, h in enumerate(miners)}
    subs = {
        h: store.add_submission(hotkey=h, sha256=agents[h], commitment_block=10 + i)[0] for i, h in enumerate(miners)
    }
    store.add_pack(
        pack_id=world.pack.pack_id,
        name="t",
        digest="d" * 64,
        problems=[p.model_dump(mode="json") for p in world.pack.problems],
    )
    ids = problem_ids or [p.problem_id for p in world.pack.problems]
    store.create_race(
        race_id=race_id, pack_id=world.pack.pack_id, seed_block=seed_block, seed_hash="h", problem_ids=ids
    )
    store.create_runs(race_id, [(s, pid) for s in subs.values() for pid in ids], samples=samples)
    problems = {p.problem_id: p for p in world.pack.problems}
    for run in store.runs(race_id=race_id):
        problem = problems[run.problem_id]
        solve = rng.random() < miners[run.hotkey]
        style = list(miners).index(run.hotkey)
        events = trajectory(world, run.run_id, problem, rng, solve=solve, searches=searches, style=style)
        strict = tasks.score(
            problem, raw_answer(events), world.catalog.get, events=events, ruleset=world.pack.ruleset_for(problem.task)
        )
        quality = rng.choice([0.3, 0.6, 0.9])
        store.transition(run.run_id, "starting")
        store.transition(run.run_id, "running")
        store.record_run(
            run.run_id,
            "scoring",
            events,
            strict=(float(strict.success), strict.model_dump(mode="json")),
            judgment={
                "verdict": {"rubric_version": SN15_RUBRIC.version, "gate": "offline"},
                "quality": quality,
                "coefficient": SN15_RUBRIC.coefficient(quality),
                "final": float(strict.final) * SN15_RUBRIC.coefficient(quality),
                "evidence": [1],
            },
        )
    store.set_race_status(race_id, "closed")
    return {h: s.sha256 for h, s in subs.items()}


def drawn_race(world: World, chain: Any, start: int, n: int) -> tuple[str, list[str]]:
    """(race id, problem ids) of the race of `world`'s pack that starts at block `start`, drawn as every node draws."""
    from arena.problems.draw import draw_problems

    ids = draw_problems(
        world.pack.problems,
        pack_id=world.pack.pack_id,
        seed_hash=chain.block_hash(start),
        n=n,
        task_mix=world.pack.rotation.task_mix,
    )
    return f"{world.pack.pack_id[:16]}-{start}", ids


def pooled_weights(
    chain: Any, bundles: dict[Any, Any], facts: RaceFacts, *, start: int, blocks: dict[str, int], policy: Any
) -> dict[int, float]:
    """The weights an honest node sets from these bundles (wallet -> built bundle): each verified, the runs pooled
    with the validators' metagraph stakes and the race's seed, the standings weighed by `policy`."""
    from arena.pooling import pool, seed_of
    from arena.weights import MinerResult, compute_weights
    from validator.pool import Refusal, verify_bundle
    from validator.pool.pooled import to_pooled

    graph = chain.metagraph()
    holders = {n.hotkey for n in graph.neurons if n.validator_permit}
    runs = {}
    for wallet, bundle in bundles.items():
        hotkey = wallet.hotkey.ss58_address
        verified = verify_bundle(bundle.data, bundle.sha256, validator=hotkey, race=facts, permit_holders=holders)
        assert not isinstance(verified, Refusal), verified.reason
        runs[hotkey] = to_pooled(verified)
    stakes = {h: float(graph.by_hotkey(h).stake) for h in runs}
    standings = pool(runs, stakes, seed=seed_of(chain.block_hash(start)), commitment_blocks=blocks)
    results = [
        MinerResult(hotkey=s.miner, score=s.score, commitment_block=blocks[s.miner], low=s.low, high=s.high)
        for s in standings
    ]
    return compute_weights(results, {n.hotkey: n.uid for n in graph.neurons}, policy)
