"""Named rulesets: which reference's strict checks a pack's problems are scored by.

A pack declares its ruleset per family (`arena.problems.pack.Pack.ruleset_for`); every stored score names the
ruleset and its version. Both shopping families (ShoppingBench and the session) share these. The two rulesets differ
only where their reference code differs; each difference is a flag here, and the product checks
(`arena.tasks.shopping.strict_product`) and ShoppingBench's run scorer (`arena.tasks.shoppingbench.strict`) read
nothing but these flags:

- ``shoppingbench``: the paper's evaluator (``yjwjy/ShoppingBench`` ``src/agent/run_evaluate.py`` and
  ``src/agent/rewards/orm.py``). The answer is the last ``recommend_product`` call's raw ``product_ids`` split on
  commas, unstripped and not de-duplicated; every resolved slot counts toward the shop and budget checks; a web
  answer's ``gt`` is the gold id as a substring of the first id (reported only); a per-field rate is 1 where the
  product has no constraint of that field; a rule with nothing to check raises in the reference (here: rule 0, said in
  the checks).
- ``sn15``: subnet 15's scorer (``ORO-AI/oro`` ``src/agent/problem_scorer.py``, ``src/agent/rewards/orm.py``). Ids are
  stripped, empties dropped and duplicates removed (order kept); a slot counts toward the shop and budget checks only
  when its rule score is above 0; a field with no constraint rates 0; a rule with nothing to check is 0. ORO's
  problem scorer has no web task: its ``web_rule_score_reward`` is used over ORO's parsed answer, with ``gt`` the
  exact id.

Title similarity: both references embed titles with Qwen3-Embedding-0.6B (threshold 0.5 in the paper, 0.7 in ORO;
web 0.8 in both). That model cannot be had offline here, so titles are compared with WordLlama at thresholds of our
own (`arena.tasks.shopping.similarity`): this is the one place where a verdict may differ from the
reference's, and only for a substitute product (an exact id never depends on it).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from arena.tasks.shopping.similarity import SN15_TITLE_THRESHOLD, TITLE_MODEL, TITLE_THRESHOLD, WEB_TITLE_THRESHOLD

DEFAULT_RULESET = "shoppingbench"


class UnknownRuleset(ValueError):
    """A ruleset name that is not one of `RULESETS`."""


@dataclass(frozen=True)
class Ruleset:
    name: str
    version: str
    reference: str
    #: answer ids are stripped, empties dropped, duplicates removed (sn15); else the raw comma split (paper)
    clean_ids: bool
    #: a slot joins the shop/budget checks only when its rule score is above 0 (sn15); else when it resolves (paper)
    slot_needs_rule: bool
    #: per-field rate where the product has no constraint of that field: 1 (paper) or 0 (sn15)
    unconstrained_field_rate: float
    #: web gt: the gold id as a substring of the answer's first id (paper) or the exact id (sn15)
    web_gt_substring: bool
    title_threshold: float
    web_title_threshold: float
    title_model: str = TITLE_MODEL

    def parse(self, raw: Any) -> list[str]:
        """The answer's ids from the raw ``product_ids`` of the last ``recommend_product`` call, as the reference
        reads them. A non-string (a list, a number, None) is no answer in both references; a list of ids given by a
        caller of ours (gold answers, `arena score`) is taken as the already-split ids."""
        if isinstance(raw, str):
            parts = raw.split(",")
        elif isinstance(raw, (list, tuple)) and all(isinstance(p, str) for p in raw):
            parts = list(raw)
        else:
            return []
        if not self.clean_ids:
            return parts if parts != [""] else []
        seen: dict[str, None] = {}
        for part in parts:
            text = part.strip()
            if text:
                seen.setdefault(text, None)
        return list(seen)

    def describe(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "version": self.version,
            "reference": self.reference,
            "title_model": self.title_model,
            "title_threshold": self.title_threshold,
            "web_title_threshold": self.web_title_threshold,
        }


RULESETS: dict[str, Ruleset] = {
    "shoppingbench": Ruleset(
        name="shoppingbench",
        version="1",
        reference="yjwjy/ShoppingBench src/agent/run_evaluate.py, src/agent/rewards/orm.py",
        clean_ids=False,
        slot_needs_rule=False,
        unconstrained_field_rate=1.0,
        web_gt_substring=True,
        title_threshold=TITLE_THRESHOLD,
        web_title_threshold=WEB_TITLE_THRESHOLD,
    ),
    "sn15": Ruleset(
        name="sn15",
        version="1",
        reference="ORO-AI/oro src/agent/problem_scorer.py, src/agent/rewards/orm.py",
        clean_ids=True,
        slot_needs_rule=True,
        unconstrained_field_rate=0.0,
        web_gt_substring=False,
        title_threshold=SN15_TITLE_THRESHOLD,
        web_title_threshold=WEB_TITLE_THRESHOLD,
    ),
}


def get_ruleset(name: str | Ruleset | None) -> Ruleset:
    """The ruleset called ``name`` (None: the default); one clear error for an unknown name."""
    if isinstance(name, Ruleset):
        return name
    if name is None:
        return RULESETS[DEFAULT_RULESET]
    try:
        return RULESETS[name]
    except KeyError:
        raise UnknownRuleset(f"unknown ruleset {name!r}; use one of: {', '.join(RULESETS)}") from None
