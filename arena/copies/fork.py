"""The fork rule, applied to a race's standings before they are weighed: a fork is not a copy, but it must earn its
place. A later submission similar to an earlier one (by code or by behaviour) earns only if its score beats the
earlier one's standing beyond noise, that is above the top of the earlier one's 95% interval (the intervals of the
pooled standings, `arena.pooling`); otherwise it is a copy: it earns nothing and the earlier one keeps its rank.

The templates count as earlier ones: the miners similar to one template are judged against the earliest of them
(the templates are not raced, so the earliest miner to race one stands for it), each later one by the same rule.

Pure and deterministic: every pooled validator holds the same standings, the same bundles (content-addressed, so the
same fingerprints) and the same trajectories (the results bundles), so each reaches the same verdicts.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from arena.weights import MinerResult

Kind = Literal["code", "behaviour", "answers"]


class Similar(BaseModel):
    """Evidence that two agents are alike: ``a`` and ``b`` are hotkeys, or ``a`` a template's name."""

    model_config = ConfigDict(frozen=True)

    a: str
    b: str
    kind: Kind
    similarity: float
    problems: tuple[str, ...] = ()


class CopyVerdict(BaseModel):
    """What the fork rule found of one later miner similar to an earlier one."""

    model_config = ConfigDict(frozen=True)

    hotkey: str
    copy_of: str
    via: str | None = None  # the template both are similar to, when that is the evidence
    kind: Kind
    similarity: float
    problems: tuple[str, ...] = ()
    score: float
    earlier_score: float
    earlier_high: float
    copy_: bool

    @property
    def reason(self) -> str:
        through = f" (both close to {self.via})" if self.via else ""
        evidence = f"{self.kind} similarity {self.similarity:.3f}{through}"
        if self.problems:
            evidence += f" on {len(self.problems)} problem(s)"
        if self.copy_:
            return (
                f"copy of {self.copy_of}: {evidence}; its score {self.score:.4f} does not beat the earlier's "
                f"{self.earlier_score:.4f} beyond noise (interval top {self.earlier_high:.4f}): earns nothing"
            )
        return (
            f"fork of {self.copy_of}: {evidence}; its score {self.score:.4f} beats the earlier's interval top "
            f"{self.earlier_high:.4f}: earns"
        )


#: x -> y -> the block since which miner x has held the code miner y raced (y a hotkey or a template's name): the
#: earliest of x's submissions holding most of what x's and y's raced agents share (`arena.copies.dating`)
Dates = Mapping[str, Mapping[str, int]]


class Order:
    """Which of two agents is the earlier, pair by pair: each dated by the block since which it has held the code the
    two share (``dates``: an honest author or updater keeps its place ahead of a copy of its work, whatever either
    committed before that does not hold it), else by its commitment block; then its hotkey. Against a template, by
    the block since which it has held the template's code."""

    def __init__(self, results: Sequence[MinerResult], dates: Dates | None = None) -> None:
        self.blocks = {r.hotkey: r.commitment_block for r in results}
        self.dates = dates or {}

    def key(self, x: str, y: str) -> tuple[int, str]:
        """``x``'s place against ``y`` (a hotkey or a template's name)."""
        block = self.blocks[x]
        held = self.dates.get(x, {}).get(y)
        return (min(held, block) if held is not None else block, x)

    def first(self, x: str, y: str) -> tuple[str, str]:
        """(earlier, later) of two miners."""
        return (x, y) if self.key(x, y) < self.key(y, x) else (y, x)


def _pairs(
    results: Sequence[MinerResult], evidence: Sequence[Similar], order: Order
) -> dict[tuple[str, str], tuple[Similar, str]]:
    """(earlier, later) hotkeys -> the strongest evidence (and the template it went through, or "")."""
    by = {r.hotkey: r for r in results}
    out: dict[tuple[str, str], tuple[Similar, str]] = {}

    def keep(x: str, y: str, ev: Similar, via: str) -> None:
        if x == y or x not in by or y not in by:
            return
        key = order.first(x, y)
        best = out.get(key)
        if best is None or (ev.similarity, ev.kind, ev.problems) > (best[0].similarity, best[0].kind, best[0].problems):
            out[key] = (ev, via)

    templates: dict[str, list[Similar]] = {}
    for ev in evidence:
        if ev.a in by:
            keep(ev.a, ev.b, ev, "")
        else:
            templates.setdefault(ev.a, []).append(ev)
    for name, close in sorted(templates.items()):
        members = sorted((e for e in close if e.b in by), key=lambda e: order.key(e.b, name))
        for ev in members[1:]:  # the earliest to hold the template stands for it
            keep(members[0].b, ev.b, ev, name)
    return out


def fork_verdicts(
    results: Sequence[MinerResult], evidence: Sequence[Similar], dates: Dates | None = None
) -> list[CopyVerdict]:
    """One verdict per miner with an earlier similar one (`Order`, pair by pair). It earns only if it beats every
    earlier one it is similar to beyond noise; a copy's verdict names the most similar one it did not beat, a fork's
    the most similar one."""
    by = {r.hotkey: r for r in results}
    order = Order(results, dates)
    pairs = _pairs(results, evidence, order)
    verdicts = []
    for later in sorted(results, key=lambda r: (r.commitment_block, r.hotkey)):
        mine = sorted(
            ((by[e], ev, via) for (e, late), (ev, via) in pairs.items() if late == later.hotkey),
            key=lambda t: (-t[1].similarity, order.key(t[0].hotkey, later.hotkey)),
        )
        if not mine:
            continue
        failed = [t for t in mine if later.score <= _top(t[0])]
        earlier, ev, via = (failed or mine)[0]
        verdicts.append(
            CopyVerdict(
                hotkey=later.hotkey,
                copy_of=earlier.hotkey,
                via=via or None,
                kind=ev.kind,
                similarity=ev.similarity,
                problems=ev.problems,
                score=later.score,
                earlier_score=earlier.score,
                earlier_high=_top(earlier),
                copy_=bool(failed),
            )
        )
    return verdicts


def _top(r: MinerResult) -> float:
    return r.high if r.high is not None else r.score


def without_copies(results: Sequence[MinerResult], verdicts: Sequence[CopyVerdict]) -> list[MinerResult]:
    """The standings the weights come from: the copies' left out (they earn nothing), everyone else as they were."""
    copies = {v.hotkey for v in verdicts if v.copy_}
    return [r for r in results if r.hotkey not in copies]


__all__ = ["CopyVerdict", "Dates", "Order", "Similar", "fork_verdicts", "without_copies"]
