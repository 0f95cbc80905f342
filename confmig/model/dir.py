"""mod_dir at request time: ``DirectorySlash`` (a 301 to the URL with a trailing slash), the
``DirectoryIndex`` candidates tried as sub-requests, and ``FallbackResource`` for a request
that maps to nothing (``fixup_dir``, ``fixup_dflt``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from confmig.model.merge import DirDir
from confmig.model.rewrite.uri import escape_uri
from confmig.model.round import DIR_MAGIC_TYPE, REDIRECT_HANDLER, Round

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation

DEFAULT_INDEX = ("index.html",)  # mod_dir's AP_DEFAULT_INDEX


def dir_fixup(ev: Evaluation, rnd: Round, method: str) -> None:
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
        rnd.location = ev.base_url() + target
        if ev.trace:
            ev.step("fixups", f"mod_dir: {rnd.uri} is a directory without trailing "
                              f"slash (DirectorySlash On) → 301 {rnd.location}")
        return
    if rnd.handler == REDIRECT_HANDLER:
        return
    if conf.check_handler and rnd.handler != DIR_MAGIC_TYPE:
        return
    names = conf.index_names if conf.index_names is not None else DEFAULT_INDEX
    error = 0
    base = escape_uri(rnd.uri)
    for name in names:
        sub_target = name if name.startswith("/") else base + name
        sub = ev.subrequest(sub_target, rnd.query, method, rnd.env)
        if not sub.status and (sub.kind == "file" or sub.handler == "proxy-server"):
            if conf.index_redirect and 300 <= conf.index_redirect < 400:
                rnd.status = conf.index_redirect
                rnd.location = ev.base_url() + escape_uri(sub.uri)
                ev.step("fixups", f"DirectoryIndexRedirect → {rnd.status} "
                                  f"{rnd.location}")
                return
            if ev.trace:
                ev.step("fixups", f"DirectoryIndex: {sub.uri} is served",
                        conf.index_directive)
            ev.fast_redirect(rnd, sub)
            return
        if 300 <= sub.status < 400 or (sub.status in (401, 406) and len(names) == 1):
            rnd.status, rnd.location = sub.status, sub.location
            ev.step("fixups", f"DirectoryIndex {name}: sub-request answers {sub.status}")
            return
        if sub.status and sub.status != 404:
            error = sub.status
        if ev.trace:
            what = "not found" if sub.status in (0, 404) else str(sub.status)
            ev.step("fixups", f"DirectoryIndex candidate {name}: {what}")
    if error:
        rnd.status = error
        ev.step("fixups", f"no DirectoryIndex usable; the last sub-request error was "
                          f"{error}")


def fallback_fixup(ev: Evaluation, rnd: Round) -> None:
    """``fixup_dflt``: FallbackResource for a request that maps to nothing."""
    conf: DirDir | None = rnd.config.get("dir")
    if conf is None or conf.fallback is None or conf.fallback.lower() == "disabled":
        return
    name = conf.fallback
    if not name.startswith("/"):
        name = escape_uri(rnd.uri[:rnd.uri.rfind("/") + 1]) + name
    sub = ev.subrequest(name, rnd.query, "GET", rnd.env)
    if not sub.status and (sub.kind == "file" or sub.handler == "proxy-server"):
        if ev.trace:
            ev.step("fixups", f"FallbackResource {conf.fallback}: {sub.uri} is served")
        ev.fast_redirect(rnd, sub)
        return
    if 300 <= sub.status < 400:
        rnd.status, rnd.location = sub.status, sub.location
    elif sub.status and sub.status != 404:
        rnd.status = sub.status
    if ev.trace:
        ev.step("fixups", f"FallbackResource {conf.fallback}: not usable "
                          f"({sub.status or 'not a file'})")
