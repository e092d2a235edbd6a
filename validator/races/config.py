"""The race machinery's settings (`validator.node` fills them from the node's settings)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from arena.copies import COPY_THRESHOLD
from sandbox.backends import Limits
from sandbox.gateway import Budgets


@dataclass
class ArenaConfig:
    data_dir: Path
    concurrency: int = 2
    max_attempts: int = 3
    retry_backoff: float = 5.0  # seconds before the first retry; doubles each attempt
    #: a race some run of which a validator fault kept past its retry budget waits this long (from then) for the
    #: fault to clear, such runs tried again `fault_retry` seconds after each failure; then it is voided (`Closing`)
    fault_wait: float = 600.0
    fault_retry: float = 30.0
    limits: Limits = field(default_factory=Limits)
    budgets: Budgets = field(default_factory=Budgets)
    weight_policy: str = "top_heavy"
    burn_uid: int = 0
    weight_shadow: str | None = None  # a second policy stored beside the live one, never sent
    beacon_relay: str | None = None  # a drand HTTP relay for sealed batches' rounds (after the chain's own pulses)
    beacon_retry: float = 3.0  # seconds before a batch that did not open is tried again; doubles, capped at 60 s
    sync_grace: float = 300.0  # seconds a sealed slot waits for commitments made before it to be synced
    judge_concurrency: int = 2
    judge_token_budget: int = 0  # LLM judge tokens per race; 0: no limit
    judge_retry: float = 30.0  # seconds before a run whose judge failed is judged again; doubles, capped at 1 h
    weights_retry: float = 12.0  # seconds before a weight set the chain refused is sent again; doubles
    weights_retry_max: float = 600.0  # the backoff's cap: an unreachable chain is tried at least this often, forever
    stuck_grace: float = 60.0  # a run past its wall clock by this much is stuck (health)
    race_stall: float = 900.0  # a running race with no run moving for this long cannot close (health)
    weights_grace: float = 1800.0  # a closed race without its weights set for this long (health)
    pool: bool = False  # publish results bundles and weigh the pooled runs (`validator.races.pooling`)
    pool_early: bool = False  # pool once every permit holder committed, before the cut-off
    pool_cutoff_blocks: int | None = None  # after the race's start block; None: 3/4 of the cadence
    pool_wait_blocks: int | None = None  # after the cut-off, retrying unfetched bundles; None: 1/8 of the cadence
    pool_max_bytes: int = 128 * 1024 * 1024  # the largest bundle fetched from another validator
    pool_url: str | None = None  # the base URL others fetch this node's bundles from (None: its axon)
    copy_similarity: float = COPY_THRESHOLD  # code similarity at which the fork rule judges two agents alike
    #: the fork rule before the weights (`validator.races.copying`): on in every node; off only for tests that race
    #: the template's variants as distinct miners to exercise another rule
    fork_rule: bool = True
    pool_public_blocks: int = 360  # after the weights are due, a bundle is served to anyone (auditors)
