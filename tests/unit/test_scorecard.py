"""`arena-miner test`'s scorecard names the rulesets its runs were scored by, as their verdicts say."""

from __future__ import annotations

import json
from types import SimpleNamespace

from arena.scoring.models import RunScore
from miner_template.cli.scorecard import write_scorecard


def _ran(*verdicts: RunScore) -> SimpleNamespace:
    return SimpleNamespace(
        rows=[],
        results=[(v.task, v) for v in verdicts],
        attempts={f"p{i}": (v.task, [v.success]) for i, v in enumerate(verdicts)},
    )


def _card(tmp_path, capsys, *verdicts: RunScore) -> tuple[dict, str]:
    bundle, backend = SimpleNamespace(sha256="0" * 64), SimpleNamespace(name="process")
    write_scorecard(_ran(*verdicts), bundle, backend, None, [], 1, tmp_path, None)
    return json.loads((tmp_path / "scorecard.json").read_text()), capsys.readouterr().out


def test_a_pack_without_shoppingbench_problems_names_its_own_ruleset(tmp_path, capsys):
    won = RunScore(task="compatibility", ruleset="compatibility", answer=["a"], success=True, final=1.0)
    card, printed = _card(tmp_path, capsys, won)
    assert "(ruleset compatibility)" in printed and "shoppingbench" not in printed
    assert card["ruleset"] == {"name": "compatibility"} and card["rulesets"] == [card["ruleset"]]


def test_a_mixed_pack_names_every_ruleset_and_describes_each(tmp_path, capsys):
    shop = RunScore(task="product", ruleset="shoppingbench", answer=["a"], success=True, final=1.0)
    other = RunScore(task="compatibility", ruleset="compatibility", answer=["b"], success=False, final=0.0)
    card, printed = _card(tmp_path, capsys, shop, other)
    assert "(rulesets compatibility, shoppingbench)" in printed
    assert card["ruleset"] is None
    assert [r["name"] for r in card["rulesets"]] == ["compatibility", "shoppingbench"]
    assert card["rulesets"][1]["version"] == "1"  # a registered ruleset is described whole
