"""`keep_freed_heap`: a process that frees a batch of objects and makes the next reuses its heap instead of handing
it back to the system and faulting it in again (counted in page faults, not time)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from arena.gcpause import glibc

# batches of 4,000 1.4 kB byte strings (larger than Python's small-object allocator takes, so from malloc), each
# batch freed before the next is made; prints the page faults of the batches after the first
_BATCHES = """
import resource, sys
from arena.gcpause import keep_freed_heap
kept = keep_freed_heap() if sys.argv[1] == "keep" else None
batch = [bytes(1400) + bytes([i % 256]) for i in range(4000)]
del batch
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for n in range(20):
    batch = [bytes(1400) + bytes([n]) for i in range(4000)]
    del batch
print(kept, resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before)
"""


def _faults(mode: str) -> tuple[str, int]:
    out = subprocess.run([sys.executable, "-c", _BATCHES, mode], capture_output=True, text=True, check=True)
    kept, faults = out.stdout.split()
    return kept, int(faults)


@pytest.mark.slow  # fresh interpreters: the test process's own heap is left as it is
@pytest.mark.skipif(glibc() is None, reason="mallopt is glibc's")
def test_a_freed_batch_is_reused_not_faulted_back_in() -> None:
    kept, kept_faults = _faults("keep")
    _, default_faults = _faults("default")
    assert kept == "True"
    # 20 batches of about 5.6 MB: by default each is handed back and faulted in again (about 1,370 pages a batch)
    assert default_faults > 20 * 1000
    assert kept_faults < 200
