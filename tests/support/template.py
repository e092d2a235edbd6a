"""The offline template agent loaded in-process, as the sandbox loads it: the agent SDK (`arena_agent`) and the
bundle's root on the import path, then ``agent.py`` by its path (which puts its package ``baseline/`` beside it)."""

from __future__ import annotations

import importlib
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

ROOT = Path(__file__).resolve().parents[2]
SDK_DIR = ROOT / "sandbox" / "agent_sdk"
AGENT_PATH = ROOT / "miner_template" / "offline" / "agent.py"


def load_sdk() -> ModuleType:
    """`arena_agent`, the SDK an agent imports inside the sandbox."""
    if str(SDK_DIR) not in sys.path:
        sys.path.insert(0, str(SDK_DIR))
    return importlib.import_module("arena_agent")


def load_template(name: str = "shoparena_offline_agent") -> ModuleType:
    """The offline template's ``agent.py`` as module ``name``."""
    spec = importlib.util.spec_from_file_location(name, AGENT_PATH)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
