"""The site plan as one nginx ``server { }`` (jinja2 templates next to this module).

Every URL space of the plan is a location with *everything* in force there written out (the
plan has merged it already), so nothing depends on nginx's own inheritance — in particular not
on its rule that a level with an ``add_header`` of its own drops every inherited one:

* ``location /`` for the document root, ``location ^~ /dir/`` for a directory with its own
  configuration (``^~``: no regex location of another scope can take its requests), and
  ``location = /dir`` for the directory requested without its slash (Apache applies the
  directory's own configuration to it, but none of its rewrite rules);
* inside, ``<Files>``/``<FilesMatch>`` as nested regex locations (denials first: only one
  regex location wins in nginx);
* access denials as ``return`` first in the location: nginx runs the rewrite phase before
  its access phase, Apache checks access before its per-directory rewriting;
* a front controller as ``try_files $uri $uri/ $ROUTE``, whose fallback for a longer path is
  a named location that walks it as Apache's directory walk does (:meth:`_front_walk`);
* what nginx would do for every request where Apache does it only for some URLs — the
  ``<Files>`` denials' file tests, a rule that only answers and tests the file system — in a
  nested location for those URLs, with the location's lines again
  (:func:`_tests_only_for`, :func:`_rule_only_for`): nginx runs every ``if`` of a location.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from functools import cache
from typing import Any

import jinja2

from confmig.convert.nginx import comments
from confmig.convert.nginx.auth import FilesLogin, files_login, login_lines
from confmig.convert.nginx.headers import (
    DOLLAR,
    DOLLAR_GEO,
    NATIVE_HEADERS,
    Note,
    expires_lines,
    header_lines,
    script_only_note,
)
from confmig.convert.nginx.limits import PARAMETER_MAX, long_tokens
from confmig.convert.nginx.maps import HttpMaps
from confmig.convert.nginx.mime import NGINX_MIME_TYPES, TypeTable
from confmig.convert.nginx.php import (
    PhpEmitter,
    handler_notes,
    handler_source,
    index_before_fallback,
)
from confmig.convert.nginx.regex import (
    Untranslatable,
    basename,
    files_candidate,
    name_then_path,
    path_prefix,
    path_prefix_named,
    path_prefix_text,
    pcre_literal,
    per_directory_candidate,
    then_path_beyond,
    then_path_chain,
    then_path_level,
    url_path,
)
from confmig.convert.nginx.rewrite import NO_FILE, VARIABLE_MAPS, AliasGuard, q, translate
from confmig.model.handler import autoindex_handles
from confmig.model.mapping import APR_PATH_MAX, NAME_MAX
from confmig.model.merge import error_document_kind
from confmig.model.plan import (
    ANSWER_FIELDS,
    FilesScope,
    RewritePlan,
    Scope,
    Settings,
    SitePlan,
    Source,
)

#: The last ``index`` of a directory whose handler does not list (:func:`_directory_404`):
#: a URI below the scope's own, an exact location there answering 404.
DIRECTORY_404 = ".confmig-directory-404"

#: How many components of a path a front controller's fallback walks (the first ones
#: directories: :meth:`Renderer._front_walk`); a deeper path of directories is denied.
FRONT_LEVELS = 12

#: How many components matching a ``<Files>`` denial, followed by more path, are tested
#: one by one (:meth:`Renderer._then_path_denials`).
THEN_PATH_LEVELS = 2

#: The line that lets a named location reached through ``error_page`` apply its own
#: (:meth:`Renderer._missing_below`).
RECURSIVE = "recursive_error_pages on;"


@dataclass
class NginxOptions:
    listen: str = "127.0.0.1:8080"
    server_name: str | None = None
    mime_types: str = NGINX_MIME_TYPES
    #: Prefix of the numbered map variables (servers sharing one http { } need their own).
    map_prefix: str = "confmig_map"
    #: --php-fpm ADDR: ``.php`` goes to php-fpm there (:mod:`confmig.convert.nginx.php`)
    php_fpm: str | None = None


@dataclass
class EmitNote:
    """A construct the output does not reproduce faithfully (or, without
    ``changes_behaviour``, something worth knowing)."""

    source: Source
    directive: str
    reason: str
    scope: str
    changes_behaviour: bool = True
    #: the compared fields it may change (None: any) — confmig.convert.result.Note
    fields: frozenset[str] | None = None
    adds_only: bool = False
    #: the status nginx answers instead of Apache's (a denial's 403; 0: none in particular)
    answer: int = 0


#: What content negotiation changes: which file is sent (or none), and the headers
#: mod_negotiation adds.
MULTIVIEWS_FIELDS = ANSWER_FIELDS | {"vary", "content-location", "tcn", "alternates"}
#: What nginx's compressing more than mod_deflate changes: it adds these, never drops them.
GZIP_FIELDS = frozenset({"content-encoding", "vary", "content-length", "body"})


#: The first line of :attr:`Front.by_hand`.
FRONT_BY_HAND = "# try_files by hand, in the rewrite phase:"


@dataclass(frozen=True)
class Front:
    """How a location with a front controller ends (after its other lines): the
    ``try_files`` line, and before it *by_hand*, the same work done in the rewrite phase
    where an ``if`` of the rules can match without ending that phase
    (:meth:`Renderer._front_lines`).  A PHP location takes the ``try_files`` alone (its
    ``try_files`` is the script's)."""

    try_files: str
    by_hand: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        return [*self.by_hand, self.try_files]


@dataclass
class Location:
    match: str
    comments: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    nested: list[Location] = field(default_factory=list)
    front: Front | None = None  # written after lines (before nested)


@dataclass
class NginxOutput:
    """The whole file (``text``) and its parts: ``http`` (``map`` blocks for the ``http {}``
    context) and ``body`` (inside ``server {}``, after ``listen``/``server_name``/``root``)."""

    text: str
    http: str
    body: str
    notes: list[EmitNote]
    server: str = ""  # the server { } block alone (text without the header and maps)


@cache
def _environment() -> jinja2.Environment:
    environment = jinja2.Environment(
        loader=jinja2.PackageLoader("confmig.convert.nginx", "templates"),
        undefined=jinja2.StrictUndefined, autoescape=False, trim_blocks=True,
        lstrip_blocks=True, keep_trailing_newline=True)
    # every line and comment line of the output (confmig.convert.nginx.comments)
    environment.filters["line"] = comments.line
    environment.filters["comment"] = comments.comment
    return environment


def _render(template: str, **context: Any) -> str:
    return _environment().get_template(template).render(**context)


class Renderer:
    """One plan → one nginx server (collects the ``map`` blocks and the notes)."""

    def __init__(self, plan: SitePlan, options: NginxOptions) -> None:
        self.plan = plan
        self.options = options
        self.notes: list[EmitNote] = []
        self.amp_args = False
        self.uses_charset = False
        type_notes: list[tuple[Source, str, str]] = []
        self.types = TypeTable(plan, options.mime_types, type_notes,
                               php_scripts=options.php_fpm is not None)
        for source, reason, scope in type_notes:
            self.notes.append(EmitNote(source, "TypesConfig", reason, scope,
                                       fields=frozenset({"content-type"})))
        self.http = HttpMaps(options.map_prefix)
        self.scope_ids = {s.directory: str(i) for i, s in enumerate(plan.scopes)}
        self.typed: list[Location] = []  # named locations of RewriteRule [T] types
        #: (directory, source, label) of a <Files> section with a login → its route
        self.files_logins: dict[tuple[str, str, str], FilesLogin] = {}
        #: id(scope) → id(a <Files> section's settings) → that section (the first with them)
        self._files_by_settings: dict[int, dict[int, FilesScope]] = {}
        #: directory → its <Files> denials for the front controller's walk: status → the
        #: sections' name_then_path bodies, their error_page lines, the candidate regex
        self.walk_denials: dict[str, tuple[dict[int, str], list[str], str]] = {}
        #: directory → its <Files> denials' "its directory exists" map rows (a name's
        #: parent captured as confmig_dir) and their statuses, in the sections' order
        self.name_denials: dict[str, list[tuple[str, int]]] = {}
        #: (target, directory, content lines) → the route variable and the walk's named
        #: location (:meth:`_front_route`)
        self.front_routes: dict[tuple[str, str, tuple[str, ...]], tuple[str, str]] = {}
        self.tree_depths: dict[str, int] | None = None  # directory → its depth (components)
        self.php = PhpEmitter(options.php_fpm, self.http, [
            (self.scope_ids[s.directory], s.settings) for s in plan.scopes],
            _authorization_scopes(plan, self.scope_ids)) if options.php_fpm else None

    # -- whole server ---------------------------------------------------------------------

    def render(self) -> NginxOutput:
        for note in self.plan.notes:
            if note.handler or note.carried:
                continue  # handler_notes() says what of the handlers is not run; the
                # settings carry the line (FileETag: headers.py's etag)
            note = script_only_note(note, self.php is not None)
            self.notes.append(EmitNote(note.source, note.directive, note.reason, note.scope,
                                       note.changes_behaviour, note.fields, answer=note.answer))
        locations = []
        for scope in sorted(self.plan.scopes, key=lambda s: s.url):
            locations.extend(self._scope_locations(scope))
        locations += self.typed
        if self.php is not None:
            locations += self.php.named_locations(
                lambda match, comments, lines: Location(match, comments, lines))
        server_lines = self._server_lines()
        body = _render("body.conf.j2", server_lines=server_lines, locations=locations)
        http_lines = list(self.http.blocks)
        for name, block in VARIABLE_MAPS.items():
            if "$" + name in body:
                http_lines[:0] = block
        if DOLLAR in body or any(DOLLAR in line for line in self.http.blocks):
            http_lines[:0] = DOLLAR_GEO
        if self.amp_args:
            http_lines[:0] = ['map $args $confmig_amp_args {', '    "" "";',
                              '    default "&$args";', "}"]
        http = "\n".join(http_lines) + ("\n" if http_lines else "")
        header = [
            f"Generated by confmig convert --to nginx from {self.plan.document_root}",
            "(one server { } for the http { } context; every block names its Apache source)",
        ]
        server = {"listen": self.options.listen,
                  "server_name": self.options.server_name or " ".join(
                      [self.plan.server_name, *self.plan.server_aliases]),
                  "root": q(self.plan.document_root), "body": body}
        text = _render("site.conf.j2", header=header, http_lines=http_lines, **server)
        refused = self._long_parameters(text, len(header))
        if refused:
            header += refused
            text = _render("site.conf.j2", header=header, http_lines=http_lines, **server)
        alone = _render("site.conf.j2", header=[], http_lines=[], **server)
        return NginxOutput(text, http, body, self.notes, alone.lstrip("\n"))

    def _long_parameters(self, text: str, header: int) -> list[str]:
        """Header lines (and untranslatable notes) for the parameters of *text* too long for
        nginx to read (:mod:`~confmig.convert.nginx.limits`): where a construct has no
        check of its own, the output nginx refuses is announced, never passed as exact.
        *header*: the header's lines now (those added push the text down)."""
        found = list(long_tokens(text))
        lines = []
        for number, size in found:
            reason = (f"line {number + len(found)} of the output holds a parameter of "
                      f"{size} bytes, and nginx refuses one longer than {PARAMETER_MAX} "
                      "('too long parameter'): nginx will not load this file")
            self._note(Source(self.plan.document_root, 0), "nginx", reason,
                       self.plan.document_root, fields=None)
            lines.append(f"untranslatable: {reason}")
        return lines

    def _server_lines(self) -> list[str]:
        lines = [
            "# Apache refuses an encoded slash or NUL in the path (AllowEncodedSlashes Off):",
            "# 404 before any location is chosen (nginx would decode them and match on).",
            'if ($request_uri ~ "^[^?]*%(?:2[fF]|00)") { return 404; }',
            "# Apache answers 400 for a '#' in the request line (a client never sends a",
            "# fragment); nginx would cut the URL there and answer for what is left.",
            'if ($request_uri ~ "#") { return 400; }',
            *self._too_long_lines(),
            "",
            *(["# Content types: nginx's mime.types, with Apache's TypesConfig where it "
               "differs for", "# the files of the site (" + ", ".join(
                   f".{e}" for e in sorted(self.types.overrides)) + ")",
               *self.types.block([])] if self.types.overrides else []),
            '# Apache sends no Content-Type for a file of unknown type.',
            'default_type "";',
            "# No compression but where AddOutputFilterByType DEFLATE is in force (Debian's",
            "# nginx.conf turns gzip on for the whole http { }).",
            "gzip off;",
        ]
        if self.php is not None:
            lines += ["", *self.php.server_lines()]
        if self.uses_charset:
            lines += ["# AddDefaultCharset: Apache adds the charset to text/plain and "
                      "text/html only", "# (nginx always includes text/html).",
                      "charset_types text/plain;"]
        return lines

    def _too_long_lines(self) -> list[str]:
        """Apache's 403s for a name too long for the file system, before any rule: a path
        segment over NAME_MAX bytes in a directory that exists (the directory walk's lstat
        fails with ENAMETOOLONG, where a missing name would end the walk), and DocumentRoot +
        URL-path over APR_PATH_MAX (``merge_too_long``).  nginx would go on to its locations
        and a front controller would answer 200.  Lengths are bytes: nginx's PCRE counts
        bytes of the decoded ``$uri``, as Apache's walk does."""
        root = self.plan.document_root.rstrip("/") or "/"
        longest = APR_PATH_MAX - 3 - len(root.encode("utf-8", "surrogateescape"))
        directory = self.http.map("$uri", [(f"~(?s)^(?<confmig_long_up>.*?/)[^/]{{{NAME_MAX + 1}}}",
                                            '"$document_root$confmig_long_up"')], '""')
        return [
            "# Apache answers 403 for a name too long for the file system, before any rule:",
            f"# a path segment over {NAME_MAX} bytes in a directory that exists, or",
            f"# DocumentRoot + URL-path over {APR_PATH_MAX} bytes (nginx would go on).",
            f"if (-d {directory}) {{ return 403; }}",
            f'if ($uri ~ "(?s)^/*+.{{{longest}}}") {{ return 403; }}',
        ]

    # -- one scope ------------------------------------------------------------------------

    def _scope_locations(self, scope: Scope) -> list[Location]:
        """The scope's locations, with every note made while building them as a comment
        at the top of its main location (the place the construct would go)."""
        before = len(self.notes)
        out = self._build_scope_locations(scope)
        if self.php is not None:
            sid = self.scope_ids[scope.directory]
            handled = self.php.envs[sid].handled
            # [E=HTTP_X:%{HTTP:X}] of the rules: handed to PHP (REDIRECT_HTTP_X too)
            self.notes[before:] = [n for n in self.notes[before:]
                                   if not (n.source in handled and "[E=" in n.reason)]
            for source, reason, fields in self.php.notes(sid):
                self._note(source, "RewriteRule", reason, scope.directory, fields=fields)
            self.php.add_locations(sid, out, scope.settings.index,
                                   lambda match, comments, lines: Location(match, comments,
                                                                           lines),
                                   self._files_matches(scope))
        main = out[-1]
        seen: set[str] = set()
        notes = [script_only_note(n, self.php is not None) for n in self.plan.notes
                 if n.scope == scope.directory and not n.handler and not n.carried]
        for note in [*notes, *self.notes[before:]]:
            text = (f"{'untranslatable' if note.changes_behaviour else 'note'}: "
                    f"{note.source} {note.directive}: {note.reason}")
            if text not in seen:
                seen.add(text)
                main.lines.insert(len(seen) - 1, "# " + text)
        return out

    def _build_scope_locations(self, scope: Scope) -> list[Location]:
        sid = self.scope_ids[scope.directory]
        where = ", ".join(str(s) for s in scope.sources) or "server configuration"
        main = Location("/" if scope.url == "/" else f"^~ {q(scope.url)}",
                        [f"{scope.directory} ({where})"])
        tests, candidate = self._file_denials(scope)
        denials = [*self._link_denials(scope), *tests]
        main.lines, rewrite_out, main.front = self._settings_lines(scope, scope.settings, sid,
                                                                  True)
        _prepend(main.lines, denials)
        for files in self._nested_files(scope):
            main.nested.append(self._files_location(scope, files, sid, denials))
        skip = self._pattern_rule(scope.settings)
        if skip is not None:
            fast, _, fast_front = self._settings_lines_quietly(scope, skip[0], sid, True)
            _prepend(fast, denials)
            _rule_only_for(main, fast, fast_front, skip[1])
        if candidate is not None:
            missing = self._missing_below(scope) if main.front is None else []
            for location in [*(n for n in main.nested if n.match.startswith("~")), main]:
                _tests_only_for(location, tests, candidate,
                                missing if location is main else [])
            if RECURSIVE in missing and RECURSIVE in main.nested[-1].lines:
                self._error_pages_once(scope, main.nested[-1], missing)
        if rewrite_out is not None:
            for url in rewrite_out.exact_static:
                plain = Location(f"= {q(url)}", ["served as it is (a rule stops the rules)"])
                plain.lines, _, _ = self._settings_lines(scope, scope.settings, sid, False)
                _prepend(plain.lines, denials)
                main.nested.append(plain)
        if any(line.startswith("index ") and DIRECTORY_404 in line
               for loc in [main, *main.nested] for line in loc.lines):
            main.nested.append(Location(f"= {q(scope.url + DIRECTORY_404)}", [
                "where `index` sends a directory without an index file: Apache's 404, with "
                "the", "error_page and add_header of the location (rewrite directives are "
                "not inherited)"], ["internal;", "return 404;"]))
        out = [main]
        if scope.url != "/":
            bare = Location(f"= {q(scope.url.rstrip('/'))}",
                            [f"{scope.url.rstrip('/')} without its slash: the same "
                             "configuration"])
            # Apache runs no rules of the directory's own .htaccess for it (mod_dir
            # answers 301; RewriteOptions AllowNoSlash), but inherited ones do run.
            rw = scope.settings.rewrite
            rules = rw is not None and (rw.directory.rstrip("/") != scope.directory
                                        or "AllowNoSlash" in rw.options)
            bare.lines, _, bare.front = self._settings_lines(scope, scope.settings,
                                                             sid + "s", rules)
            _prepend(bare.lines, denials)
            out.insert(0, bare)
        return out

    def _files_matches(self, scope: Scope) -> dict[str, FilesScope]:
        """The ``match`` of each ``<Files>`` location of the scope, to its section."""
        out = {}
        for files in self._nested_files(scope):
            try:
                out[f"~ {q(basename(files.basename_regex))}"] = files
            except Untranslatable:
                continue
        return out

    def _link_denials(self, scope: Scope) -> list[str]:
        """Apache's walk answers 403 for a symlink it does not follow and for any path below
        it.  nginx answers 404 for a link to nothing, and for a path through a refused link
        to a directory (``disable_symlinks``: ENOTDIR); it cannot tell these from missing
        files, so the links the tree held when it was converted are named."""
        root = self.plan.document_root.rstrip("/")
        urls = [link.path[len(root):] for link in self.plan.links
                if link.path.startswith(root + "/") and not link.followed(scope.settings)
                and self.plan.scope_for(link.path.rsplit("/", 1)[0]) is scope]
        if not urls:
            return []
        name = self.http.map("$uri", [(f"~^{pcre_literal(url)}(?:/|\\z)", "1") for url in urls],
                             '""')
        return [f"# symlinks Apache does not follow (403): {', '.join(urls)}",
                f"if ({name}) {{ return 403; }}"]

    def _file_denials(self, scope: Scope) -> tuple[list[str], str | None]:
        """The ``<Files>``/``<FilesMatch>`` denials in force, as the first lines of every
        location of the scope (nginx's rewrite phase, before its rules — Apache checks
        access before its per-directory rewriting); and a regex matching every URL their
        tests can deny (None: they must run for every URL).

        Apache matches a section against the name where its walk stopped: the last path
        component when its directory exists (``-d $confmig_parent``), else an earlier,
        missing one — and also an existing file followed by PATH_INFO (``/db.sql/x``).
        Matching on the URL's last component alone would deny too much in the first case
        and too little in the second."""
        lines: list[str] = []
        names: list[tuple[str, int]] = []  # the -d tests: (map row, status)
        then_paths: dict[int, list[str]] = {}  # status → the sections' name_then_path
        candidates: list[str] = []
        none = _no_file(scope.settings)
        for files in scope.files:
            access = files.settings.access
            if access.decision == "granted":
                continue
            if access.decision in ("conditional", "by-address"):
                self._note(access.source or files.source, files.label,
                           f"access {access.why} (for a <Files>): denied (403) for everyone",
                           scope.directory, answer=403)
            status = access.status or 403
            if status == 401:
                status = self._files_login(scope, files, lines)
            try:
                regex = basename(files.basename_regex)
                then_path = name_then_path(files.basename_regex)
                candidates.append(files_candidate(files.basename_regex))
            except Untranslatable as exc:
                self._note(files.source, files.label, f"{exc}: the whole directory is denied",
                           scope.directory, answer=403)
                return [*lines, f"# untranslatable: {files.source} {files.label}: {exc}",
                        "return 403;"], None
            names.append((f"~{_with_parent(regex, 'confmig_dir')}", status))
            then_paths.setdefault(status, []).append(then_path)
            lines.append(f"# {files.source} {files.label}: {access.why or 'denied'} (when "
                         "Apache's walk stops at that name: its directory exists; or it is not "
                         "a directory and more path follows)")
        if not lines and not names:
            return [], None
        for status, bodies in then_paths.items():
            lines += self._then_path_denials("|".join(f"(?:{b})" for b in bodies), status,
                                             none)
        candidate = "|".join(f"(?:{c})" for c in dict.fromkeys(candidates))
        if then_paths:
            self.walk_denials[scope.directory] = (
                {status: "|".join(f"(?:{b})" for b in bodies)
                 for status, bodies in then_paths.items()},
                [line for line in lines if line.startswith("error_page ")], candidate)
            self.name_denials[scope.directory] = names
        return lines + self._name_denials(names, none), candidate

    def _missing_below(self, scope: Scope) -> list[str]:
        """Without a front controller (whose fallback walks the path): the lines that send
        nginx's 404 for a URL the ``<Files>`` denials can match to a named location that
        answers as Apache does where its walk stops at a missing name they match, followed
        by more path, below a directory (``/d/missing.sql/x``; the tests before it in the
        location deny such a name when it is a file or in a chain of matching directories
        from the document root).  Of the first :data:`THEN_PATH_LEVELS` names any section
        matches followed by more path, deepest first: a directory is passed by the walk
        (404: what stopped it is a name the sections do not match), a name whose parent is
        a directory is where it stopped — the status of the first section matching it.
        Only a 404 pays for it.

        The named location has the scope's ``error_page`` lines (Apache's ``ErrorDocument``
        for the status, the 404's page when it answers 404): nginx applies no error page to
        an answer of a location it reached through one unless ``recursive_error_pages`` is
        on where the first was applied — the nested location, which then also drops the
        scope's own ``error_page 404`` (this one replaces it)."""
        denials = self.walk_denials.get(scope.directory)
        if denials is None:
            return []
        bodies, error_pages, _ = denials
        names = self.name_denials[scope.directory]
        settings = scope.settings
        body = "|".join(f"(?:{b})" for b in bodies.values()) if len(bodies) > 1 \
            else next(iter(bodies.values()))
        none = _no_file(settings)
        notes = len(self.notes)
        lines = self._content_lines(scope, settings)
        del self.notes[notes:]
        lines += [line for line in error_pages if line not in lines]
        for nth in range(THEN_PATH_LEVELS, 0, -1):
            name = self.http.map("$uri", [(f"~{then_path_level(body, 'confmig_named', nth)}",
                                           '"$document_root$confmig_named"')], none)
            lines.append(f"if (-d {name}) {{ return 404; }}")
            if len(bodies) == 1:
                parent = self.http.map(name, [("~^(?<confmig_up>.*)/[^/]*\\z",
                                               "$confmig_up")], none)
                lines.append(f"if (-d {parent}) {{ return {next(iter(bodies))}; }}")
                continue
            for status in bodies:  # the sections' order: the first that matches the name
                parent = self.http.map(name, [(row, "$confmig_dir") for row, code in names
                                              if code == status], none)
                lines.append(f"if (-d {parent}) {{ return {status}; }}")
        named = f"@confmig_below{self.scope_ids[scope.directory]}"
        self.typed.append(Location(named, [
            f"{scope.directory}: nginx's 404 for a URL the <Files> denials can match: "
            "their answer where Apache's walk stops at a missing name they match"],
            [*lines, "return 404;"]))
        pages = any(line.startswith("error_page ") for line in lines)
        return ["# a missing name the <Files> denials match, below a directory: their "
                f"answer ({named})", f"error_page 404 = {named};",
                *(["# (the error_page lines there apply to its answers)", RECURSIVE]
                  if pages else [])]

    def _error_pages_once(self, scope: Scope, location: Location, missing: list[str]) -> None:
        """*location*'s own ``error_page`` lines (but *missing*'s) through a named location
        each that answers with the code and has the line: with ``recursive_error_pages``
        on in *location* (for :meth:`_missing_below`'s named location), an error page that
        answers an error itself would get that location's error page in turn, where Apache
        sends its canned answer (an ``ErrorDocument 403`` in a denied directory); from a
        named location with it off, the page is applied once, as before."""
        sid = self.scope_ids[scope.directory]
        for k, line in enumerate(location.lines):
            if not line.startswith("error_page ") or line in missing:
                continue
            code = line.split()[1]
            named = f"@confmig_page{sid}_{code}"
            self.typed.append(Location(named, [
                f"{scope.directory}: the error page for {code} of the URLs the <Files> "
                "denials can match (applied once)"], [line, f"return {code};"]))
            location.lines[k] = f"error_page {code} = {named};"

    def _then_path_denials(self, body: str, status: int, none: str) -> list[str]:
        """The tests of a name followed by more path (PATH_INFO): Apache's walk stops at the
        first component that is not a directory and matches the sections against it.  Of
        the components the sections match, followed by more path, the first
        :data:`THEN_PATH_LEVELS` are each tested as a file (only the walk's stop can be
        one: every component before it is a directory); a missing one is told from one
        below a missing directory only along a chain of such components from the document
        root (each tested as a directory once the one before it is known to be one).  A
        path with more of them whose first ones are directories is denied: nginx has no
        loop to walk on (all maps, so that every `if` here ends in `return`: an `if` that
        matches and only sets a variable would take try_files out of the location)."""
        row = '"$document_root$confmig_named"'
        lines = []
        for nth in range(1, THEN_PATH_LEVELS + 1):
            path = self.http.map("$uri", [(f"~{then_path_level(body, 'confmig_named', nth)}",
                                           row)], none)
            lines.append(f"if (-f {path}) {{ return {status}; }}")
        for nth in range(1, THEN_PATH_LEVELS + 1):
            path = self.http.map("$uri", [(f"~{then_path_chain(body, 'confmig_named', nth)}",
                                           row)], '"/"')
            lines.append(f"if (!-d {path}) {{ return {status}; }}")
        path = self.http.map("$uri", [(
            f"~{then_path_beyond(body, 'confmig_named', THEN_PATH_LEVELS)}", row)], none)
        lines += [f"# more than {THEN_PATH_LEVELS} such names followed by more path, the first "
                  "ones directories: denied (403)",
                  f"if (-d {path}) {{ return 403; }}"]
        return lines

    def _files_login(self, scope: Scope, files: FilesScope, lines: list[str]) -> int:
        """The status the section's tests answer with for its login: a code that
        ``error_page`` sends to a named location asking for it (:func:`files_login`), its
        ``error_page`` line added to *lines*; 403 (announced) where that cannot be exact."""
        key = (scope.directory, str(files.source), files.label)
        if key not in self.files_logins:
            sid = self.scope_ids[scope.directory]
            index = sum(1 for k in self.files_logins if k[0] == scope.directory)
            route = files_login(files, index, f"@confmig_login{sid}_{index}",
                                self.php is not None)
            if route.refused:
                self._note(files.settings.access.source or files.source, files.label,
                           f"a login inside {files.label} is not translated ({route.refused}):"
                           " denied (403) instead of asking for credentials (401)",
                           scope.directory, answer=403)
            else:
                named = Location(route.name, [f"{files.source} {files.label}: its login, "
                                              "where Apache's walk stops at that name"])
                named.lines, _, _ = self._settings_lines(scope, files.settings,
                                                      f"{sid}l{index}", False)
                self.typed.append(named)
            self.files_logins[key] = route
        route = self.files_logins[key]
        if route.refused:
            return 403
        lines.append(f"error_page {route.code} = {route.name};")
        return route.code

    def _name_denials(self, names: list[tuple[str, int]], none: str) -> list[str]:
        """The "its directory exists" tests of the denials: one map and one stat for all of
        them when they answer alike (every row captures the same directory — the URL up to
        its last slash — so the first matching row gives what any other would)."""
        row = '"$document_root$confmig_dir"'
        if len({status for _, status in names}) == 1:
            name = self.http.map("$uri", [(regex, row) for regex, _ in names], none)
            return [f"if (-d {name}) {{ return {names[0][1]}; }}"]
        return [f"if (-d {self.http.map('$uri', [(regex, row)], none)}) {{ return {status}; }}"
                for regex, status in names]

    def _nested_files(self, scope: Scope) -> list[FilesScope]:
        """Sections that need a location of their own: those that set more than access, and
        grants inside a denied directory."""
        denied = scope.settings.access.decision != "granted"
        return [f for f in scope.files
                if not f.only_access or (denied and f.settings.access.decision == "granted")]

    def _files_location(self, scope: Scope, files: FilesScope, sid: str,
                        denials: list[str]) -> Location:
        try:
            regex = basename(files.basename_regex)
        except Untranslatable as exc:
            self._note(files.source, files.label, f"{exc}: the whole directory is denied",
                       scope.directory, answer=403)
            return Location(f"~ {q('.')}", [f"{files.source} {files.label} (untranslatable)"],
                            ["return 403;"])
        loc = Location(f"~ {q(regex)}", [f"{files.source} {files.label}"])
        settings = files.settings
        route = self.files_logins.get((scope.directory, str(files.source), files.label))
        if route is not None and not route.refused:
            # its login is asked by the route of the denials, where Apache's walk stops at
            # the name; a name below a missing directory is not the section's
            settings = replace(settings, access=scope.settings.access)
        loc.lines, _, loc.front = self._settings_lines(scope, settings, sid + "f", True)
        skip = self._pattern_rule(settings)
        fast, _, fast_front = self._settings_lines_quietly(scope, skip[0], sid + "f", True) \
            if skip is not None else ([], None, None)
        for lines in (loc.lines, fast):
            _prepend(lines, denials)
            if scope.settings.access.decision != "granted":
                # a grant inside a denied directory: only for the name Apache's walk stops at
                status = scope.settings.access.status or 403
                parent = self.http.map("$request_filename",
                                   [("~^(?<confmig_up>.*)/[^/]*\\z", "$confmig_up")],
                                   _no_file(files.settings))
                lines[:0] = [f"if (!-d {parent}) {{ return {status}; }}"]
        if skip is not None:
            _rule_only_for(loc, fast, fast_front, skip[1])
        return loc

    def _pattern_rule(self, settings: Settings) -> tuple[Settings, str] | None:
        """*settings* without a rule that only answers (``- [F]``, ``[G]``, a status) and
        tests the file system, and that rule's pattern as a regex on ``$uri``; None when
        there is no such rule or it cannot be left out.

        Apache evaluates a rule's conditions only once its pattern matched; nginx runs every
        ``if`` of a location (a stat for every request: h5bp's hidden-file rule), so a
        location for the URLs the pattern cannot match may leave the rule out — when the
        pattern fails such a rule does nothing at all.  Only where every rule sees the URL
        the location was chosen by: each rule answers, redirects, ends the pass (nginx
        chooses a location for the new URL again) or leaves the URL alone, and none counts
        rules ([C], [S], [N]).  The regex may match more URLs than the pattern (the rule is
        then in force there, as everywhere before)."""
        rw = settings.rewrite
        if rw is None or not (settings.follow_symlinks or settings.symlinks_if_owner):
            return None
        rules = rw.rules
        if any(r.chain or r.skip or r.next or r.end or r.passthrough or r.proxy
               or r.mime_type or r.handler or not (r.nosub or r.redirect or r.last)
               for r in rules):
            return None
        for k, rule in enumerate(rules):
            if rule.nosub and rule.status_flag and not rule.negate and not rule.env \
                    and not rule.cookies and any(c.kind.startswith("-")
                                                 for c in rule.conditions):
                try:
                    regex = per_directory_candidate(rule.pattern, rw.strip, rule.nocase)
                except Untranslatable:
                    return None
                return replace(settings, rewrite=replace(rw, rules=rules[:k] + rules[k + 1:])), \
                    regex
        return None

    def _settings_lines_quietly(self, scope: Scope, settings: Settings, sid: str,
                                with_rewrite: bool) -> tuple[list[str], Any, Front | None]:
        """:meth:`_settings_lines` for a second variant of a location: what it notes (and
        any named location it adds) is the first variant's already."""
        notes, typed = len(self.notes), len(self.typed)
        out = self._settings_lines(scope, settings, sid, with_rewrite)
        del self.notes[notes:]
        del self.typed[typed:]
        return out

    def _scope_note(self, scope: Scope) -> Note:
        def note(source: Source | None, directive: str, reason: str, /, *,
                 fields: frozenset[str] | None = None, answer: int = 0) -> None:
            self._note(source, directive, reason, scope.directory, fields=fields,
                       answer=answer)
        return note

    def _note(self, source: Source | None, directive: str, reason: str, scope: str,
              changes: bool = True, fields: frozenset[str] | None = None,
              adds_only: bool = False, answer: int = 0) -> None:
        self.notes.append(EmitNote(source or Source(scope, 0), directive, reason, scope,
                                   changes, fields, adds_only, answer))

    def _access_lines(self, scope: Scope, settings: Settings,
                      source: Source | None = None) -> list[str]:
        access = settings.access
        where = access.source or source
        if access.decision == "granted":
            return []
        if access.decision == "by-address":
            geo = self.http.geo(access.networks)
            return [f"# {where}: {access.why} (before the rules, as Apache checks access "
                    "first)", f"if ({geo} = 0) {{ return {access.status}; }}"]
        if access.decision == "conditional":
            self._note(where, "Require", f"access {access.why}: not translated, denied "
                                         "(403) for everyone", scope.directory, answer=403)
            return [f"# {where}: access depends on the request ({access.why}); denied",
                    "return 403;"]
        if access.status == 401:
            login = login_lines(access.login, self.http) if access.login is not None else None
            if login is not None and not login.refused:
                if login.stricter:
                    self._note(where, "AuthUserFile", login.stricter, scope.directory,
                               answer=401)
                return login.lines
            why = login.refused if login is not None else (
                "not AuthType Basic against one AuthUserFile with Require valid-user or user")
            self._note(where, "AuthType", f"authentication is not translated ({why}): denied "
                                          "(403) instead of asking for credentials (401)",
                       scope.directory, answer=403)
            return [f"# {where}: authentication required (not translated): denied",
                    "return 403;"]
        return [f"# {where}: {access.why or 'denied'}", f"return {access.status};"]

    def _files_with(self, scope: Scope, settings: Settings) -> FilesScope | None:
        """The <Files> section of *scope* whose settings are *settings* (a table per scope:
        a scan per location made 29,000 sections quadratic)."""
        table = self._files_by_settings.get(id(scope))
        if table is None:
            table = self._files_by_settings[id(scope)] = {}
            for files in scope.files:
                table.setdefault(id(files.settings), files)
        return table.get(id(settings))

    def _settings_lines(self, scope: Scope, settings: Settings, sid: str,
                        with_rewrite: bool) -> tuple[list[str], Any, Front | None]:
        """The lines of a location with *settings* in force, the rules' translation (None:
        none) and the front controller's ending (:class:`Front`; None: none)."""
        lines = self._access_lines(scope, settings)
        if lines and lines[-1].startswith("return"):
            # Apache still answers with the error documents and headers in force here.
            return lines + self._content_lines(scope, settings), None, None
        guard, alias_lines = self._alias(scope, settings)
        rewrite_out = None
        forbidden: list[str] = []
        if with_rewrite and settings.rewrite is not None and not (
                settings.follow_symlinks or settings.symlinks_if_owner):
            forbidden = [*alias_lines, *_rewrite_forbidden(settings.rewrite)]
            lines += forbidden
            alias_lines = []
        elif with_rewrite and settings.rewrite is not None:
            rewrite_out = translate(settings.rewrite, sid, guard, self.http,
                                    _falls_back(settings))
            if guard is not None and any(r.nosub and r.last and not r.status_flag
                                         for r in settings.rewrite.rules):
                self._note(None, "Redirect", "a '- [L]' rule stops nginx's rewrite module "
                                             "before the Redirect lines: Apache still "
                                             "redirects", scope.directory,
                           fields=ANSWER_FIELDS)
            self.amp_args |= rewrite_out.uses_amp_args
            for note in rewrite_out.notes:
                self._note(note.source, note.directive, note.reason, scope.directory,
                           note.changes_behaviour, note.fields, answer=note.answer)
            lines += rewrite_out.lines
            for name, mime, _status in rewrite_out.typed:
                self.typed.append(self._typed_location(scope, settings, sid, name, mime))
        lines += alias_lines
        lines += self._content_lines(scope, settings)
        tail: list[str] = []
        front: Front | None = None
        by_hand = rewrite_out is not None and rewrite_out.soft_if
        if rewrite_out is not None and rewrite_out.try_files:
            target = rewrite_out.try_files.split()[-1].removesuffix("$is_args$args")
            tail, front = self._front_lines(scope, settings, target, by_hand)
        elif settings.fallback and with_rewrite:
            tail, front = self._fallback_lines(scope, settings, by_hand)
        lines += tail
        if any(line.startswith("auth_basic ") for line in lines) and any(
                _answers(line) for line in [*(rewrite_out.lines if rewrite_out else []),
                                            *forbidden, *alias_lines, *tail,
                                            *(front.lines() if front else [])]):
            # nginx runs its rewrite phase before its access phase (auth_basic); Apache
            # asks for the login before its per-directory rules and redirects
            self._note(settings.access.source, "AuthType", "rules or redirects here would "
                       "answer before nginx asks for the login: denied (403) instead of "
                       "asking for credentials (401)", scope.directory, answer=403)
            return ["# login before rules (not translated): denied", "return 403;",
                    *self._content_lines(scope, settings)], None, None
        return lines, rewrite_out, front

    def _typed_location(self, scope: Scope, settings: Settings, sid: str, name: str,
                        mime: str) -> Location:
        """The named location that serves a file with a RewriteRule's [T] type: the
        scope's settings without its rules (they ran) and with that type only."""
        lines, _, _ = self._settings_lines(scope, settings, sid, False)
        kept: list[str] = []
        block = False
        for line in lines:  # the scope's own types { } / default_type give way to [T]
            block = block or line.startswith("types {")
            if not block and not line.startswith("default_type "):
                kept.append(line)
            block = block and not line.endswith("}")
        return Location(name, [f"{scope.directory}: the type of a RewriteRule [T={mime}]"],
                        ["types { }", f"default_type {q(mime)};", *kept])

    def _fallback_lines(self, scope: Scope, settings: Settings, by_hand: bool = False
                        ) -> tuple[list[str], Front | None]:
        target = settings.fallback or ""
        if target.lower() == "disabled":
            return [], None
        if not target.startswith("/"):
            self._note(None, "FallbackResource", f"relative target {target}: not translated",
                       scope.directory, fields=ANSWER_FIELDS)
            return [], None
        comment, front = self._front_lines(scope, settings, target, by_hand)
        lines = ["# FallbackResource: what is neither a file nor a directory",
                 *(self.php.fallback_lines(target) if self.php is not None else ()),
                 *comment]
        if self.php is not None:
            # a script: Apache's handler takes the name where the walk reaches it, missing
            # or not (mod_dir falls back only without a handler): php-fpm answers for it
            route, _walk = self._front_route(scope, settings, target)
            denials = self.walk_denials.get(scope.directory)
            known, levels = self._walk_levels(scope)
            # (a level past the script's directory: the document root, a directory)
            self.php.script_walks[route] = [
                "# FallbackResource: the script's handler runs where Apache's walk reaches its "
                "name (php-fpm's", "# 404 for a missing one); before it, the walk of a "
                "missing name",
                *self._front_walk(target, '"$document_root"',
                                  denials[0] if denials else None, known, levels,
                                  "$fastcgi_script_name")]
        return lines, front

    def _front_lines(self, scope: Scope, settings: Settings, target: str,
                     by_hand: bool = False) -> tuple[list[str], Front]:
        """A comment, and ``try_files $uri $uri/ $ROUTE`` for a front controller's
        *target* (:class:`Front`).  *by_hand* (``RewriteOut.soft_if``): an ``if`` before it
        can match without ending the rewrite phase (the rules' ``set`` lines) — nginx then
        makes that ``if`` block the request's configuration, which has no ``try_files`` (a
        missing file would be the static module's 404), so the same is done first in the
        rewrite phase, where every line ends it: an existing file or directory is served
        as it is (``break``), anything else walks as :meth:`_front_walk` does, which for a
        path of one component is the target at once."""
        route, walk = self._front_route(scope, settings, target)
        lines = [f"# neither a file nor a directory: {target}$is_args$args ({route}), after "
                 f"Apache's walk of a longer path ({walk})"]
        hand: list[str] = []
        if by_hand:
            denials = self.walk_denials.get(scope.directory)
            known, levels = self._walk_levels(scope)
            hand = [FRONT_BY_HAND,
                    "# (an `if` above that matches makes its block the request's "
                    "configuration, which has no try_files)",
                    "if (-e $request_filename) { break; }",
                    *self._front_walk(target, _no_file(settings),
                                      denials[0] if denials else None, known, levels)]
        return lines, Front(f"try_files $uri $uri/ {route};", tuple(hand))

    def _front_route(self, scope: Scope, settings: Settings, target: str
                     ) -> tuple[str, str]:
        """The last ``try_files`` argument of a front controller (a rule's or
        FallbackResource's *target*): a map on ``$uri`` — the target itself for a URL with
        one component, else a named location that walks the path as Apache's directory walk
        does (:meth:`_front_walk`), with the ``<Files>`` denials' tests for a URL they can
        deny.  Only what nginx finds neither as a file nor as a directory pays for it.
        Returns the map's variable and the named location's name."""
        denials = self.walk_denials.get(scope.directory)
        known, levels = self._walk_levels(scope)
        notes = len(self.notes)
        content = self._content_lines(scope, settings)
        del self.notes[notes:]
        key = (target, scope.directory, tuple(content))
        if key not in self.front_routes:
            number = len(self.front_routes) + 1
            name = f"@confmig_fc{number}"
            none = _no_file(settings)
            self.typed.append(Location(name, [
                f"{scope.directory}: the front controller ({target}) for a path nginx finds "
                "neither as a file nor as a directory"],
                [*content, *self._front_walk(target, none, None, known, levels)]))
            rows = [(f"~^{path_prefix_text(scope.url if known else '/')}[^/]*\\z",
                     q(f"{target}$is_args$args"))]
            default = name
            if denials is not None:
                bodies, error_pages, candidate = denials
                self.typed.append(Location(f"{name}d", [
                    f"{scope.directory}: the same for a path with a name the <Files> denials "
                    "can match"],
                    [*content, *error_pages,
                     *self._front_walk(target, none, bodies, known, levels)]))
                rows.append((f"~{candidate}", f"{name}d"))
            self.front_routes[key] = (self.http.map("$uri", rows, default), name)
        return self.front_routes[key]

    def _walk_levels(self, scope: Scope) -> tuple[int, int]:
        """Where the front controller's walk starts and how deep it goes: the components of
        the scope's own directory are directories (when it is one), and the walk goes one
        level past the deepest directory below it (at least :data:`FRONT_LEVELS`)."""
        root = self.plan.document_root.rstrip("/")
        if self.tree_depths is None:
            self.tree_depths = {}
            for directory, subdirs, _files in os.walk(root or "/"):
                self.tree_depths[directory] = directory[len(root):].count("/")
                subdirs.sort()
        directory = scope.directory.rstrip("/")
        if directory not in self.tree_depths:
            return 0, FRONT_LEVELS
        known = self.tree_depths[directory]
        deepest = max(depth for path, depth in self.tree_depths.items()
                      if path == directory or path.startswith(directory + "/"))
        return known, max(FRONT_LEVELS, deepest - known + 1)

    def _front_walk(self, target: str, none: str, bodies: dict[int, str] | None,
                    known: int, levels: int, script: str | None = None) -> list[str]:
        """Apache's answer for a path that is neither a file nor a directory, one component
        at a time: its walk stops at the first that is not a directory — a regular file
        followed by more path is the default handler's 404 (neither a rule's ``!-f`` nor
        FallbackResource takes it), a missing one goes to the front controller, unless a
        ``<Files>`` denial (*bodies*: status → :func:`name_then_path` bodies) matches it:
        403.  The other ``<Files>`` tests ran before (a file the denials match is refused
        there).  Every ``if`` ends in ``return`` or ``rewrite … last``, so none leaves its
        block as the request's configuration; a level past the path's last directory names
        nothing (*none*: ``!-e`` true).  One stat for a missing component, two for a
        directory or a file.  The first *known* components are the scope's directory; then
        *levels* more: a path whose components are directories that far and that goes
        deeper is denied (403: deeper than any directory of the tree when converted).
        With *script* (a variable: the script's name) the walk goes through the script's
        directory only, and what gets through it is the script's (no last ``rewrite``)."""
        row = '"$document_root$confmig_named"'
        go = f"rewrite ^ {q(target)} last;"
        source = script or "$uri"
        lines = ["# Apache's walk stops at the first component that is not a directory: a "
                 "file followed by", "# more path is the default handler's 404, a missing "
                 "one the front controller's"
                 + (" (unless a <Files> denial matches it)" if bodies else "")]
        for k in range(known + 1, known + levels + 1):
            here = self.http.map(source, [(f"~{path_prefix(k, 'confmig_named')}", row)],
                                 none)
            for status, body in (bodies or {}).items():
                # not a denied name: the document root, a directory (false, one stat)
                denied = self.http.map(source, [(
                    f"~{path_prefix_named(body, k, 'confmig_named')}", row)],
                    '"$document_root"')
                lines.append(f"if (!-d {denied}) {{ return {status}; }}")
            lines += [f"if (!-e {here}) {{ {go} }}", f"if (!-d {here}) {{ return 404; }}"]
        lines += [f"# more than {known + levels} directories, then more path: denied (403)",
                  f'if ({source} ~ "^(?:/[^/]*){{{known + levels + 1}}}/") {{ return 403; }}']
        return lines if script else [*lines, go]

    def _alias(self, scope: Scope, settings: Settings) -> tuple[AliasGuard | None, list[str]]:
        """mod_alias's per-directory ``Redirect*`` as two maps on ``$uri`` (the status and
        the Location of the first that matches, in Apache's order), and the lines that
        answer with them.  mod_alias runs after mod_rewrite: an ``[R]``/``[F]`` rule wins
        over a Redirect, an internal rewrite loses to one (the rules ask the guard)."""
        statuses: list[tuple[str, str]] = []
        targets: list[tuple[str, str]] = []
        comments: list[str] = []
        for redirect in settings.redirects:
            comments.append(f"# {redirect.source} "
                            f"{'RedirectMatch' if redirect.regex else 'Redirect'} "
                            f"{redirect.status} {redirect.pattern} "
                            f"{redirect.target or ''}".rstrip())
            try:
                if redirect.regex:
                    regex = url_path(redirect.pattern)
                else:
                    regex = "^" + pcre_literal(redirect.pattern.rstrip("/")) + (
                        "(/.*)?\\z" if not redirect.pattern.endswith("/") else "/(.*)\\z")
            except Untranslatable as exc:
                self._note(redirect.source, "RedirectMatch", f"{exc}: denied",
                           scope.directory, answer=403)
                return None, [*comments, "return 403;"]
            target = redirect.target or ""
            if target:
                if not redirect.regex:
                    target += "$1" if not redirect.pattern.endswith("/") else "/$1"
                if not target.startswith(("http://", "https://")):
                    target = "${scheme}://${http_host}" + target
                if "?" not in (redirect.target or ""):
                    target += "$is_args$args"
            statuses.append((f"~{regex}", str(redirect.status)))
            targets.append((f"~{regex}", q(target)))
        if not statuses:
            return None, []
        guard = AliasGuard(self.http.map("$uri", statuses, '""'),
                           self.http.map("$uri", targets, '""'),
                           sorted({code for _, code in statuses}))
        return guard, [*comments, *guard.answer("")]


    def _content_lines(self, scope: Scope, settings: Settings) -> list[str]:
        lines: list[str] = []
        src = f"{settings.index_source}: " if settings.index_source else ""
        fallback = settings.fallback if settings.fallback and settings.fallback.startswith(
            "/") else None
        last = [q(fallback)] if fallback else []
        if not fallback and _directory_404(settings):
            last = [q(scope.url + DIRECTORY_404)]
            lines.append(f"# SetHandler {settings.handler}: a directory without an index file "
                         "is the default handler's 404 (mod_autoindex declines it)")
        if settings.index and settings.index != ("disabled",):
            index = list(settings.index)
            if fallback:
                index, reached = index_before_fallback(index, settings, self.php is not None)
                last = last if reached else []
            names = [q(n) if " " in n else n for n in index]
            lines.append(f"# {src}DirectoryIndex {' '.join(settings.index)}"
                         + (" (FallbackResource answers mod_dir's sub-request for a missing "
                            f"{index[-1]})" if last else ""))
            lines.append(f"index {' '.join([*names, *last])};")
        else:
            # (no sub-request: FallbackResource does not answer for the directory either)
            lines += [f"# {src}DirectoryIndex disabled: no index file (a name no file has)",
                      f"index {' '.join(['.confmig-no-directory-index', *last])};"
                      if not fallback else "index .confmig-no-directory-index;"]
        lines.append(f"autoindex {'on' if settings.indexes else 'off'};")
        if settings.follow_symlinks:
            pass
        elif settings.symlinks_if_owner:
            lines += ["# Options SymLinksIfOwnerMatch: a link only to a file of its own owner",
                      "disable_symlinks if_not_owner;"]
        else:
            lines.append("disable_symlinks on;")
        if not settings.slash:
            self._note(None, "DirectorySlash", "DirectorySlash Off: nginx still redirects a "
                                               "directory to its slash", scope.directory,
                       answer=301)
        if settings.multiviews:
            self._note(None, "Options", "MultiViews: content negotiation is not translated",
                       scope.directory, fields=MULTIVIEWS_FIELDS)
        for code, target, source in settings.error_documents:
            kind = error_document_kind(target)
            if kind == "text":
                self._note(source, "ErrorDocument", "a message text: not translated",
                           scope.directory, fields=frozenset({"body", "content-type"}))
                continue
            lines.append(f"error_page {code} {q(target)};  # {source}")
        if settings.force_type:
            lines += ["# ForceType", "types { }", f"default_type {settings.force_type};"]
        else:
            typed = dict(settings.types)
            typed.update(self.types.charset_entries(settings))
            if any(self.types.server_type(ext) != mime for ext, mime in typed.items()):
                what = "AddType" if settings.types else ""
                if settings.charset_types:
                    what += (" + " if what else "") + "AddCharset (the charset in the type)"
                lines += [f"# {what} (nginx's types {{ }} replaces the inherited map: all of "
                          "it again)", *self.types.block(sorted(typed.items()))]
        files = self._files_with(scope, settings)
        for directive, reason in handler_notes(settings, self.php is not None, files,
                                               scope.directory):
            own = files is not None and files.sets_handler and directive == "SetHandler"
            source = files.source if own else handler_source(self.plan, scope.directory,
                                                             directive)
            self._note(source, directive, reason, scope.directory, fields=ANSWER_FIELDS)
        if settings.default_charset:
            self.uses_charset = True
            lines.append(f"charset {settings.default_charset};")
        lines += self._gzip_lines(scope, settings)
        lines += expires_lines(settings, self.http, self._scope_note(scope),
                               self.types.sent_types(settings))
        lines += header_lines(settings, self.http, self._scope_note(scope))
        if self.php is not None:
            lines += _hidden_script_headers(settings)
        return lines

    def _gzip_lines(self, scope: Scope, settings: Settings) -> list[str]:
        """``AddOutputFilterByType DEFLATE`` as ``gzip``: the same types (nginx matches a
        type given with parameters — AddCharset's, AddType's — only whole, so those are
        listed too), above 68 bytes (mod_deflate leaves a smaller answer alone), for
        HTTP/1.0 and proxied requests too; ``Vary: Accept-Encoding`` as mod_deflate adds
        it.  nginx also compresses a 403 and a 404 (mod_filter: only a 200): announced."""
        types = list(settings.deflate_types)
        if not types:
            return []
        given = [*(t for _, t in settings.types), *(t for _, t in settings.charset_types)]
        whole = sorted({t for t in given if ";" in t
                        and t.split(";", 1)[0].strip().lower() in types})
        listed = [q(t) if " " in t or ";" in t else t
                  for t in [*types, *whole] if t != "text/html"]
        def note(reason: str) -> None:
            self._note(settings.deflate_source, "AddOutputFilterByType", reason,
                       scope.directory, fields=GZIP_FIELDS, adds_only=True)
        note("nginx also compresses its 403 and 404 answers and sends Vary: Accept-Encoding "
             "with them (Apache only with a 200)")
        if "text/html" not in types:
            note("nginx always compresses text/html too")
        return [f"# {settings.deflate_source}: AddOutputFilterByType DEFLATE (mod_deflate: "
                "a 200 of more than 68 bytes, HTTP/1.0 and proxied requests too)",
                "gzip on;", f"gzip_types {' '.join(listed) or 'text/html'};",
                "gzip_min_length 69;", "gzip_http_version 1.0;", "gzip_proxied any;",
                "gzip_vary on;"]


def _hidden_script_headers(settings: Settings) -> list[str]:
    """With ``--php-fpm``: what an unconditional ``Header always unset NAME`` takes out of
    a script's answer (h5bp's ``X-Powered-By``).  Apache keeps a script's headers in the
    table ``always`` works on: a plain ``Header unset`` leaves them (checked on Apache with
    mod_proxy_fcgi, tests/nginx/test_script_headers.py); a later ``Header set`` of the name
    still adds its own value."""
    names = sorted({h.entry.name for h in settings.headers
                    if h.entry.action == "unset" and h.entry.always
                    and not (h.entry.env or h.entry.expr)
                    and h.entry.name.lower() not in NATIVE_HEADERS})
    return [f"fastcgi_hide_header {q(name)};  # Header always unset {name}"
            for name in names]


def _authorization_scopes(plan: SitePlan, scope_ids: dict[str, str]) -> set[str]:
    """The scopes where ``SetEnvIf Authorization "(.+)" HTTP_AUTHORIZATION=$1`` (the plan's
    note that it only hands the header to scripts) is in force: Apache gives a script
    HTTP_AUTHORIZATION there when the header is sent."""
    roots = [n.scope.rstrip("/") for n in plan.notes if not n.changes_behaviour
             and n.directive.lower() in ("setenvif", "setenvifnocase")]
    return {sid for directory, sid in scope_ids.items()
            if any(directory == r or directory.startswith(r + "/") for r in roots)}


def _directory_404(settings: Settings) -> bool:
    """A directory without an index file is Apache's 404, not a listing or a 403: the
    handler in force is the default handler, which mod_autoindex does not take (the
    model's :func:`~confmig.model.handler.autoindex_handles`)."""
    return (settings.handler == "default-handler" or settings.handler_unknown) \
        and not autoindex_handles(settings.handler)


def _answers(line: str) -> bool:
    """A directive of nginx's rewrite phase that answers or moves the request."""
    return not line.lstrip().startswith("#") and re.search(
        r"(?:^|[{;]\s*)(?:return|rewrite)\s", line) is not None


def _falls_back(settings: Settings) -> bool:
    """Does a FallbackResource follow the rules (:meth:`_fallback_lines` writes one)?"""
    target = settings.fallback or ""
    return target.startswith("/")


def _no_file(settings: Settings) -> str:
    """The value of a file-test variable when its map matched nothing: "" where nginx follows
    symlinks (stat("") fails at once), else a path that cannot exist — with
    ``disable_symlinks`` nginx opens an empty name as "." (its working directory), so
    ``-d ""`` would be true."""
    return '""' if settings.follow_symlinks else NO_FILE


def _rewrite_forbidden(plan: RewritePlan) -> list[str]:
    """mod_rewrite's answer where Options has neither FollowSymLinks nor
    SymLinksIfOwnerMatch: 403 for every request its per-directory rules would see (not the
    directory itself without its slash: mod_rewrite declines it, mod_dir redirects)."""
    where = f"{plan.source}: " if plan.source else ""
    lines = [f"# {where}RewriteEngine On with neither FollowSymLinks nor "
             "SymLinksIfOwnerMatch: mod_rewrite forbids every request (403)"]
    itself = plan.strip.rstrip("/")
    if itself:
        return [*lines, f"if ($uri != {q(itself)}) {{ return 403; }}"]
    return [*lines, "return 403;"]


def _with_parent(regex: str, name: str) -> str:
    """A last-component regex (``(?s)/…``) that also captures the path before it."""
    return f"(?s)^(?<{name}>.*)" + regex[len("(?s)"):]


def _rule_only_for(location: Location, fast: list[str], fast_front: Front | None,
                   regex: str) -> None:
    """*location* with *fast* and *fast_front* (its lines without the rule of
    :meth:`Renderer._pattern_rule`), and a nested location with its lines as they were for
    the URLs the rule's pattern (*regex*) can match; after the ``<Files>`` locations, which
    have their own."""
    location.nested.append(Location(
        f"~ {q(regex)}", ["a URL the rule that tests the file system can match: all of the "
                          "rules, then the same as around"], list(location.lines),
        front=location.front))
    location.lines[:] = fast
    location.front = fast_front


def _tests_only_for(location: Location, tests: list[str], candidate: str,
                    missing: list[str]) -> None:
    """Move the *tests* of the ``<Files>`` denials out of *location* into a nested location
    for the URLs they can deny (*candidate*), with everything else of *location* too: nginx
    runs every ``if`` of a location — a map's regex and a stat for every request — and
    these maps' regexes try each position of the URL with lazy repeats (without PCRE JIT:
    microseconds), where the candidate regex lets PCRE2 skip to where the pattern can
    start.  The nested location comes after the ``<Files>`` locations (only the first
    matching regex location is used; each of those has its own)."""
    start = next((i for i in range(len(location.lines) - len(tests) + 1)
                  if location.lines[i:i + len(tests)] == tests), None)
    if start is None or not tests:
        return
    full = list(location.lines)
    del location.lines[start:start + len(tests)]
    if location.front is None and missing:  # (a front controller's fallback walks the path)
        full[start + len(tests):start + len(tests)] = missing
        full = [line for line in full  # (missing's error_page 404 replaces the scope's)
                if line in missing or not line.startswith("error_page 404 ")]
    location.nested.append(Location(
        f"~ {q(candidate)}", ["a name the <Files> denials can match: their tests, then the "
                              "same as around"], full, front=location.front))


def _prepend(lines: list[str], denials: list[str]) -> None:
    """Put *denials* first, unless the location answers with an error anyway."""
    if denials:  # first even where the location then denies: Apache's <Files> 403 comes
        lines[:0] = denials  # before a 401 or a 500 of the directory's own access rules




def render_plan(plan: SitePlan, options: NginxOptions | None = None) -> NginxOutput:
    """The nginx configuration for *plan*."""
    return Renderer(plan, options or NginxOptions()).render()
