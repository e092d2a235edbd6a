"""The problem id an agent sees: opaque, and new in every race.

Inside the node and in published results a problem keeps its stable id (the pack's, or its generator's). The sandbox
is shown instead an HMAC-SHA256 of that id keyed by the race (its id and its seed: the block hash it was drawn
from, its drand round, or a qualifying round's block hash), so an agent cannot key a table of answers on the id nor
follow one problem from race to race. The same race gives the same shown id on every validator, and the node maps it
back by computing it again (`shown_id`); the run page prints both."""

from __future__ import annotations

import hashlib
import hmac

#: what a shown id starts with (the rest: 20 hex characters)
PREFIX = "p-"


def race_key(race_id: str, seed_hash: str) -> bytes:
    """The key of a race's shown ids."""
    return hashlib.sha256(f"shoparena/shown-id/1|{race_id}|{seed_hash}".encode()).digest()


def shown_id(key: bytes, problem_id: str) -> str:
    """The id the agent is shown for `problem_id` in the race of `key` (`race_key`)."""
    return PREFIX + hmac.new(key, problem_id.encode(), hashlib.sha256).hexdigest()[:20]
