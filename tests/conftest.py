"""Shared fixtures: a tiny hand-built catalog whose products are chosen to pin down the tool semantics."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from arena.catalog import Catalog
from arena.catalog.writer import CatalogWriter


def make_product(product_id: str, title: str, price: float, shop_id: str = "S1", **extra: Any) -> dict[str, Any]:
    product: dict[str, Any] = {
        "product_id": product_id,
        "shop_id": shop_id,
        "brand": extra.pop("brand", "Acme"),
        "category": extra.pop("category", "Home & Living > Lighting > Desk Lamps"),
        "title": title,
        "short_description": extra.pop("short_description", f"{title};Brand new;"),
        "description": extra.pop("description", f"The {title}. Package includes 1 item."),
        "specification": extra.pop("specification", "brand:acme"),
        "price": float(price),
        "sold_count": extra.pop("sold_count", 0),
        "sku_options": extra.pop("sku_options", {}),
        "attributes": extra.pop("attributes", {}),
        "main_image_url": f"https://img.example/{product_id}.jpg",
        "product_url": f"https://shop.example/-i{product_id}.html",
        "service": extra.pop("service", []),
    }
    assert not extra, extra
    return product


def services_of(i: int) -> list[str]:
    out = []
    if i % 7 == 0:
        out.append("official")
    if i % 5 == 0:
        out.append("freeShipping")
    if i % 2 == 0:
        out.append("COD")
    if i % 3 == 0:
        out.append("flashsale")
    return out


def tiny_products() -> list[dict[str, Any]]:
    products = []
    # 50 strongly relevant "desk lamp" listings, prices 100..149, distinct sold counts, services by residue
    for i in range(50):
        products.append(
            make_product(
                f"D{i:03d}",
                f"Desk Lamp LED Reading Light {i}",
                100 + i,
                shop_id="S1" if i % 2 == 0 else "S2",
                sold_count=(i * 7) % 53,
                service=services_of(i),
                sku_options={"1": {"color_family": "white"}, "2": {"color_family": "black"}} if i == 0 else {},
                attributes={"material": ["aluminium"], "power_source": ["usb"]},
            )
        )
    # 10 weakly relevant lamps (only "lamp", long titles) that are the cheapest of all
    for i in range(10):
        products.append(
            make_product(
                f"W{i:02d}",
                f"Floor lamp stand with extra long cable and warm white bulb {i}",
                1 + i,
                shop_id="S3",
                sold_count=1000 + i,
                service=["COD"],
            )
        )
    # shop coverage and voucher baskets
    products += [
        make_product("M1", "Ceramic Coffee Mug 350ml", 60, shop_id="S4", category="Home & Living > Kitchen > Mugs"),
        make_product("T1", "Bamboo Serving Tray Large", 40, shop_id="S4", category="Home & Living > Kitchen > Trays"),
        make_product("M2", "Ceramic Tea Mug with Lid", 100, shop_id="S5", category="Home & Living > Kitchen > Mugs"),
        make_product("M3", "Ceramic Mug Gift Set", 75, shop_id="S6", category="Home & Living > Kitchen > Mugs"),
        make_product("T2", "Bamboo Tray Organizer", 55, shop_id="S6", category="Home & Living > Kitchen > Trays"),
        make_product("C1", "Ceramic Cereal Bowl", 35, shop_id="S6", category="Home & Living > Kitchen > Bowls"),
    ]
    return products


WEB_PAGES = [
    {
        "url": "https://wiki.example/ilsa",
        "title": "Ilsa Marrow",
        "content": "Ilsa Marrow plays the cello.",
        "fact": {
            "entity": "Ilsa Marrow",
            "entity_type": "musician",
            "relation": "plays",
            "value": "cello",
            "attribute_key": "instrument",
        },
    },
    {
        "url": "https://wiki.example/rovers",
        "title": "Velmont Rovers",
        "content": "The team wears emerald green.",
        "fact": None,
    },
    {
        "url": "https://blog.example/lamps",
        "title": "Buying guide: desk lamps",
        "content": "Compare lamps.",
        "fact": None,
    },
]


@pytest.fixture(scope="session")
def tiny_catalog_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("catalogs") / "tiny"
    with CatalogWriter(out) as writer:
        for product in tiny_products():
            writer.add_product(product)
        for page in WEB_PAGES:
            writer.add_web_page(page)
        writer.commit({"source": {"kind": "fixture"}, "digest": "sha256:fixture", "stats": {}})
    return out


@pytest.fixture(scope="session")
def tiny_catalog(tiny_catalog_path: Path) -> Catalog:
    return Catalog.open(tiny_catalog_path)
