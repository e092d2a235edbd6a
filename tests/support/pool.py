"""Validators that pool on one LocalChain, for the pooling tests: each a started `Arena` with `--pool` on, its own
SQLite store, its API serving its results bundles (its axon published on the chain), and its own upstream LLM: a
scripted model (the demo's ReAct script) whose searches differ per validator, so an LLM agent's runs, and its
scores, differ from one validator to the next as a real model's do.

The chain every node reads runs on a clock the test may move forward (`SkewClock`): a cut-off is reached when the test
says so, never by waiting on the wall clock."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from arena.catalog import Catalog
from arena.problems.pack import Rotation, load_pack
from demo.agents import HOSTILE_AGENT, MINER_TEMPLATE, SN15_AGENT, variant, write_template
from demo.llm import MODEL, react_reply
from demo.scripted_llm import OpenAIServer
from sandbox.backends import Limits
from sandbox.backends.process import ProcessSandbox
from tests.support.race import open_store, place_submission
from validator.chain.local import LocalChain

#: the six miners: four rule-based agents (deterministic) and two subnet-15 agents on the validator's LLM
AGENTS: dict[str, Callable[[], str]] = {
    "offline": lambda: MINER_TEMPLATE.read_text(),
    "lite": lambda: variant(MINER_TEMPLATE.read_text(), MAX_CALLS=4),
    "deep": lambda: variant(MINER_TEMPLATE.read_text(), MAX_CALLS=60, VIEW_BATCH=30),
    "hostile": lambda: HOSTILE_AGENT,
    "sn15": lambda: SN15_AGENT.read_text(),
    "sn15-b": lambda: SN15_AGENT.read_text() + "\n# a second miner running the same ReAct loop\n",
}
TEMPLATE_AGENTS = ("offline", "lite", "deep")
LLM_AGENTS = ("sn15", "sn15-b")


class SkewClock:
    """Wall time plus an offset the test moves forward (`advance`)."""

    def __init__(self) -> None:
        self.offset = 0.0

    def __call__(self) -> float:
        return time.time() + self.offset

    def advance(self, seconds: float) -> None:
        self.offset += seconds


def varying_model(index: int) -> Callable[[dict[str, Any]], str]:
    """The demo's ReAct model, except that validator `index`'s model searches with fewer words of the request (all
    of them for validator 0): the same agent finds other products, and answers otherwise, on each validator."""

    def reply(body: dict[str, Any]) -> str:
        text = react_reply(body)
        if not index:
            return text

        def shorten(match: re.Match[str]) -> str:
            calls = json.loads(match.group(1))
            for call in calls:
                if call.get("name") == "find_product":
                    words = str(call["parameters"]["q"]).split()
                    call["parameters"]["q"] = " ".join(words[index:] or words[-1:])
            return "<tool_call>" + json.dumps(calls) + "</tool_call>"

        return re.sub(r"<tool_call>(.*?)</tool_call>", shorten, text, flags=re.S)

    return reply


def write_agent(folder: Path, name: str) -> Path:
    if name in TEMPLATE_AGENTS:
        return write_template(folder, AGENTS[name]())
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "agent.py").write_text(AGENTS[name]())
    return folder


@dataclass
class PoolNode:
    """One validator: its arena (started), store, API server, LLM server and wallet."""

    name: str
    wallet: Any
    arena: Any
    store: Any
    server: Any
    llm: Any
    stops: list[Any] = field(default_factory=list)

    @property
    def hotkey(self) -> str:
        return str(self.wallet.hotkey.ss58_address)

    def stop(self) -> None:
        self.server.stop()
        self.arena.stop()
        self.llm.__exit__(None, None, None)
        self.store.close()


def start_pool_node(
    root: Path,
    index: int,
    wallet: Any,
    chain: LocalChain,
    inputs: tuple[Path, Path, str],
    rotation: Rotation,
    miners: dict[str, Any],
    *,
    history: dict[str, list[tuple[Path, int]]] | None = None,
    **config: Any,
) -> PoolNode:
    """Validator `index`: a fresh store holding the six miners' submissions (the same commitment blocks on every
    validator, as a sync from the chain leaves them), an arena pooling on `chain`, its API serving its bundles.
    ``history`` (miner -> its submissions' (agent folder, commitment block), the latest raced) replaces them."""
    from arena.log import get_logger
    from sandbox.gateway import Gateway, Upstream
    from validator.metrics import Metrics
    from validator.node import serve_api
    from validator.races import Arena, ArenaConfig
    from validator.scheduler import Node
    from validator.settings import load_settings

    name = f"v{index}"
    data_dir = root / name
    store = open_store(f"sqlite:///{root / f'{name}.sqlite'}")
    store.upsert_miners(chain.metagraph().neurons)
    for i, (miner, miner_wallet) in enumerate(sorted(miners.items())):
        hotkey = miner_wallet.hotkey.ss58_address
        if history is not None:
            for folder, block in history.get(miner, []):
                place_submission(store, data_dir, hotkey, folder, block=block)
            continue
        agent = write_agent(root / "agents" / miner, miner)
        place_submission(store, data_dir, hotkey, agent, block=1 + i)
    catalog_dir, pack_path, signer = inputs
    catalog = Catalog.open(catalog_dir)
    pack = load_pack(pack_path, catalog_digest=catalog.digest, trusted_signers={signer})
    pack = pack.model_copy(update={"rotation": rotation})
    llm = OpenAIServer(varying_model(index), models=(MODEL,)).__enter__()
    gateway = Gateway(catalog, upstream=Upstream(base_url=llm.base_url.rstrip("/"), models=[MODEL]))
    # the fork rule off: the pool races the template's variants as distinct miners (test_races races it on)
    settings = {
        "concurrency": 2,
        "max_attempts": 2,
        "retry_backoff": 0.2,
        "limits": Limits(wall_seconds=60),
        "fork_rule": False,
    }
    arena = Arena(
        store=store,
        chain=chain,
        wallet=wallet,
        pack=pack,
        catalog=catalog,
        sandbox=ProcessSandbox("bwrap"),
        gateway=gateway,
        config=ArenaConfig(data_dir=data_dir, **{**settings, **config}),
        log=get_logger(f"test.{name}"),
        metrics=Metrics(store, run_timeout=60),
    )
    arena.start()
    api = load_settings({"api_host": "127.0.0.1", "api_port": 0}, env_file=None)
    server = serve_api(Node(arena, block_time=chain.block_time), api)
    return PoolNode(name, wallet, arena, store, server, llm)
