"""The handler phase: the redirect handler of a per-directory rewrite, the modules that
write their own page (server-status…), mod_autoindex for a directory (listing or 403), and the
default handler (the file, 404, 405)."""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING

from confmig.load.accessfile import AccessState, check_access_file
from confmig.model.merge import OPT_INDEXES
from confmig.model.rewrite.uri import escape_uri
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
        if not autoindex_handles(handler):
            rnd.status = 404
            ev.step("handler", f"handler {handler}: mod_autoindex declines it and the "
                               "default handler does not serve a directory → 404")
        elif not ev.site.state.modules.has_module("mod_autoindex"):
            # default_handler: "Attempt to serve directory" (checked on Apache:
            # tests/test_rewrite_apache.py, /css/ on laravel.test)
            rnd.status = 404
            ev.step("handler", "mod_autoindex is not loaded: the default handler does not "
                               "serve a directory → 404")
        elif rnd.config["core"].options & OPT_INDEXES:
            blocked = listing_blocks_on(ev, rnd, method)
            if blocked is not None:
                rnd.status = 403
                ev.step("handler", f"mod_autoindex looks up every entry with a sub-request: "
                                   f"the one for {blocked} opens a FIFO and blocks, so "
                                   "Apache's listing never answers → 403 (as for the FIFO's "
                                   "own directory)")
                ev.note("Apache never answers this request (its listing waits on the FIFO); "
                        "403 is confmig's answer in its place, the one its conversions give")
                return
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


def autoindex_handles(handler: str | None) -> bool:
    """Whether mod_autoindex takes a directory with *handler* (None: none set).

    ``handle_autoindex`` runs for the directory handler (``httpd/unix-directory``) or an
    empty name only: ``AP_IS_DEFAULT_HANDLER_NAME`` is the empty string, so ``SetHandler
    default-handler`` (like any other handler) leaves a directory without an index file to
    the core's default handler, which answers 404 (checked on Apache:
    tests/nginx/test_default_handler_listing.py)."""
    return not handler or handler == DIR_MAGIC_TYPE


def listing_blocks_on(ev: Evaluation, rnd: Round, method: str) -> str | None:
    """The access file that blocks mod_autoindex's listing of *rnd*'s directory, or None.

    ``index_directory`` looks every entry up with ``ap_sub_req_lookup_dirent``; for a
    subdirectory that sub-request walks into it and opens its access file, and ``open()`` on a
    FIFO blocks until something writes into it: the listing never answers (checked on Apache:
    tests/test_access_files_apache.py).  Whether the walk opens the file at all (AllowOverride
    there) is the sub-request's; only a subdirectory with a FIFO for an access file is asked,
    so a listing costs one ``stat`` per subdirectory and access file name.
    ``make_autoindex_entry`` skips an entry that ``IndexIgnore`` or a ``?P=`` pattern leaves out
    before its sub-request; neither is modelled here, so such an entry is taken as looked up
    too (the answer is never wider than Apache's).
    """
    directory = rnd.filename or ""
    base = rnd.uri if rnd.uri.endswith("/") else rnd.uri + "/"
    for name, path in fifo_subdirectories(directory, ev.server.access_names):
        sub = ev.subrequest(base + escape_uri(name) + "/", None, method, rnd.env,
                            filename=f"{directory.rstrip('/')}/{name}/")
        if sub.status:  # the walk opened it (AllowOverride there is not None)
            return path
    return None


def fifo_subdirectories(directory: str, access_names: Sequence[str]
                        ) -> Iterator[tuple[str, str]]:
    """(name, access file) of each subdirectory of *directory* whose access file is a FIFO
    (:func:`confmig.load.accessfile.check_access_file`, as the walk opens it), by name."""
    try:
        names = sorted(e.name for e in os.scandir(directory) if e.is_dir())
    except OSError:
        return
    for name in names:
        for access in access_names:
            path = f"{directory.rstrip('/')}/{name}/{access}"
            if check_access_file(path).state is AccessState.FIFO:
                yield name, path
                break
