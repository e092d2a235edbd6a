"""The node's upkeep, so it can be left alone for weeks: the janitor (`janitor`: one pass of the sweeps in `sweeps`
and `archive`, removing on disk by rename-then-delete, `removal`) and the host's health (`host`: disk, memory, the
Docker engine, the chain, the beacon, the weights, the janitor; and the floors below which no new race opens), and
its memory under glibc's malloc (`memory`: the arenas capped, free pages trimmed after each race).
docs/validator.md, "Janitor and retention", "Host health" and "Left alone: the soak"."""

from validator.upkeep.host import Host
from validator.upkeep.janitor import Janitor, Pass
from validator.upkeep.sweeps import Freed, Grounds, Retention

__all__ = ["Freed", "Grounds", "Host", "Janitor", "Pass", "Retention"]
