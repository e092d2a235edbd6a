"""Results commitments and the weights read through `BittensorChain`, the real bittensor SDK at its substrate seam
(`tests.support.substrate`): a validator commits ``sr1:<sha256>`` with its hotkey, every permit holder's results
commitment is read back with its block, permit and stake, and a weight row set through the SDK reads back u16 for u16
as the audit compares it."""

from __future__ import annotations

from pathlib import Path

import bittensor as bt
import pytest

from tests.support.substrate import InMemorySubstrate
from validator.audit import u16_row
from validator.chain.bittensor_chain import BittensorChain, create_wallet
from validator.chain.commitment import encode_commitment
from validator.chain.results import commit_results, results_commitments

NETUID = 7


@pytest.fixture(autouse=True)
def _private_sdk_cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BTCLI_TOKEN_SYMBOLS_CACHE", str(tmp_path / "token_symbols.json"))


def test_results_commitments_and_weights_through_the_sdk(tmp_path: Path) -> None:
    wallets = {n: create_wallet(n, "hot", tmp_path / "wallets") for n in ("val", "other", "miner")}
    substrate = InMemorySubstrate(block=5000)
    substrate.add_subnet(NETUID)
    for name, permit, stake in (("val", True, 1_500), ("other", True, 700), ("miner", False, 0)):
        w: bt.Wallet = wallets[name]
        substrate.add_neuron(
            NETUID,
            w.hotkey.ss58_address,
            w.coldkeypub.ss58_address,
            stake_rao=stake * 10**9,
            validator_permit=permit,
            registered_at=1000,
        )
    chain = BittensorChain("local", NETUID, substrate=substrate)
    try:
        sha = "ab" * 32
        outcome = commit_results(chain, wallets["val"], sha, "https://bucket.example/v1")
        assert outcome.success
        substrate.put_commitment(NETUID, wallets["other"].hotkey.ss58_address, f"sr1:{'cd' * 32}", block=4990)
        substrate.put_commitment(NETUID, wallets["miner"].hotkey.ss58_address, encode_commitment("ef" * 32), block=4000)
        found = {c.hotkey: c for c in results_commitments(chain)}
        assert set(found) == {wallets["val"].hotkey.ss58_address, wallets["other"].hotkey.ss58_address}
        mine = found[wallets["val"].hotkey.ss58_address]
        assert (mine.sha256, mine.url, mine.validator_permit) == (sha, "https://bucket.example/v1", True)
        assert mine.block > 5000 and mine.stake == pytest.approx(1_500.0)
        assert found[wallets["other"].hotkey.ss58_address].block == 4990

        vector = {0: 0.25, 2: 0.75}
        assert chain.set_weights(wallets["val"], vector).success
        rows = chain.weights()
        assert u16_row(rows[0]) == u16_row(vector) == {0: 21845, 2: 65535}
    finally:
        chain.close()
