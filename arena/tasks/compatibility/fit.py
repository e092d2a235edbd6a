"""What fits what: the family's rules, each an accessory category of the synthetic catalog, the attribute that decides
fit there, and the devices a shopper may own with the accessory values that fit each.

The catalog has no single "compatible with" attribute, so fit is derived from attributes that exist
(`arena.catalog.taxonomy`). An accessory's values for its fit key are its attribute values for that key plus the
values of its SKU options (a case listing offering options for several phones fits each of them). A device is given
three ways (the problem's difficulty follows):

- ``named`` by the very value the accessory carries ("my headlights take H4 bulbs", "I ride a Honda Click 125"):
  the fit is that value (easy);
- ``named`` by what it is, the fitting values derived from it (medium): a console to its controllers' platform, a
  phone to its charging port (an iPhone 13 or 14 has Lightning, later iPhones and these Android phones USB-C), a TV's
  screen size to the wall mounts whose size range holds it, a camera body to its lens mount, an Apple Watch to its
  band size;
- ``owned``: a device listed in the catalog (an iPhone, a console, a laptop), named by its product id and title; its
  fit attribute is read from its attributes (``iphone_model``, ``platform``, ``screen_size``) and mapped as above
  (hard: the agent must look the device up first). A laptop stand fits every laptop up to its size class.

Every rule is data: adding one is adding a `Rule` to `RULES`.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

#: the phones the catalog's cases and screen protectors are made for, and each phone's charging port
PHONE_PORTS: dict[str, str] = {
    "iphone 13": "lightning",
    "iphone 14": "lightning",
    "iphone 15": "usb-c",
    "iphone 15 pro": "usb-c",
    "iphone 15 pro max": "usb-c",
    "iphone 16": "usb-c",
    "iphone 16 pro": "usb-c",
    "iphone 16 pro max": "usb-c",
    "samsung galaxy s24": "usb-c",
    "samsung galaxy a55": "usb-c",
    "xiaomi redmi note 13": "usb-c",
    "oppo reno 12": "usb-c",
    "vivo y36": "usb-c",
    "realme c67": "usb-c",
    "infinix hot 40": "usb-c",
    "tecno spark 20": "usb-c",
}
#: the end of a cable that goes into the shopper's charger, as they say it
CHARGER_ENDS: dict[str, str] = {"usb-c": "a USB-C charger", "usb-a": "an old USB-A charger"}
CONSOLES: dict[str, str] = {
    "playstation 5": "ps5",
    "playstation 5 slim": "ps5",
    "nintendo switch": "switch",
    "nintendo switch oled": "switch",
    "xbox series x": "xbox",
    "xbox series s": "xbox",
}
#: camera bodies and their lens mounts
CAMERAS: dict[str, str] = {
    "sony a7 iv": "sony e",
    "sony zv-e10": "sony e",
    "canon eos r6 mark ii": "canon rf",
    "canon eos r50": "canon rf",
    "nikon z6 ii": "nikon z",
    "nikon z fc": "nikon z",
    "fujifilm x-t5": "fujifilm x",
    "fujifilm x-s20": "fujifilm x",
    "olympus om-d e-m10 mark iv": "micro four thirds",
    "panasonic lumix g9": "micro four thirds",
}
#: watches by band size, and the catalog's band sizes they take
WATCHES: dict[str, str] = {
    "apple watch series 9 41mm": "38/40/41mm",
    "apple watch se 40mm": "38/40/41mm",
    "apple watch series 9 45mm": "42/44/45mm",
    "apple watch se 44mm": "42/44/45mm",
    "apple watch ultra 2": "49mm",
    "a watch with 20mm lugs": "20mm",
    "a watch with 22mm lugs": "22mm",
}
TV_SIZES = (32, 43, 50, 55, 65, 75, 85)
LAPTOP_LEAVES = ("Gaming Laptops", "Thin & Light Laptops", "2-in-1 Laptops", "Chromebooks & Student Laptops")

_NUMBER = re.compile(r"\d+(?:\.\d+)?")


def inches(value: str) -> float | None:
    """The first number of a size such as ``14 inches`` or ``up to 15.6 inches``."""
    found = _NUMBER.search(value)
    return float(found.group()) if found else None


def size_range(value: str) -> tuple[float, float] | None:
    """``26-55 inches`` as (26, 55)."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*-\s*(\d+(?:\.\d+)?)\s*inches\s*", value)
    return (float(found.group(1)), float(found.group(2))) if found else None


@dataclass(frozen=True)
class Device:
    """A device as the shopper names it, and the accessory values that fit it."""

    name: str
    fits: frozenset[str]
    kind: str = "named"  # named (by its fit value: easy), derived (by what it is: medium), owned (a product: hard)
    detail: str = ""  # more the shopper says about it (the charger a cable must also fit)


@dataclass(frozen=True)
class Owned:
    """Devices listed in the catalog: their categories (leaf names), the attribute read from them, and the accessory
    values that fit a value of that attribute (empty when none does)."""

    leaves: tuple[str, ...]
    key: str
    fits: Callable[[str, tuple[str, ...]], frozenset[str]]
    noun: str


@dataclass(frozen=True)
class Rule:
    """One accessory category, the attribute that decides fit in it, and who it fits."""

    name: str
    leaf: str  # the accessory's category (its leaf name)
    key: str  # the accessory's fit attribute
    noun: str  # the accessory as the shopper asks for it
    devices: Callable[[tuple[str, ...]], list[Device]]  # named devices, given the accessory's possible values
    owned: Owned | None = None
    extras: tuple[str, ...] = ()  # accessory attributes the shopper may ask for besides fit
    required_extra: str = ""  # an attribute always asked for (the part a motorcycle needs)
    ask: str = "I have {device}. Find me {noun} that fits it."


def _identity(say: str) -> Callable[[tuple[str, ...]], list[Device]]:
    return lambda values: [Device(say.format(v=v), frozenset({v})) for v in values]


def _models(values: tuple[str, ...]) -> list[Device]:
    """Devices named by the model the accessory is made for (a phone, a motorcycle)."""
    return [Device(v, frozenset({v})) for v in values]


def _phone_model(value: str, values: tuple[str, ...]) -> frozenset[str]:
    return frozenset({value}) & frozenset(values)


def _cable_fits(port: str, values: tuple[str, ...]) -> frozenset[str]:
    return frozenset(v for v in values if v.endswith(f" to {port}"))


def _cables(values: tuple[str, ...]) -> list[Device]:
    out = []
    for phone, port in PHONE_PORTS.items():
        for end, charger in CHARGER_ENDS.items():
            wanted = f"{end} to {port}"
            if wanted in values:
                out.append(Device(phone, frozenset({wanted}), "derived", f" and want to charge it from {charger}"))
    return out


def _owned_cable(model: str, values: tuple[str, ...]) -> frozenset[str]:
    port = PHONE_PORTS.get(model)
    return _cable_fits(port, values) if port else frozenset()


def _map(table: dict[str, str]) -> Callable[[tuple[str, ...]], list[Device]]:
    return lambda values: [Device(k, frozenset({v}), "derived") for k, v in table.items() if v in values]


def _console(platform: str, values: tuple[str, ...]) -> frozenset[str]:
    compat = CONSOLES.get(platform)
    return frozenset({compat}) if compat in values else frozenset()


def _tv_mounts(values: tuple[str, ...]) -> list[Device]:
    out = []
    for size in TV_SIZES:
        fits = frozenset(v for v in values if (r := size_range(v)) and r[0] <= size <= r[1])
        if fits:
            out.append(Device(f"a {size}-inch TV", fits, "derived"))
    return out


def stand_fits(size: float, values: tuple[str, ...]) -> frozenset[str]:
    """The stand classes ``up to N inches`` that hold a laptop of ``size`` inches."""
    return frozenset(v for v in values if (top := inches(v)) is not None and size <= top + 1e-9)


def _laptops(values: tuple[str, ...]) -> list[Device]:
    sizes = (11.6, 13.3, 14.0, 15.6, 16.0, 17.3)
    return [Device(f"a {s:g}-inch laptop", f, "derived") for s in sizes if (f := stand_fits(s, values))]


def _owned_laptop(value: str, values: tuple[str, ...]) -> frozenset[str]:
    size = inches(value)
    return stand_fits(size, values) if size is not None else frozenset()


RULES: tuple[Rule, ...] = (
    Rule(
        "phone_case",
        "Phone Cases",
        "compatible_model",
        "a phone case",
        _models,
        Owned(("iPhones",), "iphone_model", _phone_model, "iPhone"),
        extras=("case_style",),
    ),
    Rule(
        "screen_protector",
        "Screen Protectors",
        "compatible_model",
        "a screen protector",
        _models,
        Owned(("iPhones",), "iphone_model", _phone_model, "iPhone"),
        extras=("protector_type",),
    ),
    Rule(
        "charging_cable",
        "Charging Cables",
        "connector",
        "a charging cable",
        _cables,
        Owned(("iPhones",), "iphone_model", _owned_cable, "iPhone"),
        extras=("charging_speed",),
        ask="I have {device}{detail}. Find me {noun} that fits.",
    ),
    Rule(
        "controller",
        "Controllers",
        "controller_compat",
        "a game controller",
        _map(CONSOLES),
        Owned(("Gaming Consoles",), "platform", _console, "console"),
        ask="I have {device}. Find me {noun} that works with it.",
    ),
    Rule(
        "tv_mount",
        "TV Mounts & Brackets",
        "fits_tv",
        "a TV wall mount",
        _tv_mounts,
        extras=("mount_motion",),
        ask="I have {device}. Find me {noun} made for its size.",
    ),
    Rule(
        "laptop_stand",
        "Laptop Stands & Sleeves",
        "fits_laptop",
        "a laptop stand",
        _laptops,
        Owned(LAPTOP_LEAVES, "screen_size", _owned_laptop, "laptop"),
        extras=("stand_adjustment",),
        ask="I have {device}. Find me {noun} big enough for it.",
    ),
    Rule(
        "camera_lens",
        "Camera Lenses",
        "mount",
        "a lens",
        _map(CAMERAS),
        extras=("focal_length",),
        ask="I shoot with {device}. Find me {noun} that mounts on it.",
    ),
    Rule(
        "watch_strap",
        "Watch Straps & Bands",
        "strap_width",
        "a watch band",
        _map(WATCHES),
        extras=("strap_material", "strap_clasp"),
    ),
    Rule(
        "moto_part",
        "Motorcycle Parts",
        "moto_model",
        "a replacement part",
        _models,
        required_extra="moto_part",
        ask="I ride {device}. Find me {part} made for it.",
    ),
    Rule(
        "car_bulb",
        "Car Lights",
        "bulb_socket",
        "a headlight bulb",
        _identity("a car whose headlights take {v} bulbs"),
        extras=("headlight_color",),
    ),
    Rule(
        "wiper",
        "Wiper Blades",
        "wiper_length",
        "a wiper blade",
        _identity("a car whose wipers are {v} long"),
        extras=("wiper_frame",),
    ),
    Rule(
        "car_tire", "Tires & Wheels", "tire_size", "a tire", _identity("a car on {v} tires"), extras=("tire_terrain",)
    ),
    Rule(
        "moto_tire",
        "Motorcycle Tires",
        "moto_tire_size",
        "a tire",
        _identity("a scooter on {v} tires"),
        extras=("tread_pattern",),
    ),
    Rule(
        "engine_oil",
        "Engine Oil & Fluids",
        "viscosity",
        "engine oil",
        _identity("a car whose manual calls for {v} oil"),
        extras=("oil_type",),
    ),
    Rule(
        "car_battery",
        "Car Batteries",
        "battery_model",
        "a car battery",
        _identity("a car that takes a battery of size {v}"),
        extras=("battery_tech",),
    ),
    Rule(
        "ram",
        "RAM",
        "memory_type",
        "a RAM module",
        _identity("a computer whose memory slots take {v}"),
        extras=("ram_speed",),
    ),
    Rule(
        "led_bulb",
        "LED Bulbs & Tubes",
        "bulb_base",
        "an LED bulb",
        _identity("a lamp whose socket is {v}"),
        extras=("color_temperature",),
    ),
)
BY_NAME: dict[str, Rule] = {r.name: r for r in RULES}


def fit_values(product: dict[str, Any], key: str) -> list[str]:
    """A product's values for ``key``: its attribute values, then its SKU options' values, each once, in order."""
    attributes = product.get("attributes") or {}
    options = product.get("sku_options") or {}
    values = [str(v) for v in attributes.get(key) or [] if isinstance(v, str)]
    values += [str(o[key]) for o in options.values() if isinstance(o, dict) and isinstance(o.get(key), str)]
    return list(dict.fromkeys(values))
