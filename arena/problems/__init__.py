"""Problems: the ShoppingBench reward grammar, importer, generator, clusters, splits and packs."""

from arena.problems.models import TASKS, PriceRule, Problem, ProductReward, Voucher

__all__ = ["TASKS", "PriceRule", "Problem", "ProductReward", "Voucher"]
