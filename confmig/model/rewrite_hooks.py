"""mod_rewrite inside request processing: the request as the engine sees it, running a
ruleset (server context at translate time, per-directory in the fixups) and applying its
outcome to the round (status, Location, environment, Vary, ``[END]``, ``[T]``/``[H]``, the
internal redirect a per-directory rewrite asks the handler for)."""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import TYPE_CHECKING

from confmig.model.mapping import server_port
from confmig.model.merge import OPT_SYM_LINKS, OPT_SYM_OWNER
from confmig.model.rewrite import RewriteConfig, RewriteOutcome, RewriteRequest
from confmig.model.rewrite.uri import atoi
from confmig.model.round import REDIRECT_HANDLER, Round

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation

STOP_ACTIONS = frozenset({"redirect", "forbidden", "gone", "error", "proxy"})


def server_template(ev: Evaluation) -> RewriteRequest:
    """What mod_rewrite knows of the virtual host (made once per server and site)."""
    key = ("rewrite-request", id(ev.server))
    found: RewriteRequest | None = ev.site.memo.get(key)
    if found is None:
        server = ev.server
        found = ev.site.memo[key] = RewriteRequest(
            fs=ev.site.stat, document_root=server.document_root, server_name=server.name,
            server_aliases=tuple(server.aliases), server_name_port=server.name_port,
            vhost_addresses=tuple((host, atoi(port)) for host, port in server.addresses),
            server_admin=server.server_admin,
            env_shared=True)  # a round's env is its r->subprocess_env: [E] writes into it
    return found


def rewrite_request(ev: Evaluation, rnd: Round, method: str, subrequest: bool) -> RewriteRequest:
    """The request as mod_rewrite sees it in this round.

    The engine keeps no reference to the request after a call, so one object per virtual
    host (:func:`server_template`) serves every evaluation in turn: its per-request fields
    are set when an evaluation first runs the engine, its per-round fields on every call.
    A look-ahead sub-request during a call (``%{LA-U:…}``, ``-U``, ``-F``) gets a copy.
    (Evaluations of one site run one after the other: nothing in confmig evaluates from two
    threads at once.)"""
    base = ev.rewrite_base
    if base is None:
        req = ev.request
        base = ev.rewrite_base = server_template(ev)
        base.method, base.headers, base.host = req.method, req.headers, req.host
        base.port, base.https = server_port(req, ev.server.name_port), req.https
        base.remote_addr, base.server_addr = req.remote_addr, req.local_addr
        base.the_request, base.protocol, base.lookahead = req.the_request, req.protocol, ev
        base.cookie_names = ev.cookie_names
        base.now = datetime.fromtimestamp(ev.now) if req.clock is not None else None
    out = base.copy() if ev.rewriting else base
    out.uri = rnd.uri
    out.query = rnd.query
    out.method = method
    out.env = rnd.env
    out.path_info = rnd.path_info
    out.is_subrequest = subrequest
    out.symlinks_allowed = rnd.config["core"].options & _SYMLINK_OPTIONS != 0
    out.context_prefix, out.context_document_root = rnd.context or _NO_CONTEXT
    return out


_SYMLINK_OPTIONS = OPT_SYM_LINKS | OPT_SYM_OWNER
_NO_CONTEXT = ("", None)  # no Alias context: CONTEXT_PREFIX "", CONTEXT_DOCUMENT_ROOT unset


def run_server(ev: Evaluation, rnd: Round, config: RewriteConfig,
               request: RewriteRequest) -> RewriteOutcome:
    """One pass of the server-context rules (``hook_uri2file``), applied to *rnd*."""
    # (the engine is imported when a ruleset runs: issue 17, a request model over a site
    # without mod_rewrite rules does not load it)
    from confmig.model.rewrite.engine import evaluate_server

    ev.rewriting += 1
    try:
        out = evaluate_server(config, request, trace=ev.trace)
    finally:
        ev.rewriting -= 1
    return apply_outcome(ev, rnd, out, "translate", None)


def apply_outcome(ev: Evaluation, rnd: Round, out: RewriteOutcome, phase: str,
                  directory: str | None) -> RewriteOutcome:
    """Apply a pass's outcome to *rnd*: environment, cookies, Vary, ``[END]``, ``[T]``/``[H]``
    (kept like ``r->notes`` until :func:`apply_forced_type`), the status an ``[R]`` left
    behind, and the status/Location of a redirect, ``[F]``, ``[G]``, an error or ``[P]``.
    *directory* is the per-directory context (None: server context)."""
    if out.unsupported:
        for item in out.unsupported:
            ev.note(item)
    if ev.trace:
        message = f" ({out.message})" if out.message else ""
        context = "server context" if directory is None else f"per-directory {directory}"
        applied = tuple((step.rule.directive.file, step.rule.directive.line)
                        for step in out.steps if step.applied and step.rule.directive)
        ev.step(phase, f"mod_rewrite ({context}): {out.action}{message}",
                detail=out.trace().splitlines(), sources=applied)
    if out.cookies:  # err_headers_out of the request (kept through errors and redirects)
        ev.cookies.extend(out.cookies)
    if out.mime_type:
        rnd.rewrite_mime = out.mime_type
    if out.handler:
        rnd.rewrite_handler = out.handler
    if out.vary:
        rnd.vary.extend(out.vary)
    if out.env:
        for key, value in out.env.items():
            if value is not None:
                rnd.env[key] = value
    if out.end:
        ev.rewrite_ended = True
    if out.action == "none":
        return out
    if out.action == "rewrite" and out.status and 300 <= out.status < 400:
        rnd.carried = out.status  # an [R] without [L] before a local rewrite
    if out.action in STOP_ACTIONS:
        rnd.status = out.status or (302 if out.action == "redirect" else 500)
        rnd.location = out.location
        if out.action == "proxy":
            # mod_rewrite refuses [P] when mod_proxy is not loaded.
            proxy = ev.site.state.modules.has_module("mod_proxy")
            rnd.status, rnd.location = (502, None) if proxy else (403, None)
            if proxy:
                ev.note("[P]: proxying is not modelled (502 stands for the backend)")
    return out


def server_rules(ev: Evaluation, rnd: Round) -> RewriteConfig | None:
    """The server-context ruleset ``hook_uri2file`` runs for this round, if any: the engine
    state that counts is the per-directory one at translate time (the server defaults merged
    with ``<Location>``/``<If>``: ``RewriteEngine Off`` in a ``<Location>`` stops server rules
    there), and a vhost without Rewrite* directives of its own runs none
    (``conf->server != r->server``: see :func:`confmig.model.rewrite.merge_server`)."""
    rw = ev.server.rewrite
    if rw is None or not rw.has_directives or not rw.rules or ev.rewrite_ended:
        return None
    dconf: RewriteConfig | None = rnd.config.get("rewrite")
    if dconf is None or not dconf.engine:
        return None
    if not rw.engine:  # switched on for this URL only, by a <Location> or <If>
        key = ("rewrite-engine-on", id(rw))
        found = ev.site.memo.get(key)
        if found is None:
            found = ev.site.memo[key] = replace(rw, engine=True)
        rw = found
    return rw


def rewrite_fixup(ev: Evaluation, rnd: Round, method: str, subrequest: bool) -> bool:
    """Per-directory mod_rewrite; True when it decided the answer."""
    config: RewriteConfig | None = rnd.config.get("rewrite")
    filename = rnd.filename
    # hook_fixup declines without a per-directory config of its own (``dconf->directory``)
    # or with the engine off — but not for want of rules: with the engine on and neither
    # FollowSymLinks nor SymLinksIfOwnerMatch, even a ruleless config answers 403.
    if (config is None or config.context != "directory" or not config.engine
            or ev.rewrite_ended or filename is None):
        return False
    from confmig.model.rewrite.engine import directory_pass

    request = rewrite_request(ev, rnd, method, subrequest)
    ev.rewriting += 1
    try:
        out = directory_pass(config, request, filename, config.directory or "/",
                             rnd.path_info, ev.maps, ev.trace)
    finally:
        ev.rewriting -= 1
    if out is None:
        return False  # the pass changed nothing
    apply_outcome(ev, rnd, out, "fixups", config.directory)
    if rnd.status:
        return True
    if out.action == "rewrite":
        if out.internal_redirect and out.uri is not None:
            target = out.uri + (f"?{out.query}" if out.query is not None else "")
            rnd.handler = REDIRECT_HANDLER
            rnd.redirect_pending = target
            if ev.trace:
                ev.step("fixups", f"mod_rewrite: internal redirect to {target} once "
                                  "the fixups are done")
        elif out.filename is not None:
            rnd.filename, rnd.query = out.filename, out.query
    return False


def apply_forced_type(ev: Evaluation, rnd: Round) -> None:
    """``hook_mimetype``, the last fixup: the ``[T]``/``[H]`` of this round's rules (server
    context or per-directory, the last one set wins) override the type and handler every
    earlier phase chose — ForceType/SetHandler, mod_dir's DirectoryIndex, even the redirect
    handler of a per-directory rewrite."""
    if rnd.rewrite_mime:
        rnd.content_type = rnd.rewrite_mime
        if ev.trace:
            ev.step("fixups", f"mod_rewrite: [T] sets the type {rnd.rewrite_mime}")
    if rnd.rewrite_handler:
        if ev.trace:
            replaced = (" (replacing the redirect handler: no internal redirect)"
                        if rnd.handler == REDIRECT_HANDLER else "")
            ev.step("fixups", f"mod_rewrite: [H] sets the handler {rnd.rewrite_handler}"
                              f"{replaced}")
        rnd.handler = rnd.rewrite_handler
