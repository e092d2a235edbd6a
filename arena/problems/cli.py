"""``arena problems``: import, generate, split, self-check, pack, verify and show problem packs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena.cliutil import err, fail, out, parse_size, progress_bar

app = typer.Typer(help="ShoppingBench problems: import, generate, split, self-check, sign and inspect packs.",
                  no_args_is_help=True)


def _load(path: Path, *, catalog_digest: str | None = None, require_signature: bool = False) -> Any:
    from arena.problems.pack import PackError, load_pack

    try:
        return load_pack(path, catalog_digest=catalog_digest, require_signature=require_signature)
    except PackError as exc:
        fail(str(exc))


def _out_file(path: Path | None) -> Path | None:
    """--out names a file to write: checked when the command line is read, before any work."""
    return _check_file(path, "--out")


def _json_file(path: Path | None) -> Path | None:
    return _check_file(path, "--json")


def _check_file(path: Path | None, flag: str) -> Path | None:
    if path is not None and path.is_dir():
        fail(f"{flag} {path} is a folder; give a file name, e.g. {path / 'pack.json'}")
    if path is not None and path.parent.exists() and not path.parent.is_dir():
        fail(f"{flag}: {path.parent} is a file, not a folder")
    if path is not None and not path.parent.is_dir():
        fail(f"{flag}: folder {path.parent} does not exist; create it first")
    return path


def _write(pack: Any, path: Path) -> None:
    from arena.problems.pack import PackError, write_pack

    try:
        write_pack(pack, path)
    except (PackError, OSError) as exc:
        fail(f"could not write {path}: {exc}")


def _new_pack(problems: list[Any], catalog_digest: str | None, version: str, ruleset: str = "shoppingbench") -> Any:
    from arena.problems.pack import PackError, new_pack

    try:
        return new_pack(problems, catalog_digest=catalog_digest, generator_version=version, ruleset=ruleset)
    except PackError as exc:
        fail(str(exc))


def _print_counts(problems: list[Any], title: str) -> None:
    from arena.problems.splits import split_report

    table = Table(title=title)
    for column in ("split", "problems", "clusters", "product", "shop", "voucher", "web"):
        table.add_column(column, justify="left" if column == "split" else "right")
    for split, row in sorted(split_report(problems).items()):
        table.add_row(split, *(str(row.get(c, 0)) for c in ("problems", "clusters", "product", "shop", "voucher",
                                                           "web")))
    out.print(table)


@app.command("import")
def import_cmd(
    files: Annotated[list[Path], typer.Argument(
        help="ShoppingBench test files (product, shop, voucher, web JSONL) or ORO problem suites (one JSON array).")],
    out_pack: Annotated[Path, typer.Option("--out", help="The pack file to write.", callback=_out_file)],
    rebuild_catalog: Annotated[Path | None, typer.Option(
        "--rebuild-catalog", help="Also build a catalog in which every problem is playable (gold + distractors).")
    ] = None,
    background_size_text: Annotated[str, typer.Option(
        "--background-size", help="Generated background products in the rebuilt catalog, e.g. 0, 5000, 20k, 100k.")
    ] = "100k",
    background_seed: Annotated[int, typer.Option(help="Seed of the background catalog.")] = 0,
    force: Annotated[bool, typer.Option("--force", help="Replace an existing rebuilt catalog.")] = False,
    ruleset: Annotated[str, typer.Option(help="The strict checks the pack is scored by: shoppingbench (the paper's "
                                              "evaluator) or sn15 (subnet 15's scorer).")] = "shoppingbench",
) -> None:
    """Import ShoppingBench test records or ORO suites (task detected per record); bad records are reported by line.

    With --rebuild-catalog, a gold product named by several problems is built once to meet them all; problems that
    cannot be satisfied together are left out, each reported in one line with the constraint that clashes."""
    from arena.catalog import CatalogError
    from arena.problems.importer import import_files
    from arena.problems.rebuild import rebuild_catalog as rebuild
    from arena.scoring.rulesets import UnknownRuleset, get_ruleset

    missing = [str(f) for f in files if not f.is_file()]
    if missing:
        fail(f"no such file: {', '.join(missing)}")
    try:
        background_size = 0 if background_size_text.strip() == "0" else parse_size(background_size_text)
    except ValueError as exc:
        fail(f"--background-size: {exc}")
    try:
        ruleset = get_ruleset(ruleset).name
    except UnknownRuleset as exc:
        fail(f"--ruleset: {exc}")
    report = import_files(files)
    for bad in report.bad:
        err.print(f"[yellow]skipped[/] {bad}", highlight=False)
    if not report.problems:
        fail(f"no valid problems in {len(files)} file(s) ({len(report.bad)} bad records); nothing was written")
    problems, digest = report.problems, None
    if rebuild_catalog is not None:
        if background_size < 0:
            fail(f"--background-size must be 0 or more, got {background_size}")
        with progress_bar() as bar:
            task = bar.add_task("rebuilding catalog", total=background_size + sum(len(p.reward) for p in problems),
                                rate="")
            try:
                rebuilt = rebuild(problems, rebuild_catalog, background_seed=background_seed,
                                  background_size=background_size, force=force,
                                  progress=lambda k: bar.advance(task, k))
            except CatalogError as exc:
                fail(str(exc))
        for skipped in rebuilt.skipped:
            err.print(f"[yellow]unsatisfiable[/] {skipped}", highlight=False)
        problems, digest = rebuilt.problems, rebuilt.digest
        out.print(f"rebuilt catalog {rebuild_catalog}: {rebuilt.products:,} products ({rebuilt.golds} golds, "
                  f"{rebuilt.distractors} distractors, {rebuilt.web_pages} web pages); digest {digest}",
                  highlight=False)
    pack = _new_pack(problems, digest, "shoppingbench-import/1", ruleset)
    _write(pack, out_pack)
    by_task: dict[str, int] = {}
    for problem in problems:
        by_task[problem.task] = by_task.get(problem.task, 0) + 1
    counts = ", ".join(f"{n} {t}" for t, n in sorted(by_task.items()))
    out.print(f"imported {len(problems)} problems ({counts}) -> {out_pack}")


@app.command("generate")
def generate_cmd(
    catalog_dir: Annotated[Path, typer.Option("--catalog", help="The catalog to draw gold products from.")],
    n: Annotated[int, typer.Option("--n", help="How many problems.")],
    out_pack: Annotated[Path, typer.Option("--out", help="The pack file to write.", callback=_out_file)],
    tasks: Annotated[str, typer.Option(help="Task types, comma-separated, generated in turn.")] =
        "product,shop,voucher,web",
    seed: Annotated[int, typer.Option(help="Seed: same catalog, seed and n give the same problems.")] = 0,
    paraphrase_url: Annotated[str | None, typer.Option(
        help="Optional: rewrite queries with an LLM at this OpenAI-compatible base URL (off by default).")] = None,
    paraphrase_model: Annotated[str, typer.Option(help="Model for --paraphrase-url.")] = "gpt-4.1-mini",
    paraphrase_key_env: Annotated[str, typer.Option(help="Environment variable holding the API key.")] =
        "OPENAI_API_KEY",
) -> None:
    """Generate problems (ground truth first, then the query), each checked solvable and labelled by difficulty.

    With --paraphrase-url, each query is rewritten by an LLM at temperature 0 and kept only if it still states every
    number and required value (the ground truth never changes)."""
    from arena.catalog import Catalog, CatalogError
    from arena.problems.generate import GENERATOR_VERSION, generate_problems

    task_list = [t.strip() for t in tasks.split(",") if t.strip()]
    bad = [t for t in task_list if t not in ("product", "shop", "voucher", "web")]
    if bad or not task_list:
        fail(f"unknown task(s) {', '.join(bad) or tasks!r}; use product, shop, voucher, web")
    if n < 1:
        fail(f"--n must be at least 1, got {n}")
    try:
        catalog = Catalog.open(catalog_dir)
    except CatalogError as exc:
        fail(str(exc))
    with progress_bar() as bar:
        task = bar.add_task("generating problems", total=n, rate="")
        report = generate_problems(catalog, n, task_list, seed, progress=lambda k: bar.advance(task, k))
    for skipped in report.skipped:
        err.print(f"[yellow]skipped[/] {skipped}", highlight=False)
    if not report.problems:
        fail("no problem could be generated from this catalog; nothing was written")
    if paraphrase_url:
        import os

        from arena.problems.paraphrase import paraphrase_problems

        with progress_bar() as bar:
            task = bar.add_task("paraphrasing", total=len(report.problems), rate="")
            para = paraphrase_problems(report.problems, base_url=paraphrase_url, model=paraphrase_model,
                                       api_key=os.environ.get(paraphrase_key_env, "none"),
                                       progress=lambda k: bar.advance(task, k))
        report.problems = para.problems
        out.print(f"paraphrased {para.rewritten}, kept {para.kept} templated (paraphrase lost a constraint), "
                  f"{para.failed} failed (endpoint error)")
    pack = _new_pack(report.problems, catalog.digest, GENERATOR_VERSION)
    _write(pack, out_pack)
    counts = ", ".join(f"{k} {t}" for t, k in sorted(report.by_task.items()))
    out.print(f"generated {len(report.problems)} problems ({counts}) -> {out_pack}")


@app.command("split")
def split_cmd(
    pack_path: Annotated[Path, typer.Argument(help="The pack to split.")],
    out_pack: Annotated[Path, typer.Option("--out", help="Where to write the split pack (may be the same file).",
                                           callback=_out_file)],
    public: Annotated[float, typer.Option(help="Share of problems for the public split.")] = 0.2,
    race: Annotated[float, typer.Option(help="Share for races.")] = 0.6,
    held_out: Annotated[float, typer.Option("--held-out", help="Share never raced (kept for evaluation).")] = 0.2,
    seed: Annotated[int, typer.Option(help="Seed of the cluster order.")] = 0,
) -> None:
    """Cluster near-duplicate problems and give whole clusters to public, race and held_out (no answer leaks)."""
    from arena.problems.splits import assign_splits, leaks

    fractions = {"public": public, "race": race, "held_out": held_out}
    if any(not 0 <= f <= 1 for f in fractions.values()) or not sum(fractions.values()) > 0:
        fail(f"split fractions must be non-negative, at most 1 and not all 0, got --public {public} --race {race} "
             f"--held-out {held_out}")
    pack = _load(pack_path)
    if abs(sum(fractions.values()) - 1) > 1e-9:
        total = sum(fractions.values())
        err.print(f"note: --public {public} --race {race} --held-out {held_out} sum to {total:g}, not 1; normalized to "
                  + ", ".join(f"{name} {f / total:.3f}" for name, f in fractions.items()), highlight=False)
    try:
        problems = assign_splits(pack.problems, fractions, seed)
    except ValueError as exc:
        fail(str(exc))
    leaked = leaks(problems)
    if leaked:
        fail(f"internal error: answer products in two splits: {', '.join(leaked[:5])}")
    new = pack.model_copy(update={"problems": problems, "signer": None, "signature": None})
    _write(new, out_pack)
    _print_counts(problems, f"splits of {out_pack}")
    out.print("no answer product appears in two splits; the pack is unsigned until `arena problems pack` signs it")


@app.command("selfcheck")
def selfcheck_cmd(
    pack_path: Annotated[Path, typer.Argument(help="The pack to check.")],
    catalog_dir: Annotated[Path, typer.Option("--catalog", help="The catalog the pack was made for.")],
    json_out: Annotated[Path | None, typer.Option("--json", help="Also write the report as JSON here.",
                                                  callback=_json_file)] = None,
) -> None:
    """Run every gold answer and every recorded distractor through the pack's ruleset (gold 100%, distractors 0%),
    and the blind baseline (top search hits, no reading): its success per task should stay low."""
    from arena.catalog import Catalog, CatalogError
    from arena.problems.selfcheck import selfcheck

    try:
        catalog = Catalog.open(catalog_dir)
    except CatalogError as exc:
        fail(str(exc))
    pack = _load(pack_path, catalog_digest=catalog.digest)
    with progress_bar() as bar:
        task = bar.add_task("self-check", total=len(pack.problems), rate="")
        report = selfcheck(pack.problems, catalog.get, vectors=pack.gold_vectors,
                           progress=lambda k: bar.advance(task, k), catalog=catalog, ruleset=pack.ruleset)
    table = Table(title=f"self-check of {pack_path}")
    for column in ("task", "problems", "gold pass", "distractors", "distractor pass"):
        table.add_column(column, justify="left" if column == "task" else "right")
    for name, row in report.by_task.items():
        table.add_row(name, str(row.problems), f"{row.gold_rate:.1%}", str(row.distractors),
                      f"{row.distractor_pass_rate:.1%}")
    out.print(table)
    baseline = Table(title=f"blind baseline (top search hits, nothing read), {pack.ruleset} ruleset")
    for column in ("task", "problems", "top hits for the query", "top hit for the top web result"):
        baseline.add_column(column, justify="left" if column == "task" else "right")
    for name, blind in report.baseline.items():
        baseline.add_row(name, str(blind.problems), f"{blind.query_rate:.1%}",
                         "" if blind.web_rate is None else f"{blind.web_rate:.1%}")
    out.print(baseline)
    for failure in report.failures[:20]:
        err.print(f"[red]fail[/] {failure}", highlight=False)
    if json_out is not None:
        json_out.write_text(json.dumps(report.summary(), indent=1))
    if not report.ok:
        fail(f"self-check failed: {len(report.failures)} problem(s) listed above", code=1)
    out.print("ok: every gold answer passes and every distractor fails")


@app.command("pack")
def pack_cmd(
    inputs: Annotated[list[Path], typer.Argument(help="One or more packs to combine.")],
    out_pack: Annotated[Path, typer.Option("--out", help="The signed pack to write.", callback=_out_file)],
    public_only: Annotated[bool, typer.Option("--public-only", help="Write only the public split (answers "
                                                                      "included) for miners; unsigned.")] = False,
    wallet_name: Annotated[str | None, typer.Option("--wallet.name", help="Operator wallet name.")] = None,
    wallet_hotkey: Annotated[str | None, typer.Option("--wallet.hotkey", help="Hotkey that signs.")] = None,
    wallet_path: Annotated[str | None, typer.Option("--wallet.path", help="Wallets folder.")] = None,
    key_uri: Annotated[str | None, typer.Option("--key-uri", help="Dev key such as //Alice (local use only).")] = None,
    cadence_blocks: Annotated[int | None, typer.Option(help="A race opens every N blocks.")] = None,
    problems_per_race: Annotated[int | None, typer.Option(help="Problems drawn per race.")] = None,
    task_mix: Annotated[str | None, typer.Option(help="Task shares, e.g. product=0.4,shop=0.2,voucher=0.2,web=0.2")]
        = None,
    start_block: Annotated[int | None, typer.Option(
        "--start-block", help="The block the rotation starts at (slot 0 of a sealed pack opens there).")] = None,
    qualify_share: Annotated[float | None, typer.Option(
        "--qualify.share", help="The qualifying round: a new submission first runs the public qualifying set and "
                                "races only if it scores at least this share of the leader's qualifying score "
                                "(subnet 15: 0.95); 0 turns it off.")] = None,
    qualify_problems: Annotated[int | None, typer.Option(
        "--qualify.problems", help="Problems of the public split in the qualifying set (default 30).")] = None,
    seal_round: Annotated[int | None, typer.Option(
        "--seal.round", help="Seal every race batch to this one drand quicknet round (local demos and tests: 1000, "
                             "whose signature is public).")] = None,
    seal_anchor_block: Annotated[int | None, typer.Option(
        "--seal.anchor_block", help="Seal the race pool, one batch per rotation slot, each to the drand round of its "
                                    "slot's opening: the chain's block now (with --seal.anchor_time and "
                                    "--seal.block_time, slot blocks become times, then rounds).")] = None,
    seal_anchor_time: Annotated[float | None, typer.Option(
        "--seal.anchor_time", help="Unix time of --seal.anchor_block (default: now).")] = None,
    seal_block_time: Annotated[float, typer.Option("--seal.block_time", help="Seconds per block.")] = 12.0,
    ruleset: Annotated[str | None, typer.Option(help="The strict checks the pack's problems are scored by: "
                                                     "shoppingbench (the paper's evaluator) or sn15 (subnet 15's "
                                                     "scorer). Default: the input packs' (shoppingbench when made "
                                                     "by import or generate).")] = None,
) -> None:
    """Combine packs, set the rotation schedule and the ruleset, and sign with the operator's hotkey (sr25519)."""
    from pydantic import ValidationError

    from arena.problems.pack import PackError, Rotation, load_keypair

    packs = [_load(p) for p in inputs]
    sealed_input = next((str(path) for path, p in zip(inputs, packs, strict=True) if p.sealed), None)
    if sealed_input is not None:
        fail(f"{sealed_input} is already sealed: its race problems cannot be repacked; pack the problems it was "
             "made from")
    digests = {p.catalog_digest for p in packs}
    if len(digests) > 1:
        fail(f"the packs were made for different catalogs ({', '.join(sorted(str(d) for d in digests))}); "
             "combine only packs of one catalog")
    problems = [problem for p in packs for problem in p.problems]
    rotation = packs[0].rotation.model_dump()
    for flag, value in (("--cadence-blocks", cadence_blocks), ("--problems-per-race", problems_per_race)):
        if value is not None and value < 1:
            fail(f"{flag} must be at least 1, got {value}")
    if cadence_blocks is not None:
        rotation["cadence_blocks"] = cadence_blocks
    if problems_per_race is not None:
        rotation["problems_per_race"] = problems_per_race
    if start_block is not None:
        rotation["start_block"] = start_block
    if qualify_share is not None:
        rotation["qualify_share"] = qualify_share
    if qualify_problems is not None:
        rotation["qualify_problems"] = qualify_problems
    if task_mix is not None:
        try:
            rotation["task_mix"] = {k.strip(): float(v) for k, v in (part.split("=") for part in task_mix.split(","))}
        except ValueError:
            fail(f"--task-mix {task_mix!r} is not a list like product=0.4,shop=0.2,voucher=0.2,web=0.2")
    try:
        rot = Rotation.model_validate(rotation)
    except ValidationError as exc:
        first = exc.errors()[0]
        fail(f"bad rotation: {'.'.join(str(part) for part in first['loc'])}: "
             f"{str(first['msg']).removeprefix('Value error, ')}")
    if rot.qualify_share > 0 and not any(p.split == "public" for p in problems):
        fail(f"--qualify.share {rot.qualify_share:g} needs public problems for the qualifying set, and the packs have "
             "none; pack problems with a public split or leave the qualifying round off")
    if task_mix is not None:
        raced = Counter(p.task for p in problems if p.split == "race")
        dropped = sorted(t for t in raced if t not in rot.task_mix)
        if dropped:
            fail(f"--task-mix leaves out {', '.join(dropped)}, which hold "
                 f"{sum(raced[t] for t in dropped)} race problems that would never be drawn; give each a weight "
                 "(0 to drop it on purpose)")
        total = sum(rot.task_mix.values())
        out.print("task mix: each race draws " + ", ".join(
            f"{task} {weight / total:.0%}" for task, weight in rot.task_mix.items())
            + (f" (weights summed to {total:g}, normalized)" if abs(total - 1) > 1e-9 else ""), highlight=False)
    rulesets = {p.ruleset for p in packs}
    if ruleset is None and len(rulesets) > 1:
        fail(f"the packs are scored by different rulesets ({', '.join(sorted(rulesets))}); choose one with --ruleset")
    from arena.scoring.rulesets import UnknownRuleset, get_ruleset

    try:
        chosen = get_ruleset(ruleset or rulesets.pop()).name
    except UnknownRuleset as exc:
        fail(f"--ruleset: {exc}")
    pack = _new_pack(problems, packs[0].catalog_digest, packs[0].generator_version, chosen)
    pack = pack.model_copy(update={"rotation": rot})
    if seal_round is not None or seal_anchor_block is not None:
        pack = _seal(pack, public_only, seal_round, seal_anchor_block, seal_anchor_time, seal_block_time)
    if public_only:
        pack = pack.public_view()
        _write(pack, out_pack)
        out.print(f"wrote the public split ({len(pack.problems)} problems, answers included) -> {out_pack}")
        return
    if not key_uri and not wallet_name:
        fail("a pack must be signed: pass --wallet.name and --wallet.hotkey (or --key-uri //Alice for local use)")
    try:
        keypair = load_keypair(wallet_name=wallet_name, wallet_hotkey=wallet_hotkey, wallet_path=wallet_path,
                               key_uri=key_uri)
    except PackError as exc:
        fail(str(exc))
    pack = pack.signed(keypair)
    _write(pack, out_pack)
    out.print(f"signed {len(pack.problems)} problems by {pack.signer} -> {out_pack}")


def _seal(pack: Any, public_only: bool, seal_round: int | None, anchor_block: int | None, anchor_time: float | None,
          block_time: float) -> Any:
    import time

    from arena.problems.pack import PackError, sealed_pack
    from arena.problems.seal import Anchor, SealError

    if public_only:
        fail("--public-only writes no race problem; drop the --seal.* options")
    if seal_round is not None and anchor_block is not None:
        fail("give either --seal.round (local use) or --seal.anchor_block, not both")
    if seal_round is not None and seal_round < 1:
        fail(f"--seal.round {seal_round} is not a drand round; rounds start at 1")
    try:
        anchor = None if anchor_block is None else Anchor(block=anchor_block, block_time=block_time,
                                                          unix_time=anchor_time or time.time())
    except ValueError as exc:
        fail(f"bad --seal.* option: {str(exc).splitlines()[-1].strip()}")
    with progress_bar() as bar:
        task = bar.add_task("sealing race batches", total=None, rate="")
        try:
            sealed, unraced = sealed_pack(pack, anchor=anchor, fixed_round=seal_round,
                                          progress=lambda: bar.advance(task))
        except (PackError, SealError) as exc:
            fail(str(exc))
    first, last = sealed.sealed[0], sealed.sealed[-1]
    out.print(f"sealed {sum(b.n_problems for b in sealed.sealed)} race problems in {len(sealed.sealed)} batches "
              f"(slots at blocks {first.open_block}..{last.open_block}, drand rounds {first.reveal_round}.."
              f"{last.reveal_round})" + (f"; {len(unraced)} race problem(s) fit no batch and were left out"
                                         if unraced else ""), highlight=False)
    return sealed


@app.command("open")
def open_cmd(
    pack_path: Annotated[Path, typer.Argument(help="A pack with sealed race batches.")],
    slot: Annotated[int, typer.Option("--slot", help="The batch (rotation slot, from 0) to open.")],
    signature: Annotated[str | None, typer.Option(help="The drand quicknet signature of the batch's round (hex).")]
        = None,
    relay: Annotated[str | None, typer.Option(help="A drand HTTP relay to fetch it from, e.g. https://api.drand.sh")]
        = None,
    out_pack: Annotated[Path | None, typer.Option("--out", help="Write the batch's problems (answers included) as "
                                                                "an unsigned pack here.")] = None,
) -> None:
    """Open a sealed race batch whose drand round has passed (its race is over): anyone can, with the round's
    signature from any drand relay. Before the round, no one can."""
    from arena.problems.pack import new_pack
    from arena.problems.seal import SealError, open_batch

    pack = _load(pack_path)
    if not pack.sealed:
        fail(f"{pack_path} has no sealed batches; its race problems are in clear (`arena problems show`)")
    if not 0 <= slot < len(pack.sealed):
        fail(f"--slot {slot}: the pack has batches 0 to {len(pack.sealed) - 1}")
    if (signature is None) == (relay is None):
        fail("give the round's signature with --signature HEX, or a drand relay with --relay URL")
    if out_pack is not None and out_pack.is_dir():
        fail(f"--out {out_pack} is a folder; give a file name")
    batch = pack.sealed[slot]
    if relay is not None:
        from arena.beacon import BeaconError, DrandRelay

        try:
            signature = DrandRelay(relay).signature(batch.reveal_round)
        except BeaconError as exc:
            fail(str(exc))
        if signature is None:
            fail(f"drand round {batch.reveal_round} is not out yet: {batch.describe()} stays sealed until then")
    try:
        opened = open_batch(batch, signature or "")
    except SealError as exc:
        fail(str(exc))
    _print_counts(opened.problems, f"{batch.describe()}: {len(opened.problems)} problems")
    if out_pack is not None:
        from arena.problems.pack import Pack

        made = new_pack(opened.problems, catalog_digest=pack.catalog_digest, generator_version=pack.generator_version,
                        rotation=pack.rotation, embed=False, ruleset=pack.ruleset)
        vectors = {k: v for k, v in opened.title_embeddings.items() if v}
        made = Pack.model_validate({**made.model_dump(mode="json"), "title_embeddings": vectors})
        _write(made, out_pack)
        out.print(f"wrote {len(opened.problems)} problems of {batch.describe()} -> {out_pack}", highlight=False)


@app.command("verify")
def verify_cmd(
    pack_path: Annotated[Path, typer.Argument(help="The pack to verify.")],
    catalog_dir: Annotated[Path | None, typer.Option("--catalog", help="Check it was made for this catalog.")] = None,
    signer: Annotated[str | None, typer.Option("--pack.signer", "--signer", envvar="ARENA_PACK_SIGNER",
                                               help="The arena operator's ss58 address the pack must be signed by "
                                                    "(required: ask the operator, not the pack).")] = None,
    allow_dev_signer: Annotated[bool, typer.Option("--pack.allow_dev_signer", envvar="ARENA_PACK_ALLOW_DEV_SIGNER",
                                                   help="Accept a pack signed by a public development key (//Alice, "
                                                        "//Bob, ...): a local demo or test only, never a real "
                                                        "subnet.")] = False,
) -> None:
    """Check a pack's signature, that its signer is the one you pinned (--pack.signer) and not a public development
    key, and (with --catalog) that it was made for that catalog: what `arena-validator run` checks."""
    from arena.catalog import Catalog, CatalogError
    from arena.problems.pack import PackError, load_pack

    digest = None
    if catalog_dir is not None:
        try:
            digest = Catalog.open(catalog_dir).digest
        except CatalogError as exc:
            fail(str(exc))
    try:
        pack = load_pack(pack_path, catalog_digest=digest, require_signature=True,
                         trusted_signers={signer} if signer else set(), allow_dev_signer=allow_dev_signer)
    except PackError as exc:
        fail(str(exc))
    out.print(f"ok: {len(pack.problems)} problems signed by {pack.signer}"
              + (f", made for catalog {digest}" if digest else ""), highlight=False)


@app.command("show")
def show_cmd(
    pack_path: Annotated[Path, typer.Argument(help="The pack to show.")],
    problem_id: Annotated[str | None, typer.Option("--problem", help="Show one problem whole.")] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON.")] = False,
    signer: Annotated[bool, typer.Option("--signer", help="Print only the signer's ss58 address (what validators "
                                                          "pin with --pack.signer).")] = False,
) -> None:
    """Summarise a pack (catalog, signer, rotation, splits per task) or print one problem."""
    pack = _load(pack_path)
    if signer:
        if pack.signer is None:
            fail(f"{pack_path} is not signed; sign it with `arena problems pack`")
        out.print(pack.signer, highlight=False)
        return
    if problem_id is not None:
        problem = pack.problem(problem_id)
        if problem is None:
            fail(f"no problem {problem_id!r} in {pack_path}; `arena problems show {pack_path}` lists them")
        out.print_json(problem.model_dump_json())
        return
    summary = {"pack_id": pack.pack_id, "created_at": pack.created_at, "catalog_digest": pack.catalog_digest,
               "generator_version": pack.generator_version, "signer": pack.signer, "signed": bool(pack.signature),
               "public_only": pack.public_only, "ruleset": pack.ruleset, "rotation": pack.rotation.model_dump(),
               "splits": pack.split_counts(), "problems": len(pack.problems),
               "sealed_batches": [{"slot": b.slot, "open_block": b.open_block, "drand_round": b.reveal_round,
                                   "problems": b.n_problems} for b in pack.sealed]}
    if as_json:
        out.print_json(json.dumps(summary))
        return
    table = Table(show_header=False, title=f"pack {pack_path}")
    for key, value in summary.items():
        if key == "sealed_batches":
            table.add_row(key, f"{len(value)} (slots at blocks {value[0]['open_block']}..{value[-1]['open_block']}, "
                               f"drand rounds {value[0]['drand_round']}..{value[-1]['drand_round']})"
                          if value else "none: the race pool is in clear")
        elif key != "splits":
            table.add_row(key, json.dumps(value) if isinstance(value, dict) else str(value))
    rot = pack.rotation
    table.add_row("qualifying", f"{rot.qualify_problems} public problems; a submission races once it scores at least "
                                f"{rot.qualify_share:g} x the leader's qualifying score"
                  if rot.qualify_share > 0 else "off: every accepted submission races")
    out.print(table)
    _print_counts(pack.problems, "problems")
    sample = Table(title="first problems")
    for column in ("problem_id", "task", "split", "difficulty", "query"):
        sample.add_column(column, overflow="fold")
    for p in pack.problems[:8]:
        sample.add_row(p.problem_id, p.task, p.split, p.difficulty, p.query[:140])
    out.print(sample)
