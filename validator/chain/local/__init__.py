"""`LocalChain`: a real dev chain for one subnet, kept in one SQLite file.

What it keeps, durably: the subnet's settings, the registered neurons (uid, hotkey, coldkey, stake, validator permit,
axon, `LastUpdate`, registration block), each hotkey's latest commitment, every weight extrinsic, and a log of every
write. Several processes may use one file at once (the validator node, miners' `arena-miner submit`, the
`arena-validator localchain` commands): the file is in WAL mode, every write is one `BEGIN IMMEDIATE` transaction
(so a read-check-write such as "next free uid" or "rate limit, then store" cannot interleave with another
process's), and readers see a consistent snapshot.

How it behaves like subtensor:
- Blocks advance with wall time: `block = floor((now - genesis_time) / block_time)`, unless the chain was told to
  `stall` (no block for a while: every later block comes that much later; `block_timestamp` says when each came,
  as subtensor's `Timestamp.Now`). The hash of block `n` is
  `sha256(genesis_id || n as 8 big-endian bytes)`, as 0x-hex: the same in every process that reads the file, and
  different for every chain (`genesis_id` is 32 random bytes chosen at `init`).
- Signed writes (`set_commitment`, `set_weights`, `serve_axon`) are signed with the wallet's hotkey and the
  signature is verified against the hotkey's ss58 address before anything is stored, as an extrinsic is.
- `set_weights` requires registration and a validator permit, enforces `WeightsSetRateLimit` against
  `LastUpdate[uid]` exactly as the chain does (allowed when `block - last_update >= weights_rate_limit`), and stores
  the vector as the SDK sends it: `bittensor.intents.weights.normalize` (max-upscale to u16, zeros dropped) over the
  uid-sorted pairs. There is no `MaxWeightsLimit` clip (subtensor's default is u16::MAX, under which the SDK does
  not clip either) and no commit-reveal.

What it does not model: emissions, consensus, deregistration and pruning (a full subnet refuses registration),
stake movements, serving and commitment rate limits.

Layout: `chain` holds `LocalChain` (the chain calls: reads, registration, signed writes) on `base` (its setup and
the helpers every call shares), `chainfile` the SQLite file's schema and creation, `ledger` its connections,
transactions and rows, `rules` what is refused before anything is signed, and `keys` the hotkey signing.
"""

from validator.chain.local.chain import LocalChain

__all__ = ["LocalChain"]
