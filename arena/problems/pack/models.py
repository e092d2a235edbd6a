"""A pack's model: `Pack` (its problems, rotation, gold title embeddings, catalog digest, ruleset and sealed batches;
its signing, `Pack.signed` and `Pack.signature_problem`; its views, `Pack.public_view` and `Pack.gold_vectors`),
`Rotation`, `PackError`, and the canonical JSON and vector encoding they are signed and stored in.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import json
from collections.abc import Iterable
from typing import Any, Final, Literal, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from arena.problems.seal import SealedBatch
from arena.tasks import AnyProblem, ProblemBase, all_tasks

FORMAT: Final = 1
GZIP_MAGIC = b"\x1f\x8b"
SPLITS: tuple[str, ...] = ("public", "race", "held_out")
PACK_COMMAND = "`arena problems pack`"


class PackError(Exception):
    """A pack that cannot be made, written or loaded. The message is one line: what is wrong and what to do."""

    def __init__(self, message: str) -> None:
        super().__init__(" ".join(str(message).split()))


class Signer(Protocol):
    """What signs a pack: a bittensor ``Keypair`` (a wallet's hotkey, or a dev key from a URI)."""

    @property
    def ss58_address(self) -> str: ...

    def sign(self, data: bytes) -> bytes | str: ...


def canonical_json(obj: Any) -> bytes:
    """Sorted keys, compact separators, UTF-8 (not ASCII-escaped): the bytes that are hashed and signed."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def utc_now() -> str:
    return dt.datetime.now(dt.UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def short_digest(digest: str | None) -> str:
    """``sha256:0123456789ab`` for ``sha256:0123456789abcdef...``."""
    if digest is None:
        return "none"
    algo, sep, rest = digest.partition(":")
    return f"{algo}:{rest[:12]}" if sep else digest[:12]


def encode_vector(vector: np.ndarray) -> str:
    return base64.b64encode(np.asarray(vector, dtype="<f4").tobytes()).decode("ascii")


def decode_vector(text: str) -> np.ndarray:
    raw = base64.b64decode(text, validate=True)
    if len(raw) % 4:
        raise ValueError(f"{len(raw)} bytes is not a whole number of float32 values")
    return np.frombuffer(raw, dtype="<f4").astype(np.float32)


# ------------------------------------------------------------------------------------------------------------ models
def _default_task_mix() -> dict[str, float]:
    return {"product": 0.3, "shop": 0.25, "voucher": 0.25, "web": 0.2}


class Rotation(BaseModel):
    """How validators race a pack: a race opens every ``cadence_blocks`` blocks and draws ``problems_per_race``
    problems, tasks weighted by ``task_mix`` (weights need not sum to 1)."""

    model_config = ConfigDict(extra="forbid")

    cadence_blocks: int = Field(default=360, ge=1)
    problems_per_race: int = Field(default=8, ge=1)
    #: the pack is raced from `start_block` up to (not including) `end_block`; None: no end
    start_block: int = Field(default=0, ge=0)
    end_block: int | None = Field(default=None, ge=1)
    task_mix: dict[str, float] = Field(default_factory=_default_task_mix)
    #: the qualifying round (subnet 15's gate): a new submission first runs `qualify_problems` problems of the public
    #: split and enters the races only if its score is at least `qualify_share` of the leader's qualifying score;
    #: 0 turns the round off (every accepted submission races)
    qualify_share: float = Field(default=0.0, ge=0.0, le=1.0)
    qualify_problems: int = Field(default=30, ge=1)
    #: k: runs of every (miner, problem) in a race, each its own sample (pass@k and pass^k are reported per task)
    samples: int = Field(default=1, ge=1, le=64)
    #: W: a miner's standing pools its samples over the last W races (its current submission's only); 1: this race
    window: int = Field(default=1, ge=1, le=100)
    #: r: with r >= 2 a race's (miner, problem, sample) runs are split among the validators that published results
    #: last race, each run given to r of them; 0: every validator runs every run
    shard_r: int = Field(default=0, ge=0, le=64)
    #: who pays for agents' LLM calls in this pack's races (`arena.spend.PayerPolicy`: validator, miner, either);
    #: None: each validator's --gateway.payer (set here, it wins over the setting)
    payer: Literal["validator", "miner", "either"] | None = None
    #: the code similarity at which the fork rule judges two agents alike (`arena.copies`); None: each validator's
    #: --copies.similarity. Set here, it wins, so pooled validators reach the same copy verdicts
    copy_similarity: float | None = Field(default=None, ge=0.01, le=1.0)

    @model_validator(mode="after")
    def _window(self) -> Rotation:
        if self.end_block is not None and self.end_block <= self.start_block:
            raise ValueError(f"end_block {self.end_block} must come after start_block {self.start_block}")
        if self.shard_r == 1:
            raise ValueError("shard_r 1 would leave every run unchecked; give 0 (no sharding) or at least 2")
        return self

    def active_at(self, block: int) -> bool:
        return block >= self.start_block and (self.end_block is None or block < self.end_block)

    @field_validator("task_mix")
    @classmethod
    def _mix_is_a_distribution(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - set(all_tasks()))
        if unknown:
            raise ValueError(f"unknown task {unknown[0]!r} in task_mix; the tasks are {', '.join(all_tasks())}")
        negative = [task for task, weight in value.items() if not weight >= 0]
        if negative:
            raise ValueError(f"task_mix weight of {negative[0]!r} is {value[negative[0]]}; weights must be >= 0")
        if not sum(value.values()) > 0:
            raise ValueError("task_mix weights sum to 0; give at least one task a positive weight")
        return value


class Pack(BaseModel):
    """One problem pack, as stored on disk (see the module docstring)."""

    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = FORMAT
    pack_id: str = Field(min_length=1)
    created_at: str
    catalog_digest: str | None
    generator_version: str
    rotation: Rotation = Field(default_factory=Rotation)
    problems: list[AnyProblem]
    #: problem_id -> one base64 little-endian float32 vector per reward, of that reward's first title
    #: ("" for a reward without a title).
    title_embeddings: dict[str, list[str]] = Field(default_factory=dict)
    public_only: bool = False
    #: the strict checks its problems are scored by, for every family that defines a ruleset of this name (the one
    #: ruleset of a pack written before packs named one per family; a pack written before rulesets has none and is
    #: scored by ``shoppingbench``); `rulesets` overrides it family by family (`ruleset_for`)
    ruleset: str = "shoppingbench"
    #: family name -> the ruleset its problems are scored by; a family not named here is scored by `ruleset` when it
    #: defines it, else by its default (its first ruleset)
    rulesets: dict[str, str] = Field(default_factory=dict)
    #: the race pool sealed in one batch per rotation slot (`arena.problems.seal`); empty: the race problems are in
    #: `problems`, in clear, and a race draws from them
    sealed: list[SealedBatch] = Field(default_factory=list)
    signer: str | None = None
    signature: str | None = None

    @field_validator("created_at")
    @classmethod
    def _iso_8601(cls, value: str) -> str:
        try:
            dt.datetime.fromisoformat(value)
        except ValueError:
            raise ValueError(f"{value!r} is not an ISO-8601 time") from None
        return value

    @field_validator("ruleset")
    @classmethod
    def _known_ruleset(cls, value: str) -> str:
        from arena.tasks import get_ruleset

        return get_ruleset(value).name

    @field_validator("rulesets")
    @classmethod
    def _known_family_rulesets(cls, value: dict[str, str]) -> dict[str, str]:
        from arena.tasks import family, ruleset_for

        for name in value:
            ruleset_for(family(name), value)
        return value

    def ruleset_for(self, task: str, override: str | None = None) -> str | None:
        """The name of the ruleset problems of task type ``task`` are scored by (`arena.tasks.ruleset_for`):
        ``override`` when the family defines it (``--ruleset`` of `arena score` and rescore), else the family's
        entry in `rulesets`, else `ruleset` when the family defines it, else the family's default."""
        from arena.tasks import family_for, ruleset_for

        fam = family_for(task)
        if override is not None and override in fam.rulesets():
            return override
        return ruleset_for(fam, self.rulesets, self.ruleset)

    @model_validator(mode="after")
    def _consistent(self) -> Pack:
        duplicate = first_duplicate(p.problem_id for p in self.problems)
        if duplicate is not None:
            raise ValueError(f"problem_id {duplicate!r} appears more than once")
        rewards = {p.problem_id: p.slots for p in self.problems}
        for problem_id, vectors in self.title_embeddings.items():
            if problem_id not in rewards:
                raise ValueError(f"title_embeddings has {problem_id!r}, which is not a problem of the pack")
            if len(vectors) != rewards[problem_id]:
                raise ValueError(
                    f"title_embeddings of {problem_id!r} has {len(vectors)} vectors for {rewards[problem_id]} rewards"
                )
            for text in vectors:
                try:
                    decode_vector(text)
                except (ValueError, binascii.Error) as exc:
                    raise ValueError(f"title_embeddings of {problem_id!r} is not base64 float32: {exc}") from None
        return self

    # ----------------------------------------------------------------------------------------------- signing
    def payload_bytes(self) -> bytes:
        """What is signed: the canonical JSON of the pack without its signature (the signer is included)."""
        data = self.model_dump(mode="json")
        data.pop("signature", None)
        # fields added after packs were first signed are signed only when they differ from their default (which is
        # what a pack without them means), so a pack signed before they existed verifies unchanged
        default: object
        for later, default in (("ruleset", "shoppingbench"), ("rulesets", {}), ("sealed", [])):
            if data.get(later) == default:
                data.pop(later, None)
        rotation_later = (
            ("qualify_share", 0.0),
            ("qualify_problems", 30),
            ("samples", 1),
            ("window", 1),
            ("shard_r", 0),
            ("payer", None),
            ("copy_similarity", None),
        )
        for later, default in rotation_later:
            if data["rotation"].get(later) == default:
                data["rotation"].pop(later, None)
        return canonical_json(data)

    def signed(self, keypair: Signer) -> Pack:
        """A copy signed by ``keypair`` (``signer`` set to its address)."""
        unsigned = self.model_copy(update={"signer": keypair.ss58_address, "signature": None})
        signature = keypair.sign(unsigned.payload_bytes())
        if isinstance(signature, str):
            signature = bytes.fromhex(signature.removeprefix("0x"))
        return unsigned.model_copy(update={"signature": bytes(signature).hex()})

    def signature_problem(self) -> str | None:
        """Why the signature does not hold (None when it does)."""
        if self.signer is None or self.signature is None:
            return "the pack is not signed"
        from bittensor.sp_core import Keypair

        try:
            signature = bytes.fromhex(self.signature.removeprefix("0x"))
        except ValueError:
            return "the signature is not hex"
        try:
            public = Keypair(ss58_address=self.signer)
        except ValueError:
            return f"the signer {self.signer!r} is not an ss58 address"
        try:
            ok = bool(public.verify(self.payload_bytes(), signature))
        except ValueError:
            ok = False
        return None if ok else "the signature does not match"

    def verify_signature(self) -> bool:
        return self.signature_problem() is None

    # ------------------------------------------------------------------------------------------------- views
    def split_counts(self) -> dict[str, dict[str, int]]:
        """split -> task -> number of problems (only the splits and tasks present, in canonical order)."""
        counts: dict[str, dict[str, int]] = {}
        for split in SPLITS:
            for task in all_tasks():
                n = sum(1 for p in self.problems if p.split == split and p.task == task)
                if n:
                    counts.setdefault(split, {})[task] = n
        return counts

    def public_view(self) -> Pack:
        """What miners may see: the public split only (answers included, to test against), unsigned."""
        problems = [p.model_copy(deep=True) for p in self.problems if p.split == "public"]
        keep = {p.problem_id for p in problems}
        embeddings = {k: list(v) for k, v in self.title_embeddings.items() if k in keep}
        return self.model_copy(
            update={
                "problems": problems,
                "title_embeddings": embeddings,
                "public_only": True,
                "sealed": [],
                "signer": None,
                "signature": None,
            }
        )

    def problem(self, problem_id: str) -> ProblemBase | None:
        return next((p for p in self.problems if p.problem_id == problem_id), None)

    def gold_vectors(self, problem_id: str) -> list[np.ndarray] | None:
        """The stored title embedding of each reward of ``problem_id`` (empty for a reward without a title);
        None when the pack holds no embeddings for it."""
        vectors = self.title_embeddings.get(problem_id)
        if vectors is None:
            return None
        try:
            return [decode_vector(text) for text in vectors]
        except (ValueError, binascii.Error) as exc:
            raise PackError(f"title embedding of {problem_id!r} is corrupt ({exc}); rebuild the pack") from None


def first_duplicate(values: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            return value
        seen.add(value)
    return None


def first_error(exc: ValidationError, data: Any = None) -> str:
    """``problems[2] (id 'p-7').reward[0].price[0]: Value error, ...`` for the first pydantic error."""
    errors = exc.errors(include_url=False)
    if not errors:
        return str(exc)
    error = errors[0]
    parts: list[str] = []
    node = data
    for i, key in enumerate(error["loc"]):
        if isinstance(key, int):
            parts.append(f"[{key}]")
        else:
            parts.append(("." if parts else "") + str(key))
        try:
            node = node[key]
        except (KeyError, IndexError, TypeError):
            node = None
        if i == 1 and error["loc"][0] == "problems" and isinstance(node, dict) and "problem_id" in node:
            parts.append(f" (id {node['problem_id']!r})")
    location = "".join(parts) or "pack"
    return f"{location}: {error['msg']}"
