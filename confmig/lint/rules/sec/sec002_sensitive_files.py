"""SEC002: .git, .env and backup files reachable over HTTP."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING

from confmig.apache.paths import server_root_relative
from confmig.lint.context import AccessEntry, FileContext, LintContext
from confmig.lint.finding import Finding, Severity
from confmig.lint.rule import Rule, register
from confmig.lint.rules.docroot_walk import docroot_walk
from confmig.lint.rules.sec.exposure import SampleFile, describe, samples
from confmig.lint.scopes import walk_directives
from confmig.load import LoadedConfig, ReadState
from confmig.load.workspace import access_names
from confmig.syntax import Directive, Section

if TYPE_CHECKING:
    from confmig.model.site import Site, VirtualServer

# (The request model — confmig.model.evaluate, site_builder — is imported when the rule asks
# it: a file without a directive, or a tree of several access files and no docroot, never
# loads it; issue 17.)


def _document_root(ctx: LintContext) -> Directive | None:
    if ctx.server is None:
        return None
    return next((d for d, parents in walk_directives(ctx.server.nodes)
                 if d.lname == "documentroot" and d.args and not parents), None)


def _anchor(ctx: LintContext, rule: Rule) -> tuple[AccessEntry, Directive] | None:
    """The shallowest access file with a directive (the docroot's .htaccess, usually)."""
    for f in sorted(ctx.access, key=lambda f: (len((f.directory or "").split("/")), f.path)):
        first = ctx.summary(rule, f)
        if isinstance(first, Directive):
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

    def summarize(self, ctx: FileContext) -> Directive | None:
        """An access file's first directive (where a finding about the tree is anchored)."""
        return next(iter(ctx.directive_nodes()), None)

    def check_tree(self, ctx: LintContext) -> Iterator[Finding]:
        anchor = _anchor(ctx, self)
        walked = docroot_walk(ctx)
        if ctx.docroot is not None and walked is not None:
            # The request model alone decides (one decision, held to Apache by the
            # differential tests): no syntactic pre-filter that could disagree with it.
            open_ = _served(ctx, [_map(t, ctx) for t in walked.exposed])
            if open_ and anchor is not None:
                yield self.finding(anchor[1], f"{describe(open_)} can be downloaded: nothing "
                                              "in this tree or the server config denies "
                                              f"{'it' if len(open_) == 1 else 'them'}")
            elif open_:
                yield Finding(self.code, f"{describe(open_)} can be downloaded: nothing in "
                              "the configuration denies them", str(ctx.docroot), 1, 1,
                              self.severity, self.fix)
            return
        if anchor is not None and len(ctx.access) == 1:
            yield from self._partial(anchor[1], _holes_of_file(ctx, anchor[0]), "this file")
        elif not ctx.access and ctx.server is not None:
            docroot = _document_root(ctx)
            if docroot is not None:
                # ap_server_root_relative: `DocumentRoot site` is <ServerRoot>/site, the path
                # the <Directory> sections are matched against.
                root = server_root_relative(docroot.args[0], str(ctx.server.state.server_root))
                targets = samples(root)
                holes = {t for sent in _sent(ctx.server, targets)
                         for t in _holes(targets, sent)}
                yield from self._partial(docroot, [t for t in targets if t in holes],
                                         "this server config")
            for anchor_, holes_ in _vhost_holes(ctx.server, docroot is not None):
                yield from self._partial(anchor_, holes_, "this server config")

    def _partial(self, anchor: Directive, holes: list[SampleFile], where: str
                 ) -> Iterator[Finding]:
        """Without a docroot to look into: report only a protection with holes in it (see
        :func:`_holes`)."""
        if not holes:
            return
        note = ""
        if any(t.shown.endswith("/") for t in holes):
            note = (" (<Files>/<FilesMatch> only see the file name — HEAD, config — never "
                    "the .git directory)")
        yield self.finding(anchor, f"{where} denies some sensitive files but not "
                                   f"{describe(holes)}{note}", severity=Severity.info)


def _holes_of_file(ctx: LintContext, entry: AccessEntry) -> list[SampleFile]:
    """One access file alone (a pre-commit hook's case): the samples of its directory,
    taken as the DocumentRoot, that the request model sends with the server config lint
    has (or the one assumed without it), over a filesystem of just the samples and this
    file as lint read it (:func:`sent_with`) — see :func:`_holes`."""
    root = os.path.join("/", entry.directory or "/")
    targets = samples(root)
    context = entry.context
    names = access_names(ctx.server)
    access = {os.path.join(root, names[0]): context.loaded}
    return _holes(targets, sent_with(root, targets, access, ctx.server, ctx.workspace.state,
                                     context))


def sent_with(document_root: str, targets: list[SampleFile], access: Mapping[str, LoadedConfig],
              server: LoadedConfig | None, state: ReadState,
              context: FileContext | None = None) -> list[SampleFile]:
    """The targets whose own content the main server sends (2xx with that file) when
    ``document_root`` is its DocumentRoot, asked of the request model over a filesystem
    holding just the targets and the access files of ``access`` (path → content: nothing
    else of this machine is read), with ``server``'s configuration or, without one, the one
    lint assumes (:func:`~confmig.model.listed_files.listed_site`).  *context*: the one
    access file's, whose section the model built for CTX011 is read again, not built
    twice (:func:`_share_reader`)."""
    from confmig.model.listed_files import listed_site

    site = listed_site(document_root, [t.path for t in targets], access, server, state)
    if context is not None:
        _share_reader(site, context)
    return [t for t in targets if _sends(site, site.main, t)]


def _share_reader(site: Site, context: FileContext) -> None:
    """Let *site* read the access file through the model's reader CTX011 asked
    (:mod:`confmig.lint.access_model`), when there is one that reads it as the site would:
    the same file under the same path, with the same modules.  The reader holds nothing but
    that file (any other access file is absent, as for the site's own listed files), and it
    keeps its answer per directory and overrides, so a walk that reaches the file with the
    overrides CTX011 asked with reads the section already built."""
    if context.model_access is None:
        return
    names, reader = context.model_access
    own = site.access_files
    if names != tuple(site.main.access_names) or \
            reader.state.modules.identifiers != own.state.modules.identifiers:
        return
    site.access_files = reader


def _served(ctx: LintContext, candidates: list[SampleFile]) -> list[SampleFile]:
    """The candidates Apache would really serve (2xx), asked of the request model (which
    the differential tests hold to real Apache) over the docroot on disk: every way a tree
    denies a file counts (2.2 ``Deny`` in a subdirectory, rewrite rules, ``<If>``…)."""
    if not candidates:
        return []
    from confmig.model.evaluate import evaluate, site_for
    from confmig.model.request import Request

    site = site_for(ctx.workspace)
    return [t for t in candidates
            if 200 <= evaluate(site, Request.from_url(t.url), trace=False,
                               headers=False).status < 300]


def _holes(targets: list[SampleFile], open_: list[SampleFile]) -> list[SampleFile]:
    """``open_`` when some of the usual suspects are denied and others not; nothing when none
    or all are open (a lone file that denies nothing may well be protected elsewhere)."""
    return open_ if 0 < len(open_) < len(targets) else []


def _sent(config: LoadedConfig, targets: list[SampleFile]) -> list[list[SampleFile]]:
    """For the main server and each ``<VirtualHost>`` serving the same DocumentRoot, the
    targets whose own content Apache sends (2xx with that file), asked of the request model
    over a filesystem holding just them (:class:`ListedFiles`): the server config's sections
    merged as Apache merges them (``<Directory /> Require all denied`` then ``<Directory
    /var/www> Require all granted`` grants), rewrite rules, redirects, ``<If>``…"""
    from confmig.model.listed_files import ListedFiles
    from confmig.model.site_builder import build_site

    site = build_site(config, ListedFiles(t.path for t in targets))
    root = site.main.document_root
    servers = [site.main, *(v for v in site.vhosts if v.document_root == root)]
    return [[t for t in targets if _sends(site, server, t)] for server in servers]


def _own_roots(site: Site, main_checked: bool) -> list[VirtualServer]:
    """The vhosts that set a DocumentRoot of their own (less those serving the main server's
    root when :func:`_sent` checks that one)."""
    return [vhost for vhost in site.vhosts
            if _own_document_root(vhost) is not None
            and not (main_checked and vhost.document_root == site.main.document_root)]


def _own_document_root(server: VirtualServer) -> Directive | None:
    """The ``DocumentRoot`` a ``<VirtualHost>`` sets itself (the last one: it wins)."""
    return next((d for d in reversed(server.server_directives)
                 if d.lname == "documentroot" and d.args), None)


def _vhost_holes(config: LoadedConfig, main_checked: bool
                 ) -> Iterator[tuple[Directive, list[SampleFile]]]:
    """The ``<VirtualHost>`` sections with a DocumentRoot of their own (Debian's
    000-default.conf: the main server has none), each DocumentRoot asked of the request
    model as those vhosts, like :func:`_sent` asks the main server's: per distinct
    DocumentRoot, the union of the vhosts' holes, anchored at the ``DocumentRoot`` of the
    first vhost with holes. Vhosts serving the main server's DocumentRoot are left to
    :func:`_sent` when the main server sets one (*main_checked*)."""
    if not any(isinstance(node, Section) and node.lname == "virtualhost"
               and any(d.lname == "documentroot" for d, _ in walk_directives(node.children))
               for node in config.nodes):
        return
    from confmig.model.listed_files import ListedFiles
    from confmig.model.site_builder import build_site

    roots = {vhost.document_root for vhost in _own_roots(build_site(config), main_checked)}
    if not roots:
        return
    targets = {root: samples(root) for root in sorted(roots)}
    # The configuration's servers over a filesystem of just the samples.
    site = build_site(config, ListedFiles(t.path for ts in targets.values() for t in ts))
    groups: dict[str, list[tuple[VirtualServer, Directive]]] = {}
    for vhost in _own_roots(site, main_checked):
        own = _own_document_root(vhost)
        assert own is not None
        groups.setdefault(vhost.document_root, []).append((vhost, own))
    for root, servers in groups.items():
        holes: set[SampleFile] = set()
        anchor: Directive | None = None
        for server, own in servers:
            open_ = _holes(targets[root], [t for t in targets[root] if _sends(site, server, t)])
            if open_ and anchor is None:
                anchor = own
            holes.update(open_)
        if anchor is not None:
            yield anchor, [t for t in targets[root] if t in holes]


def _sends(site: Site, server: VirtualServer, target: SampleFile) -> bool:
    from confmig.model.evaluate import Evaluation
    from confmig.model.request import Request

    answer = Evaluation(site, server, Request.from_url(target.url), trace=False,
                        headers=False).run()
    return 200 <= answer.status < 300 and answer.filename is not None \
        and os.path.normpath(answer.filename) == os.path.normpath(target.path)


def _map(target: SampleFile, ctx: LintContext) -> SampleFile:
    """The target's path as the access files know it (they may use the server's paths)."""
    if not ctx.access:
        return target
    top = min(ctx.access, key=lambda f: len((f.directory or "").split("/")))
    top_real = os.path.realpath(os.path.dirname(top.path))
    if not top.directory or top.directory == top_real:
        return target
    rel = os.path.relpath(os.path.realpath(target.path), top_real)
    return SampleFile(target.url, os.path.normpath(os.path.join(top.directory, rel)), target.shown)
