"""Computing a :class:`~confmig.model.plan.types.SitePlan` from the model.

Every Apache decision is the model's: which sections apply to a directory and in what order
(:func:`confmig.model.walk.directory_walk`), how they merge (``Site.merged``: each module's own
merger, mod_rewrite's inheritance included), and whether access is granted
(:func:`confmig.model.access.access_status`, asked for several methods and clients: a decision
that differs between them, or that the model marks as dynamic, is ``conditional``).  This
module only reads the merged per-module configurations and names their sources.
"""

from __future__ import annotations

import bisect
import ipaddress
import os
import re
import stat
from collections.abc import Callable, Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from confmig.apache.paths import server_root_relative
from confmig.load import Workspace, load_path
from confmig.load.accessfile import AccessState, check_access_file
from confmig.model.access import access_status
from confmig.model.authn import (
    MAX_FILE_BYTES,
    group_members,
    groups_listing,
    in_required_group,
    logical_lines,
)
from confmig.model.env import SPECIAL_ATTRIBUTES
from confmig.model.evaluate import Evaluation
from confmig.model.handler import autoindex_handles, fifo_subdirectories
from confmig.model.merge import (
    OPT_INDEXES,
    OPT_MULTI,
    OPT_SYM_LINKS,
    OPT_SYM_OWNER,
    DirConfig,
    HeaderEntry,
    MimeDir,
)
from confmig.model.merge.authbasic import AuthBasicDir, AuthnFileDir, GroupFileDir
from confmig.model.merge.authz import AuthzNode
from confmig.model.mime import mime_type
from confmig.model.passwords import scheme
from confmig.model.plan.overlap import basename_regex, may_overlap
from confmig.model.plan.types import (
    ANSWER_FIELDS,
    Access,
    BasicLogin,
    EnvCondition,
    Expires,
    FilesScope,
    Header,
    LoginEntry,
    PlanNote,
    Redirect,
    RewritePlan,
    Scope,
    Settings,
    SitePlan,
    Source,
    SymLink,
)
from confmig.model.request import Request
from confmig.model.response_headers import check_header, check_headers
from confmig.model.rewrite.maps import RewriteMap
from confmig.model.round import Round
from confmig.model.sections import ConfigSection
from confmig.model.site import Site, VirtualServer
from confmig.model.target import site_for
from confmig.model.walk import directory_walk, file_walk
from confmig.syntax import Directive, Node, Section, parse_text
from confmig.syntax.words import split_words

#: Methods and clients the access decision is asked for; a decision that is not the same for
#: all of them is conditional.
PROBE_METHODS = ("GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS")
PROBE_CLIENTS = ("127.0.0.1", "203.0.113.9", "::1")

MAX_DIRECTORIES = 20000  # a tree walked for access files, at most
#: Directives whose effect the plan carries (lower-case).  Anything else that Apache accepts in
#: an access file becomes a note.
EXPRESSED = frozenset({
    "options", "directoryindex", "directoryslash", "fallbackresource", "errordocument",
    "header", "addtype", "forcetype", "adddefaultcharset", "addcharset", "expiresactive",
    "expiresbytype", "expiresdefault", "rewriteengine", "rewriterule", "rewritecond",
    "rewritebase", "rewriteoptions", "require", "order", "allow", "deny", "satisfy",
    "redirect", "redirectmatch", "redirectpermanent", "redirecttemp", "authmerging",
    # a login: Access.login when it is a plain Basic one (an emitter announces the others)
    "authtype", "authname", "authuserfile", "authgroupfile", "authbasicprovider",
})
#: Directives the plan carries as handlers (Settings.handler, Settings.handlers,
#: FilesScope.sets_handler); still a note, marked ``handler``, for an emitter that does not
#: run them (one that does announces what it leaves out itself).
HANDLER_DIRECTIVES = frozenset({"sethandler", "addhandler", "removehandler"})
#: mod_autoindex's directives: they change only a listing's page.
LISTING_ONLY = frozenset({
    "indexignore", "indexignorereset", "indexoptions", "indexorderdefault", "indexstylesheet",
    "indexheadinsert", "headername", "readmename", "adddescription", "addicon",
    "addiconbytype", "addiconbyencoding", "addalt", "addaltbytype", "addaltbyencoding",
    "defaulticon",
})
#: Directives that change nothing a request's answer is compared on: Apache's own error
#: pages' signature line.  Carried as information, not as an untranslatable construct.
COSMETIC = frozenset({"serversignature"})
ACCESS_DIRECTIVES = frozenset({"require", "order", "allow", "deny", "satisfy", "authmerging"})
#: What a directive the plan does not carry changes in an answer (confmig verify's field
#: names), where that is known: what a script sees is its answer's body; the encoding of a
#: file (verify compares a gzip body decompressed); an ETag's form; a listing's lines.
UNEXPRESSED_FIELDS = {
    "requestheader": frozenset({"body"}),
    "passenv": frozenset({"body"}),
    "addencoding": frozenset({"content-encoding", "content-type", "body"}),
    "removeencoding": frozenset({"content-encoding", "content-type", "body"}),
    "fileetag": frozenset({"etag"}),
    "indexignore": frozenset({"body"}),
    "indexoptions": frozenset({"body", "content-type"}),
    "headername": frozenset({"body"}),
    "readmename": frozenset({"body"}),
}
#: Environment variables other modules act on (mod_deflate, mod_negotiation, the core's
#: protocol handling…): SetEnv/SetEnvIf of one may change more than what scripts see.
MODULE_VARIABLES = ("no-gzip", "gzip-only-text/html", "dont-vary", "force-gzip", "no-brotli",
                    "force-no-vary", "force-response-1.0", "downgrade-1.0", "nokeepalive",
                    "no-cache", "suppress-error-charset", "redirect-carefully",
                    "ssl-unclean-shutdown", "proxy-", "cache-", "no-proxy", "prefer-language",
                    "force-proxy-request-1.0", "no-etag", "ap_")
SETENV_DIRECTIVES = frozenset({"setenv", "setenvif", "setenvifnocase", "browsermatch",
                               "browsermatchnocase", "setenvifexpr", "unsetenv"})
#: Sections the plan understands inside an access file.
EXPRESSED_SECTIONS = frozenset({"files", "filesmatch", "requireall", "requireany",
                                "requirenone"})


class PlanError(ValueError):
    """A document root the plan cannot be built for (one line, path first)."""


def plan_docroot(docroot: str | os.PathLike[str], config: str | os.PathLike[str] | None = None,
                 defines: Iterable[str] = ()) -> SitePlan:
    """The plan of *docroot* (Debian's defaults with ``AllowOverride All``, or as *config*
    sets it)."""
    root = Path(docroot)
    if not root.is_dir():
        raise PlanError(f"{docroot}: not a directory")
    workspace = load_path(root, config, set(defines))
    return plan_workspace(workspace, str(root.resolve()))


def plan_config(config: str | os.PathLike[str], defines: Iterable[str] = (),
                prelude: str = "") -> list[SitePlan]:
    """One plan per ``<VirtualHost>`` of *config* (the main server when it has none), in
    configuration order.  *prelude* is server configuration read before *config* (what a
    harness around it adds, as ``confmig.servers``' Apache template does)."""
    path = Path(config)
    if not path.is_file():
        raise PlanError(f"{config}: no such file")
    workspace = load_path(None, path, set(defines))
    if workspace.errors:
        raise PlanError(str(workspace.errors[0]))
    if prelude and workspace.server is not None:
        workspace.server.nodes[:0] = parse_text(prelude, "<prelude>").nodes
    site = site_for(workspace)
    servers = site.vhosts or [site.main]
    return [_plan_server(workspace, site, server, server.document_root.rstrip("/") or "/")
            for server in servers]


def plan_workspace(workspace: Workspace, document_root: str) -> SitePlan:
    site = site_for(workspace)
    return _plan_server(workspace, site, _server_for(site, document_root), document_root)


def _plan_server(workspace: Workspace, site: Site, server: VirtualServer,
                 document_root: str) -> SitePlan:
    directories = _scope_directories(workspace, server, document_root)
    plan = SitePlan(document_root, server.name, tuple(server.aliases), [], dict(site.types),
                    label=server.label, links=_links(document_root))
    for directory in directories:
        plan.scopes.append(_scope(site, server, document_root, directory, plan.notes,
                                  set(directories)))
    plan.notes[:] = [_unlisted(note, plan) for note in plan.notes]
    return plan


def _unlisted(note: PlanNote, plan: SitePlan) -> PlanNote:
    """A mod_autoindex directive where nothing at or below its directory is listed changes
    nothing (mod_autoindex only makes listings): a note that changes no behaviour."""
    if note.directive.lower() not in LISTING_ONLY or not note.changes_behaviour:
        return note
    below = note.scope.rstrip("/") + "/"
    for scope in plan.scopes:
        if (scope.directory == note.scope or scope.directory.startswith(below)) and (
                scope.settings.indexes or any(f.settings.indexes for f in scope.files)):
            return replace(note, reason=f"changes mod_autoindex's listings, and "
                                        f"{scope.url} has them (Options Indexes): a "
                                        "target's listing would show what it hides")
    return replace(note, reason="only changes mod_autoindex's listings, and nothing here "
                                "is listed (left out)", changes_behaviour=False, fields=None)


def _server_for(site: Site, document_root: str) -> VirtualServer:
    # A <VirtualHost> first: it answers its addresses' requests before the main server does
    # (whose DocumentRoot, when the configuration sets none, was made DOCROOT by site_for).
    for server in [*site.vhosts, site.main]:
        if server.document_root.rstrip("/") == document_root.rstrip("/"):
            return server
    site.main.document_root = document_root
    return site.main


def _scope_directories(workspace: Workspace, server: VirtualServer,
                       document_root: str) -> list[str]:
    root = document_root.rstrip("/") or "/"
    found = {root}
    for path in workspace.access:
        directory = os.path.dirname(os.path.abspath(path))
        if directory == root or directory.startswith(root + "/"):
            found.add(directory)
    # the access files on disk (a server config's trees are not all in the workspace)
    for seen, (current, dirs, files) in enumerate(os.walk(root)):
        dirs.sort()
        if seen >= MAX_DIRECTORIES:
            break
        if any(name in files for name in server.access_names):
            found.add(current)
            if current != root and any(
                    check_access_file(os.path.join(current, name)).state is AccessState.FIFO
                    for name in server.access_names if name in files):
                # its parent's listing may hang: the parent is a scope, and so is each of
                # its subdirectories (listed or not as they are themselves)
                parent = os.path.dirname(current)
                found.add(parent)
                found.update(os.path.join(parent, d) for d in _subdirectories(parent))
    for section in server.directories:
        if section.regex is None and section.fnmatch is None:
            directory = section.match.rstrip("/")
            if directory.startswith(root + "/") and os.path.isdir(directory):
                found.add(directory)
    return sorted(found, key=lambda d: (d.count("/"), d))


def _links(document_root: str) -> tuple[SymLink, ...]:
    """The symlinks under *document_root* (at most MAX_DIRECTORIES directories are looked
    at; links to directories are not entered)."""
    found: list[SymLink] = []
    for seen, (current, dirs, files) in enumerate(os.walk(document_root.rstrip("/") or "/")):
        if seen >= MAX_DIRECTORIES:
            break
        for name in sorted([*dirs, *files]):
            path = os.path.join(current, name)
            try:
                own = os.lstat(path)
                if not stat.S_ISLNK(own.st_mode):
                    continue
            except OSError:
                continue
            try:
                target_uid: int | None = os.stat(path).st_uid
            except OSError:
                target_uid = None
            found.append(SymLink(path, target_uid is None, target_uid == own.st_uid))
        dirs.sort()
    return tuple(sorted(found, key=lambda link: link.path))


def _subdirectories(directory: str) -> list[str]:
    try:
        return sorted(e.name for e in os.scandir(directory) if e.is_dir(follow_symlinks=False))
    except OSError:
        return []


def _url_of(directory: str, document_root: str) -> str | None:
    root = document_root.rstrip("/")
    if directory.rstrip("/") == root:
        return "/"
    if directory.startswith(root + "/"):
        return directory[len(root):].rstrip("/") + "/"
    return None


def _scope(site: Site, server: VirtualServer, document_root: str, directory: str,
           notes: list[PlanNote], scope_dirs: set[str] | None = None) -> Scope:
    url = _url_of(directory, document_root) or "/"
    walk = directory_walk(site, server, directory + "/")
    sections = [server.defaults, *walk.sections]
    sources = [Source(s.file, 0) for s in walk.sections if s.kind == "htaccess"]
    if walk.status:
        source = sources[-1] if sources else Source(directory, 0)
        access = Access("denied", walk.status, source,
                        walk.message or f"Apache answers {walk.status} below {directory}")
        return Scope(directory, url, sources, Settings(access))
    config = site.merged(sections)
    for section in walk.sections:
        if section.kind == "htaccess" and os.path.dirname(section.file) == directory:
            _note_unexpressed(section.directives, directory, notes)
            for node, message in section.nonfatal:
                notes.append(PlanNote(_source(node), getattr(node, "name", ""),
                                      f"ignored by Apache ({message.strip()})", directory,
                                      changes_behaviour=False))
    for files in config["core"].files:  # this directory's own <Files>/<FilesMatch> too
        if os.path.dirname(files.file) == directory:
            _note_unexpressed(files.directives, directory, notes)
    settings = _settings(site, server, config, url, document_root, directory, notes)
    deflate = _deflate(site, sections)
    if deflate is not None:
        settings = replace(settings, deflate_types=deflate[0], deflate_source=deflate[1])
    settings = _with_file_etag(settings, sections)
    if settings.indexes:
        settings = _without_blocked_listing(site, server, directory, settings, notes)
    if settings.charset_types and not settings.force_type:
        _note_multi_extension_charsets(site, server, config.get("mime"), directory,
                                       scope_dirs or {directory}, notes)
    ifs = _if_sections(config["core"].ifs)
    if ifs:
        settings = _with_ifs(settings, ifs, directory, notes)
    scope = Scope(directory, url, sources, settings)
    for files in config["core"].files:
        merged = site.merged([*sections, files])
        scope.files.append(FilesScope(
            files.label, basename_regex(files), Source(files.file, files.line),
            _with_file_etag(_settings(site, server, merged, url, document_root, directory,
                                      notes), [*sections, files]),
            all(d.lname in ACCESS_DIRECTIVES for d in files.directives),
            any(d.lname == "sethandler" for d in files.directives),
            bool(file_walk([files], directory + "/"))))
    _deny_overlapped_files(site, server, sections, config["core"].files, scope, url,
                           document_root, notes)
    return scope


#: Pairs of <Files> sections compared in one scope before every section that a later
#: access-setting section may overlap is denied without comparing (a bound on the work).
MAX_FILES_PAIRS = 2000


def _deny_overlapped_files(site: Site, server: VirtualServer, sections: list[ConfigSection],
                           files: Sequence[ConfigSection], scope: Scope, url: str,
                           document_root: str, notes: list[PlanNote]) -> None:
    r"""A name that two <Files> sections match gets both, merged in order (a later
    ``Require`` replaces an earlier one: ``<FilesMatch ^x>`` with a login, then
    ``<FilesMatch \.sql$>`` denying, is a 403 for ``x.sql``), where a target's one
    location per section gives it the first's answer.  When a later section that sets
    access could change the earlier's answer for such a name, the earlier section is denied
    (403) and announced: a target may refuse where Apache serves, never the reverse.  A
    later plain denial needs nothing: the emitters test the denials before a section's own
    settings (``tests/nginx/test_files_denial_candidates.py``)."""
    directory = scope.directory
    setters = [k for k, section in enumerate(files) if _sets_access(section)]
    pairs = 0
    for i, first in enumerate(files):
        after = bisect.bisect_right(setters, i)
        if after == len(setters):
            continue
        if pairs + len(setters) - after > MAX_FILES_PAIRS:
            _deny_unchecked(scope, files, i, directory, notes)
            return
        own = scope.files[i].settings.access
        changed = None
        for k in setters[after:]:
            other = files[k]
            pairs += 1
            if not may_overlap(first, other):
                continue
            both = _settings(site, server, site.merged([*sections, first, other]), url,
                             document_root, directory, [])
            if (both.access.decision, both.access.status) == (own.decision, own.status):
                continue
            if own.decision == "granted" and both.access.decision == "denied" \
                    and both.access.status == 403 and both.access.login is None:
                continue  # targets apply a plain denial before a section that only grants
            changed = other
            break
        if changed is None:
            continue
        source = Source(first.file, first.line)
        both_match = (f"{first.label} and the later {changed.label} ({changed.file}:"
                      f"{changed.line}) may both match a name: Apache merges them in order "
                      "(the later's access wins), a target gives such a name one section's "
                      "answer")
        if (own.decision, own.status) == ("denied", 403):
            # the target already refuses every such name: stricter where the later grants
            notes.append(PlanNote(source, first.label, f"{both_match}: 403 for such a name",
                                  directory, changes_behaviour=False, answer=403))
            continue
        why = f"{both_match}; this section's names are denied (403)"
        scope.files[i] = replace(scope.files[i], settings=replace(
            scope.files[i].settings, access=Access("denied", 403, source, why)))
        notes.append(PlanNote(source, first.label, why, directory, answer=403))


def _deny_unchecked(scope: Scope, files: Sequence[ConfigSection], start: int, directory: str,
                    notes: list[PlanNote]) -> None:
    """Past :data:`MAX_FILES_PAIRS`: every section from *start* on that a later one setting
    access follows is denied (403) unless it denies already, with one note for them all."""
    last_setter = max((k for k, section in enumerate(files) if _sets_access(section)),
                      default=-1)
    denied = 0
    for i in range(start, last_setter):
        access = scope.files[i].settings.access
        if (access.decision, access.status) != ("denied", 403):
            source = Source(files[i].file, files[i].line)
            scope.files[i] = replace(scope.files[i], settings=replace(
                scope.files[i].settings, access=Access("denied", 403, source,
                                                       "overlaps not compared (too many)")))
            denied += 1
    first = files[start]
    notes.append(PlanNote(Source(first.file, first.line), first.label,
                          f"more than {MAX_FILES_PAIRS} pairs of <Files> sections to compare "
                          f"here: from this one on, {denied} section(s) that a later one setting "
                          "access may overlap are denied (403), and a name a later one grants "
                          "may be refused", directory, answer=403))


def _sets_access(section: ConfigSection) -> bool:
    return any(d.lname in ACCESS_DIRECTIVES or d.lname.startswith("auth")
               for d in section.directives)


def _without_blocked_listing(site: Site, server: VirtualServer, directory: str,
                             settings: Settings, notes: list[PlanNote]) -> Settings:
    """*settings*, without the listing when Apache's never answers: mod_autoindex's
    sub-request for a subdirectory whose access file is a FIFO blocks in ``open()`` when the
    walk opens it (:func:`confmig.model.handler.listing_blocks_on`).  Not listed (403),
    announced."""
    for name, path in fifo_subdirectories(directory, server.access_names):
        if directory_walk(site, server, f"{directory.rstrip('/')}/{name}/").status:
            notes.append(PlanNote(
                Source(path, 0), "", f"a FIFO: Apache's listing of {directory.rstrip('/')}/ "
                "(mod_autoindex looks every entry up with a sub-request) never answers; not "
                "listed here (403)", directory, answer=403))
            return replace(settings, indexes=False)
    return settings


def _settings(site: Site, server: VirtualServer, config: DirConfig, url: str,
              document_root: str, directory: str, notes: list[PlanNote]) -> Settings:
    core = config["core"]
    opts = core.options
    dir_conf = config.get("dir")
    mime = config.get("mime")
    charset = core.default_charset
    types: dict[str, str] = {}
    charsets: dict[str, str] = {}
    handlers: dict[str, str] = {}
    if mime is not None and mime.mappings:
        for ext, info in mime.mappings.items():
            if info.type:
                types[ext] = info.type
            if info.charset:
                charsets[ext] = info.charset
            if info.handler:
                handlers[ext] = info.handler
    return Settings(
        access=_access(site, server, config, url),
        rewrite=_rewrite(config, document_root, directory, notes, server.rewrite_maps),
        redirects=_redirects(config),
        error_documents=tuple(sorted((code, target, _source(d))
                                     for code, (target, d) in core.error_documents.items())),
        index=(dir_conf.index_names if dir_conf is not None and dir_conf.index_names
               is not None else ("index.html",)),
        index_source=(_source(dir_conf.index_directive) if dir_conf is not None
                      and dir_conf.index_directive is not None else None),
        indexes=bool(opts & OPT_INDEXES) and autoindex_handles(
            core.handler if core.handler != "none" else None),
        multiviews=bool(opts & OPT_MULTI),
        follow_symlinks=bool(opts & OPT_SYM_LINKS),
        symlinks_if_owner=bool(opts & OPT_SYM_OWNER),
        slash=dir_conf.slash if dir_conf is not None and dir_conf.slash is not None else True,
        fallback=dir_conf.fallback if dir_conf is not None else None,
        headers=_headers(config, server),
        force_type=core.mime_type if core.mime_type != "none" else None,
        handler=core.handler if core.handler != "none" else None,
        handler_unknown=_unknown_handler(site, core.handler),
        default_charset=charset[1] if charset is not None and charset[0] else None,
        types=tuple(sorted(types.items())), charsets=tuple(sorted(charsets.items())),
        charset_types=_charset_types(site, server, mime, charsets),
        handlers=tuple(sorted(handlers.items())),
        expires=_expires(config),
    )


#: What the handler names of Apache's modules (and of mod_php, mod_wsgi, mod_perl…) hold:
#: a name with one of these is taken for a module's, whatever the modules loaded.
MODULE_HANDLER_WORDS = ("php", "cgi", "script", "proxy", "fcgi", "wsgi", "lua", "perl",
                        "python", "status", "info", "manager", "map", "parsed", "as-is",
                        "dav", "isapi", "reflector", "example", "redirect", "/", ":")


def _unknown_handler(site: Site, handler: str | None) -> bool:
    """A SetHandler name no module provides, which Apache's core leaves to its default
    handler (``ap_invoke_handler``: every module declines, the default handler serves the
    file).  Not where mod_actions is loaded (an ``Action`` makes any name a handler)."""
    if not handler or handler in ("none", "default-handler"):
        return False
    low = handler.lower()
    return not any(word in low for word in MODULE_HANDLER_WORDS) \
        and not site.state.modules.has_module("mod_actions")


def _deflate(site: Site, sections: Sequence[ConfigSection]
             ) -> tuple[tuple[str, ...], Source] | None:
    """``AddOutputFilterByType DEFLATE`` in force (mod_filter with mod_deflate): the lines of
    one section add up; a later section that has any replaces the earlier ones
    (``filter_merge``: the child's ``BYTYPE:DEFLATE`` filter, with only its own types,
    overlays the parent's).  Its provider matches the media type without parameters,
    case-insensitively, and runs only for a 200 (``filter_harness``)."""
    modules = site.state.modules
    if not (modules.has_module("mod_filter") and modules.has_module("mod_deflate")):
        return None
    found: tuple[tuple[str, ...], Source] | None = None
    for section in sections:
        lines = [d for d in section.directives
                 if d.lname == "addoutputfilterbytype" and len(d.args) >= 2
                 and "deflate" in d.args[0].lower().split(";")]
        if lines:
            types = [t.lower() for d in lines for t in d.args[1:]]
            found = (tuple(dict.fromkeys(types)), _source(lines[0]))
    return found


def _with_file_etag(settings: Settings, sections: Sequence[ConfigSection]) -> Settings:
    """*settings* with the ``FileETag`` in force: core's merge takes a later section's
    absolute line whole (``None`` alone, or components: a file gets an ETag); an
    incremental ``+X``/``-X`` line adds to what is inherited and leaves ``None`` as it is
    (``ETAG_NONE`` stays set) — such a line is announced (:data:`UNEXPRESSED_FIELDS`)."""
    for section in sections:
        for d in section.directives:
            if d.lname == "fileetag" and d.args and _absolute_file_etag(d):
                settings = replace(settings, etag=[a.lower() for a in d.args] != ["none"],
                                   etag_source=_source(d))
    return settings


def _absolute_file_etag(node: Directive) -> bool:
    """A ``FileETag`` line that names what it sends, none of its words ``+X``/``-X``."""
    return all(not a.startswith(("+", "-")) for a in node.args)


def _type_of(site: Site, server: VirtualServer, mime: MimeDir | None,
             name: str) -> str | None:
    """The model's Content-Type (mod_mime's ``find_ct``, AddCharset included) of a file
    called *name*."""
    evaluation = Evaluation(site, server, Request(target="/"), trace=False)
    return mime_type(evaluation, mime, "/" + name)[0]


def _charset_types(site: Site, server: VirtualServer, mime: MimeDir | None,
                   charsets: dict[str, str]) -> tuple[tuple[str, str], ...]:
    """For each extension ``AddCharset`` names, the Content-Type Apache sends for a file
    whose only extension it is (``text/plain; charset=utf-8``); none when Apache gives
    such a file no type (then there is no charset either)."""
    out = []
    for ext in sorted(charsets):
        ctype = _type_of(site, server, mime, f"x.{ext}")
        if ctype is not None:
            out.append((ext, ctype))
    return tuple(out)


MAX_CHARSET_FILES = 5000  # files of a scope looked at for several extensions


def _note_multi_extension_charsets(site: Site, server: VirtualServer, mime: MimeDir | None,
                                   directory: str, scope_dirs: set[str],
                                   notes: list[PlanNote]) -> None:
    """mod_mime reads every extension after the base name (``a.bar.gz`` takes ``.bar``'s
    charset); a target that types a file by its last extension only would differ.  A note
    for each file of the scope (its directory and the ones below without configuration of
    their own) whose charset is not the one its last extension alone gives."""
    seen = 0
    differing: list[str] = []
    for current, dirs, files in os.walk(directory):
        dirs[:] = sorted(d for d in dirs if os.path.join(current, d) not in scope_dirs)
        for name in sorted(files):
            seen += 1
            if seen > MAX_CHARSET_FILES:
                break
            stripped = name.lstrip(".")
            if stripped.count(".") < 2:
                continue
            full = _type_of(site, server, mime, name)
            alone = _type_of(site, server, mime, "x." + stripped.rsplit(".", 1)[1])
            if _charset_of(full) != _charset_of(alone):
                differing.append(os.path.relpath(os.path.join(current, name), directory))
    if differing:
        shown = ", ".join(differing[:3]) + (f" and {len(differing) - 3} more"
                                            if len(differing) > 3 else "")
        notes.append(PlanNote(Source(directory, 0), "AddCharset",
                              f"{shown}: Apache takes the charset from an extension before "
                              "the last one; by the last extension alone it differs",
                              directory, fields=frozenset({"content-type"})))


def _charset_of(ctype: str | None) -> str | None:
    for param in (ctype or "").split(";")[1:]:
        name, _, value = param.strip().partition("=")
        if name.lower() == "charset":
            return value
    return None


def _access(site: Site, server: VirtualServer, config: DirConfig, url: str) -> Access:
    """Ask the model for every probe method and client; one answer for all → static."""
    if "access" not in config and "authz" not in config and "authn" not in config:
        return Access("granted")
    dynamic: list[bool] = []
    unsupported: list[str] = []

    def decide(client: str) -> set[int]:
        out = set()
        for method in PROBE_METHODS:
            request = Request(target=url, method=method, remote_addr=client)
            ev = Evaluation(site, server, request, trace=False)
            out.add(access_status(ev, Round(config, [server.defaults]), method, dynamic))
            unsupported.extend(ev.unsupported)
        return out

    seen: set[int] = set()
    for client in (*PROBE_CLIENTS, *_addresses_named(config)):
        seen |= decide(client)
    source = _access_source(config)
    if seen == {401} and not unsupported:
        # a login for every client and method; exact when the model's Require tree only
        # asks for it (the answer then depends on the Authorization header alone)
        login = _basic_login(site, config, source)
        if login is not None:
            return Access("denied", 401, source, "a login is asked of every client",
                          login=login)
    if len(seen) == 1 and not dynamic and not unsupported:
        status = seen.pop()
        return Access("granted") if status == 0 else Access("denied", status, source,
                                                             "denied for every client")
    if not dynamic and not unsupported and seen == {0, 403}:
        networks = _granted_networks(config, decide)
        if networks:
            return Access("by-address", 403, source, "granted to " + ", ".join(networks)
                          + " only", networks)
    why = "; ".join(dict.fromkeys(unsupported)) or (
        "depends on the client, the method, the environment or credentials")
    return Access("conditional", 403, source, why)


def _basic_login(site: Site, config: DirConfig, source: Source | None) -> BasicLogin | None:
    """The login a 401 asks for, when it is a plain one: ``AuthType Basic`` with a literal
    ``AuthName``, the ``file`` provider alone, named once or more (no AuthBasicFake, no
    digest algorithm), a readable ``AuthUserFile``, no 2.2 access control, and a ``Require``
    tree of only ``valid-user`` or ``user`` lines for every method.  None otherwise."""
    authn = config.get("authn")
    if authn is None or (authn.auth_type or "").lower() != "basic" or not authn.auth_name \
            or "%{" in authn.auth_name or "access" in config:
        return None
    basic: AuthBasicDir = config.get("auth_basic") or AuthBasicDir()
    if basic.fake or basic.digest_algorithm is not None \
            or (basic.providers is not None and set(basic.providers) != {"file"}):
        return None
    users_file: AuthnFileDir | None = config.get("authn_file")
    authz = config.get("authz")
    if users_file is None or users_file.user_file is None or authz is None \
            or authz.section is None:
        return None
    groups: list[str] = []
    required = _required_users(authz.section, _group_lines(site, config), groups)
    if required is False or (required is not None and authz.forbidden_on_fail):
        return None  # (AuthzSendForbiddenOnFailure: 403 for a user it does not authorize)
    path = server_root_relative(users_file.user_file, str(site.state.server_root))
    try:
        with open(path, "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    if len(data) > MAX_FILE_BYTES:
        return None
    written: dict[str, str] = {}  # Apache's line → the file's (its first)
    for raw in data.decode("utf-8", errors="surrogateescape").split("\n"):
        written.setdefault(raw.strip(" \t\n\r\f\v"), raw.rstrip("\r"))
    entries = []
    for line in logical_lines(data):
        user, _, rest = line.partition(":")
        stored = rest.partition(":")[0]
        marker = stored[:stored.index("}") + 1] if stored.startswith("{") and "}" in stored \
            else ""
        raw = written.get(line, line)
        sides = [side for side, cut in (("leading", raw.lstrip(" \t\f\v")),
                                        ("trailing", raw.rstrip(" \t\f\v"))) if cut != raw]
        entries.append(LoginEntry(user, scheme(stored), marker,
                                  "both" if len(sides) == 2 else "".join(sides)))
    return BasicLogin(authn.auth_name, path, required, tuple(entries), b"\\\n" in data,
                      source, tuple(dict.fromkeys(groups)))


def _group_lines(site: Site, config: DirConfig) -> list[str] | bool | None:
    """The lines of the ``AuthGroupFile`` in force (None: none set, or unreadable — Apache
    then denies every ``Require group``; False: too large to read here)."""
    conf: GroupFileDir | None = config.get("authz_groupfile")
    if conf is None or conf.group_file is None:
        return None
    try:
        with open(server_root_relative(conf.group_file, str(site.state.server_root)),
                  "rb") as handle:
            data = handle.read(MAX_FILE_BYTES + 1)
    except OSError:
        return None
    return logical_lines(data) if len(data) <= MAX_FILE_BYTES else False


def _required_users(node: AuthzNode, group_lines: list[str] | bool | None,
                    groups: list[str]) -> tuple[str, ...] | bool | None:
    """The users a ``Require`` tree of only ``valid-user``/``user``/``group`` lines grants
    (None: any valid user; a group's members as the group file lists them, *groups*
    collects the groups named); False for any other tree."""
    if node.negate or node.methods is not None:
        return False
    if node.provider is not None:
        if node.provider == "valid-user":
            return None
        if node.provider == "user" and "%{" not in node.args:
            return tuple(split_words(node.args))
        if node.provider == "group" and "%{" not in node.args and group_lines is not False:
            named = split_words(node.args)
            groups += named
            lines = group_lines if isinstance(group_lines, list) else []
            return tuple(u for u in group_members(lines)
                         if in_required_group(groups_listing(lines, u), named))
        return False
    if node.op != "or" or not node.children:
        return False
    users: list[str] = []
    for child in node.children:
        found = _required_users(child, group_lines, groups)
        if found is False:
            return False
        if found is None:
            return None
        users += found  # type: ignore[arg-type]
    return tuple(dict.fromkeys(users))


def _granted_networks(config: DirConfig, decide: Callable[[str], set[int]]
                      ) -> tuple[str, ...]:
    """The networks a decision that depends only on the client address grants: the ones
    ``Require ip``/``Allow from`` name, confirmed with the model — every one granted (its
    first, last and a middle address), and just outside each, like the other clients
    asked, denied for every method.  Empty when the model does not confirm it."""
    networks = []
    for word in _address_words(config, grants_only=True):
        network = _network(word)
        if network is None:
            return ()
        networks.append(network)
    if not networks:
        return ()
    samples: set[ipaddress.IPv4Address | ipaddress.IPv6Address] = {
        ipaddress.ip_address(c) for c in PROBE_CLIENTS}
    # every network named anywhere (a denied or negated one too): its first, last and a
    # middle address, and the addresses just outside it
    for word in _address_words(config):
        network = _network(word)
        if network is None:
            return ()
        first, last = network.network_address, network.broadcast_address
        samples |= {first, last, first + network.num_addresses // 2}
        for outside in (int(first) - 1, int(last) + 1):
            if 0 <= outside < 2 ** network.max_prefixlen:
                samples.add(ipaddress.ip_address(outside) if network.version == 4
                            else ipaddress.IPv6Address(outside))
    for address in sorted(samples, key=lambda a: (a.version, int(a))):
        expected = {0} if any(address in n for n in networks
                              if n.version == address.version) else {403}
        if decide(str(address)) != expected:
            return ()
    return tuple(str(n) for n in networks)


def _network(word: str) -> ipaddress.IPv4Network | ipaddress.IPv6Network | None:
    text = word
    if "/" not in text and ":" not in text and text.count(".") < 3:
        parts = [p for p in text.split(".") if p]
        text = ".".join(parts + ["0"] * (4 - len(parts))) + f"/{8 * len(parts)}"
    try:
        return ipaddress.ip_network(text, strict=False)
    except ValueError:
        return None


def _if_sections(ifs: Iterable[ConfigSection]) -> list[ConfigSection]:
    out = []
    for section in ifs:
        out.append(section)
        out.extend(_if_sections(section.core.ifs))
    return out


#: What an ``<If>`` may hold that changes whether or where a request is answered.
IF_DECISIVE = ACCESS_DIRECTIVES | {"rewriterule", "rewritecond", "rewriteengine", "redirect",
                                   "redirectmatch", "redirectpermanent", "redirecttemp",
                                   "errordocument", "forcetype", "sethandler", "authtype"}


def _with_ifs(settings: Settings, ifs: list[ConfigSection], directory: str,
              notes: list[PlanNote]) -> Settings:
    """``<If>``/``<ElseIf>``/``<Else>`` depend on each request: the plan cannot carry them.
    One that decides access, rewriting or the handler makes the scope conditional (an
    emitter denies it); the others are notes."""
    decisive = False
    for section in ifs:
        kinds = {d.lname for d in section.directives}
        grave = bool(kinds & IF_DECISIVE)
        decisive |= grave
        notes.append(PlanNote(Source(section.file, section.line), section.label,
                              "a per-request condition (" + ("decides access, rewriting or "
                              "the handler: the directory is denied" if grave else
                              "its directives are left out") + ")", directory,
                              fields=None if grave else _left_out_fields(section),
                              answer=403 if grave else 0))
    if not decisive:
        return settings
    first = ifs[0]
    return replace(settings, access=Access("conditional", 403, Source(first.file, first.line),
                                           f"{first.label} decides per request"))


#: Header actions that set or remove the header they name in the response.
HEADER_ACTIONS = frozenset({"set", "append", "merge", "add", "setifempty", "unset", "edit",
                            "edit*"})
EXPIRES_DIRECTIVES = frozenset({"expiresactive", "expiresbytype", "expiresdefault"})


def _left_out_fields(section: ConfigSection) -> frozenset[str] | None:
    """The compared fields the directives of a left-out ``<If>`` may change: the headers
    its ``Header`` lines name, mod_expires' two (None: some other directive, any field);
    and ``Vary``, which Apache adds for the request headers the expression reads."""
    fields: set[str] = {"vary"}
    for directive in section.directives:
        words = [a for a in directive.args if a.lower() not in ("always", "onsuccess")]
        if directive.lname == "header" and len(words) >= 2 \
                and words[0].lower() in HEADER_ACTIONS:
            fields.add(words[1].lower())
        elif directive.lname in EXPIRES_DIRECTIVES:
            fields |= {"expires", "cache-control"}
        else:
            return None
    return frozenset(fields)


def _addresses_named(config: DirConfig) -> list[str]:
    """A client address inside every network the access configuration names (``Require
    ip``, ``Allow/Deny from``), so that a rule for one of them shows in the decision."""
    out = []
    for word in _address_words(config):
        network = _network(word)
        if network is None:
            continue
        host = network.network_address + (1 if network.num_addresses > 1 else 0)
        out.append(str(host))
    return sorted(set(out))


def _address_words(config: DirConfig, grants_only: bool = False) -> list[str]:
    """The addresses and networks ``Require ip`` and ``Allow/Deny from`` name."""
    words: list[str] = []
    access = config.get("access")
    if access is not None:
        entries = access.allows if grants_only else (*access.allows, *access.denies)
        words += [e.value for e in entries if e.kind == "ip"]
    authz = config.get("authz")
    stack = [authz.section] if authz is not None and authz.section is not None else []
    while stack:
        node = stack.pop()
        if node.provider == "ip" and not (grants_only and node.negate):
            words += node.args.split()
        stack.extend(node.children)
    return list(dict.fromkeys(words))


def _access_source(config: DirConfig) -> Source | None:
    access = config.get("access")
    if access is not None and access.directives:
        return _source(access.directives[-1])
    authz = config.get("authz")
    node = authz.section if authz is not None else None
    while node is not None:
        if node.directive is not None:
            return _source(node.directive)
        node = node.children[-1] if node.children else None
    return None


def _rewrite(config: DirConfig, document_root: str, directory: str,
             notes: list[PlanNote], maps: dict[str, RewriteMap] | None = None
             ) -> RewritePlan | None:
    rw = config.get("rewrite")
    if rw is None or rw.context != "directory" or not rw.engine or rw.directory is None:
        return None
    strip = _url_of(rw.directory, document_root)
    source = _source(rw.rules[0].directive) if rw.rules else None
    if strip is None:
        notes.append(PlanNote(source or Source(rw.directory, 0), "RewriteRule",
                              f"rules of {rw.directory}, outside the document root",
                              directory, fields=ANSWER_FIELDS))
        strip = "/"
    base = rw.base if rw.base_set else None
    return RewritePlan(rw.directory, strip, base, base if base is not None else strip,
                       tuple(rw.rules), frozenset(rw.options), source,
                       tuple(maps.values()) if maps else ())


def _redirects(config: DirConfig) -> tuple[Redirect, ...]:
    alias = config.get("alias")
    if alias is None:
        return ()
    out = []
    for entry in alias.redirects:
        out.append(Redirect(entry.regex is not None, entry.fake, entry.status, entry.real,
                            _source(entry.directive)))
    return tuple(out)


def _headers(config: DirConfig, server: VirtualServer) -> tuple[Header, ...]:
    conf = config.get("headers")
    if conf is None:
        return ()
    out = []
    for entry in (*conf.always, *conf.onsuccess):
        header = _header(entry, server.protocol.strict)
        if entry.env:
            condition = _env_condition(config, server, entry.env)
            if condition is not None:
                header = replace(header, env_condition=condition)
        out.append(header)
    return tuple(out)


def _env_condition(config: DirConfig, server: VirtualServer, clause: str
                   ) -> EnvCondition | None:
    """``env=VAR``/``env=!VAR`` as a condition on one request header: exactly one
    ``SetEnvIf``/``SetEnvIfNoCase`` line of the directory sets VAR (whatever value), its
    attribute is a request header (not a special attribute, a regex of names or a
    variable), and nothing else — another SetEnvIf, the server's, SetEnv/UnsetEnv, a
    RewriteRule's ``[E=]`` — sets or unsets VAR or a variable named like the header (which
    Apache would match when the header is not there).  None otherwise."""
    name = clause.lstrip("!")
    setenvif = config.get("setenvif")
    entries = list(setenvif.entries) if setenvif is not None else []
    early = server.early_setenvif
    touching = [e for e in [*entries, *(early.entries if early is not None else ())]
                if any(n == name for n, _ in e.assignments)]
    if len(touching) != 1:
        return None
    entry = touching[0]
    if entry.expr is not None or entry.regex is None or entry.early \
            or entry not in entries or entry.key in SPECIAL_ATTRIBUTES \
            or re.fullmatch(r"[A-Za-z0-9-]+", entry.attribute) is None \
            or any(v is None for n, v in entry.assignments if n == name) \
            or entry.directive.lname.startswith("browsermatch"):
        return None
    if any(n.lower() == entry.key for e in entries for n, _ in e.assignments):
        return None
    env = config.get("env")
    if env is not None and (name in env.set or name in env.unset):
        return None
    rw = config.get("rewrite")
    if rw is not None and any(flag.lstrip("!").split(":", 1)[0] == name
                              for rule in rw.rules for flag in rule.env):
        return None
    nocase = entry.directive.lname.endswith("nocase")
    return EnvCondition(entry.attribute, entry.regex.source, nocase,
                        not clause.startswith("!"), _source(entry.directive))


def _header(entry: HeaderEntry, strict: bool) -> Header:
    """The entry with the literal value Apache sends and whether Apache's ``check_headers``
    refuses it (the model's, with the server's ``HttpProtocolOptions``)."""
    source = _source(entry.directive)
    if entry.action in ("unset", "echo", "edit", "edit*", "note"):
        return Header(entry, source)  # nothing of its own is sent
    if entry.value_expr is not None or any(tag for tag, _ in entry.format):
        # the value depends on the request; only the name can be judged here
        return Header(entry, source, None, check_header(entry.name, "", strict) or "")
    fields = {entry.name: "".join(text for _, text in entry.format)}
    refused = check_headers(fields, None, strict) or ""
    return Header(entry, source, fields[entry.name], refused)


def _expires(config: DirConfig) -> Expires | None:
    conf = config.get("expires")
    if conf is None or not conf.active:
        return None
    return Expires(conf.default, tuple(sorted(conf.by_type.items())), None)


def _note_unexpressed(nodes: Sequence[Node], directory: str, notes: list[PlanNote]) -> None:
    for node in nodes:
        if isinstance(node, Directive):
            if _authorization_for_scripts(node):
                notes.append(PlanNote(_source(node), node.name, "only hands the Authorization "
                                      "header to scripts as HTTP_AUTHORIZATION (nginx's "
                                      "fastcgi_params pass it themselves)", directory,
                                      changes_behaviour=False))
            elif node.lname == "addoutputfilterbytype" and node.args and all(
                    f.lower() == "deflate" for f in node.args[0].split(";")):
                continue  # Settings.deflate_types
            elif node.lname in HANDLER_DIRECTIVES:
                if node.lname == "addhandler" and node.args \
                        and node.args[0].lower() == "default-handler":
                    continue  # Apache's own file handler: the file is sent as it is
                notes.append(PlanNote(_source(node), node.name, "a handler: the plan carries "
                                      "it, a target may not run it", directory, handler=True))
            elif node.lname == "fileetag" and node.args and _absolute_file_etag(node):
                notes.append(PlanNote(_source(node), node.name, "whether a file gets an "
                                      "ETag (Settings.etag): not expressed by this target",
                                      directory, fields=frozenset({"etag"}), carried=True))
            elif node.lname in COSMETIC:
                notes.append(PlanNote(_source(node), node.name, "only changes the server's "
                                      "own error pages (left out)", directory,
                                      changes_behaviour=False))
            elif node.lname == "requestheader" and len(node.args) >= 2 \
                    and not _early(node):
                name = node.args[1]
                notes.append(PlanNote(_source(node), node.name, (
                    f"{name}: what a script sees of the request (HTTP_"
                    f"{name.upper().replace('-', '_')}): the plan does not carry it"
                    if _script_only_request_header(node) else
                    f"{name}: Apache reads the edited request itself (its handler and "
                    "output filters: ranges, conditions, compression): the plan does not "
                    "carry it"), directory, fields=_unexpressed_fields(node)))
            elif node.lname not in EXPRESSED:
                notes.append(PlanNote(_source(node), node.name,
                                      "no target-neutral form: the plan does not carry it",
                                      directory, fields=_unexpressed_fields(node)))
        elif isinstance(node, Section) and node.lname not in EXPRESSED_SECTIONS:
            notes.append(PlanNote(_source(node), f"<{node.name}>",
                                  "no target-neutral form: the plan does not carry it",
                                  directory))


def _unexpressed_fields(node: Directive) -> frozenset[str] | None:
    """What a directive the plan does not carry may change (None: anything).  A variable
    only scripts read changes what they print; one another module acts on, anything."""
    if node.lname in SETENV_DIRECTIVES:
        names = _variables_set(node)
        if names and not any(n.lower().lstrip("!").startswith(MODULE_VARIABLES)
                             for n in names):
            return frozenset({"body"})
        return None
    if node.lname == "requestheader" and not _script_only_request_header(node):
        return None if _early(node) else SERVER_READ_FIELDS
    return UNEXPRESSED_FIELDS.get(node.lname)


#: Request headers Apache itself reads after mod_headers' fixup has edited them: the static
#: handler's conditions and ranges, mod_deflate's Accept-Encoding (any Accept*: a type map),
#: the connection's own.
SERVER_READ_HEADERS = frozenset({
    "host", "range", "if-range", "if-match", "if-none-match", "if-modified-since",
    "if-unmodified-since", "te", "connection", "keep-alive", "content-length",
    "content-type", "transfer-encoding", "expect", "upgrade",
})


#: What a request header the server reads after the fixups can change in an answer: a
#: range (206), a condition (304, 412), compression.
SERVER_READ_FIELDS = frozenset({"status", "body", "content-type", "content-encoding", "vary",
                                "content-range", "etag", "last-modified"})


def _early(node: Directive) -> bool:
    """``RequestHeader … early``: edited before anything reads the request."""
    return any(a.lower() == "early" for a in node.args[2:])


def _script_only_request_header(node: Directive) -> bool:
    """A ``RequestHeader`` only a handler that runs scripts reads the result of: it runs in
    the fixups phase (mod_headers hooks last; mod_rewrite's per-directory rules, access
    control and SetEnvIf have read the request before), unless ``early``, and names a
    header the server does not read itself."""
    if len(node.args) < 2 or _early(node):
        return False
    name = node.args[1].lower()
    return name not in SERVER_READ_HEADERS and not name.startswith("accept")


def _variables_set(node: Directive) -> list[str]:
    """The variables a SetEnv/SetEnvIf/BrowserMatch line sets or unsets ([] when its
    arguments are not the usual ones)."""
    if node.lname in ("setenv", "unsetenv"):
        return node.args[:1] if node.lname == "setenv" else list(node.args)
    if node.lname == "setenvifexpr":
        return [a.split("=", 1)[0] for a in node.args[1:]]
    first = 1 if node.lname.startswith("browsermatch") else 2
    return [a.split("=", 1)[0] for a in node.args[first:]]


def _authorization_for_scripts(node: Directive) -> bool:
    """``SetEnvIf[NoCase] Authorization "(.+)" HTTP_AUTHORIZATION=$1``: the header for a
    script, nothing a request's answer depends on unless something reads the variable (a
    ``Header``/``Require`` with ``env=`` is reported on its own)."""
    if node.lname not in ("setenvif", "setenvifnocase") or len(node.args) < 3:
        return False
    attribute = node.args[0].lower()
    return attribute in ("authorization", "^authorization$") and all(
        a.split("=", 1)[0].upper() == "HTTP_AUTHORIZATION" for a in node.args[2:])


def _source(node: object) -> Source:
    return Source(str(getattr(node, "file", "") or ""), int(getattr(node, "line", 0) or 0))
