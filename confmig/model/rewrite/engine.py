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
after ``LimitInternalRecursion`` (10) redirects the request fails with 500.
:func:`run_per_directory_rounds` drives those rounds.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

from confmig.model.rewrite.apply import (
    ACTION_NOESCAPE,
    ACTION_STATUS,
    ACTION_STATUS_SET,
    PassResult,
    apply_list,
    default_port,
    matches_request_vhost,
)
from confmig.model.rewrite.maps import RewriteMap
from confmig.model.rewrite.outcome import Action, RewriteOutcome
from confmig.model.rewrite.parse import RewriteConfig, Rule
from confmig.model.rewrite.request import RewriteRequest, normalize_path
from confmig.model.rewrite.state import EvalState
from confmig.model.rewrite.uri import (
    escape_absolute_uri,
    escape_uri,
    has_ctl_or_space,
    is_absolute_uri,
    subst_prefix_path,
    unescape_url,
)

__all__ = [
    "Round", "RoundsResult", "construct_url", "core_translate", "evaluate_directory",
    "evaluate_server", "matches_request_vhost", "run_per_directory_rounds", "split_path_info",
]

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


def _prefix_stat(path: str, lastsub: Rule | None, req: RewriteRequest) -> bool:
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


def core_translate(document_root: str, uri: str) -> str | None:
    """``ap_core_translate``: DocumentRoot + URL-path (dot segments resolved); None when the
    path would climb above the DocumentRoot (Apache: 403 "Cannot map ... to file")."""
    path = uri.lstrip("/")
    parts: list[str] = []
    for seg in path.split("/"):
        if seg == "..":
            if not parts:
                return None
            parts.pop()
        elif seg != ".":
            parts.append(seg)
    root = document_root.rstrip("/") or ""
    return root + "/" + "/".join(parts) if parts or path else root + "/"


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


# -- the per-directory rounds --------------------------------------------------------------

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


@dataclass(slots=True)
class Round:
    """One request-processing round: the URL it started with and what the rules did."""

    uri: str
    query: str | None
    filename: str | None = None
    path_info: str = ""
    server: RewriteOutcome | None = None
    directory: RewriteOutcome | None = None
    directory_path: str | None = None


@dataclass(slots=True)
class RoundsResult:
    """Where the request ends up after all rewrite rounds.

    ``action`` is ``serve`` (``filename``/``path_info``/``query`` are what Apache serves;
    ``status`` is None, or the 3xx an overridden ``[R]`` left in ``r->status``) or the terminal
    action of the last outcome (``redirect``, ``forbidden``, ``gone``, ``error``, ``proxy``).
    """

    action: str
    status: int | None = None
    location: str | None = None
    uri: str = "/"
    query: str | None = None
    filename: str | None = None
    path_info: str = ""
    rounds: list[Round] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    mime_type: str | None = None
    handler: str | None = None
    unsupported: list[str] = field(default_factory=list)
    message: str = ""

    def trace(self) -> str:
        lines: list[str] = []
        for n, rnd in enumerate(self.rounds, 1):
            q = f"?{rnd.query}" if rnd.query is not None else ""
            lines.append(f"round {n}: {rnd.uri}{q} -> {rnd.filename}{rnd.path_info}")
            if rnd.server is not None:
                lines.append("  [server] " + rnd.server.trace().replace("\n", "\n  "))
            if rnd.directory is not None:
                lines.append(f"  [{rnd.directory_path}] "
                             + rnd.directory.trace().replace("\n", "\n  "))
        lines.append(f"=> {self.action} {self.status or ''} {self.location or self.filename}")
        return "\n".join(lines)


def run_per_directory_rounds(
    request: RewriteRequest,
    directory_config: Callable[[str], RewriteConfig | None],
    *,
    server: RewriteConfig | None = None,
    translate: Callable[[str], str | None] | None = None,
    maps: Mapping[str, RewriteMap] | None = None,
    limit: int = 10,
    directory_slash: bool = True,
    trace: bool = True,
    rng: random.Random | None = None,
) -> RoundsResult:
    """Follow a request through server rules, the directory walk and per-directory rules, and
    through every internal redirect those cause, to what Apache finally does.

    Each round: (1) the *server* config's rules (skipped after ``[END]``); (2) URL-path →
    filesystem path via *translate* (default: DocumentRoot + path, ``core_translate``; plug
    Alias & co. in here); (3) split off PATH_INFO with ``request.fs``; (4)
    ``directory_config(filename)`` gives the merged per-dir rewrite config for that file (None:
    no per-dir rules) — its ``directory`` is the prefix stripped; (5) mod_dir's trailing-slash
    redirect (*directory_slash*, ``DirectorySlash On``) runs after mod_rewrite's fixup and wins
    over its internal redirect; (6) if the per-dir rules rewrote to a new URL, the next round
    starts with it, the environment renamed with ``REDIRECT_`` and ``r->status`` carried over
    (an ``[R]`` overridden by a later local rewrite makes Apache serve the file with that
    3xx status and no Location).  More than *limit* (``LimitInternalRecursion``) internal
    redirects give 500.  ``DirectoryIndex`` and handlers are left to the caller.
    """
    maps = dict(maps or {})
    if server is not None:
        maps = {**maps, **server.maps}
    translate = translate or (lambda uri: core_translate(request.document_root, uri))
    if request.cookie_names is None:  # [CO]: once per name for the whole request
        request = replace(request, cookie_names=set())
    current = request
    rounds: list[Round] = []
    unsupported: list[str] = []
    ended = False
    redirects = 0
    pending_status: int | None = None  # r->status as the previous rounds left it

    def done(action: str, env: dict[str, str], out: RewriteOutcome | None = None,
             **kwargs: object) -> RoundsResult:
        res = RoundsResult(action=action, uri=current.uri, query=current.query, rounds=rounds,
                           env=env, unsupported=unsupported)
        # [T=]/[H=] live in r->notes, which an internal redirect starts afresh.
        last = rounds[-1]
        for step in (last.server, last.directory):
            if step is not None:
                res.mime_type = step.mime_type or res.mime_type
                res.handler = step.handler or res.handler
        if out is not None:
            res.status, res.location, res.message = out.status, out.location, out.message
            _apply_env(res.env, out.env)
        for key, value in kwargs.items():
            setattr(res, key, value)
        return res

    while True:
        rnd = Round(current.uri, current.query)
        rounds.append(rnd)
        env = dict(current.env)
        query = current.query
        path: str | None = None
        if server is not None and not ended:
            out = evaluate_server(server, current, trace=trace, rng=rng)
            rnd.server = out
            _collect(unsupported, out)
            ended = ended or out.end
            if out.action in _TERMINAL:
                return done(out.action, env, out)
            _apply_env(env, out.env)
            if out.action == "rewrite":
                query = out.query
                pending_status = out.status or pending_status
                path = translate(out.uri) if out.passthrough and out.uri else out.filename
                if path is None:
                    return done("forbidden", env, status=403,
                                message=f"cannot map {out.uri} to a file")
        if path is None:
            path = translate(current.uri)
            if path is None:
                return done("forbidden", env, status=403,
                            message=f"cannot map {current.uri} to a file")
        filename, path_info = split_path_info(path, current.fs,
                                              known_dir=current.document_root)
        rnd.filename, rnd.path_info = filename, path_info
        current = replace(current, query=query, env=env)
        config = None if ended else directory_config(filename)
        out = None
        if config is not None:
            rnd.directory_path = config.directory
            out = evaluate_directory(config, current, filename, config.directory or "/",
                                     path_info=path_info, maps=maps, trace=trace, rng=rng)
            rnd.directory = out
            _collect(unsupported, out)
            ended = ended or out.end
            if out.action in _TERMINAL:
                return done(out.action, env, out)
            if out.action == "rewrite":
                pending_status = out.status or pending_status
        changed = out is not None and out.action == "rewrite"
        if (directory_slash and not path_info and not current.uri.endswith("/")
                and current.fs.is_dir(filename)):
            args = out.query if changed and out is not None else query
            target = escape_uri(current.uri) + "/" + (f"?{args}" if args is not None else "")
            return done("redirect", env, status=301, location=construct_url(current, target),
                        message="mod_dir: DirectorySlash redirect (runs after mod_rewrite's "
                                "fixup and wins over its internal redirect)")
        if out is None or not out.internal_redirect:
            return done("serve", env, out, filename=out.filename if changed and out else filename,
                        path_info=out.path_info if changed and out else path_info,
                        query=out.query if changed and out else query, status=pending_status,
                        location=None)
        # An internal redirect: a new request for the rewritten URL (httpd renames the
        # environment with a REDIRECT_ prefix and adds REDIRECT_STATUS).
        redirects += 1
        _apply_env(env, out.env)
        if redirects > limit:
            return done("error", env, status=500,
                        message=f"exceeded LimitInternalRecursion ({limit}) internal redirects")
        assert out.uri is not None
        decoded, bad_escape, bad_path = unescape_url(out.uri)
        if bad_escape:
            return done("error", env, status=400,
                        message=f"bad %-escape in the internal redirect to {out.uri}")
        if bad_path:
            return done("error", env, status=404,
                        message=f"encoded slash or NUL in the internal redirect to {out.uri}")
        new_env = {f"REDIRECT_{k}": v for k, v in env.items()}
        new_env.update(request.env)
        new_env["REDIRECT_STATUS"] = str(pending_status or 200)
        current = replace(current, uri=normalize_path(decoded), query=out.query, env=new_env,
                          path_info="")


def construct_url(request: RewriteRequest, uri: str) -> str:
    """``ap_construct_url``: scheme://host[:port] + *uri* (port omitted when default)."""
    port = "" if request.port == default_port(request) else f":{request.port}"
    return f"{request.scheme}://{request.server_name_for_url}{port}{uri}"


_TERMINAL = frozenset({"redirect", "forbidden", "gone", "error", "proxy"})


def _apply_env(env: dict[str, str], changes: Mapping[str, str | None]) -> None:
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value


def _collect(into: list[str], out: RewriteOutcome) -> None:
    for item in out.unsupported:
        if item not in into:
            into.append(item)
