"""confmig verify --to nginx: real Apache with the .htaccess tree against real nginx with the
converted server, on the fixtures, the nested-rules site, the corpus — and the traps of
../shared/docs/traps.md asked of both servers directly."""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import confmig.convert.nginx.render as render
from confmig.cli import app
from confmig.verify import VerifyRequest, verify
from tests.corpus import CORPUS, needs_corpus
from tests.nginx.fronts import assert_front_controller
from tests.nginx.servers import both
from tests.verify.sites import corpus_site, corpus_vhosts, deep_site, nested_rewrite_site

pytestmark = [pytest.mark.apache]
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
DEMO = FIXTURES / "demo-site"


@pytest.fixture
def site() -> Iterator[object]:
    from confmig.servers import make_docroot

    made: list[Path] = []

    def build(files: dict[str, str]) -> Path:
        root = make_docroot(prefix="confmig-nv-", files=files)
        made.append(root)
        return root

    yield build
    for root in made:
        shutil.rmtree(root, ignore_errors=True)


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["verify", "--to", "nginx", *args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout, result.stderr


def test_demo_site(apache_binary: object, nginx_binary: object) -> None:
    code, out, _err = run_cli(str(DEMO), "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["ok"], report["summary"]
    assert report["compared"] >= 90
    # only the announced Cache-Control + Expires of assets/ differs
    assert all(d["directory"].startswith(f"{DEMO}/assets") for d in report["differences"])


def test_nested_rules_prefix_base_inheritance_and_query_strings(apache_binary: object,
                                                                nginx_binary: object) -> None:
    root = nested_rewrite_site()
    try:
        report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=3000))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert report.exit_code == 0, report.summary()
    assert not report.differing, report.summary()  # nothing even announced
    assert {200, 301, 302, 404} <= set(report.statuses)


@needs_corpus
@pytest.mark.corpus
def test_every_corpus_htaccess(apache_binary: object, nginx_binary: object) -> None:
    root, used = corpus_site()
    try:
        report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=4000,
                                      timeout=600))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert len(used) >= 30
    assert report.exit_code == 0, report.summary()
    assert report.compared > 1500
    assert {200, 301, 403, 404, 500} <= set(report.statuses)
    # what is announced: each note names file:line (or the file) and says why
    for note in report.conversion.untranslatable:
        assert note.file and note.reason and note.scope


ENCODED = [
    "/private/data.txt", "/private%2fdata.txt", "/%70rivate/data.txt", "/private/%64ata.txt",
    "/private/./data.txt", "/private//data.txt", "//private/data.txt", "/x/../private/data.txt",
    "/x/..%2fprivate/data.txt", "/x/%2e%2e/private/data.txt", "/blog/%2E%2E/private/data.txt",
    "/private/data.txt%00", "/private%00/data.txt", "/private/data.txt?x=1",
    "/private", "/private/", "/PRIVATE/data.txt", "/db.sql", "/db.sq%6c", "/db%2esql",
    "/sub/db.sql", "/sub/db.sql/", "/sub/db.sql%2f", "/.htaccess", "/.ht%61ccess",
    "/sub/.htaccess", "/%2ehtaccess", "/sub/../.htaccess", "/go", "/go?x=1", "/blog/go",
    "/db.sql/x", "/sub/db.sql/x/y", "/app/secret.sql", "/app/secret.sql/x",
    "/app/secret.sq%6c/x", "/app/secret.sql%2fx", "/app/missing", "/app/.htpasswd/x",
]


def test_denials_stay_denials_under_encoded_spellings(site: object, apache_binary: object,
                                                      nginx_binary: object) -> None:
    """Trap: nginx decodes %2F and normalises .. before matching locations; Apache refuses
    encoded slashes and matches <Files> on the mapped file name.  Never 200 where Apache
    does not answer 200 — and for these paths the very same status."""
    root = site({
        ".htaccess": 'RewriteEngine On\nRewriteRule ^go$ private/data.txt [L]\n'
                     '<FilesMatch "\\.sql$">\nRequire all denied\n</FilesMatch>\n',
        "private/.htaccess": "Require all denied\n", "private/data.txt": "secret\n",
        "db.sql": "dump\n", "sub/db.sql": "dump\n", "sub/x.txt": "x\n",
        "blog/index.html": "blog\n", "x/y.txt": "y\n",
        "app/.htaccess": "RewriteCond %{REQUEST_FILENAME} !-f\n"
                         "RewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule . index.php [L]\n",
        "app/index.php": "fc\n", "app/secret.sql": "s\n", "app/.htpasswd": "u:p\n",
    })
    with both(root) as pair:
        for path in ENCODED:
            a, b = pair.ask(path)
            if a.status != 200:
                assert b.status != 200, (path, a.status, b.status)
            if "%00" in path:  # nginx refuses a NUL itself (400) before any configuration
                assert (a.status, b.status) == (404, 400), path
                continue
            assert a.status == b.status, (path, a.status, b.status)


def test_a_rewrite_into_a_denied_directory_is_denied(site: object, apache_binary: object,
                                                     nginx_binary: object) -> None:
    """Trap: Apache re-checks access for the rewritten path; nginx does only after `last`."""
    root = site({".htaccess": "RewriteEngine On\nRewriteRule ^in$ closed/f.txt [L]\n"
                              "RewriteRule ^out$ open/f.txt [L]\n",
                 "closed/.htaccess": "Require all denied\n", "closed/f.txt": "no\n",
                 "open/f.txt": "yes\n"})
    with both(root) as pair:
        assert [r.status for r in pair.ask("/in")] == [403, 403]
        a, b = pair.ask("/out")
        assert (a.status, a.body) == (b.status, b.body) == (200, b"yes\n")


def test_front_controller_directories_and_slashes(site: object, apache_binary: object,
                                                  nginx_binary: object) -> None:
    """Trap: try_files $uri $uri/ … vs DirectorySlash and directories without an index."""
    root = site({"app/.htaccess": "RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
                                  "RewriteCond %{REQUEST_FILENAME} !-d\n"
                                  "RewriteRule ^ index.php [L]\n",
                 "app/index.php": "fc\n", "app/withindex/index.html": "idx\n",
                 "app/noindex/f.txt": "f\n", "app/.htaccess-less": "x\n"})
    with both(root) as pair:
        for path, status in [("/app/withindex", 301), ("/app/withindex/", 200),
                             ("/app/noindex", 301), ("/app/noindex/", 200),
                             ("/app/missing/page?a=1", 200), ("/app/", 200), ("/app", 301)]:
            a, b = pair.ask(path)
            assert a.status == b.status == status, (path, a.status, b.status)
            if status == 200 and path != "/app/noindex/":
                assert a.body == b.body, path
            if status == 301:
                assert a.headers["Location"].endswith(path + "/")
                assert b.headers["Location"].endswith(path + "/")


def test_headers_reach_the_responses_they_reach_in_apache(apache_binary: object,
                                                          nginx_binary: object) -> None:
    """Traps: inherited add_header dropped by a level with its own; add_header without
    `always` only on some statuses.  Header always (every answer) and onsuccess (what a
    handler served, an ErrorDocument page included) on a 200, a served 404 and a 403."""
    with both(DEMO) as pair:
        for path in ("/assets/css/site.css", "/confmig-missing", "/private/", "/index.html",
                     "/old/contact.html"):
            a, b = pair.ask(path)
            assert a.status == b.status, path
            for name in ("X-Content-Type-Options", "X-Frame-Options"):
                assert a.headers.get(name) == b.headers.get(name), (path, name)


def test_same_target_and_condition_backreferences(site: object, apache_binary: object,
                                                  nginx_binary: object) -> None:
    """Traps: [L] is not nginx's `last` (a rule rewriting a URL to itself must not loop);
    %N comes from the last matched RewriteCond; query strings are kept, replaced, dropped."""
    root = site({".htaccess": "RewriteEngine On\n"
                              "RewriteRule ^(keep/.*)$ $1 [L]\n"
                              "RewriteCond %{HTTP_HOST} ^(www)\\.(.+)$\n"
                              "RewriteCond %{QUERY_STRING} ^id=(\\d+)$\n"
                              "RewriteRule ^item$ /items/%1.html? [R=302,L]\n"
                              "RewriteRule ^q$ /t.html?a=1 [QSA,R=302,L]\n"
                              "RewriteRule ^d$ /t.html [QSD,R=301,L]\n",
                 "keep/f.txt": "k\n", "t.html": "t\n"})
    with both(root) as pair:
        for path, headers in [("/keep/f.txt", {}), ("/keep/missing", {}),
                              ("/item?id=42", {"Host": "www.example.com"}),
                              ("/item?id=x", {"Host": "www.example.com"}),
                              ("/q?b=2", {}), ("/q", {}), ("/d?z=1", {})]:
            a, b = pair.ask(path, headers)
            assert a.status == b.status, (path, a.status, b.status)
            port_a, port_b = (str(t.port) for t in (pair.setup.original,
                                                   pair.setup.converted))
            loc_a = (a.headers.get("Location") or "").replace(port_a, "PORT")
            loc_b = (b.headers.get("Location") or "").replace(port_b, "PORT")
            assert loc_a == loc_b, (path, loc_a, loc_b)


def test_untranslatable_denies_and_is_announced(site: object, apache_binary: object,
                                                nginx_binary: object) -> None:
    root = site({".htaccess": "RewriteEngine On\nRewriteRule ^t$ t.html [B,L]\n",
                 "t.html": "t\n"})
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0, report.summary()
    announced = [r for r in report.differing if r.probe.path == "/t"]
    assert announced and all(r.announced for r in announced)
    assert announced[0].original.status == 200 and announced[0].converted.status == 403


def test_an_unannounced_difference_fails(monkeypatch: pytest.MonkeyPatch,
                                         apache_binary: object, nginx_binary: object) -> None:
    """verify must be able to fail: the converter 'forgets' the access denials."""
    original = render.Renderer._access_lines

    def forgetful(self: render.Renderer, scope: object, settings: object,
                  source: object = None) -> list[str]:
        lines = original(self, scope, settings, source)  # type: ignore[arg-type]
        return [line for line in lines if not line.startswith("return 403")]

    monkeypatch.setattr(render.Renderer, "_access_lines", forgetful)
    code, out, _err = run_cli(str(DEMO))
    assert code == 1 and "DIFFERENT: " in out
    assert "/private/" in out


def test_https_status_rules_and_etag(site: object, apache_binary: object,
                                     nginx_binary: object) -> None:
    """%{HTTPS} (Apache's on/off through a map), [R=404] without a substitution, Header
    unset ETag — translated, so nothing may even be announced."""
    root = site({".htaccess": "RewriteEngine On\n"
                              "RewriteCond %{HTTPS} off\n"
                              "RewriteRule ^secure/ https://%{HTTP_HOST}%{REQUEST_URI} "
                              "[R=301,L]\n"
                              "RewriteRule ^(?:tests|lib)/ - [R=404,L]\n"
                              "Header unset ETag\n",
                 "secure/a.html": "a\n", "tests/t.txt": "t\n", "f.txt": "f\n"})
    report = verify(VerifyRequest(target="nginx", docroot=root,
                                  requests=None, max_requests=500))
    # but for a %{REQUEST_URI} with a '%' (…) Apache %-escapes in the Location: 403, announced
    assert report.exit_code == 0 and not [
        r for r in report.differing if r.converted.status != 403 or "%" not in r.probe.path
    ], report.summary()
    assert all(n.reason.startswith("an [R] target with ${uri} ") and n.answer == 403
               for n in report.conversion.untranslatable), report.conversion.untranslatable
    with both(root) as pair:
        for path, status in [("/secure/a.html", 301), ("/tests/t.txt", 404), ("/f.txt", 200)]:
            a, b = pair.ask(path)
            assert a.status == b.status == status, path
        a, b = pair.ask("/f.txt")
        assert "ETag" not in a.headers and "ETag" not in b.headers


def test_checks_run_again_after_an_internal_redirect(site: object, apache_binary: object,
                                                      nginx_binary: object) -> None:
    """An index file or an error document reached by an internal redirect is checked again
    (Apache: a sub-request / internal redirect; nginx: maps are `volatile`)."""
    root = site({".htaccess": "ErrorDocument 403 /errors/403.html\n",
                 "errors/403.html": "custom 403\n",
                 "denied/.htaccess": "<Files index.html>\nRequire all denied\n</Files>\n",
                 "denied/index.html": "must not be served\n"})
    with both(root) as pair:
        for path in ("/denied/", "/denied/index.html", "/.htaccess"):
            a, b = pair.ask(path)
            assert (a.status, a.body) == (b.status, b.body) == (403, b"custom 403\n"), path


def spellings(path: str, rng: random.Random, count: int) -> list[str]:
    """*count* other spellings of *path*: %-encoded characters (either case of hex), ``./``,
    ``//``, ``x/../``, ``%2e``/``%2f`` for dots and slashes, a trailing slash or query."""
    out = []
    for _ in range(count):
        parts = []
        for ch in path:
            roll = rng.random()
            if ch == "/" and roll < 0.15:
                parts.append(rng.choice(["//", "/./", "/x/../", "/%2e/", "/%2f"]))
            elif ch != "/" and roll < 0.3:
                code = f"%{ord(ch):02x}"
                parts.append(code.upper() if rng.random() < 0.5 else code)
            else:
                parts.append(ch)
        text = "".join(parts)
        tail = rng.random()
        text += "/" if tail < 0.1 else "?a=1" if tail < 0.2 else "/x" if tail < 0.3 else ""
        out.append(text)
    return out


def test_random_spellings_of_denied_paths_are_never_served(site: object,
                                                           apache_binary: object,
                                                           nginx_binary: object) -> None:
    """Never looser, on 240 generated spellings (seeded): nginx answers 200 only where
    Apache does."""
    root = site({
        ".htaccess": '<FilesMatch "\\.(sql|bak)$">\nRequire all denied\n</FilesMatch>\n'
                     "RewriteEngine On\nRewriteRule (^|/)\\.(?!well-known/) - [F]\n"
                     "RewriteCond %{REQUEST_FILENAME} !-f\nRewriteCond %{REQUEST_FILENAME} !-d\n"
                     "RewriteRule . index.php [L]\n",
        "index.php": "fc\n", "db.sql": "dump\n", "a/old.bak": "b\n", ".env": "SECRET\n",
        ".git/config": "[core]\n", ".well-known/ok.txt": "ok\n",
        "private/.htaccess": "Require all denied\n", "private/data.txt": "secret\n",
    })
    rng = random.Random(12)
    paths = [p for target in ("/db.sql", "/a/old.bak", "/.env", "/.git/config",
                              "/private/data.txt", "/.htaccess")
             for p in spellings(target, rng, 40)]
    with both(root) as pair:
        served = []
        for path in paths:
            a, b = pair.ask(path)
            if b.status == 200 and a.status != 200:
                served.append((path, a.status, b.body[:20]))
        assert served == []


@needs_corpus
@pytest.mark.corpus
def test_config_mode_one_server_per_virtual_host(apache_binary: object,
                                                 nginx_binary: object) -> None:
    """--config: every corpus file as the root .htaccess of its own name-based
    <VirtualHost>, against one nginx with a server { } per virtual host."""
    parent, config, used = corpus_vhosts()
    try:
        report = verify(VerifyRequest(target="nginx", config=config, max_requests=4000,
                                      timeout=600))
    finally:
        shutil.rmtree(parent, ignore_errors=True)
    assert report.exit_code == 0, report.summary()
    assert report.compared > 2000
    assert len(report.conversion.docroots) == len(used)


def test_config_mode_on_the_command_line() -> None:
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", "--config",
                                      str(FIXTURES / "demo-httpd.conf")])
    assert result.exit_code == 0, result.output
    assert result.stdout.count("\nserver {") == 1 and "server_name demo.local;" in result.stdout
    # <Directory demo-site> is relative: Apache reads it from / (lint CTX008), so the
    # docroot stays under <Directory /> Require all denied — and so does nginx
    assert "return 403;" in result.stdout


def test_access_by_client_address(site: object, apache_binary: object,
                                  nginx_binary: object) -> None:
    """Require ip / Allow from: a geo map checked before the rules (Apache checks access
    before its per-directory rewriting); the tests' client is 127.0.0.1."""
    root = site({".htaccess": "RewriteEngine On\nRewriteRule ^(in|out)/go$ /t.html [R=302,L]\n",
                 "t.html": "t\n",
                 "in/.htaccess": "Require ip 127.0.0.0/8 10.1.2.3\n", "in/f.txt": "in\n",
                 "out/.htaccess": "Require ip 10.1.2.3 192.168.0.0/16\n", "out/f.txt": "o\n",
                 "old/.htaccess": "Order deny,allow\nDeny from all\nAllow from 10.0\n",
                 "old/f.txt": "old\n"})
    conversion_text = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)]).stdout
    assert "geo $confmig_map" in conversion_text and "untranslatable" not in conversion_text
    with both(root) as pair:
        for path, status in [("/in/f.txt", 200), ("/out/f.txt", 403), ("/old/f.txt", 403),
                             ("/in/go", 302), ("/out/go", 403)]:
            a, b = pair.ask(path)
            assert a.status == b.status == status, (path, a.status, b.status)


def test_addcharset_by_type(site: object, apache_binary: object, nginx_binary: object) -> None:
    """AddCharset is per extension in Apache and per type in nginx: translated as a type
    with its charset (h5bp's form; more in tests/nginx/test_policy_charset.py)."""
    files = {"a.css": "a{}\n", "b.js": "1;\n", "c.txt": "c\n", "d.html": "<p>\n",
             "e.png": "png\n", "f.json": "{}\n"}
    exact = site({**files, ".htaccess": "AddDefaultCharset utf-8\n"
                                        "AddCharset utf-8 .css .js .json\n"})
    report = verify(VerifyRequest(target="nginx", docroot=exact))
    assert report.exit_code == 0 and not report.differing, report.summary()
    assert not report.conversion.untranslatable
    with both(exact) as pair:
        for path in ("/a.css", "/b.js", "/c.txt", "/d.html", "/e.png", "/f.json"):
            a, b = pair.ask(path)
            assert a.headers.get("Content-Type") == b.headers.get("Content-Type"), path
    alone = site({**files, ".htaccess": "AddCharset utf-8 .css\n"})
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(alone)])
    assert result.exit_code == 0 and '"text/css; charset=utf-8" css;' in result.stdout


def test_well_known_exception_survives_the_dotfile_denial(site: object, apache_binary: object,
                                                          nginx_binary: object) -> None:
    """Trap: a denial for a whole prefix must not hide the /.well-known/ exception."""
    root = site({".htaccess": "RewriteEngine On\nRewriteRule \"(^|/)\\.(?!well-known/)\" - [F]\n",
                 ".well-known/acme-challenge/token": "tok\n", ".git/config": "[core]\n",
                 "a/.env": "SECRET\n", "a/b.txt": "b\n"})
    with both(root) as pair:
        for path, status in [("/.well-known/acme-challenge/token", 200), ("/.git/config", 403),
                             ("/a/.env", 403), ("/a/b.txt", 200), ("/.well-known", 403),
                             ("/.git", 403)]:
            a, b = pair.ask(path)
            assert a.status == b.status == status, (path, a.status, b.status)


def test_depth_ten_tree(apache_binary: object, nginx_binary: object) -> None:
    """The benchmark's deep tree: an .htaccess at the deepest level and the levels above."""
    root = deep_site()
    try:
        report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=2000))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert report.exit_code == 0, report.summary()
    assert report.compared > 100
    # only Header set Cache-Control beside mod_expires is announced (nginx would send both)
    assert {n.directive for n in report.conversion.untranslatable} == {"Header"}


def test_headers_keyed_on_the_content_type(site: object, apache_binary: object,
                                           nginx_binary: object) -> None:
    """Trap: headers keyed on the MIME type (h5bp's X-Frame-Options on text/html, CSP on
    HTML/JS/PDF/XML) — a map on $sent_http_content_type, always and onsuccess."""
    root = site({".htaccess":
                 'Header always set X-Frame-Options "DENY" '
                 '"expr=%{CONTENT_TYPE} =~ m#text/html#i"\n'
                 'Header set X-CSP "default-src \'self\'" '
                 '"expr=%{CONTENT_TYPE} =~ m#text\\/(html|javascript)|application\\/pdf|xml#i"\n'
                 "ErrorDocument 404 /404.html\n",
                 "a.html": "<p>\n", "b.css": "b{}\n", "c.js": "1;\n", "d.pdf": "%PDF\n",
                 "e.txt": "e\n", "404.html": "<p>not found\n"})
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0 and not report.differing, report.summary()
    assert not report.conversion.untranslatable
    with both(root) as pair:
        for path in ("/a.html", "/b.css", "/c.js", "/d.pdf", "/e.txt", "/missing", "/"):
            a, b = pair.ask(path)
            for name in ("X-Frame-Options", "X-CSP"):
                assert a.headers.get(name) == b.headers.get(name), (path, name)


@needs_corpus
def test_wordpress_is_idiomatic_and_exact(site: object, apache_binary: object,
                                          nginx_binary: object) -> None:
    """WordPress's generated .htaccess: the Authorization trick is left out (scripts only;
    nginx's fastcgi_params pass it), the front controller is try_files, index.php served as
    it is — nothing untranslatable, verified."""
    text = (CORPUS / "wordpress/generated/.htaccess").read_text(encoding="utf-8")
    root = site({".htaccess": text, "index.php": "<?php // wp\n", "wp-login.php": "l\n",
                 "wp-admin/index.php": "a\n", "wp-content/uploads/a.jpg": "j\n",
                 "wp-content/themes/t/style.css": "c{}\n"})
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 0, result.stderr
    assert_front_controller(result.stdout, "/index.php")
    assert 'location = "/index.php"' in result.stdout
    report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=600))
    assert report.exit_code == 0 and not report.differing, report.summary()
