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

The parts: `models` (`Pack`, `Rotation`, `PackError`, signing and views), `making` (`new_pack`), `files`
(`write_pack`, `load_pack`), `trust` (dev keys, pinned signers, `load_keypair`) and `sealing` (`sealed_pack`).
"""

from arena.problems.pack.files import load_pack, pack_bytes, write_pack
from arena.problems.pack.making import embed_titles, new_pack, pack_id_for
from arena.problems.pack.models import (
    FORMAT,
    GZIP_MAGIC,
    PACK_COMMAND,
    SPLITS,
    Pack,
    PackError,
    Rotation,
    Signer,
    canonical_json,
    decode_vector,
    encode_vector,
    short_digest,
    utc_now,
)
from arena.problems.pack.sealing import sealed_pack
from arena.problems.pack.trust import (
    ALLOW_DEV_FLAG,
    DEV_ACCOUNTS,
    DEV_PHRASE,
    PIN_FLAG,
    check_signer,
    dev_key_uri,
    is_ss58,
    load_keypair,
)

__all__ = [
    "ALLOW_DEV_FLAG",
    "DEV_ACCOUNTS",
    "DEV_PHRASE",
    "FORMAT",
    "GZIP_MAGIC",
    "PACK_COMMAND",
    "PIN_FLAG",
    "SPLITS",
    "Pack",
    "PackError",
    "Rotation",
    "Signer",
    "canonical_json",
    "check_signer",
    "decode_vector",
    "dev_key_uri",
    "embed_titles",
    "encode_vector",
    "is_ss58",
    "load_keypair",
    "load_pack",
    "new_pack",
    "pack_bytes",
    "pack_id_for",
    "sealed_pack",
    "short_digest",
    "utc_now",
    "write_pack",
]
