"""The rewriting engine: ``apply_rewrite_list`` / ``apply_rewrite_rule`` / ``apply_rewrite_cond``
and the two hooks that run them (``hook_uri2file`` for server context, ``hook_fixup`` for
per-directory context), modelled on mod_rewrite.c of httpd 2.4.

Per-directory context in one paragraph: the rules see ``r->filename`` (+ ``r->path_info``)
with the directory prefix stripped, so a pattern starting with ``^/`` never matches there
(unless an earlier rule already produced an absolute path).  A relative result gets the
directory prefix back; afterwards the prefix is replaced by ``RewriteBase`` (or the
DocumentRoot is stripped) to form a URL, and Apache performs an *internal redirect* to it:
the whole request is processed again, server rules and ``.htaccess`` rules included.
``[L]`` only ends the current pass; ``[END]`` also stops the later passes.  A result equal to
the current filename is served without a redirect (that is what stops most loops), and
after ``LimitInternalRecursion`` (10) redirects the request fails with 500.  Those rounds
are the model's one request loop (:func:`confmig.model.evaluate.evaluate`), which calls
these hooks.
"""

from __future__ import annotations

import random
from collections.abc import Mapping

from confmig.model.rewrite.apply import (
    ACTION_NOESCAPE,
    ACTION_STATUS,
    ACTION_STATUS_SET,
    PassResult,
    apply_list,
    matches_request_vhost,
)
from confmig.model.rewrite.maps import RewriteMap
from confmig.model.rewrite.outcome import Action, RewriteOutcome
from confmig.model.rewrite.parse import RewriteConfig, RewriteRule
from confmig.model.rewrite.request import RewriteRequest
from confmig.model.rewrite.state import EvalState
from confmig.model.rewrite.uri import (
    escape_absolute_uri,
    escape_uri,
    has_ctl_or_space,
    is_absolute_uri,
    subst_prefix_path,
)
from confmig.model.urlpath import core_translate

__all__ = ["evaluate_directory", "evaluate_server", "matches_request_vhost", "split_path_info"]

# -- hooks ---------------------------------------------------------------------------------

def _outcome(st: EvalState, action: Action = "none", *, status: int | None = None,
             location: str | None = None, uri: str | None = None, filename: str | None = None,
             query: str | None = None, query_changed: bool = False,
             internal_redirect: bool = False, end: bool = False, passthrough: bool = False,
             noescape: bool = False, path_info: str | None = None,
             message: str = "") -> RewriteOutcome:
    """The outcome of a pass, with what it collected in *st*.  Every field is assigned here
    (not through the dataclass ``__init__``, which would also build five lists this replaces
    at once): a pass runs for nearly every request."""
    out = _new(RewriteOutcome)
    out.action, out.status, out.location, out.uri = action, status, location, uri
    out.filename, out.query, out.query_changed = filename, query, query_changed
    out.internal_redirect, out.end, out.passthrough = internal_redirect, end, passthrough
    out.noescape, out.path_info, out.message = noescape, path_info, message
    # (the state's empty tuples become lists: an outcome's lists are its own to extend)
    out.env, out.cookies, out.steps, out.unsupported = (
        st.env_changes, st.cookies or [], st.steps or [], st.unsupported or [])
    out.mime_type, out.handler = st.mime_type, st.handler
    out.vary = list(st.request_vary.values()) if st.request_vary else []
    if st.expr_vary:
        out.vary[:0] = st.expr_vary
    return out


_new = object.__new__  # (tests/model/test_fast_paths.py checks _outcome sets every field)


def _status_action(status: int) -> str:
    return {403: "forbidden", 410: "gone"}.get(status, "error")


def _config_error(config: RewriteConfig) -> RewriteOutcome | None:
    if not config.errors:
        return None
    d, message = config.errors[0]
    return RewriteOutcome(action="error", status=500,
                          message=f"configuration error at {d.location}: {message}")


def _new_state(request: RewriteRequest, perdir: str | None, maps: Mapping[str, RewriteMap],
               filename: str, path_info: str, trace: bool,
               rng: random.Random | None) -> EvalState:
    return EvalState(request, perdir, maps, filename=filename, path_info=path_info,
                     trace=trace, rng=rng)


def evaluate_server(config: RewriteConfig, request: RewriteRequest, *, trace: bool = True,
                    rng: random.Random | None = None) -> RewriteOutcome:
    """One pass of the server (virtual host) context rules (``hook_uri2file``).

    A local result is returned as ``filename``: prefixed with the DocumentRoot unless its first
    path segment exists on disk and the substitution spelt it literally (``prefix_stat``) —
    ``r->uri`` is *not* changed, so there is no internal redirect.  With ``[PT]`` the result is
    a new URL-path (``uri``, ``passthrough``) for Alias & co. to map.
    """
    if not config.engine:
        return RewriteOutcome(message="RewriteEngine is off")
    failed = _config_error(config)
    if failed is not None:
        return failed
    if "AllowAnyURI" not in config.options and (request.uri == "*"
                                                 or not request.uri.startswith("/")):
        return RewriteOutcome(message="request-URI is not a URL-path")
    st = _new_state(request, None, config.maps, request.uri, "", trace, rng)
    oargs = request.query
    result = apply_list(config.rules, st)
    return _finish_server(config, st, result, oargs)


def _refused_status_or_proxy(st: EvalState, result: PassResult, value: str,
                             skip_absolute: int) -> RewriteOutcome | None:
    """The endings shared by server and per-directory context, checked in Apache's order:
    a query with control characters or spaces (403), a status flag, a proxy request."""
    fname = st.filename
    will_escape = bool(skip_absolute) and value != ACTION_NOESCAPE
    if st.args and not will_escape and has_ctl_or_space(st.args):
        return _outcome(st, action="forbidden", status=403, end=result.end,
                        message="rewritten query string contains control characters or spaces")
    if value in (ACTION_STATUS, ACTION_STATUS_SET):
        status = result.status or 500
        return _outcome(st, action=_status_action(status), status=status, end=result.end)
    if fname.startswith("proxy:"):
        st.note_unsupported("[P] proxy request (mod_proxy is not modelled)")
        return _outcome(st, action="proxy", location=fname[6:], query=st.args, end=result.end)
    return None


def _finish_server(config: RewriteConfig, st: EvalState, result: PassResult,
                   oargs: str | None) -> RewriteOutcome:
    req = st.request
    value = result.value
    if not value:
        return _outcome(st, action="none", query=st.args, query_changed=st.args != oargs,
                        end=result.end)
    fname = st.filename
    skip_absolute = is_absolute_uri(fname)[0] if fname else 0
    early = _refused_status_or_proxy(st, result, value, skip_absolute)
    if early is not None:
        return early
    if skip_absolute:
        return _redirect(st, result, value, oargs)
    if fname.startswith("passthrough:"):
        return _outcome(st, action="rewrite", uri=fname[12:], passthrough=True, query=st.args,
                        query_changed=st.args != oargs, end=result.end,
                        noescape=value == ACTION_NOESCAPE, status=result.status)
    if fname.startswith("/~"):
        st.note_unsupported("/~user expansion to a home directory is not modelled")
    if not fname.startswith("/"):
        return _outcome(st, action="error", status=400, end=result.end,
                        message="rewritten to a relative path")
    lastsub = None if "UnsafePrefixStat" in config.options else result.lastsub
    reduced = st.uri_reduced and "LegacyPrefixDocRoot" not in config.options
    message = ""
    if reduced or not _prefix_stat(fname, lastsub, req):
        mapped = core_translate(req.document_root, fname)
        if mapped is None:
            return _outcome(st, action="forbidden", status=403, end=result.end,
                            message=f"cannot map {fname} to a file")
        message = "prefixed with DocumentRoot"
        fname = mapped
    else:
        message = "used as a filesystem path"
    return _outcome(st, action="rewrite", filename=fname, uri=req.uri, query=st.args,
                    query_changed=st.args != oargs, end=result.end, message=message,
                    noescape=value == ACTION_NOESCAPE, status=result.status)


def _prefix_stat(path: str, lastsub: RewriteRule | None, req: RewriteRequest) -> bool:
    """``prefix_stat``: is *path* a filesystem path rather than a URL-path?  True only when its
    first segment exists and the substitution spelt that segment literally (or *path* lies
    under the DocumentRoot, or the rule has ``UnsafePrefixStat``)."""
    rest = path.lstrip("/")
    first = "/" + rest.split("/", 1)[0]
    fs = req.fs
    exists = getattr(fs, "exists", None)
    found = exists(first) if exists is not None else (fs.is_dir(first) or fs.is_file(first))
    if not found:
        return False
    if lastsub is None or lastsub.unsafe_prefix_stat:
        return True
    docroot = req.document_root
    ctx_root = req.context_document_root or docroot
    return (lastsub.substitution.startswith(first) or path.startswith(docroot)
            or (ctx_root != docroot and path.startswith(ctx_root)))


def _redirect(st: EvalState, result: PassResult, value: int, oargs: str | None,
              base: str | None = None, directory: str | None = None) -> RewriteOutcome:
    fname = st.filename
    skip = is_absolute_uri(fname)[0]
    if base is not None and directory is not None:
        # Per-dir: replace the directory prefix in the URL path by RewriteBase.
        slash = fname.find("/", skip)
        if slash >= 0 and slash + 1 < len(fname):
            cp = fname[slash + 1:]
            match = directory[1:] if directory.startswith("/") else directory
            replaced = subst_prefix_path(cp, match, base[1:])
            if replaced != cp:
                fname = fname[:slash + 1] + replaced
    if value != ACTION_NOESCAPE:
        fname = escape_absolute_uri(fname, skip)
    if st.args:
        noescape = value == ACTION_NOESCAPE or (oargs is not None and st.args == oargs)
        fname += "?" + (st.args if noescape else escape_uri(st.args))
    status = result.status if result.status is not None and 300 <= result.status < 400 else 302
    return _outcome(st, action="redirect", status=status, location=fname, query=st.args,
                    query_changed=st.args != oargs, end=result.end,
                    noescape=value == ACTION_NOESCAPE)


_NO_MAPS: Mapping[str, RewriteMap] = {}


def evaluate_directory(config: RewriteConfig, request: RewriteRequest, filename: str,
                       directory: str, *, path_info: str | None = None,
                       maps: Mapping[str, RewriteMap] | None = None, trace: bool = True,
                       rng: random.Random | None = None) -> RewriteOutcome:
    """One pass of a per-directory ruleset (``hook_fixup``) for a request whose directory walk
    produced *filename* (``r->filename``) and *path_info* (default ``request.path_info``).

    *directory* is the context's path (``<Directory>`` or the ``.htaccess`` directory; for a
    merged config, the child's).  *maps* are the server's RewriteMaps.  A change of URL gives
    ``action="rewrite"`` with ``internal_redirect=True`` and the new URL in ``uri``/``query``.
    """
    out = directory_pass(config, request, filename, directory,
                         request.path_info if path_info is None else path_info, maps, trace,
                         rng)
    if out is None:
        return RewriteOutcome(query=request.query,
                              path_info=request.path_info if path_info is None else path_info)
    return out


def directory_pass(config: RewriteConfig, request: RewriteRequest, filename: str,
                   directory: str, path_info: str, maps: Mapping[str, RewriteMap] | None,
                   trace: bool, rng: random.Random | None = None) -> RewriteOutcome | None:
    """:func:`evaluate_directory` for callers that run many passes (the request model): None
    when the pass changed nothing at all — no rule applied, no environment (unless already
    written into a shared ``request.env``), cookie, type, handler or Vary, nothing
    unsupported, no ``[END]``, no trace (building an outcome for that costs as much as the
    rest of a small pass)."""
    perdir = directory if directory.endswith("/") else directory + "/"
    if config.errors:  # a broken .htaccess fails every request below it, engine on or off
        return _config_error(config)  # type: ignore[return-value]
    if config.context != "directory":
        return RewriteOutcome(message="no per-directory rewrite config (server rules do not "
                                      "run in per-directory context)")
    if not config.engine:
        return RewriteOutcome(message="RewriteEngine is off")
    if "AllowNoSlash" not in config.options and filename == perdir[:-1]:
        return RewriteOutcome(message="directory requested without trailing slash: declined "
                                      "(mod_dir redirects; see RewriteOptions AllowNoSlash)")
    if not request.symlinks_allowed:
        return RewriteOutcome(action="forbidden", status=403,
                              message="Options FollowSymLinks and SymLinksIfOwnerMatch are both "
                                      "off: RewriteRule is forbidden")
    st = EvalState(request, perdir, maps or _NO_MAPS, filename, path_info, trace, rng,
                   config.base)
    result = apply_list(config.rules, st)
    if not result.value:
        if (not trace and not result.end and (not st.env_changes or request.env_shared)
                and not st.cookies
                and st.mime_type is None and st.handler is None and not st.request_vary
                and not st.expr_vary
                and not st.unsupported and st.args is request.query
                and st.path_info is path_info):
            return None
        return _outcome(st, "none", query=st.args, query_changed=st.args != request.query,
                        end=result.end, path_info=st.path_info)
    return _finish_directory(config, st, result, perdir, filename, request.query)


def _finish_directory(config: RewriteConfig, st: EvalState, result: PassResult, perdir: str,
                      ofilename: str, oargs: str | None) -> RewriteOutcome:
    value = result.value  # a change (evaluate_directory answers "none" itself)
    req = st.request
    fname = st.filename
    skip_absolute = is_absolute_uri(fname)[0]
    early = _refused_status_or_proxy(st, result, value, skip_absolute)
    if early is not None:
        return early
    if skip_absolute:
        return _redirect(st, result, value, oargs, base=config.base, directory=perdir)
    if fname.startswith("passthrough:"):
        fname = fname[12:]
    if not fname.startswith("/"):
        return _outcome(st, action="error", status=400, end=result.end,
                        message="rewritten to a relative path")
    if fname == ofilename:
        return _outcome(st, action="rewrite", filename=fname, uri=req.uri, query=st.args,
                        query_changed=st.args != oargs, end=result.end, path_info=st.path_info,
                        message="initial URL equal rewritten URL: no internal redirect",
                        status=result.status)
    url = fname
    if config.base is not None:
        url = subst_prefix_path(fname, perdir, config.base)
    else:
        root = req.document_root
        root = root[:-1] if root.endswith("/") else root
        if fname.startswith(root) and fname[len(root):len(root) + 1] == "/":
            url = fname[len(root):]
    if url == fname and "IgnoreContextInfo" not in config.options:
        ctx_root = req.context_document_root or req.document_root
        url = subst_prefix_path(fname, ctx_root, req.context_prefix)
    return _outcome(st, action="rewrite", filename=fname, uri=url, query=st.args,
                    query_changed=st.args != oargs, internal_redirect=True, end=result.end,
                    path_info=st.path_info, noescape=value == ACTION_NOESCAPE,
                    status=result.status)


# -- PATH_INFO ------------------------------------------------------------------------------

def split_path_info(path: str, fs: object, *, known_dir: str | None = None) -> tuple[str, str]:
    """Split a filesystem path into ``(r->filename, r->path_info)`` like the directory walk:
    the walk stops at the first segment that is not a directory; the rest is PATH_INFO.

    Segments up to *known_dir* (e.g. the DocumentRoot) are assumed to be directories.
    """
    is_dir = fs.is_dir  # type: ignore[attr-defined]
    start = ""
    rest = path
    if known_dir:
        kd = known_dir.rstrip("/")
        if path == kd or path.startswith(kd + "/"):
            start, rest = kd, path[len(kd):]
    segments = rest.split("/")
    current = start
    for i, seg in enumerate(segments):
        if i == 0 and seg == "":
            continue
        if seg == "" and i == len(segments) - 1:
            return current + "/", ""  # trailing slash: a directory request keeps it
        candidate = current + "/" + seg
        if is_dir(candidate):
            current = candidate
            continue
        tail = "/".join(segments[i + 1:])
        return candidate, ("/" + tail if i + 1 < len(segments) else "")
    return current or "/", ""
