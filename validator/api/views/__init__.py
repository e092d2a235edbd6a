"""What the dashboard shows across races, computed from the store: the standings over recent races, a miner's
history, the weights each uid received, the live race's progress and a race's miner x problem grid.

Nothing here shows the content of a race that has not closed (its problems, queries, steps, answers or checks): an
open or running race is seen through its runs' statuses, timing and score counts only (`revealed`).
"""

from validator.api.views.common import CERTAINTY, TIE_BREAK, TIE_EPSILON, iso, mark_ties, noise, revealed, ties
from validator.api.views.miners import miner, miners
from validator.api.views.races import grid, live
from validator.api.views.standings import standings, weight_history

__all__ = [
    "CERTAINTY",
    "TIE_BREAK",
    "TIE_EPSILON",
    "grid",
    "iso",
    "live",
    "mark_ties",
    "miner",
    "miners",
    "noise",
    "revealed",
    "standings",
    "ties",
    "weight_history",
]
