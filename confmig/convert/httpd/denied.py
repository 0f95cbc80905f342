"""Directories the converted configuration denies: never widen what Apache answered.

Apache answers 403 for a directory and everything below it when its access file is not a
regular file (a directory named ``.htaccess``, a socket, a device), cannot be opened, or is a
symlink loop, and its requests hang on a FIFO (:mod:`confmig.load.accessfile`).  confmig also
does not read an access file outside the root it was given, nor walk a symlinked directory
out of it, unless asked (``--follow-symlinks``): what Apache reads there is unknown.  In each
case — only where Apache opens access files at all (AllowOverride/AllowOverrideList not None)
— the directory gets a ``<Directory>`` block that denies every request, and the access files
below it, which Apache never reached, are carried as comments.

The deny is written as the 500 a refused ``.htaccess`` keeps (:data:`confmig.convert.httpd.
render.KEEP_500_LINES`): in the block itself, in a ``<FilesMatch "^">`` (after every
server-wide ``<Files>``) and in an ``<If "true">`` (after every ``<Location>`` and ``<If>``),
so no other section of the configuration grants it back.

A FIFO also hangs the listing of its parent directory: mod_autoindex looks every entry up with
a sub-request, and the one for the FIFO's directory blocks in ``open()`` (checked on Apache:
tests/test_access_files_apache.py).  The converted sub-request is denied instead, which only
drops the entry from the listing, so the parent gets :func:`listing_lines`: no listing (403)
for a request of the directory itself; its files, and an index file, are served as before.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from confmig.convert.httpd.overrides import InForce
from confmig.convert.httpd.plan import FilePlan, FileStatus, below
from confmig.convert.httpd.tree import AccessFile, Tree
from confmig.load import LoadedConfig
from confmig.load.accessfile import AccessState, check_access_file

DENY = "Require all denied"
DENY_LINES = (DENY, '<FilesMatch "^">', f"    {DENY}", "</FilesMatch>", '<If "true">',
              f"    {DENY}", "</If>")


def add_denied(tree: Tree, plans: list[FilePlan], in_force: Callable[[str], InForce]) -> None:
    """A plan (status DENIED) for every denied directory of *tree* where Apache opens access
    files, and every plan below one marked DENIED_BELOW.  Keeps Apache's merge order."""
    denied = []
    for entry in tree.denied:
        forced = in_force(entry.directory)
        if not forced.reads_htaccess:
            continue
        plan = FilePlan(AccessFile(entry.source, entry.directory), LoadedConfig(
            main=str(entry.source)), forced, status=FileStatus.DENIED)
        plan.denied_reason = entry.reason
        parent = os.path.dirname(entry.directory.rstrip("/"))
        if (entry.directory.rstrip("/") != tree.walk_root.rstrip("/")
                and check_access_file(str(entry.source)).state is AccessState.FIFO):
            plan.blocked_listing = parent
        denied.append(plan)
    for plan in plans:
        parent = next((d for d in denied if plan.access.directory == d.access.directory
                       or below(plan.access.directory, d.access.directory)), None)
        if parent is not None and plan.status is not FileStatus.IGNORED:
            plan.status = FileStatus.DENIED_BELOW
            plan.denied_reason = f"{parent.access.directory}/ is denied first"
    plans.extend(denied)
    plans.sort(key=lambda p: (p.access.depth, p.access.directory, str(p.access.path)))


def denied_source(path: Path) -> str:
    """How a denied block names its source."""
    return f"{path} (not read)"


def listing_lines(directory: str) -> list[str] | None:
    """``Options -Indexes`` for requests of *directory* itself (``r->filename`` is the
    directory, with or without its slash), in an ``<If>`` so that it applies last and to
    nothing below; None when the path cannot be written in an expression string."""
    if any(c in directory for c in "'\"\\%$"):
        return None
    path = directory.rstrip("/") or "/"
    words = f"'{path}', '{path}/'" if path != "/" else "'/'"
    return [f'<If "%{{REQUEST_FILENAME}} in {{ {words} }}">', "    Options -Indexes", "</If>"]
