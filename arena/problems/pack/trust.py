"""Who signs a pack: the public development keys refused (`dev_key_uri`), the pinned signers checked (`check_signer`),
and the keypair an operator signs with (`load_keypair`).
"""

from __future__ import annotations

import functools
from collections.abc import Collection

from arena.problems.pack.models import Pack, PackError, Signer

#: the substrate development accounts (``subkey``'s well-known keys): their secrets are public, so anyone can sign as
#: them. The bare development phrase, each account, and each account's ``//stash``.
DEV_PHRASE = "bottom drive obey lake curtain smoke basket hold race lonely fit walk"
DEV_ACCOUNTS = ("Alice", "Bob", "Charlie", "Dave", "Eve", "Ferdie")
PIN_FLAG = "--pack.signer"
ALLOW_DEV_FLAG = "--pack.allow_dev_signer"


@functools.cache
def _dev_public_keys() -> dict[bytes, str]:
    from bittensor.sp_core import Keypair

    uris = ["//" + name for name in DEV_ACCOUNTS] + [f"//{name}//stash" for name in DEV_ACCOUNTS]
    keys = {bytes(Keypair.create_from_uri(uri).public_key): uri for uri in uris}
    keys[bytes(Keypair.create_from_mnemonic(DEV_PHRASE).public_key)] = "the development phrase"
    return keys


def _public_key(address: str) -> bytes | None:
    """The public key of an ss58 address (any network prefix), or None when it is not one."""
    from bittensor.sp_core import Keypair

    try:
        return bytes(Keypair(ss58_address=address.strip()).public_key)
    except (ValueError, TypeError):
        return None


def is_ss58(address: str) -> bool:
    return _public_key(address) is not None


def dev_key_uri(address: str) -> str | None:
    """``//Alice`` (and so on) when ``address`` is one of the public development keys, else None."""
    public = _public_key(address)
    return None if public is None else _dev_public_keys().get(public)


def check_signer(
    pack: Pack, trusted_signers: Collection[str], *, allow_dev_signer: bool = False, where: str = "the pack"
) -> None:
    """Refuse, with a one-line `PackError` that says what to do, a signed pack whose signer is not one of the
    pinned ``trusted_signers`` (compared by public key; none pinned is refused too), or is a public development key
    (`dev_key_uri`) unless ``allow_dev_signer`` (a local demo or test). The signature itself is `load_pack`'s."""
    signer = pack.signer or ""
    for pinned in trusted_signers:
        if not is_ss58(pinned):
            raise PackError(
                f"the pinned signer {pinned!r} is not an ss58 address; give the arena operator's hotkey "
                f"address (5...) with {PIN_FLAG}"
            )
    dev = dev_key_uri(signer)
    if dev is not None and not allow_dev_signer:
        raise PackError(
            f"{where} is signed by {signer}, the public development key {dev}, whose secret anyone has; "
            "have the arena operator sign it with their own hotkey (`arena problems pack --wallet.name "
            f"...`), or pass {ALLOW_DEV_FLAG} for a local demo or test only"
        )
    if not trusted_signers:
        raise PackError(
            f"{where} is signed by {signer}, but no signer is pinned, so nothing says it is the arena "
            f"operator's; ask the operator for their hotkey address (not from the pack) and pass it with "
            f"{PIN_FLAG} (or ARENA_PACK_SIGNER)"
        )
    public = _public_key(signer)
    if public not in {_public_key(pinned) for pinned in trusted_signers}:
        pinned_list = ", ".join(sorted(trusted_signers))
        raise PackError(
            f"{where} is signed by {signer}, not by the pinned signer {pinned_list}; get the pack from "
            f"the operator you pinned, or pin this signer with {PIN_FLAG} if you trust it"
        )


def load_keypair(
    *,
    wallet_name: str | None = None,
    wallet_hotkey: str | None = None,
    wallet_path: str | None = None,
    key_uri: str | None = None,
) -> Signer:
    """The keypair that signs packs.

    ``key_uri`` (e.g. ``//Alice``) derives a key from a secret URI: for local testing and dev chains only, since
    dev keys are public. Otherwise the hotkey of the bittensor wallet ``wallet_name``/``wallet_hotkey`` under
    ``wallet_path`` (bittensor's defaults for any left out: ``default``/``default`` under ``~/.bittensor/wallets``).
    ``key_uri`` wins when both are given.
    """
    if key_uri is not None:
        from bittensor.sp_core import Keypair

        try:
            return Keypair.create_from_uri(key_uri)
        except ValueError as exc:
            raise PackError(
                f"key URI {key_uri!r} is not valid ({exc}); use a dev key such as //Alice, or a wallet"
            ) from None

    from arena.wallet import DEFAULT_WALLETS, WalletError, load_wallet

    try:
        wallet = load_wallet(wallet_name or "default", wallet_hotkey or "default", wallet_path or DEFAULT_WALLETS)
    except WalletError as exc:
        raise PackError(exc.message) from None
    return wallet.hotkey
