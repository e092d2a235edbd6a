"""A miner's LLM key, delivered sealed to one validator's request (`docs/miner.md`, "Paying for your own inference").

The validator asks with a ``btauth/1``-signed ``POST /llm-key`` (the scheme bundles are fetched with: validator-permit
holders only) whose body holds a fresh X25519 public key (`KeyRequest`); the miner answers with its provider, model
and key sealed to that public key (libsodium's sealed box through PyNaCl: `seal_answer`), bound to the request (its
public key, its btauth nonce, the miner's and the validator's hotkeys). Only the holder of the request's private key
opens it (`KeyRequest.open`); an answer sealed to an earlier request does not open, and one that opens but names
another request, miner or validator is refused. Nothing here writes, logs or prints a key: `OpenedKey.key` is a
`SecretStr`, kept by the validator in memory for one race."""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass, field
from typing import Any

from nacl.exceptions import CryptoError
from nacl.public import PrivateKey, PublicKey, SealedBox
from pydantic import SecretStr

from arena.keymask import MAX_KEY_CHARS, key_problem

#: the route a miner's server answers key requests on
KEY_ROUTE = "/llm-key"
VERSION = 1


class SealedKeyError(Exception):
    """A key request or sealed answer that cannot be used: one line saying why (never the key)."""


class MinerUnreachable(SealedKeyError):
    """The miner's server did not answer the key request (unreachable, timed out): from here the node's side and the
    miner's look the same, so it is nobody's fault and the key is asked for again at the run's next attempt."""


@dataclass(frozen=True)
class MinerKeyConfig:
    """What the miner's server hands over: the operator-allowed provider it pays at, the model its agent uses (None:
    the provider's first) and its key."""

    provider: str
    key: SecretStr
    model: str | None = None

    def __post_init__(self) -> None:
        check_key(self.key.get_secret_value(), self.provider)

    def __repr__(self) -> str:
        return f"MinerKeyConfig({self.provider!r}, model={self.model!r})"


def check_key(key: str, provider: str) -> None:
    """`SealedKeyError` for no provider named, or a key that is not a provider token (`arena.keymask.key_problem`:
    empty, oversized, too short, or holding a character outside ``A-Z a-z 0-9 . _ ~ -``)."""
    if not provider.strip():
        raise SealedKeyError("no provider named for the LLM key; name one the validators allow (--llm-provider)")
    problem = key_problem(key)
    if problem is not None:
        raise SealedKeyError(problem)


@dataclass(frozen=True)
class OpenedKey:
    """A miner's key as the validator holds it for the race."""

    miner: str
    provider: str
    key: SecretStr
    model: str | None = None

    def __repr__(self) -> str:
        return f"OpenedKey({self.miner!r}, {self.provider!r}, model={self.model!r})"


@dataclass
class KeyRequest:
    """One request for a miner's key: a fresh X25519 key pair, made for this request only."""

    miner: str
    validator: str
    _private: PrivateKey = field(default_factory=PrivateKey.generate, repr=False)

    @property
    def pubkey(self) -> str:
        return bytes(self._private.public_key).hex()

    def body(self) -> bytes:
        """The signed request's body."""
        return json.dumps({"v": VERSION, "pubkey": self.pubkey}, separators=(",", ":")).encode()

    def open(self, answer: Any, *, nonce: str) -> OpenedKey:
        """The key in `answer` (the server's JSON), which must be sealed to this request (`nonce`: the btauth nonce
        it was signed with); `SealedKeyError` in one line otherwise."""
        sealed = answer.get("sealed") if isinstance(answer, dict) else None
        if not isinstance(sealed, str) or len(sealed) > 8 * MAX_KEY_CHARS:
            raise SealedKeyError("the miner's answer holds no sealed key")
        try:
            plain = SealedBox(self._private).decrypt(base64.b64decode(sealed, validate=True))
            inner = json.loads(plain)
        except (CryptoError, ValueError):
            raise SealedKeyError("the miner's sealed key does not open with this request's key") from None
        if not isinstance(inner, dict):
            raise SealedKeyError("the miner's sealed key is not a JSON object")
        expected = {
            "v": VERSION,
            "pubkey": self.pubkey,
            "nonce": nonce,
            "miner": self.miner,
            "validator": self.validator,
        }
        wrong = [k for k, v in expected.items() if inner.get(k) != v]
        if wrong:
            raise SealedKeyError(f"the miner's sealed key answers another request (its {', '.join(wrong)} differ)")
        provider, key, model = inner.get("provider"), inner.get("key"), inner.get("model")
        if not isinstance(provider, str) or not isinstance(key, str) or not isinstance(model, str | None):
            raise SealedKeyError("the miner's sealed key lacks its provider or key")
        check_key(key, provider)
        return OpenedKey(self.miner, provider, SecretStr(key), model)


def read_request(body: bytes) -> bytes:
    """The X25519 public key of a key request's body; `SealedKeyError` for any other body."""
    try:
        parsed = json.loads(body)
        pubkey = bytes.fromhex(parsed["pubkey"]) if isinstance(parsed, dict) and parsed.get("v") == VERSION else b""
    except (ValueError, KeyError, TypeError):
        pubkey = b""
    if len(pubkey) != 32:
        raise SealedKeyError('a key request\'s body is {"v": 1, "pubkey": "<64 hex digits: an X25519 public key>"}')
    return pubkey


def seal_answer(config: MinerKeyConfig, pubkey: bytes, *, nonce: str, miner: str, validator: str) -> dict[str, str]:
    """The miner's answer to one key request: its provider, model and key, bound to the request, sealed to
    `pubkey`."""
    inner = {
        "v": VERSION,
        "pubkey": pubkey.hex(),
        "nonce": nonce,
        "miner": miner,
        "validator": validator,
        "provider": config.provider,
        "model": config.model,
        "key": config.key.get_secret_value(),
    }
    sealed = SealedBox(PublicKey(pubkey)).encrypt(json.dumps(inner).encode())
    return {"sealed": base64.b64encode(sealed).decode("ascii")}


__all__ = [
    "KEY_ROUTE",
    "KeyRequest",
    "MinerKeyConfig",
    "OpenedKey",
    "SealedKeyError",
    "check_key",
    "read_request",
    "seal_answer",
]
