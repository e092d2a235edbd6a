"""The session family's tools (``docs/sessions.md``, "The tools"): ShoppingBench's search and detail
tools, plus the conversation with the scripted shopper, served and logged by the gateway.

The shopper lives in the gateway: `SessionState` holds the whole problem (never sent to the sandbox) and the
conversation; ``ask_user`` and ``respond`` return only the shopper's words, the turns left and whether the session
is closed. ``recommend_product`` commits (and ends the session); ``terminate`` ends the run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from arena.tasks.session import shopper
from arena.tasks.session.problem import SessionProblem
from arena.tasks.shopping.tools import RESULTS as SHOPPINGBENCH_RESULTS
from arena.tasks.shopping.tools import find_product, terminate, view_product_information
from arena.tools.registry import RunState, ToolContext, ToolError, ToolRegistry


@dataclass
class SessionState(RunState):
    """One session's state at the gateway: the problem, the agent's moves so far and the shopper's memory."""

    problem: SessionProblem | None = None
    transcript: list[shopper.Action] = field(default_factory=list)
    replies: list[shopper.Reply] = field(default_factory=list)
    profile_reads: int = 0
    shopper_state: shopper.ShopperState | None = None

    def act(self, action: shopper.Action, lookup: shopper.Lookup) -> shopper.Reply:
        """The shopper's reply to ``action`` (the same as `shopper.reply` over the transcript, without the replay)."""
        if self.problem is None:
            raise ToolError("this run has no shopper to talk to")
        if self.shopper_state is None:
            self.shopper_state = shopper.start(self.problem)
        answer = shopper.step(self.problem, self.shopper_state, action, lookup)
        self.transcript.append(action)
        self.replies.append(answer)
        return answer


def _session(ctx: ToolContext) -> SessionState:
    if not isinstance(ctx.state, SessionState) or ctx.state.problem is None:
        raise ToolError("this run has no shopper to talk to")
    return ctx.state


def _lookup(ctx: ToolContext) -> shopper.Lookup:
    get: Callable[[str], dict[str, Any] | None] = ctx.catalog.get
    return get


def _split(product_ids: list[str] | str) -> tuple[str, ...]:
    parts = product_ids.split(",") if isinstance(product_ids, str) else product_ids
    return tuple(str(p) for p in parts)


def get_user_profile(ctx: ToolContext) -> dict[str, Any]:
    """Read the shopper's profile: what is known about them, and notes on how they shop."""
    st = _session(ctx)
    st.profile_reads += 1
    assert st.problem is not None
    profile = st.problem.profile
    return {"about": dict(profile.visible), "notes": list(profile.requirements.values())}


def ask_user(
    ctx: ToolContext,
    question: Annotated[str, Field(description="One short question for the shopper (at most 160 characters).")],
) -> dict[str, Any]:
    """Ask the shopper one question about what they need. Returns their answer, the turns left and whether the
    conversation is closed. Ask about one thing at a time."""
    return _session(ctx).act(shopper.Action("ask", question), _lookup(ctx)).public()


def respond(
    ctx: ToolContext,
    message: Annotated[str, Field(description="What you tell the shopper.")],
    product_ids: Annotated[
        list[str] | str, Field(description="Products you propose (0 to 3 ids); none for a plain message.")
    ] = "",
) -> dict[str, Any]:
    """Say something to the shopper, proposing up to three products. Returns their answer, the turns left and
    whether the conversation is closed. Commit with recommend_product once they agree."""
    action = shopper.Action("respond", message, _split(product_ids))
    return _session(ctx).act(action, _lookup(ctx)).public()


def recommend_product(
    ctx: ToolContext,
    product_ids: Annotated[str, Field(description="The product you commit to for the shopper (its id).")],
) -> str:
    """Commit to the product for the shopper: your final answer. It ends the conversation; the last one counts."""
    ids = [p.strip() for p in product_ids.split(",") if p.strip()]
    ctx.state.recommendations.append(ids)
    if isinstance(ctx.state, SessionState) and ctx.state.problem is not None:
        ctx.state.act(shopper.Action("commit", product_ids, tuple(ids)), _lookup(ctx))
    if not ids:
        return "No product recommended."
    return f"Having recommended the products to the user: {','.join(ids)}."


#: what each tool's result is (`arena.tools.registry.RESULT_KINDS`); the search tools as ShoppingBench declares them
RESULTS: dict[Callable[..., Any], str] = {
    find_product: SHOPPINGBENCH_RESULTS[find_product],
    view_product_information: SHOPPINGBENCH_RESULTS[view_product_information],
    get_user_profile: "other",
    ask_user: "reply",
    respond: "reply",
    recommend_product: "answer",
    terminate: SHOPPINGBENCH_RESULTS[terminate],
}
#: the tools whose calls are moves in the conversation (what the scorer replays)
SHOPPER_TOOLS = ("ask_user", "respond", "recommend_product")


def registry() -> ToolRegistry:
    """A fresh registry of the session family's tools."""
    out = ToolRegistry()
    for fn, results in RESULTS.items():
        out.register(fn, results=results)
    return out
