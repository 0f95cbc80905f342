"""The lint cache, as ruff keeps one: per file, keyed on the file's content.

One JSON file per (linted path, settings, server config, confmig version) under
``.confmig_cache/``; inside it, each file's findings under a key made of its
content hash and the AllowOverride in force for its directory, and the tree
rules' findings under a key made of every file's key.  A repeat lint of an
unchanged tree therefore reads and hashes the files and parses nothing.

JSON rather than pickle: the cache lives in the user's tree, and loading it must
never run code.  It is written atomically (temp file + rename); a cache that
cannot be read or written is ignored.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
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
            data = json.loads(self.path.read_bytes())
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
            self.directory.mkdir(parents=True, exist_ok=True)
            ignore = self.directory / ".gitignore"
            if not ignore.exists():
                ignore.write_text("# Automatically created by confmig.\n*\n")
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
