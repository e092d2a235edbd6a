"""``arena-miner``: write an agent, check it, and test it with exactly the validator's harness."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena.cliutil import err, fail, out, progress_bar
from arena.log import configure_logging

app = typer.Typer(name="arena-miner", help="Miner tools: init, check, test, submit and serve an agent bundle.",
                  no_args_is_help=True, pretty_exceptions_enable=False, add_completion=False)
TEMPLATES = Path(__file__).resolve().parent
CACHE = Path(os.environ.get("ARENA_CACHE", Path(__file__).resolve().parent.parent / "var" / "miner-cache"))
DEFAULT_TIMEOUT = 300.0


@app.callback()
def _main() -> None:
    configure_logging()


@app.command("init")
def init_cmd(
    directory: Annotated[Path, typer.Argument(help="Folder to create the agent in.")],
    template: Annotated[str, typer.Option(help="offline (no LLM), llm (a tool-calling loop) or sn15 (subnet 15's "
                                               "one-file contract: a ReAct loop through the proxy's routes).")]
    = "offline",
    force: Annotated[bool, typer.Option("--force", help="Write into a folder that is not empty.")] = False,
) -> None:
    """Start an agent from a template: agent.py with agent_main(problem) -> dict | None."""
    if template not in ("offline", "llm", "sn15"):
        fail(f"unknown template {template!r}; use offline, llm or sn15")
    if directory.exists() and any(directory.iterdir()) and not force:
        fail(f"{directory} is not empty; choose another folder or pass --force")
    from sandbox.bundle import copy_dir

    copy_dir(TEMPLATES / template, directory)
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in (TEMPLATES / template).iterdir()
                   if not p.name.startswith((".", "__")))
    out.print(f"wrote {', '.join(names)} in {directory} ({template} template; start with agent.py); next: "
              f"arena-miner test {directory}", highlight=False)


@app.command("check")
def check_cmd(directory: Annotated[Path, typer.Argument(help="The agent bundle folder.")]) -> None:
    """Validate a bundle: layout, limits, no symlinks or devices, every .py parses, agent_main's signature."""
    from sandbox.bundle import BundleError, check_dir, pack_dir

    problems = check_dir(directory)
    if not problems:
        try:
            bundle = pack_dir(directory)
        except BundleError as exc:
            problems = exc.problems
        else:
            out.print(f"ok: {bundle.files} files, {bundle.unpacked_bytes:,} bytes, {len(bundle.data):,} packed; "
                      f"sha256 {bundle.sha256}", highlight=False)
            _print_contract(directory)
            return
    for problem in problems:
        err.print(f"[bold red]error:[/] {problem}", highlight=False)
    raise typer.Exit(1)


def _print_contract(directory: Path) -> None:
    """Which contract the agent follows (read from its imports, no flag) and imports the sandbox lacks."""
    from sandbox.contracts import inspect_bundle

    report = inspect_bundle(directory)
    if report.contract == "sn15":
        out.print(f"SN15 agent (imports {', '.join(report.sn15_imports)}): agent_main returns its dialogue steps; "
                  "the last recommend_product among them is handed to the gateway as your answer, and the gateway's "
                  "log, not the steps, is what is scored", highlight=False)
    for warning in report.warnings():
        err.print(f"[bold yellow]warning:[/] {warning}", highlight=False)


def _default_problems(n: int) -> tuple[Path, Path]:
    """A small catalog and a public problem pack, built once and cached."""
    from arena.catalog import Catalog
    from arena.catalog.build import build_catalog
    from arena.problems.generate import GENERATOR_VERSION, generate_problems
    from arena.problems.pack import new_pack, write_pack

    catalog_dir, pack_path = CACHE / "catalog", CACHE / f"public-{n}.json"
    if not (catalog_dir / "catalog.json").exists():
        err.print("building the default test catalog (once) ...")
        build_catalog(0, 20_000, catalog_dir, force=catalog_dir.exists())
    if not pack_path.exists():
        catalog = Catalog.open(catalog_dir)
        report = generate_problems(catalog, n, seed=0)
        write_pack(new_pack(report.problems, catalog_digest=catalog.digest, generator_version=GENERATOR_VERSION),
                   pack_path)
    return catalog_dir, pack_path


def _load_problems(path: Path, catalog_digest: str) -> tuple[list[Any], Any]:
    """A problem pack, or a JSONL file of problems (one `Problem` per line, as `arena problems show` prints)."""
    from pydantic import ValidationError

    from arena.problems import Problem
    from arena.problems.pack import PackError, load_pack, new_pack

    if path.suffix == ".jsonl":
        problems = []
        for lineno, line in enumerate(path.read_text().splitlines(), start=1):
            if line.strip():
                try:
                    problems.append(Problem.model_validate_json(line))
                except ValidationError as exc:
                    fail(f"{path}:{lineno}: not a problem ({exc.errors()[0]['msg']})")
        if not problems:
            fail(f"{path} holds no problems")
        pack = new_pack(problems, catalog_digest=catalog_digest, generator_version="jsonl")
        return pack.problems, pack
    try:
        pack = load_pack(path, catalog_digest=catalog_digest, require_signature=False)
    except PackError as exc:
        fail(str(exc))
    return pack.problems, pack


@app.command("test")
def test_cmd(
    directory: Annotated[Path, typer.Argument(help="The agent bundle folder.")],
    problems_path: Annotated[Path | None, typer.Option("--problems", help="A problem pack or a JSONL of problems "
                                                                          "(default: a cached public pack on a small "
                                                                          "catalog).")] = None,
    catalog_dir: Annotated[Path | None, typer.Option("--catalog", help="The pack's catalog.")] = None,
    n: Annotated[int, typer.Option("--n", help="How many problems to run.")] = 12,
    sandbox: Annotated[str, typer.Option("--sandbox", help="process (bubblewrap) or docker.")] = "process",
    unsafe_local: Annotated[bool, typer.Option("--unsafe-local", help="Run the agent as a plain subprocess: NO "
                                                                      "isolation. For quick local debugging.")] = False,
    timeout: Annotated[float, typer.Option(help="Per-problem wall-clock limit in seconds.")] = DEFAULT_TIMEOUT,
    out_dir: Annotated[Path | None, typer.Option("--out", help="Where trajectories and reports go.")] = None,
    llm_base_url: Annotated[str | None, typer.Option(help="OpenAI-compatible endpoint the gateway proxies (with "
                                                          "--model).")] = None,
    model: Annotated[list[str] | None, typer.Option("--model", help="Model(s) the agent may call at --llm-base-url; "
                                                                    "the first is the one it is told to use "
                                                                    "($ARENA_LLM_MODEL), as a validator tells it "
                                                                    "its --gateway.models.")] = None,
    json_out: Annotated[Path | None, typer.Option("--json", help="Write the scorecard as JSON here.")] = None,
    judge_name: Annotated[str, typer.Option("--judge", help="Reasoning judge: offline (no LLM, the validator's "
                                                            "default), llm, or none.")] = "offline",
    judge_url: Annotated[str | None, typer.Option("--judge-url", help="OpenAI-compatible endpoint of the LLM judge "
                                                                      "(default: --llm-base-url).")] = None,
    judge_model: Annotated[list[str] | None, typer.Option("--judge-model", help="The LLM judge's model(s), tried "
                                                                                "in order.")] = None,
) -> None:
    """Run the agent on problems with the validator's harness and gateway, score each run, print a scorecard."""
    from arena.catalog import Catalog, CatalogError
    from arena.scoring import aggregate, score_run
    from sandbox.bundle import BundleError, pack_dir, unpack
    from sandbox.gateway import Gateway, GatewayServer, JsonlRecorder, Upstream

    if n < 1:
        fail(f"--n must be at least 1, got {n}")
    if timeout <= 0:
        fail(f"--timeout must be positive, got {timeout}")
    if (problems_path is None) != (catalog_dir is None):
        fail("--problems and --catalog go together (the pack's catalog); give both or neither")
    if json_out is not None and json_out.is_dir():
        fail(f"--json {json_out} is a folder; give a file name inside it")
    if json_out is not None and not json_out.parent.is_dir():
        fail(f"--json: folder {json_out.parent} does not exist; create it first")
    if out_dir is not None and out_dir.exists() and not out_dir.is_dir():
        fail(f"--out {out_dir} is a file; give a folder for the trajectories and reports")
    _check_llm_options(llm_base_url, model or [])
    try:
        bundle = pack_dir(directory)
    except BundleError as exc:
        for problem in exc.problems:
            err.print(f"[bold red]error:[/] {problem}", highlight=False)
        raise typer.Exit(1) from None
    backend = _backend(sandbox, unsafe_local)
    judge = _judge(judge_name, judge_url or llm_base_url, judge_model or [])
    if problems_path is None:
        catalog_dir, problems_path = _default_problems(max(n, 12))
    assert catalog_dir is not None
    try:
        catalog = Catalog.open(catalog_dir)
    except CatalogError as exc:
        fail(str(exc))
    problems, pack = _load_problems(problems_path, catalog.digest)
    problems = problems[:n]
    out_dir = out_dir or Path("var") / "miner-test" / time.strftime("%Y%m%d-%H%M%S")
    (out_dir / "trajectories").mkdir(parents=True, exist_ok=True)
    (out_dir / "reports").mkdir(parents=True, exist_ok=True)
    upstream = Upstream(base_url=llm_base_url, api_key=os.environ.get("OPENAI_API_KEY"), models=model or [])
    work = Path(tempfile.mkdtemp(prefix="shoparena-"))
    os.chmod(work, 0o711)
    rows: list[dict[str, Any]] = []
    results: list[tuple[str, Any]] = []
    faults = 0
    asked: list[str] = []  # the model of every chat call the agents made, served or refused
    try:
        agent_dir = unpack(bundle.data, work / "agent")
        gateway = Gateway(catalog, upstream=upstream, recorder=JsonlRecorder(out_dir / "gateway.jsonl"))
        with GatewayServer(gateway, work / "gw" / "gateway.sock"), progress_bar() as bar:
            task = bar.add_task("running problems", total=len(problems), rate="")
            for problem in problems:
                outcome = asyncio.run(_run(gateway, backend, agent_dir, work / "gw", problem, timeout))
                score = None
                if outcome.result.status == "ok":
                    score = score_run(problem, outcome.answer, catalog.get, gold_vectors=pack.gold_vectors(
                        problem.problem_id), ruleset=pack.ruleset)
                code, _ = outcome.error_code()  # as a validator would blame it (arena.blame)
                faults += code is not None and code >= 2000
                asked += [e.name for e in outcome.events  # the model each chat call named ("" for none)
                          if e.kind == "llm_call" and e.name not in ("models", "chat.completions")]
                verdict = _verdict(judge, problem, outcome, score)
                results.append((problem.task, score))
                rows.append(_row(problem, outcome, score, verdict))
                _write_run(out_dir, problem, outcome, score, verdict)
                bar.advance(task)
    except KeyboardInterrupt:
        err.print(f"interrupted: {len(rows)} of {len(problems)} problems ran; their trajectories "
                  f"({out_dir / 'trajectories'}) and reports ({out_dir / 'reports'}) are kept, the interrupted run "
                  "is dropped and no scorecard was written", highlight=False)
        raise typer.Exit(130) from None
    finally:
        shutil.rmtree(work, ignore_errors=True)
    suite = aggregate(results)
    notes = _llm_notes(asked, llm_base_url, model or [])
    from arena.scoring.rulesets import get_ruleset

    ruleset = get_ruleset(pack.ruleset)
    scorecard = {"bundle_sha256": bundle.sha256, "backend": backend.name, "ruleset": ruleset.describe(),
                 "suite": suite.model_dump(),
                 "llm_model": upstream.models[0] if llm_base_url and upstream.models else None, "notes": notes,
                 "problems": rows}
    (out_dir / "scorecard.json").write_text(json.dumps(scorecard, indent=1))
    if json_out is not None:
        json_out.write_text(json.dumps(scorecard, indent=1))
    _print_scorecard(suite, rows, out_dir, ruleset=ruleset.name)
    for note in notes:
        out.print(f"[bold yellow]note:[/] {note}", highlight=False, soft_wrap=True)
    if faults:
        fail(f"{faults} run(s) hit a fault of the harness, sandbox, gateway or LLM endpoint (not the agent's doing; a "
             f"validator retries such runs); see {out_dir}/reports", code=3)


def _check_llm_options(base_url: str | None, models: list[str]) -> None:
    """--llm-base-url and --model go together; one line naming the missing half."""
    if base_url and not models:
        fail("--llm-base-url needs --model M: the model the agent is told to use at that endpoint")
    if models and not base_url:
        fail("--model needs --llm-base-url URL: the OpenAI-compatible endpoint that serves the model")
    if base_url and not base_url.startswith(("http://", "https://")):
        fail(f"--llm-base-url {base_url!r} is not an http:// or https:// URL")


def _llm_notes(asked: list[str], base_url: str | None, models: list[str]) -> list[str]:
    """One line each for LLM calls the gateway could not serve: no endpoint at all, or a model not allowed."""
    if not asked:
        return []
    if not base_url:
        return [f"the agent called the LLM {len(asked)} time(s), but no LLM endpoint is configured, so every call was "
                "refused; pass --llm-base-url URL --model M (any OpenAI-compatible server) to serve it"]
    refused = sorted({m for m in asked if m not in models})
    if not refused:
        return []
    count = sum(1 for m in asked if m not in models)
    return [f"the agent asked for model(s) {', '.join(map(repr, refused))} {count} time(s), which --model does not "
            f"allow ({', '.join(models)}); use the model in $ARENA_LLM_MODEL (arena_agent.llm_model()) or add it "
            "with --model"]


def _backend(name: str, unsafe_local: bool) -> Any:
    from sandbox.backends.process import ProcessSandbox, SandboxUnavailable

    if name not in ("process", "docker"):
        fail(f"unknown sandbox {name!r}; use process or docker")
    if name == "docker":
        from sandbox.backends.docker import DockerSandbox, DockerUnavailable

        if unsafe_local:
            fail("--unsafe-local applies to the process sandbox only; drop it or use --sandbox process")
        try:
            return DockerSandbox()
        except DockerUnavailable as exc:
            fail(str(exc))
    if unsafe_local:
        err.print("[bold yellow]warning:[/] --unsafe-local runs the agent as a plain subprocess: it can read your "
                  "files, your environment and reach your network. Use it only for agents you wrote.")
    try:
        return ProcessSandbox("bare" if unsafe_local else "bwrap")
    except SandboxUnavailable as exc:
        fail(f"{exc} (or pass --unsafe-local to run without isolation)")


async def _run(gateway: Any, backend: Any, agent_dir: Path, socket_dir: Path, problem: Any, timeout: float) -> Any:
    from sandbox.backends import Limits
    from sandbox.run import run_one

    return await run_one(gateway, backend, agent_dir, socket_dir, problem.public(), limits=Limits(wall_seconds=timeout))


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


def _verdict(judge: Any, problem: Any, outcome: Any, score: Any) -> Any:
    """The judge's verdict on a run the sandbox completed; a judge that cannot judge is shown, never a zero."""
    from arena.judge import JudgeUnavailable

    if judge is None or score is None:
        return None
    try:
        verdict = judge.judge(problem.public(), outcome.events)
    except JudgeUnavailable as exc:
        err.print(f"[yellow]{problem.problem_id}[/]: judge unavailable ({exc})", highlight=False)
        return None
    score.judge_quality, score.judge_coefficient = verdict.quality, verdict.coefficient
    score.final = judge.rubric.final(score.success, verdict.quality)
    return verdict


def _row(problem: Any, outcome: Any, score: Any, verdict: Any = None) -> dict[str, Any]:
    final = (score.final if verdict is not None else float(score.success)) if score is not None else 0.0
    code, error = outcome.error_code()  # as a validator would blame it: no answer 1006, upstream LLM down 2005...
    return {"problem_id": problem.problem_id, "task": problem.task, "status": outcome.result.status,
            "error_code": code, "error": error,
            "success": bool(score and score.success), "gt": score.gt if score else 0.0,
            "rule": score.rule if score else 0.0, "answer": score.answer if score else [],
            "raw_answer": outcome.answer, "tool_calls": outcome.tool_calls,
            "llm_calls": outcome.llm_calls, "seconds": round(outcome.result.elapsed_s, 2),
            "judge_gate": verdict.gate if verdict else None, "judge_quality": verdict.quality if verdict else None,
            "final": final}


def _write_run(out_dir: Path, problem: Any, outcome: Any, score: Any, verdict: Any = None) -> None:
    with open(out_dir / "trajectories" / f"{problem.problem_id}.jsonl", "w") as fh:
        for event in outcome.events:
            fh.write(event.model_dump_json() + "\n")
    code, error = outcome.error_code()
    lines = [f"# {problem.problem_id} ({problem.task})", "", f"**Query:** {problem.query}", "",
             f"**Status:** {outcome.result.status}" + ("" if code is None else f" (code {code}: {_first_line(error)})"),
             f"**Answer:** {json.dumps(outcome.answer) if outcome.answer is not None else '(none)'}  "
             f"**Gold:** {', '.join(problem.gold_ids)}", "",
             "## Steps"]
    for event in outcome.events:
        shown = json.dumps(event.error if event.error else event.result)[:300]
        lines.append(f"{event.seq}. `{event.kind}` **{event.name}** {json.dumps(event.arguments)[:200]} -> {shown}")
    if score is not None:
        lines += ["", f"## Strict checks: success={score.success} gt={score.gt} rule={score.rule:.2f} "
                      f"(ruleset {score.ruleset} v{score.ruleset_version}; titles: {score.title_model})"]
        for product in score.products:
            for check in product.checks:
                lines.append(f"- slot {product.slot + 1} {check.name}: {'pass' if check.passed else 'FAIL'} "
                             f"({check.evidence})")
        for check in score.checks:
            lines.append(f"- {check.name}: {'pass' if check.passed else 'FAIL'} ({check.evidence})")
    if verdict is not None:
        lines += ["", f"## Judge ({verdict.judge}, rubric {verdict.rubric_version}): gate {verdict.gate}, quality "
                      f"{verdict.quality}, coefficient {verdict.coefficient:.3f}, final {score.final:.3f}",
                  verdict.explanation, f"cited steps: {', '.join(map(str, verdict.evidence)) or 'none'}"]
    if error and "\n" in error.strip():
        lines += ["", "## Error", "```", error.strip(), "```"]
    if outcome.result.stderr:
        lines += ["", "## Agent stderr (tail)", "```", outcome.result.stderr[-2000:], "```"]
    (out_dir / "reports" / f"{problem.problem_id}.md").write_text("\n".join(lines) + "\n")


def _first_line(text: str | None) -> str:
    """An error's own line (the runner puts it first, before the traceback)."""
    return (text or "").strip().splitlines()[0] if (text or "").strip() else ""


def _print_scorecard(suite: Any, rows: list[dict[str, Any]], out_dir: Path, ruleset: str = "shoppingbench") -> None:
    table = Table(title=f"scorecard: {suite.problems} problems, success {suite.success_rate:.1%}, "
                        f"gt {suite.gt_rate:.1%} (ruleset {ruleset})")
    for column in ("task", "problems", "success", "gt", "mean rule"):
        table.add_column(column, justify="left" if column == "task" else "right")
    for task, agg in suite.by_task.items():
        table.add_row(task, str(agg.problems), f"{agg.success_rate:.1%}", f"{agg.gt_rate:.1%}", f"{agg.mean_rule:.2f}")
    out.print(table)
    judged = [r for r in rows if r.get("judge_gate")]
    if judged:
        verdicts = Table(title="reasoning judge, per problem")
        for column in ("problem", "task", "success", "gate", "quality", "final"):
            verdicts.add_column(column, justify="left" if column in ("problem", "task", "gate") else "right")
        for r in judged:
            verdicts.add_row(r["problem_id"], r["task"], "yes" if r["success"] else "no", r["judge_gate"],
                             f"{r['judge_quality']:.1f}", f"{r['final']:.2f}")
        out.print(verdicts)
    from arena.cliutil import SCORECARD_LEGEND

    out.print(SCORECARD_LEGEND, highlight=False)
    out.print(f"mean final score {sum(r['final'] for r in rows) / max(len(rows), 1):.3f}: what a race ranks miners "
              f"on (success x judge coefficient{'' if judged else '; with --judge none, success alone'}; errors count 0)",
              highlight=False)
    fields = ", ".join(f"{k} {v:.0%}" for k, v in suite.field_rates.items() if v is not None)
    seconds = sum(r["seconds"] for r in rows)
    calls = sum(r["tool_calls"] for r in rows)
    out.print(f"per-field pass rates: {fields or 'n/a'}; wall time {seconds:.1f}s; tool calls {calls}")
    errors = [r for r in rows if r["error_code"]]
    for r in errors[:10]:
        err.print(f"[yellow]{r['problem_id']}[/]: {r['status']} ({r['error_code']}) {_first_line(r['error'])[:300]}",
                  highlight=False)
    out.print(f"trajectories and reports: {out_dir}")


# --- submit and serve: the chain side ---------------------------------------------------------------------------

_PANEL = "Chain and wallet"
WalletName = Annotated[str, typer.Option("--wallet.name", envvar="ARENA_WALLET_NAME", help="Wallet (coldkey) name.",
                                         rich_help_panel=_PANEL)]
WalletHotkey = Annotated[str, typer.Option("--wallet.hotkey", envvar="ARENA_WALLET_HOTKEY", help="Hotkey name.",
                                           rich_help_panel=_PANEL)]
WalletPath = Annotated[Path, typer.Option("--wallet.path", envvar="ARENA_WALLET_PATH",
                                          help="Folder holding the wallets.", rich_help_panel=_PANEL)]
ChainName = Annotated[str, typer.Option("--chain", envvar="ARENA_CHAIN", rich_help_panel=_PANEL,
                                        help="subtensor (bittensor SDK) or localchain (the dev chain in a file).")]
Network = Annotated[str, typer.Option("--subtensor.network", envvar="ARENA_SUBTENSOR_NETWORK", rich_help_panel=_PANEL,
                                      help="finney, test, local or archive.")]
Endpoint = Annotated[str | None, typer.Option("--subtensor.chain_endpoint", envvar="ARENA_SUBTENSOR_CHAIN_ENDPOINT",
                                              rich_help_panel=_PANEL,
                                              help="ws(s):// endpoint; overrides --subtensor.network.")]
Netuid = Annotated[int | None, typer.Option("--netuid", envvar="ARENA_NETUID", rich_help_panel=_PANEL,
                                            help="The subnet's uid (required with --chain subtensor).")]
LocalchainPath = Annotated[Path, typer.Option("--localchain.path", envvar="ARENA_LOCALCHAIN_PATH",
                                              rich_help_panel=_PANEL, help="The LocalChain file (--chain localchain).")]
DEFAULT_WALLET_PATH = Path("~/.bittensor/wallets")
DEFAULT_LOCALCHAIN = Path("var/localchain.sqlite")


def _open_chain_and_wallet(wallet_name: str, wallet_hotkey: str, wallet_path: Path, chain: str, network: str,
                           endpoint: str | None, netuid: int | None, localchain_path: Path) -> tuple[Any, Any]:
    """The miner's wallet (hotkey, never prompting) and the chain; one clear line and exit 2 when either fails."""
    import logging
    from types import SimpleNamespace

    from validator.chain import open_chain
    from validator.chain.bittensor_chain import load_wallet
    from validator.chain.port import ChainError

    logging.getLogger("bittensor").setLevel(logging.WARNING)  # our one-line errors say what failed
    if chain not in ("subtensor", "localchain"):
        fail(f"--chain must be subtensor or localchain, got {chain!r}")
    if endpoint and not endpoint.startswith(("ws://", "wss://")):
        fail(f"--subtensor.chain_endpoint {endpoint!r} is not a ws:// or wss:// URL")
    try:
        wallet = load_wallet(wallet_name, wallet_hotkey, wallet_path.expanduser())
        options: Any = SimpleNamespace(chain=chain, localchain_path=localchain_path.expanduser(), netuid=netuid,
                                       subtensor_network=network, subtensor_chain_endpoint=endpoint)
        port = open_chain(options)  # reads only these five settings
    except ChainError as exc:
        fail(exc.message)
    return wallet, port


def _pack_or_exit(directory: Path) -> Any:
    from sandbox.bundle import BundleError, pack_dir

    try:
        return pack_dir(directory)
    except BundleError as exc:
        for problem in exc.problems:
            err.print(f"[bold red]error:[/] {problem}", highlight=False)
        raise typer.Exit(1) from None


@app.command("submit")
def submit_cmd(
    directory: Annotated[Path, typer.Argument(help="The agent bundle folder.")],
    url: Annotated[str | None, typer.Option("--url", help="Where validators can download the packed bundle "
                                                          "(http(s)://, at most 59 bytes); without it they fetch "
                                                          "from your axon (`arena-miner serve`).")] = None,
    wallet_name: WalletName = "default",
    wallet_hotkey: WalletHotkey = "default",
    wallet_path: WalletPath = DEFAULT_WALLET_PATH,
    chain: ChainName = "subtensor",
    network: Network = "finney",
    endpoint: Endpoint = None,
    netuid: Netuid = None,
    localchain_path: LocalchainPath = DEFAULT_LOCALCHAIN,
) -> None:
    """Pack the bundle, check it like `arena-miner check`, and commit `sa1:<sha256>[:<url>]` on chain with your hotkey.

    The earliest commitment of a given agent wins: later identical or renamed copies earn nothing.
    """
    from validator.chain.commitment import CommitmentError, encode_commitment
    from validator.chain.port import ChainError

    bundle = _pack_or_exit(directory)
    try:
        text = encode_commitment(bundle.sha256, url)
    except CommitmentError as exc:
        fail(str(exc))
    wallet, port = _open_chain_and_wallet(wallet_name, wallet_hotkey, wallet_path, chain, network, endpoint, netuid,
                                          localchain_path)
    try:
        hotkey = wallet.hotkey.ss58_address
        neuron = port.metagraph().by_hotkey(hotkey)
        if neuron is None:
            hint = ("arena-validator localchain register" if port.network == "localchain"
                    else f"btcli subnets register --netuid {port.netuid}")
            fail(f"hotkey {hotkey} is not registered on netuid {port.netuid} ({port.network}); register it first "
                 f"with `{hint}`")
        outcome = port.set_commitment(wallet, text)
    except ChainError as exc:
        fail(exc.message)
    finally:
        port.close()
    if not outcome.success:
        fail(f"the chain refused the commitment: {outcome.message or 'no reason given'}")
    out.print(f"committed {text} as {hotkey} (uid {neuron.uid}) on netuid {port.netuid} at block {outcome.block}",
              highlight=False)
    out.print(f"bundle: {bundle.files} files, {len(bundle.data):,} bytes packed", highlight=False)
    if url is None and neuron.axon is None:
        out.print("next: validators fetch the bundle from your axon; start it with "
                  f"`arena-miner serve {directory} --port 8091`", highlight=False)


@app.command("serve")
def serve_cmd(
    directory: Annotated[Path, typer.Argument(help="The agent bundle folder (the one you submitted).")],
    port_number: Annotated[int, typer.Option("--port", help="TCP port to listen on and publish.", min=1,
                                             max=65535)] = 8091,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "0.0.0.0",
    external_ip: Annotated[str | None, typer.Option("--external-ip", help="Public IP to publish as your axon "
                                                                          "(default on localchain: 127.0.0.1).")]
    = None,
    publish: Annotated[bool, typer.Option("--publish/--no-publish", help="Publish the axon on chain.")] = True,
    refresh: Annotated[float, typer.Option("--refresh", help="Seconds between metagraph reads (validator "
                                                             "permits).", min=1)] = 120.0,
    max_age: Annotated[float, typer.Option("--max-age", help="Oldest signed request accepted, in seconds.",
                                           min=1, max=300)] = 10.0,
    wallet_name: WalletName = "default",
    wallet_hotkey: WalletHotkey = "default",
    wallet_path: WalletPath = DEFAULT_WALLET_PATH,
    chain: ChainName = "subtensor",
    network: Network = "finney",
    endpoint: Endpoint = None,
    netuid: Netuid = None,
    localchain_path: LocalchainPath = DEFAULT_LOCALCHAIN,
) -> None:
    """Serve the packed bundle at GET /bundle/<sha256> to validators only (signed btauth/1 requests from hotkeys
    with a validator permit), and publish this server as your axon."""
    import signal
    import threading

    from miner_template.serve import BundleServer, ValidatorPermits, create_app
    from validator.chain.port import ChainError

    bundle = _pack_or_exit(directory)
    wallet, port = _open_chain_and_wallet(wallet_name, wallet_hotkey, wallet_path, chain, network, endpoint, netuid,
                                          localchain_path)
    hotkey = wallet.hotkey.ss58_address
    permits = ValidatorPermits(port, refresh_seconds=refresh)
    try:
        permits.refresh()
        commitment = port.commitments().get(hotkey)
    except ChainError as exc:
        fail(exc.message)
    if commitment is None or bundle.sha256 not in commitment.value:
        err.print(f"[bold yellow]warning:[/] your on-chain commitment is "
                  f"{commitment.value if commitment else 'empty'}; this folder packs to {bundle.sha256}. Run "
                  f"`arena-miner submit {directory}` so validators ask for this bundle.", highlight=False)
    server = BundleServer(create_app(bundle, hotkey_ss58=hotkey, permits=permits, max_age=max_age), host=host,
                          port=port_number, log_level="warning")
    try:
        server.start()
    except OSError as exc:
        fail(f"cannot listen on {host}:{port_number}: {exc}")
    try:
        ip = external_ip or ("127.0.0.1" if port.network == "localchain" else None)
        if not publish:
            out.print("not publishing an axon (--no-publish)")
        elif not hasattr(port, "serve_axon"):
            where = f"http://{external_ip or 'YOUR_IP'}:{server.port}"
            out.print(f"this chain port cannot publish an axon; publish it with `btcli axon set --netuid {port.netuid} "
                      f"--ip {external_ip or 'YOUR_IP'} --port {server.port} --wallet {wallet_name} --wallet-hotkey "
                      f"{wallet_hotkey}`, or commit a URL: `arena-miner submit {directory} --url "
                      f"{where}/bundle/{bundle.sha256}` (if it fits in 59 bytes)", highlight=False)
        elif ip is None:
            fail("--external-ip is required to publish the axon on subtensor (your public IP address)")
        else:
            try:
                outcome = port.serve_axon(wallet, ip, server.port)
            except ChainError as exc:
                fail(exc.message)
            out.print(f"published axon {ip}:{server.port} for {hotkey} at block {outcome.block}", highlight=False)
        out.print(f"serving {bundle.sha256} ({len(bundle.data):,} bytes) on {host}:{server.port} to "
                  f"{len(permits.hotkeys)} validator-permit holder(s); Ctrl-C to stop", highlight=False)
        permits.start()
        stop = threading.Event()
        signal.signal(signal.SIGTERM, lambda *_: stop.set())
        try:
            while not stop.wait(0.5):
                if not server.alive():
                    fail("the bundle server stopped unexpectedly", code=1)
        except KeyboardInterrupt:
            pass
    finally:
        permits.stop()
        server.stop()
        port.close()
    out.print("stopped")


if __name__ == "__main__":  # pragma: no cover
    app()
