"""What makes a generated session hard (``docs/sessions.md``, "Difficulty"): each feature the generator can give a
problem, what it adds to the problem's difficulty, and the default mix of levels.

- ``vague``: the opening names only the kind of product; every other need is asked for, read or refused;
- ``veto``: the shopper refuses one product that meets every rule ("I had that exact one before"), and it must not
  return;
- a persona (`Style.persona`): ``sceptical`` (confirms only a product whose price and a known value are quoted),
  ``low_patience`` (leaves after two unproductive turns), ``efficiency_first`` (answers only as many questions as
  it has needs to tell, and leaves sooner);
- several items: ``intents`` (after the first item is settled the shopper brings up one or two more things, each
  its own search, needs and change of mind) or a ``bundle`` (the opening says how many things and one budget for
  all of them together);
- ``late``: the first item's change of mind comes only once the shopper is on the last item, so a product settled
  earlier may no longer fit and must be replaced.

A level is read from the points of a problem's features (`level`); the generator first draws a level from `MIX`,
then features that make it (`draw`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Literal

from arena.catalog.rng import Rng
from arena.tasks.base import Difficulty

Persona = Literal["plain", "low_patience", "sceptical", "efficiency_first"]
#: the share of each level in a generated set (the default mix)
MIX: dict[Difficulty, float] = {"easy": 0.25, "medium": 0.35, "hard": 0.40}
#: the points at which a problem is medium, and hard
MEDIUM, HARD = 2, 4


@dataclass(frozen=True)
class Features:
    items: int = 1
    bundle: bool = False
    vague: bool = False
    late: bool = False
    veto: bool = False
    persona: Persona = "plain"

    @property
    def points(self) -> int:
        return (
            int(self.vague)
            + int(self.veto)
            + int(self.persona != "plain")
            + 2 * (self.items - 1)
            + int(self.bundle)
            + int(self.late)
        )

    def names(self) -> list[str]:
        """The features by name, as stored with a problem (``meta.features``)."""
        out = [name for name in ("vague", "veto", "late") if getattr(self, name)]
        if self.items > 1:
            out.append(f"bundle of {self.items}" if self.bundle else f"{self.items} intents")
        if self.persona != "plain":
            out.append(self.persona)
        return out


def level(features: Features) -> Difficulty:
    points = features.points
    return "easy" if points < MEDIUM else "medium" if points < HARD else "hard"


#: the step between the levels of consecutive problems (the golden ratio's fraction: any run of problems holds each
#: level close to its share of the mix)
STEP = 0.6180339887498949


def pick_level(index: int, offset: float, mix: dict[Difficulty, float] | None = None) -> Difficulty:
    """The level of the ``index``-th problem of a set (``offset`` in [0, 1), drawn once per set)."""
    mix = mix or MIX
    u, total = ((offset + index * STEP) % 1.0) * sum(mix.values()), 0.0
    for name, share in mix.items():
        total += share
        if u < total:
            return name
    return "hard"


def _persona(rng: Rng, choices: tuple[Persona, ...]) -> Persona:
    return rng.pick(list(choices))


def draw(target: Difficulty, rng: Rng) -> Features:
    """Features whose points make ``target``."""
    if target == "easy":
        one = rng.pick(["none", "none", "vague", "sceptical"])
        return Features(vague=one == "vague", persona="sceptical" if one == "sceptical" else "plain")
    if target == "medium":
        if rng.chance(0.6):
            return Features(items=2, vague=rng.chance(0.5))
        vague, veto = rng.chance(0.6), rng.chance(0.6)
        mood = _persona(rng, ("low_patience", "efficiency_first", "sceptical"))
        if not (vague or veto):
            vague = True
        return Features(vague=vague, veto=veto, persona=mood)
    items = 2 + rng.below(2)
    bundle, late = rng.chance(0.5), rng.chance(0.6)
    persona: Persona = _persona(rng, ("plain", "low_patience", "efficiency_first", "sceptical"))
    out = Features(items=items, bundle=bundle, late=late, persona=persona, veto=rng.chance(0.3))
    if out.points < HARD:
        out = replace(out, late=True)
    if out.points < HARD:
        out = replace(out, bundle=True)
    return out
