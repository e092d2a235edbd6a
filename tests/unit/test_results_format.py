"""The results commitment text (``sr1``), a bundle's canonical id and signature, the shelf's write-once files, and the
u16 rows the audit compares: pure checks, no chain, no server."""

from __future__ import annotations

from pathlib import Path

import pytest
from bittensor.sp_core import Keypair

from validator.audit import u16_row
from validator.chain.commitment import RESULTS_PREFIX, CommitmentError, encode_commitment, parse_commitment
from validator.pool import PoolError, Release, ResultsShelf
from validator.pool.bundle import ResultsBundle, bundle_id, canonical, seal, signature_valid

SHA = "0123456789abcdef" * 4


class _Wallet:
    def __init__(self, uri: str) -> None:
        self.hotkey = Keypair.create_from_uri(uri)


def test_results_commitments_have_their_own_prefix() -> None:
    text = encode_commitment(SHA, "https://bucket.example/v1", prefix=RESULTS_PREFIX)
    assert text == f"sr1:{SHA}:https://bucket.example/v1"
    assert parse_commitment(text, prefix=RESULTS_PREFIX) == (SHA, "https://bucket.example/v1")
    assert parse_commitment(text) is None, "a results commitment is not a miner's agent"
    assert parse_commitment(encode_commitment(SHA), prefix=RESULTS_PREFIX) is None
    with pytest.raises(CommitmentError, match="at most"):
        encode_commitment(SHA, "https://" + "x" * 80 + ".example", prefix=RESULTS_PREFIX)


def test_a_bundle_id_is_its_canonical_bytes_and_the_signature_is_the_hotkeys() -> None:
    alice, bob = _Wallet("//Alice"), _Wallet("//Bob")
    body = ResultsBundle(
        netuid=1, race_id="r-1", pack_id="p", validator=alice.hotkey.ss58_address, created_block=3, runs=[]
    )
    sha, envelope = seal(body, alice)
    assert sha == bundle_id(body) == bundle_id(body.model_dump(mode="json"))
    assert envelope.startswith(b'{"body":' + canonical(body))
    signature = envelope.decode().rsplit('"signature":"', 1)[1].rstrip('"}')
    assert signature_valid(alice.hotkey.ss58_address, sha, signature)
    assert not signature_valid(bob.hotkey.ss58_address, sha, signature)
    assert not signature_valid(alice.hotkey.ss58_address, "0" * 64, signature)
    with pytest.raises(ValueError, match="cannot be signed"):
        seal(body, bob)


def test_the_shelf_writes_once_and_refuses_other_bytes(tmp_path: Path) -> None:
    shelf = ResultsShelf(tmp_path / "results")
    release = Release(race_id="r-1", race_start=10, public_block=99)
    path = shelf.put(SHA, b"envelope", release)
    assert path == tmp_path / "results" / SHA and shelf.get(SHA) == b"envelope" and shelf.release(SHA) == release
    shelf.put(SHA, b"envelope", release)  # the same bytes again: nothing changes
    with pytest.raises(PoolError, match="never overwritten"):
        shelf.put(SHA, b"other", release)
    assert shelf.get(SHA) == b"envelope"
    assert [p.name for p in (tmp_path / "results").iterdir() if p.name.endswith(".tmp")] == []
    with pytest.raises(PoolError, match="not a sha256"):
        shelf.put("../escape", b"x", release)
    assert shelf.get("../escape") is None and shelf.get("f" * 64) is None


def test_u16_rows_are_max_upscaled_as_the_chain_keeps_them() -> None:
    assert u16_row({3: 0.25, 1: 0.75, 2: 0.0}) == {1: 65535, 3: 21845}
    assert u16_row({1: 0.75 / 2, 3: 0.25 / 2}) == u16_row({3: 0.25, 1: 0.75}), "only proportions count"
    assert u16_row({}) == {}


def test_the_same_bundle_signed_again_keeps_the_first_copy(tmp_path: Path) -> None:
    alice = _Wallet("//Alice")
    body = ResultsBundle(
        netuid=1, race_id="r-1", pack_id="p", validator=alice.hotkey.ss58_address, created_block=3, runs=[]
    )
    (sha, first), (again, second) = seal(body, alice), seal(body, alice)
    assert sha == again and first != second, "an sr25519 signature differs every time"
    shelf = ResultsShelf(tmp_path)
    release = Release(race_id="r-1", race_start=0)
    shelf.put(sha, first, release)
    shelf.put(sha, second, release)
    assert shelf.get(sha) == first
