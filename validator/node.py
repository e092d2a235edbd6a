"""Composition: settings -> the store, the chain, the wallet, the pack and catalog, the sandbox, the `Arena` and the
scheduled `Node`. `arena-validator run` and `arena-validator demo` both build their node here, on the same code path;
every missing dependency is one `NodeError` line that says what to do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from validator.settings import Settings


class NodeError(Exception):
    """A dependency of the node is missing or unusable; the message is one line that says what to do."""


def open_store(settings: Settings, *, attempts: int = 1, log: Any = None) -> Any:
    from validator.store.repository import Store, StoreError
    from validator.store.schema import SchemaError

    try:
        return Store.open(settings.db_url, attempts=attempts, log=log)
    except (StoreError, SchemaError) as exc:
        raise NodeError(str(exc)) from None


def open_sandbox(settings: Settings) -> Any:
    """The node's sandbox backend (`sandbox.backends.open_backend`); `NodeError` (one line) when it cannot run."""
    from sandbox.backends import BackendUnavailable, open_backend

    try:
        return open_backend(settings.sandbox_backend, image=settings.sandbox_image, runtime=settings.sandbox_runtime)
    except (BackendUnavailable, ValueError) as exc:
        raise NodeError(str(exc)) from None


def open_pack(settings: Settings) -> tuple[Any, Any]:
    """The catalog and the signed pack made for it: the signature must hold and the signer must be the pinned
    --pack.signer (a public development key only with --pack.allow_dev_signer)."""
    from arena.catalog import Catalog, CatalogError
    from arena.problems.pack import PackError, load_pack

    if settings.catalog is None or settings.pack is None:
        raise NodeError(
            "--catalog and --pack (or ARENA_CATALOG / ARENA_PACK) are required: the catalog folder and "
            "the signed problem pack made for it"
        )
    try:
        catalog = Catalog.open(settings.catalog.expanduser())
    except CatalogError as exc:
        raise NodeError(str(exc)) from None
    signers = {settings.pack_signer} if settings.pack_signer else set()
    try:
        pack = load_pack(
            Path(settings.pack).expanduser(),
            catalog_digest=catalog.digest,
            require_signature=True,
            trusted_signers=signers,
            allow_dev_signer=settings.pack_allow_dev_signer,
        )
    except PackError as exc:
        raise NodeError(str(exc)) from None
    return catalog, pack


def open_dispatch(settings: Settings, *, gateway: Any, sandbox: Any, catalog_digest: str) -> Any:
    """Where runs go (`--dispatch`): this host's sandbox, or the workers of the Ray cluster at --ray.address."""
    from validator.dispatch import open_dispatcher

    try:
        return open_dispatcher(settings, gateway=gateway, sandbox=sandbox, catalog_digest=catalog_digest)
    except RuntimeError as exc:  # RayUnavailable: Ray missing, or its cluster unreachable
        raise NodeError(str(exc)) from None


def gateway_for(settings: Settings, catalog: Any) -> Any:
    """The node's gateway: agents' LLM calls go to --gateway.upstream, limited to --gateway.models, and every agent
    is told the first of those models (``ARENA_LLM_MODEL``), as `arena-miner test --model` tells it locally."""
    from sandbox.gateway import Gateway, Upstream

    upstream = Upstream(
        base_url=settings.gateway_upstream,
        api_key=settings.gateway_api_key,
        models=settings.gateway_models,
        max_tokens=settings.gateway_max_tokens,
        usd_per_1k_prompt=settings.gateway_usd_per_1k_prompt,
        usd_per_1k_completion=settings.gateway_usd_per_1k_completion,
    )
    return Gateway(catalog, upstream=upstream)


def key_ring(settings: Settings, *, store: Any, chain: Any, wallet: Any, pack: Any, log: Any = None) -> Any:
    """Who pays for runs' LLM calls (`validator.races.keys.KeyRing`): None when the node's key pays for every run
    (--gateway.payer validator and no pack rotation that says otherwise). `NodeError` for what cannot work."""
    from arena.spend import load_providers
    from validator.races.keys import KeyRing

    payer = pack.rotation.payer or settings.gateway_payer
    if payer == "validator":
        return None
    if settings.gateway_providers is None:
        raise NodeError(f"the pack's rotation has miners pay ({payer}); give --gateway.providers (where they may pay)")
    providers = load_providers(settings.gateway_providers)
    warn = None if log is None else log.warning
    return KeyRing(
        store=store,
        chain=chain,
        wallet=wallet,
        providers=providers,
        payer=settings.gateway_payer,
        pack=pack,
        log=warn,
        drop_after=settings.gateway_provider_failures,
    )


def gateway_budgets(settings: Settings) -> Any:
    """What one run may spend at the gateway: the defaults, with the operator's LLM token and cost budgets."""
    from sandbox.gateway import Budgets

    return Budgets(tokens=settings.gateway_token_budget, cost=settings.gateway_cost_budget)


def open_wallet(settings: Settings) -> Any:
    from validator.chain.bittensor_chain import load_wallet
    from validator.chain.port import ChainError

    try:
        return load_wallet(settings.wallet_name, settings.wallet_hotkey, settings.wallet_dir)
    except ChainError as exc:
        raise NodeError(exc.message) from None


def arena_config(settings: Settings, retry_backoff: float) -> Any:
    """The race loop's `ArenaConfig` from the settings: concurrency, retries, sandbox limits, weights, judge budget."""
    from sandbox.backends import Limits
    from validator.races import ArenaConfig

    return ArenaConfig(
        data_dir=settings.data_dir,
        concurrency=settings.concurrency,
        max_attempts=settings.max_attempts,
        retry_backoff=retry_backoff,
        limits=Limits(
            wall_seconds=settings.sandbox_wall_seconds, memory_mb=settings.sandbox_memory_mb, pids=settings.sandbox_pids
        ),
        weight_policy=settings.weight_policy,
        burn_uid=settings.burn_uid,
        weight_shadow=settings.weight_shadow,
        beacon_relay=settings.beacon_relay,
        judge_concurrency=settings.judge_concurrency,
        judge_token_budget=settings.judge_token_budget,
        budgets=gateway_budgets(settings),
        pool=settings.pool,
        pool_early=settings.pool_early,
        pool_cutoff_blocks=settings.pool_cutoff_blocks,
        pool_wait_blocks=settings.pool_wait_blocks,
        pool_max_bytes=int(settings.pool_max_mb * 1024 * 1024),
        pool_url=settings.pool_url,
        pool_public_blocks=settings.pool_public_blocks,
        copy_similarity=settings.copy_similarity,
    )


def fault_wait(settings: Settings, pack: Any, block_time: float) -> float:
    """How long a race waits for a validator fault to clear before it is voided: --races.fault_wait, else half the
    pack's cadence (so the next race still opens on time)."""
    if settings.races_fault_wait is not None:
        return float(settings.races_fault_wait)
    return pack.rotation.cadence_blocks * block_time / 2


def open_judge(settings: Settings) -> Any:
    """The LLM judge with `--judge llm`, else None (the race loop's offline judge)."""
    if settings.judge != "llm":
        return None
    from arena.judge.llm import LLMJudge

    assert settings.judge_url is not None
    return LLMJudge(
        settings.judge_url,
        settings.judge_models,
        api_key=settings.judge_api_key.get_secret_value() if settings.judge_api_key else None,
    )


def build_node(
    settings: Settings,
    *,
    log: Any = None,
    store: Any = None,
    block_time: float | None = None,
    retry_backoff: float = 5.0,
) -> Any:
    """The node the settings describe, checked end to end before anything runs: store reachable and current, wallet
    readable, chain reachable with our hotkey on the metagraph holding a validator permit, pack and catalog valid,
    sandbox available (or, with --dispatch ray, the Ray cluster reachable)."""
    from validator.chain import open_chain, our_neuron
    from validator.chain.port import ChainError
    from validator.races import Arena
    from validator.scheduler import Node
    from validator.submissions import sync_submissions

    store = store or open_store(settings, attempts=3, log=log)
    wallet = open_wallet(settings)
    try:
        chain = open_chain(settings)
        our_neuron(chain, wallet.hotkey.ss58_address)
    except ChainError as exc:
        raise NodeError(exc.message) from None
    catalog, pack = open_pack(settings)
    if not pack.sealed and log is not None:
        log.warning(
            "pack.unsealed",
            pack_id=pack.pack_id,
            warning="this pack's race problems are in clear: anyone holding the pack can harvest them before "
            "a race; ask the operator for a sealed pack (arena problems pack --seal.anchor_block)",
        )
    sandbox = open_sandbox(settings) if settings.dispatch == "local" else None  # else the workers' sandboxes
    gateway = gateway_for(settings, catalog)
    dispatcher = open_dispatch(settings, gateway=gateway, sandbox=sandbox, catalog_digest=catalog.digest)
    config = arena_config(settings, retry_backoff)
    if block_time is None:
        block_time = float(getattr(chain, "block_time", 12.0))
    config.fault_wait = fault_wait(settings, pack, block_time)
    judge = open_judge(settings)
    from validator.metrics import Metrics

    arena = Arena(
        store=store,
        chain=chain,
        wallet=wallet,
        pack=pack,
        catalog=catalog,
        sandbox=sandbox,
        config=config,
        gateway=gateway,
        judge=judge,
        metrics=Metrics(store, run_timeout=settings.sandbox_wall_seconds),
        log=log,
        dispatcher=dispatcher,
    )
    keys = key_ring(settings, store=store, chain=chain, wallet=wallet, pack=pack, log=log)
    if keys is not None:
        arena.use_keys(keys)

    def sync() -> Any:
        return sync_submissions(store, chain, wallet=wallet, data_dir=settings.data_dir, log=log)

    host, janitor = upkeep_for(settings, arena, log=log, block_time=block_time)
    return Node(
        arena,
        sync=sync,
        block_time=block_time,
        drain_seconds=settings.stop_drain_seconds,
        log=log,
        host=host,
        janitor=janitor,
        janitor_seconds=settings.janitor_seconds,
    )


def janitor_for(settings: Settings, store: Any, sandbox: Any, *, log: Any = None, arena: Any = None) -> Any:
    """The janitor of the node the settings describe (`validator.upkeep.Janitor`): in the node (`arena` given: its
    work folder and the runs in flight spared too), or beside it (`arena-validator janitor`)."""
    from validator.upkeep import Grounds, Janitor, Retention

    grounds = Grounds(
        store=store,
        data_dir=settings.data_dir,
        retention=Retention.from_settings(settings),
        sandbox=sandbox,
        docker=getattr(sandbox, "client", None) if settings.sandbox_backend == "docker" else None,
        images_in_use={settings.sandbox_image} if settings.sandbox_image else set(),
        in_flight=(lambda: set(arena.in_flight)) if arena is not None else set,
    )
    work = (lambda: arena.dispatching.work) if arena is not None else None
    return Janitor(grounds, log=log, metrics=getattr(arena, "metrics", None), work=work)


def upkeep_for(settings: Settings, arena: Any, *, log: Any = None, block_time: float = 12.0) -> tuple[Any, Any]:
    """The node's host checks (with its floors) and janitor, both reported on /healthz and /metrics."""
    from validator.upkeep import Host

    janitor = janitor_for(settings, arena.store, arena.sandbox, log=log, arena=arena)
    host = Host(
        arena,
        floor_disk_mb=settings.floor_disk_mb,
        floor_memory_mb=settings.floor_memory_mb,
        janitor=janitor,
        janitor_seconds=settings.janitor_seconds,
        docker=janitor.grounds.docker,
        block_time=block_time,
    )
    if arena.metrics is not None:
        arena.metrics.watch_host(host)
    return host, janitor


def serve_api(node: Any, settings: Settings, *, log: Any = None) -> Any:
    """Serve the node's API, dashboard and /metrics at --api.host:--api.port (a started `ThreadedServer`), with, when
    it pools, ``GET /results/<sha256>``: its results bundles, to signed requests, and ``GET /agents/<sha256>``: the
    agents it holds, to validators (`validator.pool.serve`). Without --pool.url, the hotkey's axon is published at
    that address (a chain port that can: LocalChain) so the other validators find the bundles. `NodeError` when the
    port is taken."""
    from sandbox.serving import ThreadedServer
    from validator.api import create_app

    arena = node.arena
    app = create_app(arena.store, health=node.health, metrics=arena.metrics)
    if arena.config.pool:
        from validator.pool.serve import ChainView, agents_router, results_router

        view = ChainView(arena.chain)
        app.include_router(results_router(arena.pooling.shelf, hotkey_ss58=arena.hotkey, view=view))
        app.include_router(agents_router(arena.config.data_dir, hotkey_ss58=arena.hotkey, view=view))
    try:
        server = ThreadedServer(app, host=settings.api_host, port=settings.api_port).start()
    except OSError as exc:
        raise NodeError(
            f"cannot serve the API on {settings.api_host}:{settings.api_port}: {exc}; pick another --api.port"
        ) from None
    if arena.config.pool and settings.pool_url is None and hasattr(arena.chain, "serve_axon"):
        from validator.chain.port import ChainError

        host = "127.0.0.1" if settings.api_host in {"0.0.0.0", "::"} else settings.api_host
        try:
            arena.chain.serve_axon(arena.wallet, host, server.port)
        except ChainError as exc:
            server.stop()
            raise NodeError(f"cannot publish this node's axon (where its results bundles are): {exc.message}") from None
    if log is not None:
        log.info("api.serving", url=server.url, dashboard=server.url + "/", metrics=server.url + "/metrics")
    return server
