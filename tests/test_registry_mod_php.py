"""mod_php's directive facts against real mod_php (issue 17: facts for the common third-party
modules).  They were taken from php-src's ``sapi/apache2handler/apache_config.c``; with
Debian's ``libapache2-mod-php`` installed (scripts/test.sh installs it) each claim is asked
of Apache: where each directive may appear, which ``AllowOverride`` lets it into an
``.htaccess``, and that explain answers as Apache does."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.apache.registry import overrides_permit, registry
from confmig.model.explain import explain_request
from confmig.servers import ApacheBinary, ApacheServer, http_get
from tests.test_registry import _REFUSED, _WRAP, MARKER, OVERRIDE_CLASSES, Case, _outcome

PHP_ARGS = {"php_value": "memory_limit 64M", "php_flag": "display_errors off",
            "php_admin_value": "memory_limit 64M", "php_admin_flag": "display_errors off",
            "PHPINIDir": "/tmp"}


@pytest.fixture(scope="module")
def mod_php(apache_binary: ApacheBinary) -> str:
    """Debian's short name of the installed mod_php (``php8.2``)."""
    available = apache_binary.mods_available
    loads = sorted(available.glob("php*.load")) if available is not None else []
    if not loads:
        pytest.skip("mod_php is not installed (apt-get install libapache2-mod-php)")
    return loads[-1].stem


def _server(binary: ApacheBinary, php: str, **kwargs: object) -> ApacheServer:
    return ApacheServer(modules=["authz_core", "mime", php], mpm="prefork", binary=binary,
                        **kwargs)


@pytest.mark.apache
def test_mod_php_contexts_agree_with_apache(apache_binary: ApacheBinary, mod_php: str) -> None:
    infos = registry().for_module("mod_php")
    assert {i.name for i in infos} == set(PHP_ARGS)
    wrong = []
    for context, wrap in _WRAP.items():
        for info in infos:
            text = wrap.format(line=f"{info.name} {PHP_ARGS[info.name]}")
            result = _server(apache_binary, mod_php, docroot=None,
                             server_config=text).config_test()
            if context in info.contexts and not result.ok:
                wrong.append(f"{info.name} allowed in {context}, but: {result.message}")
            if context not in info.contexts and (result.ok or not _REFUSED.search(result.message)):
                wrong.append(f"{info.name} refused in {context}, but: {result.message}")
    assert wrong == []


@pytest.mark.apache
def test_mod_php_overrides_agree_with_apache(apache_binary: ApacheBinary, mod_php: str,
                                             docroot: Path) -> None:
    """Each mod_php directive alone in an .htaccess under each AllowOverride class: let
    through or refused as :func:`overrides_permit` says (the marker proves the file was read)."""
    site = [f"DocumentRoot {docroot}",
            f"<Directory {docroot}>\n  Require all granted\n  AllowOverride None\n</Directory>"]
    cases = []
    for p, klass in enumerate(sorted(OVERRIDE_CLASSES)):
        for n, name in enumerate(sorted(PHP_ARGS)):
            where = docroot / f"{p}-{n}"
            where.mkdir()
            (where / ".htaccess").write_text(f"{name} {PHP_ARGS[name]}\n{MARKER}\n")
            (where / "f.txt").write_text("ok\n")
            site.append(f"<Directory {where}>\n  AllowOverride {klass}\n</Directory>")
            cases.append((where, Case((klass,), (), f"{name} {PHP_ARGS[name]}")))
    for path in [docroot, *docroot.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    with _server(apache_binary, mod_php, docroot=docroot,
                 server_config="\n".join(site)) as server:
        for where, _ in cases:
            http_get(server.base_url, f"/{where.name}/f.txt")
        log = server.error_log_text()
    wrong = [(case, case.predicted()) for where, case in cases
             if _outcome(log, where, case) != case.predicted()]
    assert wrong == []
    # php_value and php_flag by Options; the admin forms and PHPINIDir never
    assert sum(case.predicted() for _, case in cases) == 2
    assert overrides_permit("php_value", ("Options",))


@pytest.mark.apache
def test_explain_with_mod_php_answers_as_apache(apache_binary: ApacheBinary, mod_php: str,
                                                docroot: Path, tmp_path: Path) -> None:
    """With mod_php loaded, php_value in .htaccess is fine and php_admin_value a 500 (without
    it both are "Invalid command": tests/test_registry.py); explain, given a configuration
    that loads mod_php, answers the same."""
    htaccess = {"value": "php_value upload_max_filesize 64M\n",
                "flag": "php_flag display_errors off\n",
                "admin": "php_admin_value memory_limit 1G\n",
                "guarded": "<IfModule mod_php.c>\n  php_value a b\n</IfModule>\n"}
    for name, text in htaccess.items():
        (docroot / name).mkdir(parents=True)
        (docroot / name / ".htaccess").write_text(text)
        (docroot / name / "index.html").write_text("ok\n")
    for path in [docroot, *docroot.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    site = (f"DocumentRoot {docroot}\n<Directory {docroot}>\n  Require all granted\n"
            "  AllowOverride All\n</Directory>\n")
    server = _server(apache_binary, mod_php, docroot=docroot, server_config=site)
    with server:
        statuses = {name: http_get(server.base_url, f"/{name}/index.html").status
                    for name in htaccess}
    loads = "".join(f"LoadModule {spec.ident} {spec.path}\n" for spec in server.modules)
    config = tmp_path / "httpd.conf"
    config.write_text(f"ServerRoot {tmp_path}\n{loads}{site}")
    ours = {name: explain_request(f"/{name}/index.html", config=config).status
            for name in htaccess}
    assert statuses == {"value": 200, "flag": 200, "admin": 500, "guarded": 200}
    assert ours == statuses
