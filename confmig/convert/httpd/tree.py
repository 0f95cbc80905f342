"""The ``.htaccess`` files Apache reads for a document root, with the directory each one
governs *as Apache walks it*.

``ap_directory_walk`` reads the access file of every directory on the path it walks, and it
walks the path as the request maps it: a symlinked directory (followed when ``Options
FollowSymLinks`` allows) is entered under the link's own name, so ``<link>/.htaccess`` — the
target's file — applies to ``<link>/…``.  A ``<Directory>`` block only matches that name, so
every access file reached through a link gets a block of its own for the link's path, besides
the one for its real path when that is inside the tree as well.

The walk never leaves the tree (:func:`confmig.load.scan_docroot`): a symlinked directory
pointing out of it is not walked, and an access file that Apache cannot read as one (a
directory or FIFO named ``.htaccess``…) or that lies outside the tree is not read.  Those
directories are in ``denied``: the converted configuration denies them
(:mod:`confmig.convert.httpd.denied`), never serves more than Apache did.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from confmig.load import DocrootScan, scan_docroot

MAX_LINKED_FILES = 1000


@dataclass(frozen=True)
class AccessFile:
    """One access file and the directory (absolute, as Apache walks it) it governs."""

    path: Path
    directory: str
    link: str | None = None  # the symlink (walked path) it is reached through

    @property
    def depth(self) -> int:
        return len([p for p in self.directory.split("/") if p])


@dataclass(frozen=True)
class Denied:
    """A directory (as Apache walks it) the converted configuration must deny, and why."""

    directory: str
    source: Path  # the access file, or the symlinked directory not walked
    reason: str


@dataclass
class Tree:
    """A document root's access files, in Apache's merge order (shortest path first)."""

    root: Path  # on disk
    walk_root: str  # as Apache sees it (DocumentRoot)
    files: list[AccessFile] = field(default_factory=list)
    notes: list[tuple[Path, str]] = field(default_factory=list)
    denied: list[Denied] = field(default_factory=list)


def collect(root: Path, walk_root: str | None = None,
            names: Sequence[str] = (".htaccess",), follow_symlinks: bool = False) -> Tree:
    """Find the access files under *root*; *walk_root* is the same directory as the server
    names it (defaults to *root* made absolute)."""
    walk_root = _clean(walk_root if walk_root is not None else os.path.abspath(root))
    tree = Tree(root, walk_root)
    scan = scan_docroot(root, names, follow_symlinks=follow_symlinks)
    for path in scan.access_files:
        tree.files.append(AccessFile(path, _join(walk_root, path.parent, root)))
    _add_problems(tree, scan, walk_root, root)
    for skipped, reason in scan.skipped:
        if skipped in scan.outside_links and not follow_symlinks:
            tree.denied.append(Denied(_join(walk_root, skipped, root), skipped, reason))
        elif skipped.is_symlink() and os.path.isdir(skipped) and not follow_symlinks:
            _add_linked(tree, skipped, names)
        else:
            tree.notes.append((skipped, reason))
    tree.files.sort(key=lambda f: (f.depth, f.directory, str(f.path)))
    return tree


def _add_linked(tree: Tree, link: Path, names: Sequence[str]) -> None:
    target = Path(os.path.realpath(link))
    walked = _join(tree.walk_root, link, tree.root)
    scan = scan_docroot(target, names)
    _add_problems(tree, scan, walked, target)
    for path in scan.access_files[:MAX_LINKED_FILES]:
        rel = path.parent.relative_to(target)
        directory = walked if str(rel) == "." else f"{walked}/{rel.as_posix()}"
        tree.files.append(AccessFile(path, directory, link=walked))
    if scan.access_files:
        tree.notes.append((link, f"symlink to {target}: its access files also govern {walked}/"
                                 " and get <Directory> blocks of their own for that path"))
    for skipped, reason in scan.skipped:
        tree.notes.append((skipped, f"{reason} (below the symlink {walked}: not followed)"))


def _add_problems(tree: Tree, scan: DocrootScan, walk_root: str, root: Path) -> None:
    for check in scan.problems:
        path = Path(check.path)
        tree.denied.append(Denied(_join(walk_root, path.parent, root), path, check.message()))


def _join(walk_root: str, path: Path, root: Path) -> str:
    rel = os.path.relpath(path, root)
    return walk_root if rel == "." else _clean(f"{walk_root}/{Path(rel).as_posix()}")


def _clean(path: str) -> str:
    path = os.path.normpath(path)
    return "/" if path in ("/", "//") else path.rstrip("/")
