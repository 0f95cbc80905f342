"""``model.variables.lookup_for``: each ``%{NAME}`` read when it is asked, with the answers the
table it built on every lookup gave (issue 10: a 1 MB file of ``<If>`` blocks built 68,148
tables of ~30 values)."""

from __future__ import annotations

import itertools
from types import SimpleNamespace

import pytest

from confmig.model import variables
from confmig.model.expr import names
from confmig.model.mapping import server_port


def _old_lookup_for(ev, rnd, response=None, status=200):  # type: ignore[no-untyped-def]
    """The lookup as it was at 13208a7, kept as the reference."""
    req = ev.request

    def lookup(name):  # type: ignore[no-untyped-def]
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
        if found is not None or upper not in variables._FILE_VARIABLES:
            return found
        return variables._file_variable(ev, rnd, upper)

    return lookup


class _Headers(dict):  # type: ignore[type-arg]
    def get(self, name, default=None):  # type: ignore[no-untyped-def, override]
        return super().get(name.lower(), default)


def _worlds(tmp_path):  # type: ignore[no-untyped-def]
    served = tmp_path / "f.txt"
    served.write_text("x")
    for https, host, port, ctx, filename, query, sub, the_request, admin in itertools.product(
            (False, True), (None, "example.org"), (None, 8443), (None, ("/p", "/srv/p")),
            (None, str(served)), (None, "a=1"), (0, 2), (None, "GET / HTTP/1.1"),
            (None, "root@x")):
        req = SimpleNamespace(
            headers=_Headers({"x-foo": "bar", "user-agent": "UA", "x-a-b": "c"}),
            method="GET", scheme="https" if https else "http", https=https,
            the_request=the_request, remote_addr="10.0.0.1", host=host, host_port=port,
            protocol="HTTP/1.1")
        server = SimpleNamespace(name="srv", name_port=None, document_root="/srv",
                                 server_admin=admin)
        ev = SimpleNamespace(request=req, server=server, subreq_depth=sub)
        rnd = SimpleNamespace(
            uri="/a b", env={"DOCUMENT_URI": "/doc", "X": "y"} if sub else {"X": "y"},
            query=query, filename=filename, kind="file" if filename else None, served=False,
            content_type=None if query else "text/plain", handler=None, path_info="/pi",
            user="u" if https else None, auth_type=None, context=ctx)
        yield ev, rnd


_NAMES = sorted({*names.VARIABLES, "HTTP:X-Foo", "http:x-foo", "HTTP:None", "RESP:Vary",
                 "resp:x-r", "ENV:X", "env:Z", "HTTP_X_A_B", "HTTP_USER_AGENT", "http_x_foo",
                 "BOGUS", "request_uri", "Query_String", "SSL_PROTOCOL", "LAST_MODIFIED",
                 "SCRIPT_USER", "SCRIPT_GROUP", "", "HTTP", "HTTPS2"})


def test_same_answers_as_the_table(tmp_path) -> None:  # type: ignore[no-untyped-def]
    response = [("Vary", "a"), ("X-R", "1"), ("vary", "b")]
    count = 0
    for ev, rnd in _worlds(tmp_path):
        for resp, status in ((None, 200), (response, 404)):
            new = variables.lookup_for(ev, rnd, resp, status)  # type: ignore[arg-type]
            old = _old_lookup_for(ev, rnd, resp, status)
            for name in _NAMES:
                assert new(name) == old(name), (name, ev, rnd)
                count += 1
    assert count > 10_000


def test_a_name_is_read_alone(tmp_path, monkeypatch: pytest.MonkeyPatch) -> None:  # type: ignore[no-untyped-def]
    """%{QUERY_STRING} reads the query, not the server's port and the 28 other values."""
    ev, rnd = next(_worlds(tmp_path))

    def refuse(*_args: object) -> int:
        raise AssertionError("SERVER_PORT computed")

    monkeypatch.setattr(variables, "server_port", refuse)
    lookup = variables.lookup_for(ev, rnd)  # type: ignore[arg-type]
    assert lookup("QUERY_STRING") == ""
    assert lookup("HTTPS") == "off"
    with pytest.raises(AssertionError):
        lookup("SERVER_PORT")
