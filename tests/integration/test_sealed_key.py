"""A miner's LLM key delivered sealed: `arena-miner serve`'s ``POST /llm-key`` over real HTTP on a real LocalChain,
asked with the signed-request scheme bundles are fetched with; round trip, tampering, replay, refusals, a miner slow
or down (docs/miner.md, "Paying for your own inference")."""

from __future__ import annotations

import base64
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from pydantic import SecretStr

from miner_template.serve import BundleServer, ValidatorPermits, create_app
from sandbox.bundle import pack_dir
from tests.integration.test_submissions import AGENT_A, Subnet, open_subnet, write_bundle
from validator.chain.port import Axon
from validator.chain.sealedkey import KeyRequest, MinerKeyConfig, SealedKeyError, seal_answer
from validator.submissions.llmkey import request_key

pytestmark = pytest.mark.slow  # a LocalChain, real HTTP servers, arena-miner as a subprocess

KEY = "sk-miner-own-key-abcdefghijklmnop"


@pytest.fixture
def subnet(tmp_path: Path) -> Iterator[Subnet]:
    yield from open_subnet(tmp_path)


def config(key: str = KEY, provider: str = "local") -> MinerKeyConfig:
    return MinerKeyConfig(provider=provider, key=SecretStr(key), model="miner-model")


def serve(subnet: Subnet, miner, llm_key):
    bundle = pack_dir(write_bundle(subnet.root / "agent", AGENT_A))
    permits = ValidatorPermits(subnet.chain, refresh_seconds=60, min_refresh_seconds=0.0)
    app = create_app(bundle, hotkey_ss58=miner.hotkey.ss58_address, permits=permits, llm_key=llm_key)
    return BundleServer(app)


def test_a_permit_holder_gets_the_key_sealed_to_its_request_and_no_one_else_does(subnet: Subnet) -> None:
    miner, member = subnet.wallet("miner"), subnet.wallet("member")
    hotkey = miner.hotkey.ss58_address
    with serve(subnet, miner, config()) as server:
        axon = Axon(ip="127.0.0.1", port=server.port)
        opened = request_key(axon, wallet=subnet.validator, miner_hotkey=hotkey, allowed={"local"})
        assert (opened.provider, opened.model, opened.key.get_secret_value()) == ("local", "miner-model", KEY)
        assert KEY not in repr(opened) and KEY not in str(opened)
        with pytest.raises(SealedKeyError, match="403 hotkey .* holds no validator permit"):
            request_key(axon, wallet=member, miner_hotkey=hotkey, allowed={"local"})
        with pytest.raises(SealedKeyError, match="provider 'local', which this validator does not allow"):
            request_key(axon, wallet=subnet.validator, miner_hotkey=hotkey, allowed={"openrouter"})
        # an answer to an unsigned request, or one without a public key in its body: refused
        with httpx.Client(base_url=server.url) as http:
            assert http.post("/llm-key", content=b"{}").status_code == 401
        # a request signed for another miner is refused by this one
        with pytest.raises(SealedKeyError, match="401 WrongReceiver"):
            request_key(axon, wallet=subnet.validator, miner_hotkey=member.hotkey.ss58_address, allowed={"local"})


def test_a_miner_without_a_key_says_so(subnet: Subnet) -> None:
    miner = subnet.wallet("miner")
    with serve(subnet, miner, None) as server:
        axon = Axon(ip="127.0.0.1", port=server.port)
        with pytest.raises(SealedKeyError, match="404 this miner holds no LLM key"):
            request_key(axon, wallet=subnet.validator, miner_hotkey=miner.hotkey.ss58_address, allowed={"local"})


def test_a_miner_down_or_slow_is_one_line(subnet: Subnet) -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(SealedKeyError, match="cannot reach the miner"):
        request_key(Axon(ip="127.0.0.1", port=port), wallet=subnet.validator, miner_hotkey="m", allowed={"local"})
    with socket.socket() as silent:  # listens, never answers
        silent.bind(("127.0.0.1", 0))
        silent.listen(1)
        axon = Axon(ip="127.0.0.1", port=silent.getsockname()[1])
        with pytest.raises(SealedKeyError, match="did not answer the key request within 0.5s"):
            request_key(axon, wallet=subnet.validator, miner_hotkey="m", allowed={"local"}, timeout=0.5)


def test_a_tampered_answer_does_not_open() -> None:
    request = KeyRequest(miner="miner", validator="validator")
    answer = seal_answer(config(), bytes.fromhex(request.pubkey), nonce="1", miner="miner", validator="validator")
    sealed = bytearray(base64.b64decode(answer["sealed"]))
    sealed[-1] ^= 1
    with pytest.raises(SealedKeyError, match="does not open"):
        request.open({"sealed": base64.b64encode(bytes(sealed)).decode()}, nonce="1")
    with pytest.raises(SealedKeyError, match="holds no sealed key"):
        request.open({"key": KEY}, nonce="1")
    assert request.open(answer, nonce="1").key.get_secret_value() == KEY


def test_the_validator_refuses_a_sealed_key_outside_the_token_alphabet() -> None:
    """A miner's server that skips `arena-miner serve`'s check and seals a key a provider could reflect in another
    form (a quote JSON escapes, a space a URL encodes): the validator refuses it in one line, never holding it."""
    request = KeyRequest(miner="miner", validator="validator")
    bad = config()
    object.__setattr__(bad, "key", SecretStr('sk-miner-"own"-key-abcdefgh'))  # past the serving side's check
    answer = seal_answer(bad, bytes.fromhex(request.pubkey), nonce="1", miner="miner", validator="validator")
    with pytest.raises(SealedKeyError, match="outside A-Z a-z 0-9") as refused:
        request.open(answer, nonce="1")
    assert "own" not in str(refused.value)


def test_a_replayed_answer_from_an_earlier_request_is_refused() -> None:
    earlier = KeyRequest(miner="miner", validator="validator")
    answer = seal_answer(config(), bytes.fromhex(earlier.pubkey), nonce="1", miner="miner", validator="validator")
    with pytest.raises(SealedKeyError, match="does not open"):  # a fresh key pair per request
        KeyRequest(miner="miner", validator="validator").open(answer, nonce="2")
    with pytest.raises(SealedKeyError, match="answers another request \\(its nonce differ"):
        earlier.open(answer, nonce="2")  # the same key pair, another signed request
    wrong_miner = seal_answer(config(), bytes.fromhex(earlier.pubkey), nonce="1", miner="other", validator="validator")
    with pytest.raises(SealedKeyError, match="its miner differ"):
        earlier.open(wrong_miner, nonce="1")


@pytest.mark.parametrize(
    ("key", "provider", "line"),
    [
        ("", "local", "the LLM key is empty"),
        ("k" * 600, "local", "600 characters, over the 512"),
        ("sk-a\nsk-b", "local", "a line break"),
        ('sk-miner-"quoted"-key-0123', "local", "outside A-Z a-z 0-9"),
        ("sk-miner key-0123456789", "local", "outside A-Z a-z 0-9"),
        ("sk-short", "local", "at least 16"),
        (KEY, " ", "no provider named"),
    ],
)
def test_an_empty_oversized_or_unnamed_key_is_refused_before_serving(key: str, provider: str, line: str) -> None:
    with pytest.raises(SealedKeyError, match=line):
        config(key, provider)


@pytest.mark.parametrize(
    ("args", "env", "line"),
    [
        (["--llm-provider", "local"], {}, "--llm-provider local needs your key in $ARENA_MINER_LLM_KEY"),
        (["--llm-provider", "local"], {"ARENA_MINER_LLM_KEY": "k" * 600}, "over the 512 a key may have"),
        (["--llm-provider", "local"], {"ARENA_MINER_LLM_KEY": "sk-miner%2Fkey%3D0123456789"}, "outside A-Z a-z 0-9"),
        (["--llm-provider", "local", "--llm-key-file", "{agent}/key.txt"], {}, "is inside the bundle folder"),
        (["--llm-key-file", "{tmp}/key.txt"], {}, "--llm-key-file needs --llm-provider"),
    ],
)
def test_serve_refuses_a_key_it_cannot_hand_over_in_one_line(
    tmp_path: Path, args: list[str], env: dict[str, str], line: str
) -> None:
    from tests.unit.test_bad_input import one_error_line, run

    agent = write_bundle(tmp_path / "agent", AGENT_A)
    (agent / "key.txt").write_text(KEY)
    filled = [a.replace("{agent}", str(agent)).replace("{tmp}", str(tmp_path)) for a in args]
    proc = run("arena-miner", "serve", str(agent), *filled, cwd=tmp_path, env=env)
    one_error_line(proc, line)
    assert KEY not in proc.stdout + proc.stderr


def test_who_pays_a_run_under_each_payer_setting(subnet: Subnet) -> None:
    from types import SimpleNamespace

    from arena import blame
    from arena.spend import Price, Provider
    from validator.races.keys import KeyRefused, KeyRing, ProviderDropped

    paying, keyless = subnet.wallet("paying"), subnet.wallet("keyless")
    providers = {"local": Provider(base_url="http://127.0.0.1:9/v1", models={"miner-model": Price()})}
    with serve(subnet, paying, config()) as with_key, serve(subnet, keyless, None) as without:
        subnet.chain.serve_axon(paying, "127.0.0.1", with_key.port)
        subnet.chain.serve_axon(keyless, "127.0.0.1", without.port)

        def ring(payer: str, pack_payer: str | None = None) -> KeyRing:
            pack = SimpleNamespace(rotation=SimpleNamespace(payer=pack_payer))
            return KeyRing(
                store=subnet.store,
                chain=subnet.chain,
                wallet=subnet.validator,
                providers=providers,
                payer=payer,
                pack=pack,
            )

        def run(wallet) -> SimpleNamespace:
            return SimpleNamespace(race_id="r1", hotkey=wallet.hotkey.ss58_address, submission_id=0)

        assert ring("validator").route_for(run(paying)) is None  # the node pays: nobody is asked
        route = ring("either").route_for(run(paying))
        assert route is not None and route.name == "local" and route.key.get_secret_value() == KEY
        assert KEY not in repr(route)
        assert ring("either").route_for(run(keyless)) is None  # no key: the node's pays
        with pytest.raises(KeyRefused, match="handed no usable key: .*404 this miner holds no LLM key"):
            ring("miner").route_for(run(keyless))
        assert ring("miner", pack_payer="validator").route_for(run(keyless)) is None  # the pack's rotation wins
        with pytest.raises(KeyRefused):
            ring("validator", pack_payer="miner").route_for(run(keyless))
        others = ring("miner")
        others.providers = {"openrouter": providers["local"]}
        with pytest.raises(KeyRefused, match="provider 'local', which this validator does not allow"):
            others.route_for(run(paying))
        # a provider that failed `drop_after` times on a miner's runs in the race: under miner its runs there end
        # (2012), under either the node's key pays for them; another miner's failures there are not its: each miner's
        # count is its own; another race, or the race forgotten, starts the count again
        for payer in ("miner", "either"):
            dropping = ring(payer)
            dropping.drop_after = 2
            hotkey = run(paying).hotkey
            assert dropping.provider_failed("r1", "local", "someone-else", "503") is None
            assert dropping.provider_failed("r1", "local", "someone-else", "503") is not None
            assert dropping.route_for(run(paying))  # another miner's failures drop only that miner's runs
            assert dropping.provider_failed("r1", "local", hotkey, "503") is None and dropping.route_for(run(paying))
            line = dropping.provider_failed("r1", "local", hotkey, "the miner's provider 'local' answered 503")
            assert line is not None and "provider 'local': it failed 2 times" in line and KEY not in line
            assert dropping.dropped("r1")[("local", hotkey)] == line and dropping.dropped("r2") == {}
            if payer == "miner":
                with pytest.raises(ProviderDropped, match="failed 2 times") as dropped:
                    dropping.route_for(run(paying))
                assert dropped.value.code == blame.PROVIDER_DROPPED
            else:
                assert dropping.route_for(run(paying)) is None
            assert dropping.route_for(SimpleNamespace(race_id="r2", hotkey=run(paying).hotkey, submission_id=0))
            dropping.forget("r1")
            assert dropping.dropped("r1") == {} and dropping.route_for(run(paying)) is not None


def test_a_miner_whose_server_does_not_answer_is_asked_again_never_refused(subnet: Subnet) -> None:
    """A miner's server that does not answer the key request looks the same as a blip on the node's side: the
    attempt is nobody's fault (retried, 2011) and the next attempt asks again; its key is used once it answers."""
    from types import SimpleNamespace

    from arena import blame
    from arena.spend import Price, Provider
    from validator.races.keys import KeyRing, KeyUnreachable

    miner = subnet.wallet("sleepy")
    providers = {"local": Provider(base_url="http://127.0.0.1:9/v1", models={"miner-model": Price()})}
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    subnet.chain.serve_axon(miner, "127.0.0.1", dead)
    run = SimpleNamespace(race_id="r1", hotkey=miner.hotkey.ss58_address, submission_id=0)
    ring = KeyRing(
        store=subnet.store, chain=subnet.chain, wallet=subnet.validator, providers=providers, payer="miner", timeout=2
    )
    with pytest.raises(KeyUnreachable, match="cannot reach the miner"):
        ring.route_for(run)
    assert ring.held() == 0
    either = KeyRing(
        store=subnet.store, chain=subnet.chain, wallet=subnet.validator, providers=providers, payer="either", timeout=2
    )
    assert either.route_for(run) is None  # the node's key pays this attempt
    with serve(subnet, miner, config()) as server:
        subnet.chain.serve_axon(miner, "127.0.0.1", server.port)
        route = ring.route_for(run)  # the same race: asked again, and now it answers
        assert route is not None and route.key.get_secret_value() == KEY
        again = either.route_for(run)
        assert again is not None and again.key.get_secret_value() == KEY
    assert blame.blame_of(blame.PROVIDER_DOWN) == "validator"  # how the dispatcher ends such an attempt
