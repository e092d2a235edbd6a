"""Submissions with no central server, end to end on a real LocalChain file, real wallets and real HTTP.

Miners commit `sa1:<sha256>[:<url>]` with `arena-miner submit`; `arena-miner serve` answers signed requests from
validator-permit holders only; the validator's `sync_submissions` fetches, verifies, stores and judges copies.
"""

from __future__ import annotations

import gzip
import hashlib
import io
import os
import signal
import socket
import subprocess
import sys
import tarfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import bittensor as bt
import httpx
import pytest

from miner_template.serve import BundleServer, ValidatorPermits, create_app
from sandbox.bundle import MAX_PACKED, pack_dir
from tests.support.parsing import collections_that_parse
from validator.chain.commitment import encode_commitment, parse_commitment
from validator.chain.local import LocalChain
from validator.chain.port import Axon
from validator.store import schema
from validator.store.models import Submission
from validator.store.repository import Store, make_engine
from validator.submissions import (
    SubmissionError,
    SyncSummary,
    bundle_path,
    fetch_bundle,
    normalized_source_hash,
    sync_submissions,
)

BIN = Path(sys.executable).parent
BLOCK_TIME = 0.05

AGENT_A = '''"""Agent A: keeps the first few hits of a search."""
import json

LIMIT = 3


def pick(results, limit=LIMIT):
    """Keep the first `limit` product ids."""
    chosen = []
    for rank, item in enumerate(results):  # results come ranked
        if rank < limit:
            chosen.append(item["product_id"])
    return chosen


def agent_main(problem):
    query = problem["query"]
    hits = [{"product_id": word} for word in query.split()]
    return {"answer": pick(hits), "echo": json.dumps(query)}
'''

# Agent A with every name, comment, docstring and the layout changed: the same program.
AGENT_A_RENAMED = '''import json
MAXIMUM=3
def select_top(found, cap=MAXIMUM):
    # my own original work
    out=[]
    for position, product in enumerate(found):
        if position < cap: out.append(product["product_id"])
    return out
def agent_main(task):
    """Totally different agent."""
    text = task["query"]
    candidates = [{"product_id": token} for token in text.split()]
    return {"answer": select_top(candidates), "echo": json.dumps(text)}
'''

AGENT_OTHER = """def agent_main(problem):
    words = sorted(problem["query"].split(), key=len, reverse=True)
    return {"answer": words[:2]}
"""


def write_bundle(folder: Path, agent: str, **extra: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "agent.py").write_text(agent)
    for name, text in extra.items():
        (folder / name).write_text(text)
    return folder


def targz(members: list[tuple[str, bytes]]) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, data in members:
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


# --- a small real web server for URL downloads -------------------------------------------------------------------


class WebServer:
    """Serves `files` by path; paths in `endless` stream bytes forever without a length; paths in `stall` never
    answer (each is held until `release`, then closed; `stalls_closed` counts them). Counts the bytes each endless
    stream managed to send."""

    def __init__(self) -> None:
        self.files: dict[str, bytes] = {}
        self.endless: set[str] = set()
        self.stall: set[str] = set()
        self.sent: dict[str, int] = {}
        self.release = threading.Event()
        self.stalls_closed = 0
        web = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802 - http.server's naming
                if self.path in web.stall:
                    web.release.wait(20)
                    web.stalls_closed += 1
                    return
                if self.path in web.endless:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/gzip")
                    self.end_headers()
                    chunk = os.urandom(65536)
                    sent = 0
                    try:
                        while sent < 64 * 2**20:
                            self.wfile.write(chunk)
                            sent += len(chunk)
                    except OSError:
                        pass
                    web.sent[self.path] = sent
                    return
                data = web.files.get(self.path)
                if data is None:
                    self.send_error(404, "not uploaded yet")
                    return
                self.send_response(200)
                self.send_header("Content-Type", "application/gzip")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}{path}"

    def close(self) -> None:
        self.release.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def web() -> Iterator[WebServer]:
    server = WebServer()
    yield server
    server.close()


# --- a subnet on a LocalChain, and a validator's store --------------------------------------------------------------


@dataclass
class Subnet:
    root: Path
    chain_path: Path
    chain: LocalChain
    store: Store
    data_dir: Path
    validator: bt.Wallet

    @property
    def wallets(self) -> Path:
        return self.root / "wallets"

    def wallet(self, name: str, *, register: bool = True, permit: bool = False) -> bt.Wallet:
        wallet = bt.Wallet(name=name, hotkey="default", path=str(self.wallets))
        wallet.create_new_coldkey(use_password=False, suppress=True)
        wallet.create_new_hotkey(use_password=False, suppress=True)
        if register:
            self.chain.register(wallet, validator_permit=permit)
        return wallet

    def commit(self, wallet: bt.Wallet, text: str) -> int:
        """Publish a commitment and wait for the next block, so commitments made one after another are ordered."""
        block = self.chain.set_commitment(wallet, text).block
        assert block is not None
        while self.chain.block() <= block:
            time.sleep(BLOCK_TIME / 2)
        return block

    def sync(self, **options: Any) -> SyncSummary:
        options = {"timeout": 5.0, "retry_interval": 0.0, **options}
        return sync_submissions(self.store, self.chain, wallet=self.validator, data_dir=self.data_dir, **options)

    def submissions(self) -> dict[str, Submission]:
        """Each hotkey's latest submission."""
        with self.store.session() as s:
            rows = s.query(Submission).order_by(Submission.commitment_block, Submission.id).all()
        return {row.hotkey: row for row in rows}

    def snapshot(self) -> list[tuple[Any, ...]]:
        with self.store.session() as s:
            return [
                (
                    r.id,
                    r.hotkey,
                    r.sha256,
                    r.status,
                    r.reason,
                    r.copy_of,
                    r.normalized_sha256,
                    r.size_bytes,
                    r.checked_at,
                )
                for r in s.query(Submission).order_by(Submission.id)
            ]


@pytest.fixture
def subnet(tmp_path: Path) -> Iterator[Subnet]:
    yield from open_subnet(tmp_path)


def open_subnet(tmp_path: Path) -> Iterator[Subnet]:
    """A LocalChain subnet with a validator-permit holder and the validator's store (closed after)."""
    chain_path = tmp_path / "localchain.sqlite"
    chain = LocalChain.init(chain_path, netuid=3, block_time=BLOCK_TIME)
    url = f"sqlite:///{tmp_path / 'validator.sqlite'}"
    engine = make_engine(url)
    schema.upgrade(engine)
    engine.dispose()
    store = Store.open(url)
    net = Subnet(tmp_path, chain_path, chain, store, tmp_path / "data", validator=None)  # type: ignore[arg-type]
    net.validator = net.wallet("validator", permit=True)
    yield net
    store.close()
    chain.close()


def miner_cli(subnet: Subnet, *args: str, wallet: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [
            str(BIN / "arena-miner"),
            *args,
            "--chain",
            "localchain",
            "--localchain.path",
            str(subnet.chain_path),
            "--wallet.name",
            wallet,
            "--wallet.path",
            str(subnet.wallets),
        ],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "ARENA_LOG_LEVEL": "WARNING"},
    )


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_for(condition: Callable[[], Any], timeout: float, what: str) -> Any:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}")


# --- the happy path, through the miner's real command line -----------------------------------------------------------


@pytest.mark.slow  # arena-miner serve, the miner's bundle server
def test_submit_serve_and_sync_store_the_identical_bundle_and_a_second_sync_changes_nothing(subnet: Subnet) -> None:
    miner = subnet.wallet("miner")
    hotkey = miner.hotkey.ss58_address
    folder = write_bundle(subnet.root / "agent", AGENT_A, **{"notes.txt": "prompt notes\n"})
    (folder / "lib").mkdir()
    (folder / "lib" / "util.py").write_text("X = 1\n")
    packed = pack_dir(folder)
    port = free_port()
    serve = subprocess.Popen(
        [
            str(BIN / "arena-miner"),
            "serve",
            str(folder),
            "--port",
            str(port),
            "--host",
            "127.0.0.1",
            "--chain",
            "localchain",
            "--localchain.path",
            str(subnet.chain_path),
            "--wallet.name",
            "miner",
            "--wallet.path",
            str(subnet.wallets),
            "--refresh",
            "30",
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:

        def served() -> bool:
            if serve.poll() is not None:
                raise AssertionError(f"arena-miner serve exited: {serve.stderr.read() if serve.stderr else ''}")
            neuron = subnet.chain.metagraph().by_hotkey(hotkey)
            return neuron is not None and neuron.axon is not None

        wait_for(served, 30, "arena-miner serve to publish its axon")
        axon = subnet.chain.metagraph().by_hotkey(hotkey).axon  # type: ignore[union-attr]
        assert axon is not None and (axon.ip, axon.port) == ("127.0.0.1", port)

        submitted = miner_cli(subnet, "submit", str(folder), wallet="miner")
        assert submitted.returncode == 0, submitted.stderr
        assert f"committed sa1:{packed.sha256} as {hotkey}" in submitted.stdout
        assert "at block" in submitted.stdout
        assert subnet.chain.commitments()[hotkey].value == f"sa1:{packed.sha256}"

        summary = subnet.sync()
        assert (summary.new, summary.fetched, summary.accepted) == (1, 1, 1), summary
        sub = subnet.submissions()[hotkey]
        assert (sub.status, sub.reason, sub.copy_of) == ("accepted", None, None)
        assert sub.sha256 == packed.sha256 and sub.size_bytes == len(packed.data)
        assert sub.source == f"axon http://127.0.0.1:{port}"
        assert sub.normalized_sha256 == normalized_source_hash(folder)

        stored = bundle_path(subnet.data_dir, packed.sha256)
        files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
        assert sorted(p.relative_to(stored).as_posix() for p in stored.rglob("*") if p.is_file()) == files
        for name in files:
            assert (stored / name).read_bytes() == (folder / name).read_bytes()
        assert stored.with_name(f"{packed.sha256}.tar.gz").read_bytes() == packed.data
        assert [s.hotkey for s in subnet.store.latest_submissions()] == [hotkey]

        before = subnet.snapshot()
        again = subnet.sync()
        assert (again.new, again.fetched, again.changes) == (0, 0, [])
        assert subnet.snapshot() == before
        assert not [p for p in (subnet.data_dir / "bundles").iterdir() if p.name.startswith(".tmp")]
    finally:
        serve.send_signal(signal.SIGTERM)
        try:
            serve.wait(15)
        finally:
            if serve.poll() is None:
                serve.kill()
    assert serve.returncode == 0, serve.stderr.read() if serve.stderr else ""
    printed = serve.stdout.read() if serve.stdout else ""
    assert f"published axon 127.0.0.1:{port} for {hotkey}" in printed and printed.rstrip().endswith("stopped")


# --- copies ----------------------------------------------------------------------------------------------------------


@pytest.mark.slow  # a web server on loopback serves the bundles
def test_copies_identical_or_renamed_lose_to_the_earliest_commitment_even_when_fetched_first(
    subnet: Subnet, web: WebServer
) -> None:
    alice, carol, dave, bob = (subnet.wallet(n) for n in ("alice", "carol", "dave", "bob"))
    original = pack_dir(write_bundle(subnet.root / "a", AGENT_A))
    renamed = pack_dir(write_bundle(subnet.root / "c", AGENT_A_RENAMED))
    other = pack_dir(write_bundle(subnet.root / "d", AGENT_OTHER))
    assert renamed.sha256 != original.sha256
    assert normalized_source_hash(subnet.root / "c") == normalized_source_hash(subnet.root / "a")
    assert normalized_source_hash(subnet.root / "d") != normalized_source_hash(subnet.root / "a")

    # alice commits first, but her file is not uploaded yet; carol's renamed copy and dave's agent are
    subnet.commit(alice, encode_commitment(original.sha256, web.url("/a.tgz")))
    subnet.commit(carol, encode_commitment(renamed.sha256, web.url("/c.tgz")))
    subnet.commit(dave, encode_commitment(other.sha256, web.url("/d.tgz")))
    web.files.update({"/c.tgz": renamed.data, "/d.tgz": other.data})

    first = subnet.sync()
    subs = subnet.submissions()
    a, c, d = (subs[w.hotkey.ss58_address] for w in (alice, carol, dave))
    assert a.status == "pending" and a.reason.startswith("attempt 1 of 3: ") and "HTTP 404" in a.reason
    assert (c.status, d.status) == ("accepted", "accepted")
    assert first.retrying == 1 and first.accepted == 2

    # alice's file appears: she is the original, carol's earlier-fetched renamed copy becomes a copy of hers
    web.files["/a.tgz"] = original.data
    second = subnet.sync()
    subs = subnet.submissions()
    a, c, d = (subs[w.hotkey.ss58_address] for w in (alice, carol, dave))
    assert (a.status, a.reason) == ("accepted", None)
    assert (c.status, c.copy_of) == ("copy", a.id)
    assert "same normalized source" in c.reason and alice.hotkey.ss58_address in c.reason
    assert d.status == "accepted"
    assert {(ch.hotkey, ch.status) for ch in second.changes} == {
        (alice.hotkey.ss58_address, "accepted"),
        (carol.hotkey.ss58_address, "copy"),
    }

    # bob commits alice's identical bundle later, with no URL and no axon: it is known by its hash, a copy
    subnet.commit(bob, encode_commitment(original.sha256))
    third = subnet.sync()
    b = subnet.submissions()[bob.hotkey.ss58_address]
    assert (b.status, b.copy_of) == ("copy", a.id) and "identical bundle" in b.reason
    assert third.fetched == 0 and third.copies == 1

    # alice re-committing her own code (now with another URL) is not a copy of herself
    web.files["/a2.tgz"] = original.data
    subnet.commit(alice, encode_commitment(original.sha256, web.url("/a2.tgz")))
    subnet.sync()
    latest = {s.hotkey: s for s in subnet.store.latest_submissions()}
    assert set(latest) == {alice.hotkey.ss58_address, dave.hotkey.ss58_address}
    assert latest[alice.hotkey.ss58_address].commitment_block > a.commitment_block
    assert subnet.sync().changes == []


@pytest.mark.slow  # a web server on loopback serves the bundles
def test_several_submissions_fetched_at_once_are_all_verified(subnet: Subnet, web: WebServer) -> None:
    """The fetcher checks several bundles at a time (their syntax, entry point and normalized source); with
    collections that parse mid-construction, as in a node, no check fails for a fault of the node's."""
    sources = sorted((Path(__file__).resolve().parents[2] / "validator" / "submissions").glob("*.py"))
    miners = {}
    for n in range(6):
        extra = {f"m{n}_{s.name}": s.read_text() for s in sources}
        bundle = pack_dir(write_bundle(subnet.root / f"b{n}", AGENT_OTHER + f"\nLABEL = {n}\n", **extra))
        web.files[f"/b{n}.tgz"] = bundle.data
        miners[n] = subnet.wallet(f"m{n}")
        subnet.commit(miners[n], encode_commitment(bundle.sha256, web.url(f"/b{n}.tgz")))
    with collections_that_parse():
        summary = subnet.sync(concurrency=6)
    subs = subnet.submissions()
    assert {n: (subs[w.hotkey.ss58_address].status, subs[w.hotkey.ss58_address].reason) for n, w in miners.items()} == {
        n: ("accepted", None) for n in miners
    }
    assert (summary.fetched, summary.accepted) == (6, 6)


# --- bad input --------------------------------------------------------------------------------------------------------


def test_a_bundle_the_similarity_check_cannot_read_whole_is_judged_on_the_rest_and_says_so(
    subnet: Subnet, web: WebServer
) -> None:
    """A file in another encoding and a binary one: the bundle is accepted, its code compared on what could be read,
    and the submissions page (`/api/submissions`) says what was not."""
    folder = write_bundle(subnet.root / "odd", AGENT_OTHER)
    (folder / "latin.py").write_bytes("# -*- coding: latin-1 -*-\nNAME = 'caf\xe9'\n".encode("latin-1"))
    (folder / "weights.bin").write_bytes(bytes(range(128, 256)) * 8)  # binary: only its readable runs are read
    bundle = pack_dir(folder)
    web.files["/odd.tgz"] = bundle.data
    erin = subnet.wallet("erin")
    subnet.commit(erin, encode_commitment(bundle.sha256, web.url("/odd.tgz")))
    subnet.sync()
    sub = subnet.submissions()[erin.hotkey.ss58_address]
    assert sub.status == "accepted"
    notes = " ".join(sub.code_notes or [])
    assert "latin.py: not UTF-8" in notes and "weights.bin: binary; its readable runs read (0 bytes)" in notes
    from fastapi.testclient import TestClient

    from validator.api.app import create_app

    shown = TestClient(create_app(subnet.store)).get("/api/submissions").json()["items"]
    row = next(r for r in shown if r["hotkey"] == erin.hotkey.ss58_address)
    assert row["code_notes"] == sub.code_notes and row["copy_verdict"] is None


def test_commitments_that_are_not_ours_are_ignored(subnet: Subnet) -> None:
    texts = [
        "hello world",
        "sa1:not-a-hash",
        '{"model": "org/model", "revision": "abc"}',
        "sa1:" + "A" * 64,
        "sa1:" + "a" * 64 + ":ftp://example.com/x",
    ]
    for i, text in enumerate(texts):
        subnet.commit(subnet.wallet(f"other{i}"), text)
    summary = subnet.sync()
    assert (summary.commitments, summary.ignored, summary.new, summary.changes) == (len(texts), len(texts), 0, [])
    assert subnet.submissions() == {}
    assert all(parse_commitment(text) is None for text in texts)


def test_commitment_format_round_trips_and_refuses_a_url_too_long() -> None:
    digest = "ab" * 32
    assert parse_commitment(encode_commitment(digest)) == (digest, None)
    url = "https://example.com/" + "x" * 39
    text = encode_commitment(digest, url)
    assert len(text.encode()) == 128 and parse_commitment(text) == (digest, url)
    with pytest.raises(ValueError, match="the URL is 60 bytes"):
        encode_commitment(digest, url + "y")


@pytest.mark.slow  # a web server on loopback serves the bundles
def test_bad_downloads_and_bombs_each_get_a_stored_reason(subnet: Subnet, web: WebServer) -> None:
    good = pack_dir(write_bundle(subnet.root / "good", AGENT_OTHER))
    agent = AGENT_OTHER.encode()
    size_bomb = targz([("agent.py", agent), ("weights.bin", bytes(20 * 2**20))])
    count_bomb = targz([("agent.py", agent)] + [(f"f/{i}.txt", b"x") for i in range(600)])
    no_entrypoint = targz([("agent.py", b"def main(problem):\n    return None\n")])
    cases = {
        "mismatch": (sha(b"what the miner committed"), "/mismatch", good.data),
        "too_big": (sha(b"anything"), "/endless", None),
        "size_bomb": (sha(size_bomb), "/size-bomb", size_bomb),
        "count_bomb": (sha(count_bomb), "/count-bomb", count_bomb),
        "no_entrypoint": (sha(no_entrypoint), "/no-entrypoint", no_entrypoint),
        "stall": (sha(b"stalled"), "/stall", None),
    }
    web.endless.add("/endless")
    web.stall.add("/stall")
    wallets = {}
    for name, (digest, path, data) in cases.items():
        if data is not None:
            web.files[path] = data
        wallets[name] = subnet.wallet(name)
        subnet.commit(wallets[name], encode_commitment(digest, web.url(path)))

    first = subnet.sync(timeout=1.0, max_attempts=2)
    assert web.stalls_closed == 0, "the sync waited for the stalled server to give up instead of giving up itself"
    subs = {name: subnet.submissions()[w.hotkey.ss58_address] for name, w in wallets.items()}
    reasons = {name: sub.reason for name, sub in subs.items()}
    assert {name: sub.status for name, sub in subs.items()} == {
        "mismatch": "rejected",
        "too_big": "rejected",
        "size_bomb": "rejected",
        "count_bomb": "rejected",
        "no_entrypoint": "rejected",
        "stall": "pending",
    }, reasons
    assert "not the committed" in reasons["mismatch"] and good.sha256[:16] in reasons["mismatch"]
    assert f"over {MAX_PACKED:,} bytes" in reasons["too_big"]
    assert web.sent.get("/endless", 0) < 32 * 2**20  # abandoned mid-stream, not read to the end
    assert "compression bomb" in reasons["size_bomb"]
    assert "601 entries" in reasons["count_bomb"]
    assert "agent_main" in reasons["no_entrypoint"] and "arena-miner check" in reasons["no_entrypoint"]
    assert reasons["stall"].startswith("attempt 1 of 2: ") and "within 1s" in reasons["stall"]
    assert all("\n" not in reason for reason in reasons.values())
    assert first.rejected == 5 and first.retrying == 1

    second = subnet.sync(timeout=1.0, max_attempts=2)
    stalled = subnet.submissions()[wallets["stall"].hotkey.ss58_address]
    assert stalled.status == "rejected" and stalled.reason.startswith("gave up after 2 attempts: ")
    assert [(c.hotkey, c.status) for c in second.changes] == [(wallets["stall"].hotkey.ss58_address, "rejected")]
    assert subnet.sync().changes == []
    # nothing half-written: no bundle folders or temp files for anything rejected
    assert list((subnet.data_dir / "bundles").iterdir()) == []


@pytest.mark.slow  # a web server on loopback serves the bundles
def test_a_pending_retry_waits_for_its_interval_and_a_newer_commitment_supersedes_it(
    subnet: Subnet, web: WebServer
) -> None:
    miner = subnet.wallet("late")
    bundle = pack_dir(write_bundle(subnet.root / "late", AGENT_OTHER))
    subnet.commit(miner, encode_commitment(bundle.sha256, web.url("/late.tgz")))
    assert subnet.sync(retry_interval=3600).retrying == 1
    web.files["/late.tgz"] = bundle.data
    waiting = subnet.sync(retry_interval=3600)
    assert (waiting.waiting, waiting.changes) == (1, [])
    assert subnet.sync(retry_interval=0).accepted == 1

    # a pending commitment replaced by a newer one is never fetched: it is rejected as superseded
    lost = pack_dir(write_bundle(subnet.root / "lost", AGENT_A))
    subnet.commit(miner, encode_commitment(lost.sha256, web.url("/lost.tgz")))
    assert subnet.sync().retrying == 1
    subnet.commit(miner, encode_commitment(bundle.sha256, web.url("/late.tgz")))
    replaced = subnet.sync()
    assert sorted((c.sha256 == lost.sha256, c.status) for c in replaced.changes) == [
        (False, "accepted"),
        (True, "rejected"),
    ]
    assert "superseded" in next(c.reason for c in replaced.changes if c.status == "rejected")


# --- the miner's bundle server -------------------------------------------------------------------------------------


@pytest.mark.slow  # the miner's bundle server on loopback
def test_serve_answers_only_signed_fresh_requests_from_validator_permit_holders(subnet: Subnet) -> None:
    miner = subnet.wallet("miner")
    member = subnet.wallet("member")  # registered, no validator permit
    stranger = subnet.wallet("stranger", register=False)
    miner_hotkey = miner.hotkey.ss58_address
    bundle = pack_dir(write_bundle(subnet.root / "agent", AGENT_A))
    permits = ValidatorPermits(subnet.chain, refresh_seconds=60, min_refresh_seconds=0.0)
    app = create_app(bundle, hotkey_ss58=miner_hotkey, permits=permits)
    path = f"/bundle/{bundle.sha256}"

    def signed(
        wallet: bt.Wallet, *, receiver: str = miner_hotkey, target: str = path, nonce_ns: int | None = None
    ) -> dict[str, str]:
        return bt.http_auth.sign(wallet, method="GET", path=target, receiver_ss58=receiver, nonce_ns=nonce_ns)

    with BundleServer(app) as server, httpx.Client(base_url=server.url, timeout=5) as http:

        def get(headers: dict[str, str] | None = None, target: str = path) -> httpx.Response:
            return http.get(target, headers=headers or {})

        unsigned = get()
        assert unsigned.status_code == 401 and "unsigned" in unsigned.json()["detail"]

        forged = signed(subnet.validator)
        forged["X-Bittensor-Signature"] = "0x" + "00" * 64
        for _ in range(2):  # refused every time: a forgery never enters the nonce store
            refused = get(forged)
            assert refused.status_code == 401 and "BadSignature" in refused.json()["detail"]

        other_receiver = get(signed(subnet.validator, receiver=member.hotkey.ss58_address))
        assert other_receiver.status_code == 401 and "WrongReceiver" in other_receiver.json()["detail"]

        stale = get(signed(subnet.validator, nonce_ns=time.time_ns() - 60 * 10**9))
        assert stale.status_code == 401 and "StaleRequest" in stale.json()["detail"]

        other_path = get(signed(subnet.validator, target="/bundle/" + "0" * 64))
        assert other_path.status_code == 401 and "BadSignature" in other_path.json()["detail"]

        headers = signed(subnet.validator)
        ok = get(headers)
        assert ok.status_code == 200 and sha(ok.content) == bundle.sha256 and ok.content == bundle.data
        replayed = get(headers)
        assert replayed.status_code == 401 and "ReplayedRequest" in replayed.json()["detail"]

        for wallet in (member, stranger):
            refused = get(signed(wallet))
            assert refused.status_code == 403 and "no validator permit" in refused.json()["detail"]

        missing = get(signed(subnet.validator, target="/bundle/" + "f" * 64), target="/bundle/" + "f" * 64)
        assert missing.status_code == 404

        # the validator side, through the axon: a permit holder gets the bundle, anyone else a stored-able reason
        axon = Axon(ip="127.0.0.1", port=server.port)
        with pytest.raises(SubmissionError, match="HTTP 403.*no validator permit") as refused_fetch:
            fetch_bundle(axon, bundle.sha256, wallet=member, into=subnet.root / "b1", miner_hotkey=miner_hotkey)
        assert refused_fetch.value.retryable
        fetched = fetch_bundle(
            axon, bundle.sha256, wallet=subnet.validator, into=subnet.root / "b2", miner_hotkey=miner_hotkey
        )
        assert fetched.archive.read_bytes() == bundle.data and (fetched.path / "agent.py").read_text() == AGENT_A

        # a permit granted on chain is honoured at once (the metagraph is re-read for an unknown hotkey)
        subnet.chain.set_validator_permit(member.hotkey.ss58_address, True)
        assert get(signed(member)).status_code == 200


@pytest.mark.slow  # runs arena-miner as a subprocess
def test_submit_fails_with_one_clear_line(subnet: Subnet) -> None:
    folder = write_bundle(subnet.root / "agent", AGENT_A)
    subnet.wallet("unregistered", register=False)
    subnet.wallet("miner")

    def one_line(proc: subprocess.CompletedProcess[str]) -> str:
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        assert proc.returncode != 0 and len(lines) == 1, proc.stderr
        return lines[0]

    assert "is not registered on netuid 3" in one_line(miner_cli(subnet, "submit", str(folder), wallet="unregistered"))
    too_long = miner_cli(subnet, "submit", str(folder), "--url", "https://example.com/" + "x" * 60, wallet="miner")
    assert "the URL is 80 bytes" in one_line(too_long)
    assert "not an http:// or https:// URL" in one_line(
        miner_cli(subnet, "submit", str(folder), "--url", "ftp://x.org/a", wallet="miner")
    )
    no_chain = subprocess.run(
        [
            str(BIN / "arena-miner"),
            "submit",
            str(folder),
            "--chain",
            "localchain",
            "--localchain.path",
            str(subnet.root / "missing.sqlite"),
            "--wallet.name",
            "miner",
            "--wallet.path",
            str(subnet.wallets),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "no LocalChain at" in one_line(no_chain)
    unreachable = subprocess.run(
        [
            str(BIN / "arena-miner"),
            "submit",
            str(folder),
            "--subtensor.chain_endpoint",
            "ws://127.0.0.1:9",
            "--netuid",
            "3",
            "--wallet.name",
            "miner",
            "--wallet.path",
            str(subnet.wallets),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert "127.0.0.1:9" in one_line(unreachable)
    no_netuid = subprocess.run(
        [
            str(BIN / "arena-miner"),
            "submit",
            str(folder),
            "--chain",
            "subtensor",
            "--wallet.name",
            "miner",
            "--wallet.path",
            str(subnet.wallets),
        ],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "--netuid" in one_line(no_netuid)
    (folder / "agent.py").unlink()
    assert "agent.py is missing" in one_line(miner_cli(subnet, "submit", str(folder), wallet="miner"))
    assert subnet.chain.commitments() == {}
