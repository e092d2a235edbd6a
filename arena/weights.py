"""Race results -> weight vector ``{uid: weight}``: pure and deterministic.

Eligible miners are those in the metagraph with a score above 0, ranked by score (descending), then commitment block
(earliest first), then hotkey. A policy gives each rank a share; whatever it does not give goes to ``burn_uid``.
Shares are computed with exact fractions (every float is read as its shortest decimal ``repr``) and rounded to
floats once at the end, so identical inputs give byte-identical vectors in any order on every validator.

- ``top_heavy``: rank 1 gets ``top_share``; ranks 2..``tail_k`` split ``tail_share`` with a linear taper (rank r
  weighs ``tail_k - r + 1``); shares of ranks nobody holds are burnt.
- ``winner_take_all``: rank 1 gets ``1 - burn_share``.
- ``proportional``: ``1 - burn_share`` split in proportion to score.
- ``sn15_top_half``: subnet 15's payout today (ORO ``subnet/validator/weight_distribution.py``, burn >= top regime):
  with N ranked miners and K = floor(N/2), rank 1 gets ``top_share`` (0.25); ranks 2..K get a linear taper of
  K-1, ..., 1 units paid out of the burn share, where the burn uid holds 65535 units (u16 max), so every paid rank
  keeps a small non-zero weight; the burn uid gets the rest.
- ``band``: ``top_heavy``'s shares, but the miners whose score lies inside the leader's 95% interval
  (``low``..``high``) are paid as one band (an overlap of intervals is not enough: a miner with few samples has a
  wide interval that reaches any leader's, and would be paid like it): they stand first (in ranking order) and
  split evenly what ``top_heavy`` gives the ranks they fill; the others follow in ranking order. Ties within noise
  share; an exact tie is still broken by the earlier commitment: a miner whose score equals an earlier band
  member's exactly (what a copied agent scores) is not in the band. A miner without an interval is never in a band,
  so without intervals ``band`` pays as ``top_heavy``.
- ``cost_aware``: ``top_heavy``'s shares, miners of equal score ranked by their cost per solved problem, the cheaper
  first (a shadow policy: each validator measures the cost itself).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, model_validator

Share = Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]


def _exact(value: float) -> Fraction:
    """The decimal a float was written as (``0.3`` -> 3/10), so shares add up the way people wrote them."""
    return Fraction(repr(float(value)))


class MinerResult(BaseModel):
    """One miner's race score, the chain block of its submission's commitment and, optionally, the score's 95%
    interval (read by the ``band`` policy only)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hotkey: str = Field(min_length=1)
    score: Annotated[float, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
    commitment_block: int = Field(ge=0)
    low: Share | None = None
    high: Share | None = None
    #: USD its runs' LLM calls cost per problem solved (None: unknown or nothing solved); read by ``cost_aware`` only
    cost_per_solved: Annotated[float, Field(ge=0.0, allow_inf_nan=False)] | None = None

    @model_validator(mode="after")
    def _interval(self) -> MinerResult:
        if (self.low is None) != (self.high is None):
            raise ValueError("low and high come together: give both ends of the interval or neither")
        if self.low is not None and self.high is not None and self.low > self.high:
            raise ValueError(f"low must be at most high (got {self.low} > {self.high})")
        return self


class _Policy(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    burn_uid: int = Field(default=0, ge=0, le=65535)

    def shares(self, scores: Sequence[Fraction]) -> list[Fraction]:
        """Each rank's share, given the ranked eligible scores (all > 0). The rest is burnt."""
        raise NotImplementedError

    def pay(self, ranked: Sequence[MinerResult]) -> list[tuple[MinerResult, Fraction]]:
        """Each ranked eligible miner with its share (by default its rank's share)."""
        return list(zip(ranked, self.shares([_exact(r.score) for r in ranked]), strict=True))


class _TopTail(_Policy):
    """The shares `top_heavy` pays and `band` starts from: rank 1 ``top_share``, ranks 2..``tail_k`` a taper."""

    top_share: Share = 0.5
    tail_share: Share = 0.3
    tail_k: int = Field(default=5, ge=1, le=65536)

    @model_validator(mode="after")
    def _fits(self) -> _TopTail:
        if _exact(self.top_share) + _exact(self.tail_share) > 1:
            raise ValueError(f"top_share + tail_share must be at most 1 (got {self.top_share} + {self.tail_share})")
        return self

    def shares(self, scores: Sequence[Fraction]) -> list[Fraction]:
        if not scores:
            return []
        k = self.tail_k
        out = [_exact(self.top_share)]
        if k > 1:
            # ranks 2..k weigh k-1, k-2, ..., 1; the weights sum to k(k-1)/2
            unit = _exact(self.tail_share) / Fraction(k * (k - 1), 2)
            out += [unit * (k - rank + 1) for rank in range(2, min(len(scores), k) + 1)]
        return out + [Fraction(0)] * (len(scores) - len(out))


class TopHeavy(_TopTail):
    """Rank 1 gets ``top_share``; ranks 2..``tail_k`` split ``tail_share``, tapering linearly; the rest is burnt."""

    name: Literal["top_heavy"] = "top_heavy"


class WinnerTakeAll(_Policy):
    """Rank 1 gets ``1 - burn_share``; the burn uid gets ``burn_share``."""

    name: Literal["winner_take_all"] = "winner_take_all"
    burn_share: Share = 0.0

    def shares(self, scores: Sequence[Fraction]) -> list[Fraction]:
        if not scores:
            return []
        return [1 - _exact(self.burn_share)] + [Fraction(0)] * (len(scores) - 1)


class Proportional(_Policy):
    """``1 - burn_share`` split in proportion to score; the burn uid gets ``burn_share``."""

    name: Literal["proportional"] = "proportional"
    burn_share: Share = 0.0

    def shares(self, scores: Sequence[Fraction]) -> list[Fraction]:
        total = sum(scores, Fraction(0))
        if not total:
            return [Fraction(0)] * len(scores)
        pool = 1 - _exact(self.burn_share)
        return [pool * score / total for score in scores]


class SN15TopHalf(_Policy):
    """Rank 1 gets ``top_share``; ranks 2..floor(N/2) a taper of K-1..1 units out of the burn share, against the
    burn uid's 65535 units (subnet 15's u16 layout); the rest is burnt."""

    name: Literal["sn15_top_half"] = "sn15_top_half"
    top_share: Annotated[float, Field(ge=0.0, le=0.5, allow_inf_nan=False)] = 0.25

    def shares(self, scores: Sequence[Fraction]) -> list[Fraction]:
        if not scores:
            return []
        k = len(scores) // 2
        tail = (k - 1) * k // 2 if k >= 2 else 0
        # the burn share (1 - top) holds the burn uid's 65535 units and the tail's units
        unit = (1 - _exact(self.top_share)) / (65535 + tail)
        out = [_exact(self.top_share)] + [unit * (k + 1 - rank) for rank in range(2, k + 1)]
        return out + [Fraction(0)] * (len(scores) - len(out))


class Band(_TopTail):
    """``top_heavy``'s shares, the miners within noise of the leader paid as one band (see the module docstring)."""

    name: Literal["band"] = "band"

    def pay(self, ranked: Sequence[MinerResult]) -> list[tuple[MinerResult, Fraction]]:
        band = within_noise(ranked)
        order = band + [r for r in ranked if r not in band]
        shares = self.shares([_exact(r.score) for r in order])
        if len(band) > 1:
            even = sum(shares[: len(band)], Fraction(0)) / len(band)
            shares[: len(band)] = [even] * len(band)
        return list(zip(order, shares, strict=True))


def within_noise(ranked: Sequence[MinerResult]) -> list[MinerResult]:
    """The band of ranked miners: the leader and every miner (with an interval) whose score lies inside the leader's
    interval, save one whose score exactly equals an earlier member's (an exact tie goes to the earlier
    commitment). Empty when the leader has no interval; one miner alone is no band."""
    if not ranked or ranked[0].low is None or ranked[0].high is None:
        return []
    floor, ceiling = _exact(ranked[0].low), _exact(ranked[0].high)
    band: list[MinerResult] = []
    for result in ranked:
        if result.high is None or not floor <= _exact(result.score) <= ceiling:
            continue
        if any(_exact(member.score) == _exact(result.score) for member in band):
            continue
        band.append(result)
    return band if len(band) > 1 else []


class CostAware(_TopTail):
    """``top_heavy``'s shares, ranked by score, then by cost per solved problem (the cheaper first; unknown last),
    then commitment and hotkey: a shadow policy to try cost-awareness before switching (the cost is this validator's
    own measure, so validators may disagree on it)."""

    name: Literal["cost_aware"] = "cost_aware"

    def pay(self, ranked: Sequence[MinerResult]) -> list[tuple[MinerResult, Fraction]]:
        def key(r: MinerResult) -> tuple[Fraction, int, Fraction, int, str]:
            cost = r.cost_per_solved
            return -_exact(r.score), cost is None, _exact(cost or 0.0), r.commitment_block, r.hotkey

        order = sorted(ranked, key=key)
        return list(zip(order, self.shares([_exact(r.score) for r in order]), strict=True))


AnyPolicy = TopHeavy | WinnerTakeAll | Proportional | SN15TopHalf | Band | CostAware
WeightPolicy = Annotated[AnyPolicy, Field(discriminator="name")]
"""A weight policy, told apart by ``name``; a settings field can be typed with it directly."""

POLICIES: dict[str, type[AnyPolicy]] = {
    "top_heavy": TopHeavy,
    "winner_take_all": WinnerTakeAll,
    "proportional": Proportional,
    "sn15_top_half": SN15TopHalf,
    "band": Band,
    "cost_aware": CostAware,
}

_ADAPTER: TypeAdapter[AnyPolicy] = TypeAdapter(WeightPolicy)


def parse_policy(name: str, **params: Any) -> AnyPolicy:
    """Build a policy from its name and parameters; raises ``ValueError`` with one readable line if either is bad."""
    if name not in POLICIES:
        raise ValueError(f"unknown weight policy {name!r}; choose one of: {', '.join(sorted(POLICIES))}")
    try:
        return _ADAPTER.validate_python({**params, "name": name})
    except ValidationError as exc:
        problems = "; ".join(
            (f"{'.'.join(str(p) for p in err['loc'][1:])}: " if len(err["loc"]) > 1 else "")
            + (err["msg"].removeprefix("Value error, ") if err["type"] != "extra_forbidden" else "unknown parameter")
            for err in exc.errors()
        )
        raise ValueError(f"invalid weight policy {name!r}: {problems}") from None


def _key(result: MinerResult) -> tuple[Fraction, int, str]:
    return -_exact(result.score), result.commitment_block, result.hotkey


def ranking(results: Sequence[MinerResult], uids: Mapping[str, int]) -> list[MinerResult]:
    """The eligible miners (in the metagraph, score above 0), best first; ties go to the earlier commitment, then
    the smaller hotkey. Raises ``ValueError`` if a hotkey appears twice."""
    seen: set[str] = set()
    for result in results:
        if result.hotkey in seen:
            raise ValueError(f"hotkey {result.hotkey!r} has more than one race result")
        seen.add(result.hotkey)
    return sorted((r for r in results if r.hotkey in uids and r.score > 0), key=_key)


def describe_ties(results: Sequence[MinerResult], uids: Mapping[str, int], name: Any = None) -> list[str]:
    """One line per group of ranked miners with the same score, in the order the tie was broken (the earlier
    commitment block, then the smaller hotkey); one line saying there is none otherwise. `name(hotkey)` labels a
    miner (default: its hotkey)."""
    label = name or (lambda hotkey: hotkey)
    groups: dict[Fraction, list[MinerResult]] = {}
    for result in ranking(results, uids):
        groups.setdefault(_exact(result.score), []).append(result)
    lines = [
        f"tie at score {float(score):.4f}: "
        + " > ".join(
            f"{label(r.hotkey)} (uid {uids[r.hotkey]}, committed at block {r.commitment_block})" for r in group
        )
        + "; broken by the earlier commitment, then the smaller hotkey"
        for score, group in groups.items()
        if len(group) > 1
    ]
    return lines or [
        "no ties: every ranked miner has its own score (a tie would go to the earlier commitment, then "
        "the smaller hotkey)"
    ]


def compute_weights(results: Sequence[MinerResult], uids: Mapping[str, int], policy: AnyPolicy) -> dict[int, float]:
    """The weight vector: uid -> weight, sorted by uid, zeros left out, summing to 1. With nobody eligible the burn
    uid gets everything; a burn uid that is also a miner's uid gets both."""
    exact: dict[int, Fraction] = {}
    for result, share in policy.pay(ranking(results, uids)):
        if share < 0:
            raise AssertionError(f"policy {policy.name} gave a negative share")
        uid = uids[result.hotkey]
        if isinstance(uid, bool) or not isinstance(uid, int) or not 0 <= uid <= 65535:
            raise ValueError(f"uid of hotkey {result.hotkey!r} must be an int in 0..65535, got {uid!r}")
        exact[uid] = exact.get(uid, Fraction(0)) + share
    burn = 1 - sum(exact.values(), Fraction(0))
    if burn < 0:
        raise AssertionError(f"policy {policy.name} gave away more than everything")
    exact[policy.burn_uid] = exact.get(policy.burn_uid, Fraction(0)) + burn
    # a share too small for a float (it rounds to 0.0) is left out like any other zero
    rounded = ((uid, float(weight)) for uid, weight in sorted(exact.items()))
    return {uid: weight for uid, weight in rounded if weight > 0}
