"""The docroot as the tree rules read it from disk: one walk for SEC002 and PERF001.

SEC002 wants the sensitive files and VCS directories of the docroot, PERF001 its deepest
directory.  Both read the tree the same way — ``os.walk`` order (a directory, then its
subdirectories by name), no symbolic link followed, VCS directories not entered, at most
:data:`MAX_ENTRIES` entries — so one walk answers both, taken once per run
(:func:`docroot_walk`, kept on the :class:`~confmig.lint.context.LintContext`).

The walk classifies entries as ``os.walk`` does (``is_dir()`` follows a link: a link to a
directory is a directory, then left out as a link) but reads the link bit from the directory
listing instead of an ``lstat`` per subdirectory.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field

from confmig.lint.context import LintContext
from confmig.lint.rules.sec.exposure import VCS_DIRS, SampleFile, sensitive

# Entries (files plus the subdirectories walked) after which the walk stops.
MAX_ENTRIES = 200_000


@dataclass
class DocrootWalk:
    """What the tree rules need of the docroot on disk."""

    root: str
    exposed: list[SampleFile] = field(default_factory=list)  # in walk order
    deepest: str = ""          # the deepest directory (the first met at that depth)
    depth: int = 0             # its depth below ``root``


def _parts(path: str) -> list[str]:
    return [p for p in os.path.normpath(path).split("/") if p]


def walk(root: str) -> DocrootWalk:
    """Walk ``root`` (see the module docstring)."""
    found = DocrootWalk(root, deepest=root)
    base = len(_parts(root))
    seen = 0
    # (directory as os.walk spells it, its URL-path directory "/a/b/")
    pending: list[tuple[str, str]] = [(root, "/")]
    while pending:
        directory, url_dir = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = list(listing)
        except OSError:
            continue  # os.walk passes over a directory it cannot list
        dirs: list[str] = []
        files: list[str] = []
        links: set[str] = set()
        for entry in entries:
            try:
                is_dir = entry.is_dir()
            except OSError:
                is_dir = False
            if not is_dir:
                files.append(entry.name)
                continue
            dirs.append(entry.name)
            try:
                if entry.is_symlink():
                    links.add(entry.name)
            except OSError:
                pass
        for name in sorted(d for d in dirs if d in VCS_DIRS):
            probe = "HEAD" if name == ".git" else "entries"
            found.exposed.append(SampleFile(f"{url_dir}{name}/{probe}",
                                            os.path.join(directory, name, probe),
                                            f"{url_dir}{name}/"))
        walked = sorted(d for d in dirs if d not in VCS_DIRS and d not in links)
        for name in sorted(files):
            if sensitive(name):
                found.exposed.append(SampleFile(url_dir + name,
                                                os.path.join(directory, name),
                                                url_dir + name))
        depth = len(_parts(directory)) - base
        if depth > found.depth:
            found.deepest, found.depth = directory, depth
        seen += len(files) + len(walked)
        if seen > MAX_ENTRIES:
            break
        pending.extend((os.path.join(directory, name), f"{url_dir}{name}/")
                       for name in reversed(walked))
    return found


def docroot_walk(ctx: LintContext) -> DocrootWalk | None:
    """The walk of the run's docroot (None without one), taken on first use."""
    if ctx.docroot is None:
        return None
    root = str(ctx.docroot)
    found = ctx.memo.get("docroot_walk")
    if not isinstance(found, DocrootWalk) or found.root != root:
        found = walk(root)
        ctx.memo["docroot_walk"] = found
    return found
