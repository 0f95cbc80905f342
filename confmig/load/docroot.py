"""Find the access files (``.htaccess`` or the AccessFileName in force) of a docroot.

Directories are walked without following symbolic links out of the root; a
link, an unreadable directory or a second access-file name shadowed by the first
is reported in ``skipped`` with its reason — nothing is passed over silently.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path


@dataclass
class DocrootScan:
    root: Path
    access_files: list[Path] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    directories: int = 0


def scan_docroot(
    root: str | Path,
    access_names: Sequence[str] = (".htaccess",),
    on_directory: Callable[[int], None] | None = None,
) -> DocrootScan:
    """Walk ``root``; for each directory the first existing access name is the
    one Apache reads (``ap_parse_htaccess`` stops at the first it opens)."""
    root = Path(root)
    scan = DocrootScan(root=root)
    real_root = os.path.realpath(root)
    pending = [root]
    while pending:
        directory = pending.pop()
        scan.directories += 1
        if on_directory is not None:
            on_directory(scan.directories)
        try:
            entries = sorted(os.scandir(directory), key=lambda e: e.name)
        except OSError as exc:
            scan.skipped.append((directory, f"cannot read directory: {exc.strerror}"))
            continue
        names = {e.name: e for e in entries}
        found = [n for n in access_names if n in names and names[n].is_file()]
        if found:
            scan.access_files.append(directory / found[0])
            for other in found[1:]:
                scan.skipped.append((directory / other,
                                     f"shadowed: Apache reads {found[0]} first in this directory"))
        subdirs = []
        for entry in entries:
            if entry.is_symlink():
                target = os.path.realpath(entry.path)
                if os.path.isdir(target):
                    inside = target == real_root or target.startswith(real_root + os.sep)
                    reason = ("symlink to a directory inside the root: its files are read "
                              "through their real path" if inside
                              else f"symlink to a directory outside the root ({target})")
                    scan.skipped.append((Path(entry.path), reason))
                continue
            if entry.is_dir(follow_symlinks=False):
                subdirs.append(Path(entry.path))
        pending.extend(reversed(subdirs))
    scan.access_files.sort(key=lambda p: (len(p.parts), str(p)))
    return scan
