"""Which configuration sections apply to a request, in Apache's order (``server/request.c``).

* :func:`directory_walk` — ``ap_directory_walk``: from ``/`` down the real filesystem, at
  each level the non-regex ``<Directory>`` sections of that depth and then that directory's
  ``.htaccess`` (read only when the AllowOverride/AllowOverrideList in force there permits
  anything; a directive it does not permit makes the request answer 500); then
  ``<DirectoryMatch>``/``<Directory ~>``.
* :func:`file_walk`, :func:`location_walk`, :func:`if_walk` — ``<Files>``, ``<Location>`` and
  ``<If>``/``<ElseIf>``/``<Else>``.
* :func:`walk_file` — the directory and file walks of a file with their merged config, cached
  per site: they depend only on the configuration and the (unchanging) filesystem.

Sections are immutable once built and their merges are cached by the tuple of sections, so a
request costs a few dictionary lookups once its directories have been seen.

The sections themselves are :mod:`confmig.model.sections`; the site and its servers
:mod:`confmig.model.site`; ``ap_expr`` :mod:`confmig.model.expr`.  Those names are also
importable from here, as they were before the split.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from confmig.model.mapping import NAME_MAX, StatCache
from confmig.model.merge import OPT_SYM_LINKS, OPT_SYM_OWNER, DirConfig, OptsState
from confmig.model.rewrite.regex import Regex, to_bytes
from confmig.model.sections import ConfigSection, FilesSections, SectionKind, section_label
from confmig.model.site import DEFAULT_DOCUMENT_ROOT, Site, VirtualServer
from confmig.model.site_builder import (
    DEFAULT_TYPES_CONFIG,
    build_site,
    load_types,
    parse_address,
    sort_directories,
)
from confmig.model.wildcard import count_dirs, fnmatch_regex, is_fnmatch

if TYPE_CHECKING:
    from confmig.model.expr import (
        Expr,
        ExprError,
        ExprUnsupported,
        Lookup,
        SubRequest,
    )

# The expression model's names this module offers, imported when first asked for (PEP 562):
# the walk evaluates an <If> only where the configuration has one, and a request model
# without one does not load the expression model (issue 17).
_EXPR_NAMES = frozenset({"Expr", "ExprError", "ExprEvalError", "ExprUnsupported", "Lookup",
                         "SubRequest"})

__all__ = [
    "DEFAULT_DOCUMENT_ROOT", "DEFAULT_TYPES_CONFIG", "ConfigSection", "DirWalk", "Expr",
    "ExprError", "ExprUnsupported", "Lookup", "SectionKind", "Site", "VirtualServer",
    "build_site", "count_dirs", "directory_sections", "directory_walk", "file_walk",
    "fnmatch_regex", "if_walk", "is_fnmatch", "load_types", "location_walk", "parse_address",
    "section_label", "sort_directories", "walk_file",
]


@dataclass(slots=True)
class DirWalk:
    """What ``ap_directory_walk`` leaves: the sections merged (in order), ``r->filename``,
    ``r->path_info``, the kind of what was found, and an error status (403 for a forbidden
    symlink or an unreadable access file, 500 for a broken ``.htaccess``)."""

    sections: list[ConfigSection]
    filename: str
    path_info: str
    kind: str | None
    status: int = 0
    message: str = ""
    htaccess_skipped: list[str] = field(default_factory=list)
    opts: int = 0  # the Options in force at the end of the walk (core_opts_t)
    # MATCH_<NAME> of the named groups of the regex <DirectoryMatch>/<FilesMatch> matched
    # (r->subprocess_env; set by walk_file), None when there are none
    match_env: dict[str, str] | None = None
    # Apache never answers: an access file on the way is a FIFO its open() blocks on
    # (``status`` is then confmig's stand-in, the answer its converters give)
    hangs: bool = False


def directory_walk(site: Site, server: VirtualServer, filename: str) -> DirWalk:
    """``ap_directory_walk`` for *filename* (absolute); see the module docstring."""
    fs = site.stat
    filename = _collapse(filename)
    trailing = filename.endswith("/") and filename != "/"
    info_kind = fs.kind(filename)
    if info_kind is None or (info_kind != "dir" and trailing):
        info_kind = None
    opts = OptsState.start(server.defaults.core)
    sections: list[ConfigSection] = []
    skipped: list[str] = []
    dirs = server.directories
    idx = 0
    parts = [p for p in filename.split("/") if p]
    current = "/"
    seg = 1
    found_kind: str | None = "dir"
    consumed = 0
    while True:
        level = current if current.endswith("/") else current + "/"
        matched, idx = _level_sections(dirs, idx, seg, level)
        for entry in matched:
            opts.apply(entry.core)
            sections.append(entry)
        if opts.htaccess_enabled:
            result = site.htaccess(level, server.access_names, opts)
            if result.status:
                return DirWalk(sections, filename, "", None, result.status, result.message,
                               skipped, opts.opts, hangs=result.hangs)
            if result.section is not None:
                opts.apply(result.section.core)
                sections.append(result.section)
        elif _has_access_file(fs, level, server.access_names):
            skipped.append(level)
        if consumed >= len(parts):
            break
        name = parts[consumed]
        candidate = (current if current.endswith("/") else current + "/") + name
        if info_kind is not None and (opts.opts & (OPT_SYM_OWNER | OPT_SYM_LINKS)) \
                == OPT_SYM_LINKS:
            kind = fs.kind(candidate)
        else:
            info = fs.lstat(candidate)
            if info is None:
                kind = None
            else:
                kind = info.kind
                if kind == "link":
                    status = _symlink_status(info, opts.opts)
                    if status:
                        return DirWalk(sections, candidate, "", None, 403,
                                       f"Symbolic link not allowed or link target not "
                                       f"accessible: {candidate}", skipped, opts.opts)
                    kind = info.target_kind
        consumed += 1
        current = candidate
        if kind is None:
            if len(name) * 4 > NAME_MAX and len(to_bytes(name)) > NAME_MAX:
                # lstat fails with ENAMETOOLONG, not ENOENT: "access … failed" → 403
                return DirWalk(sections, candidate, "", None, 403,
                               f"File name too long: a path segment of {len(to_bytes(name))}"
                               f" bytes (NAME_MAX {NAME_MAX})", skipped, opts.opts)
            found_kind = None
            break
        if kind == "file":
            found_kind = "file"
            break
        if kind != "dir":
            return DirWalk(sections, candidate, "", None, 403,
                           f"Forbidden: {candidate} doesn't point to a file or directory",
                           skipped, opts.opts)
        found_kind = "dir"
        seg += 1
    rest = parts[consumed:]
    final = current
    if rest:
        path_info = "/" + "/".join(rest) + ("/" if trailing else "")
    elif trailing and found_kind != "dir":
        path_info = "/"
    else:
        path_info = ""
        if trailing:
            final = current if current.endswith("/") else current + "/"
    match_env: dict[str, str] | None = None
    for entry in dirs[idx:]:
        if entry.regex is None:
            continue
        if entry.regex.names:
            match_env = export_named_groups(entry.regex, final, match_env)
            if match_env is None:
                continue
        elif entry.regex.search(final) is None:
            continue
        opts.apply(entry.core)
        sections.append(entry)
    return DirWalk(sections, final, path_info, found_kind, 0, "", skipped, opts.opts,
                   match_env or None)


def export_named_groups(regex: Regex, subject: str, env: dict[str, str] | None
                        ) -> dict[str, str] | None:
    """A regex section's match of *subject* as the walks of ``server/request.c`` take it:
    each named group that took part is set as ``MATCH_<NAME>`` (upper-cased; ``ap_regname``
    with ``AP_REG_MATCH``) in *env* (a new dict when None).  None when it does not match."""
    groups = regex.named_groups(subject)
    if groups is None:
        return None
    env = {} if env is None else env
    for name, value in groups:
        env["MATCH_" + name.translate(_UPPER)] = value
    return env


_UPPER = str.maketrans("abcdefghijklmnopqrstuvwxyz", "ABCDEFGHIJKLMNOPQRSTUVWXYZ")


def _level_sections(dirs: Sequence[ConfigSection], idx: int, seg: int, level: str
                    ) -> tuple[list[ConfigSection], int]:
    """The non-regex ``<Directory>`` sections (``dirs`` sorted, from ``idx`` on) that
    ``ap_directory_walk`` merges at ``level`` (a directory with trailing ``/``, ``seg``
    components deep counting ``/`` as 1), and the index to go on from."""
    matched: list[ConfigSection] = []
    while idx < len(dirs):
        entry = dirs[idx]
        if entry.regex is not None or entry.components > seg:
            break
        if entry.components and (entry.components < seg or not (
                entry.fnmatch.search(level) is not None if entry.fnmatch is not None
                else entry.match == level)):
            idx += 1
            continue
        matched.append(entry)
        idx += 1
    return matched, idx


def directory_sections(server: VirtualServer, directory: str) -> list[ConfigSection]:
    """The non-regex ``<Directory>`` sections :func:`directory_walk` merges for *directory*
    (absolute) and the directories above it, in merge order, without looking at the
    filesystem: the sections that decide the AllowOverride and AllowOverrideList in force
    for *directory*'s access file (an access file cannot set them, and ``<DirectoryMatch>``
    is merged after the access files are read)."""
    parts = [p for p in _collapse(directory).split("/") if p]
    out: list[ConfigSection] = []
    idx = 0
    level = "/"
    for seg in range(1, len(parts) + 2):
        matched, idx = _level_sections(server.directories, idx, seg, level)
        out += matched
        if seg <= len(parts):
            level += parts[seg - 1] + "/"
    return out


def _has_access_file(fs: StatCache, level: str, names: Sequence[str]) -> bool:
    return any(fs.kind(level + name) is not None for name in names)


def _symlink_status(info: Any, opts: int) -> int:
    """``resolve_symlink``: 403 unless FollowSymLinks, or SymLinksIfOwnerMatch with the same
    owner; also 403 for a dangling link."""
    if not opts & (OPT_SYM_LINKS | OPT_SYM_OWNER):
        return 403
    if info.target_kind is None:
        return 403
    if not opts & OPT_SYM_LINKS and info.uid != info.target_uid:
        return 403
    return 0


def _collapse(path: str) -> str:
    """``apr_filepath_merge``: repeated slashes collapsed, ``.``/``..`` resolved."""
    if "//" not in path and "/." not in path:
        return path
    trailing = path.endswith("/")
    norm = os.path.normpath(path)
    if norm.startswith("//"):
        norm = "/" + norm.lstrip("/")
    return norm + "/" if trailing and norm != "/" else norm


def file_walk(files: Sequence[ConfigSection | FilesSections], filename: str,
              env: dict[str, str] | None = None) -> list[ConfigSection]:
    """``ap_file_walk``: the ``<Files>``/``<FilesMatch>`` of the merged config (in their merge
    order: ``CoreDir.file_groups``, or sections) that match the last component of
    *filename*; the named groups of the regex ones go to *env* (see
    :func:`export_named_groups`).  Only the sections that match are built."""
    if not files:
        return []
    name = filename.rsplit("/", 1)[-1]
    out = []
    for entry in files:
        if isinstance(entry, FilesSections):  # a section's <Files>, built when matched
            for index, test in enumerate(entry.tests):
                if isinstance(test, str):
                    if test != name:
                        continue
                elif entry.is_regex(index) and test.names and env is not None:
                    if export_named_groups(test, name, env) is None:
                        continue
                elif not test.matches(name):
                    continue
                out.append(entry.section(index))
            continue
        if entry.regex is not None:
            if entry.regex.names and env is not None:
                if export_named_groups(entry.regex, name, env) is None:
                    continue
            elif entry.regex.search(name) is None:
                continue
        elif entry.fnmatch is not None:
            if entry.fnmatch.search(name) is None:
                continue
        elif entry.match != name:
            continue
        out.append(entry)
    return out


def location_walk(locations: Sequence[ConfigSection], uri: str, merge_slashes: bool = True,
                  env: dict[str, str] | None = None) -> list[ConfigSection]:
    """``ap_location_walk``: ``<Location>`` (prefix, ending at a ``/`` or the end),
    wildcard and regex forms, in config order, against ``r->uri`` (slashes merged); the named
    groups of the regex ones go to *env* (see :func:`export_named_groups`)."""
    if not locations:
        return []
    if not merge_slashes:
        while "//" in uri:
            uri = uri.replace("//", "/")
    out = []
    for entry in locations:
        if entry.regex is not None:
            if entry.regex.names and env is not None:
                if export_named_groups(entry.regex, uri, env) is None:
                    continue
            elif entry.regex.search(uri) is None:
                continue
        elif entry.fnmatch is not None:
            if entry.fnmatch.search(uri) is None:
                continue
        else:
            path = entry.match
            n = len(path)
            if not uri.startswith(path) or (n and path[-1] != "/" and len(uri) > n
                                            and uri[n] != "/"):
                continue
        out.append(entry)
    return out


def if_walk(ifs: Sequence[ConfigSection], lookup: Lookup,
            unsupported: list[str], clock: float | None = None,
            vary: list[str] | None = None, subrequest: SubRequest | None = None
            ) -> list[ConfigSection]:
    """``ap_if_walk``: ``<If>``/``<ElseIf>``/``<Else>`` chains; a matched section's own nested
    ``<If>``s are walked after the others.  A condition the model cannot evaluate counts as
    false and is reported in *unsupported*; *vary* receives the request headers the
    conditions read (``ap_expr_exec`` adds them to the response's Vary); *subrequest*
    answers their ``-F``/``-U``/``-A``."""
    from confmig.model.expr import Evaluation, ExprEvalError, ExprUnsupported  # (once a walk)

    # one evaluation for the walk's conditions, each run afresh (Evaluation.test)
    run = Evaluation(lookup, clock, subrequest, vary=[] if vary is None else vary)
    out: list[ConfigSection] = []
    prev: bool | None = None
    nested: list[ConfigSection] = []
    for entry in ifs:
        kind = entry.kind
        if kind != "if" and prev:  # an <ElseIf>/<Else> after a true condition
            continue
        if kind != "else":
            assert entry.condition is not None
            try:
                ok = run.test(entry.condition.tree)
            except ExprUnsupported as exc:
                unsupported.append(f"{entry.label} at {entry.where}: cannot evaluate {exc}")
                ok = False
            except ExprEvalError:  # "Failed to evaluate <If > condition": false
                ok = False
            prev = ok
            if not ok:
                continue
        else:
            prev = None
        out.append(entry)
        nested.extend(entry.core.ifs)
    if nested:
        out.extend(if_walk(nested, lookup, unsupported, clock, vary, subrequest))
    return out


def walk_file(site: Site, server: VirtualServer, filename: str
              ) -> tuple[DirWalk, list[ConfigSection], DirConfig]:
    """:func:`directory_walk` and then :func:`file_walk` for *filename*: the walk, the
    sections that apply (the server defaults, the directory walk's, the ``<Files>``) and their
    merged config — cached per server (``server.walks``).  The list is shared: callers must
    not change it."""
    found = server.walks.get(filename)
    if found is None:
        walk = directory_walk(site, server, filename)
        # A walk that fails returns before it sets r->per_dir_config (request.c): the
        # error is answered with the server's defaults alone, so neither an ErrorDocument
        # nor a "Header always" of the access files it read applies to it.
        sections = [server.defaults] if walk.status else [server.defaults, *walk.sections]
        if not walk.status:
            env: dict[str, str] = walk.match_env or {}
            sections += file_walk(site.merged(sections)["core"].file_groups, walk.filename, env)
            walk.match_env = env or None
        found = server.walks[filename] = (walk, sections, site.merged(sections))
    return found


def __getattr__(name: str) -> object:
    if name in _EXPR_NAMES:
        from confmig.model import expr

        return getattr(expr, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
