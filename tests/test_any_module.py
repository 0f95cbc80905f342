"""Modules confmig has few or no facts for (mod_wsgi, mod_php, a vendor's module): explain
lists their directives under "not modelled", the httpd converter announces them, nothing
is dropped silently and nothing crashes.  The Apache-backed test runs the machine's mod_wsgi
(skipped where it is not installed)."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.convert import convert
from confmig.lint.testing import ApacheCases, HtaccessCase, write_tree
from confmig.model.explain import explain_request
from confmig.servers import ApacheBinary, default_modules


def _site(tmp_path: Path, modules: str, htaccess: str, server: str = "") -> Path:
    root = tmp_path / "root"
    write_tree(root, {"app/.htaccess": htaccess, "app/index.html": "ok\n"})
    conf = tmp_path / "httpd.conf"
    conf.write_text(f"{modules}DocumentRoot {root}\n{server}<Directory {root}>\n"
                    "  AllowOverride All\n  Require all granted\n</Directory>\n")
    return conf


WSGI = "LoadModule wsgi_module /usr/lib/apache2/modules/mod_wsgi.so\n"
VENDOR = "LoadModule vendor_module modules/mod_vendor.so\n"


def test_explain_lists_what_it_does_not_model(tmp_path: Path) -> None:
    conf = _site(tmp_path, WSGI + VENDOR, "WSGIPassAuthorization On\n",
                 server="WSGIScriptAlias /wsgi /srv/app.wsgi\nVendorMode strict\n")
    answer = explain_request("/app/index.html", config=conf)
    assert answer.status == 200 and answer.file == "app/index.html"
    notes = "\n".join(answer.unsupported)
    assert "WSGIScriptAlias (mod_wsgi): known to exist, not modelled" in notes
    assert "WSGIPassAuthorization (mod_wsgi): known to exist, not modelled" in notes
    assert "VendorMode: unknown to confmig; loaded vendor_module" in notes
    assert f"{conf}:" in notes


def test_explain_a_500_an_unknown_module_may_define_away(tmp_path: Path) -> None:
    conf = _site(tmp_path, VENDOR, "VendorMode strict\n")
    answer = explain_request("/app/index.html", config=conf)
    assert answer.status == 500  # "Invalid command", unless mod_vendor defines it
    assert any("VendorMode" in n and "does not answer 500" in n for n in answer.unsupported)
    plain = explain_request("/app/index.html", config=_site(tmp_path / "b", "",
                                                             "VendorMode strict\n"))
    assert plain.status == 500 and plain.unsupported == []


def test_explain_without_the_module_says_invalid_command(tmp_path: Path) -> None:
    conf = _site(tmp_path, "", "WSGIPassAuthorization On\n")
    answer = explain_request("/app/index.html", config=conf)
    assert answer.status == 500 and answer.unsupported == []


def test_convert_announces_not_modelled_directives(tmp_path: Path) -> None:
    php = "LoadModule php_module /usr/lib/apache2/modules/libphp8.2.so\n"
    conf = _site(tmp_path, php + VENDOR,
                 "php_value upload_max_filesize 64M\nphp_flag display_errors off\n"
                 "php_value post_max_size 64M\nVendorMode strict\n")
    result = convert("httpd", tmp_path / "root", conf)
    notes = {n.directive: n for n in result.warnings if "not modelled" in n.reason}
    assert set(notes) == {"php_value", "php_flag", "VendorMode"}
    assert notes["php_value"].line == 1 and "(lines 1, 3)" in notes["php_value"].reason
    assert "known to exist (mod_php), not modelled; moved as written" in notes[
        "php_flag"].reason
    assert "if the module defines it" in notes["VendorMode"].reason
    assert "php_value upload_max_filesize 64M" in result.text  # moved, not dropped
    # the same tree without mod_php: Apache's "Invalid command", announced as before
    plain = convert("httpd", tmp_path / "root", _site(tmp_path / "b", "", "php_value a b\n"))
    assert not any("not modelled" in n.reason for n in plain.notes)


@pytest.mark.apache
def test_explain_agrees_with_apache_with_mod_wsgi(apache_binary: ApacheBinary) -> None:
    """The machine's mod_wsgi loaded: Apache serves a static file under an .htaccess with
    WSGI directives; explain answers the same and says what it did not model."""
    if not (apache_binary.modules_dir / "mod_wsgi.so").is_file():
        pytest.skip("mod_wsgi is not installed (apt-get install libapache2-mod-wsgi-py3)")
    cases = [HtaccessCase("app", "WSGIPassAuthorization On\nWSGIScriptReloading Off\n"),
             HtaccessCase("auth", "WSGIAccessScript /tmp/none.wsgi\n",
                          allow_override="FileInfo")]
    with ApacheCases(cases, modules=sorted({*default_modules(apache_binary), "wsgi"})) as apache:
        statuses = {c.name: apache.status(c.name) for c in cases}
        ours = {c.name: explain_request(f"/{c.name}/index.html", config=apache.conf_path)
                for c in cases}
    assert statuses == {"app": 200, "auth": 500}
    assert {name: a.status for name, a in ours.items()} == statuses
    assert any("WSGIScriptReloading (mod_wsgi)" in n for n in ours["app"].unsupported)
