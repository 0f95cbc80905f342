"""The model's directive handlers count arguments with the table measured on Apache
(confmig/apache/data/arity.json via confmig.apache.arity), the one lint's SYN002 reads: no
counts of their own.  Where their own counts had differed — a quoted empty word, which
config.c takes for a missing one (``AuthName ""``) — Apache decides."""

from __future__ import annotations

import pytest

from confmig.apache.arity import arity_problem
from confmig.lint.testing import ApacheCases, HtaccessCase
from confmig.load import load_config
from confmig.model.evaluate import evaluate
from confmig.model.merge import SectionBuilder
from confmig.model.request import Request, RequestHeaders
from confmig.model.site_builder import build_site
from confmig.servers import ApacheBinary
from confmig.syntax import Directive, parse_text

LINES = ['AuthName ""', "AuthName", "AuthName a b", "AuthType", "AuthUserFile",
         "AuthGroupFile a b", "AuthBasicUseDigestAlgorithm", "ForceType", "ForceType a b",
         "SetHandler", "AddDefaultCharset", "AddDefaultCharset a b", "ErrorDocument 404",
         "ErrorDocument", "ErrorDocument 404 /a /b", "DirectoryIndexRedirect on 301",
         "FallbackResource", "ExpiresDefault", "ExpiresByType text/html",
         "DefaultLanguage a b"]


def errors(line: str) -> list[str]:
    builder = SectionBuilder("directory", "/srv/www/")  # type: ignore[arg-type]
    for node in parse_text(line + "\n", "t.conf").nodes:
        assert isinstance(node, Directive)
        builder.directive(node)
    return [message for _node, message in builder.errors]


@pytest.mark.parametrize("line", LINES)
def test_handlers_count_with_the_measured_table(line: str) -> None:
    node = parse_text(line + "\n", "t.conf").nodes[0]
    assert isinstance(node, Directive)
    problem = arity_problem(node.name, node.args)
    assert problem is not None and problem[0] == "error", line
    assert errors(line) == [problem[1]]


def test_a_right_count_passes() -> None:
    for line in ("AuthName realm", "ForceType text/plain", "ErrorDocument 404 /missing.html",
                 "ExpiresByType text/html A60", 'SetHandler "none"'):
        assert errors(line) == [], line


@pytest.mark.apache
def test_on_apache(apache_binary: ApacheBinary) -> None:
    cases = [HtaccessCase("empty_authname", 'AuthName ""\n'),
             HtaccessCase("forcetype_two", "ForceType a b\n"),
             HtaccessCase("errordocument_one", "ErrorDocument 404\n"),
             HtaccessCase("fine", "ForceType text/plain\nErrorDocument 404 /missing.html\n")]
    with ApacheCases(cases) as apache:
        statuses = {c.name: apache.status(c.name) for c in cases}
        site = build_site(load_config(apache.conf_path))
        host = RequestHeaders([("Host", "127.0.0.1")])  # one server: the main one answers
        model = {c.name: evaluate(site, Request(f"/{c.name}/index.html", "GET", host)).status
                 for c in cases}
    assert statuses == {"empty_authname": 500, "forcetype_two": 500,
                        "errordocument_one": 500, "fine": 200}
    assert model == statuses
