"""Safe file writing for commands that produce or rewrite configuration files.

* Every write is atomic: the text goes to a temp file in the target's own directory (same file
  system), is flushed and fsynced, and only then ``os.replace``\\ d over the target — a crash or
  an exception at any point leaves either the old file or the new one, never half of each.
* Nothing that exists is overwritten unless ``force`` is given: not an output file, not a
  ``.bak`` backup from an earlier run.
* In-place rewrites (:func:`rewrite_in_place`) keep a ``.bak`` copy of every file they change,
  and check every precondition for every file before touching the first one.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

BACKUP_SUFFIX = ".bak"


class WriteRefused(Exception):
    """A write that would overwrite something without ``force``, or a path that cannot be
    written; the message names the path and what to do."""


@dataclass
class WriteReport:
    """What a write did: the files written and the backups made."""

    written: list[Path] = field(default_factory=list)
    backups: list[Path] = field(default_factory=list)


def backup_path(path: str | os.PathLike[str]) -> Path:
    """``httpd.conf`` -> ``httpd.conf.bak`` (next to it)."""
    path = Path(path)
    return path.with_name(path.name + BACKUP_SUFFIX)


def atomic_write(path: str | os.PathLike[str], text: str, *, force: bool = False,
                 encoding: str = "utf-8") -> Path:
    """Write *text* to *path* atomically; refuse to overwrite an existing file unless *force*.

    A symbolic link is followed: the file it points to is replaced, the link stays a link.
    The new file keeps the mode of the file it replaces (0644 for a new one, minus umask).
    """
    target = _real_target(Path(path))
    if target.exists() and not force:
        raise WriteRefused(f"{path} already exists (use --force to overwrite it)")
    _replace_with(target, text.encode(encoding))
    return target


def rewrite_in_place(changes: Mapping[str | os.PathLike[str], str], *, force: bool = False,
                     encoding: str = "utf-8") -> WriteReport:
    """Replace every file in *changes* by its new text, keeping a ``.bak`` copy of each.

    All preconditions are checked first (each file exists and is a regular file, its directory
    is writable, no ``.bak`` is in the way unless *force*), so a refusal changes nothing.
    Backups are all written before the first file is replaced; files whose text is unchanged
    are left alone (no backup either).
    """
    report = WriteReport()
    plan: list[tuple[Path, bytes]] = []
    for path, text in changes.items():
        target = _real_target(Path(path))
        data = text.encode(encoding)
        if not target.is_file():
            raise WriteRefused(f"{path} is not an existing regular file")
        if target.read_bytes() == data:
            continue
        backup = backup_path(target)
        if backup.exists() and not force:
            raise WriteRefused(f"backup {backup} already exists (use --force to overwrite it)")
        if not os.access(target.parent, os.W_OK):
            raise WriteRefused(f"cannot write to directory {target.parent}")
        plan.append((target, data))
    for target, _ in plan:
        backup = backup_path(target)
        _replace_with(backup, target.read_bytes(), mode_from=target)
        report.backups.append(backup)
    for target, data in plan:
        _replace_with(target, data)
        report.written.append(target)
    return report


def _real_target(path: Path) -> Path:
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def _replace_with(target: Path, data: bytes, mode_from: Path | None = None) -> None:
    """The atomic step: temp file in the same directory, fsync, chmod, ``os.replace``."""
    source = mode_from if mode_from is not None else target
    fd, tmp_name = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    tmp = Path(tmp_name)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        _copy_metadata(source, tmp)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise
    _fsync_directory(target.parent)


def _copy_metadata(source: Path, tmp: Path) -> None:
    if source.exists():
        shutil.copymode(source, tmp)
        st = source.stat()
        with contextlib.suppress(PermissionError):
            os.chown(tmp, st.st_uid, st.st_gid)
    else:
        umask = os.umask(0)
        os.umask(umask)
        tmp.chmod(0o666 & ~umask)


def _fsync_directory(directory: Path) -> None:
    """Make the rename itself durable (best effort: not every file system allows it)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
