"""Compatibility problems drawn from a catalog, deterministic by (catalog digest, seed).

One problem: a rule (`arena.tasks.compatibility.fit.RULES`) whose accessory category the catalog stocks, a target
accessory in it, a device that target fits (named, derived or a device product of the catalog), sometimes one more
attribute of the target the shopper wants; the gold is every product of the category meeting the request. A draft
is kept only if its self-check passes (`arena.tasks.compatibility.selfcheck`): the gold scores, a product that
almost fits exists and fails, the gold is at most half of what else the category offers for the same wants.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from arena.catalog.rng import Rng
from arena.catalog.world import leaves
from arena.tasks.base import draw_each
from arena.tasks.compatibility.fit import RULES, Device, Rule, fit_values
from arena.tasks.compatibility.problem import TASK, CompatProblem, Fit, OwnedDevice
from arena.tasks.compatibility.selfcheck import check_problem
from arena.tasks.compatibility.stock import Pool, leaf_of, pools

GENERATOR_VERSION = "shoparena-compat-gen/1"
#: draws per requested problem before it is given up
ATTEMPTS = 20
#: draws that keep the problem's rule (its turn) before other rules are tried
SAME_RULE_ATTEMPTS = 6
#: how often a device listed in the catalog is used, when the rule allows one
OWNED_SHARE = 0.5
#: how many turns a rule whose device must be reasoned about (derived or looked up) takes for one of a rule whose
#: device is named by its fit value, so most problems ask for reasoning about fit
REASONING_TURNS = 3
#: how often the shopper asks for one more attribute (when the rule has one to ask for)
WANT_SHARE = 0.5
DIFFICULTY = {"named": "easy", "derived": "medium", "owned": "hard"}

_UPPER = {"ii", "iv", "se", "oled", "eos", "om-d", "e-m10", "zv-e10", "x-t5", "x-s20", "led", "ram", "usb-c"}
_CASED = {
    "iphone": "iPhone",
    "playstation": "PlayStation",
    "ps5": "PS5",
    "ddr4": "DDR4",
    "ddr5": "DDR5",
    "ddr3l": "DDR3L",
    "so-dimm": "SO-DIMM",
}


class Undrawable(Exception):
    """This draw cannot make a problem (one line why)."""


@lru_cache(maxsize=1)
def _paths() -> dict[str, tuple[str, dict[str, tuple[str, ...]]]]:
    """Leaf name -> (category path, attribute schema), for the leaves the rules read (their names are unique)."""
    return {leaf.name: (leaf.path, leaf.schema) for leaf in leaves()}


def display(name: str) -> str:
    """A device's name as a shopper writes it: ``iphone 15 pro`` -> ``iPhone 15 Pro``."""
    words = []
    for word in name.split(" "):
        if word in _CASED:
            words.append(_CASED[word])
        elif word in _UPPER:
            words.append(word.upper())
        else:
            words.append(word[:1].upper() + word[1:])
    return " ".join(words)


def _owned_devices(
    rule: Rule, by_leaf: dict[str, Pool], values: tuple[str, ...]
) -> list[tuple[Device, dict[str, Any]]]:
    """The rule's devices listed in the catalog (one unambiguous value of the device's attribute), each with its
    listing."""
    if rule.owned is None:
        return []
    out = []
    for leaf in rule.owned.leaves:
        for product in by_leaf.get(leaf, []):
            own = fit_values(product, rule.owned.key)
            fits = rule.owned.fits(own[0], values) if len(own) == 1 else frozenset()
            if fits:
                out.append((Device(own[0], fits, "owned"), product))
    return out


def _reasons(rule: Rule) -> bool:
    """Whether the rule's devices are derived or looked up (not named by the accessory's own value)."""
    values = tuple(_paths()[rule.leaf][1].get(rule.key, ()))
    return rule.owned is not None or any(d.kind == "derived" for d in rule.devices(values))


def _device_phrase(device: Device, product: dict[str, Any] | None, noun: str) -> str:
    """How the shopper names the device: a phrase of the rule's own, a named device with its article, or the
    listing they bought."""
    if product is not None:
        return f'the {noun} I bought, product {product["product_id"]} ("{product["title"]}")'
    if device.name.startswith(("a ", "an ")):
        return device.name
    name = display(device.name)
    return f"{_article(name)} {name}"


def _article(name: str) -> str:
    return "an" if name[:1].lower() in "aeio" or name.startswith("Xbox") else "a"


def _wants(rule: Rule, target: dict[str, Any], rng: Rng) -> dict[str, list[str]]:
    keys = [rule.required_extra] if rule.required_extra else []
    if not keys and rule.extras and rng.chance(WANT_SHARE):
        keys = [rng.pick(rule.extras)]
    out = {}
    for key in keys:
        own = (target.get("attributes") or {}).get(key) or []
        if not own:
            raise Undrawable(f"the target has no {key}")
        out[key] = [str(own[0])]
    return out


def _query(rule: Rule, device: Device, phrase: str, wants: dict[str, list[str]]) -> str:
    part = wants.get(rule.required_extra, [""])[0] if rule.required_extra else ""
    part = part if part.endswith("s") else f"{_article(part)} {part}"
    text = rule.ask.format(device=phrase, detail=device.detail, noun=rule.noun, part=part)
    for key, values in wants.items():
        if key != rule.required_extra:
            text += f" I'd like its {key.replace('_', ' ')} to be {values[0]}."
    return text


def draft(rule: Rule, by_leaf: dict[str, Pool], rng: Rng) -> CompatProblem:
    """One unchecked problem for ``rule`` (raises `Undrawable`)."""
    path, schema = _paths()[rule.leaf]
    values = tuple(schema.get(rule.key, ()))
    stock = [p for p in by_leaf.get(rule.leaf, []) if fit_values(p, rule.key)]
    if len(stock) < 2:
        raise Undrawable(f"the catalog has {len(stock)} {rule.leaf} listing(s) with a {rule.key}")
    target = rng.pick(stock)
    offered = set(fit_values(target, rule.key))
    named = [d for d in rule.devices(values) if d.fits & offered]
    owned = [(d, p) for d, p in _owned_devices(rule, by_leaf, values) if d.fits & offered]
    product: dict[str, Any] | None = None
    if owned and (not named or rng.chance(OWNED_SHARE)):
        device, product = rng.pick(owned)
    elif named:
        device = rng.pick(named)
    else:
        raise Undrawable(f"no device fits the drawn {rule.leaf} listing")
    wants = _wants(rule, target, rng)
    noun = rule.owned.noun if rule.owned else ""
    phrase = _device_phrase(device, product, noun)
    query = _query(rule, device, phrase, wants)
    gold = [str(p["product_id"]) for p in stock if _meets(p, rule.key, device.fits, wants)]
    return CompatProblem(
        problem_id="draft",
        task=TASK,
        query=query,
        difficulty=DIFFICULTY[device.kind],
        device=OwnedDevice(
            name=phrase if product is None else f"product {product['product_id']}",
            kind=device.kind,
            product_id=None if product is None else str(product["product_id"]),
            key=None if rule.owned is None or product is None else rule.owned.key,
            value=device.name if product is not None else None,
        ),
        fit=Fit(rule=rule.name, category=path, noun=rule.noun, key=rule.key, values=sorted(device.fits), wants=wants),
        gold=gold,
    )


def _meets(product: dict[str, Any], key: str, fits: frozenset[str], wants: dict[str, list[str]]) -> bool:
    if not set(fit_values(product, key)) & fits:
        return False
    return all(set(fit_values(product, k)) & set(v) for k, v in wants.items())


@dataclass
class Report:
    """What a generation run kept, and why it threw the rest away."""

    problems: list[CompatProblem] = field(default_factory=list)
    attempts: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    given_up: list[str] = field(default_factory=list)
    by_rule: Counter[str] = field(default_factory=Counter)

    def summary(self) -> dict[str, Any]:
        return {
            "kept": len(self.problems),
            "attempts": self.attempts,
            "rejected": dict(sorted(self.rejected.items())),
            "by_rule": dict(sorted(self.by_rule.items())),
            "given_up": self.given_up,
        }


def _problem_id(seed: int, digest: str, index: int) -> str:
    return "gen-compat-" + hashlib.sha256(f"compatibility:{seed}:{digest}:{index}".encode()).hexdigest()[:12]


def generate_report(catalog: Any, n: int, seed: int = 0, *, progress: Callable[[int], None] | None = None) -> Report:
    """Up to ``n`` self-checked problems (fewer when every attempt for one fails), deterministic by seed; the rules
    take turns, each drawing only from what the catalog stocks."""
    if n < 1:
        raise ValueError(f"n must be at least 1, got {n}")
    by_leaf = pools(catalog)
    stocked = [r for r in RULES if sum(1 for p in by_leaf[r.leaf] if fit_values(p, r.key)) >= 2]
    reasoning = [r for r in stocked if _reasons(r)]
    usable = stocked + reasoning * (REASONING_TURNS - 1)  # every rule has a turn before any has its second
    Rng("compatibility-turns", catalog.digest, seed).shuffle(usable)
    report = Report()
    if not usable:
        report.given_up = [f"problem {i}: the catalog stocks no accessory of any fit rule" for i in range(n)]
        return report
    asked: set[str] = set()

    def draw(index: int, attempt: int) -> str | None:
        report.attempts += 1
        rng = Rng("compatibility", catalog.digest, seed, index, attempt)
        turn = index if attempt < SAME_RULE_ATTEMPTS else index + 1 + rng.below(len(usable) - 1 or 1)
        rule = usable[turn % len(usable)]
        try:
            problem = draft(rule, by_leaf, rng)
        except Undrawable as exc:
            report.rejected["draw"] += 1
            return str(exc)
        spec = problem.query
        if spec in asked:
            report.rejected["repeat"] += 1
            return "the same request was drawn before"
        failed = check_problem(problem, by_leaf[leaf_of(problem.fit.category)], catalog.get, by_leaf)
        if failed:
            report.rejected[failed.split(":", 1)[0]] += 1
            return failed
        asked.add(spec)
        report.problems.append(
            problem.model_copy(
                update={
                    "problem_id": _problem_id(seed, catalog.digest, index),
                    "cluster_id": "",
                    "source": f"generated:{GENERATOR_VERSION}:seed={seed}",
                    "meta": {"catalog_digest": catalog.digest, "rule": rule.name, "gold": len(problem.gold)},
                }
            )
        )
        report.by_rule[rule.name] += 1
        return None

    draw_each(n, ATTEMPTS, draw, report.given_up, progress)
    return report
