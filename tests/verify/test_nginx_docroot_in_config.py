"""``confmig verify --to nginx DOCROOT --config httpd.conf``: real Apache running the whole
configuration (two name-based virtual hosts) against nginx with ``convert --to nginx DOCROOT
--config``'s output, probed with DOCROOT's virtual host's name.  The configuration changes
the answers (AllowOverride None under one directory, a <Directory> denial under another), so
verifying as if there were no configuration, or asking the other virtual host, differs."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.verify import VerifyRequest, verify
from tests.verify.sites import MODULES

pytestmark = [pytest.mark.apache]


@pytest.fixture
def vhosts() -> Iterator[tuple[Path, Path, Path]]:
    """(config, the first virtual host's root, the second's)."""
    from confmig.servers import make_docroot

    parent = make_docroot(prefix="confmig-ngdc-", files={
        "a/index.html": "site a\n", "a/private/page.html": "a private\n",
        "a/secret/page.html": "a secret\n",
        "b/index.html": "site b\n", "b/.htaccess": "RewriteEngine On\n"
                                                  "RewriteRule ^go$ private/page.html [L]\n",
        # AllowOverride None here in the configuration: Apache never reads this denial
        "b/private/.htaccess": "Require all denied\n", "b/private/page.html": "b private\n",
        # denied by a <Directory> of the configuration, no .htaccess
        "b/secret/page.html": "b secret\n",
    })
    a, b = parent / "a", parent / "b"
    config = parent / "httpd.conf"
    config.write_text(
        f"{MODULES}ServerName main.test\n"
        "<Directory />\n    AllowOverride None\n    Require all denied\n</Directory>\n"
        '<FilesMatch "^\\.ht">\n    Require all denied\n</FilesMatch>\n'
        f"<VirtualHost *:80>\n    ServerName a.test\n    DocumentRoot {a}\n"
        f"    <Directory {a}>\n        AllowOverride All\n        Require all granted\n"
        "    </Directory>\n</VirtualHost>\n"
        f"<VirtualHost *:80>\n    ServerName b.test\n    DocumentRoot {b}\n"
        f"    <Directory {b}>\n        AllowOverride All\n        Require all granted\n"
        f"    </Directory>\n    <Directory {b}/private>\n        AllowOverride None\n"
        f"    </Directory>\n    <Directory {b}/secret>\n        Require all denied\n"
        "    </Directory>\n</VirtualHost>\n")
    yield config, a, b
    shutil.rmtree(parent, ignore_errors=True)


def test_docroot_of_the_second_virtual_host(vhosts: tuple[Path, Path, Path],
                                            apache_binary: object,
                                            nginx_binary: object) -> None:
    config, _a, b = vhosts
    report = verify(VerifyRequest(target="nginx", docroot=b, config=config, max_requests=600))
    assert report.exit_code == 0, (report.summary(), report.to_json()["differences"][:3])
    assert not report.differing, report.summary()
    # the configuration's answers were asked: Apache served private/ (its .htaccess unread)
    # and denied secret/
    assert {200, 403} <= set(report.statuses)
    assert report.compared >= 20


def test_the_configuration_matters(vhosts: tuple[Path, Path, Path], apache_binary: object,
                                   nginx_binary: object,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """nginx converted as if there were no configuration (AllowOverride All, no <Directory>
    denial) against Apache running it: verify reports it — so the test above fails if the
    converted side ignores --config."""
    import confmig.verify.nginx as verify_nginx

    config, _a, b = vhosts
    real = verify_nginx.convert_docroot
    monkeypatch.setattr(verify_nginx, "convert_docroot",
                        lambda docroot, _config, *args: real(docroot, None, *args))
    report = verify(VerifyRequest(target="nginx", docroot=b, config=config, max_requests=600))
    assert report.exit_code == 1, report.summary()
    paths = {r.probe.path for r in report.unannounced}
    assert any(p.startswith(("/private", "/secret", "/go")) for p in paths), paths


def test_on_the_command_line(vhosts: tuple[Path, Path, Path], apache_binary: object,
                             nginx_binary: object) -> None:
    config, a, _b = vhosts
    result = CliRunner().invoke(app, ["verify", "--to", "nginx", str(a), "--config",
                                      str(config), "--format", "json"])
    assert "Traceback" not in result.output, result.output
    report = json.loads(result.stdout)
    assert result.exit_code == 0 and report["ok"], report["summary"]
    assert report["source"] == str(config)
    assert report["compared"] >= 10
