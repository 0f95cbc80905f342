"""``confmig verify --to nginx --config``: the login probes (``--user NAME:PASSWORD``, a wrong
password, an unknown user) and the compressed probes (``Accept-Encoding: gzip``) that docroot
mode sends, sent to every virtual host whose plan asks for a login or compresses (issue 12).
Real Apache running the configuration against real nginx running its conversion: verify passes
on the converter's output and fails when that output forgets a user list or mod_deflate."""

from __future__ import annotations

import base64
import dataclasses
import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from passlib import hash as schemes
from typer.testing import CliRunner

import confmig.convert.nginx.render as render
from confmig.cli import app
from confmig.convert.nginx.auth import LoginLines
from confmig.model.plan import BasicLogin
from confmig.verify import VerifyRequest, verify
from confmig.verify.nginx import prepare
from confmig.verify.report import VerifyReport

pytestmark = [pytest.mark.apache]

PASSWORDS = {"alice": "pw-a", "bob": "pw-b", "carol": "pw-c"}
LOGINS = ("alice:pw-a", "bob:pw-b")
TEXT = "confmig gzip probe line\n" * 20
AUTH = 'AuthType Basic\nAuthName "Config {name}"\nAuthUserFile {root}/.htpasswd\n'


@pytest.fixture
def config() -> Iterator[Path]:
    """A tree served by one name-based virtual host (and a second host without either):
    members/ asks for ``Require user alice`` (server configuration), staff/ for ``Require
    group staff`` (bob; mod_authz_groupfile, which Debian does not load: the configuration
    loads it), ht/ for ``Require user carol`` from its .htaccess, text/ compresses."""
    from confmig.servers import make_docroot

    root = make_docroot(prefix="confmig-ngvc-", files={
        "members/f.txt": "members\n", "staff/f.txt": "staff\n", "ht/f.txt": "ht\n",
        "text/a.txt": TEXT, "text/b.html": "<p>" + TEXT, "text/tiny.txt": "tiny\n",
        "open.txt": TEXT})
    other = make_docroot(prefix="confmig-ngvc-other-", files={"o.txt": TEXT})
    (root / ".htpasswd").write_text("".join(f"{u}:{schemes.apr_md5_crypt.hash(p)}\n"
                                            for u, p in PASSWORDS.items()))
    (root / ".htgroup").write_text("staff: bob\nadmins: alice\n")
    (root / "ht/.htaccess").write_text(AUTH.format(name="ht", root=root)
                                       + "Require user carol\n")
    for made in (root / ".htpasswd", root / ".htgroup", root / "ht/.htaccess"):
        made.chmod(0o644)
    path = root.parent / f"{root.name}.conf"
    path.write_text(
        "LoadModule authz_groupfile_module modules/mod_authz_groupfile.so\n"
        "ServerName config.test\n<Directory />\n    AllowOverride None\n"
        "    Require all denied\n</Directory>\n"
        "<VirtualHost *:80>\n    ServerName c.test\n"
        f"    DocumentRoot {root}\n    <Directory {root}>\n        AllowOverride All\n"
        "        Require all granted\n    </Directory>\n"
        f"    <Directory {root}/members>\n        "
        + AUTH.format(name="members", root=root).replace("\n", "\n        ")
        + "Require user alice\n    </Directory>\n"
        f"    <Directory {root}/staff>\n        "
        + AUTH.format(name="staff", root=root).replace("\n", "\n        ")
        + f"AuthGroupFile {root}/.htgroup\n        Require group staff\n    </Directory>\n"
        f"    <Directory {root}/text>\n"
        "        AddOutputFilterByType DEFLATE text/plain text/html\n    </Directory>\n"
        "</VirtualHost>\n"
        "<VirtualHost *:80>\n    ServerName other.test\n"
        f"    DocumentRoot {other}\n    <Directory {other}>\n"
        "        Require all granted\n    </Directory>\n</VirtualHost>\n")
    yield path
    path.unlink()
    shutil.rmtree(root, ignore_errors=True)
    shutil.rmtree(other, ignore_errors=True)


def run(config: Path) -> VerifyReport:
    return verify(VerifyRequest(target="nginx", config=config, logins=LOGINS,
                                max_requests=1000))


def test_config_mode_chooses_the_login_and_gzip_probes(config: Path, apache_binary: object,
                                                       nginx_binary: object) -> None:
    """Per virtual host, per directory: only the directories that ask for a login get the
    logins, only text/ the gzip probes, each with its host's name."""
    setup = prepare(VerifyRequest(target="nginx", config=config, logins=LOGINS))
    logins = {p.path for p in setup.probes
              if any(n == "Authorization" for n, _ in p.headers)}
    assert logins == {f"/{d}/{n}" for d in ("members", "staff", "ht")
                      for n in ("", "f.txt", "confmig-missing")} | {"/ht/.htaccess"}
    hosts = {dict(p.headers).get("Host") for p in setup.probes}
    assert hosts == {"c.test"}
    gzipped = {p.path for p in setup.probes if ("Accept-Encoding", "gzip") in p.headers}
    assert gzipped == {"/text/", "/text/a.txt", "/text/b.html", "/text/tiny.txt",
                       "/text/confmig-missing"}
    # every login, a wrong password for the first users of the file, an unknown user
    members = [base64.b64decode(dict(p.headers)["Authorization"].split()[1]).decode()
               for p in setup.probes if p.path == "/members/f.txt"]
    assert members == [*LOGINS, "alice:confmig-wrong-password", "bob:confmig-wrong-password",
                       "confmig-nobody:confmig-wrong-password"]


def test_verify_passes_on_the_output(config: Path, apache_binary: object,
                                     nginx_binary: object) -> None:
    report = run(config)
    assert report.exit_code == 0 and not report.unannounced, report.summary()
    assert {200, 401} <= set(report.statuses)
    # only text/'s announced gzip differences (nginx compresses its own 404 page)
    assert {r.probe.directory for r in report.differing} <= {str(config.parent / config.stem)
                                                             + "/text"}, report.summary()


def test_verify_fails_when_the_user_list_is_dropped(config: Path,
                                                     monkeypatch: pytest.MonkeyPatch,
                                                     apache_binary: object,
                                                     nginx_binary: object) -> None:
    original = render.login_lines

    def forgetful(login: BasicLogin, maps: object) -> LoginLines:  # valid-user for all
        return original(dataclasses.replace(login, users=None, groups=()), maps)  # type: ignore

    monkeypatch.setattr(render, "login_lines", forgetful)
    report = run(config)
    assert report.exit_code == 1, report.summary()
    wrong = {(r.probe.path, r.original.status, r.converted.status) for r in report.unannounced}
    # bob is let into members/, alice into staff/ — both only with their own password
    assert {("/members/f.txt", 401, 200), ("/staff/f.txt", 401, 200)} <= wrong, wrong
    assert {a for _, a, _ in wrong} == {401}


def test_verify_fails_when_gzip_is_dropped(config: Path, monkeypatch: pytest.MonkeyPatch,
                                           apache_binary: object, nginx_binary: object) -> None:
    """The converter forgets mod_deflate: the answers asked with Accept-Encoding: gzip are
    compressed by Apache and not by nginx (before, verify only saw a Vary header)."""
    monkeypatch.setattr(render.Renderer, "_gzip_lines", lambda self, scope, settings: [])
    report = run(config)
    assert report.exit_code == 1, report.summary()
    encoded = {r.probe.path for r in report.unannounced
               if ("Accept-Encoding", "gzip") in r.probe.headers
               and any(d.field == "content-encoding" and d.original == "gzip"
                       and d.converted == "(absent)" for d in r.diffs)}
    assert {"/text/a.txt", "/text/b.html"} <= encoded, report.summary()
    assert "/text/tiny.txt" not in encoded  # mod_deflate leaves 68 bytes or fewer alone


def test_no_authorization_value_is_printed(config: Path, apache_binary: object,
                                           nginx_binary: object,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """A failing run names the login probes by scheme only, in text and in JSON."""
    original = render.login_lines
    monkeypatch.setattr(render, "login_lines", lambda login, maps: original(
        dataclasses.replace(login, users=None, groups=()), maps))
    tokens = [base64.b64encode(f"{u}:{p}".encode()).decode()
              for u, p in [*(x.split(":") for x in LOGINS), ("alice", "confmig-wrong-password")]]
    for form in ("text", "json"):
        result = CliRunner().invoke(app, ["verify", "--to", "nginx", "--config", str(config),
                                          "--user", LOGINS[0], "--user", LOGINS[1],
                                          "--format", form])
        assert result.exit_code == 1 and "Traceback" not in result.output, result.output
        for secret in ("pw-a", "pw-b", "confmig-wrong-password", *tokens,
                       *(t[:12] for t in tokens)):
            assert secret not in result.output, (form, secret)
    shown = [d for d in json.loads(result.stdout)["differences"]
             if "Authorization" in d["headers"]]
    assert shown and {d["headers"]["Authorization"] for d in shown} == {"Basic …"}
    assert all("[Authorization: Basic …]" in d["request"] for d in shown)
