"""What the demo's processes share on this machine: a free loopback port, and an installed command's path."""

from __future__ import annotations

import socket
import sys
from pathlib import Path


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def executable(name: str) -> str:
    """The installed command ``name`` beside this Python (the project's venv), else ``name`` for the PATH."""
    found = Path(sys.executable).parent / name
    return str(found) if found.exists() else name
