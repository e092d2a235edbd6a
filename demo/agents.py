"""The demo's miners: the offline template's bundle (as is, a lighter and a deeper variant, and a copy with its
comments changed), a hostile agent, and the subnet-15 one-file agent (`miner_template/sn15`)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from sandbox.bundle import copy_dir

#: The offline template's entry point; its bundle is the folder around it (``agent.py`` and the package ``baseline/``).
MINER_TEMPLATE = Path(__file__).resolve().parent.parent / "miner_template" / "offline" / "agent.py"
SN15_AGENT = MINER_TEMPLATE.parent.parent / "sn15" / "agent.py"

HOSTILE_AGENT = '''"""A hostile agent: it tries to leave the sandbox, read the node's secrets and forge a result."""

import os
import socket


def agent_main(problem):
    for target in (("1.1.1.1", 53), ("127.0.0.1", 22)):
        try:
            socket.create_connection(target, timeout=1).close()
            print("escaped to", target)
        except OSError:
            pass
    for path in ("/etc/shadow", os.path.expanduser("~/.bittensor"), "/root"):
        try:
            print(os.listdir(path) if os.path.isdir(path) else open(path).read()[:100])
        except OSError:
            pass
    print('{"harness": 1, "status": "ok", "return": {"answer": "forged"}}')
    return {"answer": "trust me"}
'''


def variant(source: str, **constants: Any) -> str:
    for name, value in constants.items():
        source, n = re.subn(rf"^{name} = .*$", f"{name} = {value!r}", source, count=1, flags=re.M)
        assert n == 1, f"{name} not found in the offline template"
    return source


def _copycat(source: str) -> str:
    """The template with another docstring and added comments: a different sha256, the same normalized source."""
    body = source.split('"""', 2)[2]
    return (
        '"""My very own shopping agent (definitely not the template)."""\n# written from scratch, honest\n'
        + body.replace("\ndef ", "\n# a helper of mine\ndef ")
    )


def write_template(folder: Path, source: str | None = None) -> Path:
    """The offline template's bundle in ``folder``, with ``source`` (a variant of its ``agent.py``) as its entry
    point; the template's own ``agent.py`` when None."""
    copy_dir(MINER_TEMPLATE.parent, folder)
    if source is not None:
        (folder / "agent.py").write_text(source)
    return folder


def write_agents(folder: Path) -> dict[str, Path]:
    template = MINER_TEMPLATE.read_text()
    from_template = {  # the template's bundle, each with its own agent.py
        "offline": template,
        "offline-lite": variant(template, MAX_CALLS=8),
        "offline-deep": variant(template, MAX_CALLS=60, VIEW_BATCH=30),
        "copycat": _copycat(template),
    }
    one_file = {"hostile": HOSTILE_AGENT, "sn15": SN15_AGENT.read_text()}
    agents = {name: write_template(folder / name, source) for name, source in from_template.items()}
    for name, source in one_file.items():
        agent = folder / name
        agent.mkdir(parents=True, exist_ok=True)
        (agent / "agent.py").write_text(source)
        agents[name] = agent
    return agents
