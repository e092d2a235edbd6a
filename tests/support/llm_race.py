"""One race on a running node for the LLM-call blame rules (docs/scoring.md, the sections on LLM calls): the bubblewrap
sandbox, the gateway, PostgreSQL, LocalChain, the node's scheduled jobs, with OpenAI-compatible servers on loopback as
the node's upstream and as the miners' own provider (`tests/support/openai_server.py`, a responder per test).

The race draws two problems; every agent knows the answer to the first (`Problems.known`) and not the second's
(`Problems.unknown`). On the unknown one an agent does what its kind says (`agent`):

- ``ask``: honest: it asks its model (each request naming the miner, ``asks`` of them, with ``max_tokens`` when
  ``limit`` is given) and solves the problem with the product id the model names; on an LLM error it answers its best
  guess, a wrong one. A model that names the gold id makes it score as on its known problem.
- anything else: an attacker: one request whose content is the miner's name and its kind (its upstream's responder
  decides what that request meets), the gateway's answer waited on, and no answer.

The node's key pays for the miners not in ``keys``; each miner in ``keys`` pays with its own key at the provider."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import SecretStr

from arena.catalog import Catalog
from arena.problems.pack import load_pack
from arena.spend import Price, Provider
from arena.tasks import ProblemBase
from arena.trajectory import TrajectoryEvent
from demo.agents import MINER_TEMPLATE, write_template
from miner_template.serve import BundleServer, ValidatorPermits, create_app
from sandbox.backends import Limits
from sandbox.bundle import pack_dir
from sandbox.gateway import Gateway, Upstream
from tests.support.llm_agents import MODEL
from tests.support.node import RunningNode, make_arena, open_store, wait_until
from tests.support.openai_server import OpenAIServer, Responder
from tests.support.postgres import fresh_database
from tests.support.race import build_arena_inputs, make_chain, place_submission
from validator.chain.sealedkey import MinerKeyConfig
from validator.races.keys import KeyRing
from validator.scheduler import Node
from validator.store.repository import Store

__all__ = ["MODEL", "NODE_KEY", "Problems", "Raced", "agent", "llm_race", "problems", "serve_key"]

NODE_KEY = "node-upstream-key-0123456789"  # the node's own key at its upstream

HOOK = """

import json as _json
import os as _os
import urllib.request as _request

KNOWN = {known!r}
MINER = {miner!r}
KIND = {kind!r}
ASKS = {asks!r}
LIMIT = {limit!r}


def _ask(content):
    body = {{"model": {model!r}, "messages": [{{"role": "user", "content": content}}]}}
    if LIMIT is not None:
        body["max_tokens"] = LIMIT
    req = _request.Request(
        _os.environ["OPENAI_BASE_URL"] + "/chat/completions",
        data=_json.dumps(body).encode(),
        headers={{"Content-Type": "application/json"}},
    )
    return _json.loads(_request.urlopen(req, timeout=600).read())["choices"][0]["message"]["content"]


def _solve_with(problem, ids):
    import arena_agent

    arena_agent.call_tool("view_product_information", product_ids=ids)

    def call(name, **arguments):
        if name == "recommend_product":
            arguments = {{**arguments, "product_ids": ids}}
        return arena_agent.call_tool(name, **arguments)

    return solve(problem, call)


def agent_main(problem):
    import arena_agent

    known = KNOWN.get(str(problem.get("query")))
    if known:  # sure: the template's run, its answer the right one
        return _solve_with(problem, known)
    if KIND == "ask":  # honest: its model names the product; on an LLM error, its best guess (a wrong one)
        try:
            for step in range(ASKS):
                said = _ask(MINER + " asks, step " + str(step) + ": " + problem["query"])
        except Exception:
            arena_agent.call_tool("recommend_product", product_ids="no-such-product")
            return None
        return _solve_with(problem, said.strip())
    try:  # an attacker: its one request, the gateway's answer waited on, and no answer
        _ask(MINER + ": " + KIND)
    except Exception:
        pass
    return None
"""


def serve_key(setup: Any, name: str, key: str) -> BundleServer:
    """The miner's `arena-miner serve` app with its own key, its axon published on chain."""
    wallet = setup.miners[name]
    bundle = pack_dir(write_template(setup.path.parent / "served" / name, MINER_TEMPLATE.read_text()))
    permits = ValidatorPermits(setup.chain, refresh_seconds=60, min_refresh_seconds=0.0)
    llm_key = MinerKeyConfig("local", SecretStr(key), MODEL)
    server = BundleServer(create_app(bundle, hotkey_ss58=wallet.hotkey.ss58_address, permits=permits, llm_key=llm_key))
    server.start()
    setup.chain.serve_axon(wallet, "127.0.0.1", server.port)
    return server


@dataclass(frozen=True)
class Problems:
    """The race's inputs (catalog, signed pack, signer) and its two problems."""

    inputs: tuple[Path, Path, str]
    known: ProblemBase
    unknown: ProblemBase

    @property
    def gold(self) -> str:
        """The unknown problem's answer, as a model that knows it names it."""
        return ",".join(self.unknown.gold_ids)


def problems(root: Path) -> Problems:
    """A catalog and a pack whose races draw the same two problems."""
    inputs = build_arena_inputs(root, problems=8, per_race=2, splits={"public": 0.25, "race": 0.25, "held_out": 0.5})
    pack = load_pack(inputs[1], trusted_signers={inputs[2]})
    raced = sorted((p for p in pack.problems if p.split == "race"), key=lambda p: p.problem_id)
    assert len(raced) == 2, [p.problem_id for p in raced]
    return Problems(inputs, raced[0], raced[1])


def agent(folder: Path, drawn: Problems, miner: str, kind: str, *, asks: int = 1, limit: int | None = None) -> Path:
    """The offline template with `HOOK` as its agent_main, written to ``folder``."""
    head, sep, _ = MINER_TEMPLATE.read_text().partition("\ndef agent_main(")
    assert sep, "the offline template has no agent_main"
    known = {drawn.known.query: ",".join(drawn.known.gold_ids)}
    hook = HOOK.format(known=known, miner=miner, kind=kind, asks=asks, limit=limit, model=MODEL)
    return write_template(folder, head.rstrip() + "\n" + hook)


@dataclass
class Raced:
    """A race run to its weights, its store still open: what a miner and an operator see of it, by miner name."""

    store: Store
    race: str
    hotkeys: dict[str, str]
    unknown: str
    weights: dict[str, float]
    log: list[str]

    def results(self) -> dict[str, Any]:
        """Each miner's race result (its score, its runs counted), by name."""
        by_hotkey = {r.hotkey: r for r in self.store.race_results(self.race)}
        return {name: by_hotkey[hotkey] for name, hotkey in self.hotkeys.items() if hotkey in by_hotkey}

    def run(self, name: str) -> Any:
        """The miner's run on the unknown problem."""
        (found,) = [
            r
            for r in self.store.runs(race_id=self.race)
            if r.hotkey == self.hotkeys[name] and r.problem_id == self.unknown
        ]
        return found

    def calls(self, name: str) -> list[TrajectoryEvent]:
        """The LLM calls of the miner's run on the unknown problem (its last attempt's)."""
        return [e for e in self.store.events(self.run(name).run_id) if e.kind == "llm_call"]

    def blames(self, name: str) -> list[str | None]:
        """Whose fault each attempt of the miner's run on the unknown problem was, the last one included (None: it
        was scored)."""
        run = self.run(name)
        attempts = [a["blame"] for a in run.sandbox.get("attempts", [])]
        return attempts if run.status == "errored" else [*attempts, None]


@contextmanager
def llm_race(
    tmp_path: Path,
    drawn: Problems,
    agents: dict[str, Path],
    *,
    keys: dict[str, str],
    node_llm: Responder,
    provider: Responder | None = None,
    upstream: dict[str, Any] | None = None,
    wall: float = 40.0,
    drop_after: int = 8,
    payer: str = "either",
    **config: Any,
) -> Iterator[Raced]:
    """Race ``agents`` (by miner name) on a running node until the race's weights are set. Its upstream LLM and the
    miners' provider are two scripted OpenAI-compatible servers, their responders ``node_llm`` (answering the node's
    key) and ``provider`` (the miners' keys; ``node_llm`` again by default). ``keys``: the miners that pay with their
    own key at the provider; ``upstream``: the gateway's `Upstream` settings beyond its URL, key and model;
    ``drop_after``: the failures of a miner's provider its runs there are dropped at; ``payer``: the node's payer
    policy; ``config``: `ArenaConfig` beyond the defaults here (two attempts, the race's fault wait spent at once)."""
    names = list(agents)
    setup = make_chain(tmp_path, names, rate_limit=0)
    hotkeys = {n: setup.miners[n].hotkey.ss58_address for n in names}
    servers: list[BundleServer] = []
    with (
        OpenAIServer(node_llm, models=(MODEL,), keys=(NODE_KEY,)) as node_server,
        OpenAIServer(provider or node_llm, models=(MODEL,), keys=tuple(keys.values())) as provider_server,
        fresh_database("llmrace") as url,
    ):
        store = open_store(url)
        data_dir = tmp_path / "node"
        store.upsert_miners(setup.chain.metagraph().neurons)
        for i, name in enumerate(names):
            place_submission(store, data_dir, hotkeys[name], agents[name], 10 + i)
        try:
            servers += [serve_key(setup, name, key) for name, key in keys.items()]
            gateway_upstream = Upstream(
                base_url=node_server.base_url, api_key=SecretStr(NODE_KEY), models=[MODEL], **(upstream or {})
            )
            settings: dict[str, Any] = {
                "concurrency": 4,
                "max_attempts": 2,
                "fault_retry": 0.5,
                "fault_wait": 1.0,
                **config,
            }
            arena = make_arena(
                store,
                setup.chain,
                setup.validators[0],
                drawn.inputs,
                data_dir,
                gateway=Gateway(Catalog.open(drawn.inputs[0]), upstream=gateway_upstream),
                limits=Limits(wall_seconds=wall),
                **settings,
            )
            providers = {"local": Provider(base_url=provider_server.base_url, models={MODEL: Price(prompt=0.5)})}
            ring = KeyRing(
                store=store,
                chain=setup.chain,
                wallet=setup.validators[0],
                providers=providers,
                payer=payer,
                drop_after=drop_after,
                timeout=5,
            )
            arena.use_keys(ring)
            node = Node(
                arena, block_time=0.5, dispatch_seconds=0.3, close_seconds=0.3, weights_seconds=0.3, log=arena.log
            )
            with RunningNode(node):
                wait_until(lambda: bool(store.races()), "the node to open a race")
                race = store.races()[0].race_id
                wait_until(lambda: store.race(race).status != "running", "the race to end")  # type: ignore[union-attr]
                wait_until(lambda: any(ws.race_id == race for ws in store.weight_sets()), "the race's weights")
        finally:
            for server in servers:
                server.stop()
        found = store.race(race)
        assert found is not None and found.status == "closed", (found and found.status, found and found.reason)
        (weight_set,) = [ws for ws in store.weight_sets() if ws.race_id == race]
        uids = {n.hotkey: n.uid for n in setup.chain.metagraph().neurons}
        weights = {n: float(weight_set.vector.get(str(uids[hotkeys[n]]), 0)) for n in names}
        log = [event for _, event, _ in arena.log.records]
        try:
            yield Raced(store, race, hotkeys, drawn.unknown.problem_id, weights, log)
        finally:
            store.close()
