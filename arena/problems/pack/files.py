"""A pack on disk: `write_pack` (atomic, gzip for ``.gz``) and `load_pack`, which reads and checks it (format,
content, signature, signer, catalog) with a one-line `PackError` for each refusal.
"""

from __future__ import annotations

import contextlib
import gzip
import json
import os
import tempfile
import zlib
from collections.abc import Collection
from pathlib import Path

from pydantic import ValidationError

from arena.problems.pack.models import (
    FORMAT,
    GZIP_MAGIC,
    PACK_COMMAND,
    Pack,
    PackError,
    canonical_json,
    first_error,
    short_digest,
)
from arena.problems.pack.trust import check_signer


def pack_bytes(pack: Pack, *, compress: bool = False) -> bytes:
    data = canonical_json(pack.model_dump(mode="json"))
    return gzip.compress(data, mtime=0) if compress else data


def write_pack(pack: Pack, path: str | os.PathLike[str]) -> Path:
    """Write ``pack`` to ``path`` atomically (a temporary file in the same folder, fsynced, then renamed over it);
    gzip-compressed when the name ends in ``.gz``. Creates missing parent folders. Returns the path."""
    path = Path(path)
    data = pack_bytes(pack, compress=path.name.endswith(".gz"))
    tmp: str | None = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
        with os.fdopen(fd, "wb") as out:
            out.write(data)
            out.flush()
            os.fsync(out.fileno())
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
        tmp = None
    except OSError as exc:
        raise PackError(
            f"cannot write the pack to {path}: {exc.strerror or exc}; check the folder and its permissions"
        ) from None
    finally:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
    with contextlib.suppress(OSError):  # make the rename itself durable
        dir_fd = os.open(path.parent, os.O_RDONLY)
        try:
            os.fsync(dir_fd)
        finally:
            os.close(dir_fd)
    return path


def load_pack(
    path: str | os.PathLike[str],
    *,
    catalog_digest: str | None = None,
    require_signature: bool = True,
    trusted_signers: Collection[str] | None = None,
    allow_dev_signer: bool = False,
) -> Pack:
    """Read and check a pack.

    Refused with a one-line `PackError`: a missing or unreadable file, content that is not (gzip-compressed) JSON,
    another format version, invalid content, no signature when ``require_signature`` (or when ``trusted_signers``
    is given), a signature that does not match (always checked when present), and a pack bound to a catalog other
    than ``catalog_digest`` (when both are known). When ``trusted_signers`` is given (the signers pinned by whoever
    races the pack: empty when none is pinned), the signer is checked by `check_signer`.
    """
    path = Path(path)
    where = f"pack {path}"
    pack = _parse(_read_bytes(path, where), where)
    _check_signature(pack, where, require_signature, trusted_signers, allow_dev_signer)
    if catalog_digest is not None and pack.catalog_digest is not None and pack.catalog_digest != catalog_digest:
        raise PackError(
            f"{where} was made for catalog {short_digest(pack.catalog_digest)}, but the catalog is "
            f"{short_digest(catalog_digest)}; load the pack with the catalog it was made for"
        )
    return pack


def _read_bytes(path: Path, where: str) -> bytes:
    """The pack file's bytes, gunzipped when they are gzip (a ``.gz`` name must be)."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise PackError(f"{where} does not exist; check the path or make one with {PACK_COMMAND}") from None
    except IsADirectoryError:
        raise PackError(f"{where} is a folder; give the pack file inside it") from None
    except OSError as exc:
        raise PackError(f"cannot read {where}: {exc.strerror or exc}; check its permissions") from None

    if raw.startswith(GZIP_MAGIC):
        try:
            return gzip.decompress(raw)
        except (OSError, EOFError, zlib.error) as exc:
            raise PackError(
                f"{where} is not valid gzip ({exc}); the file is truncated or corrupt, copy it again"
            ) from None
    if path.name.endswith(".gz"):
        raise PackError(
            f"{where} is not gzip-compressed although its name ends in .gz; compress it with gzip or "
            "drop the .gz suffix"
        )
    return raw


def _parse(raw: bytes, where: str) -> Pack:
    """The pack in ``raw``: UTF-8 JSON, an object, of this format, valid."""
    try:
        data = json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise PackError(f"{where} is not UTF-8 JSON ({exc.reason} at byte {exc.start}); is it really a pack?") from None
    except json.JSONDecodeError as exc:
        raise PackError(
            f"{where} is not JSON ({exc.msg} at line {exc.lineno} column {exc.colno}); is it really a "
            "pack? copy it again or rebuild it"
        ) from None
    if not isinstance(data, dict):
        raise PackError(f"{where} is not a pack: it holds a JSON {type(data).__name__}, not an object")
    fmt = data.get("format", FORMAT)
    if type(fmt) is not int or fmt != FORMAT:
        raise PackError(
            f"{where} has format {fmt!r}, but this version of arena reads format {FORMAT}; upgrade arena "
            f"or rebuild the pack with {PACK_COMMAND}"
        )
    try:
        return Pack.model_validate(data)
    except ValidationError as exc:
        raise PackError(
            f"{where} is invalid: {first_error(exc, data)}; fix it or rebuild it with {PACK_COMMAND}"
        ) from None


def _check_signature(
    pack: Pack, where: str, require_signature: bool, trusted_signers: Collection[str] | None, allow_dev_signer: bool
) -> None:
    """Refuse an unsigned pack when a signature is required (or signers are pinned), a signature that does not
    match, and (signers pinned) a signer not trusted."""
    if pack.signature is None or pack.signer is None:
        if require_signature or trusted_signers is not None:
            raise PackError(
                f"{where} is not signed; sign it with {PACK_COMMAND} (or load it with signatures not "
                "required, for local testing only)"
            )
        return
    problem = pack.signature_problem()
    if problem == "the signature does not match":
        raise PackError(
            f"{where}: signature does not match: the pack was modified after signing or signed by "
            f"another key; re-sign it with {PACK_COMMAND}"
        )
    if problem is not None:
        raise PackError(f"{where}: {problem}; re-sign it with {PACK_COMMAND}")
    if trusted_signers is not None:
        check_signer(pack, trusted_signers, allow_dev_signer=allow_dev_signer, where=where)
