"""The node's memory under glibc's malloc (validator.upkeep.memory): its threads share a capped number of arenas, and
the free pages a race leaves inside them go back to the kernel. Each case runs in a fresh process (the arena cap
holds for threads started after it, and a process's arenas are never removed)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from arena.gcpause import glibc
from validator.upkeep import memory

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(glibc() is None, reason="the C library is not glibc (nothing to cap or trim)")

# Eight threads, each allocating while the others still hold their blocks (a barrier), then counts glibc's thread
# arenas: their heaps are 64 MiB-aligned anonymous mappings, read-write, the rest of the 64 MiB no-access.
THREADS = """
import json, sys, threading
from validator.upkeep import memory
cap = memory.limit_arenas(2) if sys.argv[1] == "cap" else None
barrier, held = threading.Barrier(8), []
def work():
    held.append([bytes(2000) for _ in range(200)])
    barrier.wait()
threads = [threading.Thread(target=work) for _ in range(8)]
for t in threads:
    t.start()
for t in threads:
    t.join()
maps = []
for line in open("/proc/self/maps"):
    span, perms = line.split()[:2]
    lo, hi = (int(x, 16) for x in span.split("-"))
    maps.append((lo, hi, perms, len(line.split()) > 5))
size, heaps = 64 * 2**20, 0
for (lo, hi, perms, named), nxt in zip(maps, maps[1:] + [None]):
    if named or not perms.startswith("rw") or lo % size:
        continue
    if hi - lo == size or (nxt and nxt[0] == hi and nxt[2].startswith("---") and nxt[1] - lo == size):
        heaps += 1
print(json.dumps({"cap": cap, "thread_arenas": heaps}))
"""

# A thread fills its arena with 4 KB blocks and frees all but one in 64 (what a race's work leaves: live blocks
# scattered among free ones), then the process trims.
FRAGMENTS = """
import json, threading
from validator.upkeep import memory
kept = []
def work():
    blocks = [bytes(4000) for _ in range(15000)]
    kept.extend(blocks[::64])
t = threading.Thread(target=work)
t.start()
t.join()
print(json.dumps({"freed": memory.trim()}))
"""


def run(script: str, *args: str, env: dict[str, str] | None = None) -> dict[str, object]:
    environ = {k: v for k, v in os.environ.items() if k not in {"MALLOC_ARENA_MAX", "GLIBC_TUNABLES"}}
    done = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(script), *args],
        capture_output=True,
        text=True,
        timeout=120,
        env={**environ, "PYTHONPATH": str(ROOT), **(env or {})},
        check=True,
    )
    return dict(json.loads(done.stdout.strip().splitlines()[-1]))


def test_threads_share_the_capped_arenas() -> None:
    uncapped = run(THREADS, "none")
    capped = run(THREADS, "cap")
    assert uncapped["thread_arenas"] >= 4  # glibc's default: a new arena per thread, up to 8 a core
    assert capped["cap"] == 2
    assert capped["thread_arenas"] <= 1  # the main arena and one the eight threads share


def test_an_operators_malloc_arena_max_is_kept() -> None:
    chosen = run(THREADS, "cap", env={"MALLOC_ARENA_MAX": "4"})
    assert chosen["cap"] is None
    assert 1 < int(str(chosen["thread_arenas"])) <= 3  # glibc honours the operator's 4 (main + 3)


def test_trim_gives_free_pages_inside_an_arena_back() -> None:
    freed = run(FRAGMENTS)["freed"]
    assert isinstance(freed, int) and freed > 30 * 2**20  # of the ~60 MB the thread freed, held until trimmed


def test_a_cap_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="at least 1"):
        memory.limit_arenas(0)
