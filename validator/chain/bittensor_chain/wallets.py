"""Wallets for hotkey signing: created for dev chains and tests, or opened (never prompting for a password)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import bittensor as bt

from validator.chain.port import ChainError


def create_wallet(name: str, hotkey: str, path: str | Path) -> bt.Wallet:
    """Wallet `name`/`hotkey` under `path`, its coldkey and hotkey created (unencrypted) where missing: for dev chains,
    demos and tests. Production wallets come from btcli."""
    wallet = bt.Wallet(name=name, hotkey=hotkey, path=str(Path(path).expanduser()))
    if not wallet.coldkeypub_file.exists_on_device():
        wallet.create_new_coldkey(use_password=False, suppress=True)
    if not wallet.hotkey_file.exists_on_device():
        wallet.create_new_hotkey(use_password=False, suppress=True)
    return wallet


def load_wallet(name: str, hotkey: str, path: str | Path) -> bt.Wallet:
    """Open wallet `name`/`hotkey` under `path` for hotkey signing, without ever prompting for a password.

    The hotkey file must exist and be unencrypted (btcli's default); the coldkey is never opened, and
    `coldkeypub.txt` is only read when present.
    """
    root = Path(path).expanduser()
    wallet = bt.Wallet(name=name, hotkey=hotkey, path=str(root))
    hotkey_file = Path(wallet.hotkey_file.path)
    create = (
        f"create it with `btcli wallet new-hotkey --wallet {name} --wallet-hotkey {hotkey} --wallet-path {root}`"
    )
    if not hotkey_file.is_file():
        raise ChainError("no_wallet", f"wallet {name!r} hotkey {hotkey!r} not found under {root} "
                                      f"(no file {hotkey_file}); {create}")
    if wallet.hotkey_file.is_encrypted():
        raise ChainError("bad_wallet", f"wallet {name!r} hotkey {hotkey!r} at {hotkey_file} is password-encrypted; "
                                       "ShopArena signs with unencrypted hotkeys (btcli's default)")
    try:
        wallet.hotkey  # noqa: B018 - load and check the keyfile now, not at the first signature
        if wallet.coldkeypub_file.exists_on_device():
            wallet.coldkeypub  # noqa: B018
    except Exception as error:  # any unreadable keyfile is one wallet error
        raise ChainError("bad_wallet",
                         f"cannot read wallet {name!r} hotkey {hotkey!r} under {root}: {error}") from error
    return wallet


def check_hotkey_file(wallet: Any, action: str) -> None:
    """Refuse a wallet whose hotkey file is missing (naming its path) or encrypted (signing it would stop at a
    password prompt, or hang a node without a terminal)."""
    hotkey_file = getattr(wallet, "hotkey_file", None)
    label = f"wallet {getattr(wallet, 'name', '?')!r} hotkey {getattr(wallet, 'hotkey_str', '?')!r}"
    if hotkey_file is not None and not Path(hotkey_file.path).is_file():
        raise ChainError("no_wallet", f"cannot {action}: {label} not found (no file {hotkey_file.path}); "
                                      "create it with `btcli wallet new-hotkey`")
    if hotkey_file is not None and hotkey_file.is_encrypted():
        raise ChainError("bad_wallet", f"cannot {action}: {label} at {hotkey_file.path} is password-encrypted; "
                                       "ShopArena signs with unencrypted hotkeys (btcli's default)")
