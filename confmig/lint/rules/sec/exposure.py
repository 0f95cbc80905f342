"""Which sensitive files a docroot holds, and whether the configuration denies them.

A file counts as denied when, on its way through Apache's request phases, one of
these refuses it:

* ``Redirect``/``RedirectMatch`` with 403/404/410 matching the URL;
* a ``RewriteRule`` answering a status ([F], [G], R=4xx) whose pattern matches the
  per-directory path, when its conditions hold for the file: "it exists" tests and
  patterns on REQUEST_URI / REQUEST_FILENAME are evaluated, [OR] chains included;
* the access control in force for the file once the sections that apply to it are
  merged as Apache merges them (:func:`merged_denial`): the directory walk shortest path
  first — at each level the ``<Directory>`` sections (a relative path read from ``/``,
  as Apache does), then that directory's .htaccess —, ``<DirectoryMatch>`` (against the
  whole filename), ``<Files>``/``<FilesMatch>`` (against the *basename*, so
  ``<FilesMatch "^\\.">`` does not cover ``/.git/config``; one nested in a
  ``<Directory>`` only where that applies), then ``<Location>``.  A later section's
  ``Require`` replaces the earlier ones' (``AuthMerging Off``, the default), so
  ``<Directory /> Require all denied`` protects nothing below a ``<Directory /var/www>
  Require all granted``.

Anything else (conditions on other variables, ``<If>``) is not credited: the rule
then errs on the side of reporting.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import pcre2

from confmig.apache.paths import directory_section_path
from confmig.lint.scopes import SCOPE_SECTIONS, Scope
from confmig.model.merge import AuthzDir, AuthzNode, merge_authz
from confmig.model.rewrite.parse import Condition
from confmig.model.rewrite.regex import Regex
from confmig.model.wildcard import count_dirs, fnmatch_regex, is_fnmatch
from confmig.syntax import Section

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


def within(path: str, directory: str) -> bool:
    directory = directory.rstrip("/")
    return path == directory or path.startswith(directory + "/") or directory == ""


def _search(pattern: str, subject: str, nocase: bool = False) -> bool:
    try:
        return Regex(pattern, nocase).search(subject) is not None
    except pcre2.PatternError:
        return False


def _requires_deny(scope: Scope) -> bool:
    """The section's own ``Require`` lines refuse the public (any but ``all granted``)."""
    return any(d.args and [a.lower() for a in d.args] != ["all", "granted"]
               for d in scope.named("require"))


def _compat_denies(scope: Scope) -> bool:
    """The section's own Order/Allow/Deny refuse the public (``Deny from all``, or
    ``Order Allow,Deny`` with no ``Allow``)."""
    if any([a.lower() for a in d.args][-1:] == ["all"] for d in scope.named("deny")):
        return True
    orders = [d for d in scope.named("order") if d.args]
    return bool(orders) and orders[-1].args[0].lower().startswith("allow") \
        and not scope.named("allow")


_COMPAT = ("order", "allow", "deny", "satisfy")


def _authz(scope: Scope) -> AuthzDir:
    """The section's mod_authz_core config, reduced to "denies the public or not"."""
    merging = next((d.args[0].lower() for d in reversed(scope.named("authmerging"))
                    if d.args and d.args[0].lower() in ("off", "and", "or")), None)
    node = None
    if scope.named("require"):
        node = AuthzNode(provider="all", args="denied" if _requires_deny(scope) else "granted")
    return AuthzDir(node, merging)  # type: ignore[arg-type]


def _authz_denies(node: AuthzNode | None) -> bool:
    if node is None:  # no Require in force: mod_authz_core grants
        return False
    if node.provider is not None:
        return node.args == "denied"
    results = [_authz_denies(child) for child in node.children]
    return any(results) if node.op == "and" else all(results)


def merged_denial(layers: Iterable[Scope]) -> bool:
    """Whether the access control of ``layers`` (the sections that apply, in merge order)
    refuses the public once merged as Apache merges it: ``Require`` lines with
    ``merge_authz_core_dir_config`` (a later section's replace the earlier ones' unless it
    says ``AuthMerging And|Or``), Order/Allow/Deny/Satisfy from the last section that has
    any (mod_access_compat has no merger), the two combined by ``Satisfy`` (All: both must
    grant)."""
    authz = AuthzDir()
    compat: Scope | None = None
    for scope in layers:
        authz = merge_authz(authz, _authz(scope))
        if scope.named(*_COMPAT):
            compat = scope
    refused = _authz_denies(authz.section)
    if compat is None:
        return refused
    satisfy = [d.args[0].lower() for d in compat.named("satisfy") if d.args]
    if satisfy[-1:] == ["any"]:
        return refused and _compat_denies(compat)
    return refused or _compat_denies(compat)


def _pattern(section: Section) -> tuple[bool, str]:
    """(is it a regex, the pattern) of ``<X pattern>``, ``<X ~ regex>``, ``<XMatch regex>``."""
    args = list(section.args)
    regex = section.lname.endswith("match")
    if len(args) > 1 and args[0] == "~":
        regex, args = True, args[1:]
    return regex, args[0] if args else ""


def _directory_level(section: Section, target: Target) -> int | None:
    """The walk level (number of ``/``) at which a non-regex ``<Directory>`` applies to
    ``target``, or None.  Its path is read as Apache reads it (a relative one from ``/``:
    :func:`~confmig.apache.paths.directory_section_path`) and compared with the target's
    directory of the same depth (wildcards: ``apr_fnmatch``, ``*`` stops at ``/``)."""
    path = directory_section_path(_pattern(section)[1])
    level = count_dirs(path)
    parts = (target.directory.rstrip("/") + "/").split("/")
    if level > len(parts) - 1:  # the target is not that deep
        return None
    prefix = "/".join(parts[:level]) + "/"
    if is_fnmatch(path):
        return level if fnmatch_regex(path).search(prefix) is not None else None
    return level if prefix == path else None


def _section_matches(section: Section, target: Target) -> bool:
    """Whether one section applies to ``target``, as the walks match it: ``<Directory>``
    (see :func:`_directory_level`), ``<DirectoryMatch>`` against the whole filename (as
    ``ap_directory_walk`` does: ``<DirectoryMatch "/\\.git$">`` does not cover
    ``/.git/HEAD``), ``<Files>`` against the basename, ``<Location>`` against the URL."""
    regex, pattern = _pattern(section)
    kind = section.lname.removesuffix("match")
    if kind == "directory":
        if regex:
            return _search(pattern, target.path)
        return _directory_level(section, target) is not None
    if kind == "files":
        subject = target.basename
    elif kind == "location":
        subject = target.url
        if not regex and not is_fnmatch(pattern):
            n = len(pattern)
            return subject.startswith(pattern) and (
                not n or pattern.endswith("/") or len(subject) == n or subject[n] == "/")
    else:
        return False
    if regex:
        return _search(pattern, subject)
    if is_fnmatch(pattern):
        return fnmatch_regex(pattern).search(subject) is not None
    return subject == pattern


_Key = tuple[int, ...]


def _merge_key(chain: list[Section], target: Target, index: int,
               htaccess_level: int | None = None) -> _Key | None:
    """Where a section (``chain``: the sections around its directives, outermost first)
    is merged for ``target`` — the directory walk (shortest path first; at each level the
    ``<Directory>`` sections, then that directory's .htaccess), ``<DirectoryMatch>``, the
    ``<Files>`` of everything merged so far in that order, ``<Location>`` — or None when
    it does not apply (or is an ``<If>``, never credited)."""
    if not chain:
        return (0, htaccess_level, 1, index) if htaccess_level is not None else (-1, index)
    *outer, section = chain
    if not _section_matches(section, target):
        return None
    kind = section.lname
    if kind in ("files", "filesmatch"):
        container = _merge_key(outer, target, index, htaccess_level)
        return None if container is None else (2, *container, index)
    if outer:  # <Directory>/<Location> nest in nothing that has a config of its own
        return None
    regex, _ = _pattern(section)
    if kind == "directory" and not regex:
        level = _directory_level(section, target)
        return None if level is None else (0, level, 0, index)
    if kind.startswith("directory"):
        return (1, index)
    if kind.startswith("location"):
        return (3, index)
    return None


def _chain(scope: Scope) -> list[Section]:
    return [s for s in scope.enclosing if s.lname in SCOPE_SECTIONS and s.lname != "virtualhost"]


def _layers(target: Target, access: Iterable[tuple[str, list[Scope]]],
            server: list[Scope]) -> list[Scope]:
    """The sections of the server config and the access files that apply to ``target``, in
    the order Apache merges them."""
    keyed: list[tuple[_Key, Scope]] = []
    for index, scope in enumerate(server):
        key = _merge_key(_chain(scope), target, index)
        if key is not None:
            keyed.append((key, scope))
    index = len(server)
    for directory, file_scopes in access:
        if not within(target.directory, directory):
            continue
        level = count_dirs(directory.rstrip("/") + "/")
        for scope in file_scopes:
            index += 1
            key = _merge_key(_chain(scope), target, index, level)
            if key is not None:
                keyed.append((key, scope))
    keyed.sort(key=lambda item: item[0])
    return [scope for _, scope in keyed]


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
    """Whether the server config or the access files deny ``target``: a refusing
    Redirect/RewriteRule on its way, or the access control merged for its path
    (:func:`merged_denial`: ``<Directory /> Require all denied`` followed by
    ``<Directory /var/www> Require all granted`` denies nothing below /var/www)."""
    for scope in server:
        if (scope.section is None or scope.kind == "virtualhost") and (
                _redirect_denies(scope, target) or _rewrite_denies(scope, target.url, target)):
            return True
    for directory, file_scopes in access:
        if not within(target.directory, directory):
            continue
        rel = os.path.relpath(target.path, directory).replace(os.sep, "/")
        for scope in file_scopes:
            if scope.section is None and (_redirect_denies(scope, target)
                                          or _rewrite_denies(scope, rel, target)):
                return True
    return merged_denial(_layers(target, access, server))


def describe(targets: list[Target], limit: int = 5) -> str:
    names = list(dict.fromkeys(t.shown for t in targets))
    shown = ", ".join(names[:limit])
    return shown + (f" and {len(names) - limit} more" if len(names) > limit else "")

