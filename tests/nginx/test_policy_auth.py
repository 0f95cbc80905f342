"""AuthType Basic + AuthUserFile (issue 12): nginx's auth_basic / auth_basic_user_file on the
same password file where both servers take the same logins (every hash format htpasswd
writes), ``Require user`` through a map on ``$remote_user``, and a denial (403, announced)
where nginx would let in someone Apache refuses.  Real Apache against real nginx, every user
with the right password, a wrong one and none."""

from __future__ import annotations

import base64
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from passlib import hash as schemes
from typer.testing import CliRunner

from confmig.cli import app
from confmig.model.explain import explain_request
from confmig.model.plan import plan_docroot
from confmig.verify import VerifyRequest, verify
from tests.nginx.servers import both, both_config

pytestmark = [pytest.mark.apache]

#: user → (password, stored hash): every format htpasswd writes, and crypt() schemes
PASSWORDS = {
    "alice": ("pw-a", schemes.apr_md5_crypt.hash("pw-a")),  # htpasswd -m (the default)
    "bob": ("pw-b", schemes.bcrypt.using(ident="2y", rounds=5).hash("pw-b")),  # htpasswd -B
    "ivan": ("pw-i", schemes.bcrypt.using(ident="2b", rounds=5).hash("pw-i")),
    "carol": ("pw-c", schemes.ldap_sha1.hash("pw-c")),  # htpasswd -s
    "dave": ("pw-d", schemes.sha512_crypt.using(rounds=5000).hash("pw-d")),  # htpasswd -5
    "sam": ("pw-s", schemes.sha256_crypt.using(rounds=5000).hash("pw-s")),  # htpasswd -2
    "erin": ("pw-e", schemes.des_crypt.hash("pw-e")),  # htpasswd -d
    "hank": ("pw-h", schemes.md5_crypt.hash("pw-h")),
    "pete": ("pw-p", "pw-p"),  # htpasswd -p: plain text, which Apache never matches on Unix
}
AUTH = 'AuthType Basic\nAuthName "Members $area"\nAuthUserFile {file}\n'


def password_file(extra: str = "") -> str:
    return "# users\n" + "".join(f"{u}:{h}\n" for u, (_, h) in PASSWORDS.items()) + extra


def login(user: str, password: str) -> dict[str, str]:
    token = base64.b64encode(f"{user}:{password}".encode()).decode()
    return {"Authorization": f"Basic {token}"}


@pytest.fixture
def site() -> Iterator[object]:
    from confmig.servers import make_docroot

    made: list[Path] = []

    def build(htaccess: str, users: str | None = None,
              extra: dict[str, str] | None = None) -> Path:
        root = make_docroot(prefix="confmig-ngau-", files={
            "p/f.txt": "secret\n", "p/sub/g.txt": "deeper\n", "open.txt": "open\n",
            **(extra or {})})
        (root / ".htpasswd").write_text(password_file() if users is None else users)
        (root / ".htpasswd").chmod(0o644)
        (root / "p/.htaccess").write_text(htaccess.format(file=root / ".htpasswd"))
        (root / "p/.htaccess").chmod(0o644)
        made.append(root)
        return root

    yield build
    for root in made:
        shutil.rmtree(root, ignore_errors=True)
        root.with_name(f"{root.name}.conf").unlink(missing_ok=True)  # group_site's config


def convert(root: Path) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert "Traceback" not in result.output
    return result.exit_code, result.stdout, result.stderr


def asked(pair: object, paths: list[str], users: dict[str, tuple[str, str]]
          ) -> list[tuple[str, str, int, int]]:
    """(path, who, Apache's status, nginx's status) with each user's password, a wrong one
    and none; the realm Apache asks with must be the one nginx asks with."""
    out = []
    for path in paths:
        tries = [("none", {})] + [(f"{u}/{kind}", login(u, pw if kind == "right" else "x"))
                                  for u, (pw, _) in users.items() for kind in ("right", "wrong")]
        for who, headers in tries:
            a, b = pair.ask(path, headers)  # type: ignore[attr-defined]
            out.append((path, who, a.status, b.status))
            if a.status == b.status == 401:
                assert a.headers.get("WWW-Authenticate") == b.headers.get("WWW-Authenticate") \
                    == 'Basic realm="Members $area"', (path, who)
    return out


def test_the_plan_carries_the_login(site: object) -> None:
    root = site(AUTH + "Require user alice bob\n")  # type: ignore[operator]
    plan = plan_docroot(root)
    scope = next(s for s in plan.scopes if s.url == "/p/")
    login_ = scope.settings.access.login
    assert scope.settings.access.status == 401 and login_ is not None
    assert (login_.realm, login_.user_file, login_.users) == (
        "Members $area", str(root / ".htpasswd"), ("alice", "bob"))
    assert {e.user: e.scheme for e in login_.entries}["bob"] == "bcrypt"


def test_the_file_provider_named_twice_is_a_plain_login_another_provider_is_not(
        site: object) -> None:
    # add_authn_provider appends (checked on Apache: tests/differential/sites_logins.py):
    # "file" twice asks the same file twice: still a plain login; "file" then "anon" (not
    # loaded by the assumed server: Apache answers 500) is no login to carry, and no 200
    twice = plan_docroot(site(AUTH + "AuthBasicProvider file\nAuthBasicProvider file\n"  # type: ignore[operator]
                              "Require valid-user\n"))
    scope = next(s for s in twice.scopes if s.url == "/p/")
    assert scope.settings.access.login is not None
    other = plan_docroot(site(AUTH + "AuthBasicProvider file\nAuthBasicProvider anon\n"  # type: ignore[operator]
                              "Require valid-user\n"))
    scope = next(s for s in other.scopes if s.url == "/p/")
    assert scope.settings.access.login is None and scope.settings.access.status != 200


def test_valid_user_every_hash_format(site: object, apache_binary: object,
                                      nginx_binary: object) -> None:
    root = site(AUTH + "Require valid-user\n")  # type: ignore[operator]
    code, out, err = convert(root)
    assert code == 0, err
    assert "auth_basic_user_file" in out and "untranslatable" not in out
    with both(root) as pair:
        answers = asked(pair, ["/p/f.txt", "/p/sub/g.txt", "/p/missing", "/p", "/p/"],
                        PASSWORDS)
        assert [x for x in answers if x[2] != x[3]] == []
        granted = {who for path, who, a, _ in answers if a == 200 and path == "/p/f.txt"}
        assert granted == {f"{u}/right" for u in PASSWORDS if u != "pete"}
        a, b = pair.ask("/open.txt")
        assert a.status == b.status == 200
        a, b = pair.ask("/.htpasswd")
        assert a.status == b.status == 403
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0 and not report.differing, report.summary()


def test_require_user_lets_in_only_those(site: object, apache_binary: object,
                                         nginx_binary: object) -> None:
    root = site(AUTH + "Require user alice carol\nRequire user sam\n")  # type: ignore[operator]
    code, _out, err = convert(root)
    assert code == 0, err
    with both(root) as pair:
        answers = asked(pair, ["/p/f.txt", "/p/sub/"], PASSWORDS)
        assert [x for x in answers if x[2] != x[3]] == []
        granted = {who for path, who, a, _ in answers if a == 200 and path == "/p/f.txt"}
        assert granted == {"alice/right", "carol/right", "sam/right"}


def test_what_nginx_would_let_in_is_denied_and_announced(site: object, apache_binary: object,
                                                         nginx_binary: object) -> None:
    """{PLAIN} and {SSHA} lines: nginx takes the password, Apache (crypt()) never does;
    white space before a name: Apache trims it.  Never 200 where Apache asks for a login."""
    extra = {"frank": ("pw-f", "{PLAIN}pw-f"),
             "gina": ("pw-g", schemes.ldap_salted_sha1.hash("pw-g"))}
    for lines, names in [("frank:{PLAIN}pw-f\n", ["frank"]),
                         (f"gina:{extra['gina'][1]}\n", ["gina"]),
                         (f"  lead:{schemes.apr_md5_crypt.hash('pw-l')}\n", ["lead"])]:
        root = site(AUTH + "Require valid-user\n", password_file(lines))  # type: ignore
        code, _out, err = convert(root)
        assert code == 1 and "AuthType" in err and "denied (403)" in err, err
        users = {**PASSWORDS, **extra, "  lead": ("pw-l", ""), "lead": ("pw-l", "")}
        with both(root) as pair:
            for _path, who, a, b in asked(pair, ["/p/f.txt"], {n: users[n] for n in names}
                                         | {"  lead": users["  lead"]}):
                assert b != 200 or a == 200, (who, a, b)
                assert b == 403, (who, a, b)


def test_trailing_white_space_refuses_that_user_announced(site: object,
                                                          apache_binary: object,
                                                          nginx_binary: object) -> None:
    users = password_file(f"tina:{schemes.apr_md5_crypt.hash('pw-t')}  \n")
    root = site(AUTH + "Require valid-user\n", users)  # type: ignore[operator]
    code, _out, err = convert(root)
    assert code == 1 and "tina" in err and "AuthUserFile" in err
    with both(root) as pair:
        a, b = pair.ask("/p/f.txt", login("tina", "pw-t"))
        assert (a.status, b.status) == (200, 401)  # stricter, never looser
        a, b = pair.ask("/p/f.txt", login("alice", "pw-a"))
        assert a.status == b.status == 200


def test_rules_that_would_answer_before_the_login_deny(site: object, apache_binary: object,
                                                       nginx_binary: object) -> None:
    """nginx's rewrite phase comes before auth_basic; Apache asks for the login first."""
    root = site(AUTH + "Require valid-user\nRewriteEngine On\n"  # type: ignore[operator]
                "RewriteRule ^old$ f.txt [L]\nRedirect 302 /p/away /open.txt\n")
    code, _out, err = convert(root)
    assert code == 1 and "before nginx asks for the login" in err
    with both(root) as pair:
        for path in ("/p/old", "/p/away", "/p/f.txt"):
            a, b = pair.ask(path)
            assert a.status == 401 and b.status == 403, path


def test_verify_sends_the_logins_it_is_given(site: object, monkeypatch: pytest.MonkeyPatch,
                                             apache_binary: object,
                                             nginx_binary: object) -> None:
    """verify --user NAME:PASSWORD: every directory that asks for a login is asked with it
    (and with wrong passwords); a converter that forgets Require user's list is caught."""
    import dataclasses

    import confmig.convert.nginx.render as render

    root = site(AUTH + "Require user alice\n")  # type: ignore[operator]
    logins = ("alice:pw-a", "carol:pw-c")
    result = CliRunner().invoke(app, ["verify", "--to", "nginx", str(root), "--format", "json",
                                      "--user", logins[0], "--user", logins[1]])
    assert result.exit_code == 0, result.output
    assert "pw-a" not in result.output and "cHctY" not in result.output
    report = verify(VerifyRequest(target="nginx", docroot=root, logins=logins))
    assert report.exit_code == 0 and not report.differing, report.summary()
    assert {200, 401} <= set(report.statuses)
    original = render.login_lines

    def forgetful(login: object, maps: object) -> object:  # valid-user instead of the list
        return original(dataclasses.replace(login, users=None), maps)  # type: ignore

    monkeypatch.setattr(render, "login_lines", forgetful)
    report = verify(VerifyRequest(target="nginx", docroot=root, logins=logins))
    assert report.exit_code == 1
    pairs = {(r.original.status, r.converted.status) for r in report.unannounced}
    assert (401, 200) in pairs and {a for a, _ in pairs} == {401}


# -- Require group (mod_authz_groupfile, which Debian does not load: --config mode) -------

GROUPS = ("# groups\nadmins: alice\nStaff \t: bob \"carol x\"\\\n  erin\n"
          "empty:\nadmins: hank\n")


def host_pair(pair: object) -> object:
    """*pair*, asked with the virtual host's name."""

    class Named:
        def ask(self, path: str, headers: dict[str, str] | None = None
                ) -> tuple[object, object]:
            return pair.ask(path, {"Host": "g.test", **(headers or {})})  # type: ignore

    return Named()


def group_site(site: object, require: dict[str, str]) -> Path:
    """The site fixture's tree with one directory per entry of *require* (name → Require
    lines) against one password file and group file, and a --config that loads
    mod_authz_groupfile with the tree as a virtual host."""
    extra = {f"{d}/f.txt": f"{d}\n" for d in require}
    root = site(AUTH + "Require valid-user\n", extra=extra)  # type: ignore[operator]
    (root / ".htgroup").write_text(GROUPS)
    (root / ".htgroup").chmod(0o644)
    for name, lines in require.items():
        (root / name / ".htaccess").write_text(
            AUTH.format(file=root / ".htpasswd") + f"AuthGroupFile {root / '.htgroup'}\n"
            + lines)
        (root / name / ".htaccess").chmod(0o644)
    config = root.parent / f"{root.name}.conf"
    config.write_text(
        "LoadModule authz_groupfile_module modules/mod_authz_groupfile.so\n"
        "ServerName group.test\n<Directory />\n    AllowOverride None\n"
        "    Require all denied\n</Directory>\n<VirtualHost *:80>\n    ServerName g.test\n"
        f"    DocumentRoot {root}\n    <Directory {root}>\n        AllowOverride All\n"
        "        Require all granted\n    </Directory>\n</VirtualHost>\n")
    return config


def test_require_group_as_the_group_file_reads(site: object, apache_binary: object,
                                               nginx_binary: object) -> None:
    """The members Apache finds (a trimmed group name, a quoted member, a joined line, two
    lines of one group), group names compared without regard to case (an APR table), a
    group with no members, a user in no group, and Require group beside Require user."""
    config = group_site(site, {"g": "Require group admins\n", "s": "Require group STAFF\n",
                               "e": "Require group empty nogroup\n",
                               "m": "Require group admins\nRequire user dave\n"})
    code = CliRunner().invoke(app, ["convert", "--to", "nginx", "--config", str(config)])
    assert code.exit_code == 0, code.output
    assert "untranslatable:" not in code.output
    assert "Require group admins (AuthGroupFile, as it reads now: alice hank)" in code.output
    users = {u: PASSWORDS[u] for u in ("alice", "bob", "erin", "hank", "dave", "sam")}
    with both_config(config) as pair:
        answers = asked(host_pair(pair), ["/g/f.txt", "/s/f.txt", "/e/f.txt", "/m/f.txt",
                                          "/m/"], users)
    assert [x for x in answers if x[2] != x[3]] == []
    granted = {(path, who) for path, who, a, _ in answers if a == 200}
    assert granted == {("/g/f.txt", "alice/right"), ("/g/f.txt", "hank/right"),
                       ("/s/f.txt", "bob/right"), ("/s/f.txt", "erin/right"),
                       ("/m/f.txt", "alice/right"), ("/m/f.txt", "hank/right"),
                       ("/m/f.txt", "dave/right")}, granted
    for path, who, a, _ in answers:  # the model answers as Apache does
        name, _, kind = who.partition("/")
        user = f"{name}:{users[name][0] if kind == 'right' else 'x'}" if kind else None
        answer = explain_request(path, config=config, host="g.test", user=user)
        assert answer.status == a, (path, who, answer.status, a)


# -- a login inside <Files>/<FilesMatch> ----------------------------------------------------

FILES_LOGIN = (
    '<Files secret.txt>\n' + AUTH + 'Require valid-user\n</Files>\n'
    '<FilesMatch "\\.cfg$">\nAuthType Basic\nAuthName "Config"\nAuthUserFile {file}\n'
    'Require user alice\n</FilesMatch>\n')
FILES_PATHS = ["/p/secret.txt", "/p/sub/secret.txt", "/p/missing/secret.txt",
               "/p/secret.txt/x", "/p/f.txt", "/p/a.cfg", "/p/sub/b.cfg", "/p/gone.cfg",
               "/p/", "/p/sub/"]


def test_a_login_inside_files_sections(site: object, apache_binary: object,
                                       nginx_binary: object) -> None:
    """The section's login only where Apache's walk stops at a name it matches (an existing
    directory's entry, or a file followed by PATH_INFO), with its own realm and users; the
    rest of the directory is served without one."""
    root = site(FILES_LOGIN, extra={  # type: ignore[operator]
        "p/secret.txt": "s\n", "p/sub/secret.txt": "s2\n", "p/a.cfg": "a\n",
        "p/sub/b.cfg": "b\n", "p/sub/index.html": "i\n"})
    code, out, err = convert(root)
    assert code == 0, err
    assert "auth_basic" in out
    users = {u: PASSWORDS[u] for u in ("alice", "bob")}
    with both(root) as pair:
        answers = asked_realms(pair, FILES_PATHS, users)
    assert [x for x in answers if x[2] != x[3]] == []
    statuses = {(path, who): a for path, who, a, _ in answers}
    assert statuses[("/p/secret.txt", "none")] == 401
    assert statuses[("/p/secret.txt", "bob/right")] == 200
    assert statuses[("/p/a.cfg", "bob/right")] == 401
    assert statuses[("/p/a.cfg", "alice/right")] == 200
    assert statuses[("/p/missing/secret.txt", "none")] == 404
    assert statuses[("/p/secret.txt/x", "none")] == 401
    assert statuses[("/p/f.txt", "none")] == 200
    report = verify(VerifyRequest(target="nginx", docroot=root, logins=("alice:pw-a",)))
    assert report.exit_code == 0 and not report.differing, report.summary()


def asked_realms(pair: object, paths: list[str], users: dict[str, tuple[str, str]]
                 ) -> list[tuple[str, str, int, int]]:
    """:func:`asked`, comparing the realm of each 401 whatever it is."""
    out = []
    for path in paths:
        tries = [("none", {})] + [(f"{u}/{kind}", login(u, pw if kind == "right" else "x"))
                                  for u, (pw, _) in users.items() for kind in ("right", "wrong")]
        for who, headers in tries:
            a, b = pair.ask(path, headers)  # type: ignore[attr-defined]
            out.append((path, who, a.status, b.status))
            if a.status == b.status == 401:
                assert a.headers.get("WWW-Authenticate") == b.headers.get(
                    "WWW-Authenticate"), (path, who)
    return out


def test_a_files_login_nginx_cannot_order_is_denied(site: object, apache_binary: object,
                                                    nginx_binary: object) -> None:
    """A <Files> login in a directory with rewrite rules: Apache asks for the login, then
    runs the rules; nginx's rewrite phase comes first — denied (403) and announced."""
    root = site(FILES_LOGIN + "RewriteEngine On\nRewriteRule ^old$ f.txt [L]\n",  # type: ignore
                extra={"p/secret.txt": "s\n"})
    code, _out, err = convert(root)
    assert code == 1 and "<Files secret.txt>" in err and "denied (403)" in err, err
    with both(root) as pair:
        for user in ("none", "alice"):
            headers = login("alice", "pw-a") if user == "alice" else {}
            a, b = pair.ask("/p/secret.txt", headers)
            assert (a.status, b.status) == ((401, 403) if user == "none" else (200, 403))
            a, b = pair.ask("/p/old", headers)
            assert a.status == b.status == 200
