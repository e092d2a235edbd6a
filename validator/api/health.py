"""`/healthz` (the store, and the node's own checks) and `/metrics` for Prometheus."""

from __future__ import annotations

import time
from typing import Any

from fastapi import APIRouter
from fastapi.responses import JSONResponse, Response

from validator.store.repository import Store


def router(store: Store, *, health: Any = None, metrics: Any = None) -> APIRouter:
    """`/healthz` and `/metrics` over `store`. `health()` returns extra checks (chain, scheduler, sandbox, upstream
    LLM, progress) as {name: (state, detail)}, state True, False or "degraded" (`validator.health`); `metrics` is a
    `validator.metrics.Metrics` whose registry `/metrics` exposes (it answers during a store outage)."""
    api = APIRouter()

    @api.get(
        "/healthz",
        tags=["health"],
        summary="Store, chain, scheduler, sandbox, upstream LLM; ok, degraded (200) or failing (503)",
    )
    def healthz() -> Response:
        checks: dict[str, dict[str, Any]] = {}
        started = time.perf_counter()
        try:
            checks["store"] = {"ok": True, "detail": store.ping()}
        except Exception as exc:  # noqa: BLE001 - health reports any failure as data
            checks["store"] = {"ok": False, "detail": one_line(f"{type(exc).__name__}: {str(exc)[:200]}")}
        if health is not None:
            for name, (state, detail) in health().items():
                checks[name] = {"ok": bool(state), "degraded": state == "degraded", "detail": one_line(detail)}
        healthy = all(c["ok"] for c in checks.values())
        degraded = [f"{name}: {c['detail']}" for name, c in checks.items() if c.get("degraded")]
        body = {
            "ok": healthy,
            "status": "degraded" if healthy and degraded else "ok" if healthy else "failing",
            "degraded": degraded,  # one line per reason
            "checks": checks,
            "ms": round((time.perf_counter() - started) * 1000, 1),
        }
        return JSONResponse(body, status_code=200 if healthy else 503)

    @api.get("/metrics", tags=["health"], summary="Prometheus metrics", response_class=Response)
    def metrics_endpoint() -> Response:
        from prometheus_client import CONTENT_TYPE_LATEST, generate_latest

        from validator.metrics import Metrics

        registry = (metrics or Metrics(store)).registry
        return Response(generate_latest(registry), media_type=CONTENT_TYPE_LATEST)

    return api


def one_line(detail: Any) -> Any:
    """A check's detail on one line (a driver's error can span several: psycopg puts "Is the server running on that
    host" on a line of its own); a detail that is not text (a check's figures) as it is."""
    return " ".join(detail.split()) if isinstance(detail, str) else detail
