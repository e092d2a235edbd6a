"""What both shopping families (ShoppingBench and the session) share as a `Family`: the shopping rulesets (a pack's
``sn15`` scores both by sn15's product checks) and the answer ids their verdicts found in the catalog."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena.tasks.base import Family, Ruleset


class ShoppingFamily(Family):
    """A family whose answers are catalog products checked by the shopping domain's product checks."""

    def rulesets(self) -> Mapping[str, Ruleset]:
        """``shoppingbench`` (the paper's evaluator, the default) and ``sn15`` (subnet 15's scorer)."""
        from arena.tasks.shopping.rulesets import RULESETS

        return RULESETS

    def corpus_known(self, strict: Mapping[str, Any] | None) -> set[str]:
        """The answer's ids the verdict's per-slot checks found in the catalog."""
        from arena.tasks.shopping.verdict import known_answer_ids

        return known_answer_ids(strict)
