"""`BittensorChain`: the chain port over the bittensor 11.x SDK, in its blocking mode.

Nothing connects at construction: the SDK client (`bittensor.SyncClient`, which runs the async client on a private
loop thread) is built and connected on the first call. Every SDK or transport failure leaves this module as one
`ChainError` with a stable code and a single message naming what was tried.

What the SDK does for us, and this module relies on:
- `SetWeights` preflights registration (`Uids`) and the rate limit (`WeightsSetRateLimit` against `LastUpdate[uid]`),
  conforms the vector (`clip_to_max_weight` under `MaxWeightsLimit`, `normalize` to u16, `MinAllowedWeights`) and
  sends `SubtensorModule.set_mechanism_weights`, or `SubtensorModule.commit_timelocked_mechanism_weights` when
  `CommitRevealWeightsEnabled` is on (the chain reveals at the drand round the SDK returns as `reveal_round`).
  Its clip lands exactly on the limit and u16 rounding can then push the largest share past it, so under a
  `MaxWeightsLimit` we clip first with a rounding margin (`_within_max_weight`).
- `submit_call(..., signer="hotkey")` signs a raw call with the wallet's hotkey. Only unencrypted hotkeys are
  accepted (`_hotkey` refuses encrypted ones), so signing never stops at a password prompt.

Layout: `chain` holds `BittensorChain`, `sdk` what stands between the SDK and the port (error translation, the call
recorder, decoders), `wallets` the wallet helpers.
"""

from validator.chain.bittensor_chain.chain import BittensorChain
from validator.chain.bittensor_chain.wallets import create_wallet, load_wallet

__all__ = ["BittensorChain", "create_wallet", "load_wallet"]
