"""The agents' Python environment: what is importable inside a sandbox, and where it lives.

Agents may import the standard library, ``arena_agent`` (the SDK) and exactly these packages, preinstalled in the
sandbox image and in the process sandbox's environment: openai, httpx, requests, pydantic, numpy.

The process sandbox uses a virtual environment of Debian's ``/usr/bin/python3`` (so that it runs from a read-only
``/usr`` bind), at ``$ARENA_SANDBOX_VENV``, else ``/var/lib/shoparena/sandbox-venv`` for root (a path the sandbox
user, 65534, can traverse wherever the project is checked out) or ``~/.cache/shoparena/sandbox-venv`` for others;
``scripts/setup`` creates it.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

SANDBOX_PACKAGES = ("openai", "httpx", "requests", "pydantic", "numpy")
#: the code every sandbox carries beside the agent: the harness that runs it and the SDK it may import
HARNESS_DIR = Path(__file__).resolve().parent / "harness"
SDK_DIR = Path(__file__).resolve().parent / "agent_sdk"
SYSTEM_PYTHON = "/usr/bin/python3"


def state_dir() -> Path:
    """Where the node keeps sandbox files that uid 65534 must be able to read."""
    if os.geteuid() == 0:
        return Path("/var/lib/shoparena")
    return Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "shoparena"


def sandbox_venv() -> Path:
    return Path(os.environ.get("ARENA_SANDBOX_VENV", state_dir() / "sandbox-venv"))


def sandbox_python() -> str:
    return str(sandbox_venv() / "bin" / "python")


def ensure_sandbox_venv() -> Path:
    """Create the sandbox environment if it is missing (needs the package index once)."""
    venv = sandbox_venv()
    python = venv / "bin" / "python"
    if python.exists():
        return venv
    base = SYSTEM_PYTHON if Path(SYSTEM_PYTHON).exists() else "python3"
    venv.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(venv.parent, 0o755)
    subprocess.run([base, "-m", "venv", str(venv)], check=True)
    done = subprocess.run(
        [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", *SANDBOX_PACKAGES],
        capture_output=True,
        text=True,
    )
    if done.returncode != 0:
        raise SystemExit(f"could not install the sandbox packages into {venv}:\n{done.stderr[-2000:]}")
    os.chmod(venv, 0o755)
    return venv


def staged_runtime() -> tuple[Path, Path]:
    """The harness and SDK copied to a folder every user can read (the project may sit under a private home)."""
    import hashlib

    digest = hashlib.sha256(b"compiled: harness, sdk")  # staged with their bytecode (read-only in the sandbox)
    files = sorted(p for d in (HARNESS_DIR, SDK_DIR) for p in d.rglob("*.py"))
    for path in files:
        digest.update(str(path.relative_to(path.parents[1])).encode() + path.read_bytes())
    root = state_dir() / "runtime" / digest.hexdigest()[:16]
    if not (root / ".complete").exists():
        tmp = root.with_name(root.name + f".tmp{os.getpid()}")
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.copytree(HARNESS_DIR, tmp / "harness", ignore=shutil.ignore_patterns("__pycache__"))
        shutil.copytree(SDK_DIR, tmp / "sdk", ignore=shutil.ignore_patterns("__pycache__"))
        _compile(tmp)
        (tmp / ".complete").touch()
        for path in [tmp, *tmp.rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        for parent in (root.parent, root.parent.parent):
            parent.mkdir(parents=True, exist_ok=True)
            os.chmod(parent, 0o755)
        try:
            tmp.rename(root)
        except OSError:  # another process staged it first
            shutil.rmtree(tmp, ignore_errors=True)
    return root / "harness", root / "sdk"


def _compile(folder: Path) -> None:
    """Bytecode for the staged harness and SDK, by the agents' Python: the sandbox mounts them read-only, so every
    start would otherwise compile the harness, and every agent importing ``arena_agent`` the SDK. Best effort: without
    it both still import."""
    python = sandbox_python()
    if Path(python).exists():
        subprocess.run([python, "-m", "compileall", "-q", str(folder)], capture_output=True, timeout=120)


if __name__ == "__main__":
    print(ensure_sandbox_venv())
