"""PERF001: AllowOverride over a deep tree — .htaccess lookups on every request."""

from __future__ import annotations

import os
from collections.abc import Iterator

from confmig.apache.paths import server_root_relative
from confmig.lint.context import FileContext, LintContext, ServerLayout
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.docroot_walk import docroot_walk
from confmig.lint.rules.perf.lookups import lookups, parts
from confmig.lint.scopes import walk_directives
from confmig.syntax import Directive, Node

# Report a tree once a request at its bottom costs this many .htaccess open attempts.
MIN_OPENS = 7


def _directive_at(nodes: list[Node], location: str | None) -> Directive | None:
    if location is None:
        return None
    return next((d for d, _ in walk_directives(nodes) if d.location == location), None)


def _document_roots(nodes: list[Node]) -> list[Directive]:
    return [d for d, _ in walk_directives(nodes) if d.lname == "documentroot" and d.args]


@register
class DeepHtaccessLookups(Rule):
    code = "PERF001"
    name = "htaccess-lookups"
    summary = "AllowOverride over many directory levels: many .htaccess lookups per request"
    rationale = (
        "For every request Apache walks the file's path from / and, in each directory "
        "where AllowOverride (or AllowOverrideList) is not None, tries to open the access "
        "file — present or not — and finally tries the file itself as a directory. A file "
        "k levels below the first such directory costs k + 2 open attempts per request "
        "(measured with strace on Apache 2.4: 10 levels below the DocumentRoot → 12: 10 "
        "ENOENT, 1 found, 1 ENOTDIR). Granting overrides above the DocumentRoot adds "
        "lookups in directories that never hold a .htaccess."
    )
    bad = ("DocumentRoot /srv/www/example/public\n"
           "<Directory /srv>\n    AllowOverride All\n</Directory>\n")
    good = ("DocumentRoot /srv/www/example/public\n"
            "<Directory /srv/www/example/public>\n    AllowOverride All\n</Directory>\n")
    severity = Severity.info
    example_kind = "server"
    fix = ("grant AllowOverride only on the directories that need it (AllowOverride None "
           "elsewhere), or move the .htaccess contents into <Directory>: confmig convert")

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        """Overrides granted above a DocumentRoot: lookups in directories above the site."""
        if ctx.is_htaccess:
            return
        server_root = str(ctx.loaded.state.server_root)
        layout = ctx.server_layout()
        for root in _document_roots(ctx.loaded.nodes):
            # ap_server_root_relative, as the layout reads it: `DocumentRoot site` is
            # <ServerRoot>/site, not `site`.
            docroot = server_root_relative(root.args[0], server_root)
            above = [d for d in _above(docroot) if not layout.overrides_for(d).none]
            if not above:
                continue
            source = layout.overrides_for(above[0]).source
            anchor = _directive_at(ctx.loaded.nodes, source)
            if anchor is None or anchor.file != ctx.path:
                continue
            yield self.finding(
                anchor, f"{anchor.name} {' '.join(anchor.args)} reaches above DocumentRoot "
                        f"{docroot}: every request there also looks for .htaccess in "
                        f"{len(above)} director{'y' if len(above) == 1 else 'ies'} above it "
                        f"({', '.join(above)})")

    def summarize(self, ctx: FileContext) -> Directive | None:
        """An access file's first directive (where a finding about the tree is anchored)."""
        return next(iter(ctx.directive_nodes()), None)

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        walked = docroot_walk(ctx)
        if ctx.docroot is None or walked is None:
            return
        deepest = walked.deepest
        server_deepest, server_docroot = self._server_paths(ctx, deepest)
        layout = None
        if ctx.server is not None:
            layout = ServerLayout.from_config(ctx.server)
        found = lookups(server_deepest, layout, server_docroot)
        if found is None or found.opens < MIN_OPENS:
            return
        present = sum(1 for f in ctx.access
                      if f.directory and (server_deepest + "/").startswith(
                          f.directory.rstrip("/") + "/"))
        rel = os.path.relpath(deepest, ctx.docroot)
        message = (f"overrides are allowed from {found.first} down: a request for a file in "
                   f"{rel}/ makes Apache try {found.opens} .htaccess paths ({present} "
                   f"exist{'s' if present == 1 else ''}), one per directory plus the file "
                   "itself")
        anchor = None
        if layout is not None and ctx.server is not None:
            anchor = _directive_at(ctx.server.nodes, layout.overrides_for(found.first).source)
        if anchor is None and ctx.access:
            top = min(ctx.access, key=lambda f: len(parts(f.directory or "/")))
            first = ctx.summary(self, top)
            anchor = first if isinstance(first, Directive) else None
        if anchor is not None:
            yield self.finding(anchor, message)
        else:
            yield Finding(self.code, message, str(ctx.docroot), 1, 1, self.severity, self.fix)

    @staticmethod
    def _server_paths(ctx: LintContext, deepest: str) -> tuple[str, str]:
        """``deepest`` and the docroot as the server sees them (access files carry the
        server-side directory when a config maps the docroot elsewhere)."""
        real_root = os.path.realpath(ctx.docroot or "/")
        real_deepest = os.path.realpath(deepest)
        if ctx.access:
            top = min(ctx.access, key=lambda f: len(parts(f.directory or "/")))
            top_real = os.path.realpath(os.path.dirname(top.path))
            if top.directory and top.directory != top_real:
                server_docroot = os.path.normpath(
                    os.path.join(top.directory, os.path.relpath(real_root, top_real)))
                rel = os.path.relpath(real_deepest, real_root)
                return os.path.normpath(os.path.join(server_docroot, rel)), server_docroot
        return real_deepest, real_root


def _above(docroot: str) -> list[str]:
    """The directories strictly above ``docroot``, from ``/`` down."""
    components = parts(docroot)
    return ["/" + "/".join(components[:i]) if i else "/" for i in range(len(components))]
