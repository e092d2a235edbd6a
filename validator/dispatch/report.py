"""`arena-validator config check`'s lines for `--dispatch ray`: the cluster, then each worker, asked of itself."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from validator.dispatch.pool import first_line
from validator.dispatch.ray import RayDispatcher, RayUnavailable
from validator.dispatch.worker import Refused, WorkerReply, _here, _host


def cluster_report(settings: Any) -> list[tuple[str, bool, str]]:
    """`arena-validator config check`'s lines for --dispatch ray: the cluster (reachable, its workers and how many
    runs it takes at once), then one line per worker (its catalog against the node's, its sandbox)."""
    from arena.catalog import Catalog, CatalogError

    if settings.catalog is None:
        return [("cluster", False, "--catalog is needed to check the workers' catalogs against the node's")]
    try:
        digest = Catalog.open(Path(settings.catalog).expanduser()).digest
        dispatcher = RayDispatcher.connect(
            settings.ray_address,
            catalog_digest=digest,
            backend=settings.sandbox_backend,
            image=settings.sandbox_image,
            cpus_per_run=settings.ray_cpus_per_run,
            memory_mb=settings.sandbox_memory_mb,
        )
    except (CatalogError, RayUnavailable) as exc:
        return [("cluster", False, str(exc))]
    workers = survey(dispatcher)
    good = [w for w in workers if w["refused"] is None]
    count = f"{len(workers)} worker{'s' * (len(workers) != 1)}"
    lines = [
        (
            "cluster",
            bool(good),
            f"ray {settings.ray_address}: {count}, {len(good)} taking runs, "
            f"{sum(w['slots'] for w in good)} runs at once ({settings.ray_cpus_per_run:g} "
            f"CPU, {settings.sandbox_memory_mb} MiB per run)"
            + ("" if workers else "; start workers with ray start --address ... --labels shoparena=worker"),
        )
    ]
    for w in workers:
        if w["refused"] is not None:
            lines.append(("worker", False, w["refused"]))
        else:
            lines.append(
                (
                    "worker",
                    True,
                    f"{w['node_id'][:12]} on {w['host']}: catalog {w['catalog']} "
                    f"({str(w['digest'])[:19]}), sandbox {w['sandbox']}, {w['cpus']:g} CPU, "
                    f"{w['memory_mb']} MiB, {w['slots']} runs at once, nice {w.get('nice', '?')}"
                    + (" (start it with RAY_worker_niceness=0: its runs yield the CPU)" if w.get("nice") else ""),
                )
            )
    return lines


def survey(dispatcher: RayDispatcher, timeout: float = 60.0) -> list[dict[str, Any]]:
    """Each live worker's catalog and sandbox, asked of the worker itself (a task pinned to its node)."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    task = dispatcher.ray.remote(worker_facts)
    workers = dispatcher.workers()
    refs = [
        task.options(
            num_cpus=0, max_retries=0, scheduling_strategy=NodeAffinitySchedulingStrategy(w["node_id"], soft=False)
        ).remote(dispatcher.catalog_digest, dispatcher.backend, dispatcher.image)
        for w in workers
    ]
    for worker, ref in zip(workers, refs, strict=True):
        try:
            reply: WorkerReply = dispatcher.ray.get(ref, timeout=timeout)
            worker.update(reply.facts, refused=reply.refused)
        except Exception as exc:  # noqa: BLE001 - a worker that does not answer is reported, not raised
            worker.update(
                refused=f"worker {worker['node_id'][:12]} on {worker['host']} did not answer: "
                f"{type(exc).__name__}: {first_line(exc)}"
            )
    return workers


def worker_facts(catalog_digest: str, backend: str, image: str | None) -> WorkerReply:
    """This worker's catalog and sandbox, as `arena-validator config check` reports them."""
    node_id, host = _here()
    state = _host()
    facts: dict[str, Any] = {
        "catalog": os.environ.get("ARENA_CATALOG"),
        "digest": None,
        "sandbox": None,
        "nice": os.getpriority(os.PRIO_PROCESS, 0),  # Ray's default 15 starves runs on a busy host
    }
    refused = None
    try:
        facts["digest"] = state.open_catalog(catalog_digest, node_id, host).digest
    except Refused as exc:
        refused = str(exc)
        facts["digest"] = getattr(state.catalog, "digest", None)
    try:
        facts["sandbox"] = state.open_sandbox(backend, image, node_id, host).name
    except Refused as exc:
        refused = refused or str(exc)
    return WorkerReply(node_id, host, refused=refused, facts=facts)
