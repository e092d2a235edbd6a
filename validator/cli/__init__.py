"""`arena-validator`: the validator node's command line (settings, store schema, the local dev chain).

Every command that reads settings takes the btcli-style flags (`--wallet.name`, `--subtensor.network`, `--netuid`,
...) and the node's own (`--database-url`, `--sandbox.backend`, ...); each is also read from `ARENA_<FIELD>` in the
environment or `.env`. Bad settings are all listed at once, and the command exits 2 (`flags`).

One module per command group, registered here on the one app (`validator.cli.app`) in the order `--help` lists them:
`node` (run, dashboard, demo), `rescore`, `audit`, `standings`, `janitor`, `upgrade` (upgrade-check), and the
groups `config` (show, check), `db` (upgrade, downgrade, current), `localchain` (init, register, show), `corpus`
(export) and `submissions` (compare, show).
"""

from __future__ import annotations

from validator.cli import audit, config, corpus, db, janitor, localchain, node, rescore, standings, submissions, upgrade
from validator.cli.app import app

app.command("run")(node.run_cmd)
app.command("dashboard")(node.dashboard_cmd)
app.command("demo")(node.demo_cmd)
app.command("rescore")(rescore.rescore_cmd)
app.command("audit")(audit.audit_cmd)
app.command("standings")(standings.standings_cmd)
app.command("janitor")(janitor.janitor_cmd)
app.command("upgrade-check")(upgrade.upgrade_check_cmd)
app.add_typer(config.config_app, name="config")
app.add_typer(db.db_app, name="db")
app.add_typer(localchain.chain_app, name="localchain")
app.add_typer(corpus.corpus_app, name="corpus")
app.add_typer(submissions.submissions_app, name="submissions")

__all__ = ["app"]
