"""Building a validator's results bundle of a closed race from its store (`Store.race_evidence`)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from arena.gcpause import paused_gc
from validator.pool.bundle import MAX_BUNDLE_BYTES, VERSION, ResultsBundle, seal


class PoolError(Exception):
    """A bundle that cannot be built, stored or committed; the message is one line saying what to do."""


@dataclass(frozen=True)
class BuiltBundle:
    sha256: str  # the body's id, as committed on chain
    data: bytes  # the signed envelope, as served
    body: ResultsBundle


def build_bundle(
    store: Any,
    race_id: str,
    wallet: Any,
    *,
    netuid: int,
    created_block: int,
    prev: str = "",
    dates_of: Callable[[Mapping[str, str]], Mapping[str, Mapping[str, int]]] | None = None,
) -> BuiltBundle:
    """The signed results bundle of every final run of the closed race `race_id` in `store`, by `wallet`'s hotkey;
    `prev` is the sha256 of this validator's previous results bundle ("" for its first); `dates_of` gives each pair
    of raced miners' order from their agents (hotkey -> sha256; `ResultsBundle.dates`)."""
    race = store.race(race_id)
    if race is None:
        raise PoolError(f"no race {race_id!r} in the store; a results bundle is built from a race this node ran")
    if race.status != "closed":
        raise PoolError(f"race {race_id} is {race.status}; its results bundle is built once it closed")
    # a bundle is a few million objects, none in a cycle: collecting while they are made (each pass walks every
    # live object) takes several times the work itself
    with paused_gc():
        rows = store.race_evidence(race_id)
        plain = {
            "version": VERSION,
            "netuid": int(netuid),
            "race_id": race_id,
            "pack_id": race.pack_id,
            "validator": wallet.hotkey.ss58_address,
            "created_block": int(created_block),
            "prev": prev,
            "runs": rows,
            "dates": {},
        }
        if dates_of is not None:
            raced = {str(row["miner"]): str(row["submission"]) for row in rows}
            plain["dates"] = {
                x: {y: int(b) for y, b in sorted(mine.items())}
                for x, mine in sorted(dates_of(raced).items())
                if x in raced and mine
            }
        body = ResultsBundle.model_validate(plain)
        sha256, data = seal(body, wallet, plain=plain)
    if len(data) > MAX_BUNDLE_BYTES:
        raise PoolError(
            f"the results bundle of race {race_id} is {len(data):,} bytes, over the {MAX_BUNDLE_BYTES:,} other "
            "validators accept; race fewer miners or problems per race"
        )
    return BuiltBundle(sha256=sha256, data=data, body=body)


__all__ = ["BuiltBundle", "PoolError", "build_bundle"]
