"""`arena-miner test --llm-base-url URL --model M --api-key-env VAR`: the miner's own key through the same gateway
path a validator uses when miners pay (a real OpenAI-compatible server that requires that key and reports usage),
the cost on the scorecard, the key in none of the command's output or files; a key the provider refuses is the
agent's 1009, as a validator would score it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from arena import blame
from arena.spend import Price
from tests.support.openai_server import OpenAIServer
from tests.support.race import build_arena_inputs
from tests.support.shopper import scripted_shopper
from tests.unit.test_bad_input import run

pytestmark = pytest.mark.slow  # arena-miner test as a subprocess: bubblewrap, the gateway, an OpenAI-compatible server

LLM_TEMPLATE = Path(__file__).resolve().parents[2] / "miner_template" / "llm" / "agent.py"
MODEL = "miner-own-model"
KEY = "sk-miner-test-key-abcdefghijklmnop"
PRICE = Price(prompt=0.5, completion=1.5)


def test_a_miner_tests_with_its_own_key_and_sees_the_cost(tmp_path: Path) -> None:
    catalog_dir, pack_path, _ = build_arena_inputs(tmp_path / "arena", problems=12, per_race=3)
    agent = tmp_path / "agent"
    agent.mkdir()
    shutil.copyfile(LLM_TEMPLATE, agent / "agent.py")
    chosen: dict[str, str] = {}
    with OpenAIServer(scripted_shopper(chosen), models=(MODEL,), keys=(KEY,)) as server:
        args = ["test", str(agent), "--problems", str(pack_path), "--catalog", str(catalog_dir), "--n", "2"]
        args += ["--llm-base-url", server.base_url, "--model", MODEL, "--api-key-env", "MY_LLM_KEY"]
        args += ["--llm-price", "0.5,1.5", "--out", str(tmp_path / "out"), "--json", str(tmp_path / "card.json")]
        env = {"MY_LLM_KEY": KEY, "OPENAI_API_KEY": "sk-not-the-miners"}
        paid = run("arena-miner", *args, cwd=tmp_path, env=env)
        assert paid.returncode == 0, paid.stderr
        assert server.auth_headers and set(server.auth_headers) == {f"Bearer {KEY}"}
        refused = run(
            "arena-miner",
            *args[:-4],
            "--out",
            str(tmp_path / "out2"),
            cwd=tmp_path,
            env={"MY_LLM_KEY": "sk-miner-wrong-key-000000000000"},
        )
    card = json.loads((tmp_path / "card.json").read_text())
    rows = card["problems"]
    assert len(rows) == 2 and all(r["payer"] == "miner" and r["llm_calls"] > 0 for r in rows)
    for r in rows:
        assert r["cost"] == pytest.approx(PRICE.cost(r["prompt_tokens"], r["completion_tokens"])) and r["cost"] > 0
    total = sum(r["cost"] for r in rows)
    assert f"${total:.6f} (paid by miner)" in paid.stdout and "LLM cost:" in paid.stdout
    # the key is in none of what the command printed or wrote
    written = b"".join(p.read_bytes() for p in (tmp_path / "out").rglob("*") if p.is_file())
    assert written and KEY.encode() not in written and KEY not in paid.stdout + paid.stderr
    # a key the provider refuses: the agent's fault, 0, as a validator scores it
    card2 = json.loads((tmp_path / "out2" / "scorecard.json").read_text())
    assert {r["error_code"] for r in card2["problems"]} == {blame.MINER_KEY_REFUSED}
    assert all(r["final"] == 0 and r["blame"] == "agent" for r in card2["problems"])
    assert "sk-miner-wrong" not in refused.stdout + refused.stderr
