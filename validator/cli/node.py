"""The node's commands: `run` (the validator node, with its API), `dashboard` (the API over an existing store) and
`demo` (one whole race on this machine)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Annotated

import typer

from arena.cliutil import fail, out
from validator.cli.flags import STORE, with_settings
from validator.settings import Settings


@with_settings()
def run_cmd(settings: Settings) -> None:
    """Run the validator node: sync submissions, race them on the pack's rotation, score, set weights. Production:
    --database-url postgresql+psycopg://..., --sandbox.backend docker, --chain subtensor (the default)."""
    import asyncio

    from arena.log import get_logger, log_to
    from validator.node import NodeError, build_node, serve_api
    from validator.upkeep.memory import limit_arenas

    arenas = limit_arenas()  # before the node's threads start: each would take a malloc arena of its own
    if settings.log_json:  # the app's callback configured the log before the settings were read
        log_to(sys.stderr, json=True)
    if settings.log_file is not None:
        from arena.log import log_to_file

        log_to_file(settings.log_file.expanduser())  # rotated by the janitor (--retention.log_mb)
    log = get_logger("validator")
    try:
        node = build_node(settings, log=log)
        server = serve_api(node, settings, log=log) if settings.api_port else None
    except NodeError as exc:
        fail(str(exc))  # one line, nothing before it
    log.info("memory.arenas", max=arenas if arenas is not None else "unchanged (MALLOC_ARENA_MAX set, or not glibc)")
    try:
        asyncio.run(node.run())
    finally:
        node.arena.dispatcher.close()  # a Ray node's idle runners end; those holding a run stay for the next start
        if server is not None:
            server.stop()


@with_settings(fields=(*STORE, "api_host", "api_port"))
def dashboard_cmd(
    settings: Settings, port: Annotated[int | None, typer.Option("--port", help="Port (default --api.port).")] = None
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

        fail(
            f"{exc.strerror or exc}; "
            + (
                "pick another --port"
                if exc.errno == errno.EADDRINUSE
                else "check --api.host (an address of this machine, e.g. 127.0.0.1 or 0.0.0.0)"
            )
        )
    get_logger("validator").info("dashboard.serving", url=server.url + "/", api=server.url + "/openapi.json")
    out.print(
        f"dashboard: {server.url}/   API: {server.url}/openapi.json   metrics: {server.url}/metrics   (Ctrl-C to stop)",
        highlight=False,
    )
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


def demo_cmd(
    root: Annotated[
        Path,
        typer.Option(
            "--dir",
            help="Where the demo keeps everything: a new or empty folder, or an earlier demo's (replaced); any "
            "other folder is refused.",
        ),
    ] = Path("var/demo"),
    size: Annotated[int, typer.Option(help="Catalog size (products).", min=1000)] = 20_000,
    problems: Annotated[int, typer.Option(help="Problems to generate for the pack.", min=10)] = 60,
    per_race: Annotated[int, typer.Option("--per-race", help="Problems drawn per race.", min=1)] = 5,
    concurrency: Annotated[int, typer.Option(help="Runs at once.", min=1)] = 2,
    log_json: Annotated[
        bool, typer.Option("--log.json", help="The nodes' log as JSON lines on stderr (default: in demo.log in --dir).")
    ] = False,
) -> None:
    """One whole race on this machine: catalog, signed pack, a local chain, six miners publishing agents through
    it (one a copy, one hostile), two validator nodes racing them in the bubblewrap sandbox on SQLite and pooling
    their results, weights set on chain, then the audit of the race."""
    from demo.run import run_demo  # the one way from the node's CLI into the demo package

    raise typer.Exit(
        run_demo(root, size=size, problems=problems, per_race=per_race, concurrency=concurrency, log_json=log_json)
    )
