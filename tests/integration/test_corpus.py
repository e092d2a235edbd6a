"""`arena-validator corpus export` on stores filled by real races (SQLite and Postgres): an offline agent (Axis B)
and two copies of the LLM template agent (Axis A) whose model is a scripted OpenAI-compatible server behind the
gateway, in the bubblewrap sandbox, scored and judged by the node; plus crafted trajectories (real LLM-template
runs through the gateway, then one defect each) that must each drop at exactly one funnel step."""

from __future__ import annotations

import asyncio
import contextlib
import copy
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from arena.catalog import Catalog
from arena.judge.offline import OfflineJudge
from arena.problems.pack import Pack, load_pack
from arena.tasks.answer import raw_answer
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.tools import default_registry
from arena.tasks.shoppingbench.strict import score_run
from arena.tools import ToolContext
from arena.trajectory import TrajectoryEvent
from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from sandbox.bundle import pack_dir, unpack
from sandbox.gateway import Gateway, GatewayServer, Upstream
from sandbox.run import run_one
from tests.support.openai_server import OpenAIServer
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, place_submission, write_agent
from validator.corpus import (
    CorpusError,
    ExportOptions,
    SplitProblem,
    SplitRow,
    audit_split,
    export_corpus,
    query_text,
    split_corpus,
)
from validator.races import Arena, ArenaConfig
from validator.scheduler import Node
from validator.store.repository import Store, make_engine
from validator.store.schema import upgrade

pytestmark = pytest.mark.slow  # real races: the bubblewrap sandbox, the gateway, PostgreSQL

EXE = str(Path(sys.executable).parent / "arena-validator")
LLM_TEMPLATE = Path(__file__).resolve().parents[2] / "miner_template" / "llm" / "agent.py"
MODEL = "test-model"
CAP = 3
FILES = ("README.md", "eval.jsonl", "funnel.json", "stats.json", "train.jsonl")


# --- the scripted model -------------------------------------------------------------------------------------------


class ScriptedModel:
    """The agents' upstream LLM: a deterministic tool-calling policy that plays a strong model (it knows the pack's
    answers). It searches, views the answer and a rival from the results, compares them in words, recommends the
    answer, then terminates."""

    def __init__(self, problems: list[Problem]) -> None:
        self.golds = {p.query: p.gold_ids for p in problems}

    def __call__(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body["messages"]
        query = next(m["content"] for m in messages if m["role"] == "user")
        golds = self.golds.get(query) or []
        done = [c["function"]["name"] for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        results = " ".join(str(m.get("content")) for m in messages if m["role"] == "tool")
        rival = next((pid for pid in re.findall(r'"product_id": "(\w+)"', results) if pid not in golds), None)
        step = len(done)
        if step == 0:
            return self._call(
                "I will search the catalog for products that fit the request.", "find_product", {"q": query[:200]}
            )
        if step == 1:
            return self._call(
                "Let me read the details of the most promising listings.",
                "view_product_information",
                {"product_ids": ",".join(golds + ([rival] if rival else []))},
            )
        if step == 2:
            answer = ",".join(golds)
            text = (
                f"Comparing the candidates from the search and their details: {golds[0]} matches every requested "
                f"attribute and service, while {rival} does not match the request as well, so {golds[0]} is "
                f"better than {rival} here. I will recommend {answer} to the user now."
            )
            return self._call(text, "recommend_product", {"product_ids": answer})
        return self._call("Done.", "terminate", {"status": "success"})

    @staticmethod
    def _call(content: str, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        return {
            "content": content,
            "tool_calls": [
                {
                    "id": f"call_{name}",
                    "type": "function",
                    "function": {"name": name, "arguments": json.dumps(arguments)},
                }
            ],
        }


def llm_agent(variant: str) -> str:
    source = LLM_TEMPLATE.read_text()
    if variant == "llm-copy":  # another miner's edit of the template: other prompt, same model, same chats
        source = source.replace("You are a careful shopping assistant.", "You are a meticulous shopping assistant.")
    return source


# --- a store filled by a real race, then crafted runs ------------------------------------------------------------


@dataclass
class Crafted:
    run_id: str
    step: str
    reason: str


@dataclass
class Arena8:
    url: str
    root: Path
    store: Store
    pack: Pack
    catalog: Catalog
    test_sets: list[Path]
    baseline: dict[str, Any]
    crafted: list[Crafted] = field(default_factory=list)
    cap_runs: list[str] = field(default_factory=list)


def open_store(url: str) -> Store:
    engine = make_engine(url)
    upgrade(engine)
    engine.dispose()
    return Store.open(url)


def run_race(store: Store, root: Path, inputs: tuple[Path, Path, str], server: OpenAIServer) -> None:
    setup = make_chain(root, ["offline", "llm", "llm-copy"])
    data_dir = root / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    for i, name in enumerate(["offline", "llm", "llm-copy"]):
        folder = root / "agents" / name
        if name == "offline":
            write_agent(folder, "offline")
        else:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "agent.py").write_text(llm_agent(name))
        place_submission(store, data_dir, setup.miners[name].hotkey.ss58_address, folder, block=10 + i)
    catalog_dir, pack_path, signer = inputs
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    gateway = Gateway(catalog, upstream=Upstream(base_url=server.base_url, models=[MODEL]))
    arena = Arena(
        store=store,
        chain=setup.chain,
        wallet=setup.validators[0],
        pack=pack,
        catalog=catalog,
        sandbox=ProcessSandbox("bwrap"),
        gateway=gateway,
        config=ArenaConfig(
            data_dir=data_dir, concurrency=2, max_attempts=2, retry_backoff=0.2, limits=Limits(wall_seconds=60)
        ),
    )
    node = Node(arena, block_time=0.5, dispatch_seconds=0.3, close_seconds=0.3)
    closed = lambda: any(r.status == "closed" for r in store.races())  # noqa: E731
    asyncio.run(asyncio.wait_for(node.run(until=closed, poll=0.2, handle_signals=False), timeout=300))


def play(catalog: Catalog, server: OpenAIServer, problems: list[Problem]) -> dict[str, list[TrajectoryEvent]]:
    """The LLM template agent on these problems, in the sandbox, through a real gateway: the gateway's logs."""
    work = Path(tempfile.mkdtemp(prefix="corpus-craft-"))
    os.chmod(work, 0o711)
    try:
        source = work / "src"
        source.mkdir()
        (source / "agent.py").write_text(llm_agent("llm"))
        agent_dir = unpack(pack_dir(source).data, work / "agent")
        gateway = Gateway(catalog, upstream=Upstream(base_url=server.base_url, models=[MODEL]))
        out = {}
        with GatewayServer(gateway, work / "gw" / "gateway.sock"):
            for problem in problems:
                outcome = asyncio.run(
                    run_one(
                        gateway,
                        ProcessSandbox("bwrap"),
                        agent_dir,
                        work / "gw",
                        problem.public(),
                        limits=Limits(wall_seconds=60),
                    )
                )
                assert outcome.result.status == "ok", outcome.result
                out[problem.problem_id] = outcome.events
        return out
    finally:
        shutil.rmtree(work, ignore_errors=True)


def store_run(ctx: Arena8, race_id: str, problem: Problem, events: list[TrajectoryEvent]) -> str:
    """A finished run with these events, strictly scored and judged as the node does it."""
    store, pack = ctx.store, ctx.pack
    llm_hotkey = next(r.hotkey for r in store.runs() if r.llm_calls > 0)
    submission = next(s for s in store.latest_submissions() if s.hotkey == llm_hotkey)
    store.create_race(
        race_id=race_id, pack_id=pack.pack_id, seed_block=0, seed_hash="crafted", problem_ids=[problem.problem_id]
    )
    store.create_runs(race_id, [(submission, problem.problem_id)])
    run_id = store.runs(race_id=race_id)[0].run_id
    events = [e.model_copy(update={"seq": i, "run_id": run_id}) for i, e in enumerate(events)]
    store.transition(run_id, "starting")
    store.transition(run_id, "running")
    store.record_run(run_id, "scoring", events)
    score = score_run(
        problem,
        raw_answer(events),
        ctx.catalog.get,
        gold_vectors=pack.gold_vectors(problem.problem_id),
        ruleset=pack.ruleset,
    )
    store.save_score(run_id, success=float(score.success), final=None, strict=score.model_dump(mode="json"))
    judge = OfflineJudge()
    verdict = judge.judge(problem.public(), events)
    store.save_judgment(
        run_id,
        verdict=verdict.model_dump(mode="json"),
        quality=verdict.quality,
        coefficient=verdict.coefficient,
        final=judge.rubric.final(score.success, verdict.quality),
        evidence=verdict.evidence,
    )
    store.set_race_status(race_id, "closed")
    return run_id


# event surgery on an LLM-template trajectory: schemas, then (completion, tool call) x 4


def completions(events: list[TrajectoryEvent]) -> list[int]:
    return [i for i, e in enumerate(events) if e.kind == "llm_call"]


def message(event: TrajectoryEvent) -> dict[str, Any]:
    return event.result["choices"][0]["message"]


def tool_event(events: list[TrajectoryEvent], name: str) -> int:
    return next(i for i, e in enumerate(events) if e.kind == "tool_call" and e.name == name)


def set_call(events: list[TrajectoryEvent], name: str, arguments: dict[str, Any], result: Any) -> None:
    """Make the LLM's `name` call and the gateway's record of it use these arguments (and result)."""
    for i in completions(events):
        for call in message(events[i]).get("tool_calls") or []:
            if call["function"]["name"] == name:
                call["function"]["arguments"] = json.dumps(arguments)
    i = tool_event(events, name)
    events[i] = events[i].model_copy(update={"arguments": arguments, "result": result})


def view(catalog: Catalog, ids: str) -> Any:
    return default_registry().call("view_product_information", {"product_ids": ids}, ToolContext(catalog))


def choose(pack: Pack, drawn: list[str]) -> dict[str, Problem]:
    """The problems the crafted runs use: `base` (a product task) for the defects that drop before dedup, `drawn`
    (raced) for the duplicate, and problems nobody raced for those that reach the later steps."""
    by_id = {p.problem_id: p for p in pack.problems}
    products = [p for p in pack.problems if p.split == "race" and p.task == "product"]
    free = [p for p in pack.problems if p.split == "race" and p.problem_id not in drawn]
    free_products = [p for p in free if p.task == "product"]
    leak, cap = free_products[0], free_products[1]
    base = next(p for p in products if p not in (leak, cap))
    others = [p for p in free if p not in (leak, cap, base)]
    return {
        "base": base,
        "drawn": by_id[drawn[0]],
        "leak": leak,
        "cap": cap,
        "exact": others[0],
        "near": others[1],
        "held_out": next(p for p in pack.problems if p.split == "held_out"),
        "other": next(p for p in products if p not in (leak, cap, base)),
    }


def craft(ctx: Arena8, server: OpenAIServer) -> None:
    pack, catalog, store = ctx.pack, ctx.catalog, ctx.store
    race = next(r for r in store.races() if r.status == "closed")
    roles = choose(pack, list(race.problem_ids))
    base, leak, cap, exact, near = (roles[k] for k in ("base", "leak", "cap", "exact", "near"))
    held_out, other, drawn = roles["held_out"], roles["other"], roles["drawn"]
    logs = play(catalog, server, [base, drawn, leak, cap, exact, near])
    gold = base.gold_ids[0]

    def variant(problem: Problem) -> list[TrajectoryEvent]:
        return [e.model_copy(deep=True) for e in logs[problem.problem_id]]

    def add(name: str, problem: Problem, events: list[TrajectoryEvent], step: str, reason: str) -> None:
        ctx.crafted.append(Crafted(store_run(ctx, f"crafted-{name}", problem, events), step, reason))

    add("empty", base, [], "normalize", "no_events")
    events = variant(base)
    add("incomplete", base, events[: completions(events)[-1]], "validity", "incomplete")
    events = variant(base)
    calls = message(events[completions(events)[2]])["tool_calls"]
    calls.append(
        {
            "id": "call_lost",
            "type": "function",
            "function": {"name": "view_product_information", "arguments": json.dumps({"product_ids": gold})},
        }
    )
    add("unpaired", base, events, "validity", "unpaired_tool_call")
    events = variant(base)
    calls = message(events[completions(events)[2]])["tool_calls"]
    calls.append(copy.deepcopy(calls[0]))
    i = tool_event(events, "recommend_product")
    events.insert(i + 1, events[i].model_copy(deep=True))
    add("twice", base, events, "validity", "recommend_not_once")
    events = variant(base)
    set_call(
        events,
        "recommend_product",
        {"product_ids": f"{gold},9999999999"},
        f"Having recommended the products to the user: {gold},9999999999.",
    )
    add("unknown", base, events, "validity", "unknown_product")
    events = variant(base)
    message(events[completions(events)[1]])["content"] = "Reading the details now. " * 6000
    add("long", base, events, "validity", "too_long")
    events = variant(base)
    wrong = other.gold_ids[0]  # exists (the strict scorer knows it), answers another problem
    set_call(
        events, "recommend_product", {"product_ids": wrong}, f"Having recommended the products to the user: {wrong}."
    )
    add("wrong", base, events, "winning", "strict_failure")
    events = variant(base)
    message(events[completions(events)[2]])["content"] = (
        f"The details of {gold} fit what was asked: the attributes and the description line up with the request, "
        "so this listing is the one to recommend here after reading the search output and the details shown above."
    )
    add("terse", base, events, "judge", "below_threshold")
    events = variant(base)
    del events[completions(events)[-1]]  # terminate is now issued by the agent's code
    add("harness", base, events, "axis", "axis_b")
    add("copy", drawn, variant(drawn), "dedup", "duplicate")
    for n in range(CAP + 1):
        events = variant(cap)
        message(events[completions(events)[0]])["content"] = f"I will search the catalog (plan {n})."
        ctx.cap_runs.append(store_run(ctx, f"crafted-cap-{n}", cap, events))
    events = variant(leak)
    own, stolen = leak.gold_ids[0], held_out.gold_ids[0]
    viewed = json.loads(message(events[completions(events)[1]])["tool_calls"][0]["function"]["arguments"])
    shown = f"{viewed['product_ids']},{stolen}"  # it views the held-out answer too, so the id exists
    set_call(events, "view_product_information", {"product_ids": shown}, view(catalog, shown))
    set_call(
        events,
        "recommend_product",
        {"product_ids": f"{own},{stolen}"},
        f"Having recommended the products to the user: {own},{stolen}.",
    )
    add("leak", leak, events, "split", "recommends_held_out_answer")
    add("exact", exact, variant(exact), "decontaminate", "exact_query")
    add("near", near, variant(near), "decontaminate", "near_duplicate_query")
    # the preconditions of the crafted defects, as the node stored them
    wrong_run = next(c for c in ctx.crafted if c.reason == "strict_failure").run_id
    assert store.score(wrong_run).success == 0.0  # type: ignore[union-attr]
    terse_run = next(c for c in ctx.crafted if c.reason == "below_threshold").run_id
    assert store.score(terse_run).judge_quality == 0.7  # type: ignore[union-attr]
    rest = ctx.cap_runs + [c.run_id for c in ctx.crafted if c.step not in ("normalize", "judge")]
    assert all(store.score(r).judge_quality == 0.9 for r in rest)  # type: ignore[union-attr]


def write_test_sets(root: Path, exact: Problem, near: Problem) -> list[Path]:
    """Public test sets in ShoppingBench's format: one with the exact query (other case and punctuation), one with
    a near-duplicate of another (a word added), plus unrelated queries."""
    first, second = root / "product_test.jsonl", root / "shop_test.jsonl"
    reward = {"product_id": "7100000001", "title": ["Kalinaw Handwoven Rattan Laundry Hamper with Lid Large"]}
    first.write_text(
        json.dumps({"query": "I want a rattan laundry hamper with a lid.", "reward": reward})
        + "\n"
        + json.dumps({"query": exact.query.upper().replace(",", " ,"), "reward": reward})
        + "\n"
    )
    second.write_text(json.dumps({"query": near.query + " today", "reward": [reward, reward]}) + "\n")
    return [first, second]


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("corpus-arena"))


@pytest.fixture(scope="module", params=["sqlite", "postgresql"])
def filled(
    request: pytest.FixtureRequest, inputs: tuple[Path, Path, str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[Arena8]:
    """A store after one real race, exported once (the baseline funnel), then the crafted runs added."""
    root = tmp_path_factory.mktemp(f"corpus-{request.param}")
    sqlite = contextlib.nullcontext(f"sqlite:///{root / 'node.sqlite'}")
    with fresh_database() if request.param == "postgresql" else sqlite as url:
        store = open_store(url)
        catalog = Catalog.open(inputs[0])
        pack = load_pack(inputs[1], catalog_digest=catalog.digest, trusted_signers={inputs[2]})
        with OpenAIServer(ScriptedModel(pack.problems), models=(MODEL,)) as server:
            run_race(store, root, inputs, server)
            race = next(r for r in store.races() if r.status == "closed")
            roles = choose(pack, list(race.problem_ids))
            ctx = Arena8(
                url=url,
                root=root,
                store=store,
                pack=pack,
                catalog=catalog,
                test_sets=write_test_sets(root, roles["exact"], roles["near"]),
                baseline={},
            )
            ctx.baseline = export(ctx, "baseline").funnel
            craft(ctx, server)
        yield ctx
        store.close()


def options(ctx: Arena8, **kw: Any) -> ExportOptions:
    return ExportOptions(**{"cap_per_problem": CAP, "decontaminate": tuple(ctx.test_sets), **kw})


def export(ctx: Arena8, name: str, **kw: Any) -> Any:
    return export_corpus(ctx.store, ctx.root / name, options(ctx, **kw), batch_size=7)


def cli(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ARENA_")}
    return subprocess.run([EXE, *args], capture_output=True, text=True, cwd=cwd, env=env, timeout=300)


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def drops(funnel: dict[str, Any]) -> dict[tuple[str, str], int]:
    return {(s["name"], r): n for s in funnel["steps"] for r, n in s["dropped"].items()}


# --- the funnel ---------------------------------------------------------------------------------------------------


def test_each_crafted_trajectory_drops_at_its_one_step(filled: Arena8) -> None:
    out = filled.root / "corpus"
    done = cli(
        "corpus",
        "export",
        "--out",
        str(out),
        "--database-url",
        filled.url,
        "--cap-per-problem",
        str(CAP),
        *[a for p in filled.test_sets for a in ("--decontaminate", str(p))],
        cwd=filled.root,
    )
    assert done.returncode == 0, done.stderr
    assert "leak audit passed" in done.stdout and "train +" in done.stdout
    assert sorted(p.name for p in out.iterdir()) == sorted(FILES)
    funnel = json.loads((out / "funnel.json").read_text())
    before, after = drops(filled.baseline), drops(funnel)
    expected = {(c.step, c.reason) for c in filled.crafted} | {("cap", "over_cap")}
    for key in set(before) | set(after):
        assert after.get(key, 0) - before.get(key, 0) == (1 if key in expected else 0), key
    for c in filled.crafted:  # the very run, named in the funnel's examples of that step and reason
        if c.step == "dedup":
            continue  # which of identical chats is kept depends on run ids: checked below
        step = next(s for s in funnel["steps"] if s["name"] == c.step)
        assert c.run_id in step["examples"][c.reason], (c.step, c.reason)
        assert all(c.run_id not in ids for s in funnel["steps"] if s is not step for ids in s["examples"].values())
    n_crafted = len(filled.crafted) + len(filled.cap_runs)
    assert funnel["steps"][0]["in"] == filled.baseline["steps"][0]["in"] + n_crafted
    # the counts chain: what leaves a step enters the next, and the last step's output is what was written
    for prev, step in zip(funnel["steps"], funnel["steps"][1:], strict=False):
        assert step["in"] == prev["out"] == prev["in"] - sum(prev["dropped"].values())
    assert funnel["steps"][-1]["out"] == funnel["train"] + funnel["eval"]
    assert funnel["train"] + funnel["eval"] == filled.baseline["train"] + filled.baseline["eval"] + CAP
    written = {r["metadata"]["run_id"] for r in lines(out / "train.jsonl") + lines(out / "eval.jsonl")}
    over_cap = set(funnel["steps"][7]["examples"]["over_cap"])
    assert len(over_cap) == 1 and over_cap < set(filled.cap_runs) and written >= set(filled.cap_runs) - over_cap
    # the crafted copy and the two LLM miners' runs of that problem: one chat, written once, the others duplicates
    crafted_copy = next(c for c in filled.crafted if c.step == "dedup")
    problem = filled.store.run(crafted_copy.run_id).problem_id  # type: ignore[union-attr]
    twins = {r.run_id for r in filled.store.runs() if r.problem_id == problem and r.llm_calls} | {crafted_copy.run_id}
    duplicates = set(funnel["steps"][6]["examples"]["duplicate"])
    assert len(twins & written) == 1 and twins - written <= duplicates and len(twins) == 3


def test_the_chats_are_the_llms_own_tool_calls_with_the_gateways_results(filled: Arena8) -> None:
    result = export(filled, "chats")
    rows = lines(result.out / "train.jsonl") + lines(result.out / "eval.jsonl")
    assert rows and len(rows) == result.train + result.eval
    race = next(r for r in filled.store.races() if r.status == "closed" and not r.race_id.startswith("crafted"))
    natural = [r for r in rows if r["metadata"]["race_id"] == race.race_id]
    assert natural, "the real race's LLM runs are in the corpus"
    schemas = default_registry().schemas()
    for row in rows:
        meta, messages = row["metadata"], row["messages"]
        assert row["tools"] == schemas and meta["axis"] == "A" and meta["code_issued_calls"] == 0
        assert messages[0]["role"] == "system" and "<tools>" in messages[0]["content"]
        assert all(
            json.dumps(s, sort_keys=True, separators=(",", ":"), ensure_ascii=False) in messages[0]["content"]
            for s in schemas
        )
        problem = next(p for p in filled.pack.problems if p.problem_id == meta["problem_id"])
        assert messages[1] == {"role": "user", "content": problem.query}
        assert meta["judge_quality"] >= 0.8 and meta["split"] in ("train", "eval")
    # one natural chat against the run's gateway log: each LLM completion's tool calls, then the gateway's results
    row = natural[0]
    events = filled.store.events(row["metadata"]["run_id"])
    llm = [e for e in events if e.kind == "llm_call"]
    tools = [e for e in events if e.kind == "tool_call" and e.name != "schemas"]
    assistant = [m for m in row["messages"] if m["role"] == "assistant"]
    assert [m["content"] for m in assistant] == [message(e)["content"] for e in llm]
    emitted = [(c["function"]["name"], c["function"]["arguments"]) for e in llm for c in message(e)["tool_calls"]]
    assert [(c["function"]["name"], c["function"]["arguments"]) for m in assistant for c in m["tool_calls"]] == emitted
    results = [m for m in row["messages"] if m["role"] == "tool"]
    assert [m["content"] for m in results] == [
        e.result
        if isinstance(e.result, str)
        else json.dumps(e.result, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        for e in tools
    ]
    ids = [c["id"] for m in assistant for c in m["tool_calls"]]
    assert ids == [f"call_{i}" for i in range(len(ids))] == [m["tool_call_id"] for m in results]
    assert row["messages"][-1]["role"] == "tool" and tools[-1].name == "terminate"
    stats = json.loads((result.out / "stats.json").read_text())
    assert stats["rows"] == {"train": result.train, "eval": result.eval} and stats["audit"]["passed"]
    assert stats["train"]["axis"] == {"A": result.train}
    card = (result.out / "README.md").read_text()
    assert "# ShopArena trajectory corpus" in card and "Leak audit: **passed**" in card
    assert f"{result.train:,} train + {result.eval:,} eval" in card and "product_test.jsonl" in card


def test_axis_b_on_request_and_sharegpt(filled: Arena8) -> None:
    result = export(filled, "axis-all", axis="all", judge_threshold=0.0, format="sharegpt")
    funnel = result.funnel
    assert "axis" not in {s["name"] for s in funnel["steps"] if s["dropped"]}
    rows = lines(result.out / "train.jsonl") + lines(result.out / "eval.jsonl")

    def calls(row: dict[str, Any]) -> int:
        return sum(t["value"].count("<tool_call>") for t in row["conversations"] if t["from"] == "gpt")

    code = {r["metadata"]["run_id"]: r for r in rows if r["metadata"]["axis"] == "B"}
    harness = next(c.run_id for c in filled.crafted if c.reason == "axis_b")
    assert code[harness]["metadata"]["code_issued_calls"] == 1  # its terminate, issued by the agent's code
    offline = {r.run_id for r in filled.store.runs() if not r.race_id.startswith("crafted") and not r.llm_calls}
    for run_id, row in code.items():  # the offline agent's winning runs (if it won any): every call by its code
        assert 0 < row["metadata"]["code_issued_calls"] <= calls(row)
        assert (row["metadata"]["code_issued_calls"] == calls(row)) == (run_id in offline)
    for row in rows:
        turns = row["conversations"]
        assert turns[0]["from"] == "system" and "<tools>" in turns[0]["value"] and turns[1]["from"] == "human"
        assert {t["from"] for t in turns[2:]} <= {"gpt", "tool"}
        calls = sum(t["value"].count("<tool_call>") for t in turns if t["from"] == "gpt")
        responses = sum(t["value"].count("<tool_response>") for t in turns if t["from"] == "tool")
        assert calls == responses > 0
    only_b = export(filled, "axis-b", axis="b", judge_threshold=0.0)
    assert only_b.funnel["steps"][5]["dropped"].get("axis_a", 0) > 0
    assert {r["metadata"]["axis"] for r in lines(only_b.out / "train.jsonl") + lines(only_b.out / "eval.jsonl")} == {
        "B"
    }


def test_the_same_store_and_options_give_the_same_bytes_and_a_resume_finishes_the_same(filled: Arena8) -> None:
    first, second = export(filled, "same-1"), export(filled, "same-2")
    for name in FILES:
        assert (first.out / name).read_bytes() == (second.out / name).read_bytes(), name

    class Stop(Exception):
        pass

    def stop_after_two_batches(stage: str, done: int, total: int) -> None:
        if stage == "extract" and done >= 14:
            raise Stop

    target = filled.root / "resumed"
    with pytest.raises(Stop):
        export_corpus(filled.store, target, options(filled), progress=stop_after_two_batches, batch_size=7)
    assert not target.exists() and (filled.root / ".resumed.partial").is_dir()  # nothing half-written
    seen: list[int] = []
    resumed = export_corpus(
        filled.store,
        target,
        options(filled),
        batch_size=7,
        progress=lambda stage, done, total: seen.append(done) if stage == "extract" else None,
    )
    assert resumed.resumed_from == 14 and seen[0] == 14
    assert not (filled.root / ".resumed.partial").exists()
    for name in FILES:
        assert (target / name).read_bytes() == (first.out / name).read_bytes(), name


def test_windows_tasks_and_a_changed_seed(filled: Arena8) -> None:
    runs = filled.store.runs()
    ended = sorted(r.finished_at or r.errored_at for r in runs if r.status in ("finished", "errored"))
    late = export(filled, "late", since=ended[len(ended) // 2])
    assert late.funnel["steps"][0]["in"] == sum(1 for t in ended if t >= ended[len(ended) // 2])
    product = export(filled, "products", tasks=("product",))
    rows = lines(product.out / "train.jsonl") + lines(product.out / "eval.jsonl")
    assert rows and {r["metadata"]["task"] for r in rows} == {"product"}
    with pytest.raises(CorpusError, match="no run ended between"):
        export(filled, "never", until=ended[0])
    assert not (filled.root / "never").exists() and not (filled.root / ".never.partial").exists()
    default = export(filled, "seed-default", held_out_fraction=0.5)
    reseeded = export(filled, "seed-7", seed=7, held_out_fraction=0.5)
    stats = json.loads((reseeded.out / "stats.json").read_text())
    # another seed moves whole clusters between the sides (how many depends on the races' clusters), never rows
    assert stats["audit"]["passed"] and reseeded.eval + reseeded.train == default.eval + default.train > 0


# --- shopping sessions (docs/sessions.md): multi-turn chats with the shopper's words as tool results ---


#: the reference agent reads the details of every hit of five search pages: long chats, kept whole here
MANY_TOKENS = 400_000


def test_session_runs_export_as_multi_turn_chats_with_the_tool_calls(tmp_path: Path) -> None:
    """Sessions played by the session family's reference agent through its own tools (each call logged as the
    gateway logs it), scored by the family and judged: they pass the funnel and are written as chats under the
    family's prompt and tool schemas, every ask_user and respond a tool call whose result holds the shopper's words."""
    from arena import tasks
    from arena.catalog.build import build_catalog
    from arena.tasks.session.problem import SessionProblem
    from tests.e2e.dashboard_history import play_session, session_run
    from validator.corpus.extract import gold_ids

    build_catalog(7, 5000, tmp_path / "catalog", force=True)
    catalog = Catalog.open(tmp_path / "catalog")
    problems = [p for p in tasks.family("session").generate(catalog, 2, tasks=("session",), seed=1).problems]
    assert len(problems) == 2 and all(isinstance(p, SessionProblem) for p in problems)
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    setup = make_chain(tmp_path, ["offline"])
    store.upsert_miners(setup.chain.metagraph().neurons)
    write_agent(tmp_path / "agent", "offline")
    hotkey = setup.miners["offline"].hotkey.ss58_address
    place_submission(store, tmp_path / "node", hotkey, tmp_path / "agent", block=10)
    store.add_pack(
        pack_id="sessions",
        name="sessions",
        digest="2" * 64,
        problems=[{**p.model_dump(mode="json"), "split": "race"} for p in problems],
    )
    store.create_race(
        race_id="race-sessions",
        pack_id="sessions",
        seed_block=5,
        seed_hash="sessions",
        problem_ids=[p.problem_id for p in problems],
    )
    (submission,) = store.latest_submissions()
    store.create_runs("race-sessions", [(submission, p.problem_id) for p in problems])
    played = {}
    for run in store.runs(race_id="race-sessions"):
        problem = next(p for p in problems if p.problem_id == run.problem_id)
        assert isinstance(problem, SessionProblem)
        outcome, events = play_session(problem, catalog)
        assert outcome.success, outcome
        session_run(store, run.run_id, problem, events, catalog)
        played[run.run_id] = events
    store.set_race_status("race-sessions", "closed")

    done = export_corpus(
        store,
        tmp_path / "corpus",
        ExportOptions(axis="b", judge_threshold=0.0, held_out_fraction=0.0, max_tokens=MANY_TOKENS),
    )
    assert done.train == 2 and done.eval == 0, drops(done.funnel)
    assert not drops(done.funnel), done.funnel
    rows = lines(tmp_path / "corpus" / "train.jsonl")
    for row in rows:
        meta = row["metadata"]
        assert meta["task"] == "session" and meta["axis"] == "B"
        events = played[meta["run_id"]]
        messages = row["messages"]
        system, user = messages[0], messages[1]
        # the session family's own prompt and tool schemas
        assert system["role"] == "system" and system["content"].startswith(tasks.family("session").corpus_prompt)
        names = {t["function"]["name"] for t in row["tools"]}
        assert {"get_user_profile", "ask_user", "respond", "recommend_product", "terminate"} <= names
        assert user == {
            "role": "user",
            "content": next(p.query for p in problems if p.problem_id == meta["problem_id"]),
        }
        # every gateway call a tool call and its result, in order: the conversation's moves with the shopper's words
        calls = [c for m in messages if m["role"] == "assistant" for c in m.get("tool_calls") or []]
        results = [m for m in messages if m["role"] == "tool"]
        assert [c["function"]["name"] for c in calls] == [e.name for e in events]
        assert [r["tool_call_id"] for r in results] == [c["id"] for c in calls]
        for call, result, event in zip(calls, results, events, strict=True):
            if event.name in ("ask_user", "respond"):
                said = json.loads(result["content"])
                assert said == event.result and said["user"]  # the shopper's reply: words, turns left, closed
                assert json.loads(call["function"]["arguments"]) == event.arguments
        # one product per item the shopper wanted (a session of several items commits "id1,id2")
        assert meta["recommended"] == json.loads(calls[-2]["function"]["arguments"])["product_ids"].split(",")
        assert calls[-1]["function"]["name"] == "terminate"
    # and in ShareGPT: the questions and proposals as <tool_call>s, the shopper's words in their <tool_response>s
    shared = export_corpus(
        store,
        tmp_path / "sharegpt",
        ExportOptions(axis="b", judge_threshold=0.0, held_out_fraction=0.0, max_tokens=MANY_TOKENS, format="sharegpt"),
    )
    assert shared.train == 2
    for row in lines(tmp_path / "sharegpt" / "train.jsonl"):
        text = "\n".join(t["value"] for t in row["conversations"])
        said = [e.result["user"] for e in played[row["metadata"]["run_id"]] if e.name in ("ask_user", "respond")]
        assert '"name":"ask_user"' in text and '"name":"respond"' in text
        assert all(json.dumps(w)[1:-1] in text for w in said)
    # the leak split knows a session's gold (its acceptable products), as it knows a ShoppingBench reward's
    assert all(gold_ids(p.model_dump(mode="json")) == tuple(p.gold_ids) for p in problems)
    assert json.loads((tmp_path / "corpus" / "stats.json").read_text())["audit"]["passed"]
    store.close()


# --- refusals: one line each, nothing written -----------------------------------------------------------------------


def test_bad_input_is_one_line_and_writes_nothing(tmp_path: Path) -> None:
    empty = f"sqlite:///{tmp_path / 'empty.sqlite'}"
    open_store(empty).close()
    cases = [
        (["--out", str(tmp_path / "a"), "--database-url", empty], "holds no runs yet"),
        (
            ["--out", str(tmp_path / "b"), "--database-url", empty, "--since", "2025-02-01", "--until", "2025-01-01"],
            "is not before --until",
        ),
        (
            ["--out", str(tmp_path / "c"), "--database-url", empty, "--near-duplicate", "0.9"],
            "--near-duplicate sets the threshold of --decontaminate",
        ),
        (
            ["--out", str(tmp_path / "d"), "--database-url", empty, "--held-out-fraction", "1"],
            "--held-out-fraction 1 must be at least 0 and below 1",
        ),
        (["--out", str(tmp_path / "e"), "--database-url", empty, "--format", "alpaca"], "unknown --format"),
        (["--out", str(tmp_path / "f"), "--database-url", empty, "--since", "yesterday"], "is not a date"),
        (
            ["--out", str(tmp_path / "g"), "--database-url", empty, "--decontaminate", str(tmp_path / "nope.jsonl")],
            "no such file",
        ),
        (["--out", str(tmp_path), "--database-url", empty], "already exists"),
    ]
    for args, message in cases:
        done = cli("corpus", "export", *args, cwd=tmp_path)
        errors = [line for line in done.stderr.splitlines() if line.strip()]
        assert done.returncode == 2, (args, done.stderr)
        assert len(errors) == 1 and errors[0].startswith("error:") and message in errors[0], (args, done.stderr)
    assert {p.name for p in tmp_path.iterdir()} <= {"empty.sqlite", "empty.sqlite-shm", "empty.sqlite-wal"}
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"query": "fine"}\n{"reward": {}}\n')
    with pytest.raises(CorpusError, match=r"bad.jsonl:2: no \"query\""):
        from validator.corpus import TestSet

        TestSet.load(bad)


# --- the split's leak audit, as a property -------------------------------------------------------------------------

PRODUCTS = [f"P{i}" for i in range(12)]


@st.composite
def corpora(draw: Any) -> tuple[dict[str, SplitProblem], list[SplitRow], set[str], float, int]:
    n = draw(st.integers(1, 10))
    problems = {}
    for i in range(n):
        golds = tuple(draw(st.lists(st.sampled_from(PRODUCTS), min_size=1, max_size=2, unique=True)))
        problems[f"p{i}"] = SplitProblem(
            problem_id=f"p{i}",
            cluster_id=f"c{draw(st.integers(0, 5))}",
            query=draw(st.sampled_from(["red lamp", "blue mug", "Red lamp!", "a tray", f"query {i}"])),
            golds=golds,
            split=draw(st.sampled_from(["race"] * 5 + ["held_out"])),
        )
    rows = [
        SplitRow(
            key=f"r{j}",
            problem_id=draw(st.sampled_from(sorted(problems))),
            recommended=tuple(draw(st.lists(st.sampled_from(PRODUCTS), max_size=3, unique=True))),
        )
        for j in range(draw(st.integers(0, 25)))
    ]
    held_out = set(draw(st.lists(st.sampled_from(PRODUCTS), max_size=3)))
    held_out |= {g for p in problems.values() if p.split == "held_out" for g in p.golds}
    return problems, rows, held_out, draw(st.sampled_from([0.0, 0.15, 0.5, 0.9])), draw(st.integers(0, 3))


@settings(max_examples=300, deadline=None)
@given(corpora())
def test_the_split_never_leaks(corpus: tuple[dict[str, SplitProblem], list[SplitRow], set[str], float, int]) -> None:
    problems, rows, held_out, fraction, seed = corpus
    outcome = split_corpus(problems, rows, held_out_fraction=fraction, seed=seed, held_out_answers=held_out)
    kept = [r for r in rows if r.key not in outcome.dropped]
    for row in rows:  # exactly the rows touching a held-out answer are dropped, with their reason
        problem = problems[row.problem_id]
        if problem.split == "held_out" or held_out & set(problem.golds):
            assert outcome.dropped.get(row.key) == "held_out_problem"
        elif held_out & set(row.recommended):
            assert outcome.dropped.get(row.key) == "recommends_held_out_answer"
        else:
            assert row.key not in outcome.dropped
    sides = {r.problem_id: outcome.side[r.problem_id] for r in kept}
    train = [r for r in kept if sides[r.problem_id] == "train"]
    held = [r for r in kept if sides[r.problem_id] == "eval"]
    answers = {
        s: {x for r in rs for x in (*problems[r.problem_id].golds, *r.recommended)}
        for s, rs in (("train", train), ("eval", held))
    }
    assert not answers["train"] & (answers["eval"] | held_out)
    for value in (lambda p: p.cluster_id, lambda p: query_text(p.query)):
        assert not {value(problems[r.problem_id]) for r in train} & {value(problems[r.problem_id]) for r in held}
    clusters: dict[str, set[str]] = {}
    for r in kept:  # a leak cluster is never cut
        clusters.setdefault(outcome.cluster[r.problem_id], set()).add(sides[r.problem_id])
    assert all(len(s) == 1 for s in clusters.values())
    if len(clusters) >= 2:
        assert train, "at least one cluster is left to train"
        assert bool(held) == (fraction > 0)
    audit = audit_split(((sides[r.problem_id], problems[r.problem_id], r.recommended) for r in kept), held_out)
    assert audit["passed"], audit
    if held:  # and the audit catches a leak: one eval problem's chat put in train
        leaky = [
            *((sides[r.problem_id], problems[r.problem_id], r.recommended) for r in kept),
            ("train", problems[held[0].problem_id], ()),
        ]
        assert not audit_split(leaky, held_out)["passed"]
