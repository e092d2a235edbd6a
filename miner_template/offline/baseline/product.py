"""Task ``product``: the best candidate for the one requested item (`baseline.rank`)."""

from __future__ import annotations

from baseline.query import parse_item
from baseline.search import Session


def solve(s: Session, query: str) -> None:
    """The best candidate for the one requested item."""
    ranked = s.best_for(parse_item(query))
    if ranked:
        s.recommend([ranked[0][2]])
