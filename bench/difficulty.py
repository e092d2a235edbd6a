"""Problem difficulty benchmark: who solves a pack's problems (prints figures; asserts nothing).

    python bench/difficulty.py --pack var/pack.json --catalog var/catalog --json var/difficulty.json
    python bench/difficulty.py --standin 900 --size 100k     # bench/scoring.py's made-up 900 records, rebuilt

Before publishing a pack the operator runs it on the pack and its catalog. Three agents try every problem:

- the blind agent: the top ``find_product`` hits for the query, as many as the problem asks for (a session: the
  opening's top hit committed); what a lazy agent stumbles on;
- the offline template (``miner_template/offline``), in-process against the family's real tools, scored by the
  pack's ruleset; the baseline a miner forks;
- the oracle: an agent that sees only what the tools return and checks each constraint as the reference does
  (ShoppingBench: ``arena.tasks.shoppingbench.fairness``; sessions: ``arena.tasks.session.oracle``); every playable
  problem should be solved by it. Families without one show "-".

Rows: success per task and difficulty level, then per task and overall, each with its 95% Wilson interval. A task
whose template success is above ``--too-easy`` (default: `TOO_EASY`, as `arena problems pack` warns) is flagged.
``--json FILE`` writes the figures and every problem's outcome; `arena problems pack --difficulty FILE` reads it.

``--standin N`` measures on bench/scoring.py's made-up ShoppingBench-format records (N in the real test set's
proportions), imported and rebuilt on a ``--size`` background, as ``arena problems import --rebuild-catalog`` does:
the real 900 records are not shipped with the repository. ``--records DIR`` measures the same way on the
ShoppingBench-format files in DIR (``synthesize_*.jsonl``: the real test set where you have it; it is read, never
copied).
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import json
import shutil
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from arena.catalog import Catalog  # noqa: E402
from arena.pooling.estimators import wilson  # noqa: E402
from arena.problems.difficulty import AGENTS, TOO_EASY, summarize, too_easy  # noqa: E402
from arena.tasks import family_for, score  # noqa: E402
from arena.tools import ToolError  # noqa: E402

SHOPPINGBENCH = ("product", "shop", "voucher", "web")


def load_template() -> tuple[Any, type[Exception]]:
    """The offline template's ``agent.py`` (as the sandbox loads it) and the SDK's ToolError."""
    sys.path.insert(0, str(ROOT / "sandbox" / "agent_sdk"))
    sdk = importlib.import_module("arena_agent")
    spec = importlib.util.spec_from_file_location("bench_offline_agent", ROOT / "miner_template/offline/agent.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module, sdk.ToolError


def template_ok(problem: Any, catalog: Catalog, agent: Any, sdk_error: type[Exception], **kw: Any) -> bool:
    """The offline template's run of ``problem`` through the family's real tools, scored by the strict check (a
    session: the product the shopper agreed to, checked against the final truth)."""
    fam = family_for(problem.task)
    tools = fam.tools()
    state = fam.run_state(problem)
    from arena.tools import ToolContext

    ctx = ToolContext(catalog=catalog, state=state)
    answers: list[str] = []

    def call(name: str, **arguments: Any) -> Any:
        if name == "recommend_product":
            answers.append(str(arguments.get("product_ids", "")))
        try:
            return tools.call(name, arguments, ctx)
        except ToolError as exc:
            raise sdk_error(str(exc)) from None

    agent.solve(problem.public(), call)
    if problem.task == "session":
        from arena.tasks.session.agents import passes_truth

        shopper = getattr(state, "shopper_state", None)
        if shopper is None or shopper.ending != "agent_commit" or not shopper.committed:
            return False
        return passes_truth(problem, ",".join(shopper.committed), catalog)
    return bool(answers) and bool(score(problem, answers[-1], catalog.get, **kw).success)


def blind_ok(problem: Any, catalog: Catalog, **kw: Any) -> bool | None:
    if problem.task == "session":
        from arena.tasks.session.agents import blind_agent

        return blind_agent(problem, catalog).success
    if problem.task in SHOPPINGBENCH:
        from arena.tasks.shoppingbench.selfcheck import blind_answers

        return bool(score(problem, blind_answers(problem, catalog)["query"], catalog.get, **kw).success)
    return None


def oracle_ok(problem: Any, catalog: Catalog, **kw: Any) -> bool | None:
    if problem.task == "session":
        from arena.tasks.session.oracle import reference_agent

        return reference_agent(problem, catalog).success
    if problem.task in SHOPPINGBENCH:
        from arena.tasks.shoppingbench.fairness import ToolView, oracle_answer

        answer = oracle_answer(problem, ToolView(catalog), **kw)
        return bool(answer) and bool(score(problem, answer, catalog.get, **kw).success)
    return None


def measure(
    problems: Sequence[Any],
    catalog: Catalog,
    ruleset_for: Callable[[str], str | None],
    vectors: Callable[[str], Any] | None,
    agents: Sequence[str],
) -> list[dict[str, Any]]:
    """Every problem's outcome for each agent (None: the agent does not play the family)."""
    template = load_template() if "template" in agents else None
    rows = []
    started = time.monotonic()
    for i, p in enumerate(problems):
        kw: dict[str, Any] = {}
        if p.task != "session":
            kw = {"ruleset": ruleset_for(p.task), "gold_vectors": vectors(p.problem_id) if vectors else None}
        row: dict[str, Any] = {"problem_id": p.problem_id, "task": p.task, "difficulty": p.difficulty}
        if "blind" in agents:
            row["blind"] = blind_ok(p, catalog, **kw)
        if template is not None:
            row["template"] = template_ok(p, catalog, *template, **kw)
        if "oracle" in agents:
            row["oracle"] = oracle_ok(p, catalog, **kw)
        rows.append(row)
        if (i + 1) % 50 == 0:
            print(f"  {i + 1}/{len(problems)} problems [{time.monotonic() - started:.0f}s]", file=sys.stderr)
    return rows


def _cell(k: int, n: int) -> str:
    lo, hi = wilson(k / n, n)
    return f"{k}/{n} {k / n:.0%} [{lo:.0%}-{hi:.0%}]"


def print_figures(figures: dict[str, Any], threshold: float) -> None:
    agents = [a for a in AGENTS if any(a in g["agents"] for g in figures["by_task"].values())]
    print(f"{'task':<10} {'difficulty':<10} {'n':>4}  " + "  ".join(f"{a:<22}" for a in agents))
    for task, group in figures["by_task"].items():
        levels = figures["by_task_difficulty"][task]
        for level, cells in [*levels.items(), ("all", group)]:
            shown = [_cell(cells["agents"][a]["k"], cells["n"]) if a in cells["agents"] else "-" for a in agents]
            print(f"{task:<10} {level:<10} {cells['n']:>4}  " + "  ".join(f"{c:<22}" for c in shown))
    total = figures["all"]
    shown = [_cell(total["agents"][a]["k"], total["n"]) if a in total["agents"] else "-" for a in agents]
    print(f"{'all':<10} {'':<10} {total['n']:>4}  " + "  ".join(f"{c:<22}" for c in shown))
    for task, rate in too_easy(figures, threshold).items():
        print(f"too easy to rank: {task}: the offline template solves {rate:.0%} (above {threshold:.0%})")


def standin(n: int, size: int, seed: int, work: Path) -> tuple[list[Any], Catalog]:
    """bench/scoring.py's made-up ShoppingBench records, imported and rebuilt on a ``size`` background."""
    sys.path.insert(0, str(ROOT / "bench"))
    from scoring import shoppingbench_files

    return rebuilt(shoppingbench_files(n, work, seed), size, work, f"stand-in: {n} made-up records")


def rebuilt(files: Sequence[Path], size: int, work: Path, what: str) -> tuple[list[Any], Catalog]:
    """ShoppingBench-format record files, imported and rebuilt on a ``size`` background."""
    from arena.tasks.shopping.rebuild import rebuild_catalog
    from arena.tasks.shoppingbench.importer import import_files

    imported = import_files(files)
    report = rebuild_catalog(imported.problems, work / "rebuilt", background_size=size, force=True)
    print(f"{what}, {len(report.problems)} playable on a {size:,} background")
    return list(report.problems), Catalog.open(work / "rebuilt")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--pack", type=Path, help="the pack to measure")
    parser.add_argument("--catalog", type=Path, help="the catalog the pack was made for")
    parser.add_argument("--standin", type=int, help="measure on N made-up ShoppingBench records instead")
    parser.add_argument("--records", type=Path, help="measure on the ShoppingBench-format files in this folder")
    parser.add_argument("--size", default="100k", help="the stand-in's (or the records') background catalog size")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--tasks", help="only these task types, comma-separated")
    parser.add_argument("--limit", type=int, help="at most this many problems per task")
    parser.add_argument("--agents", default=",".join(AGENTS), help="comma-separated: blind, template, oracle")
    parser.add_argument("--too-easy", type=float, default=TOO_EASY, help="flag tasks the template solves above this")
    parser.add_argument("--json", type=Path, help="write the figures and every problem's outcome here")
    args = parser.parse_args()
    agents = [a.strip() for a in args.agents.split(",") if a.strip()]
    if not set(agents) <= set(AGENTS):
        parser.error(f"--agents: one or more of {', '.join(AGENTS)}")
    work = Path(tempfile.mkdtemp(prefix="bench-difficulty-"))
    try:
        vectors = None
        ruleset_for: Callable[[str], str | None] = lambda task: None  # noqa: E731
        if args.standin:
            from arena.cliutil import parse_size

            problems, catalog = standin(args.standin, parse_size(args.size), args.seed, work)
        elif args.records:
            from arena.cliutil import parse_size

            files = sorted(args.records.glob("synthesize_*.jsonl"))
            if not files:
                parser.error(f"--records {args.records}: no synthesize_*.jsonl file there")
            problems, catalog = rebuilt(files, parse_size(args.size), work, f"{args.records}: {len(files)} files")
        elif args.pack and args.catalog:
            from arena.problems.pack import load_pack

            catalog = Catalog.open(args.catalog)
            pack = load_pack(args.pack, catalog_digest=catalog.digest, require_signature=False)
            problems, vectors, ruleset_for = list(pack.problems), pack.gold_vectors, pack.ruleset_for
        else:
            parser.error("give --pack and --catalog, --standin N or --records DIR")
        if args.tasks:
            problems = [p for p in problems if p.task in args.tasks.split(",")]
        if args.limit:
            seen: dict[str, int] = defaultdict(int)
            kept = []
            for p in problems:
                seen[p.task] += 1
                if seen[p.task] <= args.limit:
                    kept.append(p)
            problems = kept
        started = time.monotonic()
        rows = measure(problems, catalog, ruleset_for, vectors, agents)
        figures = summarize(rows)
        print_figures(figures, args.too_easy)
        print(f"[{time.monotonic() - started:.0f}s for {len(rows)} problems]")
        if args.json:
            args.json.write_text(json.dumps({**figures, "problems": rows}, indent=1))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
