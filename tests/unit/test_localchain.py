"""LocalChain: the dev chain in a SQLite file, exercised with real files, real wallets and real processes."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import bittensor as bt
import pytest
from bittensor.intents.weights import normalize
from bittensor.sp_core import Keypair

from validator.chain.local import LocalChain
from validator.chain.port import MAX_COMMITMENT_BYTES, ChainError, ChainPort

GENESIS = 1_700_000_000.0
REPO = Path(__file__).resolve().parents[2]


class Clock:
    """Wall time under the test's control; `blocks(n)` moves it forward by n whole blocks of 12 s."""

    def __init__(self, now: float = GENESIS) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds

    def blocks(self, n: int) -> None:
        self.now += 12.0 * n


@pytest.fixture
def clock() -> Clock:
    return Clock()


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "chain" / "localchain.sqlite"


@pytest.fixture
def chain(path: Path, clock: Clock) -> Iterator[LocalChain]:
    chain = LocalChain.init(path, netuid=7, block_time=12.0, weights_rate_limit=100, clock=clock)
    yield chain
    chain.close()


def make_wallet(tmp_path: Path, name: str) -> bt.Wallet:
    wallet = bt.Wallet(name=name, hotkey="default", path=str(tmp_path / "wallets"))
    wallet.create_new_coldkey(use_password=False, suppress=True)
    wallet.create_new_hotkey(use_password=False, suppress=True)
    return wallet


def raises(code: str, fn: Callable[..., object], *args: object, **kwargs: object) -> ChainError:
    with pytest.raises(ChainError) as caught:
        fn(*args, **kwargs)
    assert caught.value.code == code, caught.value.message
    assert "\n" not in caught.value.message
    return caught.value


# --- the file ----------------------------------------------------------------------------------------------------


def test_missing_file_is_one_line_saying_how_to_create_it_and_nothing_is_created(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere" / "chain.sqlite"
    error = raises("no_chain", LocalChain, missing)
    assert str(error) == (
        f"no LocalChain at {missing}; create it with `arena-validator localchain init --localchain.path {missing}`"
    )
    assert not missing.exists() and not missing.parent.exists()


def test_init_refuses_an_existing_chain_and_overwrite_starts_a_new_one(path: Path, clock: Clock) -> None:
    first = LocalChain.init(path, clock=clock)
    first.register_hotkey(
        Keypair.create_from_uri("//Alice").ss58_address, Keypair.create_from_uri("//Bob").ss58_address
    )
    genesis_hash = first.block_hash(0)
    raises("exists", LocalChain.init, path, clock=clock)
    assert len(LocalChain(path, clock=clock).metagraph().neurons) == 1  # untouched

    second = LocalChain.init(path, netuid=3, overwrite=True, clock=clock)
    assert second.netuid == 3 and second.metagraph().neurons == []
    assert second.block_hash(0) != genesis_hash
    assert sorted(p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")) == []


def test_a_file_that_is_not_a_chain_is_refused(tmp_path: Path) -> None:
    junk = tmp_path / "notes.sqlite"
    junk.write_text("not a database " * 100)
    raises("bad_chain", LocalChain, junk)


def test_it_implements_the_chain_port(chain: LocalChain, path: Path) -> None:
    assert isinstance(chain, ChainPort)
    assert chain.network == "localchain"
    assert chain.netuid == 7 and LocalChain(path).netuid == 7


# --- blocks ------------------------------------------------------------------------------------------------------


def test_blocks_advance_with_time_and_hashes_agree_across_instances(
    chain: LocalChain, path: Path, clock: Clock
) -> None:
    assert chain.block() == 0
    clock.advance(11.9)
    assert chain.block() == 0
    clock.advance(0.1)
    assert chain.block() == 1
    clock.blocks(41)
    assert chain.block() == 42

    other = LocalChain(path, clock=clock)
    assert other.block() == 42
    hashes = [chain.block_hash(n) for n in range(43)]
    assert hashes == [other.block_hash(n) for n in range(43)]
    assert len(set(hashes)) == 43
    assert all(h.startswith("0x") and len(h) == 66 and int(h, 16) for h in hashes)

    error = raises("not_found", chain.block_hash, 43)
    assert "43" in str(error)
    raises("bad_input", chain.block_hash, -1)
    clock.blocks(1)
    assert other.block_hash(43) == chain.block_hash(43)  # produced now; the same everywhere

    info = other.info()
    assert (
        info["netuid"],
        info["block_time"],
        info["weights_rate_limit"],
        info["genesis_time"],
        info["block"],
        info["neurons"],
    ) == (7, 12.0, 100, GENESIS, 43, 0)


def test_a_stalled_chain_makes_no_block_and_every_later_block_comes_that_much_later(
    chain: LocalChain, path: Path, clock: Clock, tmp_path: Path
) -> None:
    clock.blocks(7)
    clock.advance(3.0)
    assert chain.stall(100.0) == 7  # block 8 comes 100 s late, for every process reading the file
    other = LocalChain(path, clock=clock)
    clock.advance(100.0)  # block 8 was due 91 s ago, it comes in 9 s
    assert (chain.block(), other.block()) == (7, 7)
    raises("not_found", other.block_hash, 8)
    clock.advance(8.9)
    assert other.block() == 7
    clock.advance(0.1)
    assert (chain.block(), other.block()) == (8, 8)
    clock.blocks(2)
    assert other.block() == 10
    assert [other.block_timestamp(n) for n in (0, 7, 8, 10)] == [
        GENESIS,
        GENESIS + 7 * 12.0,
        GENESIS + 8 * 12.0 + 100.0,
        GENESIS + 10 * 12.0 + 100.0,
    ]
    raises("not_found", other.block_timestamp, 11)
    raises("bad_input", chain.stall, 0)
    # a commitment made during a stall lands in the block the chain is stuck at
    clock.advance(5.0)
    chain.stall(30.0)
    clock.advance(20.0)
    wallet = make_wallet(tmp_path, "miner")
    chain.register(wallet)
    assert chain.set_commitment(wallet, "sa1:" + "ab" * 32).block == 10


def test_a_recorded_pulse_is_published_when_its_block_was_due_and_shows_from_the_first_block_after(
    chain: LocalChain, clock: Clock
) -> None:
    from arena.beacon import QUICKNET_ROUND_1000, published_at, time_of_round

    assert chain.round_time(1000) is None and published_at(1000, chain=chain) == time_of_round(1000)
    chain.publish_pulse(1000, QUICKNET_ROUND_1000, reveal_block=10)
    assert published_at(1000, chain=chain) == chain.round_time(1000) == GENESIS + 10 * 12.0
    clock.blocks(8)
    chain.stall(60.0)  # stuck at block 8 while the round comes out (at block 10's due time)
    clock.blocks(4)
    assert chain.block() == 8 and chain.drand_pulse(1000) is None  # out, but no block has shown it yet
    clock.advance(24.0)  # block 9, 60 s late
    assert chain.block() == 9 and chain.drand_pulse(1000) == QUICKNET_ROUND_1000


def test_two_chains_have_different_hashes(tmp_path: Path, clock: Clock) -> None:
    a = LocalChain.init(tmp_path / "a.sqlite", clock=clock)
    b = LocalChain.init(tmp_path / "b.sqlite", clock=clock)
    assert a.block_hash(0) != b.block_hash(0)


# --- registration ------------------------------------------------------------------------------------------------


def test_register_assigns_sequential_uids_and_is_idempotent(
    chain: LocalChain, path: Path, clock: Clock, tmp_path: Path
) -> None:
    alice, bob = make_wallet(tmp_path, "alice"), make_wallet(tmp_path, "bob")
    first = chain.register(alice, validator_permit=True, stake=1000.0)
    assert (first.uid, first.hotkey, first.coldkey) == (0, alice.hotkey.ss58_address, alice.coldkeypub.ss58_address)
    assert first.validator_permit and first.stake == 1000.0 and first.block_at_registration == 0

    clock.blocks(5)
    second = chain.register(bob)
    assert (second.uid, second.block_at_registration, second.validator_permit) == (1, 5, False)
    assert chain.register(alice) == first
    raw = chain.register_hotkey(
        Keypair.create_from_uri("//Charlie").ss58_address, Keypair.create_from_uri("//Dave").ss58_address
    )
    assert raw.uid == 2

    graph = LocalChain(path, clock=clock).metagraph()
    assert graph.netuid == 7 and graph.block == 5
    assert graph.uids == [0, 1, 2]
    assert graph.hotkeys == [alice.hotkey.ss58_address, bob.hotkey.ss58_address, raw.hotkey]
    assert graph.by_uid(0) == first

    raises("bad_input", chain.register_hotkey, "not-an-address", raw.coldkey)


def test_a_full_subnet_refuses_registration(tmp_path: Path, clock: Clock) -> None:
    chain = LocalChain.init(tmp_path / "small.sqlite", max_neurons=2, clock=clock)
    cold = Keypair.create_from_uri("//Cold").ss58_address
    for name in ("//A", "//B"):
        chain.register_hotkey(Keypair.create_from_uri(name).ss58_address, cold)
    raises("subnet_full", chain.register_hotkey, Keypair.create_from_uri("//C").ss58_address, cold)
    assert chain.register_hotkey(Keypair.create_from_uri("//A").ss58_address, cold).uid == 0  # still idempotent


def test_serve_axon_needs_registration_and_shows_in_the_metagraph(chain: LocalChain, tmp_path: Path) -> None:
    miner = make_wallet(tmp_path, "miner")
    raises("not_registered", chain.serve_axon, miner, "10.0.0.2", 8091)
    chain.register(miner)
    outcome = chain.serve_axon(miner, "10.0.0.2", 8091)
    assert outcome.success and outcome.call == "SubtensorModule.serve_axon"
    axon = chain.metagraph().by_hotkey(miner.hotkey.ss58_address).axon
    assert axon is not None and axon.url == "http://10.0.0.2:8091"
    raises("bad_input", chain.serve_axon, miner, "not-an-ip", 8091)


# --- commitments -------------------------------------------------------------------------------------------------


def test_commitments_round_trip_and_keep_the_latest(
    chain: LocalChain, path: Path, clock: Clock, tmp_path: Path
) -> None:
    miner = make_wallet(tmp_path, "miner")
    neuron = chain.register(miner)
    clock.blocks(3)
    outcome = chain.set_commitment(miner, "sha256:aa@https://example.org/a.tar.gz")
    assert outcome.success and outcome.call == "Commitments.set_commitment"
    assert outcome.block == 3 and outcome.block_hash == chain.block_hash(3)

    clock.blocks(2)
    chain.set_commitment(miner, "sha256:bb@https://example.org/b.tar.gz")
    seen = LocalChain(path, clock=clock).commitments()
    assert list(seen) == [miner.hotkey.ss58_address]
    commitment = seen[miner.hotkey.ss58_address]
    assert (commitment.value, commitment.block, commitment.uid) == (
        "sha256:bb@https://example.org/b.tar.gz",
        5,
        neuron.uid,
    )


def test_commitments_are_at_most_128_utf8_bytes(chain: LocalChain, tmp_path: Path) -> None:
    miner = make_wallet(tmp_path, "miner")
    chain.register(miner)
    chain.set_commitment(miner, "x" * MAX_COMMITMENT_BYTES)
    raises("bad_input", chain.set_commitment, miner, "x" * (MAX_COMMITMENT_BYTES + 1))
    raises("bad_input", chain.set_commitment, miner, "é" * 65)  # 65 characters, 130 bytes
    raises("bad_input", chain.set_commitment, miner, "")
    assert chain.commitments()[miner.hotkey.ss58_address].value == "x" * MAX_COMMITMENT_BYTES


def test_an_unregistered_hotkey_cannot_commit(chain: LocalChain, tmp_path: Path) -> None:
    stranger = make_wallet(tmp_path, "stranger")
    error = raises("not_registered", chain.set_commitment, stranger, "hello")
    assert stranger.hotkey.ss58_address in str(error)
    assert "arena-validator localchain register" in str(error)
    assert chain.commitments() == {}


def test_a_missing_hotkey_file_is_a_wallet_error(chain: LocalChain, tmp_path: Path) -> None:
    ghost = bt.Wallet(name="ghost", hotkey="none", path=str(tmp_path / "wallets"))
    error = raises("no_wallet", chain.set_commitment, ghost, "hello")
    assert "ghost" in str(error)


# --- weights -----------------------------------------------------------------------------------------------------


@pytest.fixture
def subnet(chain: LocalChain, tmp_path: Path) -> tuple[LocalChain, bt.Wallet]:
    """A validator with a permit at uid 0 and three miners at uids 1..3."""
    validator = make_wallet(tmp_path, "validator")
    chain.register(validator, validator_permit=True)
    cold = Keypair.create_from_uri("//Miners").ss58_address
    for n in range(3):
        chain.register_hotkey(Keypair.create_from_uri(f"//Miner{n}").ss58_address, cold)
    return chain, validator


def test_set_weights_stores_the_sdk_u16_vector(subnet: tuple[LocalChain, bt.Wallet], path: Path, clock: Clock) -> None:
    chain, validator = subnet
    clock.blocks(10)
    outcome = chain.set_weights(validator, {3: 0.2, 1: 0.5, 2: 0.0}, version_key=5)
    expected_uids, expected_u16 = normalize([1, 2, 3], [0.5, 0.0, 0.2])
    assert (outcome.data["uids"], outcome.data["weights"]) == (expected_uids, expected_u16) == ([1, 3], [65535, 26214])
    assert outcome.success and outcome.call == "SubtensorModule.set_mechanism_weights" and outcome.block == 10
    assert outcome.block_hash == chain.block_hash(10)

    other = LocalChain(path, clock=clock)
    assert other.weight_history() == [
        {
            "uid": 0,
            "hotkey": validator.hotkey.ss58_address,
            "block": 10,
            "uids": [1, 3],
            "weights": [65535, 26214],
            "version_key": 5,
            "extrinsic_id": outcome.extrinsic_id,
        }
    ]
    row = other.weights()[0]
    assert set(row) == {1, 3}
    assert row[1] == pytest.approx(65535 / (65535 + 26214)) and sum(row.values()) == pytest.approx(1.0)
    assert other.metagraph().by_uid(0).last_update == 10


def test_set_weights_requires_a_validator_permit(subnet: tuple[LocalChain, bt.Wallet], tmp_path: Path) -> None:
    chain, _ = subnet
    miner = make_wallet(tmp_path, "miner")
    chain.register(miner)
    raises("no_permit", chain.set_weights, miner, {1: 1.0})
    assert chain.weight_history() == []
    chain.set_validator_permit(miner.hotkey.ss58_address, True)
    assert chain.set_weights(miner, {1: 1.0}).success
    raises("not_registered", chain.set_validator_permit, Keypair.create_from_uri("//Nobody").ss58_address, True)


def test_set_weights_refuses_unregistered_unknown_and_empty(
    subnet: tuple[LocalChain, bt.Wallet], tmp_path: Path
) -> None:
    chain, validator = subnet
    raises("not_registered", chain.set_weights, make_wallet(tmp_path, "stranger"), {1: 1.0})
    error = raises("bad_input", chain.set_weights, validator, {1: 1.0, 9: 1.0})
    assert "9" in str(error)
    raises("bad_input", chain.set_weights, validator, {})
    raises("bad_input", chain.set_weights, validator, {1: 0.0})
    raises("bad_input", chain.set_weights, validator, {1: -1.0})
    assert chain.weight_history() == []
    assert chain.rate_limit(validator.hotkey.ss58_address).blocks_since_last_update is None  # nothing counted


def test_the_weights_rate_limit_blocks_then_allows(
    subnet: tuple[LocalChain, bt.Wallet], path: Path, clock: Clock
) -> None:
    chain, validator = subnet
    hotkey = validator.hotkey.ss58_address
    state = chain.rate_limit(hotkey)
    assert state.ready and state.blocks_since_last_update is None and state.weights_rate_limit == 100

    clock.blocks(20)
    chain.set_weights(validator, {1: 1.0})
    clock.blocks(40)
    error = raises("rate_limited", chain.set_weights, validator, {2: 1.0})
    assert error.retry_in_blocks == 60
    other = LocalChain(path, clock=clock)  # another process sees the same limit
    raises("rate_limited", other.set_weights, validator, {2: 1.0})
    state = other.rate_limit(hotkey)
    assert (state.ready, state.blocks_since_last_update, state.blocks_to_wait, state.block) == (False, 40, 60, 60)

    clock.blocks(59)
    assert raises("rate_limited", chain.set_weights, validator, {2: 1.0}).retry_in_blocks == 1
    assert [entry["uids"] for entry in chain.weight_history()] == [[1]]  # refused attempts store nothing
    assert chain.metagraph().by_uid(0).last_update == 20

    clock.blocks(1)
    assert chain.rate_limit(hotkey).ready
    outcome = chain.set_weights(validator, {2: 1.0})
    assert outcome.block == 120
    assert [(e["block"], e["uids"]) for e in other.weight_history()] == [(20, [1]), (120, [2])]
    assert other.weights() == {0: {2: 1.0}}
    assert raises("rate_limited", chain.set_weights, validator, {3: 1.0}).retry_in_blocks == 100


# --- several processes on one file -------------------------------------------------------------------------------

CHILD = textwrap.dedent("""
    import sys, time
    from pathlib import Path
    import bittensor as bt
    from bittensor.sp_core import Keypair
    from validator.chain.local import LocalChain

    path, wallets, tag, barrier = sys.argv[1], sys.argv[2], sys.argv[3], Path(sys.argv[4])
    chain = LocalChain(path)
    (barrier / tag).touch()
    deadline = time.time() + 15
    while len(list(barrier.iterdir())) < 2 and time.time() < deadline:
        time.sleep(0.01)
    wallet = bt.Wallet(name=tag, hotkey="default", path=wallets)
    chain.register(wallet)
    cold = Keypair.create_from_uri(f"//{tag}").ss58_address
    for k in range(25):
        chain.register_hotkey(Keypair.create_from_uri(f"//{tag}/{k}").ss58_address, cold)
        chain.set_commitment(wallet, f"{tag}-{k}")
    chain.close()
""")


@pytest.mark.slow  # two processes write one chain file
def test_two_processes_writing_one_file_lose_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    LocalChain.init(path)
    wallets = [make_wallet(tmp_path, tag) for tag in ("p0", "p1")]
    barrier = tmp_path / "barrier"
    barrier.mkdir()
    children = [
        subprocess.Popen(
            [sys.executable, "-c", CHILD, str(path), str(tmp_path / "wallets"), wallet.name, str(barrier)],
            cwd=REPO,
            stderr=subprocess.PIPE,
            text=True,
        )
        for wallet in wallets
    ]
    for child in children:
        _, stderr = child.communicate(timeout=60)
        assert child.returncode == 0, stderr

    chain = LocalChain(path)
    graph = chain.metagraph()
    assert graph.uids == list(range(52))
    assert len(set(graph.hotkeys)) == 52
    commitments = chain.commitments()
    assert {commitments[w.hotkey.ss58_address].value for w in wallets} == {"p0-24", "p1-24"}
    assert chain.info()["extrinsics"] == 52 + 50
