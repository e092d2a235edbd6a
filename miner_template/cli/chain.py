"""`arena-miner submit` and `serve`: the chain side. Submit commits the bundle's hash on chain with your hotkey; serve
hands the bundle to validators (signed requests from validator-permit holders only) and publishes it as your axon."""

from __future__ import annotations

import functools
import inspect
import typing
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any

import typer

from arena.cliutil import err, fail, out
from arena.wallet import DEFAULT_WALLETS, btcli
from miner_template.cli.bundle import pack_or_exit
from miner_template.cli.llmkey import DEFAULT_KEY_ENV, LlmKeyEnv, LlmKeyFile, LlmModel, LlmProvider, read_llm_key

_PANEL = "Chain and wallet"
WalletName = Annotated[
    str,
    typer.Option("--wallet.name", envvar="ARENA_WALLET_NAME", help="Wallet (coldkey) name.", rich_help_panel=_PANEL),
]
WalletHotkey = Annotated[
    str, typer.Option("--wallet.hotkey", envvar="ARENA_WALLET_HOTKEY", help="Hotkey name.", rich_help_panel=_PANEL)
]
WalletPath = Annotated[
    Path,
    typer.Option(
        "--wallet.path",
        envvar="ARENA_WALLET_PATH",
        help="Folder holding the wallets (with --chain localchain and no path: wallets/ beside the chain file, "
        "where `arena-validator localchain register --create` makes them, else ~/.bittensor/wallets).",
        rich_help_panel=_PANEL,
    ),
]
ChainName = Annotated[
    str,
    typer.Option(
        "--chain",
        envvar="ARENA_CHAIN",
        rich_help_panel=_PANEL,
        help="subtensor (bittensor SDK) or localchain (the dev chain in a file).",
    ),
]
Network = Annotated[
    str,
    typer.Option(
        "--subtensor.network",
        envvar="ARENA_SUBTENSOR_NETWORK",
        rich_help_panel=_PANEL,
        help="finney, test, local or archive.",
    ),
]
Endpoint = Annotated[
    str | None,
    typer.Option(
        "--subtensor.chain_endpoint",
        envvar="ARENA_SUBTENSOR_CHAIN_ENDPOINT",
        rich_help_panel=_PANEL,
        help="ws(s):// endpoint; overrides --subtensor.network.",
    ),
]
Netuid = Annotated[
    int | None,
    typer.Option(
        "--netuid",
        envvar="ARENA_NETUID",
        rich_help_panel=_PANEL,
        help="The subnet's uid (required with --chain subtensor).",
    ),
]
LocalchainPath = Annotated[
    Path,
    typer.Option(
        "--localchain.path",
        envvar="ARENA_LOCALCHAIN_PATH",
        rich_help_panel=_PANEL,
        help="The LocalChain file (--chain localchain).",
    ),
]
DEFAULT_WALLET_PATH = DEFAULT_WALLETS
DEFAULT_LOCALCHAIN = Path("var/localchain.sqlite")


@dataclass(frozen=True)
class ChainOptions:
    """The chain and wallet options of `submit` and `serve` (`with_chain_options` adds them to a command)."""

    wallet_name: str
    wallet_hotkey: str
    wallet_path: Path
    chain: str
    network: str
    endpoint: str | None
    netuid: int | None
    localchain_path: Path


_CHAIN_PARAMETERS = [
    inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=default, annotation=annotation)
    for name, annotation, default in (
        ("wallet_name", WalletName, "default"),
        ("wallet_hotkey", WalletHotkey, "default"),
        ("wallet_path", WalletPath, DEFAULT_WALLET_PATH),
        ("chain", ChainName, "subtensor"),
        ("network", Network, "finney"),
        ("endpoint", Endpoint, None),
        ("netuid", Netuid, None),
        ("localchain_path", LocalchainPath, DEFAULT_LOCALCHAIN),
    )
]


def with_chain_options(command: Callable[..., Any]) -> Callable[..., Any]:
    """``command`` with the chain and wallet options after its own (`--wallet.name` ... `--localchain.path`); it
    receives them as one `ChainOptions`, ``options``."""
    hints = typing.get_type_hints(command, include_extras=True)
    own = [
        p.replace(annotation=hints.get(p.name, p.annotation))
        for p in inspect.signature(command).parameters.values()
        if p.name != "options"
    ]

    @functools.wraps(command)
    def run(**kwargs: Any) -> Any:
        options = ChainOptions(**{p.name: kwargs.pop(p.name) for p in _CHAIN_PARAMETERS})
        return command(options=options, **kwargs)

    signature = inspect.Signature(own + _CHAIN_PARAMETERS)
    # inspect.signature (and so typer) reads a function's __signature__, which typeshed does not declare
    run.__signature__ = signature  # type: ignore[attr-defined]
    run.__annotations__ = {p.name: p.annotation for p in signature.parameters.values()}
    return run


def _open_chain_and_wallet(options: ChainOptions) -> tuple[Any, Any]:
    """The miner's wallet (hotkey, never prompting) and the chain; one clear line and exit 2 when either fails."""
    import logging

    from arena.wallet import WalletError, load_wallet, localchain_wallet_path
    from validator.chain import connect
    from validator.chain.port import ChainError

    logging.getLogger("bittensor").setLevel(logging.WARNING)  # our one-line errors say what failed
    o = options
    if o.chain not in ("subtensor", "localchain"):
        fail(f"--chain must be subtensor or localchain, got {o.chain!r}")
    if o.endpoint and not o.endpoint.startswith(("ws://", "wss://")):
        fail(f"--subtensor.chain_endpoint {o.endpoint!r} is not a ws:// or wss:// URL")
    try:
        path = o.wallet_path
        if o.chain == "localchain" and path == DEFAULT_WALLET_PATH:  # the chain's dev wallets, as `localchain register`
            path = localchain_wallet_path(o.localchain_path, o.wallet_name)
        wallet = load_wallet(o.wallet_name, o.wallet_hotkey, path)
        port = connect(
            o.chain, network=o.network, netuid=o.netuid, endpoint=o.endpoint, localchain_path=o.localchain_path
        )
    except (WalletError, ChainError) as exc:
        fail(exc.message)
    return wallet, port


@with_chain_options
def submit_cmd(
    directory: Annotated[Path, typer.Argument(help="The agent bundle folder.")],
    url: Annotated[
        str | None,
        typer.Option(
            "--url",
            help="Where validators can download the packed bundle "
            "(http(s)://, at most 59 bytes); without it they fetch "
            "from your axon (`arena-miner serve`).",
        ),
    ] = None,
    *,
    options: ChainOptions,
) -> None:
    """Pack the bundle, check it like `arena-miner check`, and commit `sa1:<sha256>[:<url>]` on chain with your hotkey.

    The earliest commitment of a given agent wins: later identical or renamed copies earn nothing.
    """
    from validator.chain import register_hint
    from validator.chain.commitment import CommitmentError, encode_commitment
    from validator.chain.port import ChainError

    bundle = pack_or_exit(directory)
    try:
        text = encode_commitment(bundle.sha256, url)
    except CommitmentError as exc:
        fail(str(exc))
    wallet, port = _open_chain_and_wallet(options)
    try:
        hotkey = wallet.hotkey.ss58_address
        neuron = port.metagraph().by_hotkey(hotkey)
        if neuron is None:
            fail(
                f"hotkey {hotkey} is not registered on netuid {port.netuid} ({port.network}); register it first "
                f"with {register_hint(port)}"
            )
        outcome = port.set_commitment(wallet, text)
    except ChainError as exc:
        fail(exc.message)
    finally:
        port.close()
    if not outcome.success:
        fail(f"the chain refused the commitment: {outcome.message or 'no reason given'}")
    out.print(
        f"committed {text} as {hotkey} (uid {neuron.uid}) on netuid {port.netuid} at block {outcome.block}",
        highlight=False,
    )
    out.print(f"bundle: {bundle.files} files, {len(bundle.data):,} bytes packed", highlight=False)
    if url is None and neuron.axon is None:
        out.print(
            "next: validators fetch the bundle from your axon; start it with "
            f"`arena-miner serve {directory} --port 8091`",
            highlight=False,
        )


@with_chain_options
def serve_cmd(
    directory: Annotated[Path, typer.Argument(help="The agent bundle folder (the one you submitted).")],
    port_number: Annotated[
        int, typer.Option("--port", help="TCP port to listen on and publish.", min=1, max=65535)
    ] = 8091,
    host: Annotated[str, typer.Option("--host", help="Address to listen on.")] = "0.0.0.0",
    external_ip: Annotated[
        str | None,
        typer.Option("--external-ip", help="Public IP to publish as your axon (default on localchain: 127.0.0.1)."),
    ] = None,
    publish: Annotated[bool, typer.Option("--publish/--no-publish", help="Publish the axon on chain.")] = True,
    refresh: Annotated[
        float, typer.Option("--refresh", help="Seconds between metagraph reads (validator permits).", min=1)
    ] = 120.0,
    max_age: Annotated[
        float, typer.Option("--max-age", help="Oldest signed request accepted, in seconds.", min=1, max=300)
    ] = 10.0,
    llm_provider: LlmProvider = None,
    llm_model: LlmModel = None,
    llm_key_env: LlmKeyEnv = DEFAULT_KEY_ENV,
    llm_key_file: LlmKeyFile = None,
    *,
    options: ChainOptions,
) -> None:
    """Serve the packed bundle at GET /bundle/<sha256> to validators only (signed btauth/1 requests from hotkeys
    with a validator permit), and publish this server as your axon. With --llm-provider, also your LLM key, sealed to
    each validator that asks (POST /llm-key), so your runs' LLM calls are paid with it."""
    from miner_template.serve import BundleServer, ValidatorPermits, create_app

    llm_key = read_llm_key(llm_provider, llm_model, llm_key_env, llm_key_file, directory)
    bundle = pack_or_exit(directory)
    wallet, port = _open_chain_and_wallet(options)
    hotkey = wallet.hotkey.ss58_address
    permits = ValidatorPermits(port, refresh_seconds=refresh)
    _read_permits_and_commitment(port, permits, hotkey, bundle.sha256, directory)
    server = BundleServer(
        create_app(bundle, hotkey_ss58=hotkey, permits=permits, max_age=max_age, llm_key=llm_key),
        host=host,
        port=port_number,
        log_level="warning",
    )
    try:
        server.start()
    except OSError as exc:
        fail(f"cannot listen on {host}:{port_number}: {exc}")
    try:
        _publish_axon(
            port,
            wallet,
            server.port,
            directory,
            bundle.sha256,
            external_ip=external_ip,
            publish=publish,
            wallet_name=options.wallet_name,
            wallet_hotkey=options.wallet_hotkey,
            wallet_path=options.wallet_path,
        )
        out.print(
            f"serving {bundle.sha256} ({len(bundle.data):,} bytes) on {host}:{server.port} to "
            f"{len(permits.hotkeys)} validator-permit holder(s)"
            + (f", with your LLM key for {llm_key.provider} (sealed to each)" if llm_key else "")
            + "; Ctrl-C to stop",
            highlight=False,
        )
        permits.start()
        _serve_until_stopped(server)
    finally:
        permits.stop()
        server.stop()
        port.close()
    out.print("stopped")


def _read_permits_and_commitment(port: Any, permits: Any, hotkey: str, sha256: str, directory: Path) -> None:
    """The validator permits read (exits when the chain cannot be read), and a warning when the hotkey's commitment
    on chain is not the bundle `sha256` this folder packs to."""
    from validator.chain.port import ChainError

    try:
        permits.refresh()
        commitment = port.commitments().get(hotkey)
    except ChainError as exc:
        fail(exc.message)
    if commitment is None or sha256 not in commitment.value:
        err.print(
            f"[bold yellow]warning:[/] your on-chain commitment is "
            f"{commitment.value if commitment else 'empty'}; this folder packs to {sha256}. Run "
            f"`arena-miner submit {directory}` so validators ask for this bundle.",
            highlight=False,
        )


def _publish_axon(
    port: Any,
    wallet: Any,
    server_port: int,
    directory: Path,
    sha256: str,
    *,
    external_ip: str | None,
    publish: bool,
    wallet_name: str,
    wallet_hotkey: str,
    wallet_path: Path,
) -> None:
    """Publish the bundle server as the hotkey's axon (on localchain at 127.0.0.1 unless told), or say how to."""
    from validator.chain.port import ChainError

    ip = external_ip or ("127.0.0.1" if port.network == "localchain" else None)
    if not publish:
        out.print("not publishing an axon (--no-publish)")
    elif not hasattr(port, "serve_axon"):
        where = f"http://{external_ip or 'YOUR_IP'}:{server_port}"
        axon_set = btcli(
            "axon set",
            netuid=port.netuid,
            ip=external_ip or "YOUR_IP",
            port=server_port,
            wallet=wallet_name,
            hotkey=wallet_hotkey,
            path=None if wallet_path == DEFAULT_WALLET_PATH else wallet_path,
        )
        out.print(
            f"this chain port cannot publish an axon; publish it with {axon_set}, or commit a URL: "
            f"`arena-miner submit {directory} --url {where}/bundle/{sha256}` (if it fits in 59 bytes)",
            highlight=False,
        )
    elif ip is None:
        fail("--external-ip is required to publish the axon on subtensor (your public IP address)")
    else:
        try:
            outcome = port.serve_axon(wallet, ip, server_port)
        except ChainError as exc:
            fail(exc.message)
        out.print(
            f"published axon {ip}:{server_port} for {wallet.hotkey.ss58_address} at block {outcome.block}",
            highlight=False,
        )


def _serve_until_stopped(server: Any) -> None:
    """Wait for Ctrl-C or SIGTERM; exit 1 if the bundle server stops by itself."""
    import signal
    import threading

    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        while not stop.wait(0.5):
            if not server.alive():
                fail("the bundle server stopped unexpectedly", code=1)
    except KeyboardInterrupt:
        pass
