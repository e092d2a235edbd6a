"""A validator's results bundle: every run it made of one closed race, content-addressed and signed.

The body (`ResultsBundle`) is serialised canonically (orjson, sorted keys); the sha256 of those bytes is the bundle's
id, committed on chain (`sr1:<sha256>`). The validator's hotkey signs the sha256 (bittensor's `Keypair`), and the
signature travels beside the body in an envelope ``{"body": ..., "signature": "0x..."}``: the bytes served and
fetched. `prev` names the validator's previous bundle, so an auditor walks back from its latest commitment to any
past race (a hotkey has one commitment per subnet, overwritten by the next).
"""

from __future__ import annotations

import hashlib
from typing import Annotated, Any, Literal

import orjson
from bittensor.sp_core import Keypair
from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer

#: the format this node writes; it reads every version from 1 up to it (`validator.pool.verify`): version 1 had no
#: ``dates`` (some carried ``since``, which dates nothing now), version 2 carries ``dates``
VERSION = 2
#: the largest envelope a node builds, serves or fetches (a 32-miner x 30-problem race of realistic runs is ~25 MB)
MAX_BUNDLE_BYTES = 64 * 1024 * 1024


class BundleRun(BaseModel):
    """One run as its validator published it."""

    model_config = ConfigDict(extra="forbid")

    miner: str  # the miner's hotkey
    submission: str  # the agent bundle's sha256
    problem_id: str
    attempt: int = Field(ge=0)  # the sample index 0..k-1 of this (miner, problem)
    retries: int = Field(ge=0)  # how many tries the validator's own faults took
    trajectory: list[dict[str, Any]]  # the gateway's events, as `arena.trajectory.TrajectoryEvent` json
    strict: dict[str, Any] | None  # the strict verdict (`arena.scoring.RunScore` json); None for an errored run
    judgment: dict[str, Any] | None  # {"verdict", "quality", "coefficient", "evidence"}; None when not judged
    final: float = Field(ge=0.0, le=1.0)  # strict x judge coefficient (0 for an agent's error)
    error_code: int | None = None
    blame: Literal["agent", "validator"] | None = None
    #: what the run's LLM calls cost and who paid (`arena.spend.RunSpend` json: tokens in and out, cost per model at
    #: the publisher's prices; each call's tokens and cost are in the trajectory too); None for a run stored before
    spend: dict[str, Any] | None = None


class ResultsBundle(BaseModel):
    """The body that is hashed and signed."""

    model_config = ConfigDict(extra="forbid")

    version: int = VERSION
    netuid: int
    race_id: str
    pack_id: str
    validator: str  # the signing hotkey
    created_block: int
    prev: str = ""  # sha256 of this validator's previous results bundle, or ""
    runs: list[BundleRun]
    #: each pair of raced miners' order as this validator holds it (version 2): x -> y -> the block since which miner
    #: x has held the code it shares with y's raced agent (y a miner's hotkey or a template's name), from the earliest
    #: of its stored submissions holding it (`validator.submissions.similarity.held_dates`); the pool combines every
    #: validator's (`validator.pool.copies.pooled_dates`), so pooled races order a pair as a race judged alone does
    dates: dict[str, dict[str, Annotated[int, Field(ge=0)]]] = Field(default_factory=dict)
    #: version 1 only, as some nodes wrote it (the earliest block of a miner's submissions similar to its raced agent,
    #: whatever another miner wrote): read and ignored, never written
    since: dict[str, Annotated[int, Field(ge=0)]] | None = None

    @model_serializer(mode="wrap")
    def _without_absent_since(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        """A bundle without ``since`` dumps without the key: its id is the same from the model or its dump."""
        data: dict[str, Any] = handler(self)
        if data.get("since") is None:
            data.pop("since", None)
        return data


def canonical(body: ResultsBundle | dict[str, Any]) -> bytes:
    """The bytes whose sha256 is the bundle's id: orjson with sorted keys, no whitespace."""
    data = body.model_dump(mode="json") if isinstance(body, ResultsBundle) else body
    return orjson.dumps(data, option=orjson.OPT_SORT_KEYS)


def bundle_id(body: ResultsBundle | dict[str, Any]) -> str:
    return hashlib.sha256(canonical(body)).hexdigest()


def seal(body: ResultsBundle, wallet: Any, *, plain: dict[str, Any] | None = None) -> tuple[str, bytes]:
    """``(sha256, envelope bytes)``: the body's id and the envelope signed by `wallet`'s hotkey over that id.
    `plain`: the body as json-ready dicts already (its model's dump is the slow way to the same bytes)."""
    keypair = wallet.hotkey
    if keypair.ss58_address != body.validator:
        raise ValueError(f"bundle of validator {body.validator} cannot be signed by hotkey {keypair.ss58_address}")
    raw = canonical(plain if plain is not None else body)
    sha256 = hashlib.sha256(raw).hexdigest()
    signature = "0x" + bytes(keypair.sign(sha256.encode("ascii"))).hex()
    envelope = b'{"body":' + raw + b',"signature":' + orjson.dumps(signature) + b"}"
    return sha256, envelope


def signature_valid(hotkey: str, sha256: str, signature: str) -> bool:
    """Whether `signature` (0x hex) is `hotkey`'s signature over `sha256`."""
    try:
        return bool(Keypair(ss58_address=hotkey).verify(sha256.encode("ascii"), bytes.fromhex(signature[2:])))
    except Exception:  # a malformed address or signature is simply not a valid signature
        return False


__all__ = [
    "MAX_BUNDLE_BYTES",
    "VERSION",
    "BundleRun",
    "ResultsBundle",
    "bundle_id",
    "canonical",
    "seal",
    "signature_valid",
]
