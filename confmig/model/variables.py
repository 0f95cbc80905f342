"""The ``%{NAME}`` variables ``ap_expr`` sees for a round (``<If>``, ``Require expr``,
``Header … expr=``, ``SetEnvIfExpr``) — ``request_var_fn``/``conn_var_fn`` of
``server/util_expr_eval.c``; None where the model does not know the value (a connection's
port or log id, the server's banner)."""

from __future__ import annotations

import grp
import os
import pwd
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from confmig.model.mapping import server_port
from confmig.model.round import Round

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation


def lookup_for(ev: Evaluation, rnd: Round, response: list[tuple[str, str]] | None = None,
               status: int = 200) -> Callable[[str], str | None]:
    """The ``%{NAME}`` variables of ``ap_expr`` for this round (None: not modelled).
    *response* is the header table being built (``resp()``) and *status* ``r->status``:
    both only while the response headers are made (200 before)."""
    req = ev.request

    def lookup(name: str) -> str | None:
        upper = name.upper()
        value = _SIMPLE.get(upper)
        if value is not None:
            return value(ev, rnd, status)
        if upper.startswith("HTTP:"):
            return req.headers.get(name[5:]) or ""
        if upper.startswith("RESP:"):
            key = name[5:].lower()
            return ", ".join(v for n, v in response or () if n.lower() == key)
        if upper.startswith("ENV:"):
            return rnd.env.get(name[4:], "")
        if upper.startswith("HTTP_"):
            return req.headers.get(name[5:].replace("_", "-")) or ""
        if upper in _FILE_VARIABLES:
            return _file_variable(ev, rnd, upper)
        return None

    return lookup


# The plain variables: each name's value for (evaluation, round, status), read when asked (a
# table of every value was built on each lookup: a 1 MB file of <If> blocks made 68,148 of
# them, issue 10).  No name here starts with HTTP:, RESP:, ENV: or HTTP_.
_SIMPLE: dict[str, Callable[[Evaluation, Round, int], str | None]] = {
    "REQUEST_URI": lambda ev, rnd, status: rnd.uri,
    "DOCUMENT_URI": lambda ev, rnd, status: rnd.env.get("DOCUMENT_URI", rnd.uri),
    "QUERY_STRING": lambda ev, rnd, status: rnd.query or "",
    "REQUEST_METHOD": lambda ev, rnd, status: ev.request.method,
    "REQUEST_SCHEME": lambda ev, rnd, status: ev.request.scheme,
    "HTTPS": lambda ev, rnd, status: "on" if ev.request.https else "off",
    "THE_REQUEST": lambda ev, rnd, status: ev.request.the_request,
    "REMOTE_ADDR": lambda ev, rnd, status: ev.request.remote_addr,
    "CONN_REMOTE_ADDR": lambda ev, rnd, status: ev.request.remote_addr,
    # ap_get_useragent_host(REMOTE_NAME) under HostnameLookups Off: the address
    "REMOTE_HOST": lambda ev, rnd, status: ev.request.remote_addr,
    "SERVER_NAME": lambda ev, rnd, status: ev.request.host or ev.server.name,
    "SERVER_PORT": lambda ev, rnd, status: str(server_port(ev.request, ev.server.name_port)),
    "SERVER_PROTOCOL": lambda ev, rnd, status: ev.request.protocol,
    "DOCUMENT_ROOT": lambda ev, rnd, status: ev.server.document_root,
    "SERVER_ADMIN": lambda ev, rnd, status: ev.server.server_admin,
    "REQUEST_FILENAME": lambda ev, rnd, status: rnd.filename or "",
    "SCRIPT_FILENAME": lambda ev, rnd, status: rnd.filename or "",
    "CONTENT_TYPE": lambda ev, rnd, status: rnd.content_type or "",
    "HANDLER": lambda ev, rnd, status: rnd.handler or "",
    "PATH_INFO": lambda ev, rnd, status: rnd.path_info,
    "IS_SUBREQ": lambda ev, rnd, status: "true" if ev.subreq_depth else "false",
    "IPV6": lambda ev, rnd, status: "off",
    "REMOTE_USER": lambda ev, rnd, status: rnd.user or "",
    "AUTH_TYPE": lambda ev, rnd, status: rnd.auth_type or "",
    "REQUEST_STATUS": lambda ev, rnd, status: str(status),
    "CONTEXT_PREFIX": lambda ev, rnd, status: rnd.context[0] if rnd.context else "",
    "CONTEXT_DOCUMENT_ROOT": lambda ev, rnd, status: (rnd.context[1] if rnd.context
                                                      else ev.server.document_root),
}


_FILE_VARIABLES = frozenset({"SCRIPT_USER", "SCRIPT_GROUP", "LAST_MODIFIED"})


def _file_variable(ev: Evaluation, rnd: Round, name: str) -> str:
    """``SCRIPT_USER``/``SCRIPT_GROUP`` (the owner of ``r->finfo``, "" when nothing was
    found) and ``LAST_MODIFIED`` (``r->mtime``: 0 until the handler serves the file),
    formatted in the server's local time as ``%02d`` pairs."""
    try:
        info = os.stat(rnd.filename) if rnd.filename and rnd.kind else None
    except OSError:
        info = None
    if name == "LAST_MODIFIED":
        when = info.st_mtime if info is not None and rnd.served else 0
        tm = time.localtime(int(when))
        return (f"{tm.tm_year // 100:02d}{tm.tm_year % 100:02d}{tm.tm_mon:02d}"
                f"{tm.tm_mday:02d}{tm.tm_hour:02d}{tm.tm_min:02d}{tm.tm_sec:02d}")
    if info is None:
        return ""
    try:
        if name == "SCRIPT_USER":
            return pwd.getpwuid(info.st_uid).pw_name
        return grp.getgrgid(info.st_gid).gr_name
    except KeyError:
        return ""
