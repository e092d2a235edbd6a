"""`arena-validator corpus`: training corpora from the stored trajectories."""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer
from rich.table import Table

from arena.clihelp import App
from arena.cliutil import err, fail, out
from validator.cli.flags import STORE, with_settings
from validator.settings import Settings

if TYPE_CHECKING:
    from rich.progress import Progress

    from validator.corpus import ExportOptions, ExportResult

corpus_app = App(no_args_is_help=True, help="Training corpora from the stored trajectories.")

# the longer options of `corpus export`
JudgeThresholdOption = Annotated[
    float,
    typer.Option(
        "--judge-threshold",
        help="Keep runs whose judge quality is at least this (0..1; 0.8 = coefficient 1 in subnet 15's formula).",
    ),
]
FormatOption = Annotated[
    str, typer.Option("--format", help="openai (messages + tools + tool_calls) or sharegpt (Hermes-style tool calls).")
]
AxisOption = Annotated[
    str,
    typer.Option(
        "--axis",
        help="a: only chats whose tool calls the LLM issued (default); b: "
        "only chats where the agent's code issued some; all: both.",
    ),
]
DecontaminateOption = Annotated[
    list[Path] | None,
    typer.Option(
        "--decontaminate",
        help="A public test set (ShoppingBench test JSONL) whose queries must not be in the "
        "corpus; repeat for several.",
    ),
]
NearDuplicateOption = Annotated[
    float | None,
    typer.Option(
        "--near-duplicate",
        help="Content-word Jaccard at or above which a query is a near-duplicate of a test "
        "query (with --decontaminate; default 0.8).",
        show_default=False,
    ),
]
SinceOption = Annotated[
    str | None,
    typer.Option(
        help="Only runs that ended at or after this time (2025-06-01 or an ISO time; UTC unless it says otherwise)."
    ),
]


@corpus_app.command("export")
@with_settings(fields=STORE)
def corpus_export(
    settings: Settings,
    out_dir: Annotated[
        Path,
        typer.Option(
            "--out", help="The folder to write; it must not exist (nothing is overwritten).", show_default=False
        ),
    ],
    since: SinceOption = None,
    until: Annotated[str | None, typer.Option(help="Only runs that ended before this time.")] = None,
    task: Annotated[
        list[str] | None,
        typer.Option("--task", help="Only these tasks (repeat the flag): product, shop, voucher, web. Default: all."),
    ] = None,
    cap_per_problem: Annotated[
        int, typer.Option("--cap-per-problem", help="At most this many chats per problem.")
    ] = 50,
    judge_threshold: JudgeThresholdOption = 0.8,
    held_out_fraction: Annotated[
        float, typer.Option("--held-out-fraction", help="Share of the chats (whole leak clusters) put in eval.jsonl.")
    ] = 0.15,
    fmt: FormatOption = "openai",
    axis: AxisOption = "a",
    decontaminate: DecontaminateOption = None,
    near_duplicate: NearDuplicateOption = None,
    max_tokens: Annotated[
        int, typer.Option("--max-tokens", help="Drop chats longer than this (tokens estimated as bytes / 4).")
    ] = 14_336,
    seed: Annotated[int, typer.Option(help="Seed of the split and of the rows' order.")] = 0,
    batch_size: Annotated[
        int, typer.Option("--batch-size", help="Runs read per batch (memory vs round trips).", min=1)
    ] = 500,
) -> None:
    """Export the stored trajectories as a training corpus: train.jsonl, eval.jsonl, stats.json, funnel.json and a
    dataset card, through the funnel (normalize, validity, winning, judge gate, Axis A/B, dedup, cap per problem,
    leak-guarded split, decontamination). Interrupted? Run the same command again: it resumes."""
    options = _options(
        since=since,
        until=until,
        task=task,
        cap_per_problem=cap_per_problem,
        judge_threshold=judge_threshold,
        held_out_fraction=held_out_fraction,
        fmt=fmt,
        axis=axis,
        decontaminate=decontaminate,
        near_duplicate=near_duplicate,
        max_tokens=max_tokens,
        seed=seed,
    )
    result = _export(settings, out_dir, options, batch_size)
    _print_result(result, options)


def _export(settings: Settings, out_dir: Path, options: ExportOptions, batch_size: int) -> ExportResult:
    """Run the export over the settings' store with a progress bar; exit 2 for what the user can fix, 130 when
    interrupted (the work done so far kept for a resume)."""
    from validator.corpus import CorpusError, export_corpus
    from validator.store.repository import Store, StoreError
    from validator.store.schema import SchemaError

    if out_dir.exists():
        fail(f"{out_dir} already exists; the export never overwrites: choose a new --out or remove it")
    try:
        store = Store.open(settings.db_url)
    except (StoreError, SchemaError) as exc:
        fail(str(exc))
    bar, progress = _progress()
    try:
        with bar:
            return export_corpus(store, out_dir, options, progress=progress, batch_size=batch_size)
    except CorpusError as exc:
        _refuse(exc.lines)
    except KeyboardInterrupt:
        err.print(
            f"interrupted: the work done so far is kept next to {out_dir}; run the same command again to resume",
            highlight=False,
        )
        raise typer.Exit(130) from None
    finally:
        store.close()


def _refuse(lines: list[str]) -> NoReturn:
    """The options (or the export) refused: each problem on its own line, exit 2."""
    for line in lines:
        err.print(f"[bold red]error:[/] {line}", highlight=False)
    raise typer.Exit(2)


def _options(
    *,
    since: str | None,
    until: str | None,
    task: list[str] | None,
    cap_per_problem: int,
    judge_threshold: float,
    held_out_fraction: float,
    fmt: str,
    axis: str,
    decontaminate: list[Path] | None,
    near_duplicate: float | None,
    max_tokens: int,
    seed: int,
) -> ExportOptions:
    """The export's options from the flags, or exit 2 listing every problem with them."""
    from validator.corpus import CorpusError, ExportOptions, parse_when

    try:
        options = ExportOptions(
            since=parse_when(since, "--since") if since else None,
            until=parse_when(until, "--until") if until else None,
            tasks=tuple(task or ()),
            cap_per_problem=cap_per_problem,
            judge_threshold=judge_threshold,
            held_out_fraction=held_out_fraction,
            format=fmt,
            axis=axis,
            decontaminate=tuple(decontaminate or ()),
            near_duplicate=near_duplicate,
            max_tokens=max_tokens,
            seed=seed,
        )
    except CorpusError as exc:
        _refuse(exc.lines)
    if problems := options.problems():
        _refuse(problems)
    return options


def _progress() -> tuple[Progress, Callable[[str, int, int], None]]:
    """A progress bar and the export's progress callback feeding it: one bar per stage, runs per second while
    reading."""
    from arena.cliutil import progress_bar

    bar = progress_bar()
    bars: dict[str, Any] = {}
    started = time.monotonic()

    def progress(stage: str, done: int, total: int) -> None:
        label = {"extract": "reading runs", "write": "writing chats"}.get(stage, stage)
        if stage not in bars:
            bars[stage] = bar.add_task(label, total=total, rate="")
        elapsed = max(time.monotonic() - started, 1e-6)
        rate = f"{done / elapsed:,.0f} runs/s" if stage == "extract" else ""
        bar.update(bars[stage], completed=done, total=total, rate=rate)

    return bar, progress


def _print_result(result: ExportResult, options: ExportOptions) -> None:
    """The funnel's table, the one-line summary, and a warning when no chat passed."""
    table = Table(title=f"corpus funnel ({result.funnel['selection']['runs_in_store']:,} runs in the store)")
    for column in ("#", "step", "in", "out", "dropped"):
        table.add_column(column, overflow="fold", justify="right" if column in ("#", "in", "out") else "left")
    for step in result.funnel["steps"]:
        table.add_row(
            str(step["step"]),
            step["name"],
            f"{step['in']:,}",
            f"{step['out']:,}",
            ", ".join(f"{r} {n:,}" for r, n in step["dropped"].items()) or "-",
        )
    out.print(table)
    resumed = f" (resumed after {result.resumed_from:,} runs)" if result.resumed_from else ""
    audit = "passed" if result.stats["audit"]["passed"] else "FAILED"
    out.print(
        f"wrote {result.out}: {result.train:,} train + {result.eval:,} eval chats ({options.format}), leak "
        f"audit {audit}{resumed}",
        highlight=False,
    )
    if not result.train + result.eval:
        err.print("warning: no chat passed the funnel; funnel.json says where each run was dropped", highlight=False)
