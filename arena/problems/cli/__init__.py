"""``arena problems``: import, generate, split, self-check, pack, verify and show problem packs.

One module per command group, registered here on the one app in the order `--help` lists them: `making` (import,
generate), `sessions` (import-sessions: EComAgentBench's tasks), `splitting` (split, selfcheck), `packing` (pack,
open: signing and sealing), `inspecting` (verify, show); `common` holds what they share. `scoring` is `arena score`
(on the top-level app: answers of any harness against a pack).
"""

from __future__ import annotations

import typer

from arena.problems.cli import inspecting, making, packing, sessions, splitting

app = typer.Typer(
    help="Problems of every task family: import, generate, split, self-check, sign and inspect packs.",
    no_args_is_help=True,
)
app.command("import")(making.import_cmd)
app.command("generate")(making.generate_cmd)
app.command("import-sessions")(sessions.import_sessions_cmd)
app.command("split")(splitting.split_cmd)
app.command("selfcheck")(splitting.selfcheck_cmd)
app.command("pack")(packing.pack_cmd)
app.command("open")(packing.open_cmd)
app.command("verify")(inspecting.verify_cmd)
app.command("show")(inspecting.show_cmd)

__all__ = ["app"]
