"""The `arena-miner` Typer app, its callback and what its commands share (templates folder, cache, timeout); each
command group registers itself from its own module (`miner_template.cli`)."""

from __future__ import annotations

import os
from pathlib import Path

from arena.clihelp import App
from arena.log import configure_logging

app = App(
    name="arena-miner",
    help="Miner tools: init, check, test, submit and serve an agent bundle.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
TEMPLATES = Path(__file__).resolve().parent.parent
CACHE = Path(os.environ.get("ARENA_CACHE", Path(__file__).resolve().parents[2] / "var" / "miner-cache"))
DEFAULT_TIMEOUT = 300.0
#: the most problems `arena-miner test` makes for its built-in public pack (each made, then run, one at a time)
MAX_DEFAULT_PROBLEMS = 1000


@app.callback()
def _main() -> None:
    configure_logging()
