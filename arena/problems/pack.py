"""Problem packs: one signed file holding the problems validators race, how they rotate, and their gold embeddings.

A pack is a single JSON file (gzip-compressed JSON when its name ends in ``.gz``). It carries

* the problems, answers included, each tagged with its split (``public``, ``race``, ``held_out``);
* the `Rotation`: how often a race opens, how many problems it draws and in what task mix;
* ``title_embeddings``: per problem, one WordLlama vector per reward (of that reward's first title), so validators
  score titles without re-embedding the gold;
* the digest of the catalog it was made for, so it is never raced against another catalog;
* the operator's sr25519 signature over `Pack.payload_bytes` (every field but the signature itself; the signer's
  address is signed too, so it cannot be swapped).

Miners get `Pack.public_view`: the public split only, unsigned. Validators load the full pack with `load_pack`,
which refuses a pack that is unsigned, tampered with, not signed by the signer they pinned, signed by a public
development key (`//Alice` and the other substrate dev accounts, unless allowed for a local demo or test) or bound
to another catalog, each with a one-line `PackError` that says what to do.
"""

from __future__ import annotations

import base64
import binascii
import contextlib
import datetime as dt
import functools
import gzip
import hashlib
import json
import os
import tempfile
import zlib
from collections.abc import Collection, Iterable, Sequence
from pathlib import Path
from typing import Any, Final, Literal, Protocol

import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from arena.problem import TASKS, Problem
from arena.problems.seal import Anchor, SealedBatch

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

    @model_validator(mode="after")
    def _window(self) -> Rotation:
        if self.end_block is not None and self.end_block <= self.start_block:
            raise ValueError(f"end_block {self.end_block} must come after start_block {self.start_block}")
        return self

    def active_at(self, block: int) -> bool:
        return block >= self.start_block and (self.end_block is None or block < self.end_block)

    @field_validator("task_mix")
    @classmethod
    def _mix_is_a_distribution(cls, value: dict[str, float]) -> dict[str, float]:
        unknown = sorted(set(value) - set(TASKS))
        if unknown:
            raise ValueError(f"unknown task {unknown[0]!r} in task_mix; the tasks are {', '.join(TASKS)}")
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
    problems: list[Problem]
    #: problem_id -> one base64 little-endian float32 vector per reward, of that reward's first title
    #: ("" for a reward without a title).
    title_embeddings: dict[str, list[str]] = Field(default_factory=dict)
    public_only: bool = False
    #: the strict checks its problems are scored by (`arena.scoring.rulesets`); a pack written before rulesets
    #: existed has none and is scored by ``shoppingbench``
    ruleset: str = "shoppingbench"
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
        from arena.scoring.rulesets import get_ruleset

        return get_ruleset(value).name

    @model_validator(mode="after")
    def _consistent(self) -> Pack:
        duplicate = _first_duplicate(p.problem_id for p in self.problems)
        if duplicate is not None:
            raise ValueError(f"problem_id {duplicate!r} appears more than once")
        rewards = {p.problem_id: len(p.reward) for p in self.problems}
        for problem_id, vectors in self.title_embeddings.items():
            if problem_id not in rewards:
                raise ValueError(f"title_embeddings has {problem_id!r}, which is not a problem of the pack")
            if len(vectors) != rewards[problem_id]:
                raise ValueError(f"title_embeddings of {problem_id!r} has {len(vectors)} vectors for "
                                 f"{rewards[problem_id]} rewards")
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
        for later, default in (("ruleset", "shoppingbench"), ("sealed", [])):
            if data.get(later) == default:
                data.pop(later, None)
        for later, default in (("qualify_share", 0.0), ("qualify_problems", 30)):
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
            for task in TASKS:
                n = sum(1 for p in self.problems if p.split == split and p.task == task)
                if n:
                    counts.setdefault(split, {})[task] = n
        return counts

    def public_view(self) -> Pack:
        """What miners may see: the public split only (answers included, to test against), unsigned."""
        problems = [p.model_copy(deep=True) for p in self.problems if p.split == "public"]
        keep = {p.problem_id for p in problems}
        embeddings = {k: list(v) for k, v in self.title_embeddings.items() if k in keep}
        return self.model_copy(update={"problems": problems, "title_embeddings": embeddings, "public_only": True,
                                       "sealed": [], "signer": None, "signature": None})

    def problem(self, problem_id: str) -> Problem | None:
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


def _first_duplicate(values: Iterable[str]) -> str | None:
    seen: set[str] = set()
    for value in values:
        if value in seen:
            return value
        seen.add(value)
    return None


# ---------------------------------------------------------------------------------------------------------- making
def embed_titles(problems: Sequence[Problem]) -> dict[str, list[str]]:
    """problem_id -> one base64 vector per reward, of its first title, embedded in one batch by the default embedder.
    A reward without a title gets ""."""
    from arena.scoring.similarity import default_embedder

    titles = [r.title[0] for p in problems for r in p.reward if r.title]
    matrix = default_embedder().embed(titles) if titles else np.zeros((0, 256), dtype=np.float32)
    rows = iter(matrix)
    return {p.problem_id: [encode_vector(next(rows)) if r.title else "" for r in p.reward] for p in problems}


def pack_id_for(problems: Sequence[Problem]) -> str:
    """``pack-`` and 12 hex characters of the sha256 of the problems' canonical JSON."""
    digest = hashlib.sha256(canonical_json([p.model_dump(mode="json") for p in problems])).hexdigest()
    return f"pack-{digest[:12]}"


def new_pack(problems: Sequence[Problem], *, catalog_digest: str | None, generator_version: str,
             rotation: Rotation | None = None, embed: bool = True, ruleset: str = "shoppingbench") -> Pack:
    """An unsigned pack of ``problems`` (their ids must be unique), with its id, creation time and, when ``embed``,
    the gold title embeddings, scored by ``ruleset``. Sign it with `Pack.signed`."""
    problems = list(problems)
    duplicate = _first_duplicate(p.problem_id for p in problems)
    if duplicate is not None:
        raise PackError(f"problem_id {duplicate!r} appears more than once; give every problem its own id")
    try:
        return Pack(pack_id=pack_id_for(problems), created_at=utc_now(), catalog_digest=catalog_digest,
                    generator_version=generator_version, rotation=rotation or Rotation(), problems=problems,
                    title_embeddings=embed_titles(problems) if embed else {}, ruleset=ruleset)
    except ValidationError as exc:
        raise PackError(f"cannot make the pack: {_first_error(exc)}") from None


# ------------------------------------------------------------------------------------------------- writing/loading
def pack_bytes(pack: Pack, *, compress: bool = False) -> bytes:
    data = canonical_json(pack.model_dump(mode="json"))
    return gzip.compress(data, mtime=0) if compress else data


def write_pack(pack: Pack, path: str | os.PathLike[str]) -> Path:
    """Write ``pack`` to ``path`` atomically (a temporary file in the same folder, fsynced, then renamed over it);
    gzip-compressed when the name ends in ``.gz``. Creates missing parent folders. Returns the path."""
    path = Path(path)
    data = pack_bytes(pack, compress=path.name.endswith(".gz"))
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise PackError(f"cannot write the pack to {path}: {exc.strerror or exc}; check the folder and its "
                        "permissions") from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    with contextlib.suppress(OSError):  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return path


def load_pack(path: str | os.PathLike[str], *, catalog_digest: str | None = None, require_signature: bool = True,
              trusted_signers: Collection[str] | None = None, allow_dev_signer: bool = False) -> Pack:
    """Read and check a pack.

    Refused with a one-line `PackError`: a missing or unreadable file, content that is not (gzip-compressed) JSON,
    another format version, invalid content, no signature when ``require_signature`` (or when ``trusted_signers``
    is given), a signature that does not match (always checked when present), and a pack bound to a catalog other
    than ``catalog_digest`` (when both are known). When ``trusted_signers`` is given (the signers pinned by whoever
    races the pack: empty when none is pinned), the signer is checked by `check_signer`.
    """
    path = Path(path)
    where = f"pack {path}"
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise PackError(f"{where} does not exist; check the path or make one with {PACK_COMMAND}") from None
    except IsADirectoryError:
        raise PackError(f"{where} is a folder; give the pack file inside it") from None
    except OSError as exc:
        raise PackError(f"cannot read {where}: {exc.strerror or exc}; check its permissions") from None

    if raw.startswith(GZIP_MAGIC):
        try:
            raw = gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise PackError(f"{where} is not valid gzip ({exc}); the file is truncated or corrupt, copy it "
                            "again") from None
    elif path.name.endswith(".gz"):
        raise PackError(f"{where} is not gzip-compressed although its name ends in .gz; compress it with gzip or "
                        "drop the .gz suffix")
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PackError(f"{where} is not UTF-8 JSON ({exc.reason} at byte {exc.start}); is it really a pack?") from None
    except json.JSONDecodeError as exc:
        raise PackError(f"{where} is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); is it really a "
                        "pack? copy it again or rebuild it") from None
    if not isinstance(data, dict):
        raise PackError(f"{where} is not a pack: it holds a JSON {type(data).__name__}, not an object")
    fmt = data.get("format", FORMAT)
    if type(fmt) is not int or fmt != FORMAT:
        raise PackError(f"{where} has format {fmt!r}, but this version of arena reads format {FORMAT}; upgrade arena "
                        f"or rebuild the pack with {PACK_COMMAND}")
    try:
        pack = Pack.model_validate(data)
    except ValidationError as exc:
        raise PackError(f"{where} is invalid: {_first_error(exc, data)}; fix it or rebuild it with "
                        f"{PACK_COMMAND}") from None

    if pack.signature is None or pack.signer is None:
        if require_signature or trusted_signers is not None:
            raise PackError(f"{where} is not signed; sign it with {PACK_COMMAND} (or load it with signatures not "
                            "required, for local testing only)")
    else:
        problem = pack.signature_problem()
        if problem == "the signature does not match":
            raise PackError(f"{where}: signature does not match: the pack was modified after signing or signed by "
                            f"another key; re-sign it with {PACK_COMMAND}")
        if problem is not None:
            raise PackError(f"{where}: {problem}; re-sign it with {PACK_COMMAND}")
        if trusted_signers is not None:
            check_signer(pack, trusted_signers, allow_dev_signer=allow_dev_signer, where=where)

    if catalog_digest is not None and pack.catalog_digest is not None and pack.catalog_digest != catalog_digest:
        raise PackError(f"{where} was made for catalog {short_digest(pack.catalog_digest)}, but the catalog is "
                        f"{short_digest(catalog_digest)}; load the pack with the catalog it was made for")
    return pack


# ------------------------------------------------------------------------------------------------------------ trust
#: the substrate development accounts (``subkey``'s well-known keys): their secrets are public, so anyone can sign as
#: them. The bare development phrase, each account, and each account's ``//stash``.
DEV_PHRASE = "bottom drive obey lake curtain smoke basket hold race lonely fit walk"
DEV_ACCOUNTS = ("Alice", "Bob", "Charlie", "Dave", "Eve", "Ferdie")
PIN_FLAG = "--pack.signer"
ALLOW_DEV_FLAG = "--pack.allow_dev_signer"


@functools.cache
def _dev_public_keys() -> dict[bytes, str]:
    from bittensor.sp_core import Keypair

    uris = ["//" + name for name in DEV_ACCOUNTS] + [f"//{name}//stash" for name in DEV_ACCOUNTS]
    keys = {bytes(Keypair.create_from_uri(uri).public_key): uri for uri in uris}
    keys[bytes(Keypair.create_from_mnemonic(DEV_PHRASE).public_key)] = "the development phrase"
    return keys


def _public_key(address: str) -> bytes | None:
    """The public key of an ss58 address (any network prefix), or None when it is not one."""
    from bittensor.sp_core import Keypair

    try:
        return bytes(Keypair(ss58_address=address.strip()).public_key)
    except (ValueError, TypeError):
        return None


def is_ss58(address: str) -> bool:
    return _public_key(address) is not None


def dev_key_uri(address: str) -> str | None:
    """``//Alice`` (and so on) when ``address`` is one of the public development keys, else None."""
    public = _public_key(address)
    return None if public is None else _dev_public_keys().get(public)


def check_signer(pack: Pack, trusted_signers: Collection[str], *, allow_dev_signer: bool = False,
                 where: str = "the pack") -> None:
    """Refuse, with a one-line `PackError` that says what to do, a signed pack whose signer is not one of the
    pinned ``trusted_signers`` (compared by public key; none pinned is refused too), or is a public development key
    (`dev_key_uri`) unless ``allow_dev_signer`` (a local demo or test). The signature itself is `load_pack`'s."""
    signer = pack.signer or ""
    for pinned in trusted_signers:
        if not is_ss58(pinned):
            raise PackError(f"the pinned signer {pinned!r} is not an ss58 address; give the arena operator's hotkey "
                            f"address (5...) with {PIN_FLAG}")
    dev = dev_key_uri(signer)
    if dev is not None and not allow_dev_signer:
        raise PackError(f"{where} is signed by {signer}, the public development key {dev}, whose secret anyone has; "
                        "have the arena operator sign it with their own hotkey (`arena problems pack --wallet.name "
                        f"...`), or pass {ALLOW_DEV_FLAG} for a local demo or test only")
    if not trusted_signers:
        raise PackError(f"{where} is signed by {signer}, but no signer is pinned, so nothing says it is the arena "
                        f"operator's; ask the operator for their hotkey address (not from the pack) and pass it with "
                        f"{PIN_FLAG} (or ARENA_PACK_SIGNER)")
    public = _public_key(signer)
    if public not in {_public_key(pinned) for pinned in trusted_signers}:
        pinned_list = ", ".join(sorted(trusted_signers))
        raise PackError(f"{where} is signed by {signer}, not by the pinned signer {pinned_list}; get the pack from "
                        f"the operator you pinned, or pin this signer with {PIN_FLAG} if you trust it")


def _first_error(exc: ValidationError, data: Any = None) -> str:
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


# ------------------------------------------------------------------------------------------------------------- keys
def load_keypair(*, wallet_name: str | None = None, wallet_hotkey: str | None = None, wallet_path: str | None = None,
                 key_uri: str | None = None) -> Signer:
    """The keypair that signs packs.

    ``key_uri`` (e.g. ``//Alice``) derives a key from a secret URI: for local testing and dev chains only, since
    dev keys are public. Otherwise the hotkey of the bittensor wallet ``wallet_name``/``wallet_hotkey`` under
    ``wallet_path`` (bittensor's defaults for any left out: ``default``/``default`` under ``~/.bittensor/wallets``).
    ``key_uri`` wins when both are given.
    """
    if key_uri is not None:
        from bittensor.sp_core import Keypair

        try:
            return Keypair.create_from_uri(key_uri)
        except ValueError as exc:
            raise PackError(f"key URI {key_uri!r} is not valid ({exc}); use a dev key such as //Alice, or a wallet"
                            ) from None

    from arena.wallet import DEFAULT_WALLETS, WalletError, load_wallet

    try:
        wallet = load_wallet(wallet_name or "default", wallet_hotkey or "default", wallet_path or DEFAULT_WALLETS)
    except WalletError as exc:
        raise PackError(exc.message) from None
    return wallet.hotkey


def sealed_pack(pack: Pack, *, anchor: Anchor | None = None, fixed_round: int | None = None,
                progress: Any = None) -> tuple[Pack, list[str]]:
    """``pack`` with its race pool sealed: one batch of ``problems_per_race`` per rotation slot (slot k opens at
    ``start_block + k * cadence_blocks``), each sealed to the quicknet round of its opening block (from ``anchor``),
    or to ``fixed_round`` for every batch (local demos and tests: no future drand pulse exists offline). The race
    problems and their title embeddings leave the clear part of the pack. Unsigned: sign it with `Pack.signed`.
    Returns the sealed pack and the ids of race problems left out of every batch (a short last batch, or past the
    rotation's end), which are no longer in the pack."""
    from arena.problems.seal import plan_batches, seal_batch

    if pack.sealed:
        raise PackError("the pack's race pool is already sealed")
    if (anchor is None) == (fixed_round is None):
        raise PackError("sealing needs the chain's anchor (a block and its time) or a fixed drand round")
    race = [p for p in pack.problems if p.split == "race"]
    rot = pack.rotation
    batches = plan_batches(race, per_batch=rot.problems_per_race, task_mix=rot.task_mix, seed=pack.pack_id)
    if not batches:
        raise PackError(f"the race pool holds {len(race)} problems, fewer than one race of "
                        f"{rot.problems_per_race}; split more problems into the race pool or race fewer at a time")
    if rot.end_block is not None:
        slots = max(0, -(-(rot.end_block - rot.start_block) // rot.cadence_blocks))
        batches = batches[:slots]
    sealed = []
    if anchor is not None:
        import time

        from arena.beacon import round_at

        if rot.start_block <= anchor.block:
            raise PackError(f"slot 0 would open at block {rot.start_block}, not after the chain's current block "
                            f"{anchor.block}: its batch would be readable at once; set --start-block after it")
        published = round_at(time.time())
        if anchor.round_for_block(rot.start_block) <= published:
            raise PackError(f"slot 0's drand round {anchor.round_for_block(rot.start_block)} is already published "
                            f"(round {published} is out now): check --seal.anchor_time and --seal.anchor_block")
    for slot, batch in enumerate(batches):
        block = rot.start_block + slot * rot.cadence_blocks
        round_ = fixed_round if fixed_round is not None else anchor.round_for_block(block)  # type: ignore[union-attr]
        sealed.append(seal_batch(batch, slot=slot, open_block=block, reveal_round=round_,
                                 title_embeddings=pack.title_embeddings))
        if progress is not None:
            progress()
    in_batches = {p.problem_id for batch in batches for p in batch}
    unraced = [p.problem_id for p in race if p.problem_id not in in_batches]
    keep = [p for p in pack.problems if p.split != "race"]
    kept_ids = {p.problem_id for p in keep}
    embeddings = {k: v for k, v in pack.title_embeddings.items() if k in kept_ids}
    data = pack.model_dump(mode="json")
    data.update(problems=[p.model_dump(mode="json") for p in keep], title_embeddings=embeddings,
                sealed=[b.model_dump(mode="json") for b in sealed], signer=None, signature=None)
    return Pack.model_validate(data), unraced
