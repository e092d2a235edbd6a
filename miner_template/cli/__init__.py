"""``arena-miner``: write an agent, check it, and test it with exactly the validator's harness.

One module per command group, registered here on the one app (`miner_template.cli.app`) in the order `--help` lists
them: `bundle` (init, check), `testing` (test; `scorecard` is what it writes and prints), `chain` (submit, serve).
"""

from __future__ import annotations

from miner_template.cli import bundle, chain, testing
from miner_template.cli.app import app

app.command("init")(bundle.init_cmd)
app.command("check")(bundle.check_cmd)
app.command("test")(testing.test_cmd)
app.command("submit")(chain.submit_cmd)
app.command("serve")(chain.serve_cmd)

__all__ = ["app"]
