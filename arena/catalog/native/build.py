"""`python -m arena.catalog.native build`: compile the generator's modules with mypyc into the folder of builds, under
the key of the sources at hand (`arena.catalog.native`); nothing is written into the source tree."""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from arena.catalog.native import COMPILED, DONE, KEYED, SOURCES, builds_root, group_name, load_error, source_key, unsafe

#: builds kept in the folder, the newest (each worktree's sources have their own; about 1 MB each)
KEEP = 16


def missing(compiler: str = "", include: Path | None = None, base_prefix: str = sys.base_prefix) -> str | None:
    """Why nothing can be compiled here (one line, with what to install), or None. `compiler`: ``CC`` (which
    setuptools uses too), else the interpreter's; `include`: where the interpreter's headers are."""
    if importlib.util.find_spec("mypyc") is None:
        return "mypyc is not installed (it comes with mypy, a dev dependency: scripts/setup)"
    need, absent = [], []
    compiler = (compiler or os.environ.get("CC") or sysconfig.get_config_var("CC") or "cc").split()[0]
    if shutil.which(compiler) is None:
        need.append("gcc")
        absent.append(f"no C compiler ({compiler})")
    elif subprocess.run(
        [compiler, "-E", "-x", "c", "-"], input=b"#include <stdio.h>\n", capture_output=True
    ).returncode:
        need.append("libc6-dev")
        absent.append("no C library headers (stdio.h)")
    headers = (include or Path(sysconfig.get_paths()["include"])) / "Python.h"
    if not headers.is_file():
        # Debian's interpreter (the venv's base) has them in its own version's package; another one, with it
        if base_prefix != "/usr":
            return f"no Python headers ({headers}); reinstall the Python of {base_prefix} with its headers"
        need.append(f"python{sys.version_info.major}.{sys.version_info.minor}-dev")
        absent.append(f"no Python headers ({headers})")
    if not need:
        return None
    return f"{', '.join(absent)}; install {' '.join(need)} (Debian, as root: apt-get install -y {' '.join(need)})"


def build(root: Path | None = None) -> tuple[bool, str]:
    """Compile the current sources unless built already: (whether a build for them is there now, one line)."""
    root = root or builds_root()
    key = source_key()
    folder = root / key[:32]
    if (folder / DONE).is_file():
        why = unsafe(folder) or load_error(folder, key)
        if why:
            return False, f"catalog generator stays pure Python: {why}"
        return True, f"catalog generator: compiled build up to date ({folder})"
    reason = missing()
    if reason:
        return False, f"catalog generator stays pure Python: {reason}"
    root.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix=".build.", dir=root) as work:
        # the sources compiled are a copy, keyed as copied: an edit meanwhile cannot be built under another key
        src, out, log = Path(work) / "src", Path(work) / "out", Path(work) / "mypyc.log"
        key = _copy_sources(src)
        folder = root / key[:32]
        script = _BUILD_SCRIPT.format(
            paths=[f"arena/catalog/{m}.py" for m in COMPILED], c=f"{work}/c", out=str(out), temp=f"{work}/temp"
        )
        with log.open("wb") as sink:  # cwd: the copy, where mypy's cache goes too (removed with it)
            done = subprocess.run([sys.executable, "-c", script, group_name(key)], cwd=src, stdout=sink, stderr=sink)
        if done.returncode != 0:
            kept = root / f"failed-{key[:12]}.log"
            shutil.copyfile(log, kept)
            return False, f"catalog generator stays pure Python: mypyc failed, see {kept}"
        (out / DONE).write_text(key + "\n")
        _seal(out)
        if folder.exists() and not (folder / DONE).is_file():
            shutil.rmtree(folder)  # what an interrupted removal left
        try:
            out.rename(folder)
        except OSError:  # another build of the same sources got there first: the same modules, kept
            if not (folder / DONE).is_file():
                raise
        _fsync(root)
    prune(root, folder)
    return True, f"catalog generator compiled with mypyc in {time.monotonic() - started:.0f} s ({folder})"


def _copy_sources(src: Path) -> str:
    """Copy the compiled and keyed modules to `src`/arena/catalog (empty package inits: not compiled); their key."""
    package = src / "arena" / "catalog"
    package.mkdir(parents=True)
    for init in (src / "arena", package):
        (init / "__init__.py").write_text("")
    for name in COMPILED + KEYED:
        shutil.copyfile(SOURCES / f"{name}.py", package / f"{name}.py")
    (src / "mypy.ini").write_text(_MYPY_INI)
    return source_key(package)


def _seal(out: Path) -> None:
    """Make the build writable by its owner only (`unsafe` refuses it otherwise) and flush it to disk."""
    for path in sorted(out.rglob("*"), reverse=True) + [out]:
        path.chmod(path.stat().st_mode & ~0o022)
        _fsync(path)


def _fsync(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


#: the project's mypy settings that bear on these modules (pyproject.toml's are not read: mypy runs in the copy)
_MYPY_INI = "[mypy]\ncheck_untyped_defs = True\n"

#: run in a child (cwd: the copy of the sources): mypyc's C sources, then setuptools' build_ext into the build's
#: folder (a bare Distribution: the project's own metadata is not read)
_BUILD_SCRIPT = """
import sys
from setuptools import Distribution
from mypyc.build import mypycify
exts = mypycify({paths!r}, target_dir={c!r}, group_name=sys.argv[1], opt_level="3")
args = ["-q", "build_ext", "--build-lib", {out!r}, "--build-temp", {temp!r}]
dist = Distribution({{"name": "shoparena-native", "ext_modules": exts, "script_args": args}})
dist.parse_command_line()
dist.run_commands()
"""

#: builds (and failed builds' logs) younger than this are kept, whatever their number
YOUNG = 86400.0


def prune(root: Path, current: Path) -> None:
    """Beyond the newest `KEEP` builds and `KEEP` failure logs, those over a day old go (never `current`); so do the
    work folders of builds killed over an hour ago. Another prune may remove the same entries meanwhile."""
    now, builds, logs = time.time(), [], []
    for entry in root.iterdir():
        try:
            age = now - entry.stat().st_mtime
            if entry.name.startswith(".build.") and age > 3600:
                shutil.rmtree(entry, ignore_errors=True)
            elif entry.name.startswith("failed-") and entry.name.endswith(".log"):
                logs.append((age, entry))
            elif (entry / DONE).is_file() and entry != current:
                builds.append((age, entry))
        except FileNotFoundError:
            continue
    for group in (builds, logs):
        group.sort()  # the newest first
        for age, old in group[KEEP:]:
            if age > YOUNG:
                (old / DONE if old.is_dir() else old).unlink(missing_ok=True)  # no longer complete, then removed
                shutil.rmtree(old, ignore_errors=True)


def main(argv: Sequence[str]) -> int:
    if list(argv) != ["build"]:
        got = " ".join(argv) or "nothing"
        print(f"error: expected the command 'build', got {got}: python -m arena.catalog.native build", file=sys.stderr)
        return 2
    ok, line = build()
    print(line)
    return 0 if ok else 1
