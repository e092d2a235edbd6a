"""ShopArena offline baseline agent: rule-based, no LLM. Start here.

The bundle is this folder: ``agent.py`` at its root defines ``agent_main(problem)``, the entry point the sandbox
calls, and the package ``baseline/`` next to it does the work (the sandbox puts the bundle's root on the import
path; so does this file, for when it is loaded by path elsewhere). ``solve(problem, call)`` runs the agent with any
callable that behaves like ``arena_agent.call_tool``, so it can be tried in-process against the real tools.

How one problem is solved, piece by piece (read them in this order):

1. ``baseline/query.py``, parse the query: it is split into requested items (shop queries number them, voucher
   queries list them before the voucher's rules); each item's price range and services become search filters, the
   rest of its words (minus filler, ``baseline/text.py``) the search text, its first words the product noun.
2. ``baseline/search.py``, search: every tool call goes through a `Session`, which keeps within the budget below and
   never raises. An item's candidates come from ``find_product`` (two pages, then a second query without the
   attribute names learnt from the first candidates), each viewed with ``view_product_information``.
3. ``baseline/rank.py``, rank: a candidate is scored by how much of the item's wording its attribute and SKU values
   (and, for the product noun, its title) explain, whether it meets the price and service filters (and sits where
   the query's price rule suggests the price is), how many query words its title shares, and how many other
   candidates look like listings of the same product model (a common model is the likelier one).
4. ``baseline/basket.py``, basket: a shop task's items come from one shop (``find_products_in_same_shop`` proposes
   shops, each scored by its best candidate per item, the leading ones refined by in-shop searches); a voucher
   task takes the best basket whose total fits the budget after the voucher (computed locally, then confirmed with
   ``calculate_voucher``), searching cheaper matches (``sort=priceasc``) when it does not fit.
   ``baseline/web.py``: a web task first answers its question from the page ``web_search`` finds, then looks for
   the requested kind of product carrying that value.
5. ``baseline/answer.py``, answer: the task's strategy runs, the module named after its task type
   (``baseline/product.py``, ``shop.py``, ``voucher.py``, ``web.py``, ``session.py``; a task type without one gets
   the product strategy): a new task type's baseline is one file ``baseline/<task>.py`` defining
   ``solve(s, query)``. The best candidate found is always recommended (whatever happens, even after a bug of ours)
   and the run terminated.
6. ``baseline/session.py``, a shopping session (task ``session``): the profile read, the opening searched, the
   most telling topics asked one at a time, what the shopper says tracked (``baseline/wants.py``: values, budgets,
   services, rejections, changes of mind), candidates proposed with ``respond``; only the product the shopper
   agreed to is committed.

Tune the budget here; the scoring weights sit at the top of each piece.
"""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

if os.path.dirname(os.path.abspath(__file__)) not in sys.path:
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from baseline.answer import solve_problem  # noqa: E402 - after the bundle's root is on the path
from baseline.search import Budget  # noqa: E402

#: Tool calls this agent allows itself per problem (recommend and terminate included).
MAX_CALLS = 40
#: Calls kept back for the final recommendation and termination.
RESERVE = 2
#: Seconds after which no more searching starts.
TIME_LIMIT = 150.0
#: Products read by one view_product_information call.
VIEW_BATCH = 20


def solve(problem: dict[str, Any], call: Callable[..., Any]) -> dict[str, Any]:
    """Solve one problem with ``call(name, **arguments)`` as the tool gateway; never raises."""
    try:
        budget = Budget(calls=MAX_CALLS, reserve=RESERVE, deadline=time.monotonic() + TIME_LIMIT, view_batch=VIEW_BATCH)
        return solve_problem(problem if isinstance(problem, dict) else {}, call, budget)
    except Exception as exc:  # the last line of defence
        return {"recommended": [], "error": f"{type(exc).__name__}: {exc}"[:200]}


def agent_main(problem: dict[str, Any]) -> dict[str, Any] | None:
    import arena_agent

    return solve(problem, arena_agent.call_tool)
