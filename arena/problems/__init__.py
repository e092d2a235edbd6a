"""Making problems: importer, generator, clusters, splits and packs. The model itself (the ShoppingBench reward
grammar) is `arena.problem`, below both this package and `arena.scoring`; it is re-exported here."""

from arena.problem import TASKS, PriceRule, Problem, ProductReward, Voucher

__all__ = ["TASKS", "PriceRule", "Problem", "ProductReward", "Voucher"]
