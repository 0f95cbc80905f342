"""``Include`` / ``IncludeOptional`` path expansion (``ap_dir_fnmatch`` in util.c).

* relative paths are relative to ServerRoot;
* a directory is read recursively, every entry (dot files too), sorted by name;
* wildcards may stand in any path component; they do not match a leading '.'
  (APR_FNM_PERIOD); inside the path only directories match;
* ``Include`` fails on a missing file or a wildcard with no match,
  ``IncludeOptional`` tolerates both.
"""

from __future__ import annotations

import fnmatch
import os
import stat
from pathlib import Path

MAX_DIR_DEPTH = 128


class IncludeError(Exception):
    pass


def _has_wildcard(part: str) -> bool:
    return any(c in part for c in "*?[")


def _matches(pattern: str, name: str) -> bool:
    if name.startswith(".") and not pattern.startswith("."):
        return False
    return fnmatch.fnmatchcase(name, pattern)


def _expand_plain(path: Path, optional: bool, out: list[Path], depth: int = 0) -> None:
    """A path without wildcards (``process_resource_config_nofnmatch``): a directory is read
    whole, anything else is a file to open.  A path that cannot be looked up at all — missing,
    a name longer than the file system allows (ENAMETOOLONG), a symlink loop, a directory on
    the way that may not be searched — is nothing for ``IncludeOptional`` (Apache tolerates any
    failed ``apr_stat`` there) and for ``Include`` the error opening it gives (``Could not open
    configuration file PATH: File name too long``)."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError) as exc:
        if optional:
            return
        reason = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise IncludeError(f"Could not open configuration file {path}: {reason}") from exc
    if stat.S_ISDIR(mode):
        if depth > MAX_DIR_DEPTH:
            raise IncludeError(f"Directory '{path}' exceeds the maximum include directory "
                               f"nesting level of {MAX_DIR_DEPTH}")
        try:
            names = sorted(os.listdir(path))
        except OSError as exc:
            raise IncludeError(f"Could not open directory {path}: {exc.strerror}") from exc
        for name in names:
            _expand_plain(path / name, optional, out, depth + 1)
        return
    out.append(path)


def expand_include(pattern: str, server_root: Path, optional: bool) -> list[Path]:
    """Files an Include of ``pattern`` reads, in Apache's order."""
    path = Path(pattern)
    if not path.is_absolute():
        path = server_root / path
    parts = path.parts
    out: list[Path] = []
    if not any(_has_wildcard(p) for p in parts):
        _expand_plain(path, optional, out)
        return out
    _expand_wild(Path(parts[0]), list(parts[1:]), optional, out)
    return out


def _expand_wild(base: Path, rest: list[str], optional: bool, out: list[Path]) -> None:
    head, tail = rest[0], rest[1:]
    if not _has_wildcard(head):
        target = base / head
        if tail:
            _expand_wild(target, tail, optional, out)
        else:
            _expand_plain(target, optional, out)
        return
    try:
        names = sorted(os.listdir(base))
    except FileNotFoundError as exc:
        if optional:
            return
        raise IncludeError(f"Could not open directory {base}: No such file or directory") from exc
    except OSError as exc:
        raise IncludeError(f"Could not open directory {base}: {exc.strerror}") from exc
    matched = [n for n in names if _matches(head, n) and (not tail or os.path.isdir(base / n))]
    if not matched and not optional:
        raise IncludeError(f"No matches for the wildcard '{head}' in '{base}', failing")
    for name in matched:
        if tail:
            _expand_wild(base / name, tail, optional, out)
        else:
            _expand_plain(base / name, optional, out)
