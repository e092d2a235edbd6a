"""Where a validator gets a drand round's signature to open a sealed batch: LocalChain's recorded pulses (shown from
a block height), subtensor's Drand pallet through the real bittensor SDK (at its substrate interface), and a drand
HTTP relay (a real HTTP server answering as drand's relays do). Every source gives the real quicknet round 1000."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from arena.beacon import QUICKNET_CHAIN_HASH, QUICKNET_ROUND_1000, BeaconError, DrandRelay, round_signature
from arena.problems.seal import SealError, open_batch, seal_batch
from arena.tasks.shopping.problem import Problem
from tests.support.substrate import InMemorySubstrate
from validator.chain.bittensor_chain import BittensorChain
from validator.chain.local import LocalChain

BATCH = seal_batch(
    [
        Problem(
            problem_id="r1",
            task="product",
            split="race",
            query="a lamp",
            reward=[{"product_id": "42", "title": ["Desk Lamp"]}],
        )
    ],
    slot=0,
    open_block=10,
    reveal_round=1000,
)


class Clock:
    def __init__(self, now: float) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_localchain_shows_a_recorded_pulse_from_its_block_on(tmp_path: Path) -> None:
    LocalChain.init(tmp_path / "c.sqlite", netuid=1, block_time=2.0)
    genesis = LocalChain(tmp_path / "c.sqlite").genesis_time
    clock = Clock(genesis + 2.0 * 5)  # block 5
    chain = LocalChain(tmp_path / "c.sqlite", clock=clock)
    assert chain.drand_pulse(1000) is None  # no pulse was ever given
    chain.publish_pulse(1000, "0x" + QUICKNET_ROUND_1000, reveal_block=10)
    assert chain.block() == 5 and chain.drand_pulse(1000) is None
    clock.now = genesis + 2.0 * 10
    assert chain.drand_pulse(1000) == QUICKNET_ROUND_1000
    assert open_batch(BATCH, round_signature(1000, chain=chain)).problems[0].gold_ids == ["42"]  # type: ignore[arg-type]


def test_subtensor_drand_pallet_through_the_sdk() -> None:
    substrate = InMemorySubstrate(block=5000)
    substrate.add_subnet(7)
    chain = BittensorChain("local", 7, substrate=substrate)
    try:
        assert chain.drand_pulse(1000) is None
        substrate.put(
            "Drand",
            "Pulses",
            [1000],
            {"round": 1000, "randomness": "0x" + "ab" * 32, "signature": "0x" + QUICKNET_ROUND_1000},
        )
        assert chain.drand_pulse(1000) == QUICKNET_ROUND_1000
        assert len(open_batch(BATCH, chain.drand_pulse(1000) or "").problems) == 1
    finally:
        chain.close()


class Relay(BaseHTTPRequestHandler):
    pulses: dict[int, str] = {}

    def do_GET(self) -> None:  # noqa: N802 - the http.server interface
        prefix = f"/{QUICKNET_CHAIN_HASH}/public/"
        if not self.path.startswith(prefix):
            self.send_error(404)
            return
        round_ = int(self.path[len(prefix) :])
        if round_ not in self.pulses:
            self.send_error(404, "round not yet published")
            return
        body = json.dumps({"round": round_, "randomness": "00" * 32, "signature": self.pulses[round_]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def relay() -> Iterator[tuple[str, dict[int, str]]]:
    pulses: dict[int, str] = {}
    handler = type("Handler", (Relay,), {"pulses": pulses})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", pulses
    server.shutdown()
    server.server_close()


@pytest.mark.slow  # a drand relay: an HTTP server on loopback
def test_a_relay_gives_the_round_or_nothing_yet(relay) -> None:
    url, pulses = relay
    beacon = DrandRelay(url)
    assert beacon.signature(1000) is None and round_signature(1000, relay=beacon) is None
    pulses[1000] = QUICKNET_ROUND_1000
    assert open_batch(BATCH, beacon.signature(1000) or "").problems[0].problem_id == "r1"
    # a relay that lies cannot open a batch: the signature is checked by the decryption itself
    pulses[1000] = QUICKNET_ROUND_1000[:-4] + "0000"
    with pytest.raises(SealError, match="did not open"):
        open_batch(BATCH, beacon.signature(1000) or "")
    beacon.close()


def test_an_unreachable_relay_is_one_line_and_the_chain_comes_first(tmp_path: Path) -> None:
    beacon = DrandRelay("http://127.0.0.1:9", timeout=2.0)
    with pytest.raises(BeaconError) as caught:
        round_signature(1000, relay=beacon)
    assert "unreachable" in str(caught.value) and "\n" not in str(caught.value)
    LocalChain.init(tmp_path / "c.sqlite", netuid=1, block_time=0.5)
    chain = LocalChain(tmp_path / "c.sqlite")
    with pytest.raises(BeaconError, match="could not be read"):  # the chain has no pulse: the relay is asked
        round_signature(1000, chain=chain, relay=beacon)
    chain.publish_pulse(1000, QUICKNET_ROUND_1000, reveal_block=0)
    assert round_signature(1000, chain=chain, relay=beacon) == QUICKNET_ROUND_1000  # the relay is never asked


@pytest.mark.slow  # a drand relay: an HTTP server on loopback
def test_anyone_opens_a_past_batch_from_a_relay(relay, tmp_path: Path) -> None:
    from arena.problems.pack import load_pack, new_pack, sealed_pack, write_pack
    from tests.unit.test_cli import arena, one_error_line

    url, pulses = relay
    race = [
        Problem(
            problem_id=f"r{i}",
            task="product",
            split="race",
            query=f"a lamp {i}",
            reward=[{"product_id": f"{40 + i}", "title": [f"Desk Lamp {i}"]}],
        )
        for i in range(4)
    ]
    pack = new_pack(race, catalog_digest=None, generator_version="t", embed=False)
    pack = pack.model_copy(update={"rotation": pack.rotation.model_copy(update={"problems_per_race": 2})})
    path = write_pack(sealed_pack(pack, fixed_round=1000)[0], tmp_path / "sealed.json")
    base = ("problems", "open", str(path), "--slot", "1")
    one_error_line(arena(*base, "--relay", url), "drand round 1000 is not out yet")
    pulses[1000] = QUICKNET_ROUND_1000
    done = arena(*base, "--relay", url, "--out", str(tmp_path / "opened.json"), check=True)
    assert "wrote 2 problems of batch 1" in done.stdout
    opened = load_pack(tmp_path / "opened.json", require_signature=False)
    assert {p.problem_id for p in opened.problems} <= {p.problem_id for p in race} and len(opened.problems) == 2
    one_error_line(arena(*base, "--signature", QUICKNET_ROUND_1000[:-4] + "0000"), "did not open")
    one_error_line(arena("problems", "open", str(path), "--slot", "9", "--relay", url), "batches 0 to 1")
