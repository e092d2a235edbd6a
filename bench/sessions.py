"""Shopping sessions benchmark (docs/sessions.md; prints figures, asserts nothing).

    python bench/sessions.py                       # 20k catalog, 60 generated sessions
    python bench/sessions.py --size 100k --generate 200 --ecom path/to/benchmark.jsonl

Rows:
- shopper replies per second through the family's tools (``ask_user`` and ``respond`` on a `SessionState`, as the
  gateway serves them): questions on the slots' topics, questions that match nothing, proposals of the opening's top
  hits; the session is restarted whenever the shopper closes it;
- tool-call time per session (the gateway's own overhead cannot be measured without a node): the reference agent's
  sessions with every call timed, split into the shopper's tools and the catalog's;
- generation: problems per second and the accepted share of the draws, rejections per self-check;
- success of the reference agent (the oracle), the offline template (``miner_template/offline``) and the blind
  agent per difficulty level (with a 95% interval over all) and per difficulty feature on the kept problems, and of
  the reference and blind agents on every draw that reached them (the kept problems pass the reference and fail the
  blind agent by construction: those two rows are a consistency check);
- the EComAgentBench importer on ``--ecom`` (default: the repository's fixture records): records imported, bad
  records, targets rebuilt, and how many pass each self-check.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import math
import shutil
import sys
import tempfile
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.catalog import Catalog  # noqa: E402
from arena.catalog.build import build_catalog  # noqa: E402
from arena.cliutil import parse_size  # noqa: E402
from arena.tasks.session.agents import blind_agent, passes_truth  # noqa: E402
from arena.tasks.session.generate import generate_report  # noqa: E402
from arena.tasks.session.importer import import_files  # noqa: E402
from arena.tasks.session.oracle import reference_agent  # noqa: E402
from arena.tasks.session.problem import SessionProblem  # noqa: E402
from arena.tasks.session.rebuild import rebuild_sessions, selfcheck_imported  # noqa: E402
from arena.tasks.session.selfcheck import CHECKS, opening_hits  # noqa: E402
from arena.tasks.session.tools import SHOPPER_TOOLS, SessionState, registry  # noqa: E402
from arena.tools.registry import ToolContext, ToolError, ToolRegistry  # noqa: E402

FIXTURE = ROOT / "tests" / "fixtures" / "ecomagentbench" / "benchmark_sample.jsonl"
LEVELS = ("easy", "medium", "hard")


class TimedRegistry(ToolRegistry):
    """The family's registry, timing every call by tool."""

    def __init__(self) -> None:
        super().__init__()
        for tool in registry():
            self.register(tool.fn, results=tool.results)
        self.seconds: dict[str, float] = defaultdict(float)
        self.calls: Counter[str] = Counter()

    def call(self, name: str, arguments: dict[str, Any] | str | None, ctx: ToolContext) -> Any:
        started = time.perf_counter()
        try:
            return super().call(name, arguments, ctx)
        finally:
            self.seconds[name] += time.perf_counter() - started
            self.calls[name] += 1


def _moves(problem: SessionProblem, catalog: Catalog) -> list[tuple[str, dict[str, Any]]]:
    """A mixed round of shopper moves for one problem."""
    moves: list[tuple[str, dict[str, Any]]] = [
        ("ask_user", {"question": f"Do you care about the {topic}?"})
        for c in problem.constraints
        for topic in c.topics[:1]
    ]
    moves.append(("ask_user", {"question": "Is the weather nice where you are?"}))
    moves += [
        ("respond", {"message": f"How about this one? It costs {d['price']:.2f}.", "product_ids": [d["product_id"]]})
        for d in opening_hits(problem, catalog)[:4]
    ]
    return moves


def shopper_rate(problems: list[SessionProblem], catalog: Catalog, replies: int) -> tuple[float, Counter[str]]:
    """(replies per second, outcomes) through ``ask_user``/``respond``, sessions restarted when closed."""
    tools = registry()
    rounds = [(p, _moves(p, catalog)) for p in problems]
    outcomes: Counter[str] = Counter()
    done = 0
    started = time.perf_counter()
    while done < replies:
        for problem, moves in rounds:
            ctx = ToolContext(catalog=catalog, state=SessionState(problem=problem))
            for name, arguments in moves:
                answer = tools.call(name, arguments, ctx)
                done += 1
                if answer["closed"]:
                    break
            assert isinstance(ctx.state, SessionState)
            outcomes.update(r.outcome for r in ctx.state.replies)
            if done >= replies:
                break
    return done / (time.perf_counter() - started), outcomes


def tool_time(problems: list[SessionProblem], catalog: Catalog) -> str:
    tools = TimedRegistry()
    for problem in problems:
        reference_agent(problem, catalog, tools)
    n = max(1, len(problems))
    shop = sum(tools.seconds[t] for t in SHOPPER_TOOLS)
    rest = sum(tools.seconds.values()) - shop
    calls = sum(tools.calls.values()) / n
    per = ", ".join(f"{t} {tools.seconds[t] / max(1, tools.calls[t]) * 1e3:.2f} ms" for t in sorted(tools.calls))
    return (
        f"tool calls per session (reference agent, {len(problems)} sessions): {calls:.1f} calls, "
        f"{(shop + rest) / n * 1e3:.1f} ms in tools ({shop / n * 1e3:.2f} ms shopper, {rest / n * 1e3:.1f} ms "
        f"catalog); per call: {per}"
    )


def _offline_template() -> Any:
    """The offline template's agent module (``miner_template/offline/agent.py``) and the SDK's ToolError."""
    sys.path.insert(0, str(ROOT / "sandbox" / "agent_sdk"))
    sdk = importlib.import_module("arena_agent")
    spec = importlib.util.spec_from_file_location(
        "bench_offline_agent", ROOT / "miner_template" / "offline" / "agent.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, sdk.ToolError


def offline_success(problem: SessionProblem, catalog: Catalog, agent: Any, sdk_error: type[Exception]) -> bool:
    tools = registry()
    ctx = ToolContext(catalog=catalog, state=SessionState(problem=problem))

    def call(name: str, **arguments: Any) -> Any:
        try:
            return tools.call(name, arguments, ctx)
        except ToolError as exc:
            raise sdk_error(str(exc)) from None

    try:
        agent.solve(problem.public(), call)
    except Exception as exc:  # noqa: BLE001 - a template failure is a failed session here, reported below
        print(f"  offline template raised on {problem.problem_id}: {exc!r}")
        return False
    assert isinstance(ctx.state, SessionState)
    st = ctx.state.shopper_state
    if st is None or st.ending != "agent_commit" or not st.committed:
        return False
    return passes_truth(problem, ",".join(st.committed), catalog)


def success_rows(problems: list[SessionProblem], catalog: Catalog) -> None:
    """Each agent's success per difficulty level, then per difficulty feature (``meta.features``; "none" for a plain
    one-item session), on the kept problems."""
    try:
        template, sdk_error = _offline_template()
    except Exception as exc:  # noqa: BLE001 - the template is optional for this benchmark
        print(f"offline template not loaded ({exc!r}); its row is skipped")
        template = None
    results: dict[str, list[bool]] = defaultdict(list)
    for p in problems:
        results["reference"].append(reference_agent(p, catalog).success)
        results["blind"].append(blind_agent(p, catalog).success)
        if template is not None:
            results["offline template"].append(offline_success(p, catalog, template, sdk_error))
    groups = {lv: [i for i, p in enumerate(problems) if p.difficulty == lv] for lv in LEVELS}
    names = sorted({f for p in problems for f in p.meta.get("features") or ["none"]})
    features = {f: [i for i, p in enumerate(problems) if f in (p.meta.get("features") or ["none"])] for f in names}
    for agent, wins in results.items():
        total = sum(wins)
        overall = f"all {total}/{len(problems)} {_ci(total, len(problems))}"
        print(f"success [{agent}] on kept problems: {_cells(wins, groups)}; {overall}")
    for agent, wins in results.items():
        print(f"success [{agent}] by feature: {_cells(wins, features)}")


def _cells(wins: list[bool], groups: dict[str, list[int]]) -> str:
    return ", ".join(
        f"{name} {sum(wins[i] for i in idx)}/{len(idx)} ({sum(wins[i] for i in idx) / len(idx):.0%})"
        for name, idx in groups.items()
        if idx
    )


def _ci(k: int, n: int) -> str:
    """The 95% Wilson interval of a success share, as "[lo%, hi%]"."""
    if not n:
        return ""
    z, p = 1.96, k / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return f"[95% {max(0.0, centre - half):.0%}-{min(1.0, centre + half):.0%}]"


def import_rows(path: Path, work: Path, size: int, seed: int) -> None:
    started = time.perf_counter()
    imported = import_files([path])
    out = work / f"ecom-{path.stem}"
    rebuilt = rebuild_sessions(imported.problems, out, background_size=size, background_seed=seed, force=True)
    check = selfcheck_imported(rebuilt.problems, Catalog.open(out))
    seconds = time.perf_counter() - started
    records = len(imported.problems) + len(imported.bad)
    passed = ", ".join(f"{c} {check.passed[c]}" for c in CHECKS)
    print(
        f"ecomagentbench [{path.name}]: {len(imported.problems)} of {records} records import "
        f"({len(imported.bad)} bad; dropped rubrics {dict(imported.dropped)}); {len(rebuilt.problems)} rebuilt on a "
        f"{size:,} background ({len(rebuilt.skipped)} left out); self-checks passed: {passed}; kept "
        f"{len(check.kept)} {dict(check.by_difficulty)} [{seconds:.1f}s]"
    )
    for line in imported.bad[:3] + check.failures[:3]:
        print(f"  {line}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--size", default="20k", help="catalog size")
    parser.add_argument("--generate", type=int, default=60, help="session problems to generate")
    parser.add_argument("--replies", type=int, default=5000, help="shopper replies to time")
    parser.add_argument(
        "--ecom", type=Path, nargs="+", default=[FIXTURE], help="EComAgentBench task record files (JSON Lines)"
    )
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    size = parse_size(args.size)
    work = Path(tempfile.mkdtemp(prefix="bench-sessions-"))
    try:
        build_catalog(args.seed, size, work / "catalog")
        catalog = Catalog.open(work / "catalog")
        started = time.perf_counter()
        report = generate_report(catalog, args.generate, seed=args.seed)
        gen_s = time.perf_counter() - started
        kept = report.problems
        print(
            f"generate: {len(kept)} of {args.generate} sessions in {gen_s:.1f}s = {len(kept) / gen_s:.2f} problems/s, "
            f"{report.attempts / gen_s:.1f} draws/s; accepted share {report.accepted_share:.1%} of "
            f"{report.attempts} draws; rejected {dict(sorted(report.rejected.items()))}; "
            f"{dict(sorted(report.by_difficulty.items()))} on {size:,}"
        )
        reached = report.rejected["solved"] + report.rejected["not_trivial"] + len(kept)
        ref_ok = report.rejected["not_trivial"] + len(kept)
        print(
            f"draws that reached the agents: {reached}; reference solved {ref_ok} ({ref_ok / max(1, reached):.0%}); "
            f"blind solved {report.rejected['not_trivial']} of those the reference solved "
            f"({report.rejected['not_trivial'] / max(1, ref_ok):.0%})"
        )
        if not kept:
            return
        rate, outcomes = shopper_rate(kept, catalog, args.replies)
        print(f"shopper: {rate:,.0f} replies/s through ask_user/respond; outcomes {dict(outcomes.most_common())}")
        print(tool_time(kept, catalog))
        success_rows(kept, catalog)
        for path in args.ecom:
            import_rows(path, work, min(size, 20_000), args.seed)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
