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
        if upper.startswith("HTTP:"):
            return req.headers.get(name[5:]) or ""
        if upper.startswith("RESP:"):
            key = name[5:].lower()
            return ", ".join(v for n, v in response or () if n.lower() == key)
        if upper.startswith("ENV:"):
            return rnd.env.get(name[4:], "")
        if upper.startswith("HTTP_"):
            return req.headers.get(name[5:].replace("_", "-")) or ""
        simple = {
            "REQUEST_URI": rnd.uri, "DOCUMENT_URI": rnd.env.get("DOCUMENT_URI", rnd.uri),
            "QUERY_STRING": rnd.query or "", "REQUEST_METHOD": req.method,
            "REQUEST_SCHEME": req.scheme, "HTTPS": "on" if req.https else "off",
            "THE_REQUEST": req.the_request, "REMOTE_ADDR": req.remote_addr,
            "CONN_REMOTE_ADDR": req.remote_addr,
            # ap_get_useragent_host(REMOTE_NAME) under HostnameLookups Off: the address
            "REMOTE_HOST": req.remote_addr,
            "SERVER_NAME": req.host or ev.server.name,
            "SERVER_PORT": str(server_port(req, ev.server.name_port)),
            "SERVER_PROTOCOL": req.protocol, "DOCUMENT_ROOT": ev.server.document_root,
            "SERVER_ADMIN": ev.server.server_admin,
            "REQUEST_FILENAME": rnd.filename or "", "SCRIPT_FILENAME": rnd.filename or "",
            "CONTENT_TYPE": rnd.content_type or "", "HANDLER": rnd.handler or "",
            "PATH_INFO": rnd.path_info,
            "IS_SUBREQ": "true" if ev.subreq_depth else "false", "IPV6": "off",
            "REMOTE_USER": rnd.user or "", "AUTH_TYPE": rnd.auth_type or "",
            "REQUEST_STATUS": str(status),
            "CONTEXT_PREFIX": rnd.context[0] if rnd.context else "",
            "CONTEXT_DOCUMENT_ROOT": (rnd.context[1] if rnd.context
                                      else ev.server.document_root),
        }
        found = simple.get(upper)
        if found is not None or upper not in _FILE_VARIABLES:
            return found
        return _file_variable(ev, rnd, upper)

    return lookup


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
