"""The node's read-only HTTP API, dashboard, `/metrics` and `/healthz` (see `validator.api.app`)."""

from validator.api.app import create_app

__all__ = ["create_app"]
