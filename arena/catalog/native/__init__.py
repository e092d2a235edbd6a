"""The catalog generator compiled with mypyc, used only when it was compiled from exactly the sources at hand.

`python -m arena.catalog.native build` (run by scripts/setup) compiles a copy of `COMPILED` into a folder outside the
source tree, named by `source_key` of the copy: a SHA-256 of their sources (and of `KEYED`, whose types they are
compiled against) and of the interpreter. `install` (called by ``arena/catalog/__init__.py``, before any of them is
imported) puts a finder first on ``sys.meta_path`` that loads them from that folder when it is complete, owned by this
user (or root) and writable by no one else (`unsafe`), and its library loads; otherwise (one warning logged) and when
there is no such folder, they run as pure Python: an edited source has another key, so it does until the next build.
The pure-Python modules are the reference; the compiled ones give the same bytes (tests/unit/test_native.py).
``ARENA_CATALOG_PURE=1`` forces pure Python; ``ARENA_NATIVE_DIR`` moves the folder of builds. Worker processes forked
by a build inherit the loaded modules. docs/operator.md, section 1.
"""

from __future__ import annotations

import hashlib
import importlib
import importlib.abc
import importlib.machinery
import importlib.util
import logging
import os
import sys
import sysconfig
from collections.abc import Sequence
from importlib.machinery import ModuleSpec
from pathlib import Path
from types import ModuleType

PACKAGE = "arena.catalog"
#: the modules compiled, as one mypyc group (calls between them are native)
COMPILED = ("rng", "vocab", "world", "listing", "generator")
#: modules the compiled ones import and are type-checked against: an edit of theirs also calls for a new build
KEYED = ("taxonomy",)
PURE_ENV = "ARENA_CATALOG_PURE"
DIR_ENV = "ARENA_NATIVE_DIR"
DONE = "complete"  # written last into a build's folder
SOURCES = Path(__file__).resolve().parents[1]  # arena/catalog

_log = logging.getLogger(__name__)


def source_key(sources: Path = SOURCES) -> str:
    """SHA-256 of the interpreter's extension ABI, then of each module's name and bytes."""
    h = hashlib.sha256(f"{sys.version}\0{sysconfig.get_config_var('EXT_SUFFIX')}\0".encode())
    for name in COMPILED + KEYED:
        h.update(f"{name}\0".encode())
        h.update((sources / f"{name}.py").read_bytes())
        h.update(b"\0")
    return h.hexdigest()


def builds_root() -> Path:
    """Where builds live: ``ARENA_NATIVE_DIR``, else beside the interpreter's packages (the project's .venv)."""
    configured = os.environ.get(DIR_ENV)
    return Path(configured) if configured else Path(sys.prefix) / "shoparena-native"


def group_name(key: str) -> str:
    """mypyc's group of the build: its shared library is the top-level module ``<group>__mypyc``."""
    return f"shoparena_catalog_{key[:16]}"


def forced_pure() -> bool:
    return os.environ.get(PURE_ENV, "") not in ("", "0")


class _Finder(importlib.abc.MetaPathFinder):
    """Finds the compiled modules (and their group's library) in the build for the sources at hand, if complete."""

    def __init__(self) -> None:
        self._files: dict[str, Path] | None = None

    def files(self) -> dict[str, Path]:
        if self._files is None:
            self._files = {}
            try:
                key = source_key()
            except OSError:  # a source not there to key (an install without them): pure Python
                return self._files
            folder = builds_root() / key[:32]
            if (folder / DONE).is_file():
                found = build_files(folder, key)
                if all(f.is_file() for f in found.values()):
                    why = unsafe(folder) or load_error(folder, key)
                    if why:
                        _log.warning("catalog generator runs as pure Python: %s", why)
                    else:
                        self._files = found
        return self._files

    def find_spec(
        self, fullname: str, path: Sequence[str] | None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not fullname.startswith((f"{PACKAGE}.", "shoparena_catalog_")):
            return None
        file = self.files().get(fullname)
        if file is None:
            return None
        loader = importlib.machinery.ExtensionFileLoader(fullname, str(file))
        return importlib.util.spec_from_file_location(fullname, file, loader=loader)


def build_files(folder: Path, key: str) -> dict[str, Path]:
    """The extension modules of the build in `folder`: the compiled modules and their group's library, by name."""
    suffix = sysconfig.get_config_var("EXT_SUFFIX")
    names = [f"{PACKAGE}.{m}" for m in COMPILED] + [f"{group_name(key)}__mypyc"]
    return {n: folder.joinpath(*n.split(".")).with_name(n.split(".")[-1] + suffix) for n in names}


def unsafe(folder: Path) -> str | None:
    """Why a build may not be loaded (one line): only what this user or root owns and only they can write is."""
    try:
        stats = [(path, path.lstat()) for path in [folder, *folder.rglob("*")]]
    except OSError as e:  # removed meanwhile (a prune)
        return f"its build could not be checked ({e})"
    for path, st in stats:
        if st.st_uid not in (os.getuid(), 0) or st.st_mode & 0o022:
            return (
                f"{path} is not owned by this user (or root) or is writable by others; remove {folder} "
                f"(or point {DIR_ENV} at a folder of your own) and run: python -m arena.catalog.native build"
            )
    return None


def load_error(folder: Path, key: str) -> str | None:
    """Load the group's library, where all the compiled code is (its modules' own files only call into it); why not."""
    name, files = group_name(key) + "__mypyc", build_files(folder, key)
    if name in sys.modules:
        return None
    try:
        spec = importlib.util.spec_from_file_location(
            name, files[name], loader=importlib.machinery.ExtensionFileLoader(name, str(files[name]))
        )
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    except (ImportError, OSError) as e:  # a broken build (e.g. a truncated file): the build command says so too
        sys.modules.pop(name, None)
        return f"its build could not be loaded ({e}); remove {folder} and run: python -m arena.catalog.native build"
    return None


_FINDER = _Finder()


def install() -> None:
    """Load the compiled modules, where a complete build of the current sources exists (unless forced pure)."""
    if not forced_pure() and _FINDER not in sys.meta_path:
        sys.meta_path.insert(0, _FINDER)


def compiled() -> bool:
    """Whether this process's generator (imported here if it was not) is the compiled one."""
    module = importlib.import_module(f"{PACKAGE}.generator")
    return not str(getattr(module, "__file__", "")).endswith(".py")
