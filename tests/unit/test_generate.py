"""Problem generation: determinism, solvability, ShoppingBench's recipe, queries that never quote a title."""

from __future__ import annotations

import pytest

from arena.catalog import Catalog
from arena.catalog.build import build_catalog
from arena.catalog.rng import Rng
from arena.tasks.shoppingbench.generate import generate_problems, voucher_for
from arena.tasks.shoppingbench.strict import score_run


@pytest.fixture(scope="module")
def catalog(tmp_path_factory):
    out = tmp_path_factory.mktemp("gen") / "cat"
    build_catalog(21, 5000, out, workers=1)
    return Catalog.open(out)


@pytest.fixture(scope="module")
def generated(catalog):
    return generate_problems(catalog, 40, seed=7)


@pytest.mark.slow  # a big build: a 5,000-product catalog and 40 generated problems
def test_generation_is_deterministic(catalog, generated):
    again = generate_problems(catalog, 40, seed=7)
    assert [p.model_dump() for p in again.problems] == [p.model_dump() for p in generated.problems]
    other = generate_problems(catalog, 8, seed=8)
    assert {p.query for p in other.problems}.isdisjoint({p.query for p in generated.problems[:8]})


@pytest.mark.slow  # a big build: a 5,000-product catalog and 40 generated problems
def test_every_task_type_and_every_problem_solvable(catalog, generated):
    assert generated.by_task == {"product": 10, "shop": 10, "voucher": 10, "web": 10}
    for problem in generated.problems:
        assert score_run(problem, problem.gold_ids, catalog.get).success, problem.problem_id
        assert problem.difficulty in ("easy", "medium", "hard")
        assert problem.meta["catalog_digest"] == catalog.digest
        assert problem.meta["confusers"] >= 0
    assert len({p.difficulty for p in generated.problems}) >= 2


@pytest.mark.slow  # a big build: a 5,000-product catalog and 40 generated problems
def test_queries_never_contain_the_gold_title(catalog, generated):
    for problem in generated.problems:
        for reward in problem.reward:
            assert reward.title[0].lower() not in problem.query.lower()


@pytest.mark.slow  # a big build: a 5,000-product catalog and 40 generated problems
def test_constraints_follow_the_recipe(catalog, generated):
    for problem in generated.problems:
        for reward in problem.reward:
            assert reward.title and len(reward.sku_options) <= 1
            gold = catalog.get(reward.product_id)
            for rule in reward.price:
                assert rule.admits(gold["price"])
            assert set(reward.service) <= set(gold["service"])
        if problem.task == "shop":
            assert 2 <= len(problem.reward) <= 4
            assert len({catalog.get(i)["shop_id"] for i in problem.gold_ids}) == 1
        if problem.task == "voucher":
            assert all(not r.price for r in problem.reward)  # the budget takes the price's place
        if problem.task == "web":
            doc = catalog.get(problem.gold_ids[0])
            assert problem.knowledge_attribute.lower() in (doc["title"] + " " + doc["description"]).lower()
            assert problem.knowledge_attribute.lower() not in problem.query.lower()


@pytest.mark.parametrize("seed", range(40))
def test_voucher_recipe(seed):
    rng = Rng("voucher-test", seed)
    total = 100 + 900 * rng.u()
    v = voucher_for(total, rng.pick(["platform", "shop"]), rng)
    assert 0.1 * total - 1 <= v.threshold <= 0.9 * total
    if v.discount_type == "fixed":
        assert 0.1 * v.threshold - 1 <= v.face_value <= 0.5 * v.threshold
    else:
        assert 0.1 <= v.discount <= 0.5 and v.threshold * v.discount - 1 <= v.cap <= v.threshold
    assert v.price_after_voucher <= v.budget <= v.price_after_voucher * 1.1 + 2


@pytest.mark.slow  # a big build: a 5,000-product catalog and 40 generated problems
def test_bad_arguments(catalog):
    with pytest.raises(ValueError, match="at least 1"):
        generate_problems(catalog, 0)
    with pytest.raises(ValueError, match="unknown task"):
        generate_problems(catalog, 3, tasks=["chat"])
