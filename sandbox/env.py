"""The agents' Python environment: what is importable inside a sandbox, and where it lives.

Agents may import the standard library, ``arena_agent`` (the SDK) and exactly these packages, preinstalled in the
sandbox image and in the process sandbox's environment: openai, httpx, requests, pydantic, numpy.

The process sandbox uses a virtual environment of Debian's ``/usr/bin/python3`` (so that it runs from a read-only
``/usr`` bind), at ``$ARENA_SANDBOX_VENV`` or ``var/sandbox-venv`` in the project; ``scripts/setup`` creates it.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

SANDBOX_PACKAGES = ("openai", "httpx", "requests", "pydantic", "numpy")
PROJECT_ROOT = Path(__file__).resolve().parent.parent
SYSTEM_PYTHON = "/usr/bin/python3"


def sandbox_venv() -> Path:
    return Path(os.environ.get("ARENA_SANDBOX_VENV", PROJECT_ROOT / "var" / "sandbox-venv"))


def sandbox_python() -> str:
    return str(sandbox_venv() / "bin" / "python")


def ensure_sandbox_venv() -> Path:
    """Create the sandbox environment if it is missing (needs the package index once)."""
    venv = sandbox_venv()
    python = venv / "bin" / "python"
    if python.exists():
        return venv
    base = SYSTEM_PYTHON if Path(SYSTEM_PYTHON).exists() else "python3"
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
                    *SANDBOX_PACKAGES], check=True)
    os.chmod(venv, 0o755)
    return venv


if __name__ == "__main__":
    print(ensure_sandbox_venv())
