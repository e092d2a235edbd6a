"""Weight policies (`arena.weights`): property tests (sum, non-negativity, determinism, ties, burn) and worked examples.

The properties check `compute_weights` against an independent exact-fraction model of each policy written here, so a
wrong share formula is caught, not only a vector that fails to sum to 1.
"""

from __future__ import annotations

import json
import math
import random
from fractions import Fraction

import pytest
from bittensor.intents.weights import normalize
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import TypeAdapter, ValidationError

from arena.weights import (
    POLICIES,
    MinerResult,
    Proportional,
    SN15TopHalf,
    TopHeavy,
    WeightPolicy,
    WinnerTakeAll,
    compute_weights,
    parse_policy,
    ranking,
)

U16_MAX = 65535
PROPS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def result(hotkey: str, score: float, block: int = 100) -> MinerResult:
    return MinerResult(hotkey=hotkey, score=score, commitment_block=block)


def exact(value: float) -> Fraction:
    return Fraction(repr(float(value)))


# --- an independent model of the policies ----------------------------------------------------------------------------


def model_shares(policy: TopHeavy | WinnerTakeAll | Proportional, scores: list[Fraction]) -> list[Fraction]:
    """Each rank's exact share as the policy's description says it, written without looking at its code."""
    n = len(scores)
    if isinstance(policy, TopHeavy):
        k = policy.tail_k
        taper_total = sum(range(1, k))  # ranks 2..k weigh k-1, ..., 1
        shares = []
        for rank in range(1, n + 1):
            if rank == 1:
                shares.append(exact(policy.top_share))
            elif rank <= k:
                shares.append(exact(policy.tail_share) * (k - rank + 1) / taper_total)
            else:
                shares.append(Fraction(0))
        return shares
    if isinstance(policy, WinnerTakeAll):
        return [1 - exact(policy.burn_share) if rank == 0 else Fraction(0) for rank in range(n)]
    if isinstance(policy, SN15TopHalf):
        # subnet 15: burn pinned at 65535 u16 units, ranks 2..K = floor(N/2) hold K-1, ..., 1 units, and burn plus
        # tail together are (1 - top) of the vector
        k = n // 2
        units = {rank: k + 1 - rank for rank in range(2, k + 1)}
        unit = (1 - exact(policy.top_share)) / (65535 + sum(units.values()))
        return [exact(policy.top_share) if rank == 1 else unit * units.get(rank, 0) for rank in range(1, n + 1)]
    total = sum(scores, Fraction(0))
    return [(1 - exact(policy.burn_share)) * s / total for s in scores]


def model_vector(
    results: list[MinerResult], uids: dict[str, int], policy: TopHeavy | WinnerTakeAll | Proportional
) -> dict[int, Fraction]:
    eligible = [r for r in results if r.hotkey in uids and r.score > 0]
    eligible.sort(key=lambda r: (-exact(r.score), r.commitment_block, r.hotkey))
    vector: dict[int, Fraction] = {}
    for r, share in zip(eligible, model_shares(policy, [exact(r.score) for r in eligible]), strict=True):
        vector[uids[r.hotkey]] = vector.get(uids[r.hotkey], Fraction(0)) + share
    vector[policy.burn_uid] = vector.get(policy.burn_uid, Fraction(0)) + 1 - sum(vector.values(), Fraction(0))
    return vector


# --- strategies ------------------------------------------------------------------------------------------------------

shares_st = st.one_of(st.sampled_from([0.0, 0.1, 0.25, 0.3, 0.5, 0.7, 1.0]), st.floats(0.0, 1.0))
scores_st = st.one_of(st.sampled_from([0.0, 0.0, 0.25, 0.5, 1.0]), st.floats(0.0, 1.0))
burn_uid_st = st.integers(0, 300)


@st.composite
def top_heavy_st(draw: st.DrawFn) -> TopHeavy:
    top = draw(shares_st)
    tail = draw(shares_st.filter(lambda t: exact(t) + exact(top) <= 1))
    return TopHeavy(top_share=top, tail_share=tail, tail_k=draw(st.integers(1, 12)), burn_uid=draw(burn_uid_st))


policies_st = st.one_of(
    top_heavy_st(),
    st.builds(WinnerTakeAll, burn_share=shares_st, burn_uid=burn_uid_st),
    st.builds(Proportional, burn_share=shares_st, burn_uid=burn_uid_st),
    st.builds(SN15TopHalf, top_share=st.sampled_from([0.0, 0.1, 0.25, 0.5]), burn_uid=burn_uid_st),
)


@st.composite
def races(draw: st.DrawFn) -> tuple[list[MinerResult], dict[str, int]]:
    """Race results (unique hotkeys, many ties) and a metagraph holding some of them plus hotkeys that did not race."""
    hotkeys = draw(st.lists(st.text("abcdef", min_size=1, max_size=3), unique=True, max_size=14))
    results = [result(h, draw(scores_st), draw(st.integers(0, 4))) for h in hotkeys]
    registered = [h for h in hotkeys if draw(st.booleans()) or draw(st.booleans())]
    others = draw(st.lists(st.text("xyz", min_size=1, max_size=3), unique=True, max_size=4))
    uids = draw(
        st.lists(
            st.integers(0, 300),
            unique=True,
            min_size=len(registered) + len(others),
            max_size=len(registered) + len(others),
        )
    )
    return results, dict(zip(registered + others, uids, strict=True))


def shuffled(results: list[MinerResult], uids: dict[str, int], seed: int) -> tuple[list[MinerResult], dict[str, int]]:
    rng = random.Random(seed)
    results = list(results)
    rng.shuffle(results)
    items = list(uids.items())
    rng.shuffle(items)
    return results, dict(items)


# --- properties ------------------------------------------------------------------------------------------------------


@PROPS
@given(races(), policies_st)
def test_vector_is_the_exact_model_rounded_once_and_sums_to_one(race: tuple, policy) -> None:
    results, uids = race
    weights = compute_weights(results, uids, policy)
    model = model_vector(results, uids, policy)

    # the exact computation gives away exactly everything, nothing negative
    assert sum(model.values(), Fraction(0)) == 1
    assert all(share >= 0 for share in model.values())
    # each weight is its exact share rounded to a float once; zeros (exact or after rounding) are left out
    assert weights == {uid: float(share) for uid, share in sorted(model.items()) if float(share) > 0}
    assert list(weights) == sorted(weights)
    # the floats sum to 1 within rounding: one half-ulp per weight at most
    assert math.isclose(math.fsum(weights.values()), 1.0, rel_tol=0, abs_tol=len(weights) * 2.0**-53)
    assert abs(sum(weights.values()) - 1.0) <= 2 * len(weights) * 2.0**-52


@PROPS
@given(races(), policies_st)
def test_weights_are_positive_and_only_on_metagraph_or_burn_uids(race: tuple, policy) -> None:
    results, uids = race
    weights = compute_weights(results, uids, policy)
    assert weights, "a vector always has somewhere to go"
    assert all(isinstance(uid, int) and isinstance(w, float) for uid, w in weights.items())
    assert all(0 < w <= 1 for w in weights.values())
    assert set(weights) <= set(uids.values()) | {policy.burn_uid}
    # miners not in the metagraph and zero scores get nothing (uids are distinct in these races)
    paid = {uids[r.hotkey] for r in results if r.hotkey in uids and r.score > 0}
    assert set(weights) - {policy.burn_uid} <= paid


@PROPS
@given(races(), policies_st, st.integers(0, 2**32))
def test_same_inputs_in_any_order_give_byte_identical_vectors(race: tuple, policy, seed: int) -> None:
    results, uids = race
    first = compute_weights(results, uids, policy)
    again = compute_weights(*shuffled(results, uids, seed), policy)
    rebuilt = parse_policy(policy.name, **policy.model_dump(exclude={"name"}))
    third = compute_weights(list(reversed(results)), dict(reversed(list(uids.items()))), rebuilt)

    assert json.dumps(first) == json.dumps(again) == json.dumps(third)
    assert repr(first) == repr(again) == repr(third)
    # and after the SDK's u16 normalization, what actually goes on chain
    chain = normalize(list(first), list(first.values()))
    assert chain == normalize(list(again), list(again.values())) == normalize(list(third), list(third.values()))
    assert json.dumps(chain) == json.dumps(normalize(list(again), list(again.values())))
    uids16, values16 = chain
    assert uids16 and max(values16) == U16_MAX
    assert all(0 < v <= U16_MAX for v in values16)
    assert uids16 == sorted(uids16)


@PROPS
@given(races())
def test_ranking_orders_by_score_then_earliest_commitment_then_hotkey(race: tuple) -> None:
    results, uids = race
    ranked = ranking(results, uids)
    assert {r.hotkey for r in ranked} == {r.hotkey for r in results if r.hotkey in uids and r.score > 0}
    for better, worse in zip(ranked, ranked[1:], strict=False):
        assert (
            better.score > worse.score
            or better.score == worse.score
            and better.commitment_block < worse.commitment_block
            or better.score == worse.score
            and better.commitment_block == worse.commitment_block
            and better.hotkey < worse.hotkey
        )


@PROPS
@given(races(), policies_st)
def test_burn_uid_gets_everything_when_nobody_is_eligible(race: tuple, policy) -> None:
    results, uids = race
    nobody = [result(r.hotkey, 0.0, r.commitment_block) for r in results]
    assert compute_weights(nobody, uids, policy) == {policy.burn_uid: 1.0}
    assert compute_weights(results, {}, policy) == {policy.burn_uid: 1.0}
    assert compute_weights([], uids, policy) == {policy.burn_uid: 1.0}


# --- worked examples: top_heavy ---------------------------------------------------------------------------------------

FIVE = [result("h1", 0.9), result("h2", 0.8), result("h3", 0.7), result("h4", 0.6), result("h5", 0.5)]
FIVE_UIDS = {"h1": 11, "h2": 12, "h3": 13, "h4": 14, "h5": 15}


def test_top_heavy_shares_rank_one_then_a_linear_taper_and_burns_the_rest() -> None:
    policy = parse_policy("top_heavy", top_share=0.5, tail_share=0.3, tail_k=4, burn_uid=0)
    # rank 1: 0.5; ranks 2..4 weigh 3, 2, 1 of 0.3; rank 5 is past tail_k; the burn uid gets 1 - 0.8
    assert compute_weights(FIVE, FIVE_UIDS, policy) == {0: 0.2, 11: 0.5, 12: 0.15, 13: 0.1, 14: 0.05}


def test_top_heavy_burns_the_tail_shares_of_ranks_nobody_holds() -> None:
    policy = parse_policy("top_heavy", top_share=0.5, tail_share=0.3, tail_k=4, burn_uid=7)
    assert compute_weights(FIVE[:2], FIVE_UIDS, policy) == {7: 0.35, 11: 0.5, 12: 0.15}
    assert compute_weights(FIVE[:1], FIVE_UIDS, policy) == {7: 0.5, 11: 0.5}


def test_top_heavy_defaults_and_tail_k_one() -> None:
    default = TopHeavy()
    assert (default.top_share, default.tail_share, default.tail_k, default.burn_uid) == (0.5, 0.3, 5, 0)
    # ranks 2..5 weigh 4, 3, 2, 1 of 0.3
    assert compute_weights(FIVE, FIVE_UIDS, default) == {0: 0.2, 11: 0.5, 12: 0.12, 13: 0.09, 14: 0.06, 15: 0.03}
    # tail_k=1: no taper ranks, the whole tail share is burnt
    assert compute_weights(FIVE, FIVE_UIDS, TopHeavy(tail_k=1)) == {0: 0.5, 11: 0.5}


def test_top_heavy_gives_everything_away_when_shares_add_up_to_one() -> None:
    policy = parse_policy("top_heavy", top_share=0.7, tail_share=0.3, tail_k=2, burn_uid=0)
    assert compute_weights(FIVE, FIVE_UIDS, policy) == {11: 0.7, 12: 0.3}


def test_winner_take_all() -> None:
    assert compute_weights(FIVE, FIVE_UIDS, parse_policy("winner_take_all")) == {11: 1.0}
    policy = parse_policy("winner_take_all", burn_share=0.1, burn_uid=3)
    assert compute_weights(FIVE, FIVE_UIDS, policy) == {3: 0.1, 11: 0.9}
    assert compute_weights(FIVE, FIVE_UIDS, parse_policy("winner_take_all", burn_share=1.0)) == {0: 1.0}


def test_proportional() -> None:
    two = [result("a", 0.6), result("b", 0.2), result("c", 0.0)]
    uids = {"a": 1, "b": 2, "c": 3}
    assert compute_weights(two, uids, parse_policy("proportional")) == {1: 0.75, 2: 0.25}
    assert compute_weights(two, uids, parse_policy("proportional", burn_share=0.2, burn_uid=9)) == {
        1: 0.6,
        2: 0.2,
        9: 0.2,
    }


# --- worked examples: ties, metagraph, burn --------------------------------------------------------------------------


def test_ties_go_to_the_earliest_commitment_then_the_smaller_hotkey() -> None:
    results = [
        result("zed", 0.5, block=10),
        result("bob", 0.5, block=20),
        result("amy", 0.5, block=20),
        result("top", 0.9, block=99),
    ]
    uids = {"zed": 1, "bob": 2, "amy": 3, "top": 4}
    assert [r.hotkey for r in ranking(results, uids)] == ["top", "zed", "amy", "bob"]
    policy = parse_policy("top_heavy", top_share=0.4, tail_share=0.6, tail_k=4)
    # zed (earliest) is rank 2 (weighs 3 of 6), amy rank 3 (2), bob rank 4 (1)
    assert compute_weights(results, uids, policy) == {1: 0.3, 2: 0.1, 3: 0.2, 4: 0.4}
    # a full tie on score and block: the smaller hotkey wins it all
    tie = [result("b", 0.5, 7), result("a", 0.5, 7)]
    assert compute_weights(tie, {"a": 5, "b": 6}, WinnerTakeAll()) == {5: 1.0}


def test_equal_scores_tie_exactly_however_the_float_was_produced() -> None:
    # 0.1 + 0.2 is its own float, not 0.3; the float as given is what ranks
    results = [result("a", 0.1 + 0.2, 5), result("b", 0.3, 1)]
    assert [r.hotkey for r in ranking(results, {"a": 1, "b": 2})] == ["a", "b"]


def test_miners_missing_from_the_metagraph_are_dropped() -> None:
    results = [result("gone", 1.0, block=1), result("here", 0.4, block=2)]
    assert compute_weights(results, {"here": 8}, WinnerTakeAll()) == {8: 1.0}
    assert [r.hotkey for r in ranking(results, {"here": 8})] == ["here"]


def test_zero_scores_get_nothing() -> None:
    results = [result("a", 0.0, block=1), result("b", 0.0, block=2)]
    assert compute_weights(results, {"a": 1, "b": 2}, parse_policy("proportional", burn_uid=4)) == {4: 1.0}
    assert compute_weights(results + [result("c", 0.01)], {"a": 1, "b": 2, "c": 3}, TopHeavy()) == {0: 0.5, 3: 0.5}


def test_a_burn_uid_that_is_also_a_miner_gets_both() -> None:
    policy = parse_policy("top_heavy", top_share=0.5, tail_share=0.3, tail_k=4, burn_uid=11)
    assert compute_weights(FIVE[:2], FIVE_UIDS, policy) == {11: 0.85, 12: 0.15}


def test_a_share_too_small_for_a_float_is_left_out_not_written_as_zero() -> None:
    results = [result("a", 1.0), result("b", 5e-324)]
    policy = parse_policy("proportional", burn_share=0.9999999999999999, burn_uid=0)
    weights = compute_weights(results, {"a": 1, "b": 2}, policy)
    assert weights == {0: 0.9999999999999999, 1: 1e-16}
    assert all(w > 0 for w in weights.values())


def test_duplicate_hotkey_is_rejected() -> None:
    twice = [result("a", 0.5, 1), result("a", 0.7, 2)]
    with pytest.raises(ValueError, match="hotkey 'a' has more than one race result"):
        compute_weights(twice, {"a": 1}, TopHeavy())
    # also when the hotkey is not (or no longer) in the metagraph
    with pytest.raises(ValueError, match="more than one race result"):
        ranking(twice, {})


@pytest.mark.parametrize("uid", [-1, 65536, True, "3", 1.0])
def test_a_bad_metagraph_uid_is_rejected(uid: object) -> None:
    with pytest.raises(ValueError, match="uid of hotkey 'a'"):
        compute_weights([result("a", 0.5)], {"a": uid}, TopHeavy())  # type: ignore[dict-item]


@pytest.mark.parametrize(
    "bad",
    [
        {"score": 1.5},
        {"score": -0.1},
        {"score": math.nan},
        {"score": math.inf},
        {"commitment_block": -1},
        {"hotkey": ""},
        {"extra": 1},
    ],
)
def test_bad_miner_results_are_rejected(bad: dict) -> None:
    with pytest.raises(ValidationError):
        MinerResult(**{"hotkey": "a", "score": 0.5, "commitment_block": 1, **bad})


# --- parse_policy --------------------------------------------------------------------------------------------------


def test_parse_policy_builds_each_policy() -> None:
    assert set(POLICIES) == {"top_heavy", "winner_take_all", "proportional", "sn15_top_half", "band", "cost_aware"}
    assert parse_policy("sn15_top_half", burn_uid=3) == SN15TopHalf(top_share=0.25, burn_uid=3)
    assert parse_policy("top_heavy", top_share=0.6, tail_share=0.2, tail_k=3, burn_uid=2) == TopHeavy(
        top_share=0.6, tail_share=0.2, tail_k=3, burn_uid=2
    )
    assert parse_policy("winner_take_all") == WinnerTakeAll()
    assert parse_policy("proportional", burn_share=0.25) == Proportional(burn_share=0.25)
    # a settings field typed WeightPolicy reads the same thing from a dict
    assert TypeAdapter(WeightPolicy).validate_python({"name": "proportional", "burn_share": 0.25}) == Proportional(
        burn_share=0.25
    )


@pytest.mark.parametrize(
    ("name", "params", "expected"),
    [
        (
            "nope",
            {},
            "unknown weight policy 'nope'; choose one of: "
            "band, cost_aware, proportional, sn15_top_half, top_heavy, winner_take_all",
        ),
        (
            "top_heavy",
            {"top_share": 0.8, "tail_share": 0.3},
            "invalid weight policy 'top_heavy': top_share + tail_share must be at most 1 (got 0.8 + 0.3)",
        ),
        (
            "top_heavy",
            {"tail_k": 0},
            "invalid weight policy 'top_heavy': tail_k: Input should be greater than or equal",
        ),
        ("top_heavy", {"top_share": 1.5}, "invalid weight policy 'top_heavy': top_share: Input should be less than or"),
        ("top_heavy", {"taill_k": 3}, "invalid weight policy 'top_heavy': taill_k: unknown parameter"),
        (
            "winner_take_all",
            {"burn_share": "lots"},
            "invalid weight policy 'winner_take_all': burn_share: Input should",
        ),
        (
            "proportional",
            {"burn_share": math.nan},
            "invalid weight policy 'proportional': burn_share: Input should be a",
        ),
        ("proportional", {"burn_uid": 70000}, "invalid weight policy 'proportional': burn_uid: Input should be less"),
        ("winner_take_all", {"tail_k": 2}, "invalid weight policy 'winner_take_all': tail_k: unknown parameter"),
    ],
)
def test_parse_policy_errors_are_one_readable_line(name: str, params: dict, expected: str) -> None:
    with pytest.raises(ValueError) as caught:
        parse_policy(name, **params)
    message = str(caught.value)
    assert message.startswith(expected)
    assert "\n" not in message
    assert "pydantic" not in message and "errors.pydantic.dev" not in message


def test_parse_policy_lists_several_bad_params_on_one_line() -> None:
    with pytest.raises(ValueError) as caught:
        parse_policy("top_heavy", top_share=-1, tail_k=0, colour="red")
    message = str(caught.value)
    assert "\n" not in message
    assert "top_share:" in message and "tail_k:" in message and "colour: unknown parameter" in message


def test_top_and_tail_shares_are_compared_exactly_as_written() -> None:
    # 0.6 + 0.4 is exactly 1 as written; as floats (0.1 + 0.2 style) sums may round either way, decimals do not
    assert parse_policy("top_heavy", top_share=0.6, tail_share=0.4)
    assert parse_policy("top_heavy", top_share=0.9, tail_share=0.1)
    with pytest.raises(ValueError, match="at most 1"):
        parse_policy("top_heavy", top_share=0.9, tail_share=0.1000000000000001)


# --- subnet 15's payout ----------------------------------------------------------------------------------------------


def test_sn15_top_half_matches_subnet_15s_u16_vector() -> None:
    """Seven finishers: K = 3, so ranks 2 and 3 hold 2 and 1 units beside the burn uid's 65535, and rank 1 is
    round(0.25 * (65535 + 3) / 0.75) = 21846 units, as ORO's weight_distribution computes it."""
    results = [result(f"h{i}", 1 - i / 20, block=i) for i in range(7)]
    uids = {f"h{i}": i + 1 for i in range(7)}
    weights = compute_weights(results, uids, parse_policy("sn15_top_half"))
    assert set(weights) == {0, 1, 2, 3}  # ranks 4..7 get nothing: the bottom half
    assert weights[1] == 0.25
    got_uids, got_u16 = normalize(list(weights), list(weights.values()))
    assert dict(zip(got_uids, got_u16, strict=True)) == {0: 65535, 1: 21846, 2: 2, 3: 1}


def test_sn15_top_half_ties_break_by_earliest_commitment_then_hotkey() -> None:
    tied = [
        result("late", 0.5, block=9),
        result("early", 0.5, block=3),
        result("b", 0.5, block=3),
        result("a", 0.5, block=3),
        result("x", 0.1, block=1),
    ]
    uids = {"late": 5, "early": 6, "b": 7, "a": 8, "x": 9}
    weights = compute_weights(tied, uids, parse_policy("sn15_top_half"))
    # order: a, b, early (block 3, by hotkey), late (block 9), x; N = 5 so K = 2: rank 1 "a", rank 2 "b"
    assert weights[8] == 0.25 and set(weights) == {0, 7, 8}
    shuffled_back = compute_weights(
        list(reversed(tied)), dict(reversed(list(uids.items()))), parse_policy("sn15_top_half")
    )
    assert json.dumps(shuffled_back) == json.dumps(weights)


# --- band: miners within noise of the leader paid as one band -----------------------------------------------------


def banded(hotkey: str, score: float, low: float, high: float, block: int = 100) -> MinerResult:
    return MinerResult(hotkey=hotkey, score=score, commitment_block=block, low=low, high=high)


def test_band_pays_the_miners_within_noise_of_the_leader_evenly() -> None:
    results = [
        banded("a", 0.70, 0.40, 0.90),
        banded("b", 0.60, 0.30, 0.85),  # overlaps a's interval
        banded("c", 0.30, 0.15, 0.38),  # high below a's low: not in the band
        banded("d", 0.55, 0.45, 0.62),  # ranked below b, overlaps: in the band
    ]
    uids = {"a": 1, "b": 2, "c": 3, "d": 4}
    band = compute_weights(results, uids, parse_policy("band"))
    top = compute_weights(results, uids, TopHeavy())
    # the band (a, b, d) splits what top_heavy gives ranks 1..3 (0.5 + 0.12 + 0.09); c takes rank 4's share
    assert band[1] == band[2] == band[4] == pytest.approx((0.5 + 0.12 + 0.09) / 3)
    assert band[3] == pytest.approx(0.06) and top[3] == pytest.approx(0.06)
    assert sum(band.values()) == pytest.approx(1.0) and band[0] == pytest.approx(top[0])


def test_band_without_intervals_or_overlap_pays_as_top_heavy() -> None:
    plain = [result("a", 0.9), result("b", 0.5), result("c", 0.2)]
    uids = {"a": 1, "b": 2, "c": 3}
    assert compute_weights(plain, uids, parse_policy("band")) == compute_weights(plain, uids, TopHeavy())
    apart = [banded("a", 0.9, 0.8, 0.95), banded("b", 0.5, 0.4, 0.6)]
    assert compute_weights(apart, uids, parse_policy("band")) == compute_weights(apart, uids, TopHeavy())


def test_band_attacker_a_copy_that_ties_the_leader_exactly_earns_less_than_the_leader() -> None:
    """Attacker: a later commitment of the leader's agent scores exactly the leader's score. An exact tie is broken by
    the earlier commitment, so the copy is not in the leader's band and earns less than the honest leader."""
    results = [
        banded("copy", 0.7, 0.45, 0.88, block=50),
        banded("leader", 0.7, 0.45, 0.88, block=10),
        banded("close", 0.6, 0.35, 0.8, block=30),
    ]
    uids = {"leader": 1, "copy": 2, "close": 3}
    weights = compute_weights(results, uids, parse_policy("band"))
    assert weights[1] == weights[3] == pytest.approx((0.5 + 0.12) / 2)  # leader and close share ranks 1-2
    assert weights[2] == pytest.approx(0.09) and weights[2] < weights[1]


def test_band_is_the_same_in_any_order_and_rejects_half_an_interval() -> None:
    results = [
        banded(h, s, max(0.0, s - 0.2), min(1.0, s + 0.2))
        for h, s in zip("abcdef", [0.9, 0.8, 0.75, 0.4, 0.3, 0.2], strict=True)
    ]
    uids = {h: i for i, h in enumerate("abcdef", start=1)}
    one = compute_weights(results, uids, parse_policy("band", burn_uid=0))
    assert compute_weights(list(reversed(results)), uids, parse_policy("band", burn_uid=0)) == one
    with pytest.raises(ValidationError, match="low and high come together"):
        MinerResult(hotkey="a", score=0.5, commitment_block=1, low=0.3)
    with pytest.raises(ValidationError, match="low must be at most high"):
        MinerResult(hotkey="a", score=0.5, commitment_block=1, low=0.6, high=0.4)


def test_band_attacker_few_samples_do_not_buy_the_leaders_pay() -> None:
    """Attacker: a miner that ran 4 problems (a fresh submission in a window of races) scores 0.55; its Wilson
    interval is wide enough to reach the interval of the leader at 0.80 over 64 problems. Paid by overlap it would
    share the leader's band and earn what the leader earns for running less; its score lies outside the leader's
    interval, so it is paid by its rank, as an honest miner at 0.55 over 64 problems is."""
    from arena.pooling import Standing, wilson
    from arena.pooling import within_noise as pooled_within_noise

    def standing(hotkey: str, score: float, problems: int, block: int) -> MinerResult:
        low, high = wilson(score, problems)
        return MinerResult(hotkey=hotkey, score=score, commitment_block=block, low=low, high=high)

    leader, few = standing("leader", 0.80, 64, 10), standing("few", 0.55, 4, 20)
    assert few.high is not None and leader.low is not None and few.high >= leader.low  # the intervals overlap
    honest = standing("honest", 0.55, 64, 20)
    uids = {"leader": 1, "few": 2, "honest": 2}
    attacked = compute_weights([leader, few], {"leader": 1, "few": 2}, parse_policy("band"))
    fair = compute_weights([leader, honest], {"leader": 1, "honest": 2}, parse_policy("band"))
    assert attacked == fair == compute_weights([leader, few], uids, TopHeavy())
    assert attacked[2] < attacked[1]
    # the race page's "within noise" reads the same rule
    rows = [
        Standing(
            miner=r.hotkey, score=r.score, low=r.low or 0, high=r.high or 1, p_rank1=0, samples=n, problems=n, rank=i
        )
        for i, (r, n) in enumerate([(leader, 64), (few, 4)], start=1)
    ]
    assert pooled_within_noise(rows) == []
    # a miner whose score does lie inside the leader's interval still shares the band, however few its samples
    close = standing("close", 0.78, 4, 20)
    shared = compute_weights([leader, close], {"leader": 1, "close": 2}, parse_policy("band"))
    assert shared[1] == shared[2] == pytest.approx((0.5 + 0.3 / 10 * 4) / 2)
