"""Between the bittensor SDK and our port: one `ChainError` for any SDK or transport failure, the substrate that
records the calls the SDK composes, and decoders of runtime values."""

from __future__ import annotations

import ipaddress
import re
from typing import Any

import bittensor as bt
from bittensor.sp_core import KeyfileError

from validator.chain.port import Axon, ChainError

WEIGHT_CALLS = {f"{pallet}.{function}" for pallet, function in bt.SetWeights.wraps}
_RETRY_IN = re.compile(r"retry in ~?\s*(\d+)\s*blocks?", re.IGNORECASE)
_SDK_CODES = {
    bt.ErrorCode.RATE_LIMITED: "rate_limited",
    bt.ErrorCode.NOT_REGISTERED: "not_registered",
    bt.ErrorCode.INVALID_ARGUMENT: "bad_input",
    bt.ErrorCode.SUBNET_NOT_EXISTS: "no_subnet",
}


def sdk_error(
    action: str, error: BaseException, *, endpoint: str, network: str, invalid: str = "chain_error"
) -> ChainError:
    """One `ChainError` for a failure while doing `action` against `endpoint`; `invalid` is the code for SDK argument
    errors."""
    if isinstance(error, ChainError):
        return error
    if isinstance(error, FileNotFoundError):
        return ChainError("no_wallet", f"cannot {action}: wallet key file missing ({error})")
    if isinstance(error, KeyfileError | PermissionError):
        return ChainError("bad_wallet", f"cannot {action}: wallet key file unusable ({error})")
    if isinstance(error, bt.RpcConnectionError | bt.ConnectionNotReady | OSError | TimeoutError):
        reason = str(error).strip() or type(error).__name__
        return ChainError(
            "unreachable",
            f"cannot reach subtensor at {endpoint} (network "
            f"'{network}') to {action}: {reason}; check --subtensor.network "
            "/ --subtensor.chain_endpoint",
        )
    if isinstance(error, bt.ChainError):
        code = _SDK_CODES.get(error.code, "chain_error")
        retry = None
        if code == "rate_limited" and (match := _RETRY_IN.search(error.message)):
            retry = int(match.group(1))
        name = f" ({error.name})" if error.name else ""
        return ChainError(code, f"cannot {action}: {error.message}{name}", retry_in_blocks=retry)
    if isinstance(error, bt.PolicyError):
        return ChainError("chain_error", f"cannot {action}: refused by the SDK policy: {error}")
    if isinstance(error, bt.BittensorError):
        return ChainError(invalid, f"cannot {action}: {error}")
    return ChainError("chain_error", f"cannot {action}: {type(error).__name__}: {error}")


class RecordingSubstrate:
    """A `bittensor.Substrate` that delegates everything and, while `recording` is on, remembers each generated
    call composed through it.

    This is how `set_weights` reports the call the SDK actually built (plain or timelocked) and its u16 arguments.
    Recording is switched on only around one `set_weights` (under the chain's lock), so a long-running node does not
    accumulate every call it ever composed.
    """

    def __init__(self, inner: Any) -> None:
        self._inner = inner
        self.recording = False
        self.composed: list[Any] = []

    @property
    def token_symbols(self) -> dict[int, str]:
        return self._inner.token_symbols

    @token_symbols.setter
    def token_symbols(self, value: dict[int, str]) -> None:
        self._inner.token_symbols = value

    async def compose(self, call: Any) -> Any:
        if self.recording:
            self.composed.append(call)
        return await self._inner.compose(call)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def call_name(call: Any) -> str:
    """`Pallet.function` of a generated call (empty for anything else composed)."""
    return f"{getattr(call, 'module', '')}.{getattr(call, 'function', '')}"


def hex_of(value: Any) -> str | None:
    """A 0x-prefixed lowercase hex string from a decoded hash (hex text, bytes or a list of byte values)."""
    if value is None:
        return None
    if isinstance(value, str):
        text = value.lower()
        return text if text.startswith("0x") else "0x" + text
    if isinstance(value, list | tuple):
        value = bytes(int(b) for b in value)
    if isinstance(value, bytes | bytearray):
        return "0x" + bytes(value).hex()
    return None


def axon_of(raw: Any) -> Axon | None:
    """Our `Axon` from a runtime `AxonInfo` (ip as an integer), or None when nothing is served."""
    if not isinstance(raw, dict):
        return None
    ip, port = int(raw.get("ip") or 0), int(raw.get("port") or 0)
    if not ip or not port:
        return None
    address = ipaddress.IPv6Address(ip) if int(raw.get("ip_type") or 4) == 6 else ipaddress.IPv4Address(ip)
    return Axon(ip=str(address), port=port, protocol=int(raw.get("protocol") or 0))
