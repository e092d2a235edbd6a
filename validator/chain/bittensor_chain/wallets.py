"""Wallets for hotkey signing: created for dev chains and tests, or opened (never prompting for a password)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import bittensor as bt

from arena import wallet as wallets
from validator.chain.port import ChainError


def create_wallet(name: str, hotkey: str, path: str | Path) -> bt.Wallet:
    """Wallet `name`/`hotkey` under `path`, its coldkey and hotkey created (unencrypted) where missing: for dev chains,
    demos and tests. Production wallets come from btcli."""
    try:
        wallets.check_names(name, hotkey)
    except wallets.WalletError as error:
        raise ChainError(error.code, error.message) from None
    wallet = bt.Wallet(name=name, hotkey=hotkey, path=str(Path(path).expanduser()))
    if not wallet.coldkeypub_file.exists_on_device():
        wallet.create_new_coldkey(use_password=False, suppress=True)
    if not wallet.hotkey_file.exists_on_device():
        wallet.create_new_hotkey(use_password=False, suppress=True)
    return wallet


def load_wallet(name: str, hotkey: str, path: str | Path) -> bt.Wallet:
    """Open wallet `name`/`hotkey` under `path` for hotkey signing, without ever prompting for a password
    (`arena.wallet.load_wallet`, the one loader); a `ChainError` (`no_wallet`, `bad_wallet`) when it cannot sign."""
    try:
        return wallets.load_wallet(name, hotkey, path)
    except wallets.WalletError as error:
        raise ChainError(error.code, error.message) from None


def check_hotkey_file(wallet: Any, action: str) -> None:
    """Refuse a wallet whose hotkey file is missing (naming its path) or encrypted (signing it would stop at a
    password prompt, or hang a node without a terminal): `arena.wallet.check_hotkey`, as a `ChainError`."""
    try:
        wallets.check_hotkey(wallet)
    except wallets.WalletError as error:
        raise ChainError(error.code, f"cannot {action}: {error.message}") from None
