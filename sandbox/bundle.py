"""Agent bundles: a folder with ``agent.py`` at its root defining ``agent_main(problem: dict) -> dict | None``.

Packed as a deterministic tar.gz (sorted entries, fixed mtimes, uid/gid 0, mode 0644/0755, no gzip timestamp), so the
sha256 of the bytes identifies a submission. Limits: 1 MiB packed, 10 MiB unpacked; no symlinks, devices, absolute
paths or ``..``; no compiled Python, native library or archive, and at most 4 MiB for the copy check to read
(`arena.copies.fingerprint`: the text of every file, the readable runs of a binary one). Only the standard library,
``arena_agent`` and the sandbox packages (`sandbox.env.SANDBOX_PACKAGES`) can be imported inside the sandbox.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import io
import os
import shutil
import stat
import tarfile
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from arena import syntax
from arena.copies.fingerprint import BUNDLE_CAP, code_format, reading

MAX_PACKED = 1 * 2**20
MAX_UNPACKED = 10 * 2**20
MAX_FILES = 500
# The uncompressed tar may hold the files plus their headers (a 512-byte header, maybe a PAX header, and padding per
# entry): anything larger is a decompression bomb and is refused before tarfile reads it.
MAX_TAR = MAX_UNPACKED + (MAX_FILES + 2) * 4 * 512
SKIP_DIRS = {"__pycache__", ".git", ".venv", ".mypy_cache", ".pytest_cache", ".ruff_cache"}


class BundleError(Exception):
    """A bundle breaks the rules; ``problems`` lists every reason, one line each."""

    def __init__(self, problems: list[str]) -> None:
        super().__init__("; ".join(problems))
        self.problems = problems


@dataclass(frozen=True)
class Bundle:
    data: bytes
    sha256: str
    files: int
    unpacked_bytes: int


def check_dir(folder: str | os.PathLike[str]) -> list[str]:
    """Every problem with a bundle folder (empty when it is fine)."""
    root = Path(folder)
    if not root.is_dir():
        return [f"{root} is not a folder; a bundle is a folder with agent.py at its root"]
    problems: list[str] = []
    total = count = to_read = 0
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root)
        if any(part in SKIP_DIRS for part in rel.parts):
            continue
        if path.is_symlink():
            problems.append(f"{rel}: symlinks are not allowed")
            continue
        mode = path.lstat().st_mode
        if stat.S_ISDIR(mode):
            continue
        if not stat.S_ISREG(mode):
            problems.append(f"{rel}: only regular files are allowed (devices, fifos and sockets are not)")
            continue
        count += 1
        total += path.stat().st_size
        kind, size = _readable(rel, path)
        to_read += size
        if kind is not None:
            problems.append(
                f"{rel}: {kind}; a bundle carries its code as source (the copy check reads every file, and cannot "
                "read code in compiled Python, native libraries or archives)"
            )
        if path.suffix == ".py":
            try:
                syntax.parse(source_text(path.read_bytes()), filename=str(rel))
            except UnicodeError as exc:
                problems.append(f"{rel}: {exc}")
            except SyntaxError as exc:
                problems.append(f"{rel}:{exc.lineno}: syntax error: {exc.msg}")
            except ValueError as exc:
                problems.append(f"{rel}: cannot be parsed ({exc})")
            except RecursionError:
                problems.append(f"{rel}: too deeply nested to parse")
    if count > MAX_FILES:
        problems.append(f"{count} files; a bundle holds at most {MAX_FILES}")
    if total > MAX_UNPACKED:
        problems.append(f"{total:,} bytes unpacked; the limit is {MAX_UNPACKED:,}")
    elif to_read > BUNDLE_CAP:
        problems.append(
            f"{to_read:,} bytes of text (every text file, and binary files' readable runs); the limit is "
            f"{BUNDLE_CAP:,}, what the copy check reads of a bundle"
        )
    agent = root / "agent.py"
    if not agent.is_file() or agent.is_symlink():
        problems.append("agent.py is missing at the bundle's root")
    else:
        problems += _check_entrypoint(agent)
    return problems


def _readable(rel: Path, path: Path) -> tuple[str | None, int]:
    """A file's code format the copy check cannot read (None: none) and how many bytes it gives it to read."""
    if path.stat().st_size > MAX_UNPACKED:
        return None, 0  # refused for its size already; never read whole
    data, name = path.read_bytes(), rel.as_posix()
    return code_format(name, data), len(reading(name, data)[0].encode("utf-8", "surrogatepass"))


def source_text(data: bytes) -> str:
    """A Python file's text as CPython reads it: UTF-8 unless a PEP 263 line declares another encoding, every byte
    decoded (`ast.parse` of the bytes lets undecodable bytes in a comment pass; the interpreter refuses the file).
    `UnicodeError` naming the line when it does not decode."""
    import io
    import tokenize

    declared: SyntaxError | None = None
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:  # undecodable first lines, an unknown declared encoding, or a bad BOM
        encoding, declared = "utf-8", exc
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise UnicodeError(
            f"line {line}: byte 0x{data[exc.start]:02x} is not {encoding} and no other encoding is declared "
            "(Python refuses the file); save it as UTF-8"
        ) from None
    if declared is not None:
        raise UnicodeError(f"cannot be read: {declared.msg}")
    return text


def _check_entrypoint(agent: Path) -> list[str]:
    try:
        tree = syntax.parse(source_text(agent.read_bytes()), filename=str(agent))
    except (SyntaxError, ValueError, RecursionError):
        return []  # already reported
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name == "agent_main":
            args = node.args
            positional = args.posonlyargs + args.args
            required = len(positional) - len(args.defaults)
            if args.vararg is None and (len(positional) < 1 or required > 1):
                return ["agent_main must take exactly one argument: agent_main(problem: dict) -> dict | None"]
            return []
        if isinstance(node, ast.AsyncFunctionDef) and node.name == "agent_main":
            return ["agent_main must be a plain function, not async (wrap asyncio.run inside it)"]
    return ["agent.py defines no top-level function agent_main(problem)"]


def copy_dir(folder: str | os.PathLike[str], dest: str | os.PathLike[str]) -> Path:
    """Copy a bundle folder's files (what `pack_dir` packs: no caches) into ``dest``, made if missing."""
    out = Path(dest)
    shutil.copytree(folder, out, ignore=shutil.ignore_patterns(*SKIP_DIRS), dirs_exist_ok=True)
    return out


def pack_dir(folder: str | os.PathLike[str]) -> Bundle:
    """Check and pack a folder; raises `BundleError` with every problem."""
    root = Path(folder)
    problems = check_dir(root)
    if problems:
        raise BundleError(problems)
    raw = io.BytesIO()
    total = count = 0
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as tar:
        for path in sorted(root.rglob("*")):
            rel = path.relative_to(root)
            if any(part in SKIP_DIRS for part in rel.parts) or path.is_dir():
                continue
            data = path.read_bytes()
            info = tarfile.TarInfo(str(PurePosixPath(*rel.parts)))
            info.size, info.mtime, info.uid, info.gid, info.uname, info.gname = len(data), 0, 0, 0, "", ""
            info.mode = 0o755 if os.access(path, os.X_OK) else 0o644
            tar.addfile(info, io.BytesIO(data))
            total += len(data)
            count += 1
    packed = gzip.compress(raw.getvalue(), compresslevel=9, mtime=0)
    if len(packed) > MAX_PACKED:
        raise BundleError([f"{len(packed):,} bytes packed; the limit is {MAX_PACKED:,}"])
    return Bundle(packed, hashlib.sha256(packed).hexdigest(), count, total)


def unpack(data: bytes, dest: str | os.PathLike[str]) -> Path:
    """Unpack a bundle safely into ``dest`` (files 0644, folders 0755); raises `BundleError` on anything unsafe."""
    if len(data) > MAX_PACKED:
        raise BundleError([f"{len(data):,} bytes packed; the limit is {MAX_PACKED:,}"])
    out = Path(dest)
    out.mkdir(parents=True, exist_ok=True)
    os.chmod(out, 0o755)
    raw = _gunzip(data)
    total = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(raw), mode="r:") as tar:
            members = tar.getmembers()
            if len(members) > MAX_FILES:
                raise BundleError([f"{len(members)} entries; a bundle holds at most {MAX_FILES}"])
            for member in members:
                name = PurePosixPath(member.name)
                if name.is_absolute() or ".." in name.parts:
                    raise BundleError([f"{member.name}: absolute paths and '..' are not allowed"])
                if not member.isfile():
                    raise BundleError([f"{member.name}: only regular files are allowed"])
                if SKIP_DIRS.intersection(name.parts):  # never packed: a file there would be run, never checked
                    raise BundleError([f"{member.name}: {', '.join(sorted(SKIP_DIRS))} folders are never packed"])
                total += member.size
                if total > MAX_UNPACKED:
                    raise BundleError([f"over {MAX_UNPACKED:,} bytes unpacked"])
                target = out.joinpath(*name.parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                fh = tar.extractfile(member)
                assert fh is not None
                target.write_bytes(fh.read())
                os.chmod(target, 0o644)
                for parent in target.relative_to(out).parents:
                    os.chmod(out / parent, 0o755)
    except (tarfile.TarError, OSError, EOFError) as exc:
        raise BundleError([f"not a readable tar.gz bundle ({exc})"]) from None
    if not (out / "agent.py").is_file():
        raise BundleError(["agent.py is missing at the bundle's root"])
    return out


def _gunzip(data: bytes) -> bytes:
    """The tar inside a bundle's gzip stream, decompressed with a cap (`MAX_TAR`), so a bomb never fills memory."""
    inflater = zlib.decompressobj(wbits=31)  # gzip container only
    try:
        raw = inflater.decompress(data, MAX_TAR + 1)
    except zlib.error as exc:
        raise BundleError([f"not a readable tar.gz bundle ({exc})"]) from None
    if len(raw) > MAX_TAR or inflater.unconsumed_tail:
        raise BundleError(
            [
                f"decompresses to over {MAX_TAR:,} bytes (the limit is {MAX_UNPACKED:,} bytes of files); "
                "a compression bomb"
            ]
        )
    if not inflater.eof:
        raise BundleError(["not a readable tar.gz bundle (the gzip stream is truncated)"])
    if inflater.unused_data:
        raise BundleError(["not a readable tar.gz bundle (data after the gzip stream)"])
    return raw


def stage(work: str | os.PathLike[str], sha256: str, source: bytes | Path) -> Path:
    """The one staging of an agent: bundle ``sha256`` made runnable once under ``work/agents/<sha256>``, a folder
    the sandbox's user can read (folders 0755, files 0644, its parent 0711), from the bundle's bytes, a packed file or
    an unpacked folder. Written beside and moved in place, so a half-staged agent is never seen. `BundleError` when
    the bundle cannot be unpacked or has no ``agent.py`` at its root (the miner's); `FileNotFoundError` when
    ``source`` is a path that is not there."""
    target = Path(work) / "agents" / sha256
    if target.is_dir():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    os.chmod(target.parent, 0o711)
    tmp = Path(tempfile.mkdtemp(dir=target.parent))
    try:
        agent = tmp / "agent"
        if isinstance(source, bytes):
            unpack(source, agent)
        elif source.is_dir():
            shutil.copytree(source, agent)
        elif source.is_file():
            unpack(source.read_bytes(), agent)
        else:
            raise FileNotFoundError(f"bundle {sha256[:12]} is not at {source}")
        if not (agent / "agent.py").is_file():
            raise BundleError(["agent.py is missing at the bundle's root"])
        for path in [agent, *agent.rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        os.replace(agent, target)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return target
