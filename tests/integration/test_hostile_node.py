"""Hostile agents on a running node (bubblewrap, the gateway, the store, LocalChain): what an agent returns or puts in
its calls (nesting past the limit, lone surrogates, integers past 64 bits) is recorded as its own outcome, final on
its first attempt, never a fault of the node's (docs/validator.md, "Error codes")."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena import blame
from tests.integration.test_blame import make_arena, plain_agent
from tests.support.node import open_store
from tests.support.race import build_arena_inputs, make_chain, place_submission, race_until_final

pytestmark = pytest.mark.slow  # the bubblewrap sandbox, the gateway and the store

NESTED = """
def agent_main(problem):
    value = 1
    for _ in range(900):
        value = [value]
    return {"x": value}
"""

SURROGATES = """
from arena_agent import call_tool


def agent_main(problem):
    try:
        call_tool("find_product", q="lamp\\ud800")
    except RuntimeError:
        pass
    raise ValueError("no answer \\ud800")
"""

BIG_INT_CALL = """
from arena_agent import call_tool


def agent_main(problem):
    deep = 1
    for _ in range(300):
        deep = [deep]
    for arguments in ({"limit": 10**30}, {"filters": deep}):
        try:
            call_tool("find_product", q="lamp", **arguments)
        except RuntimeError:
            pass
    return None
"""

NAN_CALL = """
from arena_agent import call_tool


def agent_main(problem):
    try:
        call_tool("find_product", q="lamp", limit=float("nan"))
    except Exception:
        pass
    return None
"""

BIG_INT_RETURN = """
def agent_main(problem):
    return {"n": 10**30, "f": float("nan")}
"""

#: each agent, and the code of its own its runs end with (none the node's)
AGENTS = {
    "nested": (NESTED, blame.BAD_RETURN),  # its return past the depth limit: the node's walk met RecursionError
    "surrogates": (SURROGATES, blame.RAISED),  # a lone surrogate in its exception's message: the run hung unrecorded
    "int_call": (BIG_INT_CALL, blame.NO_ANSWER),  # an integer past 64 bits in a call: the run hung unrecorded
    "nan_call": (NAN_CALL, blame.NO_ANSWER),
    "int_return": (BIG_INT_RETURN, blame.NO_ANSWER),
}


@pytest.fixture(scope="module")
def inputs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, str]:
    return build_arena_inputs(tmp_path_factory.mktemp("arena"), problems=16, per_race=3)


@pytest.mark.parametrize("name", list(AGENTS))
def test_a_hostile_agents_runs_end_in_its_own_code_final_at_once(inputs: Any, tmp_path: Path, name: str) -> None:
    source, code = AGENTS[name]
    setup = make_chain(tmp_path, [name])
    store = open_store(f"sqlite:///{tmp_path / 'node.sqlite'}")
    data_dir = tmp_path / "node"
    store.upsert_miners(setup.chain.metagraph().neurons)
    hotkey = setup.miners[name].hotkey.ss58_address
    place_submission(store, data_dir, hotkey, plain_agent(tmp_path / "a" / name, source), block=10)
    runs = race_until_final(make_arena(store, setup.chain, setup.validators[0], inputs, data_dir), store)
    assert runs
    for run in runs:
        assert (run.status, run.error_code, run.blame, run.attempt) == ("errored", code, "agent", 1), run.error
    if name == "surrogates":
        assert all("no answer \ufffd" in (run.error or "") for run in runs)  # kept, as text every store holds
    store.close()
