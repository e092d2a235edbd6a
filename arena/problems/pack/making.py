"""Making a pack: `new_pack` (its id from its problems, the gold title embeddings), unsigned."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from pydantic import ValidationError

from arena import tasks
from arena.problems.pack.models import (
    Pack,
    PackError,
    Rotation,
    canonical_json,
    encode_vector,
    first_duplicate,
    first_error,
    utc_now,
)
from arena.tasks import ProblemBase


def embed_titles(problems: Sequence[ProblemBase]) -> dict[str, list[str]]:
    """problem_id -> the scoring vectors of its family (`arena.tasks.gold_vectors`), one base64 row per slot ("" for
    a slot without one)."""
    vectors = tasks.gold_vectors(problems)
    return {pid: [encode_vector(v) if v is not None else "" for v in rows] for pid, rows in vectors.items()}


def pack_id_for(problems: Sequence[ProblemBase]) -> str:
    """``pack-`` and 12 hex characters of the sha256 of the problems' canonical JSON."""
    digest = hashlib.sha256(canonical_json([p.model_dump(mode="json") for p in problems])).hexdigest()
    return f"pack-{digest[:12]}"


def new_pack(
    problems: Sequence[ProblemBase],
    *,
    catalog_digest: str | None,
    generator_version: str,
    rotation: Rotation | None = None,
    embed: bool = True,
    ruleset: str = "shoppingbench",
    rulesets: dict[str, str] | None = None,
) -> Pack:
    """An unsigned pack of ``problems`` (their ids must be unique), with its id, creation time and, when ``embed``,
    the gold title embeddings, scored by ``ruleset`` (each family that defines it) and ``rulesets`` (family ->
    ruleset). Sign it with `Pack.signed`."""
    problems = list(problems)
    duplicate = first_duplicate(p.problem_id for p in problems)
    if duplicate is not None:
        raise PackError(f"problem_id {duplicate!r} appears more than once; give every problem its own id")
    try:
        return Pack(
            pack_id=pack_id_for(problems),
            created_at=utc_now(),
            catalog_digest=catalog_digest,
            generator_version=generator_version,
            rotation=rotation or Rotation(),
            problems=problems,
            title_embeddings=embed_titles(problems) if embed else {},
            ruleset=ruleset,
            rulesets=rulesets or {},
        )
    except ValidationError as exc:
        raise PackError(f"cannot make the pack: {first_error(exc)}") from None
