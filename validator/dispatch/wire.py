"""A run's reply as a Ray runner sends it to the node (`validator.dispatch.worker.Runner`, `validator.dispatch.ray`).

Ray sends a task's return value of up to 100 KiB inline with the call's answer, and puts a larger one in the object
store, whence the node fetches it: a run's reply (its trajectory, mostly) took 5 to 16 ms more there on this machine
(105 to 122 KB) than below the limit (1.2 to 3 ms). Pickled and compressed (zlib's fastest level: a trajectory's
JSON-like events compress several times over), a reply stays inline (docs/cluster.md, "How fast").
"""

from __future__ import annotations

import pickle
import zlib
from typing import Any


def packed(reply: Any) -> bytes:
    """The reply (`validator.dispatch.worker.WorkerReply`) pickled and compressed, as the runner returns it."""
    return zlib.compress(pickle.dumps(reply, protocol=pickle.HIGHEST_PROTOCOL), 1)


class ReplyError(ValueError):
    """A reply that cannot be read: corrupt bytes, or a format this node does not know (one line)."""


def unpacked(reply: Any) -> Any:
    """The reply `packed` made; one a runner of an older node version sent as it was is taken as it is. Bytes that
    do not decompress and unpickle raise `ReplyError` (the node maps it to the runner's fault: `ray.decoded`)."""
    if not isinstance(reply, bytes):
        return reply
    try:
        return pickle.loads(zlib.decompress(reply))
    except Exception as exc:  # noqa: BLE001 - unpickling corrupt bytes raises nearly anything
        why = str(exc).partition("\n")[0]
        raise ReplyError(f"the worker's reply does not unpack ({type(exc).__name__}: {why})") from None
