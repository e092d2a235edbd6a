"""`BittensorChain` and `load_wallet` against the real bittensor 11.x SDK.

Only the chain node is modelled: `InMemorySubstrate` sits at the SDK's `Substrate` seam, so the SDK's own intents
(`SetWeights` preflight, conforming, commit-reveal), reads (metagraph, commitments, snapshots), signing and result
decoding all run for real. Wallets are real `bittensor.Wallet` key files in a temporary folder.
"""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import bittensor as bt
import pytest
from bittensor.intents.weights import clip_to_max_weight, normalize

from tests.support.substrate import BLOCK_HASH_COUNT, GENESIS_MS, InMemorySubstrate, block_hash_of, ss58_for
from validator.chain.bittensor_chain import BittensorChain, load_wallet
from validator.chain.port import MAX_COMMITMENT_BYTES, ChainError, ChainPort

NETUID = 7
HEAD = 5000
U16_MAX = 65535
MINERS = 4  # uids 1..4; the validator is uid 0
SET_WEIGHTS = "SubtensorModule.set_mechanism_weights"
COMMIT_WEIGHTS = "SubtensorModule.commit_timelocked_mechanism_weights"


# --- fixtures ---------------------------------------------------------------------------------------------------


@pytest.fixture(autouse=True)
def _private_sdk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Keep the SDK's token-symbol cache (keyed by network label) out of the user's ~/.bittensor."""
    monkeypatch.setenv("BTCLI_TOKEN_SYMBOLS_CACHE", str(tmp_path / "token_symbols.json"))


def _new_wallet(root: Path, name: str, hotkey: str = "default", *, password: str | None = None) -> bt.Wallet:
    wallet = bt.Wallet(name=name, hotkey=hotkey, path=str(root))
    wallet.create_new_coldkey(use_password=False, suppress=True)
    wallet.create_new_hotkey(use_password=password is not None, hotkey_password=password, suppress=True)
    return wallet


@pytest.fixture(scope="module")
def wallets(tmp_path_factory: pytest.TempPathFactory) -> dict[str, bt.Wallet]:
    root = tmp_path_factory.mktemp("wallets")
    return {
        "validator": _new_wallet(root, "validator", "hot"),
        "miner": _new_wallet(root, "miner", "m1"),
        "stranger": _new_wallet(root, "stranger"),
    }


@pytest.fixture
def validator(wallets: dict[str, bt.Wallet]) -> bt.Wallet:
    return wallets["validator"]


@pytest.fixture
def substrate(wallets: dict[str, bt.Wallet]) -> InMemorySubstrate:
    """Subnet 7 at block 5000: the validator at uid 0 (stake, permit, IPv4 axon), then four miners."""
    chain = InMemorySubstrate(block=HEAD)
    chain.add_subnet(NETUID)
    validator = wallets["validator"]
    chain.add_neuron(
        NETUID,
        validator.hotkey.ss58_address,
        validator.coldkeypub.ss58_address,
        stake_rao=1_500 * 10**9,
        validator_permit=True,
        axon=("203.0.113.7", 8091, 4),
        registered_at=1200,
    )
    miner = wallets["miner"]
    chain.add_neuron(
        NETUID,
        miner.hotkey.ss58_address,
        miner.coldkeypub.ss58_address,
        stake_rao=2_500_000_000,
        axon=("2001:db8::1", 9000, 4),
        registered_at=1300,
        last_update=4900,
    )
    for i in range(2, MINERS + 1):
        chain.add_neuron(NETUID, ss58_for(f"miner-hot-{i}"), ss58_for(f"miner-cold-{i}"), registered_at=1300 + i)
    return chain


@pytest.fixture
def chain(substrate: InMemorySubstrate) -> Iterator[BittensorChain]:
    port = BittensorChain("local", NETUID, substrate=substrate)
    yield port
    port.close()


def _weight_calls(substrate: InMemorySubstrate) -> list:
    return [c for c in substrate.composed if c.name in {SET_WEIGHTS, COMMIT_WEIGHTS}]


# --- construction and reads -------------------------------------------------------------------------------------


def test_is_a_chain_port_and_connects_lazily(substrate: InMemorySubstrate) -> None:
    port = BittensorChain("local", NETUID, substrate=substrate)
    assert isinstance(port, ChainPort)
    assert substrate.connects == 0, "nothing may connect at construction"
    assert port.block() == HEAD
    assert substrate.connects == 1
    port.close()
    assert substrate.closes == 1
    substrate.advance(3)
    assert port.block() == HEAD + 3, "a closed chain reconnects on its next call"
    port.close()


def test_unknown_network_is_bad_input() -> None:
    with pytest.raises(ChainError) as raised:
        BittensorChain("mainnet", NETUID)
    assert raised.value.code == "bad_input"
    assert "mainnet" in raised.value.message and "--subtensor.network" in raised.value.message


def test_block_follows_the_chain(chain: BittensorChain, substrate: InMemorySubstrate) -> None:
    assert chain.block() == HEAD
    substrate.advance(12)
    assert chain.block() == HEAD + 12


def test_block_timestamp_is_timestamp_now_at_that_block(chain: BittensorChain, substrate: InMemorySubstrate) -> None:
    """What a sealed slot's eligible commitments are measured against (`arena.problems.seal.eligible_before`)."""
    assert chain.block_timestamp(HEAD) == (GENESIS_MS + HEAD * 12_000) / 1000
    substrate.advance(3)
    assert chain.block_timestamp(HEAD - 10) == (GENESIS_MS + (HEAD - 10) * 12_000) / 1000
    with pytest.raises(ChainError) as raised:
        chain.block_timestamp(HEAD + 100)
    assert str(HEAD + 100) in raised.value.message and "\n" not in raised.value.message


@pytest.mark.parametrize("back", [1, 5, BLOCK_HASH_COUNT], ids=["previous", "recent", "oldest-kept"])
def test_block_hash_of_a_recent_block(chain: BittensorChain, back: int) -> None:
    assert chain.block_hash(HEAD - back) == block_hash_of(HEAD - back)


@pytest.mark.parametrize("number", [HEAD, 0, 10, HEAD - BLOCK_HASH_COUNT - 1], ids=["head", "genesis", "old", "pruned"])
def test_block_hash_of_head_and_old_blocks(chain: BittensorChain, number: int) -> None:
    """The head's hash is not in `System.BlockHash` yet and old ones are pruned: the header answers for them."""
    found = chain.block_hash(number)
    assert found == block_hash_of(number)
    assert found.startswith("0x") and len(found) == 66


def test_block_hash_of_a_missing_block_is_not_found(chain: BittensorChain) -> None:
    with pytest.raises(ChainError) as raised:
        chain.block_hash(HEAD + 100)
    assert raised.value.code == "not_found"
    assert str(HEAD + 100) in raised.value.message
    with pytest.raises(ChainError) as raised:
        chain.block_hash(-1)
    assert raised.value.code == "bad_input"


def test_metagraph(chain: BittensorChain, substrate: InMemorySubstrate, wallets: dict[str, bt.Wallet]) -> None:
    graph = chain.metagraph()
    validator, miner = wallets["validator"], wallets["miner"]
    assert graph.netuid == NETUID and graph.block == HEAD
    assert graph.uids == list(range(MINERS + 1))
    assert graph.hotkeys == [
        validator.hotkey.ss58_address,
        miner.hotkey.ss58_address,
        *(ss58_for(f"miner-hot-{i}") for i in range(2, MINERS + 1)),
    ]
    assert [n.coldkey for n in graph.neurons] == [
        validator.coldkeypub.ss58_address,
        miner.coldkeypub.ss58_address,
        *(ss58_for(f"miner-cold-{i}") for i in range(2, MINERS + 1)),
    ]
    assert [n.stake for n in graph.neurons] == [1500.0, 2.5, 0.0, 0.0, 0.0]
    assert [n.validator_permit for n in graph.neurons] == [True, False, False, False, False]
    assert [n.block_at_registration for n in graph.neurons] == [1200, 1300, 1302, 1303, 1304]
    assert [n.last_update for n in graph.neurons] == [0, 4900, 0, 0, 0]

    v = graph.by_hotkey(validator.hotkey.ss58_address)
    assert v is not None and v.uid == 0 and v.axon is not None
    assert (v.axon.ip, v.axon.port, v.axon.protocol) == ("203.0.113.7", 8091, 4)
    assert v.axon.url == "http://203.0.113.7:8091"
    m = graph.by_uid(1)
    assert m is not None and m.axon is not None
    assert (m.axon.ip, m.axon.port) == ("2001:db8::1", 9000)
    assert m.axon.url == "http://[2001:db8::1]:9000"
    assert graph.by_uid(2) is not None and graph.by_uid(2).axon is None, "nothing served: no axon"


def test_metagraph_of_a_missing_subnet(substrate: InMemorySubstrate) -> None:
    port = BittensorChain("local", 99, substrate=substrate)
    try:
        with pytest.raises(ChainError) as raised:
            port.metagraph()
        assert raised.value.code == "no_subnet"
        assert "99" in raised.value.message
    finally:
        port.close()


# --- commitments -------------------------------------------------------------------------------------------------


def test_commitments_plain_revealed_and_sealed(
    chain: BittensorChain, substrate: InMemorySubstrate, wallets: dict[str, bt.Wallet]
) -> None:
    miner = wallets["miner"].hotkey.ss58_address
    revealer, sealer, gone = ss58_for("miner-hot-2"), ss58_for("miner-hot-3"), ss58_for("deregistered")
    substrate.put_commitment(NETUID, miner, "sha256:aa11 https://agents.example/m1.tar.gz", block=4100)
    substrate.put_revealed_commitment(NETUID, revealer, "sha256:bb22 https://x.example/b", reveal_block=4400)
    substrate.put_sealed_commitment(NETUID, sealer, block=4800, reveal_round=99_999_999)
    substrate.put_commitment(NETUID, gone, "sha256:cc33", block=3000)
    substrate.put_commitment(NETUID + 1, miner, "another subnet", block=4200)

    found = chain.commitments()

    assert set(found) == {miner, revealer, gone}, "a sealed commitment is not readable yet"
    assert found[miner].value == "sha256:aa11 https://agents.example/m1.tar.gz"
    assert (found[miner].uid, found[miner].block) == (1, 4100)
    assert found[revealer].value == "sha256:bb22 https://x.example/b"
    assert (found[revealer].uid, found[revealer].block) == (2, 4400)
    assert found[gone].uid is None and found[gone].value == "sha256:cc33"
    assert all(c.hotkey == hotkey for hotkey, c in found.items())


def test_set_commitment_sends_the_raw_call_signed_by_the_hotkey(
    chain: BittensorChain, substrate: InMemorySubstrate, wallets: dict[str, bt.Wallet]
) -> None:
    miner = wallets["miner"]
    data = "sha256:0f1e2d https://agents.example/m1.tar.gz"

    outcome = chain.set_commitment(miner, data)

    assert outcome.success, outcome.message
    assert outcome.call == "Commitments.set_commitment"
    call = substrate.composed[-1]
    assert call.name == "Commitments.set_commitment"
    assert call.params == {"netuid": NETUID, "info": {"fields": [[{f"Raw{len(data)}": data}]]}}
    sent = substrate.submitted[-1]
    assert sent.call is call and sent.success
    assert sent.signer == miner.hotkey.ss58_address and sent.signer != miner.coldkeypub.ss58_address
    assert sent.signature_valid
    assert outcome.block == sent.block == HEAD + 1
    assert outcome.extrinsic_id == f"{HEAD + 1}-0001" and outcome.block_hash == block_hash_of(HEAD + 1)
    assert outcome.data == {"field": f"Raw{len(data)}", "bytes": len(data)}

    published = chain.commitments()[miner.hotkey.ss58_address]
    assert (published.value, published.block, published.uid) == (data, HEAD + 1, 1)


def test_set_commitment_of_an_unregistered_hotkey(
    chain: BittensorChain, substrate: InMemorySubstrate, wallets: dict[str, bt.Wallet]
) -> None:
    stranger = wallets["stranger"]
    with pytest.raises(ChainError) as raised:
        chain.set_commitment(stranger, "sha256:abc")
    assert raised.value.code == "not_registered"
    assert stranger.hotkey.ss58_address in raised.value.message and str(NETUID) in raised.value.message
    assert substrate.submitted == []


@pytest.mark.parametrize(
    "data", ["x" * (MAX_COMMITMENT_BYTES + 1), "é" * 65, ""], ids=["129-ascii", "130-utf8", "empty"]
)
def test_set_commitment_of_bad_size_is_bad_input(
    chain: BittensorChain, substrate: InMemorySubstrate, wallets: dict[str, bt.Wallet], data: str
) -> None:
    with pytest.raises(ChainError) as raised:
        chain.set_commitment(wallets["miner"], data)
    assert raised.value.code == "bad_input"
    assert str(MAX_COMMITMENT_BYTES) in raised.value.message
    assert substrate.submitted == [] and substrate.composed == []


def test_set_commitment_of_exactly_the_limit(
    chain: BittensorChain, substrate: InMemorySubstrate, wallets: dict[str, bt.Wallet]
) -> None:
    data = "é" * (MAX_COMMITMENT_BYTES // 2)  # 128 bytes of UTF-8
    outcome = chain.set_commitment(wallets["miner"], data)
    assert outcome.success and outcome.data["field"] == "Raw128"
    assert chain.commitments()[wallets["miner"].hotkey.ss58_address].value == data


# --- weights -----------------------------------------------------------------------------------------------------


def test_set_weights_sends_the_sdk_vector(
    chain: BittensorChain, substrate: InMemorySubstrate, validator: bt.Wallet
) -> None:
    weights = {3: 0.125, 1: 0.5, 2: 0.25, 4: 0.125}
    expected_uids, expected_values = normalize(sorted(weights), [weights[u] for u in sorted(weights)])

    outcome = chain.set_weights(validator, weights, version_key=3)

    assert outcome.success, outcome.message
    assert outcome.call == SET_WEIGHTS
    (call,) = _weight_calls(substrate)
    assert call.params == {
        "netuid": NETUID,
        "mecid": 0,
        "dests": expected_uids,
        "weights": expected_values,
        "version_key": 3,
    }
    assert expected_uids == [1, 2, 3, 4] and expected_values == [65535, 32768, 16384, 16384]
    sent = substrate.submitted[-1]
    assert sent.call is call and sent.success and sent.signature_valid
    assert sent.signer == validator.hotkey.ss58_address
    assert outcome.data == {"netuid": NETUID, "version_key": 3, "uids": expected_uids, "weights": expected_values}
    assert outcome.block == sent.block == HEAD + 1
    stored = substrate.get("SubtensorModule", "Weights", [NETUID, 0])
    assert stored == list(zip(expected_uids, expected_values, strict=True))
    assert substrate.get("SubtensorModule", "LastUpdate", [NETUID])[0] == HEAD + 1


def test_set_weights_drops_zero_weights(
    chain: BittensorChain, substrate: InMemorySubstrate, validator: bt.Wallet
) -> None:
    outcome = chain.set_weights(validator, {0: 0.0, 1: 0.0, 2: 3.0, 4: 1.0})
    assert outcome.success
    assert (outcome.data["uids"], outcome.data["weights"]) == ([2, 4], [65535, 21845])
    assert _weight_calls(substrate)[-1].params["dests"] == [2, 4]


def test_set_weights_with_commit_reveal(
    chain: BittensorChain, substrate: InMemorySubstrate, validator: bt.Wallet
) -> None:
    substrate.set_hyperparameters(NETUID, commit_reveal=True)
    weights = {1: 0.6, 2: 0.3, 4: 0.1}

    outcome = chain.set_weights(validator, weights)

    assert outcome.success, outcome.message
    assert outcome.call == COMMIT_WEIGHTS
    (call,) = _weight_calls(substrate)
    assert call.name == COMMIT_WEIGHTS
    assert call.params["netuid"] == NETUID and call.params["mecid"] == 0
    assert call.params["commit_reveal_version"] == 4
    assert isinstance(call.params["commit"], bytes) and call.params["commit"]
    assert outcome.data["reveal_round"] == call.params["reveal_round"] > 0
    assert outcome.data["commit_reveal_version"] == 4
    assert (outcome.data["uids"], outcome.data["weights"]) == normalize([1, 2, 4], [0.6, 0.3, 0.1])
    sent = substrate.submitted[-1]
    assert sent.call is call and sent.signer == validator.hotkey.ss58_address and sent.success
    commits = substrate.storage[("SubtensorModule", "TimelockedWeightCommits")][(NETUID, sent.signer)]
    assert commits == [(HEAD + 1, call.params["commit"], call.params["reveal_round"])]
    assert substrate.get("SubtensorModule", "Weights", [NETUID, 0]) is None, "weights stay hidden until revealed"


def test_rate_limit_state(
    chain: BittensorChain, substrate: InMemorySubstrate, validator: bt.Wallet, wallets: dict[str, bt.Wallet]
) -> None:
    hotkey = validator.hotkey.ss58_address
    fresh = chain.rate_limit(hotkey)
    assert (fresh.weights_rate_limit, fresh.blocks_since_last_update, fresh.block) == (100, None, HEAD)
    assert fresh.ready and fresh.blocks_to_wait == 0

    substrate.set_hyperparameters(NETUID, weights_rate_limit=50)
    substrate.set_last_update(NETUID, 0, HEAD - 20)
    waiting = chain.rate_limit(hotkey)
    assert (waiting.weights_rate_limit, waiting.blocks_since_last_update) == (50, 20)
    assert not waiting.ready and waiting.blocks_to_wait == 30

    substrate.advance(30)
    ready = chain.rate_limit(hotkey)
    assert ready.blocks_since_last_update == 50 and ready.block == HEAD + 30
    assert ready.ready and ready.blocks_to_wait == 0

    miner = chain.rate_limit(wallets["miner"].hotkey.ss58_address)
    assert miner.blocks_since_last_update == HEAD + 30 - 4900
    stranger = chain.rate_limit(wallets["stranger"].hotkey.ss58_address)
    assert stranger.blocks_since_last_update is None


def test_set_weights_twice_is_rate_limited(
    chain: BittensorChain, substrate: InMemorySubstrate, validator: bt.Wallet
) -> None:
    assert chain.set_weights(validator, {1: 1.0, 2: 1.0}).success
    after = chain.rate_limit(validator.hotkey.ss58_address)
    assert after.blocks_since_last_update == 0 and after.blocks_to_wait == 100
    submitted = len(substrate.submitted)

    with pytest.raises(ChainError) as raised:
        chain.set_weights(validator, {1: 1.0, 2: 1.0})

    assert raised.value.code == "rate_limited"
    assert raised.value.retry_in_blocks == 100
    assert len(substrate.submitted) == submitted, "nothing may be submitted while rate-limited"


def test_set_weights_rate_limited_by_last_update(
    chain: BittensorChain, substrate: InMemorySubstrate, validator: bt.Wallet
) -> None:
    substrate.set_last_update(NETUID, 0, HEAD - 40)  # WeightsSetRateLimit is 100
    with pytest.raises(ChainError) as raised:
        chain.set_weights(validator, {1: 0.5, 2: 0.5})
    assert raised.value.code == "rate_limited"
    assert raised.value.retry_in_blocks == 60 == chain.rate_limit(validator.hotkey.ss58_address).blocks_to_wait
    assert "60 blocks" in raised.value.message and validator.hotkey.ss58_address in raised.value.message
    assert _weight_calls(substrate) == [] and substrate.submitted == []

    substrate.advance(60)
    assert chain.set_weights(validator, {1: 0.5, 2: 0.5}).success


def test_set_weights_of_an_unregistered_hotkey(
    chain: BittensorChain, substrate: InMemorySubstrate, wallets: dict[str, bt.Wallet]
) -> None:
    stranger = wallets["stranger"]
    with pytest.raises(ChainError) as raised:
        chain.set_weights(stranger, {1: 1.0})
    assert raised.value.code == "not_registered"
    assert stranger.hotkey.ss58_address in raised.value.message
    assert substrate.submitted == []


@pytest.mark.parametrize("limit", [32_767, 29_000, 26_214, 19_661])
@pytest.mark.parametrize(
    "weights",
    [
        {1: 0.5, 2: 0.3, 3: 0.15, 4: 0.05},
        {0: 0.75, 1: 0.25, 2: 0.1, 3: 0.1, 4: 0.01},
        {1: 0.9, 2: 0.04, 3: 0.03, 4: 0.03},
    ],
    ids=["taper", "burn-heavy", "winner"],
)
def test_set_weights_under_max_weights_limit(
    chain: BittensorChain, substrate: InMemorySubstrate, validator: bt.Wallet, limit: int, weights: dict[int, float]
) -> None:
    """The vector is clipped under `MaxWeightsLimit` and the chain accepts it (no `MaxWeightExceeded`)."""
    substrate.set_hyperparameters(NETUID, max_weights_limit=limit)

    outcome = chain.set_weights(validator, weights)

    assert outcome.success, outcome.message
    (call,) = _weight_calls(substrate)
    dests, values = call.params["dests"], call.params["weights"]
    assert (outcome.data["uids"], outcome.data["weights"]) == (dests, values)
    assert max(values) * U16_MAX <= limit * sum(values), "the largest share is within the limit"
    uids = sorted(weights)
    unclipped = normalize(uids, [weights[u] for u in uids])[1]
    assert values != unclipped, "the vector really was clipped"
    sdk = normalize(uids, clip_to_max_weight([weights[u] for u in uids], limit / U16_MAX))
    assert dests == sdk[0]
    assert all(abs(a - b) <= 0.002 * U16_MAX for a, b in zip(values, sdk[1], strict=True)), (
        "the clip matches the SDK's up to its rounding margin"
    )
    order = sorted(uids, key=lambda u: -weights[u])
    by_uid = dict(zip(dests, values, strict=True))
    assert [by_uid[u] for u in order] == sorted(values, reverse=True), "clipping keeps the ranking"


def test_set_weights_with_too_few_weights_is_bad_input(
    chain: BittensorChain, substrate: InMemorySubstrate, validator: bt.Wallet
) -> None:
    substrate.set_hyperparameters(NETUID, min_allowed_weights=3)
    with pytest.raises(ChainError) as raised:
        chain.set_weights(validator, {1: 0.7, 2: 0.3})
    assert raised.value.code == "bad_input"
    assert "3" in raised.value.message
    assert substrate.submitted == []


@pytest.mark.parametrize(
    "weights",
    [{}, {1: 0.0, 2: 0.0}, {1: -1.0, 2: 1.0}, {1: float("nan")}],
    ids=["empty", "all-zero", "negative", "nan"],
)
def test_set_weights_of_a_bad_vector_is_bad_input(
    chain: BittensorChain, substrate: InMemorySubstrate, validator: bt.Wallet, weights: dict[int, float]
) -> None:
    with pytest.raises(ChainError) as raised:
        chain.set_weights(validator, weights)
    assert raised.value.code == "bad_input"
    assert substrate.submitted == []


def test_set_weights_rejected_on_chain_is_a_failed_outcome(
    chain: BittensorChain, substrate: InMemorySubstrate, validator: bt.Wallet
) -> None:
    """What the SDK does not preflight (the version key) fails on chain: reported, not raised, and not applied."""
    substrate.set_hyperparameters(NETUID, weights_version_key=9)

    outcome = chain.set_weights(validator, {1: 1.0, 2: 0.5}, version_key=2)

    assert not outcome.success
    assert outcome.call == SET_WEIGHTS
    assert outcome.data["error"]["name"] == "IncorrectWeightVersionKey"
    assert outcome.block == HEAD + 1 and outcome.extrinsic_id == f"{HEAD + 1}-0001"
    assert outcome.message.startswith(f"cannot set weights on netuid {NETUID}")
    assert substrate.submitted[-1].error == "IncorrectWeightVersionKey"
    assert substrate.get("SubtensorModule", "Weights", [NETUID, 0]) is None
    assert chain.rate_limit(validator.hotkey.ss58_address).blocks_since_last_update is None


# --- wallets -----------------------------------------------------------------------------------------------------


def test_load_wallet(tmp_path: Path) -> None:
    created = _new_wallet(tmp_path / "wallets", "owner", "validator")

    loaded = load_wallet("owner", "validator", tmp_path / "wallets")

    assert isinstance(loaded, bt.Wallet)
    assert loaded.hotkey.ss58_address == created.hotkey.ss58_address
    assert loaded.coldkeypub.ss58_address == created.coldkeypub.ss58_address
    message = b"shoparena"
    assert bt.sp_core.Keypair(ss58_address=created.hotkey.ss58_address).verify(message, loaded.hotkey.sign(message))


def test_load_wallet_expands_the_home_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    created = _new_wallet(tmp_path / ".bittensor" / "wallets", "default", "default")
    assert load_wallet("default", "default", "~/.bittensor/wallets").hotkey.ss58_address == created.hotkey.ss58_address


def test_load_wallet_needs_no_coldkey(tmp_path: Path) -> None:
    wallet = bt.Wallet(name="hotonly", hotkey="h", path=str(tmp_path))
    wallet.create_new_hotkey(use_password=False, suppress=True)
    assert load_wallet("hotonly", "h", tmp_path).hotkey.ss58_address == wallet.hotkey.ss58_address


def test_load_wallet_missing(tmp_path: Path) -> None:
    _new_wallet(tmp_path, "owner", "validator")
    with pytest.raises(ChainError) as raised:
        load_wallet("owner", "other", tmp_path)
    error = raised.value
    assert error.code == "no_wallet"
    assert str(tmp_path / "owner" / "hotkeys" / "other") in error.message
    assert "btcli wallet new-hotkey" in error.message
    assert "--wallet owner" in error.message and "--wallet-hotkey other" in error.message
    assert "\n" not in error.message

    with pytest.raises(ChainError) as raised:
        load_wallet("nobody", "default", tmp_path / "nowhere")
    assert raised.value.code == "no_wallet" and str(tmp_path / "nowhere") in raised.value.message


def test_encrypted_hotkey_is_refused_without_prompting(
    tmp_path: Path, chain: BittensorChain, substrate: InMemorySubstrate
) -> None:
    wallet = _new_wallet(tmp_path, "locked", "hot", password="correct horse")
    substrate.add_neuron(NETUID, wallet.hotkeypub.ss58_address, wallet.coldkeypub.ss58_address)

    with pytest.raises(ChainError) as raised:
        load_wallet("locked", "hot", tmp_path)
    assert raised.value.code == "bad_wallet" and "encrypted" in raised.value.message

    reopened = bt.Wallet(name="locked", hotkey="hot", path=str(tmp_path))
    for attempt in (lambda: chain.set_weights(reopened, {1: 1.0}), lambda: chain.set_commitment(reopened, "x")):
        with pytest.raises(ChainError) as raised:
            attempt()
        assert raised.value.code == "bad_wallet"
    assert substrate.submitted == []


def test_signing_with_a_deleted_hotkey_names_the_file(
    tmp_path: Path, chain: BittensorChain, substrate: InMemorySubstrate
) -> None:
    wallet = _new_wallet(tmp_path, "vanishing", "hot")
    Path(wallet.hotkey_file.path).unlink()
    with pytest.raises(ChainError) as raised:
        chain.set_weights(wallet, {1: 1.0})
    assert raised.value.code == "no_wallet" and wallet.hotkey_file.path in raised.value.message
    assert substrate.submitted == []


# --- an unreachable node -----------------------------------------------------------------------------------------


class DroppingNode:
    """A TCP listener on loopback where no chain node answers: it accepts every connection and closes it at once,
    counting them."""

    def __init__(self) -> None:
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.url = f"ws://127.0.0.1:{self.listener.getsockname()[1]}"
        self.connections = 0
        self._limit: int | None = None
        self._wake = threading.Event()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.connections += 1  # counted before the close the client sees, so never after the client gave up
            connection.close()
            if self._limit is not None and self.connections > self._limit:
                self._wake.set()  # a client retrying forever: stop waiting for it

    def attempts(self, call: Callable[[], object], limit: int = 20) -> tuple[int, BaseException | None]:
        """Runs `call` until it returns or raises (what it raised is given back with the connections it made), or
        fails the test once it has made more than `limit` connections (a client that retries forever; it is left
        retrying in its daemon thread)."""
        before, out = self.connections, {}
        finished = threading.Event()
        self._wake.clear()
        self._limit = before + limit

        def run() -> None:
            try:
                call()
            except BaseException as exc:  # noqa: BLE001 - handed back to the test
                out["raised"] = exc
            finished.set()
            self._wake.set()

        threading.Thread(target=run, daemon=True).start()
        self._wake.wait()
        assert finished.is_set(), f"the client kept retrying an unreachable node ({self.connections - before} tries)"
        return self.connections - before, out.get("raised")

    def close(self) -> None:
        self.listener.close()


@pytest.mark.slow  # a listener on loopback stands for the unreachable node
@pytest.mark.parametrize("pinned", [False, True], ids=["network-url", "local-with-endpoint"])
def test_unreachable_endpoint(pinned: bool, validator: bt.Wallet) -> None:
    node = DroppingNode()
    port = BittensorChain("local", NETUID, chain_endpoint=node.url) if pinned else BittensorChain(node.url, NETUID)
    try:
        for call in (port.block, port.metagraph, lambda: port.set_weights(validator, {1: 1.0})):
            connections, error = node.attempts(call)
            assert 1 <= connections <= 3, f"an unreachable node is tried a few times, not {connections}"
            assert isinstance(error, ChainError), error
            assert error.code == "unreachable"
            assert node.url in error.message and "--subtensor.chain_endpoint" in error.message
            assert "\n" not in error.message and "Traceback" not in error.message
    finally:
        port.close()
        node.close()
