"""The directives the model HAS a handler for, written as a careless user writes them (a bogus
word, another case, too many or too few words, an empty quoted word, a number out of range,
an unknown flag, a trailing comma), in an ``.htaccess`` on real Apache and through the model
(issue 10: "never 200 where Apache fails", and no false 500s).  One Apache run; the table says
what Apache answers for ``/<case>/index.html`` and the test asserts that Apache and the model
both do.  (The directives without a handler: tests/model/test_htaccess_500_apache.py.)"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from confmig.lint.testing import ApacheCases, HtaccessCase
from confmig.servers import ApacheBinary
from tests.model.apache_model import model_statuses

# (.htaccess line, Apache's status for /<case>/index.html) - swept on Apache 2.4.71
LINES: list[tuple[str, int]] = [
    # mod_auth_basic (merge/authbasic.py): provider names are case-sensitive
    # (ap_lookup_provider); AuthBasicFake's user and password are string expressions
    ("AuthBasicProvider file", 200), ("AuthBasicProvider FILE", 500),
    ("AuthBasicProvider File", 500), ("AuthBasicProvider file FILE", 500),
    ("AuthBasicProvider bogus", 500), ("AuthBasicProvider", 500), ("AuthBasicProvider file,", 500),
    ('AuthBasicProvider ""', 500), ("AuthBasicProvider file file", 200),
    ("AuthBasicProvider dbm", 500),  # (mod_authn_dbm not loaded)
    ("AuthBasicAuthoritative ON", 200), ("AuthBasicAuthoritative On,", 500),
    ("AuthBasicAuthoritative On Off", 200), ("AuthBasicAuthoritative true", 500),
    ("AuthBasicUseDigestAlgorithm md5", 200), ("AuthBasicUseDigestAlgorithm sha256", 500),
    ("AuthBasicUseDigestAlgorithm MD5,", 500), ("AuthBasicUseDigestAlgorithm MD5 extra", 500),
    ("AuthBasicFake demo", 200), ("AuthBasicFake demo pass extra", 500), ('AuthBasicFake ""', 500),
    ("AuthBasicFake %{REMOTE_USER", 500), ("AuthBasicFake %{REMOTE_USER}", 200),
    ("AuthBasicFake %{bogus:x}", 500), ("AuthBasicFake %{md5:x}", 200),
    ("AuthBasicFake %{BOGUS_VAR}", 500), ("AuthBasicFake %{file:/etc/hostname}", 500),
    ("AuthBasicFake demo %{X", 500), ("AuthBasicFake OFF %{X", 200), ("AuthBasicFake 100%", 200),
    ("AuthBasicFake $1", 200), ("AuthUserFile /nonexistent", 200), ("AuthUserFile /a /b", 500),
    ('AuthUserFile ""', 500),
    # mod_expires (merge/expires.py)
    ("ExpiresActive ON", 200), ("ExpiresActive On,", 500), ("ExpiresActive 1", 500),
    ("ExpiresDefault a3600", 200), ("ExpiresDefault X3600", 500),
    ('ExpiresDefault "ACCESS PLUS 1 HOUR"', 200), ('ExpiresDefault "access plus 1"', 500),
    ('ExpiresDefault "access plus one hour"', 500), ('ExpiresDefault "access plus 1 m"', 500),
    ('ExpiresDefault "access plus 1 hour,"', 200), ('ExpiresDefault "access minus 1 hour"', 500),
    ("ExpiresDefault access plus 1 hour", 500), ('ExpiresDefault ""', 500),
    ("ExpiresByType texthtml A3600", 500), ("ExpiresByType text/html, A3600", 200),
    ("ExpiresByType text/html A3600 extra", 500), ('ExpiresByType text/html ""', 500),
    # core (merge/core.py): Options, ErrorDocument's codes (http_protocol.c status_lines:
    # a code in a gap is refused - 306, 418, 425; 103 is known to 2.4.71), AcceptPathInfo
    ("options +indexes", 200), ("Options Indexes +FollowSymLinks", 500),
    ("Options Indexes,FollowSymLinks", 500), ("Options +Indexes,", 500), ('Options ""', 500),
    ("Options +None", 500), ("Options ++Indexes", 500), ("Options All Indexes", 200),
    ("ForceType text/plain,", 200), ("ForceType text/plain text/html", 500),
    ('SetHandler ""', 500), ("AddDefaultCharset utf-8 extra", 500),
    ("ErrorDocument 306 /x", 500), ("ErrorDocument 418 /x", 500), ("ErrorDocument 425 /x", 500),
    ("ErrorDocument 103 /x", 200), ("ErrorDocument 305 /x", 200), ("ErrorDocument 307 /x", 200),
    ("ErrorDocument 417 /x", 200), ("ErrorDocument 424 /x", 200), ("ErrorDocument 426 /x", 200),
    ("ErrorDocument 209 /x", 500), ("ErrorDocument 509 /x", 500), ("ErrorDocument 600 /x", 500),
    ("ErrorDocument 404abc /x", 200), ("ErrorDocument 404, /x", 200), ('ErrorDocument "" /x', 500),
    ("ErrorDocument 4040 /x", 500), ("AcceptPathInfo DEFAULT", 200), ("AcceptPathInfo On,", 500),
    # mod_dir (merge/dir.py)
    ("DirectoryIndex index.html,", 200), ('DirectoryIndex ""', 200), ("DirectorySlash ON", 200),
    ("DirectorySlash On,", 500), ("DirectoryCheckHandler true", 500),
    ("DirectoryIndexRedirect SeeOther", 200), ("DirectoryIndexRedirect 299", 500),
    ("DirectoryIndexRedirect 301abc", 200), ("DirectoryIndexRedirect 3xx", 500),
    ("DirectoryIndexRedirect -301", 500), ("FallbackResource /a /b", 500),
    ('FallbackResource ""', 500),
    # mod_mime (merge/mime.py): an empty first word is no word (config.c ITERATE/ITERATE2)
    ('AddType "" .foo', 500), ('AddHandler "" .foo', 500), ('AddOutputFilter "" .foo', 500),
    ('AddType x ""', 200), ("AddType x .foo,", 200), ("AddType x", 500),
    ('RemoveType ""', 500), ('RemoveHandler ""', 500), ('RemoveOutputFilter ""', 500),
    ("RemoveType .foo .bar", 200), ("DefaultLanguage en fr", 500), ('DefaultLanguage ""', 500),
    # files of other helpers: mod_alias, mod_authz_core, mod_setenvif/mod_env, mod_rewrite
    ('Redirect "" http://e.com/', 500), ('RedirectMatch 301 "" http://e.com/', 500),
    ('RedirectPermanent "" http://e.com/', 500), ("Redirect 301 /x", 301),
    ("Require ALL granted", 500), ("Require method", 403), ("Require all bogus", 500),
    ("AuthName %{X", 500), ("AuthName %{bogus:x}", 500), ("AuthName %{REMOTE_ADDR}", 200),
    ('SetEnvIf Request_URI x ""', 500), ('SetEnvIf Request_URI "" FOO', 500),
    ('SetEnvIf "" x FOO', 500), ("SetEnvIf ( x FOO", 500), ("SetEnvIfNoCase ( x FOO", 500),
    ('SetEnvIfExpr true ""', 500), ('BrowserMatch "" FOO', 500), ('BrowserMatch x ""', 500),
    ('UnsetEnv ""', 500), ("SetEnv FOO bar baz", 500),
    ("RewriteEngine On\nRewriteRule ^nomatch$ /x [R=103]", 200),
    ("RewriteEngine On\nRewriteRule ^nomatch$ /x [R=306]", 500),
    ("RewriteEngine On\nRewriteRule ^ - [L, R]", 500),
    # neighbours of the lines above (issue 10, helper xfails)
    ('RedirectMatch "" http://e.com/', 500), ('RedirectTemp "" http://e.com/', 500),
    ('Redirect 301 "" http://e.com/', 200), ('Redirect gone ""', 200),
    ("Require all granted", 200), ("Require All granted", 500), ("Require all GRANTED", 200),
    ("Require NOT ip 10.9.9.9\nRequire all granted", 500), ("Require IP 127.0.0.1", 500),
    ("Require method GET", 200), ("Require method get", 500), ('Require method GET "" BOGUS', 200),
    ('Require method "" BOGUS', 403),
    ("AuthName realm", 200), ('AuthName "100%"', 200), ("AuthName $1", 200),
    ("AuthName %{REMOTE_ADDR", 500), ("AuthType %{X", 500), ("AuthType Basic", 200),
    ('SetEnvIf Request_URI x FOO "" BAR', 200), ('SetEnvIf Request_URI "" ""', 500),
    ("SetEnvIf ^X-Foo$ x FOO", 200), ("SetEnvIf X-Foo. x FOO", 200), ("SetEnvIf [ x FOO", 500),
    ("SetEnvIf X_Foo-1 x FOO", 200),
    # a non-token name is a regex over the request's header names (its value, not a variable's)
    ("SetEnvIf ^Host$ . FOO\nRequire env FOO", 200), ("SetEnvIf Host . FOO\nRequire env FOO", 200),
    ("SetEnvIfNoCase ^hOST$ . FOO\nRequire env FOO", 200),
    ("SetEnvIf ^hOST$ . FOO\nRequire env FOO", 403),
    ("SetEnvIf ^Host$ ^$ FOO\nRequire env FOO", 403),
    ("SetEnvIf ^X-None$ ^$ FOO\nRequire env FOO", 200),
    ("SetEnvIf Request_URI . ^X=1\nSetEnvIf ^X$ 1 FOO\nRequire env FOO", 403),
    ("SetEnvIf Request_URI . X=1\nSetEnvIf X 1 FOO\nRequire env FOO", 200),
    ('BrowserMatchNoCase "" FOO', 500),
    ('SetEnvIfExpr true FOO "" BAR', 200), ('SetEnvIfExpr "" FOO', 500),
    # add_envvars stops at an empty word: BAR is not set (Require env sees SetEnvIf's)
    ('SetEnvIf Request_URI . FOO "" BAR\nRequire env BAR', 403),
    ("SetEnvIf Request_URI . FOO BAR\nRequire env BAR", 200),
    ('BrowserMatch ^ FOO "" BAR\nRequire env BAR', 403),
    ('SetEnvIfExpr true FOO "" BAR\nRequire env BAR', 403),
    ('UnsetEnv FOO "" BAR', 200), ('UnsetEnv FOO ""', 200), ('SetEnv "" x', 500),
    ("RewriteEngine On\nRewriteRule ^nomatch$ /x [R=102]", 200),
    ("RewriteEngine On\nRewriteRule ^nomatch$ /x [R=104]", 500),
]

@dataclass
class Case:
    """A case that needs more than a line: its AllowOverride, files, the path asked."""

    htaccess: str
    status: int
    allow_override: str = "All"
    path: str = "index.html"
    files: dict[str, str] = field(default_factory=lambda: {"index.html": "ok\n"})


CASES: list[Case] = [
    # AllowOverride Nonfatal=... alone sets a bit of opts.override: the .htaccess is read
    # (request.c), every directive skipped as not allowed, an unknown one still a 500
    Case("Bogus directive", 500, "Nonfatal=Override"),
    Case("Options +Indexes", 200, "Nonfatal=Override"),
    Case("AuthGroupFile /x", 500, "Nonfatal=Override"),  # (mod_authz_groupfile not loaded)
    Case("Bogus directive", 200, "Nonfatal=Unknown"),
    Case("Options +Indexes", 500, "Nonfatal=Unknown"),
    Case("Bogus directive", 500, "None Nonfatal=Override"),
    Case("Bogus directive", 200, "Nonfatal=Override None"),
    Case("Bogus directive", 200, "Nonfatal=Bogus"),
    # ITERATE2 stops at an empty word: .zz gets no type, so page.zz is no MultiViews variant
    Case('Options +MultiViews\nAddType text/plain .x "" .zz', 404, path="page",
         files={"page.zz": "x\n"}),
    Case("Options +MultiViews\nAddType text/plain .x .zz", 200, path="page",
         files={"page.zz": "x\n"}),
]

_ALL = [Case(line, status) for line, status in LINES] + CASES


@pytest.fixture(scope="module")
def statuses(apache_binary: ApacheBinary) -> tuple[list[int], list[int]]:
    """(Apache's status, the model's) for every case of :data:`_ALL`, from one Apache."""
    cases = [HtaccessCase(f"c{i}", c.htaccess + "\n", allow_override=c.allow_override,
                          files=c.files) for i, c in enumerate(_ALL)]
    with ApacheCases(cases) as apache:
        real = [apache.status(f"c{i}", c.path) for i, c in enumerate(_ALL)]
        model = model_statuses(apache, [f"/c{i}/{c.path}" for i, c in enumerate(_ALL)])
    return real, model


@pytest.mark.apache
def test_apache_agrees_with_the_table(statuses: tuple[list[int], list[int]]) -> None:
    real, _ = statuses
    differ = {(c.htaccess, c.allow_override): (c.status, got)
              for c, got in zip(_ALL, real, strict=True) if got != c.status}
    assert differ == {}, differ  # (line, AllowOverride) -> (table, Apache)


@pytest.mark.apache
@pytest.mark.parametrize("index", range(len(_ALL)),
                         ids=[f"{c.htaccess!r}@{c.allow_override}" for c in _ALL])
def test_model_agrees(statuses: tuple[list[int], list[int]], index: int) -> None:
    case = _ALL[index]
    assert statuses[1][index] == case.status, case.htaccess

