"""The compatibility family (``arena/tasks/compatibility``): problems generated from a real catalog, deterministic
and self-checked; the strict check passes every gold and fails every product that almost fits, saying why; the
offline template's baseline solves a fair share through the real tools, and an agent answering the most popular
accessory of the right kind without reading fit earns less."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from arena import tasks
from arena.catalog import Catalog
from arena.catalog.build import build_catalog
from arena.problems.pack import Rotation, load_pack, new_pack, write_pack
from arena.tasks.compatibility import FAMILY
from arena.tasks.compatibility.fit import fit_values
from arena.tasks.compatibility.generate import generate_report
from arena.tasks.compatibility.problem import CompatProblem
from arena.tasks.compatibility.selfcheck import check_problem, near_misses
from arena.tasks.compatibility.stock import pools
from arena.tools import RunState, ToolContext, ToolError
from tests.support.template import load_sdk, load_template

arena_agent = load_sdk()
agent = load_template("shoparena_offline_agent")

Call = Callable[..., Any]


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> tuple[Catalog, list[CompatProblem]]:
    out = tmp_path_factory.mktemp("compat") / "cat"
    build_catalog(5, 8000, out, workers=1)
    catalog = Catalog.open(out)
    problems = generate_report(catalog, 40, seed=2).problems
    assert len(problems) == 40
    return catalog, [p for p in problems if isinstance(p, CompatProblem)]


def gateway(catalog: Catalog) -> Call:
    """The family's real tools behind an ``arena_agent.call_tool``-like callable."""
    registry = FAMILY.tools()
    ctx = ToolContext(catalog=catalog, state=RunState())

    def call(name: str, **arguments: Any) -> Any:
        try:
            return registry.call(name, arguments, ctx)
        except ToolError as exc:
            raise arena_agent.ToolError(str(exc)) from None

    return call


def honest(catalog: Catalog, problem: CompatProblem) -> str:
    """The offline template (its strategy for the task type, ``baseline/compatibility.py``) on the problem's public
    view, through the real tools; its committed answer."""
    return ",".join(agent.solve(problem.public(), gateway(catalog))["recommended"])


def most_popular(catalog: Catalog, problem: CompatProblem) -> str:
    """The attacker: the best-selling listing of the very category asked for (known exactly), fit never read."""
    same = [p for p in catalog.iter_products() if p["category"] == problem.fit.category]
    return str(max(same, key=lambda p: (p["sold_count"], p["product_id"]))["product_id"])


def test_the_family_is_registered_with_its_tools_by_kind() -> None:
    assert tasks.family_for("compatibility") is FAMILY
    kinds = {t.name: t.results for t in FAMILY.tools()}
    assert kinds == {
        "find_product": "products",
        "view_product_information": "details",
        "recommend_product": "answer",
        "terminate": "end",
    }


def test_generation_is_deterministic_varied_and_every_problem_passes_its_self_check(
    world: tuple[Catalog, list[CompatProblem]],
) -> None:
    catalog, problems = world
    again = generate_report(catalog, 40, seed=2).problems
    assert [p.model_dump() for p in again] == [p.model_dump() for p in problems]
    other = generate_report(catalog, 40, seed=3).problems
    assert [p.query for p in other] != [p.query for p in problems]
    assert len({p.fit.rule for p in problems}) >= 6
    assert {p.difficulty for p in problems} == {"easy", "medium", "hard"}
    by_leaf = pools(catalog)
    for p in problems:
        stock = by_leaf[p.fit.category.rsplit(" > ", 1)[-1]]
        assert check_problem(p, stock, catalog.get, by_leaf) is None
        public = p.public()
        assert set(public) == {"problem_id", "task", "query", "difficulty"}
        assert not any(g in json.dumps(public) for g in p.gold)
    owned = [p for p in problems if p.device.kind == "owned"]
    assert owned and all(p.device.product_id and p.device.product_id in p.query for p in owned)


def test_the_gold_scores_and_every_near_miss_fails_on_fit_alone(world: tuple[Catalog, list[CompatProblem]]) -> None:
    catalog, problems = world
    by_leaf = pools(catalog)
    for p in problems:
        verdict = FAMILY.score(p, p.gold[0], catalog.get)
        assert (
            verdict.success
            and verdict.final == 1.0
            and verdict.extras.rate("gt") == 1.0
            and verdict.answer == [p.gold[0]]
        )
        assert all(c.passed for c in verdict.checks)
        misses = near_misses(p, by_leaf[p.fit.category.rsplit(" > ", 1)[-1]])
        assert misses
        for miss in misses:
            verdict = FAMILY.score(p, str(miss["product_id"]), catalog.get)
            failed = [c for c in verdict.checks if not c.passed]
            assert not verdict.success and verdict.final == 0.0 and [c.name for c in failed] == ["fits"]
            assert "nothing fits" in failed[0].evidence and p.fit.values[0] in failed[0].evidence
            assert all(v in failed[0].evidence for v in fit_values(miss, p.fit.key))


def test_a_wrong_kind_several_ids_unknown_or_no_answer_each_fail_with_a_reason(
    world: tuple[Catalog, list[CompatProblem]],
) -> None:
    catalog, problems = world
    cases = [p for p in problems if p.fit.rule == "phone_case"]
    protectors = [q for q in catalog.iter_products() if q["category"].endswith("Screen Protectors")]
    pairs = [(p, q) for p in cases for q in protectors if set(fit_values(q, "compatible_model")) & set(p.fit.values)]
    assert pairs  # a screen protector for the very phone a case is asked for
    problem, protector = pairs[0]
    verdict = FAMILY.score(problem, str(protector["product_id"]), catalog.get)
    failed = [c.name for c in verdict.checks if not c.passed]
    assert not verdict.success and failed[0] == "kind" and "fits" not in failed  # it fits the phone, it is no case
    p = problems[0]
    two = FAMILY.score(p, f"{p.gold[0]},{p.gold[0]}", catalog.get)
    assert not two.success and two.checks[0].name == "one_product" and not two.checks[0].passed
    unknown = FAMILY.score(p, "999", catalog.get)
    assert not unknown.success and [c.name for c in unknown.checks if not c.passed] == ["known"]
    for nothing in (None, "", " , "):
        verdict = FAMILY.score(p, nothing, catalog.get)
        assert not verdict.success and verdict.answer == [] and verdict.extras.rate("rule") == 0.0


def test_an_extra_want_is_checked(world: tuple[Catalog, list[CompatProblem]]) -> None:
    catalog, problems = world
    with_want = [p for p in problems if p.fit.wants]
    assert with_want
    by_leaf = pools(catalog)
    for p in with_want:
        ((key, accepted),) = p.fit.wants.items()
        stock = by_leaf[p.fit.category.rsplit(" > ", 1)[-1]]
        fits_not_wanted = [
            q
            for q in stock
            if set(fit_values(q, p.fit.key)) & set(p.fit.values) and not set(fit_values(q, key)) & set(accepted)
        ]
        for q in fits_not_wanted:
            verdict = FAMILY.score(p, str(q["product_id"]), catalog.get)
            assert [c.name for c in verdict.checks if not c.passed] == [f"want:{key}"]


def test_a_pack_keeps_the_private_fields_and_shows_only_the_public_view(
    world: tuple[Catalog, list[CompatProblem]], tmp_path: Path
) -> None:
    catalog, problems = world
    pack = new_pack(
        problems[:5],
        catalog_digest=catalog.digest,
        generator_version="compat",
        rotation=Rotation(task_mix={"compatibility": 1}),
    )
    again = load_pack(write_pack(pack, tmp_path / "pack.json"), require_signature=False)
    assert [p.model_dump() for p in again.problems] == [p.model_dump() for p in problems[:5]]
    assert all(isinstance(p, CompatProblem) for p in again.problems)


def test_the_baseline_solves_a_fair_share_and_the_popular_answer_earns_less(
    world: tuple[Catalog, list[CompatProblem]],
) -> None:
    catalog, problems = world
    honest_scores = [FAMILY.score(p, honest(catalog, p), catalog.get).final for p in problems]
    popular_scores = [FAMILY.score(p, most_popular(catalog, p), catalog.get).final for p in problems]
    honest_mean = sum(honest_scores) / len(problems)
    popular_mean = sum(popular_scores) / len(problems)
    assert honest_mean >= 0.6, honest_mean
    assert popular_mean < honest_mean, (popular_mean, honest_mean)
    assert popular_mean <= 0.5, popular_mean  # the gold is at most half of a category's candidates


def test_the_family_self_check_keeps_sound_problems_and_names_a_broken_one(
    world: tuple[Catalog, list[CompatProblem]],
) -> None:
    catalog, problems = world
    report = FAMILY.selfcheck(problems, catalog)
    assert report.ok and report.failures == [] and report.kept == problems
    assert sum(int(row[1]) for row in report.tables[0].rows) == len(problems)
    p = problems[0]
    miss = near_misses(p, pools(catalog)[p.fit.category.rsplit(" > ", 1)[-1]])[0]
    broken = p.model_copy(update={"gold": [str(miss["product_id"])]})  # a gold that does not fit
    report = FAMILY.selfcheck([broken], catalog)
    assert not report.ok and report.kept == []
    assert len(report.failures) == 1
    assert report.failures[0].startswith(f"{p.problem_id}: gold: gold product {miss['product_id']} fails fits")


def test_the_run_page_shows_the_device_what_fits_it_and_the_checks(world: tuple[Catalog, list[CompatProblem]]) -> None:
    catalog, problems = world
    p = next(q for q in problems if q.device.kind == "owned")
    strict = FAMILY.score(p, p.gold[0], catalog.get).model_dump(mode="json")
    sections = {s.id: s for s in FAMILY.run_sections(p, strict, [])}
    assert list(sections) == ["compat-request", "strict-generic", "checks"]
    request = sections["compat-request"].facts
    assert p.device.product_id in request["device"] and p.device.value in request["device"]
    assert all(v in request["fits when"] for v in p.fit.values) and p.gold[0] in request["gold"]
    assert sections["strict-generic"].facts["success"] == "yes"
    assert sections["strict-generic"].facts["a gold product"] == "yes"
    assert [c["name"] for c in sections["checks"].checks][:4] == ["one_product", "known", "kind", "fits"]
    assert FAMILY.corpus_known(strict) == {p.gold[0]}
    assert FAMILY.corpus_known(FAMILY.score(p, "999", catalog.get).model_dump(mode="json")) == set()
    unscored = FAMILY.run_sections(p, None, [])
    assert [s.id for s in unscored] == ["compat-request", "strict-generic"]
