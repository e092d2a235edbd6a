"""The one `arena-validator` app and its callback (logging); the commands are registered on it by `validator.cli`."""

from __future__ import annotations

import logging

from arena.clihelp import App
from arena.log import configure_logging

app = App(
    name="arena-validator",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
    help="The ShopArena validator node: settings, store, local dev chain.",
)


@app.callback()
def _main() -> None:
    configure_logging()
    for noisy in ("alembic", "bittensor", "httpx"):  # our commands print their own one-line summaries and errors
        logging.getLogger(noisy).setLevel(logging.WARNING)
