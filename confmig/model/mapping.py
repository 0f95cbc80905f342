"""URL → filesystem, as httpd maps it before any per-directory configuration applies.

* :func:`normalize_path` — ``ap_normalize_path`` (:mod:`confmig.model.urlpath`).
* :func:`unescape_path` — ``ap_unescape_url_ex``: a bad escape → 400, an encoded ``/``
  (AllowEncodedSlashes Off) or NUL → 404.
* :func:`alias_matches` / :class:`AliasEntry` — mod_alias's ``Alias``, ``AliasMatch``,
  ``ScriptAlias``, ``Redirect*`` and ``RedirectMatch`` (``modules/mappers/mod_alias.c``).
* :func:`core_translate` — DocumentRoot + URL-path (``ap_core_translate``,
  :mod:`confmig.model.urlpath`).
* :class:`StatCache` — the stats the directory walk does, cached (the filesystem of a site does
  not change while one explain or test run looks at it).
"""

from __future__ import annotations

import os
import stat as stat_mod
from dataclasses import dataclass
from typing import Literal

import pcre2

from confmig.load.accessfile import AccessCheck, check_access_file
from confmig.model.request import Request
from confmig.model.rewrite.regex import Captures, Regex
from confmig.model.rewrite.uri import escape_uri, unescape_url
from confmig.model.urlpath import url_base
from confmig.syntax import Directive

FileKind = Literal["file", "dir", "link", "other"]

EncodedSlashes = Literal["off", "on", "nodecode"]


def unescape_path(path: str, encoded_slashes: EncodedSlashes = "off") -> tuple[str, int]:
    """``ap_unescape_url_ex`` as request processing calls it → (decoded path, status).

    Status 0 means fine; 400 a bad escape; 404 an encoded NUL, or an encoded slash while
    AllowEncodedSlashes is Off.  With ``NoDecode`` an encoded slash stays ``%2F``.
    """
    if "%" not in path:
        return path, 0
    if encoded_slashes == "nodecode":
        parts = [unescape_url(piece) for piece in _split_encoded_slashes(path)]
        decoded = "%2F".join(p[0] for p in parts)
        bad_esc = any(p[1] for p in parts)
        bad_path = any(p[2] for p in parts)
    else:
        decoded, bad_esc, bad_path = unescape_url(path)
        if encoded_slashes == "on" and bad_path and "\0" not in decoded:
            bad_path = False
    if bad_esc:
        return decoded, 400
    if bad_path:
        return decoded, 404
    return decoded, 0


def _split_encoded_slashes(path: str) -> list[str]:
    out, start, i = [], 0, 0
    while i < len(path) - 2:
        if path[i] == "%" and path[i + 1] == "2" and path[i + 2] in "fF":
            out.append(path[start:i])
            start = i + 3
            i += 3
            continue
        i += 1
    out.append(path[start:])
    return out


def is_url(text: str) -> bool:
    """``ap_is_url``: ``scheme:`` with a letter first, then letters, digits, ``+ - .``."""
    colon = text.find(":")
    if colon < 1 or not text[0].isalpha():
        return False
    return all(ch.isalnum() or ch in "+-." for ch in text[:colon])


def server_port(request: Request, name_port: int) -> int:
    """``ap_get_server_port`` with ``UseCanonicalName Off``: the Host header's port, else the
    server's (*name_port*: ServerName's), else the scheme's default — never the port the
    connection came in on (that needs ``UseCanonicalPhysicalPort On``)."""
    return request.host_port or name_port or (443 if request.https else 80)


def server_url_base(request: Request, server_name: str, default_host: str | None = None, *,
                    name_port: int | None = None) -> str:
    """``ap_construct_url`` without the path: ``scheme://host[:port]`` as Apache writes it with
    ``UseCanonicalName Off``: the Host header's name, and :func:`server_port` for the server's
    *name_port* (None: not known, the connection's port stands in for it)."""
    host = request.host or default_host or server_name
    port = (request.host_port or request.port if name_port is None
            else server_port(request, name_port))
    return url_base(request.https, host, port)


APR_PATH_MAX = 4096  # PATH_MAX on Linux
NAME_MAX = 255  # one path segment, in bytes


def merge_too_long(document_root: str, uri: str) -> bool:
    """Would ``apr_filepath_merge`` refuse DocumentRoot + *uri* (``APR_ENAMETOOLONG``, and
    ``ap_core_translate`` answers 403)?  It does when ``strlen(root) + strlen(path) + 4 >
    APR_PATH_MAX`` (slashes and the NUL), *path* being the URL-path without its leading
    slashes; lengths in bytes."""
    root = document_root[:-1] if document_root.endswith("/") and len(document_root) > 1 else \
        document_root
    if (len(root) + len(uri)) * 4 + 4 <= APR_PATH_MAX:  # even as 4-byte characters
        return False
    path = uri.lstrip("/")
    size = len(root.encode("utf-8", "surrogateescape")) + len(
        path.encode("utf-8", "surrogateescape"))
    return size + 4 > APR_PATH_MAX


# -- mod_alias ----------------------------------------------------------------------------

AliasKind = Literal["alias", "redirect"]


@dataclass(frozen=True, slots=True)
class AliasEntry:
    """One Alias/ScriptAlias/AliasMatch or Redirect*/RedirectMatch (``alias_entry``).

    ``real`` is the target (None for a status-only redirect such as ``Redirect gone /x``);
    ``status`` the redirect status (0 for aliases); ``handler`` ``cgi-script`` for ScriptAlias.
    """

    kind: AliasKind
    fake: str
    real: str | None
    regex: Regex | None
    status: int
    directive: Directive | None
    handler: str | None = None


def alias_matches(uri: str, fake: str) -> int:
    """``alias_matches``: how many characters of *uri* the prefix *fake* consumes (0: none).

    Any run of ``/`` in *fake* matches any non-empty run in *uri*; the last component must
    end at a ``/`` or at the end of *uri* (unless *fake* ends with ``/``).
    """
    a = u = 0
    na, nu = len(fake), len(uri)
    while a < na:
        if fake[a] == "/":
            if u >= nu or uri[u] != "/":
                return 0
            while a < na and fake[a] == "/":
                a += 1
            while u < nu and uri[u] == "/":
                u += 1
        else:
            if u >= nu or uri[u] != fake[a]:
                return 0
            a += 1
            u += 1
    if na and fake[-1] != "/" and u < nu and uri[u] != "/":
        return 0
    return u


def substitute(template: str, captures: Captures) -> str:
    """``ap_pregsub`` (``regsub_core``, 2.4): ``$0``…``$9`` (an unset or empty group is
    ""); a backslash makes the next character literal; ``&`` is an ordinary character."""
    if "$" not in template and "\\" not in template:
        return template
    out: list[str] = []
    i, n = 0, len(template)
    while i < n:
        ch = template[i]
        if i + 1 < n:
            nxt = template[i + 1]
            if ch == "$" and "0" <= nxt <= "9":
                out.append(captures.group(ord(nxt) - 48))
                i += 2
                continue
            if ch == "\\":
                out.append(nxt)
                i += 2
                continue
        out.append(ch)
        i += 1
    return "".join(out)


def escape_redirect_target(found: str) -> str:
    """What mod_alias does to a regex redirect target: escape everything but the query and
    fragment (``apr_uri_unparse(OMITQUERY)`` + ``ap_escape_uri``)."""
    fragment = None
    if "#" in found:
        found, fragment = found.split("#", 1)
    query = None
    if "?" in found:
        found, query = found.split("?", 1)
    out = escape_uri(found)
    if query is not None:
        out += "?" + query
    if fragment is not None:
        out += "#" + fragment
    return out


@dataclass(frozen=True, slots=True)
class AliasHit:
    """The first matching entry of a list, and what it produced (file path or URL)."""

    entry: AliasEntry
    found: str


def try_alias_list(uri: str, entries: tuple[AliasEntry, ...] | list[AliasEntry]
                   ) -> AliasHit | None:
    """``try_alias_list``: the first entry matching *uri*, in list order."""
    for entry in entries:
        is_redir = entry.kind == "redirect"
        if entry.regex is not None:
            caps = entry.regex.search(uri)
            if caps is None:
                continue
            if entry.real is None:
                return AliasHit(entry, "")
            found = substitute(entry.real, caps)
            return AliasHit(entry, escape_redirect_target(found) if is_redir else found)
        length = alias_matches(uri, entry.fake)
        if length <= 0:
            continue
        rest = uri[length:]
        if entry.real is None:
            return AliasHit(entry, "")
        return AliasHit(entry, entry.real + (escape_uri(rest) if is_redir else rest))
    return None


def finish_redirect(found: str, request: Request, server_name: str, *,
                    allow_relative: bool = False, name_port: int | None = None) -> str | None:
    """The ``Location`` mod_alias sends for *found*: made absolute unless RedirectRelative
    allows a path; the request's query appended when the target has none.  None when the
    target is neither a URL nor a path (Apache: 500)."""
    ret = found
    if not allow_relative or not ret.startswith("/"):
        if ret.startswith("/"):
            ret = server_url_base(request, server_name, name_port=name_port) + ret
        if not is_url(ret):
            return None
    if request.query is not None and "?" not in ret:
        ret = f"{ret}?{request.query}"
    return ret


def compile_config_regex(pattern: str, *, nocase: bool = False) -> Regex:
    """A pattern taken from a config, compiled with pcre2 as ``ap_pregcomp`` compiles it."""
    return Regex(pattern, nocase)


RegexError = pcre2.PatternError


# -- the filesystem -----------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class StatInfo:
    """What ``apr_stat`` tells the walk: the kind (after ``lstat``: ``link`` for a symlink),
    the kind the link points to, the owner (SymLinksIfOwnerMatch), size and mtime."""

    kind: FileKind
    target_kind: FileKind | None
    uid: int
    target_uid: int | None
    size: int
    mtime: float


def _kind(mode: int) -> FileKind:
    if stat_mod.S_ISREG(mode):
        return "file"
    if stat_mod.S_ISDIR(mode):
        return "dir"
    if stat_mod.S_ISLNK(mode):
        return "link"
    return "other"


class StatCache:
    """``lstat``/``stat`` results, cached per path (None: the path does not exist)."""

    def __init__(self) -> None:
        self._cache: dict[str, StatInfo | None] = {}

    def lstat(self, path: str) -> StatInfo | None:
        try:
            return self._cache[path]
        except KeyError:
            pass
        info: StatInfo | None
        try:
            st = os.lstat(path)
        except (OSError, ValueError):
            info = None
        else:
            kind = _kind(st.st_mode)
            target_kind: FileKind | None = kind
            target_uid: int | None = st.st_uid
            size, mtime = st.st_size, st.st_mtime
            if kind == "link":
                try:
                    tst = os.stat(path)
                except (OSError, ValueError):
                    target_kind, target_uid = None, None
                else:
                    target_kind, target_uid = _kind(tst.st_mode), tst.st_uid
                    size, mtime = tst.st_size, tst.st_mtime
            info = StatInfo(kind, target_kind, st.st_uid, target_uid, size, mtime)
        self._cache[path] = info
        return info

    def kind(self, path: str) -> FileKind | None:
        """The kind of what *path* leads to, following symlinks (None: nothing there).  As
        ``stat`` sees it: with a trailing slash only a directory is there (ENOTDIR)."""
        key = path.rstrip("/") or "/"
        try:
            info = self._cache[key]  # lstat()'s cache, looked up here first
        except KeyError:
            info = self.lstat(key)
        if info is None:
            return None
        kind = info.target_kind
        if kind != "dir" and len(key) != len(path):
            return None
        return kind

    def is_file(self, path: str) -> bool:
        return self.kind(path) == "file"

    def is_dir(self, path: str) -> bool:
        return self.kind(path) == "dir"

    def size(self, path: str) -> int | None:
        if path.endswith("/") and path != "/":
            return None  # stat("file/") fails; a directory has no size for -s
        info = self.lstat(path)
        return info.size if info is not None and info.target_kind == "file" else None

    def is_symlink(self, path: str) -> bool:
        """``lstat``: a trailing slash makes it follow the link, so never a link then."""
        if path.endswith("/"):
            return False
        info = self.lstat(path)
        return info is not None and info.kind == "link"

    def exists(self, path: str) -> bool:
        return self.kind(path) is not None

    def is_executable(self, path: str) -> bool:
        return self.is_file(path) and os.access(path, os.X_OK)

    def open_access_file(self, path: str, roots: list[str] | None,
                         follow_symlinks: bool) -> AccessCheck:
        """What ``ap_pcfg_openfile`` gives for the access file *path*: on the disk,
        :func:`~confmig.load.accessfile.check_access_file` (*roots*: where confmig may read
        one).  A filesystem that is not the disk answers from what it holds."""
        return check_access_file(path, roots, follow_symlinks)
