"""`python -m validator.cli`: the same as `arena-validator`."""

from validator.cli import app

app()
