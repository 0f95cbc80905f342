"""Find the access files (``.htaccess`` or the AccessFileName in force) of a docroot.

The walk never leaves the root it was given: a symbolic link to a directory is not walked
(reported in ``skipped``; one pointing outside the root also in ``outside_links``), and an
access file that is a symlink out of the root is not read (``problems``) — unless the user
asked (``follow_symlinks``).  Even then it never enters ``/proc``, ``/sys`` or ``/dev`` and
never loops (a link to a directory already on the walked path is not followed again).

In each directory the first existing AccessFileName is the one Apache opens
(:mod:`confmig.load.accessfile`): a regular file goes to ``access_files``; anything Apache
cannot read as one — a directory, FIFO, socket or device named ``.htaccess``, an unreadable
file — or that confmig will not read goes to ``problems``.  Nothing is passed over silently.
"""

from __future__ import annotations

import operator
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from confmig.load.accessfile import (
    SPECIAL_TREES,
    AccessCheck,
    check_access_file,
    in_tree,
    is_special,
)

# A walk that follows symlinks can meet the same directories again and again through links
# (each a path Apache walks too); past this many directories it stops and says so.  Without
# following them the tree itself bounds the walk.
MAX_DIRECTORIES = 200_000
_NAME = operator.attrgetter("name")


@dataclass
class DocrootScan:
    root: Path
    access_files: list[Path] = field(default_factory=list)
    skipped: list[tuple[Path, str]] = field(default_factory=list)
    directories: int = 0
    problems: list[AccessCheck] = field(default_factory=list)
    outside_links: list[Path] = field(default_factory=list)
    follow_symlinks: bool = False
    truncated: bool = False


def scan_docroot(
    root: str | Path,
    access_names: Sequence[str] = (".htaccess",),
    on_directory: Callable[[int], None] | None = None,
    follow_symlinks: bool = False,
    on_listing: Callable[[str, list[os.DirEntry[str]]], None] | None = None,
) -> DocrootScan:
    """Walk ``root``; for each directory the first existing access name is the
    one Apache reads (``ap_parse_htaccess`` stops at the first it opens).

    ``on_listing`` is given each directory listed (as the walk spells it: ``str(root)``
    joined with the names below it) and its entries sorted by name, in walk order — a
    directory, then its subdirectories by name — so a caller that needs the tree too
    (the lint's tree rules) does not list it again."""
    root = Path(root)
    scan = DocrootScan(root=root, follow_symlinks=follow_symlinks)
    real_root = os.path.realpath(root)
    roots = [real_root]
    # (directory as walked, its real path, and — following symlinks — the (st_dev, st_ino)
    # of the directories above it and itself, so a link back up is not followed again).
    # Directories are plain strings here (a Path per directory costs more than listing it);
    # every path the scan reports is a Path, normalised as before.
    start = _ident(root) if follow_symlinks else frozenset()
    pending: list[tuple[str, str, frozenset[tuple[int, int]]]] = [(str(root), real_root, start)]
    while pending:
        directory, real, chain = pending.pop()
        if follow_symlinks and scan.directories >= MAX_DIRECTORIES:
            scan.truncated = True
            scan.skipped.append((Path(directory), f"not walked: more than {MAX_DIRECTORIES} "
                                                  "directories"))
            continue
        scan.directories += 1
        if on_directory is not None:
            on_directory(scan.directories)
        try:
            entries = sorted(os.scandir(directory), key=_NAME)
        except OSError as exc:
            scan.skipped.append((Path(directory), f"cannot read directory: {exc.strerror}"))
            continue
        if on_listing is not None:
            on_listing(directory, entries)
        names = {e.name: e for e in entries}
        found = _access_file(scan, directory, real, names, access_names, roots,
                             follow_symlinks)
        subdirs: list[tuple[str, str, frozenset[tuple[int, int]]]] = []
        for entry in entries:
            if entry.name == found:
                continue  # the access file itself (a directory named .htaccess: Apache
                # answers 403 for its parent before any request gets into it)
            if entry.is_symlink():
                child = _link(scan, Path(entry.path), real_root, chain)
                if child is not None:
                    subdirs.append((str(child[0]), child[1], child[2]))
                continue
            if entry.is_dir(follow_symlinks=False):
                child_real = os.path.join(real, entry.name)  # no link on the way: real too
                if child_real.startswith(SPECIAL_TREES) and is_special(child_real):
                    scan.skipped.append((Path(entry.path),
                                         "not walked: /proc, /sys and /dev never are"))
                    continue
                subdirs.append((entry.path, child_real,
                                chain | _ident(Path(entry.path)) if follow_symlinks else chain))
        pending.extend(reversed(subdirs))
    scan.access_files.sort(key=lambda p: (len(p.parts), str(p)))
    return scan


def _access_file(scan: DocrootScan, directory: str, real: str,
                 names: dict[str, os.DirEntry[str]], access_names: Sequence[str],
                 roots: list[str], follow: bool) -> str | None:
    """Record the access file Apache opens in *directory* (*real*: its real path); return
    its name (None: none)."""
    found: Path | None = None
    for name in access_names:
        if name not in names:
            continue
        path = Path(directory, name)
        parent = real if "/" not in name else None  # the real directory that holds it
        if found is not None:
            if check_access_file(str(path), roots, follow, parent).exists:
                scan.skipped.append((path, f"shadowed: Apache reads {found.name} first in "
                                           "this directory"))
            continue
        check = check_access_file(str(path), roots, follow, parent)
        if not check.exists:
            continue
        found = path
        if check.readable:
            scan.access_files.append(path)
        else:
            scan.problems.append(check)
    return found.name if found is not None else None


def _link(scan: DocrootScan, link: Path, real_root: str,
          chain: frozenset[tuple[int, int]]
          ) -> tuple[Path, str, frozenset[tuple[int, int]]] | None:
    """A symlink met by the walk: the (directory, real path, chain) to walk through it, or
    None."""
    target = os.path.realpath(link)
    try:
        info = os.stat(link)
    except OSError:
        return None  # dangling or a loop: no directory there
    if not stat.S_ISDIR(info.st_mode):
        return None
    inside = in_tree(target, real_root)
    if not inside:
        scan.outside_links.append(link)
    if is_special(target):
        scan.skipped.append((link, f"symlink to {target}: /proc, /sys and /dev are never "
                                   "walked"))
        return None
    if scan.follow_symlinks:
        ident = (info.st_dev, info.st_ino)
        if ident in chain:
            scan.skipped.append((link, f"symlink to {target}, a directory above it: not "
                                       "followed again (a loop)"))
            return None
        return link, target, chain | {ident}
    reason = ("symlink to a directory inside the root: its files are read through their "
              "real path" if inside else
              f"symlink to a directory outside the root ({target}): not walked "
              "(--follow-symlinks to walk it)")
    scan.skipped.append((link, reason))
    return None


def _ident(path: Path) -> frozenset[tuple[int, int]]:
    try:
        info = os.stat(path)
    except OSError:
        return frozenset()
    return frozenset({(info.st_dev, info.st_ino)})
