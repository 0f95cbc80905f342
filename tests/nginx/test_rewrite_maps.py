"""RewriteMap kinds other than ``txt:`` (issue 12), on real Apache and real nginx: a ``rnd:``
map whose values have no ``|`` never picks at random and is translated as its table; a
``rnd:`` map that picks, ``int:`` (toupper, tolower, escape, unescape), ``prg:`` and ``dbm:``
have no stock nginx form — their rules are announced and answer 403 for the URLs their
pattern matches, never what Apache would not answer."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify
from tests.nginx.servers import both_config

pytestmark = [pytest.mark.apache]

MODULES = "".join(f"LoadModule {m}_module modules/mod_{m}.so\n" for m in ("rewrite",))
RULES = ("RewriteEngine On\n"
         "RewriteRule ^one/(.+)$ /${one:$1|missing.html} [L]\n"
         "RewriteRule ^oner/(.+)$ /${one:$1}?from=$1 [R=302,L]\n"
         "RewriteRule ^many/(.+)$ /${many:$1|missing.html} [L]\n"
         "RewriteRule ^up/(.+)$ /u/${up:$1} [R=302,L]\n"
         "RewriteRule ^low/(.+)$ /l/${low:$1} [R=302,L]\n"
         "RewriteRule ^esc/(.+)$ /e/${esc:$1} [R=302,L]\n"
         "RewriteRule ^unesc/(.+)$ /n/${unesc:$1} [R=302,L]\n"
         "RewriteRule ^prog/(.+)$ /${prog:$1|missing.html} [L]\n"
         "RewriteRule ^db/(.+)$ /${db:$1|missing.html} [L]\n")
#: path → what Apache answers (status, body or Location path), asserted
TRANSLATED = {"/one/home": (200, b"home\n"), "/one/about": (200, b"about\n"),
              "/one/none": (200, b"missing\n"), "/oner/home": (302, "/home.html?from=home"),
              "/oner/none": (302, "/?from=none"), "/home.html": (200, b"home\n")}
DENIED = {"/many/home": 200, "/up/abc": 302, "/low/ABC": 302, "/esc/a%20b": 302,
          "/unesc/a%2541": 302, "/prog/home": 200, "/db/home": 200}


@pytest.fixture
def config() -> Iterator[Path]:
    parent = make_docroot(prefix="confmig-nrm-", files={
        "site/.htaccess": RULES, "site/home.html": "home\n", "site/about.html": "about\n",
        "site/missing.html": "missing\n", "site/other.html": "other\n",
        "one.map": "# no '|': never random\nhome home.html\nabout about.html\n",
        "many.map": "home home.html|other.html\n", "db.txt": "home home.html\n",
        "prog.sh": "#!/bin/sh\nwhile read -r key; do echo \"$key.html\"; done\n"})
    os.chmod(parent / "prog.sh", 0o755)
    subprocess.run(["httxt2dbm", "-i", str(parent / "db.txt"), "-o", str(parent / "db.dbm")],
                   check=True, capture_output=True)
    for made in parent.iterdir():
        if made.name.startswith("db.dbm"):
            made.chmod(0o644)
    root = parent / "site"
    conf = parent / "httpd.conf"
    conf.write_text(
        f"{MODULES}ServerName maps.test\n<Directory />\n    AllowOverride None\n"
        "    Require all denied\n</Directory>\n<VirtualHost *:80>\n    ServerName maps.test\n"
        f"    DocumentRoot {root}\n    RewriteMap one rnd:{parent}/one.map\n"
        f"    RewriteMap many rnd:{parent}/many.map\n    RewriteMap up int:toupper\n"
        "    RewriteMap low int:tolower\n    RewriteMap esc int:escape\n"
        f"    RewriteMap unesc int:unescape\n    RewriteMap prog prg:{parent}/prog.sh\n"
        f"    RewriteMap db dbm:{parent}/db.dbm\n    <Directory {root}>\n"
        "        AllowOverride All\n        Require all granted\n    </Directory>\n"
        "</VirtualHost>\n")
    yield conf
    shutil.rmtree(parent, ignore_errors=True)


def test_map_kinds_translated_or_denied(config: Path, apache_binary: object,
                                        nginx_binary: object) -> None:
    host = {"Host": "maps.test"}
    with both_config(config) as pair:
        ports = [str(t.port) for t in (pair.setup.original, pair.setup.converted)]
        for path, (status, expected) in TRANSLATED.items():
            a, b = pair.ask(path, host)
            assert (a.status, b.status) == (status, status), (path, a.status, b.status)
            if isinstance(expected, bytes):
                assert a.body == b.body == expected, path
            else:
                assert a.headers["Location"] == "http://maps.test" + expected, path
                assert b.headers["Location"].replace(":" + ports[1], "") == \
                    "http://maps.test" + expected, path
        for path, status in DENIED.items():
            a, b = pair.ask(path, host)
            assert (a.status, b.status) == (status, 403), (path, a.status, b.status)
    report = verify(VerifyRequest(target="nginx", config=config, max_requests=800))
    assert report.exit_code == 0 and not report.unannounced and report.differing, \
        report.summary()
    reasons = {n.reason.split(" (")[0] + " (" + n.reason.split(" (")[1].split(")")[0] + ")"
               for n in report.conversion.untranslatable}
    for name, kind in [("many", "rnd"), ("up", "int"), ("low", "int"), ("esc", "int"),
                       ("unesc", "int"), ("prog", "prg"), ("db", "dbm")]:
        assert f"RewriteMap {name} ({kind}:)" in reasons, reasons
    assert not any("RewriteMap one " in n.reason for n in report.conversion.untranslatable)
