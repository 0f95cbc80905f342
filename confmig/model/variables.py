"""The ``%{NAME}`` variables ``ap_expr`` sees for a round (``<If>``, ``Require expr``,
``Header … expr=``); None where the model does not know the value."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from confmig.model.mapping import server_port
from confmig.model.round import Round

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation


def lookup_for(ev: Evaluation, rnd: Round, response: list[tuple[str, str]] | None = None
               ) -> Callable[[str], str | None]:
    """The ``%{NAME}`` variables of ``ap_expr`` for this round (None: not modelled)."""
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
            "REQUEST_URI": rnd.uri, "DOCUMENT_URI": rnd.uri,
            "QUERY_STRING": rnd.query or "", "REQUEST_METHOD": req.method,
            "REQUEST_SCHEME": req.scheme, "HTTPS": "on" if req.https else "off",
            "THE_REQUEST": req.the_request, "REMOTE_ADDR": req.remote_addr,
            "SERVER_NAME": req.host or ev.server.name,
            "SERVER_PORT": str(server_port(req, ev.server.name_port)),
            "SERVER_PROTOCOL": req.protocol, "DOCUMENT_ROOT": ev.server.document_root,
            "REQUEST_FILENAME": rnd.filename or "", "SCRIPT_FILENAME": rnd.filename or "",
            "CONTENT_TYPE": rnd.content_type or "", "HANDLER": rnd.handler or "",
            "PATH_INFO": rnd.path_info, "IS_SUBREQ": "false", "IPV6": "off",
            "REMOTE_USER": "", "AUTH_TYPE": "",
        }
        return simple.get(upper)

    return lookup
