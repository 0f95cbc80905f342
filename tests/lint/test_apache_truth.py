"""Every "Apache answers 500" / "Apache ignores this" claim of the SYN and CTX rules, checked
on a real Apache on 127.0.0.1.

One server serves every case from its own directory with its own ``<Directory>``
AllowOverride; the docroot is then linted with that very server config (``--config``), so
the AllowOverride and modules the linter computes are the server's.  For each case: the
status Apache answers, the rule codes lint reports, and — the point — an error-severity
SYN/CTX finding exactly where Apache answers 500.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.apache.arity import ARITY, HAND
from confmig.apache.registry import registry
from confmig.lint.config import Settings
from confmig.lint.engine import LintResult, lint_paths, lint_text
from confmig.lint.finding import Finding, Severity
from confmig.lint.testing import ApacheCases, HtaccessCase

pytestmark = pytest.mark.apache

MODULES = ("mpm_event", "authz_core", "authz_host", "authz_user", "authn_core", "authn_file",
           "auth_basic", "access_compat", "alias", "autoindex", "dir", "env", "filter", "mime",
           "negotiation", "reqtimeout", "setenvif", "deflate", "rewrite", "headers", "expires")
MODULE_IDS = [f"{m}_module" for m in MODULES]

# name: (AllowOverride, AllowOverrideList, .htaccess, expected status, expected codes)
CASES: dict[str, tuple[str, str, str, int, set[str]]] = {
    "syn001_unclosed": ("All", "", "<Files x>\nRequire all denied\n", 500, {"SYN001"}),
    "syn001_unclosed_true_if": ("All", "", "<IfModule mod_rewrite.c>\nRewriteEngine On\n", 200,
                                {"SYN001"}),
    "syn001_unclosed_true_if_bad": ("All", "", "<IfModule mod_rewrite.c>\nRewriteEngin On\n",
                                    500, {"SYN001", "SYN003"}),
    "syn001_unclosed_false_if": ("All", "", "<IfModule mod_ssl.c>\nRewriteEngine On\n", 500,
                                 {"SYN001"}),
    "syn001_mismatch": ("All", "", "<Files x>\n</FilesMatch>\n", 500, {"SYN001"}),
    "syn001_stray_close": ("All", "", "Options -Indexes\n</Files>\n", 500, {"SYN001"}),
    "syn002_rule_1arg": ("All", "", "RewriteEngine On\nRewriteRule ^a$\n", 500, {"SYN002"}),
    "syn002_header": ("All", "", "Header always set X-A\n", 500, {"SYN002"}),
    "syn002_header_unset_ok": ("All", "", "Header unset X-A\n", 200, set()),
    "syn002_header_unset_env_ok": ("All", "", "Header unset X-A env=foo\n", 200, set()),
    "syn002_header_none": ("All", "", "Header\n", 500, {"SYN002"}),
    "syn002_flag_extra": ("All", "", "DirectorySlash Off extra\n", 200, {"SYN002"}),
    "syn002_measured_iterate2": ("All", "", "AddIcon /icons/a.gif\n", 500, {"SYN002"}),
    "syn002_empty_word_take1": ("All", "", 'AuthName ""\n', 500, {"SYN002"}),
    "syn002_empty_word_iterate2": ("All", "", 'AddType text/x "" .y\n', 200, {"SYN002"}),
    "syn002_empty_value_ok": ("All", "", 'SetEnv FOO ""\n', 200, set()),
    "syn002_rule_extra": ("All", "", "RewriteEngine On\nRewriteRule ^a$ /b [L] extra\n", 200,
                          {"SYN002"}),
    "syn003_unknown": ("All", "", "RewriteEngin On\n", 500, {"SYN003"}),
    "syn003_not_loaded": ("All", "", "SSLRequireSSL\n", 500, {"SYN003"}),
    "syn003_in_false_ifmodule": ("All", "", "<IfModule mod_ssl.c>\nSSLRequireSSL\n"
                                 "</IfModule>\n", 200, set()),
    "syn003_nonfatal": ("All Nonfatal=Unknown", "", "FooBarBaz on\n", 200, {"SYN003"}),
    "syn004_expires": ("All", "", "ExpiresActive yes\n", 500, {"SYN004"}),
    "syn004_rewrite": ("All", "", "RewriteEngine maybe\n", 500, {"SYN004"}),
    "syn004_ok": ("All", "", "RewriteEngine oN\n", 200, set()),
    "syn005_options": ("All", "", "Options -Indexes # no listing\n", 500, {"SYN005"}),
    "syn005_expires": ("All", "", 'ExpiresByType text/css "access plus 1 month" # css\n', 500,
                       {"SYN005"}),
    "syn005_rule_ignored": ("All", "", "RewriteEngine On\nRewriteRule ^a$ /b [L] # note\n",
                            200, {"SYN005"}),
    "syn005_rule_as_flags": ("All", "", "RewriteEngine On\nRewriteRule ^a$ /b # note\n", 500,
                             {"SYN005"}),
    "syn005_flag_ignored": ("All", "", "RewriteEngine On # on\n", 200, {"SYN005"}),
    "syn005_take1_on_off": ("All", "", "EnableSendfile Off # no sendfile\n", 500, {"SYN005"}),
    "syn006_quote": ("All", "", 'Header set X-A "abc\n', 200, {"SYN006"}),
    "ctx001_servername": ("All", "", "ServerName example.com\n", 500, {"CTX001"}),
    "ctx001_hostnamelookups": ("All", "", "HostnameLookups On\n", 500, {"CTX001"}),
    "ctx001_directory": ("All", "", "<Directory /tmp>\n</Directory>\n", 500, {"CTX001"}),
    "ctx001_virtualhost": ("All", "", "<VirtualHost *:80>\n</VirtualHost>\n", 500, {"CTX001"}),
    "ctx001_alias": ("All", "", "Alias /a /tmp\n", 500, {"CTX001"}),
    "ctx001_documentroot": ("All", "", "DocumentRoot /tmp\n", 500, {"CTX001"}),
    "ctx001_allowoverride": ("All", "", "AllowOverride All\n", 500, {"CTX001"}),
    "ctx001_nonfatal": ("All Nonfatal=Override", "", "ServerName example.com\n", 200,
                        {"CTX001"}),
    "ctx002_rewrite": ("AuthConfig", "", "RewriteEngine On\n", 500, {"CTX002"}),
    "ctx002_require": ("FileInfo", "", "Require all denied\n", 500, {"CTX002"}),
    "ctx002_ok": ("FileInfo", "", "RewriteEngine On\nHeader set X-A 1\n", 200, set()),
    "ctx002_nonfatal": ("AuthConfig Nonfatal=Override", "", "RewriteEngine On\n", 200,
                        {"CTX002"}),
    "ctx002_list_ok": ("None", "Header", "Header set X-A 1\n", 200, set()),
    "ctx002_list_other": ("None", "Header", "RewriteEngine On\n", 500, {"CTX002"}),
    "ctx003_none": ("None", "", "FooBarBaz on\nServerName x\n", 200, {"CTX003"}),
    "ctx006_list_class": ("None", "FileInfo", "FooBarBaz on\n", 200, {"CTX003"}),
    "ctx007_followsymlinks": ("Options=Indexes", "", "Options +FollowSymLinks -Indexes\n", 500,
                              {"CTX007"}),
    "ctx007_off_ok": ("Options=Indexes", "", "Options -Indexes\n", 200, set()),
    "ctx007_all": ("Options=Indexes", "", "Options All\n", 500, {"CTX007"}),
    "ctx007_bare_multiviews": ("Options", "", "Options +MultiViews\n", 500, {"CTX007"}),
    "ctx007_all_multiviews": ("All", "", "Options +MultiViews\n", 200, set()),
    "ctx007_includes_noexec": ("Options=Includes", "", "Options IncludesNOEXEC\n", 200, set()),
    "ctx007_noexec_includes": ("Options=IncludesNOEXEC", "", "Options Includes\n", 500,
                               {"CTX007"}),
}

# Argument counts: the entries that were written by hand before the table was measured
# (tools/probe_arity.py; most are now measured) and every hand-checked RAW_ARGS entry that
# .htaccess may carry, one word too few and one word too many.
_ONCE_HAND_WRITTEN = (
    "rewriterule", "rewritecond", "rewritebase", "rewriteoptions", "redirect", "redirectmatch",
    "redirectpermanent", "redirecttemp", "errordocument", "addtype", "addhandler", "addcharset",
    "addencoding", "addlanguage", "addoutputfilter", "addoutputfilterbytype", "removehandler",
    "removetype", "adddefaultcharset", "defaultlanguage", "expiresbytype", "expiresdefault",
    "setenv", "unsetenv", "setenvif", "setenvifnocase", "browsermatch", "order", "allow",
    "deny", "satisfy", "require", "fallbackresource", "sethandler", "forcetype", "authtype",
    "authname", "authuserfile", "indexignore", "acceptpathinfo", "limitrequestbody",
    "documentroot", "servername",
)
_VALID_EXTRA = {"rewriterule": "^a$ /b [L] extra", "rewritecond": "%{HTTPS} off [NC] extra"}


def _arity_cases() -> dict[str, tuple[str, str, str, int, set[str]]]:
    out = {}
    for lname in sorted({*_ONCE_HAND_WRITTEN, *HAND}):
        arity = ARITY[lname]
        info = registry().get(lname)
        if info is None or ".htaccess" not in info.contexts:
            continue
        if not any(m.removeprefix("mod_") in MODULES or m == "core" for m in info.modules):
            continue
        prefix = "RewriteEngine On\n" if lname.startswith("rewrite") else ""
        if arity.min > 0:
            words = " ".join(["a"] * (arity.min - 1))
            out[f"arity_{lname}_few"] = ("All", "", f"{prefix}{info.name} {words}\n", 500,
                                         {"SYN002"})
        if arity.max is not None:
            if arity.extra == "ignored":
                text, status = f"{info.name} {_VALID_EXTRA[lname]}", 200
            else:
                text, status = f"{info.name} {' '.join(['a'] * (arity.max + 1))}", 500
            out[f"arity_{lname}_many"] = ("All", "", f"{prefix}{text}\n", status, {"SYN002"})
    return out


ALL_CASES = {**CASES, **_arity_cases()}


@pytest.fixture(scope="module")
def served(apache_binary: object) -> Iterator[tuple[ApacheCases, LintResult]]:
    cases = [HtaccessCase(name, text, ao, aol) for name, (ao, aol, text, _, _)
             in ALL_CASES.items()]
    with ApacheCases(cases, modules=MODULES) as server:
        assert server.root is not None
        result = lint_paths([server.root], server.conf_path, settings=Settings(cache=False))
        yield server, result


def _mine(findings: list[Finding], path: Path) -> list[Finding]:
    return [f for f in findings if Path(f.file) == path and f.code.startswith(("SYN", "CTX"))]


@pytest.mark.parametrize("name", sorted(ALL_CASES))
def test_apache_agrees_with_lint(served: tuple[ApacheCases, LintResult], name: str) -> None:
    server, result = served
    _, _, _, status, expected = ALL_CASES[name]
    found = _mine(result.findings, server.htaccess_path(name))
    answered = server.status(name)
    assert answered == status, f"Apache answered {answered}: {server.error_log(name)}"
    assert {f.code for f in found} == expected, found
    errors = [f for f in found if f.severity is Severity.error]
    assert bool(errors) == (answered == 500), found


def test_lint_sees_the_servers_modules(served: tuple[ApacheCases, LintResult]) -> None:
    _, result = served
    assert not any("assuming Debian's defaults" in n for n in result.notes)


# -- server configs: does Apache start? ---------------------------------------------------

SERVER_CASES: dict[str, tuple[str, bool, set[str]]] = {
    "ctx004_servername": ("<Directory /tmp>\n    ServerName x\n</Directory>\n", False,
                          {"CTX004"}),
    "ctx004_listen_location": ("<Location />\n    Listen 8081\n</Location>\n", False,
                               {"CTX004"}),
    "ctx004_keepalive_files": ("<Files x>\n    KeepAlive On\n</Files>\n", False, {"CTX004"}),
    "ctx004_vhost_directory": ("<VirtualHost *:80>\n<Directory /tmp>\nServerAdmin a@b\n"
                               "</Directory>\n</VirtualHost>\n", False, {"CTX004"}),
    "ctx004_ok": ("<Directory /tmp>\n    HostnameLookups Off\n    Options -Indexes\n"
                  "</Directory>\n", True, set()),
    "ctx005_require_top": ("Require all granted\n", False, {"CTX005"}),
    "ctx005_order_vhost": ("<VirtualHost *:80>\n    Order allow,deny\n</VirtualHost>\n", False,
                           {"CTX005"}),
    "ctx005_allowoverride_top": ("AllowOverride All\n", False, {"CTX005"}),
    "ctx005_require_in_ifmodule": ("<IfModule mod_authz_core.c>\n    Require all granted\n"
                                   "</IfModule>\n", False, {"CTX005"}),
    "ctx005_ok": ("<Location />\n    Require all granted\n</Location>\n<If \"true\">\n"
                  "    Require all granted\n</If>\n", True, set()),
    "ctx006_list_class": ("<Directory /tmp>\n    AllowOverrideList FileInfo\n</Directory>\n",
                          True, {"CTX006"}),
    "ctx006_list_ok": ("<Directory /tmp>\n    AllowOverrideList Header Redirect\n"
                       "</Directory>\n", True, set()),
    "syn003_server": ("<Directory /tmp>\n    FooBar on\n</Directory>\n", False, {"SYN003"}),
    "syn002_server": ("<Directory /tmp>\n    ErrorDocument 404\n</Directory>\n", False,
                      {"SYN002"}),
    "syn005_server": ("<Directory /tmp>\n    Options -Indexes # c\n</Directory>\n", False,
                      {"SYN005"}),
}


@pytest.mark.parametrize("name", sorted(SERVER_CASES))
def test_apache_config_test_agrees_with_lint(apache_binary: object, name: str) -> None:
    from confmig.servers import apache_config_test

    text, starts, expected = SERVER_CASES[name]
    ok, message = apache_config_test(text, modules=MODULES)
    found = [f for f in lint_text(text, kind="server", modules=MODULE_IDS,
                                  filename="site.conf") if f.code.startswith(("SYN", "CTX"))]
    assert ok == starts, message
    assert {f.code for f in found} == expected, found
    assert any(f.severity is Severity.error for f in found) == (not starts), found
    if name == "ctx006_list_class":
        assert "AH00116" in message  # Apache only warns: "Discarding unrecognized directive"
