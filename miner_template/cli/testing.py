"""`arena-miner test`: run an agent on problems with exactly the validator's harness, gateway, scoring and judge,
and print a scorecard; ``--k N`` runs each problem N times and reports pass^k (tau-bench's reliability: solved in
all N runs) beside pass@1. Problems of any task family run (a session's report holds its conversation)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cliutil import err, fail, progress_bar
from miner_template.cli.app import CACHE, DEFAULT_TIMEOUT
from miner_template.cli.bundle import pack_or_exit
from miner_template.cli.options import check_llm_options, check_test_options
from miner_template.cli.paying import ApiKeyEnv, LlmPrice, gateway_route, parse_price
from miner_template.cli.scorecard import first_line, llm_notes, run_row, write_run, write_scorecard


def test_cmd(
    directory: Annotated[Path, typer.Argument(help="The agent bundle folder.")],
    problems_path: Annotated[
        Path | None,
        typer.Option(
            "--problems",
            help="A problem pack or a JSONL of problems (default: a cached public pack on a small catalog).",
        ),
    ] = None,
    catalog_dir: Annotated[Path | None, typer.Option("--catalog", help="The pack's catalog.")] = None,
    n: Annotated[int, typer.Option("--n", help="How many problems to run.")] = 12,
    task: Annotated[
        str | None,
        typer.Option(
            "--task",
            help="Only problems of this task type (e.g. session): the default problems are then a cached public "
            "pack of that task; of a --problems pack, only its problems of that task run.",
        ),
    ] = None,
    k: Annotated[int, typer.Option("--k", help="Run each problem K times; report pass^K beside pass@1.")] = 1,
    sandbox: Annotated[str, typer.Option("--sandbox", help="process (bubblewrap) or docker.")] = "process",
    unsafe_local: Annotated[
        bool,
        typer.Option(
            "--unsafe-local", help="Run the agent as a plain subprocess: NO isolation. For quick local debugging."
        ),
    ] = False,
    timeout: Annotated[float, typer.Option(help="Per-problem wall-clock limit in seconds.")] = DEFAULT_TIMEOUT,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Where trajectories and reports go.")] = None,
    llm_base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible endpoint the gateway proxies (with --model).")
    ] = None,
    model: Annotated[
        list[str] | None,
        typer.Option(
            "--model",
            help="Model(s) the agent may call at --llm-base-url; "
            "the first is the one it is told to use "
            "($ARENA_LLM_MODEL), as a validator tells it "
            "its --gateway.models.",
        ),
    ] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the scorecard as JSON here.")] = None,
    judge_name: Annotated[
        str, typer.Option("--judge", help="Reasoning judge: offline (no LLM, the validator's default), llm, or none.")
    ] = "offline",
    judge_url: Annotated[
        str | None,
        typer.Option("--judge-url", help="OpenAI-compatible endpoint of the LLM judge (default: --llm-base-url)."),
    ] = None,
    judge_model: Annotated[
        list[str] | None, typer.Option("--judge-model", help="The LLM judge's model(s), tried in order.")
    ] = None,
    api_key_env: ApiKeyEnv = None,
    llm_price: LlmPrice = None,
) -> None:
    """Run the agent on problems with the validator's harness and gateway, score each run, print a scorecard."""
    out_dir = out_dir or Path("var") / "miner-test" / time.strftime("%Y%m%d-%H%M%S")
    check_test_options(n, timeout, problems_path, catalog_dir, json_out, out_dir, k)
    check_llm_options(llm_base_url, model or [])
    parse_price(llm_price)
    bundle = pack_or_exit(directory)
    backend = _backend(sandbox, unsafe_local)
    judge = _judge(judge_name, judge_url or llm_base_url, judge_model or [])
    catalog, problems, pack = _open_problems(problems_path, catalog_dir, n, task)
    (out_dir / "trajectories").mkdir(parents=True, exist_ok=True)
    (out_dir / "reports").mkdir(parents=True, exist_ok=True)
    upstream, route = gateway_route(llm_base_url, model or [], api_key_env, llm_price)
    ran = _run_problems(bundle, backend, judge, catalog, problems, pack, (upstream, route), out_dir, timeout, k)
    model_used = model[0] if llm_base_url and model else None
    notes = llm_notes(ran.asked, llm_base_url, model or [])
    write_scorecard(ran, bundle, backend, model_used, notes, k, out_dir, json_out)
    if ran.faults:
        fail(
            f"{ran.faults} run(s) hit a fault of the harness, sandbox, gateway, LLM endpoint or judge (not the "
            f"agent's doing: a validator retries such runs and never scores them); see {out_dir}/reports",
            code=3,
        )


def _open_problems(
    problems_path: Path | None, catalog_dir: Path | None, n: int, task: str | None = None
) -> tuple[Any, list[Any], Any]:
    """The catalog, the first `n` problems (of task type ``task``, if given) and their pack (default: the cached
    public pack on a small catalog)."""
    from arena.catalog import Catalog, CatalogError
    from arena.tasks import all_tasks

    if task is not None and task not in all_tasks():
        fail(f"unknown task type {task!r}; use one of: {', '.join(all_tasks())}")
    if problems_path is None:
        catalog_dir, problems_path = _default_problems(max(n, 12), task)
    assert catalog_dir is not None
    try:
        catalog = Catalog.open(catalog_dir)
    except CatalogError as exc:
        fail(str(exc))
    problems, pack = _load_problems(problems_path, catalog.digest)
    if task is not None:
        problems = [p for p in problems if p.task == task]
        if not problems:
            fail(f"{problems_path} holds no {task} problems")
    return catalog, problems[:n], pack


@dataclass
class _Ran:
    """What the runs of one `arena-miner test` gave: a row per run, (task, score) per run, each problem's task and
    the success of each of its runs, how many hit a fault of ours, and the model every chat call of the agents named
    (served or refused)."""

    rows: list[dict[str, Any]] = field(default_factory=list)
    results: list[tuple[str, Any]] = field(default_factory=list)
    attempts: dict[str, tuple[str, list[bool]]] = field(default_factory=dict)
    faults: int = 0
    asked: list[str] = field(default_factory=list)


def _run_problems(
    bundle: Any,
    backend: Any,
    judge: Any,
    catalog: Any,
    problems: list[Any],
    pack: Any,
    upstream: Any,
    out_dir: Path,
    timeout: float,
    k: int = 1,
) -> _Ran:
    """Run the bundle ``k`` times on each problem behind one gateway, score and judge each run, write its trajectory
    and report; on Ctrl-C or SIGTERM the running sandbox is stopped, what ran is kept and the command exits 130
    (143 for SIGTERM)."""
    from sandbox.bundle import unpack
    from sandbox.gateway import Gateway, GatewayServer, JsonlRecorder

    work = Path(tempfile.mkdtemp(prefix="shoparena-"))
    os.chmod(work, 0o711)
    ran = _Ran()
    try:
        agent_dir = unpack(bundle.data, work / "agent")
        upstream, route = upstream  # the node's endpoint, and the miner's own key where it pays (`paying`)
        gateway = Gateway(catalog, upstream=upstream, recorder=JsonlRecorder(out_dir / "gateway.jsonl"))
        with _stopped_by_signals(backend), GatewayServer(gateway, work / "gw" / "gateway.sock"), progress_bar() as bar:
            task = bar.add_task("running problems", total=len(problems) * k, rate="")
            for problem in problems:
                for trial in range(1, k + 1):
                    outcome = asyncio.run(_run(gateway, backend, agent_dir, work / "gw", problem, timeout, route))
                    _one_run(ran, judge, catalog, pack, problem, outcome, out_dir, trial, k)
                    bar.advance(task)
    except KeyboardInterrupt as stop:
        by = signal.Signals(stop.signum).name if isinstance(stop, Stopped) else "SIGINT"
        err.print(
            f"{'interrupted' if by == 'SIGINT' else f'stopped by {by}'}: {len(ran.rows)} of {len(problems) * k} "
            f"{'problems' if k == 1 else 'runs'} ran; their trajectories ({out_dir / 'trajectories'}) and reports "
            f"({out_dir / 'reports'}) are kept, the interrupted run's sandbox was stopped and the run dropped, and no "
            "scorecard was written",
            highlight=False,
        )
        raise typer.Exit(143 if by == "SIGTERM" else 130) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return ran


class Stopped(KeyboardInterrupt):
    """The command was stopped by a signal (``signum``) once its running sandboxes were."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


@contextmanager
def _stopped_by_signals(backend: Any) -> Iterator[None]:
    """While runs go on, Ctrl-C and SIGTERM first stop the running sandboxes (a process tree in a session of its own,
    or a container, outlives the command that started it), then raise `Stopped` where the command is."""

    def stop(signum: int, frame: Any) -> None:
        backend.stop_running()
        raise Stopped(signum)

    before = {sig: signal.signal(sig, stop) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)


def _one_run(
    ran: _Ran,
    judge: Any,
    catalog: Any,
    pack: Any,
    problem: Any,
    outcome: Any,
    out_dir: Path,
    trial: int = 1,
    k: int = 1,
) -> None:
    """One finished run (run ``trial`` of ``k`` of its problem): its verdict exactly as a validator gives it
    (`arena.verdict.decide`), counted and written. A run the validator would retry (its own fault: the sandbox, the
    gateway, the upstream LLM, an unreachable judge) is reported as such and never scored."""
    from arena import verdict

    decided = verdict.decide(
        problem,
        outcome.facts(),
        catalog.get,
        ruleset=pack.ruleset_for(problem.task),
        gold_vectors=pack.gold_vectors(problem.problem_id),
        judge=judge,
    )
    ran.faults += decided.retry
    ran.asked += [
        e.name
        for e in outcome.events  # the model each chat call named ("" for none)
        if e.kind == "llm_call" and e.name not in ("models", "chat.completions")
    ]
    if decided.retry:
        err.print(
            f"[yellow]{problem.problem_id}[/]: the validator would retry this run, never score it "
            f"({decided.code}: {first_line(decided.error)[:200]})",
            highlight=False,
        )
    else:
        ran.results.append((problem.task, decided.strict))
        ran.attempts.setdefault(problem.problem_id, (problem.task, []))[1].append(decided.success)
    ran.rows.append(run_row(problem, outcome, decided, trial))
    write_run(out_dir, problem, outcome, decided, trial, k)


def _default_problems(n: int, task: str | None = None) -> tuple[Path, Path]:
    """A small catalog and a public problem pack (ShoppingBench's mix, or problems of task type ``task``), built
    once and cached."""
    from arena.catalog import Catalog
    from arena.catalog.build import build_catalog
    from arena.problems.pack import new_pack, write_pack
    from arena.tasks import family

    catalog_dir = CACHE / "catalog"
    pack_path = CACHE / (f"public-{n}.json" if task is None else f"public-{task}-{n}.json")
    if not (catalog_dir / "catalog.json").exists():
        err.print("building the default test catalog (once) ...")
        with progress_bar() as bar:
            built = bar.add_task("building the default catalog", total=20_000, rate="")
            build_catalog(0, 20_000, catalog_dir, force=catalog_dir.exists(), progress=lambda k: bar.advance(built, k))
    if not pack_path.exists():
        err.print(f"making the default public pack of {n} problems (once) ...")
        catalog = Catalog.open(catalog_dir)
        with progress_bar() as bar:
            made_so_far = bar.add_task("making the default pack", total=n, rate="")
            if task is None:  # the first built-in family's mix (ShoppingBench's four task types)
                fam = family("shoppingbench")
                made = fam.generate(catalog, n, tasks=fam.tasks, seed=0, progress=lambda k: bar.advance(made_so_far, k))
                problems, version = list(made.problems), made.version
            else:
                problems, version = _generate(catalog, n, task, progress=lambda k: bar.advance(made_so_far, k))
        write_pack(new_pack(problems, catalog_digest=catalog.digest, generator_version=version), pack_path)
    return catalog_dir, pack_path


def _generate(catalog: Any, n: int, task: str, *, progress: Any = None) -> tuple[list[Any], str]:
    """``n`` public problems of task type ``task`` from its family's generator, and the generator's version."""
    from arena.tasks import family_for

    err.print(f"generating {n} {task} problems for the default test pack (once) ...")
    made = family_for(task).generate(catalog, n, tasks=[task], seed=0, progress=progress)
    if not made.problems:
        fail(f"the {task} generator kept no problem: {'; '.join(made.skipped[:3]) or 'no reason given'}")
    return list(made.problems), made.version


def _load_problems(path: Path, catalog_digest: str) -> tuple[list[Any], Any]:
    """A problem pack, or a JSONL file of problems (one `Problem` per line, as `arena problems show` prints)."""
    from pydantic import ValidationError

    from arena.problems.pack import PackError, load_pack, new_pack
    from arena.tasks import parse_problem

    if path.suffix == ".jsonl":
        problems = []
        for lineno, line in enumerate(path.read_text().splitlines(), start=1):
            if line.strip():
                try:
                    problems.append(parse_problem(json.loads(line)))
                except (ValidationError, ValueError) as exc:
                    why = exc.errors()[0]["msg"] if isinstance(exc, ValidationError) else str(exc)
                    fail(f"{path}:{lineno}: not a problem ({why})")
        if not problems:
            fail(f"{path} holds no problems")
        pack = new_pack(problems, catalog_digest=catalog_digest, generator_version="jsonl")
        return pack.problems, pack
    try:
        pack = load_pack(path, catalog_digest=catalog_digest, require_signature=False)
    except PackError as exc:
        fail(str(exc))
    return pack.problems, pack


def _backend(name: str, unsafe_local: bool) -> Any:
    """The sandbox backend (`sandbox.backends.open_backend`, the validator's one choice); one line and exit 2 when
    it cannot run here."""
    from sandbox.backends import BackendUnavailable, open_backend

    if unsafe_local and name == "process":
        err.print(
            "[bold yellow]warning:[/] --unsafe-local runs the agent as a plain subprocess: it can read your "
            "files, your environment and reach your network. Use it only for agents you wrote."
        )
    try:
        return open_backend(name, unsafe_local=unsafe_local)
    except ValueError as exc:
        fail(str(exc))
    except BackendUnavailable as exc:
        fail(f"{exc} (or pass --unsafe-local to run without isolation)" if name == "process" else str(exc))


async def _run(
    gateway: Any, backend: Any, agent_dir: Path, socket_dir: Path, problem: Any, timeout: float, route: Any = None
) -> Any:
    from sandbox.backends import Limits
    from sandbox.run import run_one

    limits = Limits(wall_seconds=timeout)
    return await run_one(gateway, backend, agent_dir, socket_dir, problem, limits=limits, route=route)


def _judge(name: str, url: str | None, models: list[str]) -> Any:
    if name == "none":
        return None
    if name == "offline":
        from arena.judge.offline import OfflineJudge

        return OfflineJudge()
    if name != "llm":
        fail(f"unknown judge {name!r}; use offline, llm or none")
    if not url or not models:
        fail("--judge llm needs an endpoint (--judge-url or --llm-base-url) and at least one --judge-model")
    from arena.judge.llm import LLMJudge

    return LLMJudge(url, models, api_key=os.environ.get("OPENAI_API_KEY"))
