"""Removing on disk so that a pass cut short leaves nothing half-deleted a later pass cannot finish: an entry is first
renamed, in its own folder, to a trash name (one atomic step: what a reader finds under the old name is whole or
gone), then deleted; a trash entry a dead pass left is deleted by the next one (`finish`)."""

from __future__ import annotations

import os
import shutil
import uuid
from pathlib import Path

#: the prefix of an entry being removed; nothing else is ever named so
TRASH = ".janitor-trash-"


def size_of(path: Path) -> int:
    """Bytes a file or a folder (its files, links not followed) takes; 0 when it is gone."""
    try:
        if path.is_symlink() or path.is_file():
            return path.lstat().st_size
        total = 0
        for root, _dirs, files in os.walk(path):
            for name in files:
                try:
                    total += (Path(root) / name).lstat().st_size
                except OSError:
                    pass
        return total
    except OSError:
        return 0


def discard(path: Path) -> int:
    """Remove `path` (a file or a folder): renamed to a trash name beside it, then deleted. Returns the bytes freed
    (0 when it was gone already)."""
    if not path.exists() and not path.is_symlink():
        return 0
    size = size_of(path)
    trash = path.with_name(f"{TRASH}{uuid.uuid4().hex[:12]}-{path.name}")
    os.rename(path, trash)
    _delete(trash)
    return size


def finish(folder: Path) -> int:
    """Delete the trash entries an earlier pass left in `folder` (it died between the rename and the delete). Returns
    the bytes freed."""
    freed = 0
    if not folder.is_dir():
        return 0
    for entry in folder.glob(f"{TRASH}*"):
        freed += size_of(entry)
        _delete(entry)
    return freed


def _delete(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path)
    else:
        path.unlink(missing_ok=True)
