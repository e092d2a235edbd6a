"""`arena-miner test` with your own LLM key, as a validator under ``--gateway.payer miner`` uses it: the gateway sends
the agent's calls to --llm-base-url with the key in $VAR (--api-key-env) as a `sandbox.gateway.MinerRoute` (never
shown to the agent), each call priced at --llm-price; and the scorecard's cost line (tokens in and out, cost, cost
per solved problem)."""

from __future__ import annotations

import os
from typing import Annotated, Any

import typer

from arena.cliutil import fail

ApiKeyEnv = Annotated[
    str | None,
    typer.Option(
        "--api-key-env",
        help="The environment variable holding YOUR key for --llm-base-url: the calls go there with it, as a "
        "validator sends them when miners pay (without it: $OPENAI_API_KEY, as the validator's own key).",
    ),
]
LlmPrice = Annotated[
    str | None,
    typer.Option(
        "--llm-price",
        help="USD per 1000 prompt and completion tokens, 'IN,OUT' (e.g. 0.15,0.6): the scorecard's cost "
        "(default 0,0: tokens only).",
    ),
]


def parse_price(text: str | None) -> Any:
    """The `arena.spend.Price` of --llm-price 'IN,OUT'; one line and exit 2 for anything else."""
    from arena.spend import Price

    if text is None:
        return Price()
    try:
        prompt, completion = (float(part) for part in text.split(","))
        return Price(prompt=prompt, completion=completion)
    except ValueError:
        fail(f"--llm-price {text!r}: give USD per 1000 prompt and completion tokens as IN,OUT, e.g. 0.15,0.6")


def gateway_route(base_url: str | None, models: list[str], key_env: str | None, price_text: str | None) -> Any:
    """(the node's `Upstream`, the miner's `MinerRoute` or None) for the options given."""
    from pydantic import SecretStr

    from arena.keymask import key_problem
    from arena.spend import Provider
    from sandbox.gateway import MinerRoute, Upstream

    price = parse_price(price_text)
    if key_env is None:
        upstream = Upstream(
            base_url=base_url,
            api_key=os.environ.get("OPENAI_API_KEY"),
            models=models,
            usd_per_1k_prompt=price.prompt,
            usd_per_1k_completion=price.completion,
        )
        return upstream, None
    if not base_url:
        fail("--api-key-env needs --llm-base-url URL --model M: the endpoint your key is for")
    key = os.environ.get(key_env, "").strip()
    if not key:
        fail(f"--api-key-env {key_env}: ${key_env} is empty or not set; export your key there")
    problem = key_problem(key)
    if problem is not None:
        fail(f"--api-key-env {key_env}: {problem}")
    provider = Provider(base_url=base_url, models=dict.fromkeys(models, price))
    return Upstream(), MinerRoute("local", provider, SecretStr(key), models[0])


def spend_line(rows: list[dict[str, Any]]) -> str:
    """The scorecard's cost line: tokens in and out, cost and who paid, cost per solved problem."""
    paid = sorted({r.get("payer") or "validator" for r in rows if r.get("llm_calls")})
    cost = sum(r.get("cost") or 0.0 for r in rows)
    solved = sum(1 for r in rows if r.get("success"))
    per = f"${cost / solved:.6f} per solved problem" if solved else "no problem solved"
    return (
        f"LLM cost: {sum(r.get('prompt_tokens') or 0 for r in rows):,} tokens in, "
        f"{sum(r.get('completion_tokens') or 0 for r in rows):,} out, ${cost:.6f} "
        f"(paid by {' and '.join(paid) or 'nobody: no LLM call'}); {per}"
    )
