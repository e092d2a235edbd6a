"""The Problem model and ShoppingBench's reward grammar: what scoring reads and `arena.problems` makes (generator,
importer, splits, packs), so it sits below both.

The reward grammar is ShoppingBench's, field for field (yjwjy/ShoppingBench ``data/synthesize_*_test.jsonl``): per
product ``product_id``, ``title: [str]``, ``sku_options: [{k: v}]``, ``attributes: [{k: [v]}]``,
``service: [...]``, ``price: [{"less than"|"greater than"|"between": [lo, hi]}]`` with ``null`` for an open bound;
the voucher of budget tasks; the knowledge attribute of web tasks. Serialised, a reward reads exactly as
ShoppingBench writes it.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_serializer, model_validator

from arena.catalog.models import Product, Service
from arena.tasks.base import ProblemBase

Task = Literal["product", "shop", "voucher", "web"]
TASKS: tuple[str, ...] = get_args(Task)  # the family's task types, in their order (`arena.tasks.TASKS`: all families)
PRICE_MODES = ("less than", "greater than", "between")


class PriceRule(BaseModel):
    """One price constraint. Bounds are inclusive; ``None`` is an open bound (ShoppingBench's ``null``)."""

    model_config = ConfigDict(frozen=True)

    mode: Literal["less than", "greater than", "between"]
    lo: float | None = None
    hi: float | None = None

    @model_validator(mode="before")
    @classmethod
    def _from_shoppingbench(cls, value: Any) -> Any:
        # {"between": [101, 430]} -> mode/lo/hi
        if isinstance(value, dict) and len(value) == 1 and next(iter(value)) in PRICE_MODES:
            mode, bounds = next(iter(value.items()))
            if not isinstance(bounds, (list, tuple)) or len(bounds) != 2:
                raise ValueError(f"price {mode!r} needs [lo, hi] (null for an open bound), got {bounds!r}")
            return {"mode": mode, "lo": bounds[0], "hi": bounds[1]}
        return value

    @model_validator(mode="after")
    def _bounds_fit_the_mode(self) -> PriceRule:
        if self.mode == "between" and (self.lo is None or self.hi is None):
            raise ValueError("price 'between' needs both bounds")
        if self.mode == "less than" and self.hi is None:
            raise ValueError("price 'less than' needs an upper bound")
        if self.mode == "greater than" and self.lo is None:
            raise ValueError("price 'greater than' needs a lower bound")
        if self.lo is not None and self.hi is not None and self.lo > self.hi:
            raise ValueError(f"price range [{self.lo}, {self.hi}] is empty")
        return self

    @model_serializer
    def _to_shoppingbench(self) -> dict[str, list[float | None]]:
        return {self.mode: [self.lo, self.hi]}

    def admits(self, price: float) -> bool:
        """Inclusive, and only the bound the mode names, as both references test it: ``less than`` checks
        ``price <= hi`` alone, ``greater than`` ``price >= lo`` alone, ``between`` both."""
        if self.mode == "less than":
            return self.hi is not None and price <= self.hi
        if self.mode == "greater than":
            return self.lo is not None and price >= self.lo
        return self.lo is not None and self.hi is not None and self.lo <= price <= self.hi


class ProductReward(BaseModel):
    """What one requested product must be: its gold id and the constraints a substitute must meet."""

    model_config = ConfigDict(extra="forbid")

    product_id: Annotated[str, Field(min_length=1)]
    title: list[str] = Field(default_factory=list)
    sku_options: list[dict[str, str]] = Field(default_factory=list)
    attributes: list[dict[str, list[str]]] = Field(default_factory=list)
    service: list[Service] = Field(default_factory=list)
    price: list[PriceRule] = Field(default_factory=list)

    @field_validator("product_id", mode="before")
    @classmethod
    def _id_as_text(cls, value: object) -> object:
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else value

    @field_validator("title", mode="before")
    @classmethod
    def _title_list(cls, value: object) -> object:
        return [value] if isinstance(value, str) else value

    def constraint_count(self) -> int:
        """How many checks a substitute must pass (title, each price rule, each service, each (k, v))."""
        pairs = sum(len(o) for o in self.sku_options) + sum(len(v) for a in self.attributes for v in a.values())
        return (1 if self.title else 0) + len(self.price) + len(self.service) + pairs

    def required_pairs(self) -> list[tuple[str, str]]:
        """Every required (key, value): the SKU option's pairs and each attribute value."""
        pairs = [(k, v) for option in self.sku_options for k, v in option.items()]
        pairs += [(k, v) for attr in self.attributes for k, values in attr.items() for v in values]
        return pairs


class Voucher(BaseModel):
    """A voucher task's voucher and budget, as ShoppingBench stores it."""

    model_config = ConfigDict(extra="forbid")

    voucher_type: Literal["platform", "shop"]
    threshold: Annotated[float, Field(ge=0)]
    discount_type: Literal["fixed", "percentage"]
    face_value: Annotated[float | None, Field(ge=0)] = None
    discount: Annotated[float | None, Field(gt=0, lt=1)] = None
    cap: Annotated[float | None, Field(ge=0)] = None
    price_after_voucher: float | None = None
    budget: Annotated[float, Field(ge=0)]

    @model_validator(mode="after")
    def _complete(self) -> Voucher:
        if self.discount_type == "fixed" and self.face_value is None:
            raise ValueError("a fixed voucher needs face_value")
        if self.discount_type == "percentage" and self.discount is None:
            raise ValueError("a percentage voucher needs discount (a fraction: 0.21 for 21%)")
        return self


class Problem(ProblemBase):
    """One ShoppingBench problem: the query an agent sees, and the answers it must never see."""

    task: Task
    reward: list[ProductReward] = Field(min_length=1, max_length=4)
    voucher: Voucher | None = None
    knowledge_attribute: str | None = None
    gold_document: Product | None = None  # web tasks: the full gold document ShoppingBench gives as the reward

    @model_validator(mode="after")
    def _shape_fits_the_task(self) -> Problem:
        n = len(self.reward)
        if self.task in ("product", "web") and n != 1:
            raise ValueError(f"a {self.task} task has exactly one reward, got {n}")
        if self.task == "shop" and not 2 <= n <= 4:
            raise ValueError(f"a shop task has 2 to 4 rewards, got {n}")
        if self.task == "voucher" and self.voucher is None:
            raise ValueError("a voucher task needs its voucher")
        if self.task != "voucher" and self.voucher is not None:
            raise ValueError(f"a {self.task} task has no voucher")
        if self.task == "web" and not self.knowledge_attribute:
            raise ValueError("a web task needs its knowledge_attribute")
        return self

    def public(self) -> dict[str, Any]:
        """The only view of a problem that may enter a sandbox: the query and non-revealing metadata."""
        return {**super().public(), "n_products": len(self.reward)}

    @property
    def gold_ids(self) -> list[str]:
        return [r.product_id for r in self.reward]

    @property
    def slots(self) -> int:
        return len(self.reward)

    def answer_spec(self) -> str:
        """The reward list: problems with the same rewards are one cluster, whatever their vouchers or wording."""
        import orjson

        return orjson.dumps([r.model_dump(mode="json") for r in self.reward], option=orjson.OPT_SORT_KEYS).decode()
