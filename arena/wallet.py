"""Bittensor wallets, for signing with their hotkey: the one loader (it never prompts for a password, nor opens the
coldkey), the one check of a wallet handed to a chain, and the one way a `btcli` command is written in our messages.

`btcli` is the command line that comes with the bittensor SDK the project installs (bittensor 11.x): its wallet
options are `--wallet NAME`, `--wallet-hotkey HOTKEY` and `--wallet-path FOLDER`, given after the command
(`btcli wallet new-hotkey --wallet owner --wallet-hotkey default`). Our own commands take the older btcli spellings
`--wallet.name`, `--wallet.hotkey` and `--wallet.path`.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from arena.errors import CodedError

if TYPE_CHECKING:
    import bittensor as bt

#: Where bittensor keeps wallets unless told otherwise.
DEFAULT_WALLETS = Path("~/.bittensor/wallets")


class WalletError(CodedError):
    """A wallet that cannot sign: `code` is `no_wallet` (a key file is missing) or `bad_wallet` (encrypted,
    unreadable, or a name that is no file name); `message` is one line, naming the file and the `btcli` command that
    fixes it."""


def localchain_wallets(localchain_path: str | Path) -> Path:
    """Where a LocalChain's dev wallets live unless a wallet path is given: `wallets/` beside its chain file, never
    the user's real `~/.bittensor/wallets`."""
    return Path(localchain_path).expanduser().parent / "wallets"


def localchain_wallet_path(localchain_path: str | Path, name: str) -> Path:
    """The wallets folder a LocalChain command reads wallet `name` from when no wallet path is given: the chain's dev
    wallets (`localchain_wallets`) when `name` is there, else bittensor's default folder (a wallet made by btcli)."""
    dev = localchain_wallets(localchain_path)
    return dev if (dev / name).is_dir() or not (DEFAULT_WALLETS.expanduser() / name).is_dir() else DEFAULT_WALLETS


def check_names(name: str, hotkey: str) -> None:
    """Refuse a wallet or hotkey name that is not one plain file name (bittensor joins it into a path)."""
    for what, flag, value in (("wallet", "--wallet.name", name), ("hotkey", "--wallet.hotkey", hotkey)):
        if not value or value in (".", "..") or "/" in value or "\\" in value or "\0" in value:
            raise WalletError(
                "bad_wallet",
                f"{what} name {value!r} is not a plain name (no path separators, not empty, '.' or '..'): give the "
                f"name with {flag} and its folder with --wallet.path",
            )


def btcli(
    command: str,
    *,
    wallet: str | None = None,
    hotkey: str | None = None,
    path: str | Path | None = None,
    **options: object,
) -> str:
    """The `btcli` command line `command` (e.g. "wallet new-hotkey") for a wallet, in backticks: its `options`
    first (`netuid=15` is `--netuid 15`), then the wallet's name, hotkey and folder, each only when given."""
    words = ["btcli", command]
    for name, value in options.items():
        words += [f"--{name.replace('_', '-')}", str(value)]
    for flag, value in (("--wallet", wallet), ("--wallet-hotkey", hotkey), ("--wallet-path", path)):
        if value is not None:
            words += [flag, str(value)]
    return f"`{' '.join(words)}`"


def _label(wallet: Any) -> str:
    return f"wallet {getattr(wallet, 'name', '?')!r} hotkey {getattr(wallet, 'hotkey_str', '?')!r}"


def check_hotkey(wallet: Any) -> None:
    """Refuse a wallet whose hotkey file is missing (naming its path and the `btcli` command that creates it) or
    password-encrypted (signing would stop at a password prompt, or hang a node without a terminal)."""
    hotkey_file = getattr(wallet, "hotkey_file", None)
    if hotkey_file is None:  # not a bittensor wallet (a test double): reading its key is the check
        return
    name, hotkey = getattr(wallet, "name", "?"), getattr(wallet, "hotkey_str", "?")
    path = Path(hotkey_file.path)
    if not path.is_file():
        root = path.parent.parent.parent  # <root>/<name>/hotkeys/<hotkey>
        if not (root / name).is_dir():
            raise WalletError(
                "no_wallet",
                f"wallet {name!r} not found under {root} (no file {path}); create it with "
                f"{btcli('wallet create', wallet=name, hotkey=hotkey, path=root)} (its "
                "coldkey and this hotkey; a hotkey alone: "
                f"{btcli('wallet new-hotkey', wallet=name, hotkey=hotkey, path=root)}), "
                "or give the right wallet name and path",
            )
        raise WalletError(
            "no_wallet",
            f"{_label(wallet)} not found under {root} (no file {path}); create it with "
            f"{btcli('wallet new-hotkey', wallet=name, hotkey=hotkey, path=root)}",
        )
    try:
        encrypted = hotkey_file.is_encrypted()
    except Exception:  # noqa: BLE001 - unreadable: reported when the key is read
        encrypted = False
    if encrypted:
        raise WalletError(
            "bad_wallet",
            f"{_label(wallet)} at {path} is password-encrypted; ShopArena signs with "
            "unencrypted hotkeys (btcli's default)",
        )


def hotkey_address(wallet: Any) -> str:
    """The ss58 address of a wallet's hotkey, its key file checked (`check_hotkey`) and read."""
    check_hotkey(wallet)
    try:
        return str(wallet.hotkey.ss58_address)
    except Exception as error:  # bittensor raises its own errors for unreadable key files
        raise WalletError("bad_wallet", f"cannot read {_label(wallet)}: {error}") from error


def load_wallet(name: str, hotkey: str, path: str | Path = DEFAULT_WALLETS) -> bt.Wallet:
    """Open wallet `name`/`hotkey` under `path` (`~` expanded) to sign with its hotkey, never prompting for a
    password: the hotkey file must exist and be unencrypted (btcli's default); the coldkey is never opened, and
    `coldkeypub.txt` is read only when present. `WalletError` when it cannot sign."""
    import bittensor as bt

    check_names(name, hotkey)
    root = Path(path).expanduser()
    wallet = bt.Wallet(name=name, hotkey=hotkey, path=str(root))
    hotkey_address(wallet)  # load and check the key file now, not at the first signature
    try:
        if wallet.coldkeypub_file.exists_on_device():
            wallet.coldkeypub  # noqa: B018
    except Exception as error:  # any unreadable key file is one wallet error
        raise WalletError("bad_wallet", f"cannot read wallet {name!r} under {root}: {error}") from error
    return wallet
