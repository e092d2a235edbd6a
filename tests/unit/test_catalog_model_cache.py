"""A catalog's products do not depend on how many models its generator keeps at once (`World.model_cache`): the
same (seed, size) with a cache far smaller than its models gives the same products, so the same digest."""

from __future__ import annotations

from arena.catalog import generator as gen


def test_a_small_model_cache_makes_the_same_products() -> None:
    world = gen.World.build(3, 3000)
    small = gen.World.build(3, 3000)
    small.model_cache = 40  # turned over dozens of times in 3,000 listings
    chunks = (3000 + gen.CHUNK - 1) // gen.CHUNK
    for chunk in range(chunks):
        assert gen.generate_chunk(small, chunk) == gen.generate_chunk(world, chunk)
    assert len(small._models) <= 40 and len(small._older) <= 40
    assert len(world._models) > 80  # the default kept them all


def test_a_model_is_the_same_whichever_models_were_made_before_it() -> None:
    # models are made on one generator reseeded per model: none may carry another's draws, in any order
    first, reverse = gen.World.build(4, 20_000), gen.World.build(4, 20_000)
    wanted = [(leaf, index) for leaf in first.leaves[::37] for index in (0, 1, 5)]
    made = [first.model(leaf, index) for leaf, index in wanted]
    assert [reverse.model(leaf, index) for leaf, index in reversed(wanted)] == made[::-1]
    alone = gen.World.build(4, 20_000)
    leaf, index = wanted[len(wanted) // 2]
    assert alone.model(leaf, index) == made[len(wanted) // 2]
    assert len({(m.brand, m.series, m.noun, m.base_price) for m in made}) > len(made) // 2  # models differ
