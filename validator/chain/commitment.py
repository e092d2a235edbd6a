"""The on-chain commitments: a miner's agent bundle, ``sa1:<sha256 hex>`` or ``sa1:<sha256 hex>:<url>``, and a
validator's results bundle of a race (`validator.pool`), ``sr1:<sha256 hex>`` or ``sr1:<sha256 hex>:<base url>``
(fetched at ``<base url>/results/<sha256>``, else from the validator's axon).

The whole text is at most `MAX_COMMITMENT_BYTES` (128) bytes of UTF-8, so a URL may take at most 59 bytes. Without a
URL, validators fetch the bundle from the miner's axon (``GET /bundle/<sha256>``, signed with ``btauth/1``). It lives
in `validator.chain` because both sides need it: `arena-miner submit` writes it and the validator's submission sync
reads it.
"""

from __future__ import annotations

import re

from validator.chain.port import MAX_COMMITMENT_BYTES

PREFIX = "sa1"
RESULTS_PREFIX = "sr1"
_SHA256 = re.compile(r"^[0-9a-f]{64}$")
_URL = re.compile(r"^https?://[^\s/?#]+[^\s]*$")
_COMMITMENT = {prefix: re.compile(rf"^{prefix}:([0-9a-f]{{64}})(?::(.+))?$", re.DOTALL) for prefix in ("sa1", "sr1")}
MAX_URL_BYTES = MAX_COMMITMENT_BYTES - len(f"{PREFIX}:{'0' * 64}:")


class CommitmentError(ValueError):
    """A commitment that cannot be written; the message is one line saying what to change."""


def encode_commitment(sha256: str, url: str | None = None, *, prefix: str = PREFIX) -> str:
    """The commitment text for a bundle (and the URL it can be downloaded from, if any); `prefix` RESULTS_PREFIX
    for a validator's results bundle."""
    if not _SHA256.match(sha256):
        raise CommitmentError(f"{sha256!r} is not a sha256 (64 lowercase hex digits)")
    if url is None or url == "":
        return f"{prefix}:{sha256}"
    if not _URL.match(url) or not url.isprintable():
        raise CommitmentError(f"{url!r} is not an http:// or https:// URL (no spaces)")
    size = len(url.encode("utf-8"))
    if size > MAX_URL_BYTES:
        raise CommitmentError(
            f"the URL is {size} bytes; a commitment holds {MAX_COMMITMENT_BYTES} bytes, so the URL "
            f"may have at most {MAX_URL_BYTES}: use a shorter URL, or none (validators then fetch "
            "from your axon, `arena-miner serve`)"
        )
    return f"{prefix}:{sha256}:{url}"


def parse_commitment(text: str, *, prefix: str = PREFIX) -> tuple[str, str | None] | None:
    """``(sha256, url or None)`` for one of our commitments with `prefix` (a miner's agent bundle by default);
    None for anything else (other formats, malformed)."""
    if not isinstance(text, str) or len(text.encode("utf-8", "replace")) > MAX_COMMITMENT_BYTES:
        return None
    match = _COMMITMENT[prefix].match(text)
    if match is None:
        return None
    sha256, url = match.group(1), match.group(2)
    if url is not None and (not _URL.match(url) or not url.isprintable()):
        return None
    return sha256, url


__all__ = ["PREFIX", "RESULTS_PREFIX", "MAX_URL_BYTES", "CommitmentError", "encode_commitment", "parse_commitment"]
