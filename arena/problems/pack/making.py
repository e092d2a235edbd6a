"""Making a pack: `new_pack` (its id from its problems, the gold title embeddings), unsigned."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

import numpy as np
from pydantic import ValidationError

from arena.problem import Problem
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


def new_pack(
    problems: Sequence[Problem],
    *,
    catalog_digest: str | None,
    generator_version: str,
    rotation: Rotation | None = None,
    embed: bool = True,
    ruleset: str = "shoppingbench",
) -> Pack:
    """An unsigned pack of ``problems`` (their ids must be unique), with its id, creation time and, when ``embed``,
    the gold title embeddings, scored by ``ruleset``. Sign it with `Pack.signed`."""
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
        )
    except ValidationError as exc:
        raise PackError(f"cannot make the pack: {first_error(exc)}") from None
