"""The handler phase: the redirect handler of a per-directory rewrite, the modules that
write their own page (server-status…), mod_autoindex for a directory (listing or 403), and the
default handler (the file, 404, 405)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from confmig.model.merge import OPT_INDEXES
from confmig.model.round import DIR_MAGIC_TYPE, REDIRECT_HANDLER, Round

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation

# Handlers that write their own page, whatever the URL maps to (when their module is loaded).
GENERATED_HANDLERS = {"server-status": "mod_status", "server-info": "mod_info",
                      "balancer-manager": "mod_proxy_balancer"}


def run_handler(ev: Evaluation, rnd: Round, method: str) -> None:
    """The redirect handler, mod_autoindex, or the default handler."""
    if rnd.handler == REDIRECT_HANDLER and rnd.redirect_pending is not None:
        rnd.redirect_to = rnd.redirect_pending
        return
    module = GENERATED_HANDLERS.get(rnd.handler or "")
    if module is not None and ev.site.state.modules.has_module(module):
        rnd.served = rnd.listing = True  # a page the module writes, no file
        ev.step("handler", f"{module} answers ({rnd.handler})")
        return
    if rnd.kind == "dir":
        handler = rnd.handler or DIR_MAGIC_TYPE
        if handler not in (DIR_MAGIC_TYPE, "default-handler"):
            rnd.status = 404
            ev.step("handler", f"handler {handler}: a directory cannot be served → 404")
        elif not ev.site.state.modules.has_module("mod_autoindex"):
            # default_handler: "Attempt to serve directory" (checked on Apache:
            # tests/test_rewrite_apache.py, /css/ on laravel.test)
            rnd.status = 404
            ev.step("handler", "mod_autoindex is not loaded: the default handler does not "
                               "serve a directory → 404")
        elif rnd.config["core"].options & OPT_INDEXES:
            rnd.listing = rnd.served = True
            ev.step("handler", "mod_autoindex: directory listing (Options Indexes)")
        else:
            rnd.status = 403
            ev.step("handler", "mod_autoindex: directory index forbidden by Options "
                               "directive → 403")
        return
    if method == "OPTIONS":
        ev.step("handler", "OPTIONS: the default handler answers with an Allow header")
    elif method not in ("GET", "HEAD", "POST"):
        rnd.status = 405
        ev.step("handler", f"{method} is not allowed on a static file → 405")
    elif rnd.kind is None:
        rnd.status = 404
        if ev.trace:
            ev.step("handler", f"{rnd.filename}{rnd.path_info}: no such file → 404")
    elif rnd.path_info and rnd.config["core"].accept_path_info != "on":
        rnd.status = 404
        if ev.trace:
            ev.step("handler", f"{rnd.filename} with PATH_INFO {rnd.path_info} "
                               "(AcceptPathInfo Default/Off) → 404")
    elif rnd.redirect_pending is not None:
        # [H] replaced mod_rewrite's redirect handler: r->filename is "redirect:<url>"
        rnd.status = 403
        if ev.trace:
            ev.step("handler", f"handler {rnd.handler}: the default handler cannot open "
                               f"'redirect:{rnd.redirect_pending}' → 403")
    else:  # POST too: core_create_req enables "deliver_script" by default
        rnd.served = True
        if ev.trace:
            ev.step("handler", f"{rnd.handler or 'default-handler'} serves "
                               f"{rnd.filename}")
