"""Signing LocalChain writes with a wallet's hotkey (never prompting for a password), as an extrinsic is signed."""

from __future__ import annotations

from typing import Any

from bittensor.sp_core import Keypair

from arena.wallet import WalletError, hotkey_address
from validator.chain.port import ChainError


def wallet_hotkey(wallet: Any, action: str) -> str:
    """The wallet hotkey's ss58 address, reading the key file without ever prompting for a password
    (`arena.wallet.hotkey_address`); a `ChainError` (`no_wallet`, `bad_wallet`) when it cannot sign."""
    try:
        return hotkey_address(wallet)
    except WalletError as error:
        raise ChainError(error.code, f"cannot {action}: {error.message}") from None


def sign(wallet: Any, hotkey: str, action: str, message: bytes) -> str:
    """Sign `message` with the wallet's hotkey and verify it against `hotkey`; the signature (hex)."""
    try:
        keypair = wallet.hotkey
        signature = bytes(keypair.sign(message))
        verifier = Keypair(ss58_address=hotkey, crypto_type=keypair.crypto_type)
        valid = verifier.verify(message, signature)
    except Exception as error:
        raise ChainError("bad_wallet", f"cannot {action}: signing with the wallet's hotkey failed: {error}") from error
    if not valid:
        raise ChainError(
            "bad_signature", f"cannot {action}: the wallet's signature does not verify against hotkey {hotkey}"
        )
    return signature.hex()
