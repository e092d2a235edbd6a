"""``arena problems``: import, generate, split, self-check, pack, verify and show problem packs.

One module per command group, registered here on the one app in the order `--help` lists them: `importing` (one
``import...`` command per importer a family declares: ShoppingBench's ``import``, the session's
``import-sessions``), `making` (generate), `splitting` (split, selfcheck by each family's hook), `packing` (pack:
signing and sealing), `opening` (open a sealed batch), `inspecting` (verify, show); `common` holds what they share,
the one overwrite policy among it (an existing --out is replaced only with --force). `scoring` is `arena score` (on
the top-level app: answers of any harness against a pack).
"""

from __future__ import annotations

from arena.clihelp import App
from arena.problems.cli import importing, inspecting, making, opening, packing, splitting

app = App(
    help="Problems of every task family: import, generate, split, self-check, sign and inspect packs.",
    no_args_is_help=True,
)
importing.register_importers(app)
app.command("generate")(making.generate_cmd)
app.command("split")(splitting.split_cmd)
app.command("selfcheck")(splitting.selfcheck_cmd)
app.command("pack")(packing.pack_cmd)
app.command("open")(opening.open_cmd)
app.command("verify")(inspecting.verify_cmd)
app.command("show")(inspecting.show_cmd)

__all__ = ["app"]
