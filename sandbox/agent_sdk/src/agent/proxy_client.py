"""Subnet 15's ``src.agent.proxy_client``, provided by ShopArena's sandbox.

``ProxyClient`` talks to the proxy at ``$SANDBOX_PROXY_URL``: inside a ShopArena sandbox that is the gateway
(``http://127.0.0.1:8080``), which serves subnet 15's routes (``GET /search/find_product``,
``GET /search/view_product_information``, ``POST /inference/chat/completions``, and ``POST /search/<tool>`` with the
arguments as the body) from the node's one tool registry and LLM proxy, logged and budgeted like every other call.

Behaviour kept from subnet 15: ``get``/``post`` return the parsed JSON of a 200 answer, or ``None`` once every
attempt failed; any other status or a connection error is retried (``max_retries`` attempts in all, waiting
``retry_delay * 2**i`` seconds, ``rate_limit_retry_delay * 2**i`` after a 429, at most 10 s); with
``$REQUEST_LOG_FILE`` each call and attempt is appended there as a JSON line, and inference outcomes are counted in
``$INFERENCE_STATS_FILE``. The bearer token of ``$CHUTES_ACCESS_TOKEN`` is sent on inference calls, as subnet 15's
does; the gateway ignores it (the node holds the upstream's key).

The gateway's answers also carry the run's remaining budget in ``X-Arena-Budget-*`` headers (``arena_agent.budget()``
reads them); this client keeps subnet 15's return values and does not surface them.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import requests

logger = logging.getLogger(__name__)

DEFAULT_TIMEOUT = 120
DEFAULT_MAX_RETRIES = 3
DEFAULT_RETRY_DELAY = 2
DEFAULT_RATE_LIMIT_RETRY_DELAY = 5
MAX_DELAY = 10


class RequestLog:
    """Appends one JSON line per call (``kind: summary``) and per attempt (``kind: attempt``) to a file, if set."""

    def __init__(self, log_file: str | None = None) -> None:
        self._log_file = log_file
        self._lock = threading.Lock()

    def record(
        self,
        method: str,
        path: str,
        params: dict[str, Any] | None = None,
        json_data: Any = None,
        status_code: int | None = None,
        response_body: Any = None,
        duration_ms: float = 0.0,
    ) -> None:
        if not self._log_file:
            return
        entry: dict[str, Any] = {
            "kind": "summary",
            "method": method,
            "path": path,
            "timestamp": int(time.time() * 1000),
            "duration_ms": round(duration_ms, 1),
            "status_code": status_code,
        }
        if params:
            entry["params"] = {k: v for k, v in params.items() if v is not None}
        if json_data:
            entry["json_data"] = json_data
        if response_body is not None:
            entry["response"] = response_body
            if "/search/find_product" in path and isinstance(response_body, list):
                entry["result_product_ids"] = [
                    str(item["product_id"]) for item in response_body if isinstance(item, dict) and "product_id" in item
                ]
        self._write(entry)

    def record_attempt(
        self,
        method: str,
        path: str,
        attempt: int,
        duration_ms: float,
        status_code: int | None = None,
        error_class: str | None = None,
    ) -> None:
        if not self._log_file:
            return
        entry: dict[str, Any] = {
            "kind": "attempt",
            "method": method,
            "path": path,
            "timestamp": int(time.time() * 1000),
            "attempt": attempt,
            "duration_ms": round(duration_ms, 1),
            "status_code": status_code,
        }
        if error_class:
            entry["error_class"] = error_class
        self._write(entry)

    def _write(self, entry: dict[str, Any]) -> None:
        assert self._log_file is not None
        with self._lock:
            try:
                with open(self._log_file, "a") as fh:
                    fh.write(json.dumps(entry, default=str) + "\n")
            except OSError:
                pass


class InferenceStats:
    """Counts inference successes and failures; after each one appends the running totals to a file, if set."""

    def __init__(self, stats_file: str | None = None) -> None:
        self._stats_file = stats_file
        self._lock = threading.Lock()
        self._success = 0
        self._failed = 0

    def record_success(self) -> None:
        with self._lock:
            self._success += 1
            self._flush()

    def record_failure(self) -> None:
        with self._lock:
            self._failed += 1
            self._flush()

    def _flush(self) -> None:
        if not self._stats_file:
            return
        try:
            problem = json.loads(os.environ.get("PROBLEM_DATA", "{}"))
            problem_id = problem.get("problem_id") or problem.get("id", "unknown")
            line = json.dumps(
                {
                    "problem_id": str(problem_id),
                    "inference_success": self._success,
                    "inference_failed": self._failed,
                    "inference_total": self._success + self._failed,
                }
            )
            with open(self._stats_file, "a") as fh:
                fh.write(line + "\n")
        except (OSError, ValueError, AttributeError):
            pass


class ProxyClient:
    """GET and POST to the proxy with retries; ``None`` after the last failed attempt."""

    def __init__(
        self,
        proxy_url: str | None = None,
        timeout: float = DEFAULT_TIMEOUT,
        max_retries: int = DEFAULT_MAX_RETRIES,
        retry_delay: float = DEFAULT_RETRY_DELAY,
        rate_limit_retry_delay: float = DEFAULT_RATE_LIMIT_RETRY_DELAY,
        api_key: str | None = None,
    ) -> None:
        self.proxy_url = proxy_url or os.environ.get("SANDBOX_PROXY_URL", "http://proxy:80")
        self.timeout = timeout
        self.max_retries = max_retries
        self.retry_delay = retry_delay
        self.rate_limit_retry_delay = rate_limit_retry_delay
        self.api_key = api_key or os.getenv("CHUTES_ACCESS_TOKEN")
        self.inference_stats = InferenceStats(os.environ.get("INFERENCE_STATS_FILE"))
        self.request_log = RequestLog(os.environ.get("REQUEST_LOG_FILE"))

    def _build_url(self, path: str, params: dict[str, Any] | None = None) -> str:
        url = self.proxy_url.rstrip("/") + path
        kept = {k: v for k, v in (params or {}).items() if v is not None}
        return url + ("?" + urlencode(kept, doseq=True) if kept else "")

    def _make_request_with_retries(
        self, request_func: Callable[[], requests.Response], method: str, path: str
    ) -> requests.Response | None:
        for attempt in range(self.max_retries):
            began = time.monotonic()
            response: requests.Response | None = None
            error_class = None
            try:
                response = request_func()
            except requests.RequestException as exc:
                error_class = type(exc).__name__
                logger.error("%s %s error, retry %d/%d: %s", method, path, attempt + 1, self.max_retries, exc)
            status = response.status_code if response is not None else None
            self.request_log.record_attempt(
                method, path, attempt, (time.monotonic() - began) * 1000, status_code=status, error_class=error_class
            )
            if response is not None and status == 200:
                return response
            if response is not None:
                logger.warning(
                    "%s %s returned status %s, retry %d/%d", method, path, status, attempt + 1, self.max_retries
                )
            if attempt < self.max_retries - 1:
                base = self.rate_limit_retry_delay if status == 429 else self.retry_delay
                time.sleep(min(base * 2**attempt, MAX_DELAY))
        logger.error("Failed %s %s after %d retries", method, path, self.max_retries)
        return None

    def get(self, path: str, params: dict[str, Any] | None = None) -> Any:
        """GET ``path`` with ``params`` (``None`` values left out); the parsed JSON, or None."""
        url = self._build_url(path, params)
        began = time.monotonic()
        response = self._make_request_with_retries(lambda: requests.get(url, timeout=self.timeout), "GET", path)
        result = response.json() if response is not None else None
        self.request_log.record(
            "GET",
            path,
            params=params,
            status_code=response.status_code if response else None,
            response_body=result,
            duration_ms=(time.monotonic() - began) * 1000,
        )
        return result

    def post(self, path: str, json_data: Any = None) -> Any:
        """POST ``json_data`` to ``path``; the parsed JSON of a 200 answer, or None."""
        url = self._build_url(path)
        headers = {"Authorization": f"Bearer {self.api_key}"} if self.api_key and "/inference/" in path else {}
        began = time.monotonic()
        response = self._make_request_with_retries(
            lambda: requests.post(url, json=json_data, headers=headers, timeout=self.timeout), "POST", path
        )
        ok = response is not None and response.status_code == 200
        if "/inference/" in path:
            (self.inference_stats.record_success if ok else self.inference_stats.record_failure)()
        result = response.json() if ok and response is not None else None
        self.request_log.record(
            "POST",
            path,
            json_data=json_data,
            status_code=response.status_code if response is not None else None,
            response_body=result,
            duration_ms=(time.monotonic() - began) * 1000,
        )
        return result

    def parse_nonces(self, response_json: Any) -> dict[str, str]:
        """The ``{call_id: nonce}`` map of an inference answer's ``oro_metadata.tool_nonces`` ({} when absent, as
        here: the gateway logs every call itself and needs no nonces)."""
        meta = (response_json or {}).get("oro_metadata") or {} if isinstance(response_json, dict) else {}
        nonces = meta.get("tool_nonces") or {} if isinstance(meta, dict) else {}
        return {str(k): str(v) for k, v in nonces.items() if isinstance(v, str)} if isinstance(nonces, dict) else {}

    def dispatch_tool(self, tool_name: str, arguments_raw: str, nonce: str, call_id: str) -> Any:
        """POST a catalog tool's raw JSON arguments to ``/search/<tool_name>``; the parsed JSON, or None."""
        url = self._build_url(f"/search/{tool_name}")
        headers = {"Content-Type": "application/json", "X-Tool-Nonce": nonce, "X-Tool-Call-Id": call_id}
        body = arguments_raw.encode() if isinstance(arguments_raw, str) else arguments_raw
        began = time.monotonic()
        path = f"/search/{tool_name}"
        response = self._make_request_with_retries(
            lambda: requests.post(url, data=body, headers=headers, timeout=self.timeout), "POST", path
        )
        ok = response is not None and response.status_code == 200
        result = response.json() if ok and response is not None else None
        self.request_log.record(
            "POST",
            f"/search/{tool_name}",
            status_code=response.status_code if response is not None else None,
            response_body=result,
            duration_ms=(time.monotonic() - began) * 1000,
        )
        return result


__all__ = [
    "DEFAULT_MAX_RETRIES",
    "DEFAULT_RATE_LIMIT_RETRY_DELAY",
    "DEFAULT_RETRY_DELAY",
    "DEFAULT_TIMEOUT",
    "InferenceStats",
    "ProxyClient",
    "RequestLog",
]
