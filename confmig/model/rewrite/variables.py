"""``%{NAME}`` server variables, as ``lookup_variable`` in mod_rewrite.c resolves them.

Facts worth knowing (all from the source, several verified against httpd):

* only a fixed list of ``HTTP_*`` names is known: HTTP_HOST, HTTP_ACCEPT, HTTP_COOKIE,
  HTTP_REFERER, HTTP_FORWARDED, HTTP_USER_AGENT, HTTP_PROXY_CONNECTION.  Any other name, e.g.
  ``%{HTTP_X_FORWARDED_FOR}``, is *empty* — use ``%{HTTP:X-Forwarded-For}``;
* unknown names expand to the empty string, silently;
* REQUEST_URI is ``r->uri``: the decoded path without the query string;
* REQUEST_FILENAME and SCRIPT_FILENAME are the current ``r->filename`` (in server context the
  URL-path itself, since nothing is mapped yet);
* SERVER_NAME / SERVER_PORT follow ``UseCanonicalName Off`` (the Host header).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from datetime import datetime

from confmig.model.rewrite.state import EvalState

_HEADER_VARS = {
    "HTTP_HOST": "Host", "HTTP_ACCEPT": "Accept", "HTTP_COOKIE": "Cookie",
    "HTTP_REFERER": "Referer", "HTTP_FORWARDED": "Forwarded", "HTTP_USER_AGENT": "User-Agent",
    "HTTP_PROXY_CONNECTION": "Proxy-Connection",
}


def lookup_header(name: str, st: EvalState) -> str | None:
    """``lookup_header``: the header value; remembers it for ``Vary`` (never ``Host``)."""
    value = st.request.headers.get(name)
    if value is not None and name.lower() != "host":
        st.vary_this.append(name)
    return value


def _now(st: EvalState) -> datetime:
    return st.request.now or datetime.now()


def _time(fmt: str) -> Callable[[EvalState], str]:
    return lambda st: _now(st).strftime(fmt)


def _wday(st: EvalState) -> str:
    return str((_now(st).weekday() + 1) % 7)


class _Header:
    """``lookup_header(name) or ""`` as a resolver (its bound :meth:`value`), with the name's
    lower-case form (the :class:`Headers` key, and the ``Host`` test) computed once.  A slotted
    object and its bound method, ~140 bytes: the closure over three cells it was took ~340, one
    per ``%{HTTP:X-N}`` of a file of distinct headers that a request evaluates (issue 10)."""

    __slots__ = ("key", "name", "vary")

    def __init__(self, name: str) -> None:
        key = name.lower()
        self.key = name if key == name else key
        self.name = name
        self.vary = key != "host"

    def value(self, st: EvalState) -> str:
        headers = st.request.headers
        try:
            item = headers._items.get(self.key)  # Headers.get without its lower()
        except AttributeError:  # not a Headers
            return lookup_header(self.name, st) or ""
        if item is None:
            return ""
        if self.vary:
            st.vary_this.append(self.name)
        return item[1] or ""


def header_value(name: str, st: EvalState) -> str:
    """``lookup_header(name) or ""``, as :class:`_Header`'s resolver gives it, for a caller
    that has the name at hand (a ``RewriteCond %{HTTP:NAME}``'s checker reads it from the
    condition): one function for every name, nothing made per name."""
    headers = st.request.headers
    key = name.lower()
    try:
        item = headers._items.get(key)  # Headers.get without its lower()
    except AttributeError:  # not a Headers
        return lookup_header(name, st) or ""
    if item is None:
        return ""
    if key != "host":
        st.vary_this.append(name)
    return item[1] or ""


def _header_resolver(name: str) -> Resolver:
    """The resolver of the header ``name`` (:class:`_Header`)."""
    return _Header(name).value


def _context_docroot(st: EvalState) -> str:
    return st.request.context_document_root or st.request.document_root


_SIMPLE: dict[str, Callable[[EvalState], str | None]] = {
    "TIME": _time("%Y%m%d%H%M%S"),
    "TIME_YEAR": _time("%Y"), "TIME_MON": _time("%m"), "TIME_DAY": _time("%d"),
    "TIME_HOUR": _time("%H"), "TIME_MIN": _time("%M"), "TIME_SEC": _time("%S"),
    "TIME_WDAY": _wday,
    "IPV6": lambda st: "on" if st.request.ipv6 else "off",
    "HTTPS": lambda st: "on" if st.request.https else "off",
    "IS_SUBREQ": lambda st: "true" if st.request.is_subrequest else "false",
    "PATH_INFO": lambda st: st.path_info,
    "AUTH_TYPE": lambda st: st.request.auth_type,
    "SERVER_NAME": lambda st: st.request.server_name_for_url,
    "REMOTE_ADDR": lambda st: st.request.remote_addr,
    "SERVER_ADDR": lambda st: st.request.server_addr,
    "THE_REQUEST": lambda st: st.request.the_request,
    "API_VERSION": lambda st: st.request.api_version,
    "SERVER_PORT": lambda st: str(st.request.port),
    "REMOTE_HOST": lambda st: st.request.remote_host or st.request.remote_addr,
    "REMOTE_PORT": lambda st: str(st.request.remote_port),
    "REMOTE_USER": lambda st: st.request.remote_user,
    "SCRIPT_USER": lambda st: "<unknown>",
    "SCRIPT_GROUP": lambda st: "<unknown>",
    "REQUEST_URI": lambda st: st.uri,
    "REMOTE_IDENT": lambda st: None,
    "QUERY_STRING": lambda st: st.args,
    "SERVER_ADMIN": lambda st: st.request.server_admin,
    "DOCUMENT_ROOT": lambda st: st.request.document_root,
    "CONTEXT_PREFIX": lambda st: st.request.context_prefix,
    "REQUEST_METHOD": lambda st: st.request.method,
    "REQUEST_SCHEME": lambda st: st.request.scheme,
    "SCRIPT_FILENAME": lambda st: st.filename,
    "REQUEST_FILENAME": lambda st: st.filename,
    "SERVER_PROTOCOL": lambda st: st.request.protocol,
    "SERVER_SOFTWARE": lambda st: st.request.server_software,
    "CONN_REMOTE_ADDR": lambda st: st.request.remote_addr,
    "CONTEXT_DOCUMENT_ROOT": _context_docroot,
}
# Values that are always a string: their resolver needs no ``or ""`` wrapper.
_NEVER_NONE = frozenset({"IPV6", "HTTPS", "IS_SUBREQ", "PATH_INFO", "SERVER_NAME",
                         "SERVER_PORT", "REMOTE_PORT", "REQUEST_URI", "REQUEST_SCHEME",
                         "SCRIPT_FILENAME", "REQUEST_FILENAME"})


Resolver = Callable[[EvalState], str]


def lookup_variable(var: str, st: EvalState) -> str:
    """The value of ``%{var}``; ``""`` when unknown or unset."""
    return resolver(var)(st)


@functools.lru_cache(maxsize=1024)
def resolver(var: str) -> Resolver:
    """A function giving ``%{var}`` for a state; built once per name while the name is among
    the 1,024 last asked for (names come from the config, and evaluation must stay cheap; a
    table of every name ever asked for kept a closure per ``%{HTTP:X-N}`` of a file of
    distinct headers for the life of the process, issue 10)."""
    return _make_resolver(var)


def _empty(st: EvalState) -> str:
    return ""


def _make_resolver(var: str) -> Resolver:
    if len(var) < 4:
        return _empty
    if var[3] == ":":
        prefix, name = var[:3].upper(), var[4:]
        if name and prefix == "ENV":
            return lambda st: st.env.get(name) or ""
        if name and prefix == "SSL":
            def ssl(st: EvalState) -> str:
                if st.request.https:
                    st.note_unsupported(f"%{{SSL:{name}}} (mod_ssl variables are not modelled)")
                return ""
            return ssl
        return _empty
    if var[4:5] == ":":
        prefix, name = var[:4].upper(), var[5:]
        if not name:
            return _empty
        if prefix == "HTTP":
            return _header_resolver(name)
        if prefix in ("LA-U", "LA-F"):
            return lambda st: _lookahead(prefix, name, st)
        return _empty
    upper = var.upper()
    header = _HEADER_VARS.get(upper)
    if header is not None:
        return _header_resolver(header)
    func = _SIMPLE.get(upper)
    if func is None:
        return _empty
    if upper in _NEVER_NONE:
        return func  # type: ignore[return-value]
    return lambda st: func(st) or ""


def _lookahead(prefix: str, name: str, st: EvalState) -> str:
    """``%{LA-U:var}`` / ``%{LA-F:var}``: a sub-request, delegated to ``request.lookahead``."""
    req = st.request
    if req.is_subrequest:
        return ""  # approximates subreq_ok(): no lookahead from inside a sub-request
    path = st.match_uri
    if prefix == "LA-U":
        kind = "uri"
        if st.perdir is not None and not path.startswith("/"):
            path = (st.base or st.perdir) + path  # la_u(): RewriteBase, else the directory
    elif st.perdir is not None and path.startswith("/"):
        kind = "uri"  # a file lookup is impossible here; Apache behaves like LA-U
    else:
        kind = "file"
        if st.perdir is not None:
            path = st.perdir + path
    value = req.lookahead.variable(kind, path, name) if req.lookahead else None  # type: ignore[arg-type]
    if value is None:
        st.note_unsupported(f"%{{{prefix}:{name}}} lookahead on {path}")
        return ""
    return value
