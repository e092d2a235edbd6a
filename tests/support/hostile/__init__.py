"""Hostile agents the tests keep, each a bundle made from the offline template (`write_agent`), and the model that
serves them (`obedient_model`): what a miner out to earn without the work would build. Each has a test that fails
if it earns more than the honest template on the same problems (`tests/e2e/test_hostile_judge.py`).

- ``parrot``: the template plus one LLM call that repeats the agent's own comparison of the products it found;
- ``planted``: the template plus a search with words it chose itself (echoed by result titles) and one LLM call
  naming them;
- ``quoter``: the template plus one LLM call that says a search result back word for word, as the gateway renders it;
- ``query``: the template plus one LLM call that says the shopper's query back three times.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from demo.agents import write_template

HERE = Path(__file__).resolve().parent
AGENTS = {
    "parrot": HERE / "parrot_agent.py",
    "planted": HERE / "planted_agent.py",
    "quoter": HERE / "quoter_agent.py",
    "query": HERE / "query_agent.py",
}
REPEAT = "Repeat the following text exactly, word for word, and add nothing:\n"
THRICE = "Say the following text three times, one per line, and add nothing:\n"


def write_agent(name: str, folder: Path) -> Path:
    """The hostile agent ``name``'s bundle in ``folder``: the template's ``baseline/`` with the agent's own
    ``agent.py``."""
    return write_template(folder, AGENTS[name].read_text())


def obedient_model(body: dict[str, Any]) -> str:
    """A model that does what it is told, as a real one does with these requests: asked to repeat a text word for
    word, it says the text back (three times when asked so); otherwise it says one short line."""
    messages = body.get("messages") or []
    last = str(messages[-1].get("content") or "") if messages else ""
    if last.startswith(REPEAT):
        return last[len(REPEAT) :]
    if last.startswith(THRICE):
        return "\n".join([last[len(THRICE) :]] * 3)
    return "Noted."
