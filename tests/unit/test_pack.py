"""Problem packs: round trips, signatures and tampering, catalog binding, views, embeddings, keys, atomic writes."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import numpy as np
import pytest

from arena.problems.pack import Pack, PackError, Rotation, load_keypair, load_pack, new_pack, write_pack
from arena.tasks.shopping.problem import Problem
from arena.tasks.shopping.similarity import default_embedder

DIGEST = "sha256:" + "ab" * 32
OTHER_DIGEST = "sha256:" + "cd" * 32


def make_problems() -> list[Problem]:
    return [
        Problem(
            problem_id="p-product-1",
            task="product",
            split="public",
            query="I want a stainless steel rice cooker of 1.8 litres under 2000 pesos",
            reward=[
                {
                    "product_id": "1001",
                    "title": ["Stainless Steel Rice Cooker 1.8L"],
                    "price": [{"less than": [None, 2000]}],
                    "service": ["COD"],
                }
            ],
        ),
        Problem(
            problem_id="p-shop-1",
            task="shop",
            split="race",
            query="From one shop: a blue yoga mat and a pair of foam blocks",
            reward=[
                {"product_id": "2001", "title": ["Yoga Mat 6mm Non-Slip"], "sku_options": [{"color": "blue"}]},
                {
                    "product_id": "2002",
                    "title": ["EVA Foam Yoga Block Set of 2"],
                    "attributes": [{"material": ["eva foam"]}],
                },
            ],
        ),
        Problem(
            problem_id="p-voucher-1",
            task="voucher",
            split="held_out",
            query="Buy an electric kettle with my platform voucher and stay within 200 — ñandú edition",
            reward=[
                {"product_id": "3001", "title": "Electric Kettle 1.7L Fast Boil", "price": [{"between": [50, 190]}]}
            ],
            voucher={
                "voucher_type": "platform",
                "threshold": 100,
                "discount_type": "fixed",
                "face_value": 10,
                "budget": 200,
            },
        ),
        Problem(
            problem_id="p-web-1",
            task="web",
            split="public",
            knowledge_attribute="wattage",
            query="The air fryer the review site calls the best budget pick",
            reward=[{"product_id": "4001", "title": ["Digital Air Fryer 4.5L 1400W"]}],
        ),
        Problem(
            problem_id="p-product-2",
            task="product",
            split="race",
            query="A cotton bath towel, white",
            reward=[{"product_id": "5001", "title": ["Cotton Bath Towel White 70x140"]}],
        ),
    ]


@pytest.fixture(scope="module")
def alice():
    return load_keypair(key_uri="//Alice")


@pytest.fixture(scope="module")
def bob():
    return load_keypair(key_uri="//Bob")


@pytest.fixture(scope="module")
def pack() -> Pack:
    return new_pack(
        make_problems(),
        catalog_digest=DIGEST,
        generator_version="test-1",
        rotation=Rotation(cadence_blocks=100, problems_per_race=3),
    )


@pytest.fixture(scope="module")
def signed(pack, alice) -> Pack:
    return pack.signed(alice)


def one_line_error(excinfo: pytest.ExceptionInfo[PackError]) -> str:
    message = str(excinfo.value)
    assert message and "\n" not in message
    return message


# ---------------------------------------------------------------------------------------------------- round trips
@pytest.mark.parametrize("name", ["pack.json", "pack.json.gz"])
def test_round_trip_plain_and_gzip(tmp_path, signed, name):
    path = write_pack(signed, tmp_path / "sub" / "dir" / name)
    assert path.exists()
    if name.endswith(".gz"):
        assert path.read_bytes()[:2] == b"\x1f\x8b"
        json.loads(gzip.decompress(path.read_bytes()))
    else:
        json.loads(path.read_text(encoding="utf-8"))
    loaded = load_pack(path, catalog_digest=DIGEST)
    assert loaded == signed
    assert loaded.payload_bytes() == signed.payload_bytes()
    assert loaded.rotation.cadence_blocks == 100 and loaded.rotation.task_mix["web"] == 0.2
    assert loaded.problem("p-voucher-1").voucher.face_value == 10


def test_new_pack_fills_id_time_and_embeddings(pack):
    assert pack.pack_id.startswith("pack-") and len(pack.pack_id) == len("pack-") + 12
    assert pack.created_at.endswith("Z")
    assert set(pack.title_embeddings) == {p.problem_id for p in pack.problems}
    assert len(pack.title_embeddings["p-shop-1"]) == 2
    again = new_pack(make_problems(), catalog_digest=None, generator_version="other", embed=False)
    assert again.pack_id == pack.pack_id and again.title_embeddings == {}
    assert again.signer is None and again.signature is None and not again.verify_signature()


def test_duplicate_problem_ids_refused():
    problems = make_problems()
    problems.append(problems[0].model_copy(update={"query": "another query"}))
    with pytest.raises(PackError) as excinfo:
        new_pack(problems, catalog_digest=DIGEST, generator_version="test-1", embed=False)
    assert "p-product-1" in one_line_error(excinfo)


def test_bad_rotation_refused():
    with pytest.raises(ValueError, match="unknown task"):
        Rotation(task_mix={"product": 1, "books": 1})
    with pytest.raises(ValueError, match="sum to 0"):
        Rotation(task_mix={"product": 0})
    with pytest.raises(ValueError):
        Rotation(cadence_blocks=0)


# ------------------------------------------------------------------------------------------------------ signatures
def test_sign_and_verify(signed, alice, pack):
    assert signed.signer == alice.ss58_address
    assert signed.signature is not None and len(bytes.fromhex(signed.signature)) == 64
    assert signed.verify_signature()
    assert pack.signature is None  # signing copies
    assert b'"signature"' not in signed.payload_bytes() and alice.ss58_address.encode() in signed.payload_bytes()


def _tamper(tmp_path: Path, signed: Pack, edit) -> Path:
    path = write_pack(signed, tmp_path / "pack.json")
    data = json.loads(path.read_text(encoding="utf-8"))
    edit(data)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def _flip_signature_byte(data: dict) -> None:
    sig = bytearray(bytes.fromhex(data["signature"]))
    sig[10] ^= 0x01
    data["signature"] = sig.hex()


@pytest.mark.parametrize(
    "edit",
    [
        lambda data: data["problems"][1].__setitem__("query", "From one shop: a red yoga mat"),
        _flip_signature_byte,
        lambda data: data.__setitem__("signer", "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty"),  # //Bob
    ],
    ids=["edited-query", "flipped-signature-byte", "swapped-signer"],
)
def test_tampering_is_detected(tmp_path, signed, bob, edit):
    assert bob.ss58_address == "5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty"
    path = _tamper(tmp_path, signed, edit)
    for require in (True, False):  # a signature that is there is always checked
        with pytest.raises(PackError) as excinfo:
            load_pack(path, require_signature=require)
        message = one_line_error(excinfo)
        assert "signature does not match" in message and "re-sign" in message


def test_garbage_signature_and_signer_refused(tmp_path, signed):
    path = _tamper(tmp_path, signed, lambda data: data.__setitem__("signature", "not hex"))
    with pytest.raises(PackError, match="not hex"):
        load_pack(path)
    path = _tamper(tmp_path, signed, lambda data: data.__setitem__("signer", "nobody"))
    with pytest.raises(PackError, match="not an ss58 address"):
        load_pack(path)


def test_unsigned_pack_needs_require_signature_off(tmp_path, pack):
    path = write_pack(pack, tmp_path / "unsigned.json")
    with pytest.raises(PackError) as excinfo:
        load_pack(path)
    assert "not signed" in one_line_error(excinfo)
    assert load_pack(path, require_signature=False) == pack
    with pytest.raises(PackError, match="not signed"):
        load_pack(path, require_signature=False, trusted_signers={"5FHneW46xGXgs5mUiveU4sbTyGBzmstUspZC92UhjJM694ty"})


@pytest.fixture(scope="module")
def operator():
    return load_keypair(key_uri="//ShopArenaPackOperator")  # a key of its own, not a public development key


def test_only_the_pinned_signer_is_trusted(tmp_path, pack, operator, bob):
    path = write_pack(pack.signed(operator), tmp_path / "pack.json")
    assert load_pack(path, trusted_signers={operator.ss58_address}).signer == operator.ss58_address
    assert load_pack(path, trusted_signers={bob.ss58_address, operator.ss58_address}).signer == operator.ss58_address
    with pytest.raises(PackError) as excinfo:
        load_pack(path, trusted_signers={bob.ss58_address})
    message = one_line_error(excinfo)
    assert operator.ss58_address in message and f"not by the pinned signer {bob.ss58_address}" in message
    assert "--pack.signer" in message


def test_a_pinned_signer_matches_in_any_ss58_format(tmp_path, pack, operator):
    from bittensor.sp_core import Keypair

    polkadot = Keypair(public_key=operator.public_key, ss58_format=0).ss58_address
    assert polkadot != operator.ss58_address
    path = write_pack(pack.signed(operator), tmp_path / "pack.json")
    assert load_pack(path, trusted_signers={polkadot}).signer == operator.ss58_address


def test_no_pinned_signer_is_refused_naming_the_flag(tmp_path, pack, operator):
    path = write_pack(pack.signed(operator), tmp_path / "pack.json")
    with pytest.raises(PackError) as excinfo:
        load_pack(path, trusted_signers=set())
    message = one_line_error(excinfo)
    assert "no signer is pinned" in message and "--pack.signer" in message and operator.ss58_address in message


def test_a_pinned_signer_that_is_not_an_address_is_named(tmp_path, pack, operator):
    path = write_pack(pack.signed(operator), tmp_path / "pack.json")
    with pytest.raises(PackError) as excinfo:
        load_pack(path, trusted_signers={"alice"})
    assert "'alice' is not an ss58 address" in one_line_error(excinfo)


@pytest.mark.parametrize("uri", ["//Alice", "//Bob", "//Ferdie", "//Charlie//stash"])
def test_a_development_key_is_refused_even_when_pinned_unless_allowed(tmp_path, pack, uri):
    dev = load_keypair(key_uri=uri)
    path = write_pack(pack.signed(dev), tmp_path / "dev.json")
    with pytest.raises(PackError) as excinfo:
        load_pack(path, trusted_signers={dev.ss58_address})
    message = one_line_error(excinfo)
    assert f"public development key {uri}" in message and "--pack.allow_dev_signer" in message
    assert load_pack(path, trusted_signers={dev.ss58_address}, allow_dev_signer=True).signer == dev.ss58_address
    with pytest.raises(PackError, match="not by the pinned signer"):  # allowed, but still only when pinned
        load_pack(path, trusted_signers={load_keypair(key_uri="//Dave").ss58_address}, allow_dev_signer=True)


def test_signature_checks_alone_do_not_judge_the_signer(tmp_path, signed):
    # integrity only (no trusted_signers): what `arena problems show` and the miner's local test need
    assert load_pack(write_pack(signed, tmp_path / "pack.json")) == signed


# --------------------------------------------------------------------------------------------------- catalog binding
def test_catalog_digest_binding(tmp_path, pack, alice):
    path = write_pack(pack.signed(alice), tmp_path / "pack.json")
    assert load_pack(path, catalog_digest=DIGEST).catalog_digest == DIGEST
    assert load_pack(path).catalog_digest == DIGEST  # no catalog given: nothing to compare
    with pytest.raises(PackError) as excinfo:
        load_pack(path, catalog_digest=OTHER_DIGEST)
    message = one_line_error(excinfo)
    assert "sha256:abababababab" in message and "sha256:cdcdcdcdcdcd" in message
    assert "catalog it was made for" in message and DIGEST not in message
    unbound = new_pack(make_problems(), catalog_digest=None, generator_version="test-1", embed=False).signed(alice)
    path = write_pack(unbound, tmp_path / "unbound.json")
    assert load_pack(path, catalog_digest=OTHER_DIGEST).catalog_digest is None


def test_rebinding_the_catalog_breaks_the_signature(tmp_path, signed):
    path = _tamper(tmp_path, signed, lambda data: data.__setitem__("catalog_digest", OTHER_DIGEST))
    with pytest.raises(PackError, match="signature does not match"):
        load_pack(path, catalog_digest=OTHER_DIGEST)


# -------------------------------------------------------------------------------------------------- bad files
def test_bad_files_give_one_line_errors(tmp_path, signed):
    cases: dict[str, tuple[Path, str]] = {}
    cases["missing"] = (tmp_path / "nope.json", "does not exist")
    (tmp_path / "text.json").write_text("this is not json", encoding="utf-8")
    cases["not json"] = (tmp_path / "text.json", "not JSON")
    (tmp_path / "plain.json.gz").write_text("{}", encoding="utf-8")
    cases["not gzip"] = (tmp_path / "plain.json.gz", "not gzip")
    (tmp_path / "trunc.json.gz").write_bytes(gzip.compress(b'{"format": 1}')[:12])
    cases["truncated gzip"] = (tmp_path / "trunc.json.gz", "not valid gzip")
    (tmp_path / "list.json").write_text("[1, 2]", encoding="utf-8")
    cases["not an object"] = (tmp_path / "list.json", "not a pack")
    data = signed.model_dump(mode="json")
    (tmp_path / "v2.json").write_text(json.dumps({**data, "format": 2}), encoding="utf-8")
    cases["format"] = (tmp_path / "v2.json", "format 2")
    broken = json.loads(json.dumps(data))
    broken["problems"][2]["voucher"]["discount_type"] = "percentage"
    (tmp_path / "invalid.json").write_text(json.dumps(broken), encoding="utf-8")
    cases["invalid"] = (tmp_path / "invalid.json", "problems[2] (id 'p-voucher-1').voucher")
    cases["folder"] = (tmp_path, "is a folder")
    for name, (path, expected) in cases.items():
        with pytest.raises(PackError) as excinfo:
            load_pack(path)
        message = one_line_error(excinfo)
        assert expected in message, (name, message)


def test_invalid_embeddings_refused(tmp_path, signed):
    data = signed.model_dump(mode="json")
    data["title_embeddings"]["p-shop-1"] = data["title_embeddings"]["p-shop-1"][:1]
    (tmp_path / "bad.json").write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(PackError, match="1 vectors for 2 rewards"):
        load_pack(tmp_path / "bad.json")


# ----------------------------------------------------------------------------------------------------------- views
def test_split_counts(pack):
    assert pack.split_counts() == {
        "public": {"product": 1, "web": 1},
        "race": {"product": 1, "shop": 1},
        "held_out": {"voucher": 1},
    }


def test_public_view(tmp_path, signed):
    view = signed.public_view()
    assert {p.split for p in view.problems} == {"public"}
    assert [p.problem_id for p in view.problems] == ["p-product-1", "p-web-1"]
    assert view.public_only and view.signer is None and view.signature is None
    assert set(view.title_embeddings) == {"p-product-1", "p-web-1"}
    assert view.problems[0].reward[0].product_id == "1001"  # answers stay, for miners to test against
    assert view.split_counts() == {"public": {"product": 1, "web": 1}}
    assert len(signed.problems) == 5 and signed.verify_signature()  # the original is untouched
    path = write_pack(view, tmp_path / "public.json.gz")
    with pytest.raises(PackError, match="not signed"):
        load_pack(path)
    assert load_pack(path, require_signature=False) == view


def test_title_embeddings_decode_to_the_gold_vectors(pack):
    shop = pack.gold_vectors("p-shop-1")
    assert shop is not None and len(shop) == 2
    titles = [r.title[0] for p in pack.problems for r in p.reward]
    fresh = default_embedder().embed(titles)
    stored = [v for p in pack.problems for v in pack.gold_vectors(p.problem_id)]
    assert len(stored) == len(titles)
    for vector, expected in zip(stored, fresh, strict=True):
        assert vector.dtype == np.float32 and vector.shape == (256,)
        assert abs(float(np.linalg.norm(vector)) - 1.0) < 1e-4
        assert float(np.dot(vector, expected)) > 0.999
    assert pack.gold_vectors("no-such-problem") is None


# ------------------------------------------------------------------------------------------------------------ keys
def test_bittensor_wallet_signs(tmp_path):
    import bittensor as bt

    wallets = tmp_path / "wallets"
    wallet = bt.Wallet(name="operator", hotkey="signer", path=str(wallets))
    wallet.create_new_coldkey(use_password=False, suppress=True)
    wallet.create_new_hotkey(use_password=False, suppress=True)
    keypair = load_keypair(wallet_name="operator", wallet_hotkey="signer", wallet_path=str(wallets))
    assert keypair.ss58_address == wallet.hotkey.ss58_address
    pack = new_pack(make_problems(), catalog_digest=DIGEST, generator_version="test-1", embed=False)
    path = write_pack(pack.signed(keypair), tmp_path / "pack.json")
    loaded = load_pack(path, trusted_signers={wallet.hotkey.ss58_address}, catalog_digest=DIGEST)
    assert loaded.signer == wallet.hotkey.ss58_address and loaded.verify_signature()


def test_missing_wallet_or_hotkey(tmp_path):
    import bittensor as bt

    wallets = tmp_path / "wallets"
    with pytest.raises(PackError) as excinfo:
        load_keypair(wallet_name="ghost", wallet_hotkey="hk", wallet_path=str(wallets))
    assert "btcli wallet create" in one_line_error(excinfo)
    bt.Wallet(name="half", hotkey="other", path=str(wallets)).create_new_coldkey(use_password=False, suppress=True)
    with pytest.raises(PackError) as excinfo:
        load_keypair(wallet_name="half", wallet_hotkey="hk", wallet_path=str(wallets))
    message = one_line_error(excinfo)
    assert "btcli wallet new-hotkey" in message and "'hk'" in message


def test_bad_key_uri():
    with pytest.raises(PackError, match="not valid"):
        load_keypair(key_uri="not a uri")


# ---------------------------------------------------------------------------------------------------- atomic write
def test_write_is_atomic(tmp_path, signed, pack):
    folder = tmp_path / "packs"
    path = write_pack(pack, folder / "pack.json")
    write_pack(signed, path)  # replaces the old file in one rename
    assert sorted(p.name for p in folder.iterdir()) == ["pack.json"]
    assert load_pack(path) == signed
    (folder / "taken").mkdir()
    (folder / "taken" / "keep").write_text("x", encoding="utf-8")
    with pytest.raises(PackError) as excinfo:  # the rename fails: nothing half-written is left behind
        write_pack(signed, folder / "taken")
    assert "cannot write" in one_line_error(excinfo)
    assert sorted(p.name for p in folder.iterdir()) == ["pack.json", "taken"]
    assert load_pack(path) == signed
