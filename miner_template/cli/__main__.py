"""`python -m miner_template.cli`: the same as `arena-miner`."""

from miner_template.cli import app

app()
