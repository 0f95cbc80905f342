"""What Apache answers to one request: the phases of ``ap_process_request_internal`` and the
handler, over a :class:`~confmig.model.site.Site`.

Per round (a request, or an internal redirect of it) — each phase in its own module:

0. post_read_request: the server-level SetEnvIf entries (:mod:`~confmig.model.env`);
1. :mod:`~confmig.model.translate`: the URL is normalised and decoded (400/404 for what Apache
   refuses); translate: server-context mod_rewrite (:mod:`~confmig.model.rewrite_hooks`), then
   mod_alias (server ``Redirect*``, ``Alias*``; :mod:`~confmig.model.alias`), then
   DocumentRoot;
2. :mod:`~confmig.model.storage`: the directory walk (``<Directory>`` + ``.htaccess``),
   ``<Files>``, ``<Location>``, ``<If>`` — the sections merged per module (cached per file by
   the site);
3. :mod:`~confmig.model.env`: the per-directory SetEnvIf entries;
4. :mod:`~confmig.model.access`: mod_access_compat (Order/Allow/Deny) and mod_authz_core
   (Require), combined by ``Satisfy``;
5. :mod:`~confmig.model.mime`: the type (TypesConfig, AddType, AddHandler, …; MultiViews), then
   the fixups: ForceType and SetHandler, per-directory mod_rewrite, per-directory mod_alias
   redirects (after mod_rewrite: an internal rewrite still lets a ``Redirect`` match the
   original URL), mod_env's SetEnv/UnsetEnv, mod_dir (:mod:`~confmig.model.dir`:
   DirectorySlash, DirectoryIndex sub-requests, FallbackResource), and last mod_rewrite's
   ``[T]``/``[H]`` (of either context);
6. :mod:`~confmig.model.handler`: an internal redirect (back to 1; past
   ``LimitInternalRecursion`` → 500), a directory listing or 403, the file, or 404.

An error status is then looked up in ``ErrorDocument`` (:mod:`~confmig.model.errordoc`): a
local path is served by an internal redirect with the status kept, a URL becomes a 302.  The
headers the configuration sets are :mod:`~confmig.model.response_headers` (with the
Set-Cookie lines ``[CO]`` added anywhere in the request).

With ``trace=False`` no explanation is built, request-independent results (a file's content
type, a static access decision, the configured response headers) are memoised per merged
configuration, and :meth:`Evaluation.process` takes shortcuts where the general phase would
only have added steps (a URL-path with nothing to decode, a server that only has a
DocumentRoot to translate with, a memoised access decision): a request then costs little more
than its rewrite rules.  The differential suite checks every case both ways.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, Literal

from confmig.load import LoadedConfig, Workspace
from confmig.model import limits
from confmig.model.access import check_access
from confmig.model.alias import alias_fixup
from confmig.model.answer import Answer, Step
from confmig.model.dir import dir_fixup, fallback_fixup
from confmig.model.env import env_fixup, header_parser, post_read_request
from confmig.model.errordoc import error_response
from confmig.model.handler import run_handler
from confmig.model.mapping import server_url_base
from confmig.model.merge import CoreDir
from confmig.model.mime import type_checker
from confmig.model.protocol import DEFAULT_LIMITS, refusal
from confmig.model.request import Request
from confmig.model.response_headers import (
    cannot_fail,
    check_headers,
    fixup_vary,
    response_headers,
)
from confmig.model.rewrite import RewriteRequest
from confmig.model.rewrite_hooks import apply_forced_type, rewrite_fixup
from confmig.model.round import DIR_MAGIC_TYPE, REDIRECT_HANDLER, Round
from confmig.model.site import Site, VirtualServer
from confmig.model.storage import location_and_if, map_to_storage
from confmig.model.target import (
    ALWAYS_LOADED,
    DEBIAN_INDEX,
    default_server_text,
    default_state,
    site_for,
    site_from_text,
)
from confmig.model.translate import decode_uri, translate

__all__ = [
    "ALWAYS_LOADED", "DEBIAN_INDEX", "DIR_MAGIC_TYPE", "REDIRECT_HANDLER", "Answer",
    "Evaluation", "Step", "default_server_text", "default_state", "evaluate", "fixup_vary",
    "site_for", "site_from_text",
]


# Internal redirects the model follows at most (a LimitInternalRecursion above it): the work
# per redirect grows with their number (as in Apache: 21 s for 1,000 of them, minutes for more).
MODEL_REDIRECTS = 1000
STEPS_HEAD = 150  # steps of the explanation kept from the start of the request
STEPS_TAIL = 150  # and from its end


def evaluate(target: Workspace | Site | LoadedConfig, request: Request, *,
             trace: bool = True, headers: bool = True) -> Answer:
    """What Apache answers to *request* under *target*'s configuration.

    With ``trace=False`` the explanation (``steps``, ``applied``, rewrite traces) is not
    built: the same answer, several times faster (for probes and benchmarks).  With
    ``headers=False`` the caller reads only the status, location and file: the response
    headers are worked out only where they could turn the status into 500
    (:meth:`Evaluation.answer`), and ``Answer.headers`` may be left empty — and with them
    the notes on header values the model cannot format (``unsupported``, e.g. ``Header``'s
    ``%D``), since those values are not formatted."""
    site = target if isinstance(target, Site) else site_for(target)
    key = (request.host, request.local_addr, request.port)
    server = site.servers_for.get(key)
    if server is None:
        server = site.servers_for[key] = site.select(*key)
    return Evaluation(site, server, request, trace, headers).run()


class Evaluation:
    """The processing of one request (and its internal redirects and sub-requests).

    The phases are functions of their own modules taking this object; it holds what they
    share: the site, the virtual host, the request, the explanation being built, and the
    request-wide state (``[END]``, the sub-request depth, ``r->request_time``).  It is also
    the rewrite engine's look-ahead (``status``/``variable``: sub-requests).
    """

    def __init__(self, site: Site, server: VirtualServer, request: Request,
                 trace: bool = True, headers: bool = True) -> None:
        self.site = site
        self.server = server
        self.request = request
        self.trace = trace
        self.headers = headers  # False: the answer's headers are not read (see evaluate)
        self.steps: list[Step] = []
        self.steps_omitted = 0
        self.unsupported: list[str] = []
        self.rewrite_ended = False  # [END] stops rewriting for the rest of the request
        self.subreq_depth = 0
        self.rewrite_base: RewriteRequest | None = None  # see rewrite_hooks.rewrite_request
        self.rewriting = 0  # rewrite engine calls under way (look-ahead nests them)
        # r->request_time (mod_expires, %{TIME*}): the request's clock if it names one
        self.now = request.clock if request.clock is not None else time.time()
        self.maps = server.rewrite_maps
        # err_headers_out's Set-Cookie lines from [CO] (shared by the internal redirects and
        # sub-requests of the request, as is the set of names already set)
        self.cookies: list[str] = []
        self.cookie_names: set[str] = set()
        self.headers_failed = False  # check_headers_recursion: the response's headers failed

    def step(self, phase: str, message: str, node: Any = None,
             detail: Sequence[str] = (), sources: Sequence[tuple[str, int]] = ()) -> None:
        """Record a step (callers test ``self.trace`` first when the message is costly).
        The explanation keeps the first :data:`STEPS_HEAD` steps and the last
        :data:`STEPS_TAIL`; a marker between them counts the others."""
        if self.trace:
            steps = self.steps
            if len(steps) >= STEPS_HEAD + STEPS_TAIL:
                self.steps_omitted += 1
                marker = Step("note", f"… {self.steps_omitted} more step(s) not shown …")
                if self.steps_omitted > 1:
                    del steps[STEPS_HEAD + 1]
                steps[STEPS_HEAD] = marker
            steps.append(Step(phase, message, getattr(node, "file", None),
                              getattr(node, "line", None), tuple(detail), tuple(sources)))

    def note(self, what: str) -> None:
        """Report something the model could not evaluate exactly (once)."""
        if what not in self.unsupported:
            self.unsupported.append(what)

    def base_url(self) -> str:
        """``scheme://host[:port]`` of this request, as Apache builds redirect URLs."""
        return server_url_base(self.request, self.server.name, name_port=self.server.name_port)

    def run(self) -> Answer:
        """The request through all its rounds, then ErrorDocument for an error status; with
        the limits of Apache's the request ran into (:mod:`confmig.model.limits`)."""
        saved = limits.begin()
        try:
            answer = self.decide()
        finally:
            hit = limits.end(saved)
            # The vhost's rewrite template (site.memo, rewrite_hooks.server_template) names this
            # evaluation as its look-ahead: let go of it, or site -> memo -> template -> this
            # evaluation -> site is a cycle that keeps the site, its access files' trees and
            # caches alive until the cycle collector runs (issue 10).
            base = self.rewrite_base
            if base is not None and base.lookahead is self:
                base.lookahead = None
        if hit:
            answer.limits = hit
        return answer

    def decide(self) -> Answer:
        """:meth:`run` without the record of limits."""
        req = self.request
        protocol = self.server.protocol
        refused = (req.refused if protocol is DEFAULT_LIMITS else
                   refusal(req.method, req.target, req.protocol, req.headers.items_raw(),
                           protocol))
        if refused is not None:
            return self.refuse(*refused)
        if self.trace:
            self.step("request", f"{req.method} {req.target} → {self.server.label}"
                                 f" (DocumentRoot {self.server.document_root})")
            for s in self.server.directories:
                if s.relative_path:
                    self.step("walk", f"note: {s.label} is a relative path: Apache reads it as "
                                      f"{s.match} (from /, not ServerRoot; lint CTX008)", s)
        path, sep, query = req.target.partition("?")  # Request.path and .query at once
        rnd = self.process_chain(path, query if sep else None, req.method, {})
        if rnd.status and rnd.carried and rnd.internal:
            # ap_internal_redirect's ap_die with r->status already set (the first request
            # resets it to 200 before ap_die; an internally redirected one does not): no
            # ErrorDocument, and the answer is the first request of the chain still carrying
            # its status (this one, if it set the status itself).
            if rnd.inherited:
                self.step("error", f"{rnd.status} after an earlier [R] left status "
                                   f"{rnd.inherited}: Apache answers {rnd.inherited}")
                rnd.location = None
                return self.answer(rnd, rnd.inherited)
            return self.answer(rnd, rnd.status)
        status = rnd.status or rnd.carried or 200
        if status >= 400 and not rnd.served:
            return error_response(self, rnd, status)
        return self.answer(rnd, status)

    def refuse(self, status: int, why: str) -> Answer:
        """Apache refuses the request while reading it (:mod:`confmig.model.protocol`): no
        configuration section is consulted."""
        self.step("request", f"Apache refuses the request while reading it: {why}")
        if "Limit" in why:
            limits.record(why)
        server = self.server
        return Answer(status, steps=self.steps, server=server.label,
                      document_root=server.document_root, unsupported=self.unsupported)

    def process_chain(self, path: str, query: str | None, method: str,
                      env: dict[str, str], redirects: int = 0) -> Round:
        """A request and its internal redirects, until one round gives an answer."""
        vary: list[str] = []
        carried = inherited = 0
        while True:
            rnd = self.process(path, query, method, env, subrequest=False, carried=carried,
                               inherited=inherited)
            rnd.internal = redirects > 0
            if vary:
                rnd.vary[:0] = vary
            if rnd.redirect_to is None:
                return rnd
            limit = self.server.recursion_limit
            if redirects + 1 > limit:
                self.step("redirect", f"internal redirect to {rnd.redirect_to} refused: "
                                      f"LimitInternalRecursion ({limit}) exceeded → 500")
                limits.record(f"LimitInternalRecursion: more than {limit} internal redirects "
                              "→ 500")
                return Round(rnd.config, rnd.sections, uri=rnd.uri, status=500)
            if redirects + 1 > MODEL_REDIRECTS:
                self.note(f"more than {MODEL_REDIRECTS} internal redirects under "
                          f"LimitInternalRecursion {limit}: each one copies the environment "
                          "under one more REDIRECT_ prefix, so Apache spends minutes on such a "
                          "request; the model stops here and answers 500 as at the limit")
                return Round(rnd.config, rnd.sections, uri=rnd.uri, status=500)
            redirects += 1
            target = rnd.redirect_to
            if self.trace:
                self.step("redirect", f"internal redirect #{redirects} to {target}")
            path, sep, rest = target.partition("?")
            query = rest if sep else None
            env = {f"REDIRECT_{k}": v for k, v in rnd.env.items()}
            env["REDIRECT_STATUS"] = str(rnd.carried or rnd.status or 200)
            env["REDIRECT_URL"] = rnd.uri
            vary = rnd.vary  # mod_rewrite's note "redirect-keeps-vary"
            # The new request_rec inherits r->status (internal_internal_redirect).
            carried = rnd.carried
            inherited = (rnd.inherited or rnd.carried) if rnd.carried else 0

    def process(self, raw_path: str, query: str | None, method: str, env: dict[str, str],
                *, subrequest: bool, filename: str | None = None, carried: int = 0,
                inherited: int = 0, main_uri: str | None = None) -> Round:
        """``ap_process_request_internal`` (and the handler unless *subrequest*).  A file
        sub-request (*filename*) skips the URL phases; *carried*/*inherited* are the status
        an internal redirect brings along (see :class:`Round`).  *env* becomes the round's
        environment (every caller passes a dict of its own)."""
        server = self.server
        rnd = Round(server.defaults.config, [server.defaults], env, query=query)
        if main_uri is not None:
            rnd.main_uri = main_uri
        if carried:
            rnd.carried, rnd.inherited = carried, inherited
        if not subrequest:  # (a sub-request does not run post_read_request)
            early = server.early_setenvif
            if early is not None:
                post_read_request(self, rnd, early, raw_path)
        fast = not self.trace  # the shortcuts below skip only what would add steps
        if filename is not None:
            rnd.uri, rnd.filename = raw_path, filename
        else:
            if (fast and raw_path[:1] == "/" and "%" not in raw_path and "/." not in raw_path
                    and "//" not in raw_path):
                rnd.uri = raw_path  # decode_uri has nothing to normalise or decode
            elif not decode_uri(self, rnd, raw_path):
                return rnd
            if server.walks_locations:
                _, rnd.config = location_and_if(self, rnd, [server.defaults],
                                                server.defaults.config)
            if (fast and server.plain_translate and "alias" not in rnd.config
                    and len(rnd.uri) < 1000):  # (a long one: translate checks its length)
                rnd.filename = server.root_prefix + rnd.uri  # translate: DocumentRoot only
            elif not translate(self, rnd, method, subrequest):
                return rnd
        map_to_storage(self, rnd)
        if rnd.status:
            return rnd
        config = rnd.config
        if "setenvif" in config and not subrequest:  # (header_parser: main requests only)
            header_parser(self, rnd)
        if "access" in config or "authz" in config or "authn" in config:
            # check_access, with its memo looked up here first.
            status = (None if not fast else
                      self.site.access_decisions.get((id(config), method,
                                                      self.request.remote_addr)))
            if status is None:
                if check_access(self, rnd, method):
                    return rnd
            elif status:
                rnd.status = status
                return rnd
        type_checker(self, rnd)
        # The fixups, in hook order: core (ForceType/SetHandler), mod_rewrite, mod_alias,
        # mod_env, mod_dir, mod_rewrite's [T]/[H]; one that answers ends them.  (MultiViews
        # may have made the request its sub-request's: re-read config.)
        config = rnd.config
        core: CoreDir = config["core"]
        if core.mime_type and core.mime_type != "none":
            rnd.content_type = core.mime_type
        if core.handler and core.handler != "none":
            rnd.handler = core.handler
        if ("rewrite" in config and rewrite_fixup(self, rnd, method, subrequest)) or (
                "alias" in config and alias_fixup(self, rnd)):
            pass
        else:
            if "env" in config:
                env_fixup(self, rnd)
            if rnd.kind == "dir":
                dir_fixup(self, rnd, method)
            elif rnd.kind is None and rnd.handler is None and "dir" in config:
                fallback_fixup(self, rnd)
            if (rnd.rewrite_mime or rnd.rewrite_handler) and not rnd.status:
                apply_forced_type(self, rnd)
        if rnd.status or subrequest:
            return rnd
        run_handler(self, rnd, method)
        return rnd

    def subrequest(self, target: str, query: str | None, method: str, env: dict[str, str],
                   filename: str | None = None, main_uri: str | None = None) -> Round:
        """``ap_sub_req_lookup_uri`` (or ``_file``): the phases up to the fixups.  *env* is the
        parent's ``r->subprocess_env`` as it is now: the sub-request gets a copy of it;
        *main_uri* is the parent's URI where the sub-request needs it (see
        :meth:`expr_subrequest`)."""
        if query is not None and "?" not in target:
            target = f"{target}?{query}"
        path, sep, q = target.partition("?")
        if self.subreq_depth >= 10:
            limits.record("sub-requests nested more than 10 deep (LimitInternalRecursion's "
                          "second value) → 500")
            return Round({}, [], uri=path, status=500)
        self.subreq_depth += 1
        saved = self.rewrite_ended
        try:
            return self.process(path, q if sep else None, method, dict(env), subrequest=True,
                                filename=filename, main_uri=main_uri)
        finally:
            self.subreq_depth -= 1
            self.rewrite_ended = saved

    def fast_redirect(self, rnd: Round, sub: Round) -> None:
        """``ap_internal_fast_redirect``: the request becomes the sub-request."""
        for name in ("uri", "query", "filename", "path_info", "kind", "sections", "config",
                     "content_type", "handler", "redirect_pending", "context"):
            setattr(rnd, name, getattr(sub, name))
        # r->notes become the sub-request's overlaid with the request's (the first found
        # wins): mod_rewrite's [T]/[H] of either still apply.
        rnd.rewrite_mime = sub.rewrite_mime or rnd.rewrite_mime
        rnd.rewrite_handler = sub.rewrite_handler or rnd.rewrite_handler
        rnd.env.update(sub.env)
        rnd.vary.extend(sub.vary)

    def status(self, kind: Literal["uri", "file"], path: str) -> tuple[int, str | None] | None:
        """Look-ahead for the rewrite engine (``-U``/``-F``): a sub-request's status and
        ``r->filename``.  Only a main request's rules look ahead, and the engine's request
        object for it is ``rewrite_base`` itself, whose ``env`` is that round's environment
        (``[E]`` of the rules before included)."""
        sub = self._lookahead(kind, path)
        return (sub.status or 200), sub.filename

    def _lookahead(self, kind: Literal["uri", "file"], path: str) -> Round:
        base = self.rewrite_base
        env = base.env if base is not None else {}
        method = self.request.method
        return (self.subrequest(path, None, method, env) if kind == "uri" else
                self.subrequest(path, None, method, env, filename=path))

    def expr_subrequest(self, rnd: Round) -> Callable[[str, str], bool]:
        """``-F``/``-U``/``-A`` of an ``ap_expr`` evaluated in *rnd* (``op_file_subr``,
        ``op_url_subr``): a file sub-request is true below 300 when the file exists, a URL
        sub-request below 400; a URL one made where the request is itself a sub-request of
        the same URI is false without being made (Apache's guard against recursion).  A
        relative argument is taken from the directory of ``r->filename`` or ``r->uri``."""
        def run(op: str, arg: str) -> bool:
            method = self.request.method
            if op == "F":
                if not arg.startswith("/"):
                    base = rnd.filename or "/"
                    arg = base[:base.rfind("/") + 1] + arg
                sub = self.subrequest(arg, None, method, rnd.env, filename=arg)
                return ((sub.status or 200) < 300 and sub.filename is not None
                        and self.site.stat.kind(sub.filename) is not None)
            if rnd.main_uri is not None and rnd.main_uri == rnd.uri:
                return False
            if not arg.startswith("/"):
                from confmig.model.expr.evaluate import escape_path

                arg = escape_path(rnd.uri[:rnd.uri.rfind("/") + 1]) + arg
            sub = self.subrequest(arg, None, method, rnd.env, main_uri=rnd.uri)
            return (sub.status or 200) < 400
        return run

    def variable(self, kind: Literal["uri", "file"], path: str, name: str) -> str | None:
        """Look-ahead for ``%{LA-U:…}``/``%{LA-F:…}``: the variable as the sub-request left
        it — its file name, or the user its login check named (``REMOTE_USER``,
        ``AUTH_TYPE``); None for the others (reported by the engine)."""
        upper = name.upper()
        if upper in ("REQUEST_FILENAME", "SCRIPT_FILENAME"):
            return self._lookahead(kind, path).filename
        if upper in ("REMOTE_USER", "AUTH_TYPE"):
            sub = self._lookahead(kind, path)
            return (sub.user if upper == "REMOTE_USER" else sub.auth_type) or ""
        return None

    def answer(self, rnd: Round, status: int) -> Answer:
        """The :class:`Answer` for the round that decided, with *status*."""
        filename = rnd.filename
        served = rnd.served and not rnd.listing and filename is not None
        file = None
        server = self.server
        if served and filename is not None:
            root = server.root_slash
            file = filename[len(root):] if filename.startswith(root) else filename
        location = rnd.location if 300 <= status < 400 or status == 201 else None
        strict = server.protocol.strict
        # (a caller that does not read the headers gets none when they cannot fail)
        headers = ({} if not self.headers and cannot_fail(self, rnd, strict) else
                   response_headers(self, rnd, status))
        problem = check_headers(headers, location, strict)
        if problem is not None:
            return self.headers_failure(rnd, problem)
        return Answer(  # positionally: status, location, file, filename, headers, applied…
            status, location, file, filename if served else None, headers,
            [a for s in rnd.sections for a in s.applied] if self.trace else [], self.steps,
            server.label, server.document_root, rnd.handler, None, rnd.listing,
            self.unsupported)

    def headers_failure(self, rnd: Round, problem: str) -> Answer:
        """The HTTP header filter's ``check_headers`` failed (AH02428-AH02430): the headers
        are cleared and the request dies with 500 (its ErrorDocument, whose own response is
        checked again); a second failure gives a bare 500."""
        self.step("response", f"{problem}, aborting request → 500")
        if self.headers_failed:
            server = self.server
            return Answer(500, steps=self.steps, server=server.label,
                          document_root=server.document_root, unsupported=self.unsupported)
        self.headers_failed = True
        self.cookies = []  # err_headers_out cleared with the rest
        rnd.served = rnd.listing = False
        rnd.location = None
        return error_response(self, rnd, 500)

