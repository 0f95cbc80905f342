"""Which sensitive files a docroot holds (or, when it cannot be looked into, the usual
suspects standing in for them), and how a finding names them.

Whether Apache sends one is not decided here: SEC002 asks the request model
(:mod:`confmig.model`), which the differential tests hold to real Apache.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass

VCS_DIRS = frozenset({".git", ".svn", ".hg", ".bzr"})
BACKUP_SUFFIXES = (".bak", ".backup", ".old", ".orig", ".save", ".swp", ".sql", ".sql.gz", "~")
MAX_ENTRIES = 200_000


@dataclass(frozen=True)
class SampleFile:
    """One file to check: its URL-path and physical path."""

    url: str        # "/.git/HEAD"
    path: str       # "/var/www/html/.git/HEAD"
    shown: str      # what to name in the message: "/.git/", "/.env"


def sensitive(name: str) -> bool:
    low = name.lower()
    return low == ".env" or low.startswith(".env.") or low.endswith(BACKUP_SUFFIXES)


def find_exposed(root: str) -> Iterator[SampleFile]:
    """Sensitive files and VCS directories under ``root`` (symlinks not followed)."""
    seen = 0
    for directory, dirs, files in os.walk(root):
        rel = os.path.relpath(directory, root)
        url_dir = "/" if rel == "." else "/" + rel.replace(os.sep, "/") + "/"
        for name in sorted(d for d in dirs if d in VCS_DIRS):
            probe = "HEAD" if name == ".git" else "entries"
            yield SampleFile(f"{url_dir}{name}/{probe}", os.path.join(directory, name, probe),
                         f"{url_dir}{name}/")
        dirs[:] = sorted(d for d in dirs if d not in VCS_DIRS
                         and not os.path.islink(os.path.join(directory, d)))
        for name in sorted(files):
            if sensitive(name):
                yield SampleFile(url_dir + name, os.path.join(directory, name), url_dir + name)
        seen += len(files) + len(dirs)
        if seen > MAX_ENTRIES:
            return


def samples(root: str) -> list[SampleFile]:
    """Stand-ins for a docroot we cannot look into."""
    urls = ("/.git/HEAD", "/.env", "/wp-config.php.bak", "/backup.sql")
    shown = ("/.git/", "/.env", "*.bak", "*.sql")
    base = root.rstrip("/")
    return [SampleFile(u, base + u, s) for u, s in zip(urls, shown, strict=True)]


def describe(targets: list[SampleFile], limit: int = 5) -> str:
    names = list(dict.fromkeys(t.shown for t in targets))
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")

