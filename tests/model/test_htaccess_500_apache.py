"""Lines Apache refuses in an ``.htaccess`` (500) although the model did not read them as
errors (issue 10, "access widened": explain said 200, lint had nothing to say, convert carried
the file as is and the converted site served it).  Each line runs in an ``.htaccess`` on real
Apache and through the model; the statuses must agree.  The rule for most of them is
``confmig.model.merge.checks`` (read from httpd 2.4's source): ``<Limit>``'s methods
(``ap_limit_section``: an unknown method cannot be registered from an .htaccess; names are
case-sensitive; ``TRACE`` only in ``<LimitExcept>``; nested limits), the argument count and
FLAG value of directives the model has no handler for, and the values the handlers of
``FileETag``, ``IndexOptions`` ... check; ``Allow from`` and ``Require ip`` as
``apr_ipsubnet_create`` parses them."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.lint.testing import ApacheCases, HtaccessCase
from confmig.model.merge.checks import limit_methods
from confmig.model.netmatch import ipsubnet_problem
from confmig.servers import ApacheBinary
from tests.model.apache_model import model_statuses


def _limit(methods: str, tag: str = "Limit") -> str:
    return f"<{tag} {methods}>\nRequire all denied\n</{tag}>\n"


# the text of each case's .htaccess - every one checked against Apache by test_on_apache
LINES = [
    # <Limit>/<LimitExcept>: 500 for a method an .htaccess cannot register (BREW, lower case)
    _limit("PURGE"), _limit("get"), _limit("BREW"), _limit("GET PURGE"),
    _limit("GET PURGE", "LimitExcept"), _limit("PURGE", "LimitExcept"),
    _limit("get", "LimitExcept"), _limit("TRACE"), _limit("TRACE", "LimitExcept"),
    _limit("BIND"), _limit("SEARCH"), _limit("VERSION-CONTROL"), _limit("MERGE"),
    _limit("BASELINE-CONTROL"), _limit("HEAD"), _limit("POST"),
    "<Limit GET>\n<Limit POST>\nRequire all denied\n</Limit>\n</Limit>\n",
    "<Limit GET POST>\n<Limit GET>\nRequire all denied\n</Limit>\n</Limit>\n",
    "<Limit GET>\n<Limit GET>\nRequire all denied\n</Limit>\n</Limit>\n",
    "<LimitExcept GET>\n<Limit GET>\nRequire all denied\n</Limit>\n</LimitExcept>\n",
    "<Limit GET POST>\n<LimitExcept POST>\nRequire all denied\n</LimitExcept>\n</Limit>\n",
    "<Limit POST PUT>\n<LimitExcept POST>\nRequire all denied\n</LimitExcept>\n</Limit>\n",
    "<LimitExcept POST>\n<LimitExcept PUT>\nRequire all denied\n</LimitExcept>\n"
    "</LimitExcept>\n",
    '<Files "index.html">\n<Limit PURGE>\nRequire all denied\n</Limit>\n</Files>\n',
    "Require method get\n", "Require method PURGE\n", "Require method MERGE\n",
    "Require method GET\n",
    # values the handlers check
    "FileETag Bogus\n", "FileETag INode +MTime\n", "FileETag None\n", "FileETag\n",
    "FileETag inode mtime size\n", "FileETag Digest\n", "FileETag +None\n",
    "Allow from 999.999.0.0\n", "Allow from 10.0.0.0/33\n", "Allow from 1.2.3.4/255.255.0\n",
    "Allow from 1.2.3.4/abc\n", "Allow from ::1/129\n", "Allow from 10.1\n", "Allow from 10.\n",
    "Allow from env=\n", "Allow from 1.2.3.4/0\n", "Deny from 300.1.1.1\n",
    "Allow from 10.0.0.0/255.255.0.0\n", "Allow from example.com#x\n", "Allow from 1.2.3.4.5\n",
    "Require ip 1.2.3.4/0\n",
    "IndexOptions FancyIndexing Bogus\n", "IndexOptions +FancyIndexing FoldersFirst\n",
    "IndexOptions IconWidth=abc\n", "IndexOptions Charset=\n", "IndexOptions -IconHeight=5\n",
    "IndexOptions None FancyIndexing\n", "IndexOptions +None\n", "IndexOptions NameWidth\n",
    "IndexOptions NameWidth=3\n", "IndexOptions -NameWidth\n", "IndexOptions NameWidth=*\n",
    "IndexOrderDefault Bogus Name\n", "IndexOrderDefault Ascending Bogus\n",
    "IndexOrderDefault descending date\n",
    "ServerSignature Bogus\n", "ServerSignature email\n", "ContentDigest maybe\n",
    "EnableMMAP maybe\n", "EnableSendfile maybe\n", "EnableMMAP off\n",
    "LimitRequestBody abc\n", "LimitRequestBody -1\n",
    "LimitRequestBody 99999999999999999999999\n", "LimitRequestBody 1000\n",
    "LimitXMLRequestBody abc\n", "CGIPassAuth maybe\n", "CGIVar REQUEST_URI bogus\n",
    "CGIVar PATH_INFO current-uri\n", "CGIVar REQUEST_URI original-uri\n",
    "QualifyRedirectURL maybe\n", "ModMimeUsePathInfo maybe\n", "MultiviewsMatch Bogus\n",
    "MultiviewsMatch Any Handlers\n", "MultiviewsMatch Filters Handlers\n",
    "ForceLanguagePriority Bogus\n", "ForceLanguagePriority None Prefer\n",
    "ForceLanguagePriority Prefer Fallback\n", "RLimitCPU abc\n",
    "DeflateInflateLimitRequestBody abc\n", "DeflateInflateRatioLimit abc\n",
    "DeflateInflateRatioBurst abc\n", "DeflateInflateRatioLimit 10\n",
    'Error "stop here"\n', 'Warning "only a warning"\n', "ScriptInterpreterSource registry\n",
    "CGIMapExtension /bin/sh .sh\n",
    # argument counts of directives the model has no handler for
    "FilterProvider f\n", "FilterChain\n", "AddOutputFilterByType DEFLATE\n", "PassEnv\n",
    "LanguagePriority\n", "RequestHeader set X\n", "RequestHeader bogus X y\n",
    "AuthBasicFake\n", "SetOutputFilter\n", "SetInputFilter\n", "IndexHeadInsert\n",
    "IndexStyleSheet\n", "HeaderName\n", "ReadmeName\n", "AddDescription x\n", "DefaultIcon\n",
    "AddAlt x\n", "AddIconByType x\n", "AddIconByEncoding x\n", "AddAltByType x\n",
    "AddIcon /i.png\n", "IndexIgnore\n", "IndexOptions\n",
    # (already right before: kept as a check of the neighbourhood)
    "Options +Indexes Includes\n", 'Header set X "%{FOO}z"\n', 'SetEnvIf Request_URI "(" x\n',
    "Redirect 301 relative\n", "ErrorDocument 999 /x\n", "Require user\n", "AddType\n",
    "DirectoryIndex\n", "ExpiresActive maybe\n",
    # handlers that counted otherwise: SetEnv takes one or two words; Options none at all
    "SetEnv a b c\n", "SetEnv a b\n", "Options\n",
]
# mod_filter's checks of a provider (a registered output filter), its expression and
# FilterProtocol's filter and provider: tests/model/test_filter_providers_apache.py.


def _model_statuses(apache: ApacheCases, names: list[str]) -> dict[str, int]:
    paths = [f"/{name}/index.html" for name in names]
    return dict(zip(names, model_statuses(apache, paths), strict=True))


@pytest.mark.apache
def test_on_apache(apache_binary: ApacheBinary) -> None:
    cases = [HtaccessCase(f"c{i}", text) for i, text in enumerate(LINES)]
    with ApacheCases(cases) as apache:
        real = {c.name: apache.status(c.name) for c in cases}
        model = _model_statuses(apache, list(real))
    differ = {LINES[int(name[1:])]: (real[name], model[name]) for name in real
              if real[name] != model[name]}
    assert differ == {}, differ  # line -> (Apache, model)
    assert list(real.values()).count(500) > 80


@pytest.mark.apache
def test_methods_the_server_config_registered(apache_binary: ApacheBinary) -> None:
    """A method a server-config ``<Limit>`` registered is known to every .htaccess; one it
    did not is still a 500, and case still counts."""
    cases = [HtaccessCase("purge", _limit("PURGE")), HtaccessCase("brew", _limit("BREW")),
             HtaccessCase("purge_lower", _limit("purge")),
             HtaccessCase("except", _limit("GET PURGE", "LimitExcept")),
             HtaccessCase("require", "Require method PURGE\n")]
    extra = ('<Directory "/nonexistent">\n<Limit PURGE>\nRequire all denied\n</Limit>\n'
             "</Directory>\n")
    with ApacheCases(cases, extra_config=extra) as apache:
        real = {c.name: apache.status(c.name) for c in cases}
        model = _model_statuses(apache, list(real))
    assert real == {"purge": 200, "brew": 500, "purge_lower": 500, "except": 200,
                    "require": 403}
    assert model == real


BRIEF = ["<Limit PURGE>", "<Limit get>", "<Limit BREW>", "<Limit GET PURGE>",
         "<LimitExcept GET PURGE>", "<LimitExcept PURGE>", "<LimitExcept get>"]


def _explain(root: Path, url: str) -> dict:
    result = CliRunner().invoke(app, ["explain", "--no-config", "--root", str(root), url,
                                      "-f", "json"])
    assert result.exit_code == 0, result.output
    data: dict = json.loads(result.output)
    return data


@pytest.mark.parametrize("head", BRIEF)
def test_explain_says_500(tmp_path: Path, head: str) -> None:
    """The issue's reproductions through ``explain --no-config`` (no Apache needed)."""
    tag = head[1:].split()[0]
    (tmp_path / "p").mkdir()
    (tmp_path / "p" / ".htaccess").write_text(f"{head}\nRequire all denied\n</{tag}>\n")
    (tmp_path / "p" / "f.txt").write_text("hi\n")
    data = _explain(tmp_path, "/p/f.txt")
    assert data["status"] == 500
    assert "from .htaccess configuration" in json.dumps(data)


@pytest.mark.parametrize("line", ["FileETag Bogus", "Allow from 999.999.0.0",
                                  "IndexOptions FancyIndexing Bogus"])
def test_explain_says_500_for_values(tmp_path: Path, line: str) -> None:
    (tmp_path / ".htaccess").write_text(line + "\n")
    (tmp_path / "f.txt").write_text("hi\n")
    assert _explain(tmp_path, "/f.txt")["status"] == 500


def test_limit_methods() -> None:
    none: frozenset[str] = frozenset()
    assert limit_methods("Limit", ["GET"], None, True, none) == (frozenset({"GET", "HEAD"}),
                                                                 None)
    assert limit_methods("Limit", ["HEAD"], None, True, none)[0] == frozenset({"GET", "HEAD"})
    assert limit_methods("Limit", ["PURGE"], None, False, none)[0] == frozenset({"PURGE"})
    assert limit_methods("Limit", ["PURGE"], None, True, frozenset({"PURGE"}))[1] is None
    assert limit_methods("Limit", ["get"], None, True, none)[1] == (
        "Could not register method 'get' for <Limit from .htaccess configuration")
    assert limit_methods("Limit", ["TRACE"], None, False, none)[1] == (
        "TRACE cannot be controlled by <Limit>, see TraceEnable")
    outer, _ = limit_methods("LimitExcept", ["POST"], None, True, none)
    assert outer is not None and "GET" in outer and "POST" not in outer
    inner, problem = limit_methods("LimitExcept", ["PUT"], outer, True, none)
    assert problem is None and inner is not None and {"PUT", "POST"}.isdisjoint(inner)
    assert limit_methods("Limit", ["POST"], outer, True, none)[1] == (
        "<Limit> directive excludes all methods")
    assert limit_methods("LimitExcept", ["POST"], outer, True, none)[1] == (
        "<LimitExcept> directive specifies methods already excluded")


def test_ipsubnet_problem() -> None:
    assert ipsubnet_problem("999.999.0.0") == "The specified IP address is invalid."
    assert ipsubnet_problem("1.2.3.4/0") == "The specified network mask is invalid."
    assert ipsubnet_problem("host/8") == "An IP address was expected"
    for fine in ("10", "10.", "10.1", "1.2.3.4", "10.0.0.0/8", "10.0.0.0/255.0.0.0", "::1",
                 "fe80::/10", "example.com", "all"):
        assert ipsubnet_problem(fine) is None, fine
