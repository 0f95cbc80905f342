"""Which files are sensitive (a docroot's are found by the tree rules' walk,
:mod:`confmig.lint.rules.docroot_walk`), the usual suspects standing in for them when the
docroot cannot be looked into, and how a finding names them.

Whether Apache sends one is not decided here: SEC002 asks the request model
(:mod:`confmig.model`), which the differential tests hold to real Apache.
"""

from __future__ import annotations

from dataclasses import dataclass

VCS_DIRS = frozenset({".git", ".svn", ".hg", ".bzr"})
BACKUP_SUFFIXES = (".bak", ".backup", ".old", ".orig", ".save", ".swp", ".sql", ".sql.gz", "~")


@dataclass(frozen=True)
class SampleFile:
    """One file to check: its URL-path and physical path."""

    url: str        # "/.git/HEAD"
    path: str       # "/var/www/html/.git/HEAD"
    shown: str      # what to name in the message: "/.git/", "/.env"


def sensitive(name: str) -> bool:
    low = name.lower()
    return low == ".env" or low.startswith(".env.") or low.endswith(BACKUP_SUFFIXES)


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

