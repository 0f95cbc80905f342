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
  its access phase, Apache checks access before its per-directory rewriting.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

import jinja2

from confmig.convert.nginx.regex import Untranslatable, basename, file_then_path, url_path
from confmig.convert.nginx.rewrite import VARIABLE_MAPS, AliasGuard, q, translate
from confmig.model.merge import error_document_kind
from confmig.model.plan import FilesScope, Scope, Settings, SitePlan, Source

NGINX_MIME_TYPES = "/etc/nginx/mime.types"
MAX_TREE_FILES = 5000
#: Response headers the servers make themselves: a ``Header unset`` of one has no
#: ``add_header`` form.
NATIVE_HEADERS = frozenset({"etag", "last-modified", "accept-ranges", "content-type",
                            "content-length", "server", "date", "cache-control", "expires",
                            "location", "vary"})


@dataclass
class NginxOptions:
    listen: str = "127.0.0.1:8080"
    server_name: str | None = None
    mime_types: str = NGINX_MIME_TYPES
    #: Prefix of the numbered map variables (servers sharing one http { } need their own).
    map_prefix: str = "confmig_map"


@dataclass
class EmitNote:
    """A construct the output does not reproduce faithfully (or, without
    ``changes_behaviour``, something worth knowing)."""

    source: Source
    directive: str
    reason: str
    scope: str
    changes_behaviour: bool = True


@dataclass
class Location:
    match: str
    comments: list[str] = field(default_factory=list)
    lines: list[str] = field(default_factory=list)
    nested: list[Location] = field(default_factory=list)


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
    return jinja2.Environment(
        loader=jinja2.PackageLoader("confmig.convert.nginx", "templates"),
        undefined=jinja2.StrictUndefined, autoescape=False, trim_blocks=True,
        lstrip_blocks=True, keep_trailing_newline=True)


def _render(template: str, **context: Any) -> str:
    return _environment().get_template(template).render(**context)


def read_nginx_types(path: str) -> dict[str, str]:
    """nginx's ``mime.types``: extension → type (empty when the file is absent)."""
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return {}
    out: dict[str, str] = {}
    inside = text.split("{", 1)[-1].rsplit("}", 1)[0]
    for statement in inside.split(";"):
        words = statement.split()
        for ext in words[1:]:
            out[ext.lower()] = words[0]
    return out


class Renderer:
    """One plan → one nginx server (collects the ``map`` blocks and the notes)."""

    def __init__(self, plan: SitePlan, options: NginxOptions) -> None:
        self.plan = plan
        self.options = options
        self.notes: list[EmitNote] = []
        self.maps: dict[tuple[str, ...], str] = {}
        self.map_blocks: list[str] = []
        self.amp_args = False
        self.uses_charset = False
        self.nginx_types = read_nginx_types(options.mime_types)
        self.tree_exts: set[str] = set()  # the last extensions of the site's files
        self.type_overrides = self._type_overrides()
        self.scope_ids = {s.directory: str(i) for i, s in enumerate(plan.scopes)}

    # -- whole server ---------------------------------------------------------------------

    def render(self) -> NginxOutput:
        for note in self.plan.notes:
            self.notes.append(EmitNote(note.source, note.directive, note.reason, note.scope,
                                       note.changes_behaviour))
        locations = []
        for scope in sorted(self.plan.scopes, key=lambda s: s.url):
            locations.extend(self._scope_locations(scope))
        server_lines = self._server_lines()
        body = _render("body.conf.j2", server_lines=server_lines, locations=locations)
        http_lines = list(self.map_blocks)
        for name, block in VARIABLE_MAPS.items():
            if "$" + name in body:
                http_lines[:0] = block
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
        alone = _render("site.conf.j2", header=[], http_lines=[], **server)
        return NginxOutput(text, http, body, self.notes, alone.lstrip("\n"))

    def _server_lines(self) -> list[str]:
        lines = [
            "# Apache refuses an encoded slash or NUL in the path (AllowEncodedSlashes Off):",
            "# 404 before any location is chosen (nginx would decode them and match on).",
            'if ($request_uri ~ "^[^?]*%(?:2[fF]|00)") { return 404; }',
            "",
            *(["# Content types: nginx's mime.types, with Apache's TypesConfig where it "
               "differs for", "# the files of the site (" + ", ".join(
                   f".{e}" for e in sorted(self.type_overrides)) + ")",
               *self._types_block([])] if self.type_overrides else []),
            '# Apache sends no Content-Type for a file of unknown type.',
            'default_type "";',
        ]
        if self.uses_charset:
            lines += ["# AddDefaultCharset: Apache adds the charset to text/plain and "
                      "text/html only", "# (nginx always includes text/html).",
                      "charset_types text/plain;"]
        return lines

    def _types_block(self, extra: list[tuple[str, str]]) -> list[str]:
        """A complete ``types { }``: nginx's mime.types with Apache's differences and
        *extra* (AddType) applied — a ``types`` block replaces the inherited map, and
        mime.types cannot be included inside one (it is a ``types`` block itself)."""
        entries = dict(self.nginx_types)
        entries.update(self.type_overrides)
        for ext, mime in extra:
            entries[ext.lower().lstrip(".")] = mime
        by_type: dict[str, list[str]] = {}
        for ext, mime in sorted(entries.items()):
            by_type.setdefault(mime, []).append(ext)
        lines = ["types {"]
        for mime in sorted(by_type):
            lines.append(f"    {mime} {' '.join(by_type[mime])};")
        lines.append("}")
        return lines

    def _server_type(self, ext: str) -> str | None:
        """The type the server level gives extension *ext*."""
        ext = ext.lower().lstrip(".")
        return self.type_overrides.get(ext, self.nginx_types.get(ext))

    def _type_overrides(self) -> dict[str, str]:
        """Extensions of the site's files whose type differs between Apache's TypesConfig
        and nginx's mime.types (only the last extension counts for nginx)."""
        nginx_types = self.nginx_types
        apache = self.plan.types_config
        out: dict[str, str] = {}
        count = 0
        for current, dirs, files in os.walk(self.plan.document_root):
            dirs.sort()
            for name in sorted(files):
                count += 1
                if count > MAX_TREE_FILES:
                    return out
                if "." not in name.lstrip("."):
                    continue
                ext = name.rsplit(".", 1)[1].lower()
                self.tree_exts.add(ext)
                wanted = apache.get(ext)
                if wanted is None:
                    if ext in nginx_types:
                        self.notes.append(EmitNote(
                            Source(os.path.join(current, name), 0), "TypesConfig",
                            f"Apache knows no type for .{ext}; nginx sends "
                            f"{nginx_types[ext]}", current))
                    continue
                if nginx_types.get(ext) != wanted:
                    out[ext] = wanted
        return out

    # -- one scope ------------------------------------------------------------------------

    def _scope_locations(self, scope: Scope) -> list[Location]:
        """The scope's locations, with every note made while building them as a comment
        at the top of its main location (the place the construct would go)."""
        before = len(self.notes)
        out = self._build_scope_locations(scope)
        main = out[-1]
        seen: set[str] = set()
        notes = [n for n in self.plan.notes if n.scope == scope.directory]
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
        denials = self._file_denials(scope)
        main.lines, rewrite_out = self._settings_lines(scope, scope.settings, sid, True)
        _prepend(main.lines, denials)
        for files in self._nested_files(scope):
            main.nested.append(self._files_location(scope, files, sid, denials))
        if rewrite_out is not None:
            for url in rewrite_out.exact_static:
                plain = Location(f"= {q(url)}", ["served as it is (a rule stops the rules)"])
                plain.lines, _ = self._settings_lines(scope, scope.settings, sid, False)
                _prepend(plain.lines, denials)
                main.nested.append(plain)
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
            bare.lines, _ = self._settings_lines(scope, scope.settings, sid + "s", rules)
            _prepend(bare.lines, denials)
            out.insert(0, bare)
        return out

    def _file_denials(self, scope: Scope) -> list[str]:
        """The ``<Files>``/``<FilesMatch>`` denials in force, as the first lines of every
        location of the scope (nginx's rewrite phase, before its rules — Apache checks
        access before its per-directory rewriting).

        Apache matches a section against the name where its walk stopped: the last path
        component when its directory exists (``-d $confmig_parent``), else an earlier,
        missing one — and also an existing file followed by PATH_INFO (``/db.sql/x``).
        Matching on the URL's last component alone would deny too much in the first case
        and too little in the second."""
        lines: list[str] = []
        for files in scope.files:
            access = files.settings.access
            if access.decision == "granted":
                continue
            if access.decision in ("conditional", "by-address"):
                self._note(access.source or files.source, files.label,
                           f"access {access.why} (for a <Files>): denied (403) for everyone",
                           scope.directory)
            status = access.status or 403
            try:
                regex = basename(files.basename_regex)
                then_path = file_then_path(files.basename_regex, "confmig_named")
            except Untranslatable as exc:
                self._note(files.source, files.label, f"{exc}: the whole directory is denied",
                           scope.directory)
                return [*lines, f"# untranslatable: {files.source} {files.label}: {exc}",
                        "return 403;"]
            # maps (http { }), so that every `if` here ends in `return`: an `if` that
            # matches and only sets a variable would take try_files out of the location
            name = self._map("$uri", [(f"~{_with_parent(regex, 'confmig_dir')}",
                                       '"$document_root$confmig_dir"')], '""')
            path_info = self._map("$uri", [(f"~{then_path}", '"$document_root$confmig_named"')],
                                  '""')
            lines += [f"# {files.source} {files.label}: {access.why or 'denied'} (when Apache's "
                      "walk stops at that name: its directory exists; or it is a file followed "
                      "by PATH_INFO)",
                      f"if (-d {name}) {{ return {status}; }}",
                      f"if (-f {path_info}) {{ return {status}; }}"]
        return lines

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
                       scope.directory)
            return Location(f"~ {q('.')}", [f"{files.source} {files.label} (untranslatable)"],
                            ["return 403;"])
        loc = Location(f"~ {q(regex)}", [f"{files.source} {files.label}"])
        loc.lines, _ = self._settings_lines(scope, files.settings, sid + "f", True)
        _prepend(loc.lines, denials)
        if scope.settings.access.decision != "granted":
            # a grant inside a denied directory: only for the name Apache's walk stops at
            status = scope.settings.access.status or 403
            parent = self._map("$request_filename",
                               [("~^(?<confmig_up>.*)/[^/]*\\z", "$confmig_up")], '""')
            loc.lines[:0] = [f"if (!-d {parent}) {{ return {status}; }}"]
        return loc

    def _note(self, source: Source | None, directive: str, reason: str, scope: str,
              changes: bool = True) -> None:
        self.notes.append(EmitNote(source or Source(scope, 0), directive, reason, scope,
                                   changes))

    def _access_lines(self, scope: Scope, settings: Settings,
                      source: Source | None = None) -> list[str]:
        access = settings.access
        where = access.source or source
        if access.decision == "granted":
            return []
        if access.decision == "by-address":
            geo = self._geo(access.networks)
            return [f"# {where}: {access.why} (before the rules, as Apache checks access "
                    "first)", f"if ({geo} = 0) {{ return {access.status}; }}"]
        if access.decision == "conditional":
            self._note(where, "Require", f"access {access.why}: not translated, denied "
                                         "(403) for everyone", scope.directory)
            return [f"# {where}: access depends on the request ({access.why}); denied",
                    "return 403;"]
        if access.status == 401:
            self._note(where, "AuthType", "authentication is not translated: denied (403) "
                                          "instead of asking for credentials (401)",
                       scope.directory)
            return [f"# {where}: authentication required (not translated): denied",
                    "return 403;"]
        return [f"# {where}: {access.why or 'denied'}", f"return {access.status};"]

    def _settings_lines(self, scope: Scope, settings: Settings, sid: str,
                        with_rewrite: bool) -> tuple[list[str], Any]:
        lines = self._access_lines(scope, settings)
        if lines and lines[-1].startswith("return"):
            # Apache still answers with the error documents and headers in force here.
            return lines + self._content_lines(scope, settings), None
        guard, alias_lines = self._alias(scope, settings)
        rewrite_out = None
        if with_rewrite and settings.rewrite is not None:
            rewrite_out = translate(settings.rewrite, sid, guard)
            if guard is not None and any(r.nosub and r.last and not r.status_flag
                                         for r in settings.rewrite.rules):
                self._note(None, "Redirect", "a '- [L]' rule stops nginx's rewrite module "
                                             "before the Redirect lines: Apache still "
                                             "redirects", scope.directory)
            self.amp_args |= rewrite_out.uses_amp_args
            for note in rewrite_out.notes:
                self._note(note.source, note.directive, note.reason, scope.directory,
                           note.changes_behaviour)
            lines += rewrite_out.lines
        lines += alias_lines
        lines += self._content_lines(scope, settings)
        if rewrite_out is not None and rewrite_out.try_files:
            lines.append(f"try_files {rewrite_out.try_files};")
        elif settings.fallback and with_rewrite:
            lines += self._fallback_lines(scope, settings)
        return lines, rewrite_out

    def _fallback_lines(self, scope: Scope, settings: Settings) -> list[str]:
        target = settings.fallback or ""
        if target.lower() == "disabled":
            return []
        if not target.startswith("/"):
            self._note(None, "FallbackResource", f"relative target {target}: not translated",
                       scope.directory)
            return []
        return ["# FallbackResource: what is neither a file nor a directory",
                f"if (!-e $request_filename) {{ rewrite ^ {q(target)} last; }}"]

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
                    regex = "^" + _escape(redirect.pattern.rstrip("/")) + (
                        "(/.*)?\\z" if not redirect.pattern.endswith("/") else "/(.*)\\z")
            except Untranslatable as exc:
                self._note(redirect.source, "RedirectMatch", f"{exc}: denied",
                           scope.directory)
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
        guard = AliasGuard(self._map("$uri", statuses, '""'), self._map("$uri", targets, '""'),
                           sorted({code for _, code in statuses}))
        return guard, [*comments, *guard.answer("")]


    def _content_lines(self, scope: Scope, settings: Settings) -> list[str]:
        lines: list[str] = []
        src = f"{settings.index_source}: " if settings.index_source else ""
        fallback = settings.fallback if settings.fallback and settings.fallback.startswith(
            "/") else None
        if settings.index and settings.index != ("disabled",):
            names = [q(n) if " " in n else n for n in settings.index]
            lines.append(f"# {src}DirectoryIndex {' '.join(settings.index)}"
                         + (" (then FallbackResource for a directory without one)"
                            if fallback else ""))
            lines.append(f"index {' '.join([*names, *([q(fallback)] if fallback else [])])};")
        else:
            lines += [f"# {src}DirectoryIndex disabled: no index file (a name no file has)",
                      "index .confmig-no-directory-index;"]
        lines.append(f"autoindex {'on' if settings.indexes else 'off'};")
        if not settings.follow_symlinks:
            lines.append("disable_symlinks on;")
        if not settings.slash:
            self._note(None, "DirectorySlash", "DirectorySlash Off: nginx still redirects a "
                                               "directory to its slash", scope.directory)
        if settings.multiviews:
            self._note(None, "Options", "MultiViews: content negotiation is not translated",
                       scope.directory)
        for code, target, source in settings.error_documents:
            kind = error_document_kind(target)
            if kind == "text":
                self._note(source, "ErrorDocument", "a message text: not translated",
                           scope.directory)
                continue
            lines.append(f"error_page {code} {q(target)};  # {source}")
        if settings.force_type:
            lines += ["# ForceType", "types { }", f"default_type {settings.force_type};"]
        elif any(self._server_type(ext) != mime for ext, mime in settings.types):
            lines += ["# AddType (nginx's types { } replaces the inherited map: all of it "
                      "again)", *self._types_block(list(settings.types))]
        charset_lines = self._charset_lines(scope, settings)
        for ext, handler in settings.handlers:
            self._note(None, "AddHandler", f".{ext} → {handler}: handlers are not translated "
                                           "(the file is served as it is)", scope.directory,
                       changes=False)
        if settings.handler:
            self._note(None, "SetHandler", f"{settings.handler}: not translated",
                       scope.directory)
        if charset_lines:
            lines += charset_lines
        elif settings.default_charset:
            self.uses_charset = True
            lines.append(f"charset {settings.default_charset};")
        lines += self._expires_lines(scope, settings)
        lines += self._header_lines(scope, settings)
        return lines

    def _apache_type(self, settings: Settings, ext: str) -> str | None:
        return dict(settings.types).get(ext, self.plan.types_config.get(ext))

    def _charset_lines(self, scope: Scope, settings: Settings) -> list[str]:
        """``AddCharset`` as nginx's ``charset`` + ``charset_types``, which work by type:
        exact when one charset is used, text/html and text/plain get it too (nginx always
        includes text/html; AddDefaultCharset gives both), and every file of the site with
        one of those types has one of the listed extensions.  Otherwise a note."""
        if not settings.charsets:
            return []
        charsets = {c.lower() for _, c in settings.charsets}
        (charset,) = charsets if len(charsets) == 1 else (None,)
        exts = {ext for ext, _ in settings.charsets}
        types = {t for t in (self._apache_type(settings, e) for e in exts) if t}
        why = ""
        if charset is None:
            why = "more than one charset"
        elif (settings.default_charset or "").lower() != charset:
            why = "nginx would also add it to text/html, which Apache leaves alone here"
        else:
            others = sorted(e for e in self.tree_exts - exts
                            if self._apache_type(settings, e) in types)
            if others:
                why = "files of the same type without it: " + ", ".join(f".{e}" for e in others)
        if why:
            self._note(None, "AddCharset", f"{', '.join(sorted('.' + e for e in exts))}: "
                                           f"per-extension charsets not translated ({why})",
                       scope.directory)
            return []
        self.uses_charset = True
        listed = sorted(types - {"text/html"} | {"text/plain"})
        return [f"# AddDefaultCharset + AddCharset {charset}: by type in nginx",
                f"charset {settings.default_charset};", f"charset_types {' '.join(listed)};"]

    def _expires_lines(self, scope: Scope, settings: Settings) -> list[str]:
        exp = settings.expires
        if exp is None:
            return []
        entries = []
        # mod_expires: the exact type first, then its major type's "type/*", then the default
        exact = [(m, c) for m, c in exp.by_type if not m.endswith("/*")]
        wild = [(m, c) for m, c in exp.by_type if m.endswith("/*")]
        for mime, code in exact:
            entries.append((f"~*^[1-3]\\d\\d:{_escape(mime)}(?:;|\\z)", code))
        for mime, code in wild:
            entries.append((f"~*^[1-3]\\d\\d:{_escape(mime[:-1])}[^;]*(?:;|\\z)", code))
        if exp.default:
            entries.append(("~^[1-3]\\d\\d:", exp.default))
        rows = []
        for key, code in entries:
            if not code.startswith("A"):
                self._note(None, "ExpiresByType", f"{code}: expiry from the modification "
                                                  "time is not translated", scope.directory)
                continue
            seconds = int("".join(ch for ch in code[1:] if ch.isdigit()) or "0")
            rows.append((key, str(seconds)))
        if not rows:
            return []
        name = self._map('"$status:$sent_http_content_type"', rows, "off")
        return ["# ExpiresActive On: ExpiresByType/ExpiresDefault on every answer that is not "
                "an error", "# (mod_expires leaves out 4xx and 5xx; redirects get it too)",
                f"expires {name};"]

    def _header_lines(self, scope: Scope, settings: Settings) -> list[str]:
        tables: dict[bool, list[tuple[str, str]]] = {True: [], False: []}
        lines_before: list[str] = []
        expires = settings.expires is not None
        for header in settings.headers:
            entry = header.entry
            table = tables[entry.always]
            low = entry.name.lower()
            if entry.env or entry.expr or entry.action in ("echo", "edit", "edit*", "note") \
                    or "%" in (entry.value or ""):
                self._note(header.source, "Header", "a condition, format or edit: not "
                                                    "translated", scope.directory)
                continue
            if low in ("cache-control", "expires") and expires and entry.action != "unset":
                self._note(header.source, "Header", f"{entry.name} together with "
                                                    "mod_expires: nginx would send both",
                           scope.directory)
                continue
            if low == "content-type":
                self._note(header.source, "Header", "Content-Type: use AddType/ForceType",
                           scope.directory)
                continue
            value = entry.value or ""
            existing = [i for i, (n, _) in enumerate(table) if n.lower() == low]
            if entry.action == "unset" and low == "etag" and not existing:
                lines_before.append("etag off;  # " + str(header.source) + " Header unset ETag")
                continue
            if entry.action == "unset" and low == "cache-control" and not expires:
                continue  # nothing here sends one (nginx sends it only for `expires`)
            if entry.action == "unset":
                if not existing and low in NATIVE_HEADERS:
                    self._note(header.source, "Header", f"unset {entry.name}: a header the "
                                                        "server sends itself", scope.directory)
                table[:] = [(n, v) for n, v in table if n.lower() != low]
            elif entry.action == "set":
                table[:] = [(n, v) for n, v in table if n.lower() != low]
                table.append((entry.name, value))
            elif entry.action == "setifempty":
                if not existing:
                    table.append((entry.name, value))
            elif entry.action == "add":
                table.append((entry.name, value))
            elif entry.action in ("append", "merge"):
                if existing:
                    i = existing[0]
                    old = table[i][1]
                    parts = [p.strip() for p in old.split(",")]
                    if entry.action == "append" or value not in parts:
                        table[i] = (table[i][0], f"{old}, {value}")
                    table[:] = [t for j, t in enumerate(table) if j not in existing[1:]]
                else:
                    table.append((entry.name, value))
        lines = []
        for name, value in tables[True]:
            lines.append(f"add_header {name} {q(value)} always;")
        # Apache's "onsuccess" headers reach what a handler served: 2xx, 304 and the
        # error documents it serves from a local path.
        served = "|".join(["2\\d\\d", "304", *(str(code) for code, target, _ in
                                                 settings.error_documents
                                                 if error_document_kind(target) == "path")])
        for name, value in tables[False]:
            var = self._map("$status", [(f"~^(?:{served})\\z", q(value))], '""')
            lines.append(f"add_header {name} {var} always;")
        if lines:
            lines.insert(0, "# Header (always: every response; onsuccess: 2xx and 304, "
                            "through a map)")
        return lines_before + lines

    def _geo(self, networks: tuple[str, ...]) -> str:
        """A ``geo`` variable: 1 for a client in *networks*, else 0."""
        key = ("geo", *networks)
        name = self.maps.get(key)
        if name is None:
            name = f"${self.options.map_prefix}{len(self.maps) + 1}"
            self.maps[key] = name
            self.map_blocks.extend([f"geo {name} {{", "    default 0;",
                                    *(f"    {n} 1;" for n in networks), "}"])
        return name

    def _map(self, source: str, rows: list[tuple[str, str]], default: str) -> str:
        key = (source, default, *(f"{k}\0{v}" for k, v in rows))
        name = self.maps.get(key)
        if name is None:
            name = f"${self.options.map_prefix}{len(self.maps) + 1}"
            self.maps[key] = name
            # volatile: computed again after an internal redirect (index, error_page,
            # rewrite … last), as Apache checks the new URL again
            block = [f"map {source} {name} {{", "    volatile;"]
            for k, v in rows:
                block.append(f"    {q(k)} {v};")
            block.append(f"    default {default};")
            block.append("}")
            self.map_blocks.extend(block)
        return name


def _with_parent(regex: str, name: str) -> str:
    """A last-component regex (``(?s)/…``) that also captures the path before it."""
    return f"(?s)^(?<{name}>.*)" + regex[len("(?s)"):]


def _prepend(lines: list[str], denials: list[str]) -> None:
    """Put *denials* first, unless the location answers with an error anyway."""
    if denials:  # first even where the location then denies: Apache's <Files> 403 comes
        lines[:0] = denials  # before a 401 or a 500 of the directory's own access rules


def _escape(text: str) -> str:
    """A literal for a PCRE (as confmig writes it)."""
    out = []
    for ch in text:
        out.append("\\" + ch if ch in r".^$|?*+()[]{}\\" else ch)
    return "".join(out)


def render_plan(plan: SitePlan, options: NginxOptions | None = None) -> NginxOutput:
    """The nginx configuration for *plan*."""
    return Renderer(plan, options or NginxOptions()).render()
