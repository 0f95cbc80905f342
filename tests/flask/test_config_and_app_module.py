"""convert/verify --to flask with --config and no DOCROOT (the document root is the config's
DocumentRoot, the probes carry its virtual host's name), and --app-module: the name the module
is imported by, which its docstring's gunicorn invocation and front-controller example use —
run as written under real gunicorn."""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

import confmig.verify.flask as flask_verify
from confmig.cli import app as cli
from confmig.servers import http_get, make_docroot
from confmig.servers.gunicorn import GunicornServer

HEADERS = "LoadModule headers_module modules/mod_headers.so\n"
REWRITE = "LoadModule rewrite_module modules/mod_rewrite.so\n"


@pytest.fixture
def two_sites() -> Iterator[tuple[Path, Path, Path]]:
    """(config with two name-based virtual hosts, shop's root, blog's root)."""
    parent = make_docroot(prefix="confmig-flask-conf-", files={
        "shop/.htaccess": "RewriteEngine On\nRewriteRule ^old$ /new.html [R=301,L]\n"
                          "RewriteCond %{REQUEST_FILENAME} !-f\n"
                          "RewriteRule ^item/(.*)$ sub/page.html?id=$1 [L]\n",
        "shop/new.html": "new\n", "shop/index.html": "shop\n", "shop/sub/page.html": "page\n",
        "shop/sub/private.txt": "secret\n",
        "blog/index.html": "blog\n", "blog/post.html": "post\n",
    })
    shop, blog = parent / "shop", parent / "blog"
    vhost = ("<VirtualHost *:80>\n    ServerName {name}\n    DocumentRoot {root}\n"
             "    <Directory {root}>\n        AllowOverride All\n        Require all granted\n"
             "    </Directory>\n{extra}</VirtualHost>\n")
    config = parent / "httpd.conf"
    config.write_text(
        HEADERS + REWRITE + "ServerName flask.test\n"
        "<Directory />\n    AllowOverride None\n    Require all denied\n</Directory>\n"
        + vhost.format(name="shop.test", root=shop,
                       extra=f"    <Directory {shop}/sub>\n        Header set X-Sub yes\n"
                             "        <Files private.txt>\n            Require all denied\n"
                             "        </Files>\n    </Directory>\n")
        + vhost.format(name="blog.test", root=blog, extra=""))
    yield config, shop, blog
    shutil.rmtree(parent, ignore_errors=True)


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(cli, list(args))
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout, result.stderr


def one_site(config: Path, blog: Path) -> Path:
    """The config with the blog's virtual host left out."""
    text = config.read_text()
    single = config.with_name("shop.conf")
    single.write_text(text[:text.index("<VirtualHost *:80>\n    ServerName blog.test")])
    return single


def test_convert_takes_the_docroot_from_the_config(two_sites: tuple[Path, Path, Path]) -> None:
    config, shop, blog = two_sites
    code, out, _err = run("convert", "--to", "flask", "--config", str(one_site(config, blog)))
    assert code == 0
    assert f'DOCUMENT_ROOT = "{shop}"' in out and 'SERVER_NAME = "shop.test"' in out
    assert "shop.conf:16 Header set X-Sub yes" in out  # the <Directory> of the config
    # two virtual hosts: which one is the DOCROOT's to say (one line, exit 2)
    code, out, err = run("convert", "--to", "flask", "--config", str(config))
    assert code == 2 and out == ""
    assert "2 virtual hosts" in err and "shop.test" in err and "blog.test" in err
    code, out, _err = run("convert", "--to", "flask", "--config", str(config), str(blog))
    assert code == 0
    assert f'DOCUMENT_ROOT = "{blog}"' in out and 'SERVER_NAME = "blog.test"' in out


def test_server_level_listing_directives_are_announced(
        two_sites: tuple[Path, Path, Path]) -> None:
    """IndexOptions at server level (Debian's autoindex.conf) changes every listing: the plan
    does not carry it, the module (plain listings only) answers them 403 and says so; one in
    another tree's <Directory>, or in a false <IfModule>, does not count."""
    config, shop, blog = two_sites
    single = one_site(config, blog)
    text = single.read_text().replace(
        "ServerName flask.test\n",
        "ServerName flask.test\nIndexOptions FancyIndexing\n"
        "<Directory /srv/elsewhere>\n    IndexIgnore *.bak\n</Directory>\n"
        "<IfModule mod_nonexistent.c>\n    ReadmeName README.html\n</IfModule>\n"
    ).replace(f"    <Directory {shop}>\n", f"    <Directory {shop}>\n        Options Indexes\n")
    single.write_text(text)
    code, out, err = run("convert", "--to", "flask", "--config", str(single))
    assert code == 1
    assert f"{single}:4" in err and "IndexOptions" in err
    assert "IndexIgnore" not in err and "ReadmeName" not in err
    assert "IndexOptions: mod_autoindex's listing is reproduced without it" in out
    single.write_text(text.replace("IndexOptions FancyIndexing\n", ""))
    code, out, err = run("convert", "--to", "flask", "--config", str(single))
    assert code == 0 and "IndexOptions" not in err and "indexes=True" in out


@pytest.mark.apache
def test_verify_with_the_config_alone(two_sites: tuple[Path, Path, Path],
                                      apache_binary: object) -> None:
    config, _shop, blog = two_sites
    code, out, _err = run("verify", "--to", "flask", "--config", str(one_site(config, blog)),
                          "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["ok"], report["summary"]
    assert report["differences"] == [] and report["compared"] >= 20
    assert {"200", "301", "403", "404"} <= set(report["statuses"])
    # the blog's virtual host, asked by its name: Apache answers it (not the first one)
    code, out, _err = run("verify", "--to", "flask", "--config", str(config), str(blog),
                          "--format", "json")
    report = json.loads(out)
    assert code == 0 and report["ok"], report["summary"]
    assert report["statuses"].get("200", 0) >= 2


@pytest.mark.apache
def test_verify_with_the_config_sees_a_difference(two_sites: tuple[Path, Path, Path],
                                                  apache_binary: object,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    config, _shop, blog = two_sites
    real = flask_verify.convert_config

    def lose_the_header(*args: object, **kwargs: object) -> object:
        conversion = real(*args, **kwargs)  # type: ignore[arg-type]
        text = re.sub(r'("X-Sub",\s*)"yes"', r'\1"no"', conversion.result.text)
        assert text != conversion.result.text
        return replace(conversion, result=replace(conversion.result, text=text))

    monkeypatch.setattr(flask_verify, "convert_config", lose_the_header)
    code, out, _err = run("verify", "--to", "flask", "--config", str(one_site(config, blog)),
                          "--format", "json")
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    assert any(d["path"].startswith("/sub/") and not d["announced"]
               for d in report["differences"])


LEGACY = '''\
def application(environ, start_response):
    names = ("SCRIPT_NAME", "PATH_INFO", "QUERY_STRING", "REDIRECT_URL")
    body = "\\n".join(f"{n}={environ.get(n)}" for n in names).encode()
    start_response("200 OK", [("Content-Type", "text/plain"), ("X-Legacy", "1")])
    return [body]
'''


def docstring_example(text: str) -> str:
    """The indented code block of the generated module's docstring."""
    doc = text.split('"""', 2)[1]
    block = re.search(r":\n\n((?: {6}.*\n|\n)+)", doc)
    assert block is not None, doc
    return "\n".join(line[6:] for line in block.group(1).splitlines()) + "\n"


def test_app_module_names_the_module(tmp_path: Path) -> None:
    docroot = Path(__file__).resolve().parents[2] / "fixtures" / "demo-site"
    target = tmp_path / "shop_rules.py"
    code, _out, _err = run("convert", "--to", "flask", str(docroot), "--app-module",
                           "shop_rules", "-o", str(target))
    assert code == 0
    text = target.read_text()
    assert "`gunicorn shop_rules:app`" in text and "from shop_rules import app as application" \
        in text
    assert "import shop_rules\n" in docstring_example(text)
    # -o FILE alone names it; a name import cannot take, or a file it would not find: exit 2
    code, _out, _err = run("convert", "--to", "flask", str(docroot), "-o",
                           str(tmp_path / "front_rules.py"))
    assert code == 0 and "`gunicorn front_rules:app`" in (tmp_path / "front_rules.py").read_text()
    for args, message in ((["--app-module", "shop-rules"], "not a Python module name"),
                          (["--app-module", "class"], "not a Python module name"),
                          (["--app-module", "a.b", "-o", str(tmp_path / "c.py")], "b.py")):
        code, out, err = run("convert", "--to", "flask", str(docroot), *args)
        assert code == 2 and out == "" and message in err and len(err.splitlines()) == 1


def test_app_module_runs_as_its_docstring_says_under_gunicorn(tmp_path: Path) -> None:
    """The gunicorn invocation (NAME:app) and the front-controller example (import NAME, its
    wsgi_script around a legacy WSGI application), as the docstring writes them."""
    root = make_docroot(prefix="confmig-flask-appmod-", files={
        ".htaccess": "RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
                     "RewriteRule ^ index.php [L]\n",
        "index.php": "<?php the front controller\n", "logo.txt": "logo\n"})
    try:
        target = tmp_path / "shop_rules.py"
        code, _out, _err = run("convert", "--to", "flask", str(root), "--app-module",
                               "shop_rules", "-o", str(target))
        assert code == 0
        text = target.read_text()
        invocation = re.search(r"`gunicorn (\w+):app`", text)
        assert invocation is not None and invocation.group(1) == "shop_rules"
        with GunicornServer(text, root, module_name=invocation.group(1)) as server:
            answer = http_get(server.base_url, "/logo.txt")
            assert (answer.status, answer.body) == (200, b"logo\n")
            answer = http_get(server.base_url, "/shop/cart")  # no script handler: the file
            assert (answer.status, answer.body) == (200, b"<?php the front controller\n")
        front = docstring_example(text)
        with GunicornServer(front, root, module_name="front",
                            modules={"shop_rules": text, "legacy": LEGACY}) as server:
            answer = http_get(server.base_url, "/shop/cart?x=1")
            assert answer.status == 200 and answer.headers.get("X-Legacy") == "1"
            assert answer.body.decode().splitlines() == [
                "SCRIPT_NAME=/index.php", "PATH_INFO=", "QUERY_STRING=x=1",
                "REDIRECT_URL=/shop/cart"]
            answer = http_get(server.base_url, "/logo.txt")  # not a script: the rules serve it
            assert (answer.status, answer.body) == (200, b"logo\n")
    finally:
        shutil.rmtree(root, ignore_errors=True)
