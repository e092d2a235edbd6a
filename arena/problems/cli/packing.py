"""`arena problems pack`: combine packs, set their rotation and ruleset, seal the race pool to drand rounds and
sign (`opening` opens a sealed batch once its round is out)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cliutil import err, fail, out, progress_bar
from arena.problems.cli.common import Force, load, new_pack, not_over, out_file, write
from arena.problems.difficulty import TOO_EASY, DifficultyError, pack_warnings, read_outcomes
from arena.problems.fresh import mix_counts

# the longer options of `pack_cmd`
QualifyShareOption = Annotated[
    float | None,
    typer.Option(
        "--qualify.share",
        help="The qualifying round: a new submission first runs problems made fresh for its round from the "
        "catalog, beside the leader, and races only if it scores at least this share of the leader's score there "
        "(subnet 15: 0.95); 0 turns it off. The public split stays for miners to practise on.",
    ),
]
QualifyProblemsOption = Annotated[
    int | None, typer.Option("--qualify.problems", help="Problems made fresh for each qualifying round (default 30).")
]
SamplesOption = Annotated[
    int | None, typer.Option(help="k: runs of every (miner, problem) per race, each its own sample (default 1).")
]
WindowOption = Annotated[
    int | None,
    typer.Option(help="W: a miner's standing pools its samples over the last W races (default 1: this race)."),
]
ShardOption = Annotated[
    int | None,
    typer.Option(
        "--shard-r",
        help="r >= 2: split each race's runs among the validators that published results last race, each run "
        "to r of them; 0 (default): every validator runs every run.",
    ),
]
PayerOption = Annotated[
    str | None,
    typer.Option(
        "--payer",
        help="Who pays agents' LLM calls in the races: validator, miner or either (default: each validator's "
        "--gateway.payer; set here, it wins).",
    ),
]
CopySimilarityOption = Annotated[
    float | None,
    typer.Option(
        "--copy-similarity",
        help="The code similarity at which the fork rule judges two agents alike, 0.01 to 1 (default: each "
        "validator's --copies.similarity; set here, it wins, so pooled validators agree).",
    ),
]
SealRoundOption = Annotated[
    int | None,
    typer.Option(
        "--seal.round",
        help="Seal every race batch to this one drand quicknet round (local demos and tests: 1000, "
        "whose signature is public).",
    ),
]
SealAnchorBlockOption = Annotated[
    int | None,
    typer.Option(
        "--seal.anchor_block",
        help="Seal the race pool, one batch per rotation slot, each to the drand round of its "
        "slot's opening: the chain's block now (with --seal.anchor_time and "
        "--seal.block_time, slot blocks become times, then rounds).",
    ),
]
RulesetOption = Annotated[
    str | None,
    typer.Option(
        help="The strict checks the pack's problems are scored by, comma-separated: a ruleset name for every family "
        "that defines it (shoppingbench: the paper's evaluator, sn15: subnet 15's scorer), or FAMILY=NAME for one "
        "family (e.g. sn15,compatibility=NAME). Default: the input packs' for each family (each family's first "
        "when none was chosen)."
    ),
]
DifficultyOption = Annotated[
    Path | None,
    typer.Option(
        "--difficulty",
        help="Figures of bench/difficulty.py --json on these problems: warn about a task whose problems the offline "
        "template solves above --too-easy (too easy to rank agents).",
    ),
]
TooEasyOption = Annotated[
    float,
    typer.Option(
        "--too-easy", envvar="ARENA_TOO_EASY", help="With --difficulty: the template success a task is too easy above."
    ),
]


def pack_cmd(
    inputs: Annotated[list[Path], typer.Argument(help="One or more packs to combine.")],
    out_pack: Annotated[Path, typer.Option("--out", help="The signed pack to write.", callback=out_file)],
    public_only: Annotated[
        bool, typer.Option("--public-only", help="Write only the public split (answers included) for miners; unsigned.")
    ] = False,
    wallet_name: Annotated[str | None, typer.Option("--wallet.name", help="Operator wallet name.")] = None,
    wallet_hotkey: Annotated[str | None, typer.Option("--wallet.hotkey", help="Hotkey that signs.")] = None,
    wallet_path: Annotated[str | None, typer.Option("--wallet.path", help="Wallets folder.")] = None,
    key_uri: Annotated[str | None, typer.Option("--key-uri", help="Dev key such as //Alice (local use only).")] = None,
    cadence_blocks: Annotated[int | None, typer.Option(help="A race opens every N blocks.")] = None,
    problems_per_race: Annotated[int | None, typer.Option(help="Problems drawn per race.")] = None,
    task_mix: Annotated[
        str | None, typer.Option(help="Task shares, e.g. product=0.4,shop=0.2,voucher=0.2,web=0.2")
    ] = None,
    start_block: Annotated[
        int | None,
        typer.Option("--start-block", help="The block the rotation starts at (slot 0 of a sealed pack opens there)."),
    ] = None,
    qualify_share: QualifyShareOption = None,
    qualify_problems: QualifyProblemsOption = None,
    samples: SamplesOption = None,
    window: WindowOption = None,
    shard_r: ShardOption = None,
    payer: PayerOption = None,
    copy_similarity: CopySimilarityOption = None,
    seal_round: SealRoundOption = None,
    seal_anchor_block: SealAnchorBlockOption = None,
    seal_anchor_time: Annotated[
        float | None, typer.Option("--seal.anchor_time", help="Unix time of --seal.anchor_block (default: now).")
    ] = None,
    seal_block_time: Annotated[float, typer.Option("--seal.block_time", help="Seconds per block.")] = 12.0,
    ruleset: RulesetOption = None,
    difficulty: DifficultyOption = None,
    too_easy: TooEasyOption = TOO_EASY,
    force: Force = False,
) -> None:
    """Combine packs, set the rotation schedule and the ruleset, and sign with the operator's hotkey (sr25519)."""
    not_over(out_pack, force)
    keypair = None if public_only else _keypair(wallet_name, wallet_hotkey, wallet_path, key_uri)  # before any work
    outcomes = _outcomes(difficulty, too_easy)
    packs, problems = _combine(inputs)
    if outcomes is not None:
        raced = [p for p in problems if p.split != "public"] or problems
        for line in pack_warnings(raced, outcomes, too_easy):
            err.print(f"[yellow]warning:[/] {line}", highlight=False)
    rot = _rotation(
        packs[0].rotation.model_dump(),
        problems,
        cadence_blocks=cadence_blocks,
        problems_per_race=problems_per_race,
        start_block=start_block,
        qualify_share=qualify_share,
        qualify_problems=qualify_problems,
        task_mix=task_mix,
        sampling=dict(samples=samples, window=window, shard_r=shard_r, payer=payer, copy_similarity=copy_similarity),
    )
    pack = new_pack(problems, packs[0].catalog_digest, packs[0].generator_version, *_rulesets(packs, ruleset))
    pack = pack.model_copy(update={"rotation": rot})
    if seal_round is not None or seal_anchor_block is not None:
        pack = _seal(pack, public_only, seal_round, seal_anchor_block, seal_anchor_time, seal_block_time)
    if public_only:
        pack = pack.public_view()
        write(pack, out_pack)
        out.print(f"wrote the public split ({len(pack.problems)} problems, answers included) -> {out_pack}")
        return
    pack = pack.signed(keypair)
    write(pack, out_pack)
    out.print(f"signed {len(pack.problems)} problems by {pack.signer} -> {out_pack}")
    _warn_dev_signer(pack.signer)
    raced = sum(p.split == "race" for p in pack.problems)
    if raced and not pack.sealed:
        out.print(
            f"not sealed: its {raced} race problems are in clear, readable by anyone who holds the pack before their "
            "races; seal them with --seal.anchor_block (docs/operator.md, Sealed race batches)",
            highlight=False,
        )


def _outcomes(path: Path | None, too_easy: float) -> dict[str, Any] | None:
    """The problems' outcomes of a bench/difficulty.py figures file (None without one); one line and exit 2 when
    it cannot be read or the threshold is no share."""
    if not 0 <= too_easy <= 1:
        fail(f"--too-easy must be a share between 0 and 1, got {too_easy:g}")
    try:
        return None if path is None else read_outcomes(path)
    except DifficultyError as exc:
        fail(str(exc))


def _combine(inputs: list[Path]) -> tuple[list[Any], list[Any]]:
    """The input packs and their problems; one line and exit 2 for a sealed pack or packs of different catalogs."""
    packs = [load(p) for p in inputs]
    sealed_input = next((str(path) for path, p in zip(inputs, packs, strict=True) if p.sealed), None)
    if sealed_input is not None:
        fail(
            f"{sealed_input} is already sealed: its race problems cannot be repacked; pack the problems it was "
            "made from"
        )
    digests = {p.catalog_digest for p in packs}
    if len(digests) > 1:
        fail(
            f"the packs were made for different catalogs ({', '.join(sorted(str(d) for d in digests))}); "
            "combine only packs of one catalog"
        )
    return packs, [problem for p in packs for problem in p.problems]


def _rotation(
    rotation: dict[str, Any],
    problems: list[Any],
    *,
    cadence_blocks: int | None,
    problems_per_race: int | None,
    start_block: int | None,
    qualify_share: float | None,
    qualify_problems: int | None,
    task_mix: str | None,
    sampling: dict[str, int | float | str | None] | None = None,
) -> Any:
    """The first pack's rotation with the options given applied, checked against the problems; the task mix, when
    given, printed as the shares each race draws."""
    from pydantic import ValidationError

    from arena.problems.pack import Rotation

    for flag, value in (("--cadence-blocks", cadence_blocks), ("--problems-per-race", problems_per_race)):
        if value is not None and value < 1:
            fail(f"{flag} must be at least 1, got {value}")
    for key, given in (
        ("cadence_blocks", cadence_blocks),
        ("problems_per_race", problems_per_race),
        ("start_block", start_block),
        ("qualify_share", qualify_share),
        ("qualify_problems", qualify_problems),
        *(sampling or {}).items(),
    ):
        if given is not None:
            rotation[key] = given
    if task_mix is not None:
        try:
            rotation["task_mix"] = {k.strip(): float(v) for k, v in (part.split("=") for part in task_mix.split(","))}
        except ValueError:
            fail(f"--task-mix {task_mix!r} is not a list like product=0.4,shop=0.2,voucher=0.2,web=0.2")
    try:
        rot = Rotation.model_validate(rotation)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        fail(f"bad rotation: {where + ': ' if where else ''}{str(first['msg']).removeprefix('Value error, ')}")
    if rot.qualify_share > 0 and not any(p.split == "public" for p in problems):
        fail(
            f"--qualify.share {rot.qualify_share:g} needs public problems for miners to practise on, and the packs "
            "have none; pack problems with a public split or leave the qualifying round off"
        )
    if rot.qualify_share > 0 and not mix_counts(1, rot.task_mix):
        fail(
            f"--qualify.share {rot.qualify_share:g}: no task type of the task mix has a generator, so no qualifying "
            "problem can be made fresh; give a generated task type (e.g. product) a weight in --task-mix"
        )
    if task_mix is not None:
        _check_task_mix(rot.task_mix, problems)
    return rot


def _check_task_mix(task_mix: dict[str, float], problems: list[Any]) -> None:
    """Refuse a task mix that leaves out a task holding race problems; print the share of each task per race."""
    raced = Counter(p.task for p in problems if p.split == "race")
    dropped = sorted(t for t in raced if t not in task_mix)
    if dropped:
        fail(
            f"--task-mix leaves out {', '.join(dropped)}, which hold "
            f"{sum(raced[t] for t in dropped)} race problems that would never be drawn; give each a weight "
            "(0 to drop it on purpose)"
        )
    total = sum(task_mix.values())
    out.print(
        "task mix: each race draws "
        + ", ".join(f"{task} {weight / total:.0%}" for task, weight in task_mix.items())
        + (f" (weights summed to {total:g}, normalized)" if abs(total - 1) > 1e-9 else ""),
        highlight=False,
    )


def _rulesets(packs: list[Any], option: str | None) -> tuple[str, dict[str, str]]:
    """The combined pack's ruleset and its per-family rulesets: each family's from the input packs, then --ruleset's
    (a bare name for every family that defines it, FAMILY=NAME for one); exit 2 when two input packs score one
    family differently and --ruleset does not choose, or when --ruleset names an unknown family or ruleset."""
    from arena.tasks import UnknownRuleset, UnknownTask, families, family, family_for, get_ruleset, ruleset_for

    chosen: dict[str, set[str]] = {}
    for pack in packs:
        for task in {p.task for p in pack.problems}:
            name = pack.ruleset_for(task)
            if name is not None:
                chosen.setdefault(family_for(task).name, set()).add(name)
    legacy = {p.ruleset for p in packs}.pop() if len({p.ruleset for p in packs}) == 1 else "shoppingbench"
    explicit: dict[str, str] = {}
    try:
        for entry in [e.strip() for e in (option or "").split(",") if e.strip()]:
            fam_name, _, name = entry.rpartition("=")
            if fam_name:
                ruleset_for(family(fam_name), {fam_name: name})
                explicit[fam_name] = name
            else:
                legacy = get_ruleset(name).name
                explicit.update({f.name: legacy for f in families() if legacy in f.rulesets()})
    except (UnknownRuleset, UnknownTask) as exc:
        fail(f"--ruleset: {exc}")
    clashes = sorted(f for f, names in chosen.items() if len(names) > 1 and f not in explicit)
    if clashes:
        named = "; ".join(f"{f}: {', '.join(sorted(chosen[f]))}" for f in clashes)
        fail(f"the packs score a family by different rulesets ({named}); choose with --ruleset FAMILY=NAME")
    picked = {f: names.pop() for f, names in chosen.items() if len(names) == 1} | explicit
    # only what differs from what the pack's one ruleset (or the family's default) gives: an old-style pack stays one
    per_family = {f: n for f, n in picked.items() if ruleset_for(family(f), None, legacy) != n}
    return legacy, per_family


def _keypair(wallet_name: str | None, wallet_hotkey: str | None, wallet_path: str | None, key_uri: str | None) -> Any:
    """The operator's signing key (its wallet hotkey, or a key URI), loaded before any work; a warning for a public
    development key, which every validator refuses."""
    from arena.problems.pack import PackError, load_keypair

    if not key_uri and not wallet_name:
        fail("a pack must be signed: pass --wallet.name and --wallet.hotkey (or --key-uri //Alice for local use)")
    try:
        keypair = load_keypair(
            wallet_name=wallet_name, wallet_hotkey=wallet_hotkey, wallet_path=wallet_path, key_uri=key_uri
        )
    except PackError as exc:
        fail(str(exc))
    return keypair


def _warn_dev_signer(signer: str) -> None:
    """Warn when a pack is signed by a public development key, which every validator refuses."""
    from arena.problems.pack.trust import ALLOW_DEV_FLAG, dev_key_uri

    dev = dev_key_uri(signer)
    if dev is not None:
        err.print(
            f"warning: signed by {dev}, a public development key (anyone can sign as it): every validator refuses "
            f"this pack unless started with {ALLOW_DEV_FLAG} (a local demo or test only); sign a real pack with "
            "your own hotkey (--wallet.name, --wallet.hotkey)",
            highlight=False,
        )


def _seal(
    pack: Any,
    public_only: bool,
    seal_round: int | None,
    anchor_block: int | None,
    anchor_time: float | None,
    block_time: float,
) -> Any:
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
        anchor = (
            None
            if anchor_block is None
            else Anchor(block=anchor_block, block_time=block_time, unix_time=anchor_time or time.time())
        )
    except ValueError as exc:
        fail(f"bad --seal.* option: {str(exc).splitlines()[-1].strip()}")
    with progress_bar() as bar:
        task = bar.add_task("sealing race batches", total=None, rate="")
        try:
            sealed, unraced = sealed_pack(
                pack, anchor=anchor, fixed_round=seal_round, progress=lambda: bar.advance(task)
            )
        except (PackError, SealError) as exc:
            fail(str(exc))
    first, last = sealed.sealed[0], sealed.sealed[-1]
    out.print(
        f"sealed {sum(b.n_problems for b in sealed.sealed)} race problems in {len(sealed.sealed)} batches "
        f"(slots at blocks {first.open_block}..{last.open_block}, drand rounds {first.reveal_round}.."
        f"{last.reveal_round})"
        + (f"; {len(unraced)} race problem(s) fit no batch and were left out" if unraced else ""),
        highlight=False,
    )
    return sealed
