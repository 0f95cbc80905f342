"""The docroot as the tree rules read it from disk: one walk for SEC002 and PERF001.

SEC002 wants the sensitive files and VCS directories of the docroot, PERF001 its deepest
directory.  Both read the tree the same way — ``os.walk`` order (a directory, then its
subdirectories by name), no symbolic link followed, VCS directories not entered, at most
:data:`MAX_ENTRIES` entries — so one reading answers both, kept on the
:class:`~confmig.lint.context.LintContext` (:func:`docroot_walk`).

That reading is taken from the listings of the lint's own walk of the docroot
(:func:`confmig.load.docroot.scan_docroot`, which lists every directory this reading needs
and more) when :class:`Collector` saw all of them, and otherwise by a walk of its own
(:func:`walk`).  Entries are classified as ``os.walk`` does (``is_dir()`` follows a link: a
link to a directory is a directory, then left out as a link), the link bit read from the
listing instead of an ``lstat`` per subdirectory.
"""

from __future__ import annotations

import operator
import os
from dataclasses import dataclass, field

from confmig.lint.context import LintContext
from confmig.lint.rules.sec.exposure import VCS_DIRS, SampleFile, sensitive

# Entries (files plus the subdirectories walked) after which the reading stops.
MAX_ENTRIES = 200_000
MEMO_KEY = "docroot_walk"


@dataclass
class DocrootWalk:
    """What the tree rules need of the docroot on disk."""

    root: str
    exposed: list[SampleFile] = field(default_factory=list)  # in walk order
    deepest: str = ""          # the deepest directory (the first met at that depth)
    depth: int = 0             # its depth below ``root``


_NAME = operator.attrgetter("name")


def _parts(path: str) -> list[str]:
    return [p for p in os.path.normpath(path).split("/") if p]


class _Reading:
    """The reading, one listed directory at a time, in walk order."""

    def __init__(self, root: str) -> None:
        self.found = DocrootWalk(root, deepest=root)
        self.base = len(_parts(root))
        self.seen = 0
        self.done = False      # MAX_ENTRIES reached: nothing more is read

    def read(self, directory: str, url_dir: str, entries: list[os.DirEntry[str]]
             ) -> list[str]:
        """Read one directory (``url_dir``: its URL-path, ``/a/b/``; ``entries`` sorted by
        name); return the names of the subdirectories to read next, in order."""
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
        found = self.found
        for name in [d for d in dirs if d in VCS_DIRS]:
            probe = "HEAD" if name == ".git" else "entries"
            found.exposed.append(SampleFile(f"{url_dir}{name}/{probe}",
                                            os.path.join(directory, name, probe),
                                            f"{url_dir}{name}/"))
        walked = [d for d in dirs if d not in VCS_DIRS and d not in links]
        for name in files:
            if sensitive(name):
                found.exposed.append(SampleFile(url_dir + name,
                                                os.path.join(directory, name),
                                                url_dir + name))
        depth = len(_parts(directory)) - self.base
        if depth > found.depth:
            found.deepest, found.depth = directory, depth
        self.seen += len(files) + len(walked)
        if self.seen > MAX_ENTRIES:
            self.done = True
            return []
        return walked


def walk(root: str) -> DocrootWalk:
    """Read ``root`` with a walk of its own (see the module docstring)."""
    reading = _Reading(root)
    pending: list[tuple[str, str]] = [(root, "/")]
    while pending and not reading.done:
        directory, url_dir = pending.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=_NAME)
        except OSError:
            continue  # os.walk passes over a directory it cannot list
        names = reading.read(directory, url_dir, entries)
        pending.extend((os.path.join(directory, name), f"{url_dir}{name}/")
                       for name in reversed(names))
    return reading.found


class Collector:
    """The reading taken from another walk's listings (``scan_docroot``'s ``on_listing``):
    that walk lists the directories in the same order, each with its entries sorted by name,
    and more of them (VCS directories, links it follows), which are passed over.
    :meth:`result` is None when it did not list one this reading needs (a directory named
    like the access file, one it could not read)."""

    def __init__(self, root: str) -> None:
        self.root = root
        self._reading = _Reading(root)
        # the directories still to read, the next one last (as walk() keeps them)
        self._pending: list[tuple[str, str]] = [(root, "/")]
        self._wanted = {root}
        self._missed = False

    def __call__(self, directory: str, entries: list[os.DirEntry[str]]) -> None:
        if self._missed or self._reading.done or directory not in self._wanted:
            return
        path, url_dir = self._pending.pop()
        self._wanted.discard(path)
        if path != directory:   # the walk left out the directory this reading reads next
            self._missed = True
            return
        names = self._reading.read(directory, url_dir, entries)
        for name in reversed(names):
            child = os.path.join(directory, name)
            self._pending.append((child, f"{url_dir}{name}/"))
            self._wanted.add(child)

    def result(self) -> DocrootWalk | None:
        """The reading, when every directory it needed was listed."""
        if self._missed or (self._pending and not self._reading.done):
            return None
        return self._reading.found


def remember(ctx: LintContext, collector: Collector) -> None:
    """Keep ``collector``'s reading for the tree rules of ``ctx`` (when it is complete)."""
    found = collector.result()
    if found is not None:
        ctx.memo[MEMO_KEY] = found


def docroot_walk(ctx: LintContext) -> DocrootWalk | None:
    """The reading of the run's docroot (None without one), taken on first use."""
    if ctx.docroot is None:
        return None
    root = str(ctx.docroot)
    found = ctx.memo.get(MEMO_KEY)
    if not isinstance(found, DocrootWalk) or found.root != root:
        found = walk(root)
        ctx.memo[MEMO_KEY] = found
    return found
