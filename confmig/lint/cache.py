"""The lint cache, as ruff keeps one: per file, keyed on the file's content.

One JSON file per (linted path, settings, server config, confmig version) under
``.confmig_cache/``; inside it, each file's findings under a key made of its
content hash and the AllowOverride in force for its directory, and the tree
rules' findings under a key made of every file's key.  A repeat lint of an
unchanged tree therefore reads and hashes the files and parses nothing.

JSON rather than pickle: the cache lives in the user's tree, and loading it must
never run code.  It is written atomically (a temp file made in the cache directory, then
renamed over the cache file); a cache that cannot be read or written is ignored. The cache
is the one thing ``confmig lint`` writes, and never through a symlink of its own: a cache
directory or cache file that is a symlink, or a cache file that is not a regular file (a
FIFO, a device), is left alone — the run is not cached — and the ``.gitignore`` is made
only in a cache directory the cache itself created, never over a name that exists.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from confmig import __version__
from confmig.lint.finding import Finding, Findings, Severity

CACHE_DIR_NAME = ".confmig_cache"
_FORMAT = 1


def digest(*parts: bytes | str) -> str:
    import hashlib  # (here: a lint without a cache does not load it, issue 17)

    h = hashlib.blake2b(digest_size=16)
    for part in parts:
        h.update(part.encode("utf-8", "surrogateescape") if isinstance(part, str) else part)
        h.update(b"\0")
    return h.hexdigest()


@functools.cache
def code_fingerprint() -> str:
    """confmig's version plus the size and mtime of its sources: a rule edited in a checkout
    invalidates the cache even before the version changes."""
    root = Path(__file__).resolve().parents[1]
    parts = [__version__]
    for path in sorted(root.rglob("*.py")) + sorted(root.rglob("*.json")):
        with contextlib.suppress(OSError):
            stat = path.stat()
            parts.append(f"{path.relative_to(root)}:{stat.st_size}:{stat.st_mtime_ns}")
    return digest(*parts)


def _encode(findings: Iterable[Finding]) -> list[list[Any]]:
    return [[f.code, f.message, f.file, f.line, f.column, f.severity.value, f.hint,
             f.end_column] for f in findings]


def _decode(rows: list[list[Any]]) -> Findings:
    return Findings(Finding(r[0], r[1], r[2], r[3], r[4], Severity(r[5]), r[6], r[7])
                    for r in rows)


class LintCache:
    """Findings of earlier runs; :meth:`save` writes back only what this run used."""

    def __init__(self, directory: Path, namespace: str) -> None:
        self.directory = directory
        self.path = directory / f"{namespace}.json"
        self._old_files: dict[str, list[Any]] = {}
        self._old_tree: list[Any] | None = None
        self._files: dict[str, list[Any]] = {}
        self._tree: list[Any] | None = None
        self.hits = 0
        self._load()

    def _load(self) -> None:
        try:
            data = json.loads(_read_regular(self.path))
        except (OSError, ValueError):
            return
        if not isinstance(data, dict) or data.get("format") != _FORMAT:
            return
        self._old_files = data.get("files") or {}
        self._old_tree = data.get("tree")

    def get_file(self, path: str, key: str) -> Findings | None:
        entry = self._old_files.get(path)
        findings = _entry_findings(entry, key)
        if findings is not None:
            self._files[path] = entry
            self.hits += 1
        return findings

    def put_file(self, path: str, key: str, findings: Iterable[Finding]) -> None:
        self._files[path] = [key, _encode(findings)]

    def get_tree(self, key: str) -> Findings | None:
        entry = self._old_tree
        findings = _entry_findings(entry, key)
        if findings is not None:
            self._tree = entry
        return findings

    def put_tree(self, key: str, findings: Iterable[Finding]) -> None:
        self._tree = [key, _encode(findings)]

    def save(self) -> None:
        if self._files == self._old_files and self._tree == self._old_tree:
            return
        data = {"format": _FORMAT, "version": __version__, "files": self._files,
                "tree": self._tree}
        try:
            if not self._writable():
                return
            import tempfile  # (only a cache that is written needs it)

            fd, tmp = tempfile.mkstemp(dir=self.directory, prefix=".tmp-", suffix=".json")
            try:
                with os.fdopen(fd, "w", encoding="utf-8") as handle:
                    json.dump(data, handle, separators=(",", ":"))
                os.replace(tmp, self.path)
            except BaseException:
                with contextlib.suppress(OSError):
                    os.unlink(tmp)
                raise
        except OSError:
            return  # a read-only tree: lint works, it is just not cached

    def _writable(self) -> bool:
        """Whether the cache file may be written: the directory made if missing (with its
        ``.gitignore``), and neither it nor the cache file a symlink, nor the cache file
        anything but a regular file (``os.replace`` would put the cache in its place)."""
        try:
            self.directory.mkdir(parents=True)
        except FileExistsError:
            pass
        else:
            # O_EXCL: a name that exists (a dangling symlink too) is never written through
            with contextlib.suppress(OSError), os.fdopen(os.open(
                    self.directory / ".gitignore",
                    os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644), "w") as ignore:
                ignore.write("# Automatically created by confmig.\n*\n")
        if not stat.S_ISDIR(os.lstat(self.directory).st_mode):
            return False  # a symlink (to a directory: the cache would be written there)
        try:
            mode = os.lstat(self.path).st_mode
        except FileNotFoundError:
            return True
        return stat.S_ISREG(mode)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _read_regular(path: Path) -> bytes:
    """The bytes of *path* if it is a regular file, not reached through a symlink as its
    last component (OSError otherwise: a FIFO would block ``read``, a symlink may name
    anything)."""
    fd = os.open(path, os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0))
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{path}: not a regular file")
        return handle.read()


PROJECT_MARKERS = (".confmig.toml", "pyproject.toml", ".git")


def cache_directory(explicit: Path | None, project_root: Path | None, linted: Path) -> Path:
    """``cache-dir`` setting, else ``.confmig_cache`` in the project root: the settings file's
    directory, or the nearest directory above the linted path holding a ``.git``,
    ``pyproject.toml`` or ``.confmig.toml``, else the current directory.  Never inside a
    docroot merely because it was linted: Apache would serve the cache."""
    if explicit is not None:
        return explicit
    if project_root is None:
        start = linted if linted.is_dir() else linted.parent
        project_root = next((d for d in (start, *start.parents)
                             if any((d / m).exists() for m in PROJECT_MARKERS)), Path.cwd())
    return project_root / CACHE_DIR_NAME


def _entry_findings(entry: list | None, key: str) -> Findings | None:
    """The findings of a cache entry ``[key, encoded]`` when its key matches (a damaged
    entry is a miss)."""
    if entry is None or entry[0] != key:
        return None
    try:
        return _decode(entry[1])
    except (TypeError, ValueError, IndexError):
        return None
