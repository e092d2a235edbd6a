"""`arena-validator`: the validator node's command line (settings, store schema, the local dev chain).

Every command that reads settings takes the btcli-style flags (`--wallet.name`, `--subtensor.network`, `--netuid`,
...) and the node's own (`--database-url`, `--sandbox.backend`, ...); each is also read from `ARENA_<FIELD>` in the
environment or `.env`. Bad settings are all listed at once, and the command exits 2.
"""

from __future__ import annotations

import functools
import inspect
import json
import logging
import os
import typing
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from arena.cliutil import err, fail, out
from arena.log import configure_logging
from validator.settings import Settings, SettingsError, field_flag, load_settings

app = typer.Typer(name="arena-validator", no_args_is_help=True, pretty_exceptions_enable=False,
                  add_completion=False, help="The ShopArena validator node: settings, store, local dev chain.")
config_app = typer.Typer(no_args_is_help=True, help="The node's effective settings.")
db_app = typer.Typer(no_args_is_help=True, help="The store's schema (Alembic migrations).")
chain_app = typer.Typer(no_args_is_help=True, help="LocalChain: a dev chain in a SQLite file, for demos and tests.")
app.add_typer(config_app, name="config")
app.add_typer(db_app, name="db")
app.add_typer(chain_app, name="localchain")


@app.callback()
def _main() -> None:
    configure_logging()
    for noisy in ("alembic", "bittensor", "httpx"):  # our commands print their own one-line summaries and errors
        logging.getLogger(noisy).setLevel(logging.WARNING)


# --- settings flags -----------------------------------------------------------------------------------------------

def _metavar(annotation: Any) -> str:
    """The type a settings flag takes, as its help shows it (INTEGER, FLOAT, PATH, [a|b], TEXT)."""
    if typing.get_origin(annotation) is typing.Literal:
        return "[" + "|".join(str(a) for a in typing.get_args(annotation)) + "]"
    kinds = [a for a in typing.get_args(annotation) if a is not type(None)] or [annotation]
    for kind, shown in ((int, "INTEGER"), (float, "FLOAT"), (Path, "PATH")):
        if kind in kinds:
            return shown
    if any(typing.get_origin(k) is typing.Literal for k in kinds):
        return _metavar(next(k for k in kinds if typing.get_origin(k) is typing.Literal))
    if any(typing.get_origin(k) is list for k in kinds) or typing.get_origin(annotation) is list:
        return "TEXT,..."
    return "TEXT"


def _default_text(name: str) -> str:
    default = Settings.model_fields[name].get_default(call_default_factory=True)
    if default is None or default == []:
        return ""
    if isinstance(default, list):
        default = ",".join(default)
    return f"; default: {default}"


def _settings_parameters(fields: tuple[str, ...] | None = None) -> list[inspect.Parameter]:
    """One keyword-only typer option per settings field (all, or `fields`), named by its btcli-style flag, with its
    type and default in the help; "not given" is None, so the environment, .env and defaults still apply."""
    params = []
    for name, info in Settings.model_fields.items():
        if fields is not None and name not in fields:
            continue
        flag = field_flag(name)
        help_text = f"{info.description} (env ARENA_{name.upper()}{_default_text(name)})"
        if info.annotation is bool:
            option = typer.Option(None, f"{flag}/--no-{flag.removeprefix('--')}", help=help_text,
                                  rich_help_panel="Settings", show_default=False)
            annotation: Any = bool | None
        else:
            option = typer.Option(None, flag, help=help_text, rich_help_panel="Settings", show_default=False,
                                  metavar=_metavar(info.annotation))
            annotation = str | None
        params.append(inspect.Parameter(f"s__{name}", inspect.Parameter.KEYWORD_ONLY, default=option,
                                        annotation=annotation))
    return params


STORE = ("data_dir", "database_url")  # the settings a command that only opens the store reads


def with_settings(*, require: tuple[str, ...] = (), fields: tuple[str, ...] | None = None,
                  ) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Give a command the settings flags it reads (`fields`; default: all); it receives the loaded `settings` (or
    exits 2 listing every problem), and `given` (the flags given) when it asks for it."""

    def wrap(command: Callable[..., Any]) -> Callable[..., Any]:
        hints = typing.get_type_hints(command, include_extras=True)
        own = [p.replace(annotation=hints.get(p.name, p.annotation))
               for p in inspect.signature(command).parameters.values() if p.name not in ("settings", "given")]
        wants_given = "given" in inspect.signature(command).parameters

        @functools.wraps(command)
        def run(**kwargs: Any) -> Any:
            given = {k.removeprefix("s__"): kwargs.pop(k) for k in list(kwargs) if k.startswith("s__")}
            try:
                settings = load_settings(given, require=require)
            except SettingsError as exc:
                for problem in exc.problems:
                    err.print(f"[bold red]error:[/] {problem}", highlight=False)
                err.print(f"{len(exc.problems)} setting(s) to fix; see `arena-validator --help` and .env",
                          highlight=False)
                raise typer.Exit(2) from None
            if wants_given:
                kwargs["given"] = {k: v for k, v in given.items() if v is not None}
            return command(settings=settings, **kwargs)

        signature = inspect.Signature(own + _settings_parameters(fields))
        run.__signature__ = signature  # type: ignore[attr-defined]
        run.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
        return run

    return wrap


@app.command("run")
@with_settings()
def run_cmd(settings: Settings) -> None:
    """Run the validator node: sync submissions, race them on the pack's rotation, score, set weights. Production:
    --database-url postgresql+psycopg://..., --sandbox.backend docker, --chain subtensor (the default)."""
    import asyncio

    from arena.log import get_logger
    from validator.node import NodeError, build_node

    if settings.log_json:
        os.environ["ARENA_LOG_JSON"] = "1"
    log = get_logger("validator")
    try:
        node = build_node(settings, log=log)
    except NodeError as exc:
        fail(str(exc))
    server = None
    if settings.api_port:
        from sandbox.serving import ThreadedServer
        from validator.api import create_app

        app_ = create_app(node.arena.store, health=node.health, metrics=node.arena.metrics)
        try:
            server = ThreadedServer(app_, host=settings.api_host, port=settings.api_port).start()
        except OSError as exc:
            fail(f"cannot serve the API on {settings.api_host}:{settings.api_port}: {exc}; pick another --api.port")
        log.info("api.serving", url=server.url, dashboard=server.url + "/", metrics=server.url + "/metrics")
    try:
        asyncio.run(node.run())
    finally:
        if server is not None:
            server.stop()


@app.command("dashboard")
@with_settings(fields=(*STORE, "api_host", "api_port"))
def dashboard_cmd(settings: Settings,
                  port: Annotated[int | None, typer.Option("--port", help="Port (default --api.port).")] = None,
                  ) -> None:
    """Serve the read-only API, the dashboard and /metrics over an existing store (no node needed)."""
    from arena.log import get_logger
    from sandbox.serving import ThreadedServer
    from validator.api import create_app
    from validator.node import NodeError, open_store

    port = port if port is not None else settings.api_port
    if not 1 <= port <= 65535:
        fail(f"--port must be from 1 to 65535, got {port}")
    try:
        store = open_store(settings)
    except NodeError as exc:
        fail(str(exc))
    server = ThreadedServer(create_app(store), host=settings.api_host, port=port)
    try:
        server.start()
    except OSError as exc:
        import errno

        fail(f"{exc.strerror or exc}; " + ("pick another --port" if exc.errno == errno.EADDRINUSE else
                           "check --api.host (an address of this machine, e.g. 127.0.0.1 or 0.0.0.0)"))
    get_logger("validator").info("dashboard.serving", url=server.url + "/", api=server.url + "/openapi.json")
    out.print(f"dashboard: {server.url}/   API: {server.url}/openapi.json   metrics: {server.url}/metrics   "
              "(Ctrl-C to stop)", highlight=False)
    import signal
    import threading

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(0.5) and server.alive():
            pass
    except KeyboardInterrupt:
        pass
    finally:
        server.stop()


@app.command("demo")
def demo_cmd(
    root: Annotated[Path, typer.Option(
        "--dir", help="Where the demo keeps everything: a new or empty folder, or an earlier demo's (replaced); any "
                      "other folder is refused.")] = Path("var/demo"),
    size: Annotated[int, typer.Option(help="Catalog size (products).", min=1000)] = 20_000,
    problems: Annotated[int, typer.Option(help="Problems to generate for the pack.", min=10)] = 60,
    per_race: Annotated[int, typer.Option("--per-race", help="Problems drawn per race.", min=1)] = 10,
    concurrency: Annotated[int, typer.Option(help="Runs at once.", min=1)] = 2,
) -> None:
    """One whole race on this machine: catalog, signed pack, a local chain, five miners publishing agents through
    it (one a copy, one hostile), the node racing them in the bubblewrap sandbox on SQLite, weights set on chain."""
    from validator.demo import run_demo

    raise typer.Exit(run_demo(root, size=size, problems=problems, per_race=per_race, concurrency=concurrency))


# --- config -------------------------------------------------------------------------------------------------------

def _sources(given: dict[str, Any], env_file: Path = Path(".env")) -> dict[str, str]:
    """Where each setting's value came from: flag, env (ARENA_*), .env or default (the order they win in)."""
    from dotenv import dotenv_values

    environ = {k.upper() for k in os.environ}
    dotenv = {k.upper() for k in dotenv_values(env_file)} if env_file.is_file() else set()
    found = {}
    for name in Settings.model_fields:
        env = f"ARENA_{name.upper()}"
        found[name] = ("flag" if name in given else "env" if env in environ else ".env" if env in dotenv
                       else "default")
    return found


@config_app.command("show")
@with_settings()
def config_show(settings: Settings, given: dict[str, Any],
                as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of a table.")] = False,
                ) -> None:
    """Print the effective settings and where each came from (flag > ARENA_* environment > .env > default), secrets
    masked."""
    shown = settings.masked()
    if as_json:
        out.print_json(json.dumps(shown, default=str))
        return
    sources = _sources(given)
    table = Table(title="arena-validator settings", show_lines=False)
    table.add_column("setting", overflow="fold")
    table.add_column("flag", overflow="fold")
    table.add_column("value", overflow="fold")
    table.add_column("from", overflow="fold")
    for name, value in shown.items():
        table.add_row(name, field_flag(name), "" if value is None else str(value), sources[name])
    out.print(table)
    out.print("from: flag (this command line), env (ARENA_* in the environment), .env (the file in this folder), "
              "default", highlight=False)


@config_app.command("check")
@with_settings()
def config_check(settings: Settings) -> None:
    """Check what the node needs before it starts: the store (reachable, schema current), the chain (reachable),
    the wallet (hotkey readable), our hotkey on the metagraph with a validator permit, (when --catalog or --pack
    is set) the pack: its catalog, its signature, its signer the pinned --pack.signer, and with --dispatch ray the
    cluster: its workers, their catalogs and sandboxes. One line per check."""
    from validator.chain import open_chain, our_neuron
    from validator.chain.bittensor_chain import load_wallet
    from validator.chain.port import ChainError
    from validator.store.repository import StoreError, make_engine, wait_for
    from validator.store.schema import SchemaError, check_current

    failures = 0

    def report(name: str, ok: bool, detail: str) -> None:
        nonlocal failures
        failures += not ok
        mark = "[green]ok[/]  " if ok else "[bold red]fail[/]"
        out.print(f"{mark} {name:8s} {detail}", highlight=False)

    try:
        engine = make_engine(settings.db_url, create=False)
        wait_for(engine)
        check_current(engine)
        report("store", True, engine.url.render_as_string(hide_password=True))
    except (StoreError, SchemaError) as exc:
        report("store", False, str(exc))
    hotkey = None
    try:
        wallet = load_wallet(settings.wallet_name, settings.wallet_hotkey, settings.wallet_dir)
        hotkey = wallet.hotkey.ss58_address
        report("wallet", True, f"{settings.wallet_name}/{settings.wallet_hotkey}: {hotkey}")
    except ChainError as exc:
        report("wallet", False, exc.message)
    try:
        chain = open_chain(settings)
        graph = chain.metagraph()
        report("chain", True, f"{chain.network} netuid {chain.netuid}: block {chain.block()}, "
                              f"{len(graph.neurons)} neurons")
        if hotkey is not None:
            neuron = our_neuron(chain, hotkey, metagraph=graph)
            report("hotkey", True, f"uid {neuron.uid}, validator permit")
    except ChainError as exc:
        report("chain" if exc.code not in {"not_registered", "no_permit"} else "hotkey", False, exc.message)
    if settings.pack is not None or settings.catalog is not None:
        from validator.node import NodeError, open_pack

        try:
            _, pack = open_pack(settings)
            report("pack", True, f"{pack.pack_id}: {len(pack.problems)} problems signed by the pinned {pack.signer}")
        except NodeError as exc:
            report("pack", False, str(exc))
    if settings.dispatch == "ray":
        from validator.dispatch.ray import cluster_report

        for name, ok, detail in cluster_report(settings):
            report(name, ok, detail)
    if failures:
        raise typer.Exit(1)


# --- db -----------------------------------------------------------------------------------------------------------

def _engine(settings: Settings, *, create: bool = True) -> Any:
    """The store's engine; `create=False` (read-only commands): a SQLite file that does not exist is one error line."""
    from validator.store.repository import StoreError, make_engine, wait_for

    try:
        engine = make_engine(settings.db_url, create=create)
        wait_for(engine)
    except StoreError as exc:
        fail(exc.message)
    return engine


@db_app.command("upgrade")
@with_settings(fields=STORE)
def db_upgrade(settings: Settings,
               revision: Annotated[str, typer.Argument(help="Target revision.")] = "head") -> None:
    """Create or migrate the store's schema to `revision` (default: the code's head)."""
    from validator.store.schema import current_revision, upgrade

    engine = _engine(settings)
    before = current_revision(engine)
    try:
        upgrade(engine, revision)
    except Exception as exc:  # alembic's own errors (unknown revision...) as one line
        fail(f"cannot upgrade {engine.url.render_as_string(hide_password=True)} to {revision}: {exc}")
    after = current_revision(engine)
    out.print(f"store {engine.url.render_as_string(hide_password=True)}: {before or 'empty'} -> {after}")


@db_app.command("downgrade")
@with_settings(fields=STORE)
def db_downgrade(settings: Settings,
                 revision: Annotated[str, typer.Argument(help="Target revision ('-1' one step, 'base' empty).")] = "-1",
                 ) -> None:
    """Migrate the store's schema down to `revision` (default: one step)."""
    from validator.store.schema import current_revision, downgrade

    engine = _engine(settings, create=False)
    before = current_revision(engine)
    if before is None:
        fail("the store has no schema to downgrade")
    try:
        downgrade(engine, revision)
    except Exception as exc:
        fail(f"cannot downgrade {engine.url.render_as_string(hide_password=True)} to {revision}: {exc}")
    out.print(f"store {engine.url.render_as_string(hide_password=True)}: {before} -> "
              f"{current_revision(engine) or 'empty'}")


@db_app.command("current")
@with_settings(fields=STORE)
def db_current(settings: Settings) -> None:
    """Print the store's schema revision and whether it matches this code."""
    from validator.store.schema import SchemaError, check_current, current_revision, head_revision

    engine = _engine(settings, create=False)
    out.print(f"store {engine.url.render_as_string(hide_password=True)}: {current_revision(engine) or 'empty'} "
              f"(code: {head_revision()})")
    try:
        check_current(engine)
    except SchemaError as exc:
        fail(str(exc), code=1)


# --- localchain ---------------------------------------------------------------------------------------------------

def _chain_path(settings: Settings) -> Path:
    return settings.localchain_path.expanduser()


@chain_app.command("init")
@with_settings(fields=("localchain_path", "netuid"))
def localchain_init(
    settings: Settings,
    block_time: Annotated[float, typer.Option(help="Seconds per block.", min=0.01)] = 12.0,
    rate_limit: Annotated[int, typer.Option("--weights-rate-limit", help="Blocks between weight sets.", min=0)] = 100,
    overwrite: Annotated[bool, typer.Option("--overwrite", help="Replace an existing chain file.")] = False,
) -> None:
    """Create a LocalChain file (netuid from --netuid, default 1)."""
    from validator.chain.local import LocalChain
    from validator.chain.port import ChainError

    path = _chain_path(settings)
    try:
        chain = LocalChain.init(path, netuid=settings.netuid if settings.netuid is not None else 1,
                                block_time=block_time, weights_rate_limit=rate_limit, overwrite=overwrite)
    except ChainError as exc:
        fail(exc.message)
    out.print(f"LocalChain at {path}: netuid {chain.netuid}, {block_time:g} s blocks, weights rate limit "
              f"{rate_limit} blocks; next: arena-validator localchain register --wallet.name NAME")


@chain_app.command("register")
@with_settings(fields=("localchain_path", "wallet_name", "wallet_hotkey", "wallet_path"))
def localchain_register(
    settings: Settings,
    validator_permit: Annotated[bool, typer.Option("--validator-permit",
                                                   help="Give the hotkey a validator permit.")] = False,
    stake: Annotated[float, typer.Option(help="Stake to record for the hotkey (TAO).", min=0)] = 0.0,
    create: Annotated[bool, typer.Option("--create", help="Create the wallet (unencrypted keys) if missing.")] = False,
) -> None:
    """Register the wallet's hotkey (--wallet.name/--wallet.hotkey/--wallet.path) on the LocalChain."""

    from validator.chain.bittensor_chain import create_wallet, load_wallet
    from validator.chain.local import LocalChain
    from validator.chain.port import ChainError

    try:
        chain = LocalChain(_chain_path(settings))
        if create:
            create_wallet(settings.wallet_name, settings.wallet_hotkey, settings.wallet_dir)
        wallet = load_wallet(settings.wallet_name, settings.wallet_hotkey, settings.wallet_dir)
        neuron = chain.register(wallet, validator_permit=validator_permit, stake=stake)
    except ChainError as exc:
        fail(exc.message)
    role = "validator" if neuron.validator_permit else "miner"
    out.print(f"registered {neuron.hotkey} as uid {neuron.uid} ({role}) on netuid {chain.netuid}")


@chain_app.command("show")
@with_settings(fields=("localchain_path",))
def localchain_show(
    settings: Settings,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON instead of tables.")] = False,
) -> None:
    """Show the LocalChain: block, neurons, commitments and the latest weights."""
    from validator.chain.local import LocalChain
    from validator.chain.port import ChainError

    try:
        chain = LocalChain(_chain_path(settings))
        info, graph, commitments, weights = chain.info(), chain.metagraph(), chain.commitments(), chain.weights()
    except ChainError as exc:
        fail(exc.message)
    if as_json:
        out.print_json(json.dumps({"info": info, "neurons": [n.model_dump() for n in graph.neurons],
                                   "commitments": {k: v.model_dump() for k, v in commitments.items()},
                                   "weights": {str(k): {str(u): w for u, w in v.items()} for k, v in weights.items()}},
                                  default=str))
        return
    out.print(f"LocalChain {_chain_path(settings)}: netuid {info['netuid']}, block {info['block']}, "
              f"{info['block_time']:g} s blocks, weights rate limit {info['weights_rate_limit']}")
    table = Table(title=f"{len(graph.neurons)} neurons")
    for column in ("uid", "hotkey", "role", "stake", "axon", "commitment", "at block"):
        table.add_column(column, no_wrap=column == "hotkey", min_width=48 if column == "hotkey" else None,
                         overflow="fold")
    for n in graph.neurons:
        c = commitments.get(n.hotkey)
        table.add_row(str(n.uid), n.hotkey, "validator" if n.validator_permit else "miner", f"{n.stake:g}",
                      n.axon.url if n.axon else "", c.value if c else "", str(c.block) if c else "")
    out.print(table)
    for uid, row in sorted(weights.items()):
        shown = ", ".join(f"{u}: {w:.4f}" for u, w in sorted(row.items()))
        out.print(f"weights set by uid {uid}: {shown}")


# --- rescore ------------------------------------------------------------------------------------------------------

@app.command("rescore")
@with_settings(fields=(*STORE, "catalog", "pack", "pack_signer", "pack_allow_dev_signer", "max_attempts"))
def rescore_cmd(
    settings: Settings,
    race_id: Annotated[str, typer.Option("--race", help="The race whose stored runs to score again.")],
    ruleset: Annotated[str | None, typer.Option("--ruleset", help="shoppingbench or sn15 (default: the pack's).")]
        = None,
) -> None:
    """Score a race's stored runs again after a ruleset or rubric change. The answer is read again from each run's
    stored trajectory; the judge's stored quality makes the final score by the current rubric. The replaced verdicts
    are kept beside the new ones with their versions; the race's stored results and weights already set are not
    changed (the table shows each miner's mean before and after). Needs --pack and --catalog of the race."""
    from arena.cliutil import progress_bar
    from arena.judge.rubric import SN15_RUBRIC
    from arena.scoring.rulesets import UnknownRuleset, get_ruleset
    from validator.node import NodeError, open_pack, open_store
    from validator.rescore import RescoreError, rescore_race

    try:
        store = open_store(settings)
        catalog, pack = open_pack(settings)
    except NodeError as exc:
        fail(str(exc))
    try:
        rules = get_ruleset(ruleset or pack.ruleset)
    except UnknownRuleset as exc:
        fail(f"--ruleset: {exc}")
    with progress_bar() as bar:
        task = bar.add_task("rescoring", total=None, rate="")
        try:
            report = rescore_race(store, pack, catalog.get, race_id, ruleset=rules, rubric=SN15_RUBRIC,
                                  max_attempts=settings.max_attempts, progress=lambda: bar.advance(task))
        except RescoreError as exc:
            fail(str(exc))
    table = Table(title=f"race {race_id} rescored by {report.ruleset} (rubric {report.rubric}): {report.revised} "
                        f"of {report.runs} scored runs revised, {report.flipped} changed success, "
                        f"{report.unchanged} unchanged")
    for column in ("hotkey", "mean before", "mean after"):
        table.add_column(column, justify="left" if column == "hotkey" else "right")
    for hotkey, (before, after) in report.per_miner.items():
        table.add_row(hotkey, f"{before:.4f}", f"{after:.4f}")
    out.print(table)


# --- corpus -------------------------------------------------------------------------------------------------------

corpus_app = typer.Typer(no_args_is_help=True, help="Training corpora from the stored trajectories.")
app.add_typer(corpus_app, name="corpus")


@corpus_app.command("export")
@with_settings(fields=STORE)
def corpus_export(
    settings: Settings,
    out_dir: Annotated[Path, typer.Option("--out", help="The folder to write; it must not exist (nothing is "
                                                    "overwritten).", show_default=False)],
    since: Annotated[str | None, typer.Option(help="Only runs that ended at or after this time (2025-06-01 or an "
                                                   "ISO time; UTC unless it says otherwise).")] = None,
    until: Annotated[str | None, typer.Option(help="Only runs that ended before this time.")] = None,
    task: Annotated[list[str] | None, typer.Option("--task", help="Only these tasks (repeat the flag): product, "
                                                                  "shop, voucher, web. Default: all.")] = None,
    cap_per_problem: Annotated[int, typer.Option("--cap-per-problem", help="At most this many chats per "
                                                                           "problem.")] = 50,
    judge_threshold: Annotated[float, typer.Option("--judge-threshold", help="Keep runs whose judge quality is at "
                                                                             "least this (0..1; 0.8 = coefficient 1 "
                                                                             "in subnet 15's formula).")] = 0.8,
    held_out_fraction: Annotated[float, typer.Option("--held-out-fraction", help="Share of the chats (whole leak "
                                                                                 "clusters) put in eval.jsonl.")
                                 ] = 0.15,
    fmt: Annotated[str, typer.Option("--format", help="openai (messages + tools + tool_calls) or sharegpt "
                                                      "(Hermes-style tool calls).")] = "openai",
    axis: Annotated[str, typer.Option("--axis", help="a: only chats whose tool calls the LLM issued (default); b: "
                                                     "only chats where the agent's code issued some; all: both.")
                    ] = "a",
    decontaminate: Annotated[list[Path] | None, typer.Option(
        "--decontaminate", help="A public test set (ShoppingBench test JSONL) whose queries must not be in the "
                                "corpus; repeat for several.")] = None,
    near_duplicate: Annotated[float | None, typer.Option(
        "--near-duplicate", help="Content-word Jaccard at or above which a query is a near-duplicate of a test "
                                 "query (with --decontaminate; default 0.8).", show_default=False)] = None,
    max_tokens: Annotated[int, typer.Option("--max-tokens", help="Drop chats longer than this (tokens estimated "
                                                                 "as bytes / 4).")] = 14_336,
    seed: Annotated[int, typer.Option(help="Seed of the split and of the rows' order.")] = 0,
    batch_size: Annotated[int, typer.Option("--batch-size", help="Runs read per batch (memory vs round trips).",
                                            min=1)] = 500,
) -> None:
    """Export the stored trajectories as a training corpus: train.jsonl, eval.jsonl, stats.json, funnel.json and a
    dataset card, through the funnel (normalize, validity, winning, judge gate, Axis A/B, dedup, cap per problem,
    leak-guarded split, decontamination). Interrupted? Run the same command again: it resumes."""
    import time
    from typing import NoReturn

    from arena.cliutil import progress_bar
    from validator.corpus import CorpusError, ExportOptions, export_corpus, parse_when
    from validator.store.repository import Store, StoreError
    from validator.store.schema import SchemaError

    def refuse(lines: list[str]) -> NoReturn:
        for line in lines:
            err.print(f"[bold red]error:[/] {line}", highlight=False)
        raise typer.Exit(2)

    try:
        options = ExportOptions(
            since=parse_when(since, "--since") if since else None,
            until=parse_when(until, "--until") if until else None, tasks=tuple(task or ()),
            cap_per_problem=cap_per_problem, judge_threshold=judge_threshold, held_out_fraction=held_out_fraction,
            format=fmt, axis=axis, decontaminate=tuple(decontaminate or ()), near_duplicate=near_duplicate,
            max_tokens=max_tokens, seed=seed)
    except CorpusError as exc:
        refuse(exc.lines)
    if problems := options.problems():
        refuse(problems)
    if out_dir.exists():
        fail(f"{out_dir} already exists; the export never overwrites: choose a new --out or remove it")
    try:
        store = Store.open(settings.db_url)
    except (StoreError, SchemaError) as exc:
        fail(str(exc))
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

    try:
        with bar:
            result = export_corpus(store, out_dir, options, progress=progress, batch_size=batch_size)
    except CorpusError as exc:
        refuse(exc.lines)
    except KeyboardInterrupt:
        err.print(f"interrupted: the work done so far is kept next to {out_dir}; run the same command again to "
                  "resume", highlight=False)
        raise typer.Exit(130) from None
    finally:
        store.close()
    table = Table(title=f"corpus funnel ({result.funnel['selection']['runs_in_store']:,} runs in the store)")
    for column in ("#", "step", "in", "out", "dropped"):
        table.add_column(column, overflow="fold", justify="right" if column in ("#", "in", "out") else "left")
    for step in result.funnel["steps"]:
        table.add_row(str(step["step"]), step["name"], f"{step['in']:,}", f"{step['out']:,}",
                      ", ".join(f"{r} {n:,}" for r, n in step["dropped"].items()) or "-")
    out.print(table)
    resumed = f" (resumed after {result.resumed_from:,} runs)" if result.resumed_from else ""
    audit = "passed" if result.stats["audit"]["passed"] else "FAILED"
    out.print(f"wrote {result.out}: {result.train:,} train + {result.eval:,} eval chats ({options.format}), leak "
              f"audit {audit}{resumed}", highlight=False)
    if not result.train + result.eval:
        err.print("warning: no chat passed the funnel; funnel.json says where each run was dropped", highlight=False)
