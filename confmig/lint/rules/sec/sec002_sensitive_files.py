"""SEC002: .git, .env and backup files reachable over HTTP."""

from __future__ import annotations

import os
from collections.abc import Iterator

from confmig.lint.context import FileContext, LintContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.rw.scopes import Scope, build_scopes, scopes, walk_directives
from confmig.lint.rules.sec.exposure import Target, describe, find_exposed, protected, samples
from confmig.load.paths import server_root_relative
from confmig.model.evaluate import evaluate, site_for
from confmig.model.request import Request
from confmig.syntax import Directive


def _server_scopes(ctx: LintContext) -> list[Scope]:
    if ctx.server is None:
        return []
    return build_scopes(walk_directives(ctx.server.nodes), htaccess=False)


def _document_root(ctx: LintContext) -> Directive | None:
    if ctx.server is None:
        return None
    return next((d for d, parents in walk_directives(ctx.server.nodes)
                 if d.lname == "documentroot" and d.args and not parents), None)


def _anchor(files: list[FileContext]) -> tuple[FileContext, Directive] | None:
    """The shallowest access file with a directive (the docroot's .htaccess, usually)."""
    for f in sorted(files, key=lambda f: (len((f.directory or "").split("/")), f.path)):
        first = next((d for d, _ in f.directives()), None)
        if first is not None:
            return f, first
    return None


@register
class SensitiveFilesReachable(Rule):
    code = "SEC002"
    name = "sensitive-files-reachable"
    summary = ".git/.env/backup files can be downloaded: nothing in the configuration denies them"
    rationale = (
        "Apache serves every file under the DocumentRoot that no rule refuses. A "
        "deployed .git directory gives away the whole source history (GET /.git/HEAD, "
        "then the objects), .env files hold database passwords and API keys, and editor "
        "or dump leftovers (*.bak, *~, *.sql, *.swp) hold source code and data. Debian's "
        "config only denies .ht* files. Note that <FilesMatch \"^\\.\"> matches the "
        "last path component only, so it does not protect /.git/config; a RewriteRule, "
        "RedirectMatch or <DirectoryMatch> does (verified on Apache 2.4: /.git/HEAD is "
        "served with the default config and refused once such a rule is in place)."
    )
    bad = '<FilesMatch "^\\.">\n    Require all denied\n</FilesMatch>\n'
    good = ('Options -Indexes\nRewriteEngine On\nRewriteRule "(^|/)\\.(?!well-known/)" - [F]\n'
            '<FilesMatch "(\\.(bak|backup|old|orig|save|swp|sql(\\.gz)?)|~)$">\n'
            "    Require all denied\n</FilesMatch>\n")
    fix = ("deny them: RewriteRule \"(^|/)\\.(?!well-known/)\" - [F] and "
           "<FilesMatch \"(\\.(bak|sql|swp|old)|~)$\"> Require all denied </FilesMatch>")

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        server = _server_scopes(ctx)
        access = [(f.directory or "/", scopes(f)) for f in ctx.access_files]
        anchor = _anchor(ctx.access_files)
        if ctx.docroot is not None:
            real = [_map(t, ctx) for t in find_exposed(str(ctx.docroot))]
            open_ = _served(ctx, [t for t in real if not protected(t, access, server)])
            if open_ and anchor is not None:
                yield self.finding(anchor[1], f"{describe(open_)} can be downloaded: nothing "
                                              "in this tree or the server config denies "
                                              f"{'it' if len(open_) == 1 else 'them'}")
            elif open_:
                yield Finding(self.code, f"{describe(open_)} can be downloaded: nothing in "
                              "the configuration denies them", str(ctx.docroot), 1, 1,
                              self.severity, self.fix)
            return
        if anchor is not None and len(ctx.access_files) == 1:
            root = anchor[0].directory or "/"
            yield from self._partial(anchor[1], samples(root), access, server, "this file")
        elif not ctx.access_files and (docroot := _document_root(ctx)) is not None:
            assert ctx.server is not None
            # ap_server_root_relative: `DocumentRoot site` is <ServerRoot>/site, the path
            # the <Directory> sections are matched against.
            root = server_root_relative(docroot.args[0], str(ctx.server.state.server_root))
            yield from self._partial(docroot, samples(root), [], server, "this server config")

    def _partial(self, anchor: Directive, targets: list[Target],
                 access: list[tuple[str, list[Scope]]], server: list[Scope],
                 where: str) -> Iterator[Finding]:
        """Without a docroot to look into: report only a protection with holes in it —
        some of the usual suspects denied, others not (a lone file that denies nothing
        may well be protected elsewhere)."""
        open_ = [t for t in targets if not protected(t, access, server)]
        if not open_ or len(open_) == len(targets):
            return
        note = ""
        if any(t.shown.endswith("/") for t in open_):
            note = (" (<Files>/<FilesMatch> only see the file name — HEAD, config — never "
                    "the .git directory)")
        yield self.finding(anchor, f"{where} denies some sensitive files but not "
                                   f"{describe(open_)}{note}", severity=Severity.info)


def _served(ctx: LintContext, candidates: list[Target]) -> list[Target]:
    """The candidates Apache would really serve, asked of the request model (which the
    differential tests hold to real Apache): the syntactic check above cannot see every
    way a tree denies a file (2.2 ``Deny`` in a subdirectory, rewrite rules, ``<If>``)."""
    if not candidates:
        return []
    site = site_for(ctx.workspace)
    return [t for t in candidates
            if 200 <= evaluate(site, Request.from_url(t.url), trace=False).status < 300]


def _map(target: Target, ctx: LintContext) -> Target:
    """The target's path as the access files know it (they may use the server's paths)."""
    if not ctx.access_files:
        return target
    top = min(ctx.access_files, key=lambda f: len((f.directory or "").split("/")))
    top_real = os.path.realpath(os.path.dirname(top.path))
    if not top.directory or top.directory == top_real:
        return target
    rel = os.path.relpath(os.path.realpath(target.path), top_real)
    return Target(target.url, os.path.normpath(os.path.join(top.directory, rel)), target.shown)
