"""mod_alias at request time: a matching ``Redirect*`` answers with its status and an
absolute ``Location`` (``RedirectRelative`` permitting a path); the server-context list is tried
at translate time, the per-directory one in the fixups, after per-directory mod_rewrite."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from confmig.model.mapping import finish_redirect, try_alias_list
from confmig.model.merge import AliasDir
from confmig.model.rewrite.uri import escape_uri
from confmig.model.round import Round

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation


def alias_redirect(ev: Evaluation, rnd: Round, status: int, found: str | None, directive: Any,
                   phase: str, allow_relative: bool) -> bool:
    """mod_alias's answer for a matching Redirect (always False: the answer is decided)."""
    name = getattr(directive, "name", "Redirect")
    if 300 <= status < 400:
        target = escape_uri(rnd.uri) + (f"?{rnd.query}" if rnd.query is not None else "")
        location = finish_redirect(found or "", ev.request.with_target(target),
                                   ev.server.name, allow_relative=allow_relative,
                                   name_port=ev.server.name_port)
        if location is None:
            ev.step(phase, f"{name}: target {found!r} is not a URL → 500", directive)
            rnd.status = 500
            return False
        rnd.location = location
    rnd.status = status
    if ev.trace:
        where = f" {rnd.location}" if rnd.location else ""
        ev.step(phase, f"{name} → {status}{where}", directive)
    return False


def alias_fixup(ev: Evaluation, rnd: Round) -> bool:
    """``fixup_redir``: per-directory Redirect*, matched against ``r->uri``."""
    alias: AliasDir | None = rnd.config.get("alias")
    if alias is None:
        return False
    relative = bool(alias.allow_relative)
    if alias.redirect is not None:
        status, url, directive = alias.redirect
        alias_redirect(ev, rnd, status, url, directive, "fixups", relative)
        return True
    hit = try_alias_list(rnd.uri, alias.redirects)
    if hit is None:
        return False
    alias_redirect(ev, rnd, hit.entry.status, hit.found, hit.entry.directive, "fixups", relative)
    return True
