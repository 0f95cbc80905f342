"""What Apache answers to one request: the phases of ``ap_process_request_internal`` and the
handler, over a :class:`~confmig.model.walk.Site`.

Per round (a request, or an internal redirect of it):

1. the URL is normalised and decoded (400/404 for what Apache refuses);
2. translate: server-context mod_rewrite, then mod_alias (server ``Redirect*``, ``Alias*``),
   then DocumentRoot;
3. the directory walk (``<Directory>`` + ``.htaccess``), ``<Files>``, ``<Location>``,
   ``<If>`` — the sections merged per module (cached per file by the site);
4. access: mod_access_compat (Order/Allow/Deny) and mod_authz_core (Require), combined by
   ``Satisfy``;
5. type: mod_mime (TypesConfig, AddType, AddHandler, …), then the fixups: ForceType and
   SetHandler, per-directory mod_rewrite, per-directory mod_alias redirects (after
   mod_rewrite: an internal rewrite still lets a ``Redirect`` match the original URL), mod_dir
   (DirectorySlash, DirectoryIndex sub-requests, FallbackResource);
6. the handler: an internal redirect (back to 1; past ``LimitInternalRecursion`` → 500), a
   directory listing or 403, the file, or 404.

An error status is then looked up in ``ErrorDocument``: a local path is served by an internal
redirect with the status kept, a URL becomes a 302.

With ``trace=False`` no explanation is built and request-independent results (a file's
content type, a static access decision, the configured response headers) are memoised per
merged configuration, so a request costs little more than its rewrite rules.
"""

from __future__ import annotations

import time
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Literal

from confmig.load import LoadedConfig, ReadState, Workspace
from confmig.model.mapping import (
    core_translate,
    finish_redirect,
    normalize_path,
    server_url_base,
    try_alias_list,
    unescape_path,
)
from confmig.model.merge import (
    OPT_INDEXES,
    OPT_MULTI,
    OPT_SYM_LINKS,
    OPT_SYM_OWNER,
    AccessDir,
    AliasDir,
    AppliedDirective,
    AuthnDir,
    AuthzDir,
    AuthzNode,
    CoreDir,
    DirConfig,
    DirDir,
    EnvDir,
    ExpiresDir,
    ExtInfo,
    HeaderEntry,
    HeadersDir,
    MimeDir,
    SetEnvIfDir,
    error_document_kind,
    ip_matches,
    options_text,
)
from confmig.model.request import Request
from confmig.model.rewrite import Headers as RewriteHeaders
from confmig.model.rewrite import RewriteConfig, RewriteOutcome, RewriteRequest
from confmig.model.rewrite import evaluate_directory as rewrite_directory
from confmig.model.rewrite import evaluate_server as rewrite_server
from confmig.model.rewrite.uri import escape_uri
from confmig.model.walk import (
    ConfigSection,
    Expr,
    ExprError,
    ExprUnsupported,
    Site,
    VirtualServer,
    build_site,
    if_walk,
    location_walk,
)
from confmig.syntax import parse_text

DIR_MAGIC_TYPE = "httpd/unix-directory"
REDIRECT_HANDLER = "redirect-handler"
DEFAULT_INDEX = ("index.html",)  # mod_dir's AP_DEFAULT_INDEX
# Handlers that write their own page, whatever the URL maps to (when their module is loaded).
GENERATED_HANDLERS = {"server-status": "mod_status", "server-info": "mod_info",
                      "balancer-manager": "mod_proxy_balancer"}
STOP_ACTIONS = frozenset({"redirect", "forbidden", "gone", "error", "proxy"})
NO_USER_PROVIDERS = frozenset({"user", "valid-user", "group", "file-owner", "file-group",
                               "ldap-user", "ldap-group", "dbd-group"})
AuthzResult = Literal["granted", "denied", "denied-no-user", "neutral"]


@dataclass(frozen=True, slots=True)
class Step:
    """One thing that happened while processing the request, for the explanation."""

    phase: str
    message: str
    file: str | None = None
    line: int | None = None
    detail: tuple[str, ...] = ()

    def as_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"phase": self.phase, "message": self.message}
        if self.file is not None:
            out["file"], out["line"] = self.file, self.line
        if self.detail:
            out["detail"] = list(self.detail)
        return out


@dataclass
class Answer:
    """Apache's answer to a request, and why.

    ``file`` is the served file relative to the DocumentRoot (None when no file is served: a
    redirect, an error without ErrorDocument, a directory listing); ``filename`` is its
    absolute path.  ``headers`` are the response headers the configuration sets (an
    ``Expires`` value depends on the time of the request).  ``unsupported`` lists what the
    model could not evaluate exactly.
    """

    status: int
    location: str | None = None
    file: str | None = None
    filename: str | None = None
    headers: dict[str, str] = field(default_factory=dict)
    applied: list[AppliedDirective] = field(default_factory=list)
    steps: list[Step] = field(default_factory=list)
    server: str = ""
    document_root: str = ""
    handler: str | None = None
    body: str | None = None
    listing: bool = False
    unsupported: list[str] = field(default_factory=list)

    def as_json(self) -> dict[str, Any]:
        return {
            "status": self.status, "location": self.location, "file": self.file,
            "filename": self.filename, "headers": dict(self.headers),
            "steps": [s.as_json() for s in self.steps],
            "applied": [a.as_json() for a in self.applied], "server": self.server,
            "document_root": self.document_root, "handler": self.handler,
            "listing": self.listing, "body": self.body, "unsupported": list(self.unsupported),
        }


# -- the site a command works on ------------------------------------------------------------

DEBIAN_INDEX = "index.html index.cgi index.pl index.php index.xhtml index.htm"
# As confmig.servers' default Apache: Debian's module set plus what real .htaccess files lean
# on.  Access files are then read with this set, not the workspace's.
ALWAYS_LOADED = ("rewrite_module", "headers_module", "expires_module")


def default_server_text(document_root: str | Path) -> str:
    """The server configuration assumed when only a docroot is given: Debian's apache2.conf
    (``<Directory />`` locked down, ``.ht*`` denied, TypesConfig, DirectoryIndex of dir.conf)
    with a site whose ``<Directory>`` lets ``.htaccess`` files override (AllowOverride All)."""
    root = str(Path(document_root).resolve())
    return (
        "AccessFileName .htaccess\n"
        "TypesConfig /etc/mime.types\n"
        "<Directory />\n    Options FollowSymLinks\n    AllowOverride None\n"
        "    Require all denied\n</Directory>\n"
        '<FilesMatch "^\\.ht">\n    Require all denied\n</FilesMatch>\n'
        f'DocumentRoot "{root}"\n'
        f'<Directory "{root}">\n    Options Indexes FollowSymLinks\n    AllowOverride All\n'
        "    Require all granted\n</Directory>\n"
        f"DirectoryIndex {DEBIAN_INDEX}\n"
    )


def default_state(state: ReadState) -> ReadState:
    modules = state.modules.copy()
    for name in ALWAYS_LOADED:
        modules.add(name)
    return replace(state, modules=modules, defines=set(state.defines),
                   variables=dict(state.variables))


def site_from_text(text: str, name: str, state: ReadState) -> Site:
    config = parse_text(text, name)
    loaded = LoadedConfig(main=name, nodes=list(config.nodes), state=state)
    loaded.files[name] = config
    return build_site(loaded)


# Workspace → Site, for as long as the workspace lives (a Workspace is not hashable).
_SITES: dict[int, tuple[weakref.ref[Workspace], Site]] = {}


def site_for(target: Workspace | Site | LoadedConfig) -> Site:
    """The :class:`Site` of a workspace (built once and remembered), a loaded server config,
    or a site as is.  A docroot without server config gets :func:`default_server_text`."""
    if isinstance(target, Site):
        return target
    if isinstance(target, LoadedConfig):
        return build_site(target)
    cached = _SITES.get(id(target))
    if cached is not None and cached[0]() is target:
        return cached[1]
    if target.server is not None:
        site = build_site(target.server)
        if target.docroot is not None and not any(
                d.lname == "documentroot" for d in site.main.server_directives):
            site.main.document_root = str(Path(target.docroot).resolve())
        site.preload(target.access)
    else:
        root = target.docroot or Path.cwd()
        site = site_from_text(default_server_text(root), "<default server config>",
                              default_state(target.state))
    _SITES[id(target)] = (weakref.ref(target), site)
    weakref.finalize(target, _SITES.pop, id(target), None)
    return site


def evaluate(target: Workspace | Site | LoadedConfig, request: Request, *,
             trace: bool = True) -> Answer:
    """What Apache answers to *request* under *target*'s configuration.

    With ``trace=False`` the explanation (``steps``, ``applied``, rewrite traces) is not
    built: the same answer, several times faster (for probes and benchmarks)."""
    site = site_for(target)
    key = ("vhost", request.host, request.local_addr, request.port)
    server = site.memo.get(key)
    if server is None:
        server = site.memo[key] = site.select(request.host, request.local_addr, request.port)
    return _Evaluation(site, server, request, trace).run()


# -- one evaluation ---------------------------------------------------------------------------

@dataclass(slots=True)
class _Round:
    """One request_rec: what processing left."""

    uri: str = ""
    query: str | None = None
    status: int = 0  # 0: OK so far
    location: str | None = None
    filename: str | None = None
    path_info: str = ""
    kind: str | None = None  # "file", "dir", None (nothing there)
    sections: list[ConfigSection] = field(default_factory=list)
    config: DirConfig = field(default_factory=dict)
    content_type: str | None = None
    handler: str | None = None
    env: dict[str, str] = field(default_factory=dict)
    redirect_to: str | None = None  # the handler's internal redirect (URL-path?query)
    redirect_pending: str | None = None  # a per-directory rewrite's, done by the handler
    served: bool = False
    listing: bool = False
    rewrite_mime: str | None = None
    rewrite_handler: str | None = None
    vary: list[str] = field(default_factory=list)  # mod_rewrite's Vary (headers_out)
    context: tuple[str, str] | None = None  # Alias (prefix, directory) for mod_rewrite


_REWRITE_SLOTS = RewriteRequest.__slots__


def _clone(request: RewriteRequest) -> RewriteRequest:
    """A shallow copy (``copy.copy`` is ten times slower on a slotted dataclass)."""
    new = object.__new__(RewriteRequest)
    for name in _REWRITE_SLOTS:
        setattr(new, name, getattr(request, name))
    return new


class _Evaluation:
    """The processing of one request (and its internal redirects and sub-requests)."""

    def __init__(self, site: Site, server: VirtualServer, request: Request,
                 trace: bool = True) -> None:
        self.site = site
        self.server = server
        self.request = request
        self.trace = trace
        self.steps: list[Step] = []
        self.unsupported: list[str] = []
        self.rewrite_ended = False  # [END] stops rewriting for the rest of the request
        self.subreq_depth = 0
        self._rewrite_base: RewriteRequest | None = None
        self._rewriting = 0
        self.now = time.time()  # r->request_time, for mod_expires
        self.maps = server.rewrite.maps if server.rewrite is not None else {}

    def step(self, phase: str, message: str, node: Any = None,
             detail: Sequence[str] = ()) -> None:
        """Record a step (callers test ``self.trace`` first when the message is costly)."""
        if self.trace:
            self.steps.append(Step(phase, message, getattr(node, "file", None),
                                   getattr(node, "line", None), tuple(detail)))

    def note(self, what: str) -> None:
        if what not in self.unsupported:
            self.unsupported.append(what)

    def base_url(self) -> str:
        return server_url_base(self.request, self.server.name)

    # -- the top level ------------------------------------------------------------------------

    def run(self) -> Answer:
        req = self.request
        if self.trace:
            self.step("request", f"{req.method} {req.target} → {self.server.label}"
                                 f" (DocumentRoot {self.server.document_root})")
        rnd = self.process_chain(req.path, req.query, req.method, {})
        status = rnd.status or 200
        if status >= 400 and not rnd.served:
            return self.error_response(rnd, status)
        return self.answer(rnd, status)

    def process_chain(self, path: str, query: str | None, method: str,
                      env: dict[str, str], redirects: int = 0) -> _Round:
        """A request and its internal redirects, until one round gives an answer."""
        vary: list[str] = []
        while True:
            rnd = self.process(path, query, method, env, subrequest=False)
            if vary:
                rnd.vary[:0] = vary
            if rnd.redirect_to is None:
                return rnd
            limit = self.server.recursion_limit
            if redirects + 1 > limit:
                self.step("redirect", f"internal redirect to {rnd.redirect_to} refused: "
                                      f"LimitInternalRecursion ({limit}) exceeded → 500")
                return _Round(uri=rnd.uri, status=500, config=rnd.config,
                              sections=rnd.sections)
            redirects += 1
            target = rnd.redirect_to
            if self.trace:
                self.step("redirect", f"internal redirect #{redirects} to {target}")
            path, sep, rest = target.partition("?")
            query = rest if sep else None
            env = {f"REDIRECT_{k}": v for k, v in rnd.env.items()}
            env["REDIRECT_STATUS"] = str(rnd.status or 200)
            env["REDIRECT_URL"] = rnd.uri
            vary = rnd.vary  # mod_rewrite's note "redirect-keeps-vary"

    # -- one round ----------------------------------------------------------------------------

    def process(self, raw_path: str, query: str | None, method: str, env: dict[str, str],
                *, subrequest: bool, filename: str | None = None) -> _Round:
        """``ap_process_request_internal`` (and the handler unless *subrequest*).  A file
        sub-request (*filename*) skips the URL phases."""
        server = self.server
        rnd = _Round(query=query, env=dict(env), config=server.defaults.config,
                     sections=[server.defaults])
        if filename is not None:
            rnd.uri, rnd.filename = raw_path, filename
        else:
            if not self.decode_uri(rnd, raw_path):
                return rnd
            _, rnd.config = self.location_and_if(rnd, [server.defaults],
                                                 server.defaults.config)
            if not self.translate(rnd, method, subrequest):
                return rnd
        self.map_to_storage(rnd)
        if rnd.status:
            return rnd
        self.header_parser(rnd)
        if self.check_access(rnd, method):
            return rnd
        self.type_checker(rnd)
        self.fixups(rnd, method, subrequest)
        if rnd.status or subrequest:
            return rnd
        self.handler(rnd, method)
        return rnd

    def decode_uri(self, rnd: _Round, raw_path: str) -> bool:
        """``ap_normalize_path`` then ``ap_unescape_url_ex``; False when Apache refuses."""
        server = self.server
        normalized = normalize_path(raw_path, merge_slashes=server.merge_slashes)
        if normalized is None:
            self.step("uri", f"invalid URI path {raw_path!r} (a bad %-escape, or '..' above "
                             "the root) → 400")
            rnd.status, rnd.uri = 400, raw_path
            return False
        uri, status = unescape_path(normalized, server.encoded_slashes)
        if status:
            if self.trace:
                why = ("a bad %-escape" if status == 400 else
                       "an encoded '/' (AllowEncodedSlashes Off) or NUL")
                self.step("uri", f"{raw_path!r} has {why} → {status}")
            rnd.status, rnd.uri = status, normalized
            return False
        if server.encoded_slashes == "on":
            uri = normalize_path(uri, merge_slashes=server.merge_slashes) or uri
        rnd.uri = uri
        if self.trace and uri != raw_path:
            self.step("uri", f"URL-path {raw_path!r} → {uri!r}")
        return True

    def location_and_if(self, rnd: _Round, sections: list[ConfigSection], config: DirConfig
                        ) -> tuple[list[ConfigSection], DirConfig]:
        """``walk_location_and_if``: the matching ``<Location>``s, then the ``<If>``s of the
        result, merged onto *sections* (whose merged config is *config*)."""
        if self.server.locations:
            locs = location_walk(self.server.locations, rnd.uri, self.server.merge_slashes)
            if locs:
                sections = [*sections, *locs]
                config = self.site.merged(sections)
        ifs = config["core"].ifs
        if ifs:
            chosen = if_walk(ifs, self.lookup_for(rnd), self.unsupported)
            if chosen:
                sections = [*sections, *chosen]
                config = self.site.merged(sections)
        return sections, config

    # -- translate_name -----------------------------------------------------------------------

    def rewrite_request(self, rnd: _Round, method: str, subrequest: bool) -> RewriteRequest:
        """The request as mod_rewrite sees it in this round."""
        base = self._rewrite_base
        if base is None:
            req, server = self.request, self.server
            base = self._rewrite_base = RewriteRequest(
                uri=rnd.uri, method=req.method, headers=RewriteHeaders(req.headers.as_dict()),
                host=req.host, port=req.host_port or req.port, https=req.https,
                remote_addr=req.remote_addr, server_addr=req.local_addr,
                the_request=req.the_request, protocol=req.protocol, fs=self.site.stat,
                document_root=server.document_root, server_name=server.name,
                server_aliases=tuple(server.aliases), server_name_port=req.port,
                lookahead=self)
        # The engine keeps no reference to the request after a call, so one object is reused;
        # a look-ahead sub-request during a call (%{LA-U:…}, -U, -F) gets a copy.
        out = _clone(base) if self._rewriting else base
        out.uri, out.query, out.method, out.env = rnd.uri, rnd.query, method, rnd.env
        out.path_info, out.is_subrequest = rnd.path_info, subrequest
        out.symlinks_allowed = bool(rnd.config["core"].options & (OPT_SYM_LINKS | OPT_SYM_OWNER))
        out.context_prefix, out.context_document_root = rnd.context or ("", None)
        return out

    def run_rewrite(self, rnd: _Round, call: Callable[[], RewriteOutcome], phase: str,
                    what: str) -> RewriteOutcome:
        self._rewriting += 1
        try:
            out = call()
        finally:
            self._rewriting -= 1
        for item in out.unsupported:
            self.note(item)
        if self.trace:
            message = f" ({out.message})" if out.message else ""
            self.step(phase, f"{what}: {out.action}{message}",
                      detail=out.trace().splitlines())
        if out.vary:
            rnd.vary.extend(out.vary)
        for key, value in out.env.items():
            if value is not None:
                rnd.env[key] = value
        if out.end:
            self.rewrite_ended = True
        if out.action in STOP_ACTIONS:
            rnd.status = out.status or (302 if out.action == "redirect" else 500)
            rnd.location = out.location
            if out.action == "proxy":
                # mod_rewrite refuses [P] when mod_proxy is not loaded.
                proxy = self.site.state.modules.has_module("mod_proxy")
                rnd.status, rnd.location = (502, None) if proxy else (403, None)
                if proxy:
                    self.note("[P]: proxying is not modelled (502 stands for the backend)")
        return out

    def translate(self, rnd: _Round, method: str, subrequest: bool) -> bool:
        """``ap_run_translate_name``: mod_rewrite, mod_alias, core.  False when it already
        decided the answer."""
        server = self.server
        rw = server.rewrite
        if rw is not None and rw.engine and not self.rewrite_ended:
            request = self.rewrite_request(rnd, method, subrequest)
            out = self.run_rewrite(rnd, lambda: rewrite_server(rw, request, trace=self.trace),
                                   "translate", "mod_rewrite (server context)")
            if rnd.status:
                return False
            if out.action == "rewrite":
                rnd.query = out.query
                rnd.rewrite_mime, rnd.rewrite_handler = out.mime_type, out.handler
                if not out.passthrough:
                    rnd.filename = out.filename
                    if self.trace:
                        self.step("translate", f"mod_rewrite maps {rnd.uri} → {rnd.filename}")
                    return True
                rnd.uri = out.uri or rnd.uri
        alias: AliasDir | None = rnd.config.get("alias")
        relative = bool(alias and alias.allow_relative)
        if alias is not None and alias.redirect is not None:
            status, url, directive = alias.redirect
            return self.redirect(rnd, status, url, directive, "translate", relative)
        if server.redirects:
            hit = try_alias_list(rnd.uri, server.redirects)
            if hit is not None:
                return self.redirect(rnd, hit.entry.status, hit.found, hit.entry.directive,
                                     "translate", relative)
        if server.aliases_list:
            hit = try_alias_list(rnd.uri, server.aliases_list)
            if hit is not None:
                rnd.filename = hit.found
                rnd.context = (hit.entry.fake, hit.entry.real or "")
                if hit.entry.handler:
                    rnd.handler = hit.entry.handler
                directive = hit.entry.directive
                if self.trace:
                    name = directive.name if directive else "Alias"
                    self.step("translate", f"{name} maps {rnd.uri} → {rnd.filename}",
                              directive)
                return True
        if not rnd.uri.startswith("/"):
            self.step("translate", f"invalid URI {rnd.uri!r} → 400")
            rnd.status = 400
            return False
        rnd.filename = core_translate(server.document_root, rnd.uri)
        if self.trace:
            self.step("translate", f"DocumentRoot maps {rnd.uri} → {rnd.filename}")
        return True

    def redirect(self, rnd: _Round, status: int, found: str | None, directive: Any,
                 phase: str, allow_relative: bool) -> bool:
        """mod_alias's answer for a matching Redirect (always False: the answer is decided)."""
        name = getattr(directive, "name", "Redirect")
        if 300 <= status < 400:
            target = escape_uri(rnd.uri) + (f"?{rnd.query}" if rnd.query is not None else "")
            location = finish_redirect(found or "", self.request.with_target(target),
                                       self.server.name, allow_relative=allow_relative)
            if location is None:
                self.step(phase, f"{name}: target {found!r} is not a URL → 500", directive)
                rnd.status = 500
                return False
            rnd.location = location
        rnd.status = status
        if self.trace:
            where = f" {rnd.location}" if rnd.location else ""
            self.step(phase, f"{name} → {status}{where}", directive)
        return False

    # -- map_to_storage -----------------------------------------------------------------------

    def map_to_storage(self, rnd: _Round) -> None:
        """The directory and file walks (cached per file by the site), then the location and
        ``<If>`` walks."""
        assert rnd.filename is not None
        walk, files, config = self.site.walk(self.server, rnd.filename)
        sections = [self.server.defaults, *walk.sections]
        if self.trace:
            for level in walk.htaccess_skipped:
                self.step("walk", f"{level} has an access file that is not read: "
                                  "AllowOverride None and no AllowOverrideList in force there")
            for s in walk.sections:
                self.step("walk", s.label if s.kind != "htaccess" else f".htaccess {s.file}",
                          s if s.kind != "htaccess" else None)
                for node, message in s.nonfatal:
                    self.step("walk", f"ignored (AllowOverride Nonfatal): {message}", node)
        if walk.status:
            self.step("walk", f"{walk.message} → {walk.status}")
            rnd.status = walk.status
            rnd.config = self.site.merged(sections)
            rnd.sections = sections
            return
        rnd.filename, rnd.path_info, rnd.kind = walk.filename, walk.path_info, walk.kind
        sections.extend(files)
        rnd.sections, rnd.config = self.location_and_if(rnd, sections, config)
        if self.trace:
            for s in rnd.sections[len(walk.sections) + 1:]:
                self.step("walk", s.label, s)
            what = {"file": "a file", "dir": "a directory"}.get(rnd.kind or "", "nothing")
            info = f" + PATH_INFO {rnd.path_info}" if rnd.path_info else ""
            self.step("walk", f"{rnd.filename}{info} is {what}; Options in force: "
                              f"{options_text(rnd.config['core'].options)}")

    # -- header_parser: mod_setenvif, mod_env ---------------------------------------------------

    def header_parser(self, rnd: _Round) -> None:
        conf: SetEnvIfDir | None = rnd.config.get("setenvif")
        if conf is not None:
            for entry in conf.entries:
                subject = self.setenvif_subject(rnd, entry.attribute)
                if subject is None or entry.regex.search(subject) is None:
                    continue
                for name, value in entry.assignments:
                    if value is None:
                        rnd.env.pop(name, None)
                    else:
                        rnd.env[name] = value
                if self.trace:
                    names = ", ".join(n if v is not None else "!" + n
                                      for n, v in entry.assignments)
                    self.step("env", f"{entry.directive.name} matched: {names}",
                              entry.directive)
        env: EnvDir | None = rnd.config.get("env")
        if env is not None:
            for name in env.unset:
                rnd.env.pop(name, None)
            rnd.env.update(env.set)

    def setenvif_subject(self, rnd: _Round, attribute: str) -> str | None:
        req = self.request
        special = {"remote_addr": req.remote_addr, "server_addr": req.local_addr,
                   "request_method": req.method, "request_protocol": req.protocol,
                   "request_uri": rnd.uri, "remote_host": req.remote_addr}
        found = special.get(attribute.lower())
        if found is not None:
            return found
        value = req.headers.get(attribute)
        return value if value is not None else rnd.env.get(attribute)

    # -- access -------------------------------------------------------------------------------

    def check_access(self, rnd: _Round, method: str) -> bool:
        """access_checker (mod_access_compat), access_checker_ex/authn/authz (mod_authz_core),
        combined by ``Satisfy``; True when the request is refused.  A decision that depends
        only on the configuration, the method and the client is memoised."""
        config = rnd.config
        if "access" not in config and "authz" not in config and "authn" not in config:
            return False
        key = ("access", id(config), method, self.request.remote_addr)
        if not self.trace:
            status = self.site.memo.get(key)
            if status is not None:
                rnd.status = status
                return bool(status)
        dynamic: list[bool] = []
        status = self.access_status(rnd, method, dynamic)
        if not dynamic:
            self.site.memo[key] = status
        rnd.status = status
        return bool(status)

    def access_status(self, rnd: _Round, method: str, dynamic: list[bool]) -> int:
        access: AccessDir | None = rnd.config.get("access")
        authz: AuthzDir | None = rnd.config.get("authz")
        authn: AuthnDir | None = rnd.config.get("authn")
        satisfy = access.satisfy if access is not None and access.satisfy else "all"
        compat_ok = self.check_compat(access, rnd, method, dynamic)
        if satisfy == "any" and compat_ok:
            self.step("access", "Satisfy Any: Order/Allow/Deny allows → granted",
                      _last_directive(access))
            return 0
        if satisfy == "all" and not compat_ok:
            self.step("access", "Order/Allow/Deny denies → 403", _last_directive(access))
            return 403
        auth_type = authn.auth_type if authn is not None else None
        if authz is None or authz.section is None:
            if auth_type is not None:
                self.step("access", "AuthType configured with no corresponding authorization "
                                    "directives → 500")
                return 500
            return 0
        result = self.apply_authz(authz.section, rnd, method, "and", dynamic)
        self.step("access", f"authorization: {result}")
        if result == "granted":
            return 0
        if result == "denied-no-user":
            if auth_type is None:
                self.step("access", "a Require needs an authenticated user but no AuthType is "
                                    "set → 500")
                return 500
            self.step("access", f"AuthType {auth_type}: authentication required → 401")
            return 401
        self.step("access", "authorization denied → 403")
        return 403

    def check_compat(self, access: AccessDir | None, rnd: _Round, method: str,
                     dynamic: list[bool]) -> bool:
        """``check_dir_access``: Order/Allow/Deny for this client."""
        if access is None:
            return True
        m = "GET" if method == "HEAD" else method

        def found(entries: Sequence[Any]) -> bool:
            for e in entries:
                if e.methods is not None and m not in e.methods:
                    continue
                kind = e.kind
                if kind == "all":
                    return True
                if kind == "ip":
                    if ip_matches(e.value, self.request.remote_addr):
                        return True
                elif kind in ("env", "nenv"):
                    dynamic.append(True)
                    if (e.value in rnd.env) == (kind == "env"):
                        return True
                else:
                    self.note(f"Allow/Deny from {e.value}: host names need DNS (taken as no "
                              "match)")
            return False

        if access.order == "allow,deny":
            ok = found(access.allows) and not found(access.denies)
        elif access.order == "deny,allow":
            ok = not found(access.denies) or found(access.allows)
        else:
            ok = found(access.allows) and not found(access.denies)
        if self.trace:
            self.step("access", f"Order {access.order}: {'allowed' if ok else 'denied'}",
                      _last_directive(access))
        return ok

    def apply_authz(self, node: AuthzNode, rnd: _Round, method: str, parent_op: str,
                    dynamic: list[bool]) -> AuthzResult:
        """``apply_authz_sections``: a group or a Require line, with its method limits."""
        if node.methods is not None and method not in node.methods and (
                method != "HEAD" or "GET" not in node.methods):
            return "granted" if parent_op == "and" else "neutral"
        result: AuthzResult
        if node.provider is not None:
            result = self.provider(node, rnd, method, dynamic)
            if self.trace:
                self.step("access", f"{node.describe()} → {result}", node.directive)
        else:
            result = "neutral"
            for child in node.children:
                r = self.apply_authz(child, rnd, method, node.op, dynamic)
                if r == "neutral":
                    continue
                if node.op == "and":
                    if r == "denied":
                        result = r
                        break
                    if (r == "denied-no-user" and result != "denied") or result == "neutral":
                        result = r
                else:
                    if r == "granted":
                        result = r
                        break
                    if (r == "denied-no-user" and result == "denied") or result == "neutral":
                        result = r
        if node.negate:
            if result == "granted":
                result = "denied"
            elif result in ("denied", "denied-no-user"):
                result = "neutral"
        return result

    def provider(self, node: AuthzNode, rnd: _Round, method: str,
                 dynamic: list[bool]) -> AuthzResult:
        """The authz providers, for an unauthenticated client."""
        name, args = node.provider, node.args.split()
        req = self.request
        if name == "all":
            return "granted" if args and args[0].lower() == "granted" else "denied"
        if name == "ip":
            return "granted" if any(ip_matches(a, req.remote_addr) for a in args) else "denied"
        if name == "local":
            local = ip_matches("127.0.0.0/8", req.remote_addr) or req.remote_addr in (
                "::1", req.local_addr)
            return "granted" if local else "denied"
        if name == "method":  # HEAD is M_GET to Apache
            wanted = "GET" if method == "HEAD" else method
            return "granted" if wanted in {a.upper() for a in args} else "denied"
        if name in NO_USER_PROVIDERS:
            return "denied-no-user"
        dynamic.append(True)
        if name == "env":
            return "granted" if any(a in rnd.env for a in args) else "denied"
        if name == "expr":
            text = node.args
            if len(text) >= 2 and text[0] == '"' and text[-1] == '"':
                text = text[1:-1]
            try:
                ok = _expr(text).evaluate(self.lookup_for(rnd))
            except ExprError:
                return "denied"
            except ExprUnsupported as exc:
                self.note(f"Require expr: cannot evaluate {exc}")
                return "denied"
            return "granted" if ok else "denied"
        self.note(f"Require {name}: not modelled (taken as denied)")
        return "denied"

    # -- type_checker: mod_mime ---------------------------------------------------------------

    def type_checker(self, rnd: _Round) -> None:
        """``find_ct``: every extension after the base name is looked up, left to right (the
        last with a type wins; TypesConfig unless an AddType/RemoveType says otherwise)."""
        if rnd.kind is None and rnd.filename and rnd.config["core"].options & OPT_MULTI:
            self.multiviews(rnd)
        if rnd.kind == "dir":
            rnd.content_type = DIR_MAGIC_TYPE
        elif rnd.filename is not None:
            key = ("type", id(rnd.config), rnd.filename)
            found = self.site.memo.get(key)
            if found is None:
                found = self.site.memo[key] = self.mime_type(rnd.config.get("mime"),
                                                             rnd.filename)
            ctype, handler = found
            rnd.content_type = ctype
            if handler:
                rnd.handler = handler
        if rnd.rewrite_mime:
            rnd.content_type = rnd.rewrite_mime
        if rnd.rewrite_handler:
            rnd.handler = rnd.rewrite_handler

    def multiviews(self, rnd: _Round) -> None:
        """mod_negotiation's ``handle_multi`` (Options MultiViews, nothing at the path): the
        files ``<name>.<ext>…`` whose extensions mod_mime all knows are the variants, ranked by
        the Accept type quality, ties going to the smallest file."""
        assert rnd.filename is not None
        directory, _, base = rnd.filename.rpartition("/")
        if not base or rnd.path_info:
            return
        mime: MimeDir | None = rnd.config.get("mime")
        mappings = mime.mappings if mime is not None and mime.mappings else {}
        variants = []
        for entry in self.site.listdir(directory):
            if not entry.startswith(base + ".") or not self.site.stat.is_file(
                    f"{directory}/{entry}"):
                continue
            exts = [e.lower() for e in entry[len(base) + 1:].split(".") if e]
            if all(e in self.site.types or _negotiable(mappings.get(e)) for e in exts):
                variants.append(entry)
        if not variants:
            return
        accept = _accept_ranges(self.request.headers.get("Accept"))
        scored = []
        for variant in variants:
            ctype = self.mime_type(rnd.config.get("mime"), f"{directory}/{variant}")[0]
            quality = _type_quality(accept, (ctype or "").split(";", 1)[0].strip())
            if quality > 0:
                size = self.site.stat.size(f"{directory}/{variant}") or 0
                scored.append((-quality, size, variant))
        if not scored:
            rnd.status = 406
            self.step("type", f"MultiViews: no variant of {base} is acceptable → 406")
            return
        if len(scored) > 1:
            self.note(f"MultiViews: {len(scored)} variants of {base}; chosen by the Accept "
                      "type quality, then the smallest (languages, charsets and encodings "
                      "are not negotiated by the model)")
        chosen = min(scored)[2]
        parent = rnd.uri[:rnd.uri.rfind("/") + 1]
        sub = self.subrequest(escape_uri(parent) + escape_uri(chosen), rnd.query, "GET",
                              filename=f"{directory}/{chosen}")
        self.step("type", f"MultiViews: {base} → {chosen}")
        if sub.status:
            rnd.status = sub.status
            return
        self.fast_redirect(rnd, sub)
        rnd.uri = parent + base

    def mime_type(self, mime: MimeDir | None, filename: str) -> tuple[str | None, str | None]:
        name = filename.rsplit("/", 1)[-1]
        stripped = name.lstrip(".")
        dot = stripped.find(".")
        exts = stripped[dot + 1:].split(".") if dot >= 0 else []
        ctype = charset = handler = None
        mappings = mime.mappings if mime is not None and mime.mappings else {}
        for ext in exts:
            if not ext:
                continue
            low = ext.lower()
            info = mappings.get(low)
            if info is None or info.type is None:
                found = self.site.types.get(low)
                if found is not None:
                    ctype = found
            if info is not None:
                if info.type:
                    ctype = info.type
                if info.charset:
                    charset = info.charset
                if info.handler:
                    handler = info.handler
        if ctype is not None and charset:
            base, _, params = ctype.partition(";")
            kept = [p.strip() for p in params.split(";")
                    if p.strip() and not p.strip().lower().startswith("charset=")]
            ctype = "; ".join([base.strip(), *kept, f"charset={charset}"])
        return ctype, handler

    # -- fixups -------------------------------------------------------------------------------

    def fixups(self, rnd: _Round, method: str, subrequest: bool) -> None:
        """core (ForceType/SetHandler), mod_rewrite, mod_alias, mod_dir — in hook order."""
        core: CoreDir = rnd.config["core"]
        if core.mime_type and core.mime_type != "none":
            rnd.content_type = core.mime_type
        if core.handler and core.handler != "none":
            rnd.handler = core.handler
        if self.rewrite_fixup(rnd, method, subrequest) or self.alias_fixup(rnd):
            return
        if rnd.kind == "dir":
            self.dir_fixup(rnd, method)
        elif rnd.kind is None and rnd.handler is None:
            self.fallback_fixup(rnd)

    def rewrite_fixup(self, rnd: _Round, method: str, subrequest: bool) -> bool:
        """Per-directory mod_rewrite; True when it decided the answer."""
        config: RewriteConfig | None = rnd.config.get("rewrite")
        filename = rnd.filename
        if (config is None or not config.engine or not config.rules or self.rewrite_ended
                or filename is None):
            return False
        request = self.rewrite_request(rnd, method, subrequest)
        directory = config.directory or "/"
        out = self.run_rewrite(
            rnd, lambda: rewrite_directory(config, request, filename, directory,
                                           path_info=rnd.path_info, maps=self.maps,
                                           trace=self.trace),
            "fixups", f"mod_rewrite (per-directory {config.directory})")
        if rnd.status:
            return True
        if out.mime_type:
            rnd.content_type = out.mime_type
        if out.handler:
            rnd.handler = out.handler
        if out.action == "rewrite":
            if out.internal_redirect and out.uri is not None:
                target = out.uri + (f"?{out.query}" if out.query is not None else "")
                rnd.handler = REDIRECT_HANDLER
                rnd.redirect_pending = target
                if self.trace:
                    self.step("fixups", f"mod_rewrite: internal redirect to {target} once "
                                        "the fixups are done")
            elif out.filename is not None:
                rnd.filename, rnd.query = out.filename, out.query
        return False

    def alias_fixup(self, rnd: _Round) -> bool:
        """``fixup_redir``: per-directory Redirect*, matched against ``r->uri``."""
        alias: AliasDir | None = rnd.config.get("alias")
        if alias is None:
            return False
        relative = bool(alias.allow_relative)
        if alias.redirect is not None:
            status, url, directive = alias.redirect
            self.redirect(rnd, status, url, directive, "fixups", relative)
            return True
        hit = try_alias_list(rnd.uri, alias.redirects)
        if hit is None:
            return False
        self.redirect(rnd, hit.entry.status, hit.found, hit.entry.directive, "fixups", relative)
        return True

    def dir_fixup(self, rnd: _Round, method: str) -> None:
        """``fixup_dir``: DirectorySlash (even after a per-directory rewrite), then the
        DirectoryIndex candidates as sub-requests."""
        if rnd.handler is None:
            rnd.handler = DIR_MAGIC_TYPE
        if rnd.path_info:
            return
        conf: DirDir = rnd.config.get("dir") or DirDir()
        if not rnd.uri.endswith("/"):
            if conf.slash is False:
                return
            target = escape_uri(rnd.uri) + "/" + (f"?{rnd.query}" if rnd.query is not None
                                                   else "")
            rnd.status = 301
            rnd.location = self.base_url() + target
            if self.trace:
                self.step("fixups", f"mod_dir: {rnd.uri} is a directory without trailing "
                                    f"slash (DirectorySlash On) → 301 {rnd.location}")
            return
        if rnd.handler == REDIRECT_HANDLER:
            return
        if conf.check_handler and rnd.handler != DIR_MAGIC_TYPE:
            return
        names = conf.index_names if conf.index_names is not None else DEFAULT_INDEX
        error = 0
        for name in names:
            sub_target = name if name.startswith("/") else escape_uri(rnd.uri) + name
            sub = self.subrequest(sub_target, rnd.query, method)
            if not sub.status and (sub.kind == "file" or sub.handler == "proxy-server"):
                if conf.index_redirect and 300 <= conf.index_redirect < 400:
                    rnd.status = conf.index_redirect
                    rnd.location = self.base_url() + escape_uri(sub.uri)
                    self.step("fixups", f"DirectoryIndexRedirect → {rnd.status} "
                                        f"{rnd.location}")
                    return
                if self.trace:
                    self.step("fixups", f"DirectoryIndex: {sub.uri} is served",
                              conf.index_directive)
                self.fast_redirect(rnd, sub)
                return
            if 300 <= sub.status < 400 or (sub.status in (401, 406) and len(names) == 1):
                rnd.status, rnd.location = sub.status, sub.location
                self.step("fixups", f"DirectoryIndex {name}: sub-request answers {sub.status}")
                return
            if sub.status and sub.status != 404:
                error = sub.status
            if self.trace:
                what = "not found" if sub.status in (0, 404) else str(sub.status)
                self.step("fixups", f"DirectoryIndex candidate {name}: {what}")
        if error:
            rnd.status = error
            self.step("fixups", f"no DirectoryIndex usable; the last sub-request error was "
                                f"{error}")

    def fallback_fixup(self, rnd: _Round) -> None:
        """``fixup_dflt``: FallbackResource for a request that maps to nothing."""
        conf: DirDir | None = rnd.config.get("dir")
        if conf is None or conf.fallback is None or conf.fallback.lower() == "disabled":
            return
        name = conf.fallback
        if not name.startswith("/"):
            name = escape_uri(rnd.uri[:rnd.uri.rfind("/") + 1]) + name
        sub = self.subrequest(name, rnd.query, "GET")
        if not sub.status and (sub.kind == "file" or sub.handler == "proxy-server"):
            self.step("fixups", f"FallbackResource {conf.fallback}: {sub.uri} is served")
            self.fast_redirect(rnd, sub)
            return
        if 300 <= sub.status < 400:
            rnd.status, rnd.location = sub.status, sub.location
        elif sub.status and sub.status != 404:
            rnd.status = sub.status
        self.step("fixups", f"FallbackResource {conf.fallback}: not usable "
                            f"({sub.status or 'not a file'})")

    def subrequest(self, target: str, query: str | None, method: str,
                   filename: str | None = None) -> _Round:
        """``ap_sub_req_lookup_uri`` (or ``_file``): the phases up to the fixups."""
        if query is not None and "?" not in target:
            target = f"{target}?{query}"
        path, sep, q = target.partition("?")
        if self.subreq_depth >= 10:
            return _Round(uri=path, status=500)
        self.subreq_depth += 1
        saved = self.rewrite_ended
        try:
            return self.process(path, q if sep else None, method, {}, subrequest=True,
                                filename=filename)
        finally:
            self.subreq_depth -= 1
            self.rewrite_ended = saved

    def fast_redirect(self, rnd: _Round, sub: _Round) -> None:
        """``ap_internal_fast_redirect``: the request becomes the sub-request."""
        for name in ("uri", "query", "filename", "path_info", "kind", "sections", "config",
                     "content_type", "handler", "redirect_pending", "context"):
            setattr(rnd, name, getattr(sub, name))
        rnd.env.update(sub.env)
        rnd.vary.extend(sub.vary)

    # -- look-ahead for mod_rewrite (``-U``, ``-F``, ``%{LA-U:…}``) ---------------------------

    def status(self, kind: Literal["uri", "file"], path: str) -> tuple[int, str | None] | None:
        sub = (self.subrequest(path, None, self.request.method) if kind == "uri" else
               self.subrequest(path, None, self.request.method, filename=path))
        return (sub.status or 200), sub.filename

    def variable(self, kind: Literal["uri", "file"], path: str, name: str) -> str | None:
        if name not in ("REQUEST_FILENAME", "SCRIPT_FILENAME"):
            return None
        answer = self.status(kind, path)
        return answer[1] if answer is not None else None

    # -- the handler --------------------------------------------------------------------------

    def handler(self, rnd: _Round, method: str) -> None:
        """The redirect handler, mod_autoindex, or the default handler."""
        if rnd.handler == REDIRECT_HANDLER and rnd.redirect_pending is not None:
            rnd.redirect_to = rnd.redirect_pending
            return
        module = GENERATED_HANDLERS.get(rnd.handler or "")
        if module is not None and self.site.state.modules.has_module(module):
            rnd.served = rnd.listing = True  # a page the module writes, no file
            self.step("handler", f"{module} answers ({rnd.handler})")
            return
        if rnd.kind == "dir":
            handler = rnd.handler or DIR_MAGIC_TYPE
            if handler not in (DIR_MAGIC_TYPE, "default-handler"):
                rnd.status = 404
                self.step("handler", f"handler {handler}: a directory cannot be served → 404")
            elif rnd.config["core"].options & OPT_INDEXES:
                rnd.listing = rnd.served = True
                self.step("handler", "mod_autoindex: directory listing (Options Indexes)")
            else:
                rnd.status = 403
                self.step("handler", "mod_autoindex: directory index forbidden by Options "
                                     "directive → 403")
            return
        if method == "OPTIONS":
            self.step("handler", "OPTIONS: the default handler answers with an Allow header")
        elif method not in ("GET", "HEAD", "POST"):
            rnd.status = 405
            self.step("handler", f"{method} is not allowed on a static file → 405")
        elif rnd.kind is None:
            rnd.status = 404
            if self.trace:
                self.step("handler", f"{rnd.filename}{rnd.path_info}: no such file → 404")
        elif rnd.path_info and rnd.config["core"].accept_path_info != "on":
            rnd.status = 404
            if self.trace:
                self.step("handler", f"{rnd.filename} with PATH_INFO {rnd.path_info} "
                                     "(AcceptPathInfo Default/Off) → 404")
        else:  # POST too: core_create_req enables "deliver_script" by default
            rnd.served = True
            if self.trace:
                self.step("handler", f"{rnd.handler or 'default-handler'} serves "
                                     f"{rnd.filename}")

    # -- errors, ErrorDocument ----------------------------------------------------------------

    def error_response(self, rnd: _Round, status: int) -> Answer:
        """``ap_die``: the ErrorDocument of the failing request's configuration, if any."""
        core: CoreDir = rnd.config["core"]
        doc = core.error_documents.get(status)
        if doc is None or doc[0].lower() == "default":
            return self.answer(rnd, status)
        target, directive = doc
        kind = error_document_kind(target)
        if kind == "text":
            self.step("error", f"ErrorDocument {status}: a message", directive)
            answer = self.answer(rnd, status)
            answer.body = target.strip('"')
            return answer
        if kind == "url":
            self.step("error", f"ErrorDocument {status} is a URL → 302 {target}", directive)
            rnd.location = target
            return self.answer(rnd, 302)
        self.step("error", f"ErrorDocument {status}: internal redirect to {target}", directive)
        path, sep, query = target.partition("?")
        env = {f"REDIRECT_{k}": v for k, v in rnd.env.items()}
        env["REDIRECT_STATUS"] = str(status)
        doc_round = self.process_chain(path, query if sep else None, "GET", env, redirects=1)
        if doc_round.served and not doc_round.status:
            return self.answer(doc_round, status)
        self.step("error", f"the ErrorDocument itself failed ({doc_round.status or 'no file'})"
                           f"; Apache sends its own {status} page")
        return self.answer(rnd, status)

    # -- the answer ---------------------------------------------------------------------------

    def answer(self, rnd: _Round, status: int) -> Answer:
        served = rnd.served and not rnd.listing and rnd.filename is not None
        file = None
        if served and rnd.filename is not None:
            root = self.server.document_root.rstrip("/")
            file = (rnd.filename[len(root) + 1:] if rnd.filename.startswith(root + "/")
                    else rnd.filename)
        return Answer(
            status=status,
            location=rnd.location if 300 <= status < 400 or status == 201 else None,
            file=file, filename=rnd.filename if served else None,
            headers=self.response_headers(rnd, status),
            applied=[a for s in rnd.sections for a in s.applied] if self.trace else [],
            steps=self.steps, server=self.server.label,
            document_root=self.server.document_root, handler=rnd.handler,
            listing=rnd.listing, unsupported=self.unsupported)

    def response_headers(self, rnd: _Round, status: int) -> dict[str, str]:
        """The headers the configuration sets: Content-Type (with AddDefaultCharset) and
        mod_rewrite's Vary, mod_expires, then mod_headers' ``always`` entries and — for a
        response the handler produced — its ``onsuccess`` entries, in merge order.  Without
        conditions on the request, the result is memoised per configuration."""
        conf: HeadersDir | None = rnd.config.get("headers")
        key = None
        code = self.expires_code(rnd) if rnd.served and status < 400 else None
        if not self.trace and (conf is None or conf.static) and not (code or "A").startswith(
                "M"):
            env_key = tuple(name in rnd.env for name in conf.env_names) if conf else ()
            key = ("headers", id(rnd.config), rnd.content_type, rnd.served, rnd.listing,
                   status < 400, tuple(rnd.vary), env_key, rnd.filename)
            found = self.site.memo.get(key)
            if found is not None:
                return self.with_expires(rnd, status, dict(found), code)
        out: list[tuple[str, str]] = []
        err: list[tuple[str, str]] = []
        ctype = rnd.content_type
        if rnd.served and not rnd.listing and ctype and ctype != DIR_MAGIC_TYPE:
            out.append(("Content-Type", self.with_default_charset(rnd, ctype)))
        if rnd.served and rnd.vary:
            out.append(("Vary", ",".join(rnd.vary)))
        expiry = self.expiry(rnd, code) if code is not None else None
        if expiry is not None:
            out.append(("Cache-Control", f"max-age={max(0, int(expiry - self.now))}"))
        if conf is not None:
            self.apply_headers(conf.always, err, rnd)
            if rnd.served:
                self.apply_headers(conf.onsuccess, out, rnd)
        merged: dict[str, str] = {}
        names: dict[str, str] = {}
        for name, value in [*err, *out]:
            low = name.lower()
            if low in names:
                merged[names[low]] += ", " + value
            else:
                names[low] = name
                merged[name] = value
        if "vary" in names:
            merged[names["vary"]] = fixup_vary(merged[names["vary"]])
        if key is not None:
            self.site.memo[key] = dict(merged)
        return self.with_expires(rnd, status, merged, code)

    def with_default_charset(self, rnd: _Round, ctype: str) -> str:
        """``ap_make_content_type``: AddDefaultCharset for text/plain and text/html types."""
        setting = rnd.config["core"].default_charset
        if setting is None or not setting[0] or "charset=" in ctype:
            return ctype
        if "text/plain" in ctype or "text/html" in ctype:
            return f"{ctype}; charset={setting[1]}"
        return ctype

    def expires_code(self, rnd: _Round) -> str | None:
        """mod_expires: the code (``A3600``, ``M60``) for this response's type, if any."""
        conf: ExpiresDir | None = rnd.config.get("expires")
        if conf is None or not conf.active:
            return None
        ctype = (rnd.content_type or "").split(";", 1)[0].strip().lower()
        code = conf.by_type.get(ctype)
        if code is None and conf.wildcards and "/" in ctype:
            code = conf.by_type.get(ctype.split("/", 1)[0] + "/*")
        return code if code is not None else conf.default

    def expiry(self, rnd: _Round, code: str | None) -> float | None:
        """When the response expires under *code* (None: no Expires header)."""
        if code is None:
            return None
        seconds = _leading_int(code[1:])
        if code[0] == "M":
            info = self.site.stat.lstat(rnd.filename) if rnd.filename else None
            return None if info is None else info.mtime + seconds
        return self.now + seconds

    def with_expires(self, rnd: _Round, status: int, headers: dict[str, str],
                     code: str | None) -> dict[str, str]:
        """Add the ``Expires`` date (the only value that depends on the time)."""
        if code is not None:
            expiry = self.expiry(rnd, code)
            if expiry is not None:
                headers["Expires"] = time.strftime("%a, %d %b %Y %H:%M:%S GMT",
                                                   time.gmtime(expiry))
        return headers

    def apply_headers(self, entries: Sequence[HeaderEntry], table: list[tuple[str, str]],
                      rnd: _Round) -> None:
        """``do_headers_fixup`` on one table (a list of (name, value) pairs, in order)."""
        for h in entries:
            if h.early:
                continue
            if h.expr is not None:
                try:
                    if not _expr(h.expr).evaluate(self.lookup_for(rnd, table)):
                        continue
                except ExprError:
                    continue
                except ExprUnsupported as exc:
                    self.note(f"{h.directive.name} at {h.directive.file}:{h.directive.line}: "
                              f"cannot evaluate {exc} (entry skipped)")
                    continue
            elif h.env is not None and (h.env.lstrip("!") in rnd.env) == h.env.startswith("!"):
                continue
            _apply_header(h, self.header_value(h.value or "", rnd), table, rnd,
                          self.request, self.note)

    def header_value(self, value: str, rnd: _Round) -> str:
        """mod_headers' format: ``%%``, ``%{VAR}e`` (others are reported, kept as written)."""
        if "%" not in value:
            return value
        out: list[str] = []
        i = 0
        while i < len(value):
            ch = value[i]
            if ch == "%" and i + 1 < len(value):
                nxt = value[i + 1]
                if nxt == "%":
                    out.append("%")
                    i += 2
                    continue
                close = value.find("}", i)
                if nxt == "{" and 0 < close < len(value) - 1:
                    name, tag = value[i + 2:close], value[close + 1]
                    if tag == "e":
                        out.append(rnd.env.get(name, "(null)"))
                    else:
                        self.note(f"Header format %{{{name}}}{tag} not modelled")
                        out.append(value[i:close + 2])
                    i = close + 2
                    continue
                self.note(f"Header format %{nxt} not modelled")
            out.append(ch)
            i += 1
        return "".join(out)

    # -- variables for expressions --------------------------------------------------------------

    def lookup_for(self, rnd: _Round, response: list[tuple[str, str]] | None = None
                   ) -> Callable[[str], str | None]:
        """The ``%{NAME}`` variables of ``ap_expr`` for this round (None: not modelled)."""
        req = self.request

        def lookup(name: str) -> str | None:
            upper = name.upper()
            if upper.startswith("HTTP:"):
                return req.headers.get(name[5:]) or ""
            if upper.startswith("RESP:"):
                key = name[5:].lower()
                return ", ".join(v for n, v in response or () if n.lower() == key)
            if upper.startswith("ENV:"):
                return rnd.env.get(name[4:], "")
            if upper.startswith("HTTP_"):
                return req.headers.get(name[5:].replace("_", "-")) or ""
            simple = {
                "REQUEST_URI": rnd.uri, "DOCUMENT_URI": rnd.uri,
                "QUERY_STRING": rnd.query or "", "REQUEST_METHOD": req.method,
                "REQUEST_SCHEME": req.scheme, "HTTPS": "on" if req.https else "off",
                "THE_REQUEST": req.the_request, "REMOTE_ADDR": req.remote_addr,
                "SERVER_NAME": req.host or self.server.name,
                "SERVER_PORT": str(req.host_port or req.port),
                "SERVER_PROTOCOL": req.protocol, "DOCUMENT_ROOT": self.server.document_root,
                "REQUEST_FILENAME": rnd.filename or "", "SCRIPT_FILENAME": rnd.filename or "",
                "CONTENT_TYPE": rnd.content_type or "", "HANDLER": rnd.handler or "",
                "PATH_INFO": rnd.path_info, "IS_SUBREQ": "false", "IPV6": "off",
                "REMOTE_USER": "", "AUTH_TYPE": "",
            }
            return simple.get(upper)

        return lookup


# -- helpers ----------------------------------------------------------------------------------

def _negotiable(info: ExtInfo | None) -> bool:
    """An extension mod_negotiation counts (MultiviewsMatch NegotiatedOnly): it gives a type,
    a language, a charset or an encoding."""
    return info is not None and bool(info.type or info.language or info.charset
                                     or info.encoding)


def _accept_ranges(header: str | None) -> list[tuple[str, float]]:
    """``Accept`` as (media range, q) pairs; no header accepts everything."""
    if not header:
        return [("*/*", 1.0)]
    out = []
    for item in header.split(","):
        media, *params = (p.strip() for p in item.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if media:
            out.append((media.lower(), q))
    return out


def _type_quality(ranges: list[tuple[str, float]], ctype: str) -> float:
    """The q of the most specific range matching *ctype* (0 when none does)."""
    ctype = ctype.lower()
    major = ctype.split("/", 1)[0] + "/*"
    best = (-1, 0.0)
    for media, q in ranges:
        rank = 2 if media == ctype else 1 if media == major else 0 if media == "*/*" else -1
        if rank > best[0]:
            best = (rank, q)
    return best[1] if best[0] >= 0 else 0.0


_EXPRS: dict[str, Expr] = {}


def _expr(text: str) -> Expr:
    """A parsed expression, parsed once per text."""
    found = _EXPRS.get(text)
    if found is None:
        found = _EXPRS[text] = Expr.parse(text)
    return found


def _apply_header(h: HeaderEntry, value: str, table: list[tuple[str, str]], rnd: _Round,
                  request: Request, note: Callable[[str], None]) -> None:
    """One mod_headers action on a table."""
    key = h.name.lower()
    current = [v for n, v in table if n.lower() == key]
    action = h.action
    if action == "set" or (action == "setifempty" and not current):
        table[:] = [(n, v) for n, v in table if n.lower() != key]
        table.append((h.name, value))
        if key == "content-type":
            rnd.content_type = value
    elif action == "add":
        table.append((h.name, value))
    elif action in ("append", "merge"):
        tokens = [t.strip() for v in current for t in v.split(",")]
        if action == "merge" and value in tokens:
            return
        if current:
            first = next(i for i, (n, _) in enumerate(table) if n.lower() == key)
            table[:] = [(n, v) for n, v in table if n.lower() != key]
            table.insert(first, (h.name, ", ".join([*current, value])))
        else:
            table.append((h.name, value))
    elif action == "unset":
        table[:] = [(n, v) for n, v in table if n.lower() != key]
    elif action == "echo":
        table.extend((n, v) for n, v in request.headers.items() if n.lower() == key)
    elif action in ("edit", "edit*"):
        note(f"Header {action} {h.name}: not modelled")


def fixup_vary(value: str) -> str:
    """``fixup_vary``: the Vary tokens, duplicates (case-insensitive) dropped, first kept."""
    seen: dict[str, str] = {}
    for token in value.split(","):
        token = token.strip()
        if token and token.lower() not in seen:
            seen[token.lower()] = token
    return ",".join(seen.values())


def _leading_int(text: str) -> int:
    """C ``atoi`` (mod_expires reads its codes that way: ``Access plus…`` gives 0)."""
    try:
        return int(text)
    except ValueError:
        digits = ""
        for ch in text.strip():
            if not ch.isdigit():
                break
            digits += ch
        return int(digits) if digits else 0


def _last_directive(access: AccessDir | None) -> Any:
    return access.directives[-1] if access is not None and access.directives else None
