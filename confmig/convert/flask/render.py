"""The site plan as one Python module: the plan's scopes as tables (each entry with its source
``file:line``), the engine that answers a request from them the way Apache does, and the Flask
glue — rendered through the templates next to this module.

Never silent, never looser: what the module cannot reproduce is a comment at its place and a
:class:`~confmig.convert.result.Note` (stderr, exit 1); a rewrite rule whose flags or variables
have no Python form here answers 403 where it would apply, a conditional access decision is a
403 for everyone.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import jinja2

from confmig.convert.flask.listing import LISTING_DIRECTIVES
from confmig.convert.flask.literals import Call, Code, Item, Lit, comment, pystr, raw_or_plain, tup
from confmig.convert.flask.regex import python_form
from confmig.convert.result import Note, NoteKind
from confmig.model.plan import (
    Access,
    FilesScope,
    Header,
    PlanNote,
    Scope,
    Settings,
    SitePlan,
    Source,
)
from confmig.model.rewrite.expand import TOKEN_MAP, TOKEN_VAR, tokenize
from confmig.model.rewrite.rules import Condition, RewriteRule
from confmig.model.site_builder import DEFAULT_TYPES_CONFIG, load_types

_TEMPLATES = jinja2.Environment(
    loader=jinja2.FileSystemLoader(str(Path(__file__).parent / "templates")),
    keep_trailing_newline=True, trim_blocks=True, lstrip_blocks=False,
    undefined=jinja2.StrictUndefined, autoescape=False,
)

#: %{…} variables the generated engine knows (mod_rewrite's names, upper-case).
VARIABLES = frozenset({
    "REQUEST_URI", "REQUEST_FILENAME", "SCRIPT_FILENAME", "QUERY_STRING", "PATH_INFO", "HTTPS",
    "REQUEST_SCHEME", "REQUEST_METHOD", "THE_REQUEST", "SERVER_PROTOCOL", "DOCUMENT_ROOT",
    "SERVER_NAME", "REMOTE_ADDR", "IS_SUBREQ", "CONTEXT_PREFIX", "CONTEXT_DOCUMENT_ROOT",
    "HTTP_HOST", "HTTP_ACCEPT", "HTTP_COOKIE", "HTTP_REFERER", "HTTP_FORWARDED",
    "HTTP_USER_AGENT", "HTTP_PROXY_CONNECTION",
})
COND_KINDS = frozenset({"regex", "-f", "-d", "-s", "-l", "=", "<", "<=", ">", ">=", "-lt",
                        "-le", "-eq", "-gt", "-ge"})
HEADER_ACTIONS = frozenset({"set", "append", "add", "merge", "unset", "setifempty"})
#: Names the script hook is asked about (what a handler would run under Apache).
SCRIPT_PATTERN = r"\.(?:php[0-9]?|phtml|wsgi|cgi|pl|py)$"
#: The name the module is imported by when neither --app-module nor -o names it.
DEFAULT_APP_MODULE = "site_rules"


@dataclass
class FlaskOutput:
    text: str
    notes: list[Note] = field(default_factory=list)
    uses_pcre2: bool = False


class Renderer:
    def __init__(self, plan: SitePlan, app_module: str = DEFAULT_APP_MODULE) -> None:
        self.plan = plan
        self.app_module = app_module
        self.root = plan.document_root.rstrip("/")
        self.notes: list[Note] = []
        self.uses_pcre2 = False
        self.env_names = _env_names(plan)
        #: directory → the mod_autoindex directive in force there (and below)
        self.listing_directives = {n.scope: n for n in plan.notes
                                   if n.directive.lower() in LISTING_DIRECTIVES}
        self.constants: dict[str, str] = {}
        self.constant_calls: list[tuple[str, Call]] = []

    # -- notes --------------------------------------------------------------------------

    def note(self, source: Source | None, directive: str, reason: str, scope: str,
             behaviour: bool = True, fields: frozenset[str] | None = None) -> str:
        """Announce *directive*; ``fields``: the compared fields it may change (None: any)."""
        src = source or Source(scope, 0)
        self.notes.append(Note(src.file, src.line, directive, reason,
                               NoteKind.UNTRANSLATABLE if behaviour else NoteKind.INFO, scope,
                               fields))
        return (f"{'untranslatable' if behaviour else 'note'}: {self.short(src)} {directive}: "
                f"{reason}")

    def short(self, source: Source | str | None) -> str:
        text = str(source) if source is not None else "server configuration"
        return text[len(self.root) + 1:] if text.startswith(self.root + "/") else text

    # -- the module ---------------------------------------------------------------------

    def render(self) -> FlaskOutput:
        for note in self.plan.notes:
            self.note(note.source, note.directive, note.reason, note.scope,
                      note.changes_behaviour)
        scopes = [self.scope(s) for s in self.plan.scopes]
        table = Call("", scopes, exploded=True)
        lines: list[str] = []
        for name, call in self.constant_calls:
            directory, base = call.items[0].value.inline(), call.items[1].value.inline()
            lines.append(comment(f"The rules of {directory[1:-1]} (RewriteBase "
                                 f"{base[1:-1] if base != 'None' else 'unset'})"))
            lines += call.lines(0, f"{name} = ")
            lines.append("")
        lines += table.lines(0, "SCOPES: tuple[Scope, ...] = ")
        script = self.regex(SCRIPT_PATTERN, False, [])
        context = {
            "document_root": pystr(self.plan.document_root),
            "server_name": pystr(self.plan.server_name),
            "types_config": pystr(DEFAULT_TYPES_CONFIG),
            "types_table": self.types_table(),
            "script": "\n".join(script.lines(0, "SCRIPT = ")),
            "scopes": "\n".join(lines),
            "notes": [_docstring_safe(self.short(f"{n.location}: {n.directive}: {n.reason}"))
                      for n in self.notes],
            "uses_pcre2": self.uses_pcre2,
            "app_module": self.app_module,
            "access_files": tup([Lit(pystr(n)) for n in self.access_files()]).inline(),
            "app_file": self.app_module.rsplit(".", 1)[-1],
        }
        text = _TEMPLATES.get_template("module.py.j2").render(**context)
        return FlaskOutput(text, self.notes, self.uses_pcre2)

    def scope(self, scope: Scope) -> Item:
        url = scope.url
        where = ", ".join(self.short(s) for s in scope.sources) or "server configuration"
        comments = [f"{url} ({where})"]
        comments += [f"{'untranslatable' if n.changes_behaviour else 'note'}: "
                     f"{self.short(n.location)} {n.directive}: {n.reason}"
                     for n in self.notes if n.scope == scope.directory]
        settings = self.settings(scope.settings, scope, comments)
        files = [self.files(f, scope) for f in scope.files]
        items = [Item(Lit(pystr(url))), Item(settings)]
        if files:
            items.append(Item(Call("", files, exploded=True), "files"))
        return Item(Call("Scope", items, exploded=True), comments=comments)

    def files(self, files: FilesScope, scope: Scope) -> Item:
        comments = [f"{self.short(files.source)} {files.label}"]
        regex = self.regex(files.basename_regex, False, comments)
        items = [Item(Lit(pystr(self.short(files.source)))), Item(regex)]
        access = files.settings.access
        if access != scope.settings.access:
            items.append(Item(Lit(str(self.access(access, scope, comments))), "access"))
            if access.decision == "by-address" and access.networks:
                items.append(Item(tup([Lit(pystr(n)) for n in access.networks]), "networks"))
        own = self.settings(files.settings, scope, [], in_files=True, with_access=False)
        base = self.settings(scope.settings, scope, [], in_files=True, with_access=False)
        if own.inline() != base.inline():
            settings = self.settings(files.settings, scope, comments, in_files=True,
                                     with_access=False)
            items.append(Item(settings, "settings"))
        return Item(Call("Files", items), comments=comments)

    def regex(self, pattern: str, nocase: bool, comments: list[str]) -> Call:
        python, why = python_form(pattern)
        items = [Item(Lit(raw_or_plain(pattern)))]
        if python is None:
            self.uses_pcre2 = True
            comments.append(f"pcre2 for {pattern}: {why}")
            items.append(Item(Lit("None")))
        elif python != pattern:
            items.append(Item(Lit(raw_or_plain(python))))
        if nocase:
            items.append(Item(Lit("True"), "nocase"))
        return Call("Regex", items)

    def access_files(self) -> list[str]:
        """The access files' names (.htaccess, and the AccessFileName the scopes were read
        from)."""
        names = {".htaccess"}
        for scope in self.plan.scopes:
            names.update(os.path.basename(s.file) for s in scope.sources if s.file)
        return sorted(names)

    def types_table(self) -> str:
        """``None`` when Apache's types are /etc/mime.types as the module reads it at start-up;
        else (another TypesConfig) the table itself."""
        if self.plan.types_config == load_types(DEFAULT_TYPES_CONFIG, "/"):
            return "None"
        lines = ["TYPES: dict[str, str] | None = {"]
        lines += [f"    {pystr(k)}: {pystr(v)}," for k, v in sorted(self.plan.types_config.items())]
        return "\n".join([*lines, "}"])

    # -- settings -----------------------------------------------------------------------

    def settings(self, s: Settings, scope: Scope, comments: list[str], *,
                 in_files: bool = False, with_access: bool = True) -> Call:
        items: list[Item] = []
        status = self.access(s.access, scope, comments) if with_access else 0
        if status:
            items.append(Item(Lit(str(status)), "access"))
        networks = getattr(s.access, "networks", ())
        if status and s.access.decision == "by-address" and networks:
            items.append(Item(tup([Lit(pystr(n)) for n in networks]), "networks"))
        if s.rewrite is not None and not in_files:
            items.append(self.rewrite(s, scope))
        if s.redirects:
            redirects = []
            for r in s.redirects:
                notes = [f"{self.short(r.source)} {'RedirectMatch' if r.regex else 'Redirect'} "
                         f"{r.status} {r.pattern} {r.target or ''}"]
                match = self.regex(r.pattern, False, notes) if r.regex else Lit(pystr(r.pattern))
                target = Lit(pystr(r.target)) if r.target is not None else Lit("None")
                redirects.append(Item(tup([match, Lit(str(r.status)), target]),
                                      comments=notes))
            items.append(Item(Call("", redirects, exploded=True), "redirects"))
        if s.error_documents:
            docs = [Item(tup([Lit(str(code)), Lit(pystr(target))]),
                         comments=[f"{self.short(src)} ErrorDocument {code}"])
                    for code, target, src in s.error_documents]
            items.append(Item(Call("", docs, exploded=True), "error_documents"))
        if s.index != ("index.html",):
            items.append(Item(tup([Lit(pystr(n)) for n in s.index]), "index",
                              [f"{self.short(s.index_source)} DirectoryIndex"]
                              if s.index_source else []))
        indexes = s.indexes
        listing = self.listing_directive(scope) if indexes and not in_files else None
        if listing is not None:
            indexes = False
            comments.append(f"{self.short(listing.source)} {listing.directive}: mod_autoindex's "
                            "listing is reproduced without it: a listing here answers 403")
        elif indexes and not in_files:
            self.undecided_entries(scope, comments)
        for name, value, default in (("indexes", indexes, False),
                                     ("follow_symlinks", s.follow_symlinks, True),
                                     ("slash", s.slash, True)):
            if value != default:
                items.append(Item(Lit(str(value)), name))
        if s.multiviews:
            items.append(Item(Lit("True"), "multiviews"))
            if not in_files:
                source = scope.sources[-1] if scope.sources else None
                comments.append(self.note(source, "Options MultiViews", "a name with exactly "
                                          "one variant whose type Accept takes is negotiated "
                                          "as Apache does; several variants, one of unknown "
                                          "type, or none acceptable answer 403 (Apache "
                                          "chooses by quality, language and size, or 406)",
                                          scope.directory))
        if s.fallback and s.fallback.lower() != "disabled":
            items.append(Item(Lit(pystr(s.fallback)), "fallback"))
        headers = [self.header(h, scope) for h in s.headers]
        headers = [h for h in headers if h is not None]
        if headers:
            items.append(Item(Call("", headers, exploded=True), "headers"))
        for name, value in (("force_type", s.force_type), ("default_charset",
                                                           s.default_charset)):
            if value:
                items.append(Item(Lit(pystr(value)), name))
        for name, pairs in (("types", s.types), ("charsets", s.charsets),
                            ("handlers", s.handlers)):
            if pairs:
                items.append(Item(tup([tup([Lit(pystr(a)), Lit(pystr(b))]) for a, b in pairs]),
                                  name))
        if s.handler:
            items.append(Item(Lit(pystr(s.handler)), "handler"))
        if s.expires is not None:
            items.append(Item(Lit("True"), "expires"))
            if s.expires.default:
                items.append(Item(Lit(pystr(s.expires.default)), "expires_default"))
            if s.expires.by_type:
                items.append(Item(tup([tup([Lit(pystr(a)), Lit(pystr(b))])
                                       for a, b in s.expires.by_type]), "expires_by_type"))
        return Call("Settings", items)

    def undecided_entries(self, scope: Scope, comments: list[str]) -> None:
        """A listing leaves out what a lookup of it refuses; where that refusal is a 403 that
        stands in for what is not reproduced (access that depends on the request, a rule
        that is not translated), Apache may list the name: announced."""
        names = [f"{s.url.rstrip('/').rsplit('/', 1)[-1]}/" for s in self.plan.scopes
                 if os.path.dirname(s.directory.rstrip("/")) == scope.directory.rstrip("/")
                 and s is not scope and self.stands_in(s.settings)]
        names += [f.label for f in scope.files
                  if f.settings.access.decision == "conditional"]
        rw = scope.settings.rewrite
        if rw is not None and any(self.rule_untranslatable(r) for r in rw.rules):
            names.append("names its untranslated rewrite rules refuse")
        if names:
            source = scope.sources[-1] if scope.sources else None
            comments.append(self.note(source, "Options Indexes", "the listing leaves out "
                                      f"{', '.join(names)} (a 403 stands in for what is "
                                      "not reproduced), which Apache may list",
                                      scope.directory))

    def stands_in(self, settings: Settings) -> bool:
        """Does the module refuse here where Apache's answer is not known to it?"""
        rw = settings.rewrite
        return settings.access.decision == "conditional" or (
            rw is not None and any(self.rule_untranslatable(r) for r in rw.rules))

    def rule_untranslatable(self, rule: RewriteRule) -> bool:
        return bool(self.unsupported(rule)) or any(self.cond_unsupported(c)
                                                   for c in rule.conditions)

    def listing_directive(self, scope: Scope) -> PlanNote | None:
        for directory, note in self.listing_directives.items():
            root = directory.rstrip("/")
            if scope.directory == root or scope.directory.startswith(root + "/"):
                return note
        return None

    def access(self, access: Access, scope: Scope, comments: list[str]) -> int:
        if access.decision == "granted":
            return 0
        src = self.short(access.source)
        if access.decision == "conditional":
            comments.append(self.note(access.source, "access", f"{access.why}: denied (403) "
                                      "for everyone", scope.directory))
            return 403
        comments.append(f"{src}: {access.why or 'denied'}")
        return access.status or 403

    def header(self, header: Header, scope: Scope) -> Item | None:
        e = header.entry
        text = f"{self.short(header.source)} Header {'always ' if e.always else ''}{e.action} " \
               f"{e.name} {e.value or ''}"
        why = ""
        if e.action not in HEADER_ACTIONS:
            why = f"Header {e.action} is not reproduced"
        elif e.env or e.expr:
            why = "a Header condition (env=/expr=) is not reproduced"
        elif header.value is None and e.action != "unset":
            why = "a Header format (%…) is not reproduced"
        elif e.early:
            why = "Header early is not reproduced"
        if why:
            # echo's NAME is a regex of request headers; a condition may add to Vary
            self.note(header.source, "Header", why, scope.directory,
                      fields=None if e.action == "echo" else frozenset({e.name.lower(), "vary"}))
            return None
        return Item(Call("Header", [Item(Lit(pystr(e.action))), Item(Lit(pystr(e.name))),
                                    # the value Apache sends: escapes resolved (a control
                                    # character is the runtime's 500, as in Apache)
                                    Item(Lit(pystr(header.value or ""))),
                                    Item(Lit(str(e.always))),
                                    Item(Lit(pystr(self.short(header.source))))]),
                    comments=[text])

    # -- mod_rewrite --------------------------------------------------------------------

    def rewrite(self, s: Settings, scope: Scope) -> Item:
        rw = s.rewrite
        assert rw is not None
        rules = [self.rule(r, scope) for r in rw.rules]
        directory = rw.strip
        items: list[Item] = [Item(Lit(pystr(directory))),
                             Item(Lit(pystr(rw.base) if rw.base is not None else "None"))]
        for option in sorted(rw.options):
            if option not in ("Inherit", "InheritBefore", "AllowNoSlash"):
                self.note(rw.source, "RewriteOptions", f"{option} is not reproduced",
                          scope.directory)
        items.append(Item(Call("", rules, exploded=bool(rules))))
        if "AllowNoSlash" in rw.options:
            items.append(Item(Lit("True"), "allow_no_slash"))
        call = Call("Rewrite", items, exploded=True)
        return Item(Lit(self.constant(call, rw.strip)), "rewrite")

    def constant(self, call: Call, url: str) -> str:
        """A ruleset shared by several scopes is written once, as a module constant."""
        text = call.inline()
        name = self.constants.get(text)
        if name is None:
            stem = "REWRITE_" + (re.sub(r"[^A-Za-z0-9]+", "_", url).strip("_").upper()
                                 or "ROOT")
            name = stem
            taken = {n for n, _ in self.constant_calls}
            n = 2
            while name in taken:
                name, n = f"{stem}_{n}", n + 1
            self.constants[text] = name
            self.constant_calls.append((name, call))
        return name

    def rule(self, rule: RewriteRule, scope: Scope) -> Item:
        d = rule.directive
        source = Source(d.file, d.line) if d is not None else Source(scope.directory, 0)
        comments = [f"{self.short(source)} {' '.join(str(rule).split())}"]
        conds = []
        why = self.unsupported(rule)
        for cond in rule.conditions:
            comments.insert(-1 if len(comments) > 1 else 0,
                            f"{self.short(self._cond_source(cond, source))} "
                            f"{' '.join(str(cond).split())}")
            why = why or self.cond_unsupported(cond)
        items = [Item(Lit(pystr(self.short(source)))),
                 Item(self.regex(rule.pattern, rule.nocase, comments)),
                 Item(Lit("None" if rule.nosub else pystr(rule.substitution)))]
        if why:
            comments.append(self.note(source, "RewriteRule", f"{why}: answers 403 where the "
                                      "rule applies", scope.directory))
            items.append(Item(Lit(pystr(why)), "deny"))
        else:
            conds = [self.cond(c, comments) for c in rule.conditions]
        if rule.negate:
            items.append(Item(Lit("True"), "negate"))
        if conds:
            items.append(Item(tup(conds), "conds"))
        if rule.status_flag:
            items.append(Item(Lit(str(rule.redirect_code)), "status"))
        elif rule.redirect:
            items.append(Item(Lit(str(rule.redirect_code)), "redirect"))
        for name in ("last", "end", "chain", "next", "noescape", "qsappend", "qsdiscard",
                     "qslast", "qsnone", "discard_path_info"):
            if getattr(rule, name):
                items.append(Item(Lit("True"), name))
        if rule.skip:
            items.append(Item(Lit(str(rule.skip)), "skip"))
        if rule.nosubreq or rule.redirect:  # mod_rewrite skips them in a sub-request
            items.append(Item(Lit("True"), "nosubreq"))
        if rule.env and not why:
            items.append(Item(tup([Lit(pystr(e)) for e in rule.env]), "env"))
        if rule.mime_type and not why:
            items.append(Item(Lit(pystr(rule.mime_type)), "mime_type"))
        return Item(Call("Rule", items), comments=comments)

    @staticmethod
    def _cond_source(cond: Condition, fallback: Source) -> Source:
        d = cond.directive
        return Source(d.file, d.line) if d is not None else fallback

    def unsupported(self, rule: RewriteRule) -> str:
        flags = []
        for name, label in (("cookies", "CO"), ("handler", "H"), ("proxy", "P"),
                            ("escape_backrefs", "B"), ("backref_escapes", "B="),
                            ("unsafe_allow_3f", "UnsafeAllow3F")):
            if getattr(rule, name):
                flags.append(label)
        if flags:
            return f"the flag(s) {', '.join(flags)}"
        if rule.status_flag and rule.redirect_code not in (403, 410) and not rule.nosub:
            return f"[R={rule.redirect_code}] with a substitution"
        for text in (*rule.env, rule.mime_type or ""):
            why = self.template_unsupported(text)
            if why:
                return why
        return self.template_unsupported(rule.substitution if not rule.nosub else "")

    def cond_unsupported(self, cond: Condition) -> str:
        if cond.kind not in COND_KINDS:
            return f"RewriteCond {cond.kind}"
        return self.template_unsupported(cond.test)

    def template_unsupported(self, text: str) -> str:
        for token in tokenize(text):
            if token[0] == TOKEN_MAP:
                return f"RewriteMap ${{{token[1]}:…}}"
            if token[0] == TOKEN_VAR:
                name = token[1].upper()
                if name.startswith("ENV:") and token[1][4:] in self.env_names:
                    continue
                if name not in VARIABLES and not (name.startswith("HTTP:") and len(name) > 5):
                    return f"%{{{token[1]}}}" + (" (an environment variable no rule sets)"
                                                 if name.startswith("ENV:") else "")
        return ""

    def cond(self, cond: Condition, comments: list[str]) -> Code:
        items = [Item(Lit(pystr(cond.test))), Item(Lit(pystr(cond.kind)))]
        if cond.kind == "regex":
            items.append(Item(self.regex(cond.pattern, cond.nocase, comments), "regex"))
        elif cond.kind not in ("-f", "-d", "-s", "-l"):
            items.append(Item(Lit(pystr(cond.pattern))))
        for name in ("negate", "nocase", "ornext", "novary"):
            if getattr(cond, name) and not (name == "nocase" and cond.kind == "regex"):
                items.append(Item(Lit("True"), name))
        return Call("Cond", items)


def _docstring_safe(text: str) -> str:
    """One line of the module docstring: no backslash escapes, no closing quotes."""
    return " ".join(text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"').split())


def _env_names(plan: SitePlan) -> frozenset[str]:
    """Environment variables the plan's [E=…] flags set (literal names), also as they are
    seen after internal redirects (``REDIRECT_`` prefixed): %{ENV:…} of these is reproduced;
    of any other (SetEnvIf, the server process' environment) it is not."""
    names: set[str] = {"REDIRECT_STATUS"}  # set by every internal redirect
    for scope in plan.scopes:
        rw = scope.settings.rewrite
        for rule in rw.rules if rw is not None else ():
            for spec in rule.env:
                name = spec.lstrip("!").partition(":")[0]
                if name and "%" not in name and "$" not in name:
                    names.update(f"{'REDIRECT_' * n}{name}" for n in range(4))
    return frozenset(names)


def render_plan(plan: SitePlan, app_module: str = DEFAULT_APP_MODULE) -> FlaskOutput:
    """*plan* as a module that is imported as *app_module* (what its docstring tells the
    reader to run: ``gunicorn app_module:app``, ``import app_module``)."""
    return Renderer(plan, app_module).render()
