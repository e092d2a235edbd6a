"""What a run's LLM calls cost and who pays (`arena.spend`), and the payer settings' bad input, each one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from arena.spend import Price, call_tokens, cost_per_solved, load_providers, run_spend
from validator.settings import SettingsError, load_settings

PROVIDERS = {"local": {"base_url": "http://127.0.0.1:8000/v1", "models": {"m": {"prompt": 0.5, "completion": 1.5}}}}


def test_providers_from_a_file_or_text(tmp_path: Path) -> None:
    path = tmp_path / "providers.json"
    path.write_text(json.dumps(PROVIDERS))
    for source in (str(path), json.dumps(PROVIDERS)):
        local = load_providers(source)["local"]
        assert local.base_url.endswith("/v1") and local.price("m") == Price(prompt=0.5, completion=1.5)
        assert local.price("not-listed") == Price()


@pytest.mark.parametrize(
    ("source", "line"),
    [
        ("/nowhere/providers.json", "cannot read the providers file /nowhere/providers.json"),
        ("{not json", "providers are not JSON"),
        ("{}", "providers must be a JSON object"),
        ('{"local": {"base_url": "http://x", "models": {}}}', "provider 'local': models:"),
        ('{"local": {"base_url": "http://x", "models": {"m": {"prompt": -1}}}}', "provider 'local': models.m.prompt:"),
    ],
)
def test_bad_providers_are_one_line(source: str, line: str) -> None:
    with pytest.raises(ValueError, match=line.replace(".", r"\.").replace("(", r"\(")) as caught:
        load_providers(source)
    assert "\n" not in str(caught.value)


def test_tokens_are_the_providers_usage_or_counted() -> None:
    request = {"messages": [{"role": "user", "content": "x" * 40}]}
    reported = call_tokens(request, {"usage": {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 99}})
    assert reported == {"prompt_tokens": 7, "completion_tokens": 3, "total_tokens": 10}
    counted = call_tokens(request, {"choices": [{"message": {"content": "y" * 20}}]})
    assert counted["counted"] == 1 and counted["prompt_tokens"] > 10 and counted["completion_tokens"] == 5


def test_a_runs_spend_adds_its_calls_per_model() -> None:
    events = [
        {"kind": "llm_call", "name": "a", "tokens": {"prompt_tokens": 10, "completion_tokens": 2}, "cost": 0.25},
        {
            "kind": "llm_call",
            "name": "b",
            "tokens": {"prompt_tokens": 5, "completion_tokens": 1, "counted": 1},
            "cost": 0.5,
        },
        {"kind": "llm_call", "name": "models", "tokens": {}},  # GET /v1/models: no call upstream
        {"kind": "tool_call", "name": "find_product", "tokens": {}},
    ]
    spend = run_spend(events, payer="miner", provider="local")
    assert (spend.calls, spend.prompt_tokens, spend.completion_tokens, spend.counted_calls) == (2, 15, 3, 1)
    assert spend.cost == pytest.approx(0.75) and set(spend.models) == {"a", "b"}
    assert spend.line().endswith("paid by the miner (local), 1 counted by the gateway")
    assert cost_per_solved(0.75, 3) == pytest.approx(0.25) and cost_per_solved(1.0, 0) is None


@pytest.mark.parametrize(
    ("given", "line"),
    [
        ({"gateway_payer": "miner"}, "--gateway.payer miner needs --gateway.providers"),
        ({"gateway_payer": "somebody"}, "--gateway.payer (or ARENA_GATEWAY_PAYER)"),
        ({"gateway_providers": "{oops"}, "providers are not JSON"),
    ],
)
def test_payer_settings_that_cannot_work_are_one_line(given: dict[str, str], line: str) -> None:
    with pytest.raises(SettingsError) as caught:
        load_settings(given, env_file=None)
    assert any(line in problem for problem in caught.value.problems), caught.value.problems


def test_the_cost_aware_policy_breaks_equal_scores_by_cost_per_solved_problem() -> None:
    from arena.weights import MinerResult, compute_weights, parse_policy

    uids = {"early": 1, "cheap": 2, "unknown": 3, "better": 4}
    results = [
        MinerResult(hotkey="early", score=0.5, commitment_block=10, cost_per_solved=0.02),
        MinerResult(hotkey="cheap", score=0.5, commitment_block=20, cost_per_solved=0.005),
        MinerResult(hotkey="unknown", score=0.5, commitment_block=5),
        MinerResult(hotkey="better", score=0.6, commitment_block=30, cost_per_solved=1.0),
    ]
    live = compute_weights(results, uids, parse_policy("top_heavy"))
    shadow = compute_weights(results, uids, parse_policy("cost_aware"))
    # score first, whatever it cost; then the cheaper per solved problem, an unknown cost last
    assert max(shadow, key=lambda uid: shadow[uid]) == 4 == max(live, key=lambda uid: live[uid])
    assert shadow[2] > shadow[1] > shadow[3]
    assert live[3] > live[1] > live[2]  # top_heavy: the earlier commitment, cost unread


def test_a_node_that_cannot_hold_miners_keys_says_so_in_one_line() -> None:
    from types import SimpleNamespace

    from validator.node import NodeError, key_ring

    providers = json.dumps(PROVIDERS)
    pack = SimpleNamespace(rotation=SimpleNamespace(payer=None))
    parts = {"store": None, "chain": None, "wallet": None}
    plain = load_settings({}, env_file=None)
    assert key_ring(plain, pack=pack, **parts) is None  # the node's key pays: no ring at all
    ray = load_settings(
        {"gateway_payer": "either", "gateway_providers": providers, "dispatch": "ray", "ray_address": "h:1"},
        env_file=None,
    )
    on_ray = key_ring(ray, pack=pack, **parts)  # the key goes to the run's Ray runner in memory (docs/validator.md)
    assert on_ray is not None and on_ray.policy() == "either"
    by_pack = SimpleNamespace(rotation=SimpleNamespace(payer="miner"))
    with pytest.raises(NodeError, match="the pack's rotation has miners pay \\(miner\\); give --gateway.providers"):
        key_ring(plain, pack=by_pack, **parts)
    ring = key_ring(load_settings({"gateway_providers": providers}, env_file=None), pack=by_pack, **parts)
    assert ring is not None and ring.policy() == "miner" and set(ring.providers) == {"local"}
