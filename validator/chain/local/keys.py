"""Signing LocalChain writes with a wallet's hotkey (never prompting for a password), as an extrinsic is signed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from bittensor.sp_core import Keypair

from validator.chain.port import ChainError


def wallet_hotkey(wallet: Any, action: str) -> str:
    """The wallet hotkey's ss58 address, reading the key file without ever prompting for a password."""
    name, hotkey_name = getattr(wallet, "name", "?"), getattr(wallet, "hotkey_str", "?")
    hotkey_file = getattr(wallet, "hotkey_file", None)
    if hotkey_file is not None:
        if not Path(hotkey_file.path).is_file():
            raise ChainError("no_wallet", f"cannot {action}: wallet {name!r} hotkey {hotkey_name!r} not found "
                                          f"(no file {hotkey_file.path}); create it with `btcli wallet "
                                          f"new-hotkey --wallet.name {name} --wallet.hotkey {hotkey_name}`")
        try:
            encrypted = hotkey_file.is_encrypted()
        except Exception:  # unreadable: reported below when the key is loaded
            encrypted = False
        if encrypted:
            raise ChainError("bad_wallet", f"cannot {action}: wallet {name!r} hotkey {hotkey_name!r} at "
                                           f"{hotkey_file.path} is password-encrypted; ShopArena signs with "
                                           "unencrypted hotkeys (btcli's default)")
    try:
        return str(wallet.hotkey.ss58_address)
    except Exception as error:
        raise ChainError("bad_wallet", f"cannot {action}: cannot read wallet {name!r} hotkey {hotkey_name!r}: "
                                       f"{error}") from error


def sign(wallet: Any, hotkey: str, action: str, message: bytes) -> str:
    """Sign `message` with the wallet's hotkey and verify it against `hotkey`; the signature (hex)."""
    try:
        keypair = wallet.hotkey
        signature = bytes(keypair.sign(message))
        verifier = Keypair(ss58_address=hotkey, crypto_type=keypair.crypto_type)
        valid = verifier.verify(message, signature)
    except Exception as error:
        raise ChainError("bad_wallet", f"cannot {action}: signing with the wallet's hotkey failed: "
                                       f"{error}") from error
    if not valid:
        raise ChainError("bad_signature", f"cannot {action}: the wallet's signature does not verify against "
                                          f"hotkey {hotkey}")
    return signature.hex()
