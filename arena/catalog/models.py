"""The ShoppingBench product document and the offline web page.

`Product` has exactly the fields of a ShoppingBench ``documents.jsonl`` line's ``product`` object (see
yjwjy/ShoppingBench ``src/search_engine/convert_products_to_documents.py``), so a real catalog loads without
conversion: keys and values lowercased, ``sku_options`` numbered "1".."9", attributes as lists of values.
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

#: The four ShoppingBench services. "official" is LazMall, "flashsale" is LazFlash.
SERVICES: tuple[str, ...] = ("official", "freeShipping", "COD", "flashsale")
Service = Literal["official", "freeShipping", "COD", "flashsale"]

#: ShoppingBench keeps at most 9 SKU options per product.
MAX_SKU_OPTIONS = 9


class Product(BaseModel):
    """One product document, field for field as in ShoppingBench."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    product_id: Annotated[str, Field(min_length=1, max_length=64)]
    shop_id: Annotated[str, Field(min_length=1, max_length=64)]
    brand: str = ""
    category: str = ""
    title: Annotated[str, Field(min_length=1)]
    short_description: str = ""
    description: str = ""
    specification: str = ""
    price: Annotated[float, Field(ge=0, allow_inf_nan=False)]
    sold_count: Annotated[int, Field(ge=0)] = 0
    sku_options: dict[str, dict[str, str]] = Field(default_factory=dict)
    attributes: dict[str, list[str]] = Field(default_factory=dict)
    service: list[Service] = Field(default_factory=list)
    main_image_url: str = ""
    product_url: str = ""

    @field_validator("product_id", "shop_id", mode="before")
    @classmethod
    def _id_as_text(cls, value: object) -> object:
        # Real documents carry ids as digit strings; accept integers too, never floats or bools.
        if isinstance(value, bool):
            raise ValueError("must be a string id")
        if isinstance(value, int):
            return str(value)
        return value

    @field_validator("sku_options")
    @classmethod
    def _at_most_nine_options(cls, value: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        if len(value) > MAX_SKU_OPTIONS:
            raise ValueError(f"has {len(value)} SKU options; at most {MAX_SKU_OPTIONS} are allowed")
        return value

    def contents(self) -> str:
        """The text ShoppingBench indexes for BM25: title, SKU values, attribute values, one block per line."""
        return search_contents(self.title, self.sku_options, self.attributes)


def search_contents(title: str, sku_options: dict[str, dict[str, str]], attributes: dict[str, list[str]]) -> str:
    """ShoppingBench's ``contents``: ``title \\n sku values \\n attribute values`` (values joined by spaces)."""
    sku_values = " ".join([v for option in sku_options.values() for v in option.values()])
    attr_values = " ".join([v for values in attributes.values() for v in values])
    return f"{title}\n{sku_values}\n{attr_values}"


class WebFact(BaseModel):
    """The world-knowledge fact a generated web page carries (what a web task's question hinges on)."""

    model_config = ConfigDict(frozen=True)

    entity: str
    entity_type: str
    relation: str
    value: str
    attribute_key: str


class WebPage(BaseModel):
    """One page of the offline web corpus that `web_search` serves."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    url: Annotated[str, Field(min_length=1)]
    title: str
    content: str
    fact: WebFact | None = None
