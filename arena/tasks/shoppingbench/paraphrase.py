"""Optional LLM paraphrase of generated queries (off by default), through any OpenAI-compatible endpoint.

The ground truth never changes: a paraphrase is kept only if it still states every number and every required value
of the original query and does not contain a gold title; otherwise the templated query stays. Temperature 0.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from arena.tasks.shopping.problem import Problem

SYSTEM = (
    "You rewrite online-shopping requests so they sound like a different person wrote them. Keep every number, "
    "every product attribute value, every service (free shipping, cash on delivery, LazMall/official store, "
    "flash sale) and any voucher or budget text exactly. Do not add product names or brands. Answer with the "
    "rewritten request only."
)


@dataclass
class ParaphraseReport:
    problems: list[Problem]
    rewritten: int
    kept: int
    failed: int


def _required_bits(problem: Problem) -> list[str]:
    bits = re.findall(r"\d+(?:\.\d+)?", problem.query)
    for reward in problem.reward:
        bits += [v for _, v in reward.required_pairs()]
    return [b.lower() for b in bits]


def acceptable(problem: Problem, candidate: str) -> bool:
    text = candidate.lower()
    if not candidate.strip() or len(candidate) > 4 * len(problem.query) + 200:
        return False
    if any(bit not in text for bit in _required_bits(problem)):
        return False
    return not any(t.lower() in text for r in problem.reward for t in r.title if len(t) > 12)


def paraphrase_problems(
    problems: Sequence[Problem],
    *,
    base_url: str,
    model: str,
    api_key: str = "none",
    timeout: float = 60.0,
    progress: Callable[[int], None] | None = None,
) -> ParaphraseReport:
    from openai import OpenAI, OpenAIError

    client = OpenAI(base_url=base_url, api_key=api_key, timeout=timeout, max_retries=2)
    out: list[Problem] = []
    rewritten = kept = failed = 0
    for problem in problems:
        try:
            reply = client.chat.completions.create(
                model=model,
                temperature=0,
                messages=[{"role": "system", "content": SYSTEM}, {"role": "user", "content": problem.query}],
            )
            candidate = (reply.choices[0].message.content or "").strip()
        except OpenAIError:
            failed += 1
            out.append(problem)
        else:
            if acceptable(problem, candidate):
                rewritten += 1
                out.append(
                    problem.model_copy(
                        update={
                            "query": candidate,
                            "meta": {**problem.meta, "template_query": problem.query, "paraphrased_by": model},
                        }
                    )
                )
            else:
                kept += 1
                out.append(problem)
        if progress:
            progress(1)
    return ParaphraseReport(out, rewritten, kept, failed)
