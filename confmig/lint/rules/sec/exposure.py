"""Which sensitive files a docroot holds, and whether the configuration denies them.

A file counts as denied when, on its way through Apache's request phases, one of
these refuses it:

* ``<Files>``/``<FilesMatch>`` with a denying body, matched against the file's
  *basename* (so ``<FilesMatch "^\\.">`` does not cover ``/.git/config``);
* ``<Directory>``/``<DirectoryMatch>`` (server config) around its directory, and
  ``<Location>``/``<LocationMatch>`` around its URL;
* a .htaccess that denies everything, in its directory or above;
* ``Redirect``/``RedirectMatch`` with 403/404/410 matching the URL;
* a ``RewriteRule`` answering a status ([F], [G], R=4xx) whose pattern matches the
  per-directory path, when its conditions hold for the file: "it exists" tests and
  patterns on REQUEST_URI / REQUEST_FILENAME are evaluated, [OR] chains included.

Anything else (conditions on other variables, ``<If>``) is not credited: the rule
then errs on the side of reporting.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pcre2

from confmig.lint.rules.rw.scopes import Scope
from confmig.model.rewrite.parse import Condition
from confmig.model.rewrite.regex import Regex

VCS_DIRS = frozenset({".git", ".svn", ".hg", ".bzr"})
BACKUP_SUFFIXES = (".bak", ".backup", ".old", ".orig", ".save", ".swp", ".sql", ".sql.gz", "~")
_DENY_STATUS = frozenset({"403", "404", "410", "gone", "forbidden"})
_FILENAME_VARS = frozenset({"%{REQUEST_FILENAME}", "%{SCRIPT_FILENAME}"})
MAX_ENTRIES = 200_000


@dataclass(frozen=True)
class Target:
    """One file to check: its URL-path and physical path."""

    url: str        # "/.git/HEAD"
    path: str       # "/var/www/html/.git/HEAD"
    shown: str      # what to name in the message: "/.git/", "/.env"

    @property
    def directory(self) -> str:
        return os.path.dirname(self.path)

    @property
    def basename(self) -> str:
        return os.path.basename(self.path)


def sensitive(name: str) -> bool:
    low = name.lower()
    return low == ".env" or low.startswith(".env.") or low.endswith(BACKUP_SUFFIXES)


def find_exposed(root: str) -> Iterator[Target]:
    """Sensitive files and VCS directories under ``root`` (symlinks not followed)."""
    seen = 0
    for directory, dirs, files in os.walk(root):
        rel = os.path.relpath(directory, root)
        url_dir = "/" if rel == "." else "/" + rel.replace(os.sep, "/") + "/"
        for name in sorted(d for d in dirs if d in VCS_DIRS):
            probe = "HEAD" if name == ".git" else "entries"
            yield Target(f"{url_dir}{name}/{probe}", os.path.join(directory, name, probe),
                         f"{url_dir}{name}/")
        dirs[:] = sorted(d for d in dirs if d not in VCS_DIRS
                         and not os.path.islink(os.path.join(directory, d)))
        for name in sorted(files):
            if sensitive(name):
                yield Target(url_dir + name, os.path.join(directory, name), url_dir + name)
        seen += len(files) + len(dirs)
        if seen > MAX_ENTRIES:
            return


def samples(root: str) -> list[Target]:
    """Stand-ins for a docroot we cannot look into."""
    urls = ("/.git/HEAD", "/.env", "/wp-config.php.bak", "/backup.sql")
    shown = ("/.git/", "/.env", "*.bak", "*.sql")
    base = root.rstrip("/")
    return [Target(u, base + u, s) for u, s in zip(urls, shown, strict=True)]


def _within(path: str, directory: str) -> bool:
    directory = directory.rstrip("/")
    return path == directory or path.startswith(directory + "/") or directory == ""


def _search(pattern: str, subject: str, nocase: bool = False) -> bool:
    try:
        return Regex(pattern, nocase).search(subject) is not None
    except pcre2.PatternError:
        return False


def denies(scope: Scope) -> bool:
    """The section refuses access (Require other than 'all granted', Deny from all…)."""
    for d in scope.directives:
        words = [a.lower() for a in d.args]
        if d.lname == "require" and words and words != ["all", "granted"]:
            return True
        if d.lname == "deny" and words[-1:] == ["all"]:
            return True
    orders = [d for d in scope.directives if d.lname == "order" and d.args]
    allows = [d for d in scope.directives if d.lname == "allow"]
    return bool(orders) and orders[-1].args[0].lower().startswith("allow") and not allows


def _section_matches(scope: Scope, target: Target) -> bool:
    section = scope.section
    assert section is not None
    args = section.args
    regex = section.lname.endswith("match") or (len(args) > 1 and args[0] == "~")
    pattern = args[-1] if args else ""
    kind = section.lname.removesuffix("match")
    if kind == "files":
        subject = target.basename
        return _search(pattern, subject) if regex else fnmatch.fnmatchcase(subject, pattern)
    if kind == "directory":
        if regex:
            return _search(pattern, target.directory)
        return _within(target.directory, pattern) if not any(c in pattern for c in "*?[") \
            else fnmatch.fnmatchcase(target.directory, pattern.rstrip("/") + "*")
    if kind == "location":
        return _search(pattern, target.url) if regex else target.url.startswith(pattern)
    return False


def _redirect_denies(scope: Scope, target: Target) -> bool:
    for d in scope.named("redirectmatch", "redirect"):
        if len(d.args) < 2 or d.args[0].lower() not in _DENY_STATUS:
            continue
        if d.lname == "redirectmatch" and _search(d.args[1], target.url):
            return True
        if d.lname == "redirect" and target.url.startswith(d.args[1]):
            return True
    return False


def _cond_value(cond: Condition, target: Target, server: bool) -> bool | None:
    """A RewriteCond's outcome for a request of ``target`` (which exists, as a file);
    None when it depends on something else (headers, the query string…).

    In server context the filename is still the URL-path, so file tests fail (RW013).
    """
    test = cond.test.upper()
    value: bool | None = None
    if test in _FILENAME_VARS:
        if cond.kind in ("-f", "-s"):
            value = not server
        elif cond.kind == "-d":
            value = False
        elif cond.kind == "regex" and cond.regex is not None:
            subject = target.url if server else target.path
            value = cond.regex.search(subject) is not None
    elif test == "%{REQUEST_URI}" and cond.kind == "regex" and cond.regex is not None:
        value = cond.regex.search(target.url) is not None
    return None if value is None else value != cond.negate


def conditions_hold(conditions: list[Condition], target: Target,
                    server: bool = False) -> bool | None:
    """Evaluate AND-ed conditions and [OR] chains as ``apply_rewrite_rule`` does."""
    i = 0
    while i < len(conditions):
        j = i
        while j < len(conditions) - 1 and conditions[j].ornext:
            j += 1
        values = [_cond_value(c, target, server) for c in conditions[i:j + 1]]
        if not any(v is True for v in values):
            return False if all(v is False for v in values) else None
        i = j + 1
    return True


def _rewrite_denies(scope: Scope, subject: str, target: Target) -> bool:
    server = scope.context == "server"
    for rule in scope.rewrite.rules:
        if not rule.status_flag or rule.redirect_code not in (403, 404, 410):
            continue
        if (rule.regex.search(subject) is not None) == rule.negate:
            continue
        if conditions_hold(rule.conditions, target, server):
            return True
    return False


def protected(target: Target, access: Iterable[tuple[str, list[Scope]]],
              server: list[Scope]) -> bool:
    """Whether anything in the server config or the access files denies ``target``."""
    for scope in server:
        if scope.section is not None and scope.kind != "virtualhost":
            if denies(scope) and _section_matches(scope, target):
                return True
        elif _redirect_denies(scope, target) or _rewrite_denies(scope, target.url, target):
            return True
    for directory, file_scopes in access:
        if not _within(target.directory, directory):
            continue
        rel = os.path.relpath(target.path, directory).replace(os.sep, "/")
        for scope in file_scopes:
            if scope.section is None:
                if denies(scope) or _redirect_denies(scope, target) \
                        or _rewrite_denies(scope, rel, target):
                    return True
            elif denies(scope) and _section_matches(scope, target):
                return True
    return False


def describe(targets: list[Target], limit: int = 5) -> str:
    names = list(dict.fromkeys(t.shown for t in targets))
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")

