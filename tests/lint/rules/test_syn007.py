"""SYN007: directives of loaded modules confmig does not model, and SYN003 standing down for
names a loaded module without facts may define.  The Apache-backed test runs the machine's
mod_wsgi (skipped where it is not installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.apache.modules import debian_default_modules
from confmig.lint.engine import lint_paths
from confmig.lint.finding import Severity
from confmig.lint.testing import ApacheCases, HtaccessCase, codes, finds, write_tree
from confmig.servers import ApacheBinary, default_modules

DEFAULT = sorted(debian_default_modules())
WSGI = [*DEFAULT, "wsgi_module"]


def test_a_loaded_third_party_directive_is_known_not_modelled() -> None:
    found = finds("SYN007", "WSGICallableObject app\n", modules=WSGI)
    assert len(found) == 1 and found[0].severity is Severity.info
    assert "WSGICallableObject (mod_wsgi): known to exist, not modelled" in found[0].message
    assert codes(finds("SYN003", "WSGICallableObject app\n", modules=WSGI)) == []
    php = finds("SYN007", "php_value upload_max_filesize 64M\n",
                modules=[*DEFAULT, "php_module"])
    assert len(php) == 1 and "(mod_php)" in php[0].message


def test_not_loaded_is_still_invalid_command() -> None:
    assert finds("SYN007", "WSGICallableObject app\n", modules=DEFAULT) == []
    assert finds("SYN007", "php_value a b\n", modules=DEFAULT) == []
    assert codes(finds("SYN003", "php_value a b\n", modules=DEFAULT)) == ["SYN003"]
    assert finds("SYN007", "RewriteEngine On\n", modules=[*DEFAULT, "rewrite_module"]) == []


def test_the_context_rules_still_apply() -> None:
    # WSGIScriptAlias is server config / virtual host only (checked on Apache)
    text = "WSGIScriptAlias /app /srv/app.wsgi\n"
    assert codes(finds("CTX001", text, modules=WSGI)) == ["CTX001"]
    assert codes(finds("CTX002", "WSGICallableObject app\n", modules=WSGI,
                       allow_override=["AuthConfig"])) == ["CTX002"]


def test_reported_once_per_directive_name() -> None:
    text = ("WSGIPassAuthorization On\n<Files a>\nWSGIPassAuthorization Off\n</Files>\n"
            "WSGIPassAuthorization On\nWSGIScriptReloading On\n")
    found = finds("SYN007", text, modules=WSGI)
    assert [(f.line, "2 more line(s)" in f.message) for f in found] == [(1, True), (6, False)]


def test_once_per_name_in_each_file(tmp_path: Path) -> None:
    root = tmp_path / "site"
    write_tree(root, {"a/.htaccess": "WSGIPassAuthorization On\n",
                      "b/.htaccess": "WSGIPassAuthorization On\nWSGIChunkedRequest On\n"})
    conf = tmp_path / "httpd.conf"
    conf.write_text(f"LoadModule wsgi_module /usr/lib/apache2/modules/mod_wsgi.so\n"
                    f"DocumentRoot {root}\n<Directory {root}>\n  AllowOverride All\n"
                    "</Directory>\n")
    result = lint_paths([root], config=conf, use_cache=False)
    found = [f for f in result.findings if f.code == "SYN007"]
    assert sorted((Path(f.file).parent.name, f.message.split(" (")[0]) for f in found) == [
        ("a", "WSGIPassAuthorization"), ("b", "WSGIChunkedRequest"),
        ("b", "WSGIPassAuthorization")]


def test_an_unknown_modules_directives_are_not_modelled() -> None:
    mods = [*DEFAULT, "foo_module"]
    found = finds("SYN007", "FooWidgets 5\n", modules=mods)
    assert len(found) == 1 and found[0].severity is Severity.warning
    assert "foo_module" in found[0].message and "Invalid command" in (found[0].hint or "")
    assert finds("SYN003", "FooWidgets 5\n", modules=mods) == []
    # without such a module it is Apache's "Invalid command"
    assert codes(finds("SYN003", "FooWidgets 5\n", modules=DEFAULT)) == ["SYN003"]
    assert finds("SYN007", "FooWidgets 5\n", modules=DEFAULT) == []
    # a typo of a known directive stays a typo
    typo = finds("SYN003", "RewriteEngin On\n", modules=mods)
    assert len(typo) == 1 and "RewriteEngine" in (typo[0].hint or "")
    assert finds("SYN007", "RewriteEngin On\n", modules=mods) == []
    # a known module without directive facts (mod_fcgid) counts as such a module
    assert len(finds("SYN007", "FcgidWrapper /usr/bin/php-cgi .php\n",
                     modules=[*DEFAULT, "fcgid_module"])) == 1


def test_server_config_loads_the_unknown_module(tmp_path: Path) -> None:
    text = ("LoadModule vendor_module modules/mod_vendor.so\n"
            "<IfModule mod_vendor.c>\n  VendorMode strict\n</IfModule>\n"
            "<IfModule !vendor_module>\n  NeverRead x\n</IfModule>\n")
    found = finds("SYN007", text, kind="server", filename="httpd.conf")
    assert [(f.line, f.message.split(":")[0]) for f in found] == [(3, "VendorMode")]
    assert finds("SYN003", text, kind="server", filename="httpd.conf") == []


@pytest.mark.apache
def test_lint_agrees_with_apache_on_mod_wsgi(apache_binary: ApacheBinary) -> None:
    """With the machine's mod_wsgi: a FileInfo directive under AllowOverride FileInfo is
    accepted (200; lint: not modelled, nothing worse), under AuthConfig refused (500;
    lint: CTX002), and a server-only one in .htaccess refused (500; lint: CTX001)."""
    if not (apache_binary.modules_dir / "mod_wsgi.so").is_file():
        pytest.skip("mod_wsgi is not installed (apt-get install libapache2-mod-wsgi-py3)")
    cases = [HtaccessCase("ok", "WSGIPassAuthorization On\n", allow_override="FileInfo"),
             HtaccessCase("class", "WSGIPassAuthorization On\n", allow_override="AuthConfig"),
             HtaccessCase("server", "WSGIScriptAlias /x /tmp/x.wsgi\n")]
    modules = sorted({*default_modules(apache_binary), "wsgi"})
    with ApacheCases(cases, modules=modules) as apache:
        statuses = {c.name: apache.status(c.name) for c in cases}
        result = lint_paths([apache.root], config=apache.conf_path, use_cache=False)
    assert statuses == {"ok": 200, "class": 500, "server": 500}
    by_case: dict[str, set[str]] = {}
    for f in result.findings:
        by_case.setdefault(Path(f.file).parent.name, set()).add(f.code)
    assert by_case.get("ok", set()) <= {"SYN007"}
    assert "CTX002" in by_case["class"] and "CTX001" in by_case["server"]
    errors = {Path(f.file).parent.name for f in result.findings if f.severity is Severity.error}
    assert errors == {"class", "server"}
