"""The generator compiled with mypyc (`arena.catalog.native`): the same bytes as pure Python, used only for the sources
it was compiled from."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from arena.catalog import native
from arena.catalog.native.build import KEEP, build, missing, prune

ROOT = Path(__file__).resolve().parents[2]

#: every product row (product, model key, search text), a build's chunk columns and web page of each catalog, digested;
#: and which ran
_DIGESTS = """
import hashlib, json, sys
from arena.catalog import generator as gen, native
from arena.catalog.index import SERVICE_BITS
from arena.catalog.webcorpus import generate_web_pages
out = {"compiled": native.compiled(), "listing": sys.modules["arena.catalog.listing"].__file__}
for seed, size in [(7, 5000), (123456789, 3000), (2, 2500), (0, 1)]:
    world, h = gen.World.build(seed, size), hashlib.sha256()
    world.model_cache = 300  # the model cache turns over too
    for chunk in range((size + gen.CHUNK - 1) // gen.CHUNK):
        for product, key, text in gen.generate_rows(world, chunk):
            h.update(gen.canonical_json([product, key, text]) + b"\\n")
        columns = gen.chunk_columns(world, chunk, SERVICE_BITS)
        h.update(columns[0] + b"\\n" + gen.canonical_json(columns[1:]) + b"\\n")
    for page in generate_web_pages(seed, size):
        h.update(gen.canonical_json(page) + b"\\n")
    out[f"{seed}/{size}"] = h.hexdigest()
print(json.dumps(out))
"""


def _run(script: str, path: Path = ROOT, **env: str) -> dict[str, object]:
    return _run_logged(script, path, **env)[0]


def _run_logged(script: str, path: Path = ROOT, **env: str) -> tuple[dict[str, object], str]:
    """The JSON `script` prints in a fresh interpreter, and what it logged."""
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=path,
        env={**os.environ, "PYTHONPATH": str(path), **env},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result, done.stderr


def _require(ok: bool, line: str) -> None:
    """A build made; CI's machine has a compiler and the headers, so there it must succeed."""
    if not ok:
        if os.environ.get("CI") == "true":
            pytest.fail(f"CI must run the compiled generator: {line}")
        pytest.skip(line)  # a machine without a C compiler or Python's headers runs the pure-Python generator


@pytest.mark.slow  # compiles (once for the module) and runs fresh interpreters
def test_compiled_and_pure_generators_make_the_same_bytes(fresh_root):
    compiled = _run(_DIGESTS, ARENA_CATALOG_PURE="", **{native.DIR_ENV: str(fresh_root)})
    pure = _run(_DIGESTS, ARENA_CATALOG_PURE="1")
    assert compiled.pop("compiled") is True and str(compiled.pop("listing")).endswith(".so")
    assert pure.pop("compiled") is False and str(pure.pop("listing")).endswith("listing.py")
    assert compiled == pure


#: what each entry point makes of bad seeds and sizes of any type, and of numpy's integers
_SEEDS = """
import json
import numpy as np
from arena.catalog import generator as gen, native
from arena.catalog.build import build_catalog
from arena.catalog.webcorpus import generate_web_pages
BAD = [("3", 10), (3.0, 10), (None, 10), (True, 10), (np.True_, 10), (-1, 10), (2**63, 10), (np.uint64(2**64 - 1), 10),
       (3, "10"), (3, 0), (3, np.float64(10)), (3, False), (3, 5_000_001)]
CALLS = [gen.World.build, gen.validate_seed_size, gen.iter_products, generate_web_pages,
         lambda seed, size: build_catalog(seed, size, "/nonexistent/catalog")]
out = {"compiled": native.compiled(), "errors": [], "shown": [repr(v) for pair in BAD for v in pair]}
for seed, size in BAD:
    for call in CALLS:
        try:
            call(seed, size)
        except ValueError as exc:
            out["errors"].append(str(exc))
        else:
            out["errors"].append(None)
world = gen.World.build(np.int64(3), np.int32(200))
out["numpy"] = [type(world.seed).__name__, type(world.size).__name__, gen.validate_seed_size(np.uint8(3), np.int16(9))]
plain = gen.World.build(3, 200)
out["same"] = list(gen.generate_rows(world, 0)) == list(gen.generate_rows(plain, 0)) and (
    generate_web_pages(np.int64(3), np.int64(200)) == generate_web_pages(3, 200)
)
from arena.catalog.index import SERVICE_BITS
out["indexes"] = [  # a chunk or product index of numpy's type, as an operator's script passes one
    gen.generate_rows(plain, np.int64(0)) == gen.generate_rows(plain, 0),
    gen.chunk_columns(plain, np.int32(0), SERVICE_BITS) == gen.chunk_columns(plain, 0, SERVICE_BITS),
    plain.product_id(np.int64(7)) == plain.product_id(7) == gen.generate_rows(plain, 0)[7][0]["product_id"],
]
print(json.dumps(out))
"""


@pytest.mark.slow  # the module's compile, and fresh interpreters
def test_bad_seeds_and_sizes_of_any_type_are_one_clear_value_error_compiled_and_pure(fresh_root):
    """The compiled build's typed signatures raise their own TypeError ("int object expected") for a str or numpy
    seed; every entry point says the one line instead, compiled as pure. numpy's integers are taken as integers (an
    operator's script passes them) and make the same catalog, as seed and size and as a chunk's or product's index
    (`generate_rows`, `chunk_columns`, `World.product_id`); a bool, float or string is refused."""
    compiled = _run(_SEEDS, ARENA_CATALOG_PURE="", **{native.DIR_ENV: str(fresh_root)})
    pure = _run(_SEEDS, ARENA_CATALOG_PURE="1")
    assert compiled.pop("compiled") is True and pure.pop("compiled") is False
    assert compiled == pure
    shown = iter(compiled.pop("shown"))
    said = []
    for i, (seed, size) in enumerate(zip(shown, shown, strict=True)):  # the first 8 pairs' seed is bad, then size
        what = ("seed", "0 to 9223372036854775807", seed) if i < 8 else ("size", "1 to 5,000,000", size)
        said += [f"{what[0]} must be an integer from {what[1]}, got {what[2]}"] * 5  # said alike by the 5 calls
    assert compiled["errors"] == said
    assert compiled["numpy"] == ["int", "int", [3, 9]] and compiled["same"] is True
    assert compiled["indexes"] == [True, True, True]


@pytest.mark.slow
def test_edited_sources_run_as_pure_python(fresh_root, tmp_path):
    """The build is found by the sources' content: a copy of them uses it, an edited copy does not."""
    which = "import json; from arena.catalog import generator, native; print(json.dumps({'c': native.compiled()}))"
    for name, edit in (("same", ""), ("edited", "\n# an edit\n")):
        copy = tmp_path / name
        shutil.copytree(ROOT / "arena", copy / "arena", ignore=shutil.ignore_patterns("__pycache__"))
        listing = copy / "arena" / "catalog" / "listing.py"
        listing.write_text(listing.read_text() + edit)
        assert (native.source_key(copy / "arena" / "catalog") == native.source_key()) is (name == "same")
        assert _run(which, copy, **{native.DIR_ENV: str(fresh_root)}) == {"c": name == "same"}


def test_the_key_covers_each_source(tmp_path):
    for name in native.COMPILED + native.KEYED:
        shutil.copy(native.SOURCES / f"{name}.py", tmp_path)
    key = native.source_key(tmp_path)
    assert key == native.source_key()
    for name in native.COMPILED + native.KEYED:
        source = tmp_path / f"{name}.py"
        text = source.read_text()
        source.write_text(text + " ")
        assert native.source_key(tmp_path) != key, name
        source.write_text(text)


#: which generator a fresh interpreter runs, and that it makes rows
_WHICH = """
import json
from arena.catalog import generator as gen, native
rows = list(gen.generate_rows(gen.World.build(3, 200), 0))
print(json.dumps({"compiled": native.compiled(), "rows": len(rows)}))
"""


@pytest.fixture(scope="module")
def fresh_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of builds holding one build made here, as scripts/setup makes it (the module's only compile)."""
    root, cwd = tmp_path_factory.mktemp("builds"), tmp_path_factory.mktemp("cwd")
    done = subprocess.run(
        [sys.executable, "-m", "arena.catalog.native", "build"],
        cwd=cwd,
        env={**os.environ, "PYTHONPATH": str(ROOT), native.DIR_ENV: str(root)},
        capture_output=True,
        text=True,
        timeout=900,
    )
    _require(done.returncode == 0, done.stdout + done.stderr)
    assert list(cwd.iterdir()) == [], "the build wrote into its cwd"  # mypy's cache stays in the build's copy
    return root


def _copy_build(fresh_root: Path, tmp_path: Path) -> tuple[Path, Path]:
    """A copy of the fresh build's folder of builds: (the copy, its build of the current sources)."""
    root = tmp_path / "builds"
    shutil.copytree(fresh_root, root, symlinks=True)
    return root, root / native.source_key()[:32]


@pytest.mark.slow  # compiles once for the module and starts fresh interpreters
def test_a_fresh_build_is_of_the_current_sources_and_loaded(fresh_root, tmp_path):
    _, folder = _copy_build(fresh_root, tmp_path)
    assert (folder / native.DONE).read_text() == native.source_key() + "\n"
    assert native.unsafe(folder) is None  # owner-only writable, whatever the umask
    result, log = _run_logged(_WHICH, **{native.DIR_ENV: str(fresh_root)})
    assert result == {"compiled": True, "rows": 200} and log == ""


@pytest.mark.slow
def test_a_build_that_fails_to_load_leaves_the_process_pure(fresh_root, tmp_path):
    root, folder = _copy_build(fresh_root, tmp_path)
    library = next(folder.glob(native.group_name(native.source_key()) + "__mypyc.*"))
    library.write_bytes(library.read_bytes()[:100])  # as a crash mid-write would leave it
    result, log = _run_logged(_WHICH, **{native.DIR_ENV: str(root)})
    assert result == {"compiled": False, "rows": 200}
    assert "runs as pure Python: its build could not be loaded" in log and log.count("\n") == 1
    done = subprocess.run(  # the build command says so too (and what to do), not "up to date"
        [sys.executable, "-m", "arena.catalog.native", "build"],
        env={**os.environ, "PYTHONPATH": str(ROOT), native.DIR_ENV: str(root)},
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 1 and "stays pure Python: its build could not be loaded" in done.stdout
    assert f"remove {folder} and run: python -m arena.catalog.native build" in done.stdout


@pytest.mark.slow
@pytest.mark.parametrize("change", ["group-writable file", "others-writable folder", "another owner"])
def test_a_build_others_could_have_written_is_not_loaded(fresh_root, tmp_path, change):
    root, folder = _copy_build(fresh_root, tmp_path)
    library = next(folder.glob(native.group_name(native.source_key()) + "__mypyc.*"))
    if change == "group-writable file":
        library.chmod(library.stat().st_mode | 0o020)
    elif change == "others-writable folder":
        (folder / "arena").chmod(0o777)
    elif os.getuid() == 0:
        os.chown(library, 65534, 65534)  # nobody's
    else:
        pytest.skip("only root can give a file to another user")
    assert native.unsafe(folder) is not None
    result, log = _run_logged(_WHICH, **{native.DIR_ENV: str(root)})
    assert result == {"compiled": False, "rows": 200}
    assert "is not owned by this user (or root) or is writable by others" in log and log.count("\n") == 1
    ok, line = build(root)  # the command says so too, and does not load or replace it
    assert not ok and "writable by others" in line


def test_missing_names_what_to_install_in_one_line(tmp_path):
    for compiler, package in (("no-such-cc", "gcc"), ("false", "libc6-dev")):  # `false`: a compiler that can't include
        line = missing(compiler)
        assert line is not None and "\n" not in line and f"apt-get install -y {package}" in line
    version = f"python{sys.version_info.major}.{sys.version_info.minor}-dev"
    line = missing("no-such-cc", include=tmp_path, base_prefix="/usr")
    assert line == (
        f"no C compiler (no-such-cc), no Python headers ({tmp_path / 'Python.h'}); install gcc {version} "
        f"(Debian, as root: apt-get install -y gcc {version})"
    )
    line = missing(include=tmp_path, base_prefix="/opt/python")
    assert line == f"no Python headers ({tmp_path / 'Python.h'}); reinstall the Python of /opt/python with its headers"


def test_prune_keeps_the_newest_the_young_and_the_current(tmp_path):
    old, now = time.time() - 2 * 86400, time.time()
    made = []
    for i in range(KEEP + 3):
        folder = tmp_path / f"build{i:02}"
        folder.mkdir()
        (folder / native.DONE).write_text("key\n")
        log = tmp_path / f"failed-{i:02}.log"
        log.write_text("mypyc failed\n")
        young = i == 1
        for path in (folder, log):
            os.utime(path, (now if young else old + i, now if young else old + i))
        made.append((folder, log))
    (tmp_path / ".build.gone").symlink_to(tmp_path / "nothing")  # removed while pruned: stat fails
    prune(tmp_path, current=made[0][0])
    kept = sorted(p.name for p in tmp_path.iterdir() if not p.is_symlink())
    # the young one is among the newest KEEP; the current one is kept besides; the two oldest of each go (and log 00)
    newest = [
        f"{kind}{i:02}{end}" for kind, end in (("build", ""), ("failed-", ".log")) for i in [1, *range(4, KEEP + 3)]
    ]
    assert kept == sorted(["build00", *newest])
