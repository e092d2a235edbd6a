"""Sandbox conformance: an agent's own modules named as the harness's (``runner``, ``spawn``, ``forwarder``,
``harness``, ``start``) are the ones its imports find, on every backend (docs/miner.md: no module name of the
harness's is reserved)."""

from __future__ import annotations

import pytest

from tests.conformance.conftest import run_agent

pytestmark = pytest.mark.slow  # every sandbox: bubblewrap, Docker, gVisor

HARNESS_NAMES = ("runner", "spawn", "forwarder", "harness", "start")


def test_an_agents_modules_named_as_the_harnesss_are_its_own(node):
    files = {f"{name}.py": f"WHO = 'the agent\\'s {name}'\n" for name in HARNESS_NAMES}
    outcome = run_agent(
        node,
        f"""
        import importlib

        def agent_main(problem):
            return {{name: getattr(importlib.import_module(name), "WHO", None) for name in {HARNESS_NAMES!r}}}
        """,
        "own-modules",
        files=files,
    )
    assert outcome.result.status == "ok", outcome.result.error
    assert outcome.result.returned == {name: f"the agent's {name}" for name in HARNESS_NAMES}
