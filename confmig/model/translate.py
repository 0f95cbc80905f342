"""The URI phases: the URL-path normalised and decoded (400/404 for what Apache refuses),
then ``translate_name`` — server-context mod_rewrite, mod_alias (server ``Redirect*``,
``Alias*``), and the DocumentRoot."""

from __future__ import annotations

from typing import TYPE_CHECKING

from confmig.model import limits
from confmig.model.alias import alias_redirect
from confmig.model.mapping import APR_PATH_MAX, merge_too_long, try_alias_list, unescape_path
from confmig.model.merge import AliasDir
from confmig.model.rewrite_hooks import rewrite_request, run_server, server_rules
from confmig.model.round import Round
from confmig.model.urlpath import core_translate, normalize_path

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation


def decode_uri(ev: Evaluation, rnd: Round, raw_path: str) -> bool:
    """``ap_normalize_path`` then ``ap_unescape_url_ex``; False when Apache refuses."""
    server = ev.server
    normalized = normalize_path(raw_path, merge_slashes=server.merge_slashes)
    if normalized is None:
        ev.step("uri", f"invalid URI path {raw_path!r} (a bad %-escape, or '..' above "
                       "the root) → 400")
        rnd.status, rnd.uri = 400, raw_path
        return False
    uri, status = unescape_path(normalized, server.encoded_slashes)
    if status:
        if ev.trace:
            why = ("a bad %-escape" if status == 400 else
                   "an encoded '/' (AllowEncodedSlashes Off) or NUL")
            ev.step("uri", f"{raw_path!r} has {why} → {status}")
        rnd.status, rnd.uri = status, normalized
        return False
    if server.encoded_slashes == "on":
        uri = normalize_path(uri, merge_slashes=server.merge_slashes) or uri
    rnd.uri = uri
    if ev.trace and uri != raw_path:
        ev.step("uri", f"URL-path {raw_path!r} → {uri!r}")
    return True


def translate(ev: Evaluation, rnd: Round, method: str, subrequest: bool) -> bool:
    """``ap_run_translate_name``: mod_rewrite, mod_alias, core.  False when it already
    decided the answer."""
    server = ev.server
    rw = server_rules(ev, rnd)
    if rw is not None:
        request = rewrite_request(ev, rnd, method, subrequest)
        out = run_server(ev, rnd, rw, request)
        if rnd.status:
            return False
        if out.action == "rewrite":
            rnd.query = out.query
            if not out.passthrough:
                rnd.filename = out.filename
                if ev.trace:
                    ev.step("translate", f"mod_rewrite maps {rnd.uri} → {rnd.filename}")
                return True
            rnd.uri = out.uri or rnd.uri
    alias: AliasDir | None = rnd.config.get("alias")
    relative = bool(alias and alias.allow_relative)
    if alias is not None and alias.redirect is not None:
        status, url, directive = alias.redirect
        return alias_redirect(ev, rnd, status, url, directive, "translate", relative)
    if server.redirects:
        hit = try_alias_list(rnd.uri, server.redirects)
        if hit is not None:
            return alias_redirect(ev, rnd, hit.entry.status, hit.found, hit.entry.directive,
                                  "translate", relative)
    if server.aliases_list:
        hit = try_alias_list(rnd.uri, server.aliases_list)
        if hit is not None:
            rnd.filename = hit.found
            rnd.context = (hit.entry.fake, hit.entry.real or "")
            if hit.entry.handler:
                rnd.handler = hit.entry.handler
            directive = hit.entry.directive
            if ev.trace:
                name = directive.name if directive else "Alias"
                ev.step("translate", f"{name} maps {rnd.uri} → {rnd.filename}",
                        directive)
            return True
    if not rnd.uri.startswith("/"):
        ev.step("translate", f"invalid URI {rnd.uri!r} → 400")
        rnd.status = 400
        return False
    if merge_too_long(server.document_root, rnd.uri):
        message = (f"DocumentRoot + URL-path is longer than APR_PATH_MAX ({APR_PATH_MAX} bytes):"
                   " apr_filepath_merge fails (ENAMETOOLONG) → 403")
        ev.step("translate", message)
        limits.record(message)
        rnd.status = 403
        return False
    filename = core_translate(server.document_root, rnd.uri)
    if filename is None:  # not for a normalised URL-path: it has no ".." left
        ev.step("translate", f"cannot map {rnd.uri} to a file below the DocumentRoot → 403")
        rnd.status = 403
        return False
    rnd.filename = filename
    if ev.trace:
        ev.step("translate", f"DocumentRoot maps {rnd.uri} → {rnd.filename}")
    return True
