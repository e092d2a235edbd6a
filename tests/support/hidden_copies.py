"""Copies of the offline template that hide its code from a check that reads only ``*.py`` files, each a working
agent (the same calls and answers as the template):

- ``code_in_text``: every module moved into a ``.txt`` file (``agent.py`` becomes ``core.txt``), loaded by a
  four-line ``agent.py`` that adds ``.txt`` to the import system's source suffixes and imports ``core``;
- ``code_in_strings``: every module kept as a raw string literal in ``agent.py`` (``SOURCES = {path: source}``) and
  imported from memory: a tokenizer reads a string as one token, whatever it holds;
- ``behind_padding``: the template behind 4.9 MB of padding modules (comments only) that sort before it and compress
  to a few KiB, so a reader with a 4 MiB budget spends it on them;
- ``base64_data``: the template's sources base64-encoded in ``data.b64`` and imported from memory at run time: no
  reading of the bundle sees its code, only its behaviour gives it away.

`tests/unit/test_hidden_copies.py` checks what the copy check makes of each, `tests/integration/test_copy_race.py`
races them against the template."""

from __future__ import annotations

import base64
import json
from pathlib import Path

from tests.support.copy_variants import TEMPLATE, read_bundle, write_bundle

Files = dict[str, str]

TEXT_MAIN = """import importlib.machinery as m, sys
L = (m.ExtensionFileLoader, m.EXTENSION_SUFFIXES), (m.SourceFileLoader, [*m.SOURCE_SUFFIXES, ".txt"])
sys.path_hooks.insert(0, m.FileFinder.path_hook(*L)), sys.path_importer_cache.clear()
def agent_main(problem): return __import__("core").agent_main(problem)
"""

#: Imports the template's modules from ``SOURCES`` ({path: source}, defined before it), as ``core`` and its package.
MEMORY_IMPORTER = """

class Memory(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path=None, target=None):
        for key in (name.replace(".", "/") + ".py", name.replace(".", "/") + "/__init__.py"):
            if key in SOURCES:
                return importlib.util.spec_from_loader(name, self, origin=key, is_package=key.endswith("__init__.py"))
        return None

    def create_module(self, spec):
        return None

    def exec_module(self, module):
        module.__file__ = os.path.join(HERE, module.__spec__.origin)
        exec(compile(SOURCES[module.__spec__.origin], module.__file__, "exec"), module.__dict__)


sys.meta_path.insert(0, Memory())


def agent_main(problem):
    return __import__("core").agent_main(problem)
"""

BASE64_MAIN = (
    "import base64, importlib.abc, importlib.util, json, os, sys\n\n"
    "HERE = os.path.dirname(os.path.abspath(__file__))\n"
    'with open(os.path.join(HERE, "data.b64"), "rb") as fh:\n'
    "    SOURCES = json.loads(base64.b64decode(fh.read()))\n" + MEMORY_IMPORTER
)

#: Padding: modules named to sort before the template's, each 608 KiB of comment lines that gzip packs to a few KiB.
PADDING_FILES = 8


def code_in_text(files: Files) -> Files:
    out = {("core.txt" if name == "agent.py" else name[: -len(".py")] + ".txt"): text for name, text in files.items()}
    return {**out, "agent.py": TEXT_MAIN}


def behind_padding(files: Files) -> Files:
    block = "".join(f"# {i:06d} padding, nothing to see here\n" for i in range(512))
    pads = {f"aaa_padding/{n:02d}.py": block * 32 for n in range(PADDING_FILES)}
    return {**pads, **files}


def code_in_strings(files: Files) -> Files:
    sources = {("core.py" if name == "agent.py" else name): text for name, text in files.items()}
    literal = "".join(f"    {name!r}: r'''{text}''',\n" for name, text in sources.items())
    head = "import importlib.abc, importlib.util, os, sys\n\nHERE = os.path.dirname(os.path.abspath(__file__))\n"
    return {"agent.py": f"{head}SOURCES = {{\n{literal}}}\n{MEMORY_IMPORTER}"}


def base64_data(files: Files) -> Files:
    sources = {("core.py" if name == "agent.py" else name): text for name, text in files.items()}
    return {"agent.py": BASE64_MAIN, "data.b64": base64.b64encode(json.dumps(sources).encode()).decode()}


HIDDEN = {
    "code_in_text": code_in_text,
    "code_in_strings": code_in_strings,
    "behind_padding": behind_padding,
    "base64_data": base64_data,
}


def write_hidden(folder: Path) -> dict[str, Path]:
    """The hidden copies of the offline template as bundle folders under ``folder``."""
    template = read_bundle(TEMPLATE)
    return {kind: write_bundle(make(template), folder / kind) for kind, make in HIDDEN.items()}
