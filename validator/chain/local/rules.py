"""What LocalChain refuses before anything is signed or stored, as subtensor (or the SDK) would: a chain's
settings, an axon, a weight vector (turned into the SDK's u16 vector)."""

from __future__ import annotations

import ipaddress
import math

from bittensor.intents.weights import normalize

from validator.chain.port import ChainError

U16_MAX = 65535


def settings_problems(netuid: int, block_time: float, weights_rate_limit: int, max_neurons: int) -> list[str]:
    """What is wrong with a new chain's settings (one line each)."""
    problems = []
    if not 0 <= int(netuid) <= U16_MAX:
        problems.append(f"netuid must be 0..{U16_MAX} (got {netuid})")
    if not (math.isfinite(block_time) and block_time > 0):
        problems.append(f"block_time must be a positive number of seconds (got {block_time})")
    if int(weights_rate_limit) < 0:
        problems.append(f"weights_rate_limit must be >= 0 blocks (got {weights_rate_limit})")
    if not 1 <= int(max_neurons) <= U16_MAX:
        problems.append(f"max_neurons must be 1..{U16_MAX} (got {max_neurons})")
    return problems


def axon_address(action: str, ip: str, port: int, protocol: int) -> ipaddress.IPv4Address | ipaddress.IPv6Address:
    """The axon's address, once `ip`, `port` and `protocol` are checked."""
    try:
        address = ipaddress.ip_address(str(ip).strip("[]"))
    except ValueError:
        raise ChainError("bad_input", f"cannot {action}: {ip!r} is not an IPv4 or IPv6 address") from None
    if not 1 <= int(port) <= U16_MAX:
        raise ChainError("bad_input", f"cannot {action}: port must be 1..{U16_MAX} (got {port})")
    if not 0 <= int(protocol) <= 255:
        raise ChainError("bad_input", f"cannot {action}: protocol must be 0..255 (got {protocol})")
    return address


def u16_weights(action: str, weights: dict[int, float], version_key: int) -> tuple[list[int], list[int], list[int]]:
    """(uids asked for, u16 uids, u16 weights): `bittensor.intents.weights.normalize` (max-upscale to u16, zeros
    dropped) over the uid-sorted pairs, once the vector and `version_key` are checked."""
    if not weights:
        raise ChainError("bad_input", f"cannot {action}: no weights to set")
    try:
        pairs = sorted((int(uid), float(value)) for uid, value in weights.items())
    except (TypeError, ValueError) as error:
        raise ChainError("bad_input", f"cannot {action}: weights must map integer uids to numbers ({error})") from None
    uids = [uid for uid, _ in pairs]
    if len(set(uids)) != len(uids):
        raise ChainError("bad_input", f"cannot {action}: duplicate uids in the weights")
    if any(not math.isfinite(value) or value < 0 for _, value in pairs):
        raise ChainError("bad_input", f"cannot {action}: weights must be finite and non-negative")
    if any(not 0 <= uid <= U16_MAX for uid in uids):
        raise ChainError("bad_input", f"cannot {action}: uids must be 0..{U16_MAX}")
    if not 0 <= int(version_key) < 2**64:
        raise ChainError("bad_input", f"cannot {action}: version_key must be a u64 (got {version_key})")
    u16_uids, u16_values = normalize(uids, [value for _, value in pairs])
    if not u16_uids:
        raise ChainError("bad_input", f"cannot {action}: all weights are zero; nothing to set")
    return uids, u16_uids, u16_values
