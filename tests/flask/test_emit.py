"""confmig convert --to flask without servers: the module a reviewer gets (ruff-clean,
deterministic, standalone, every rule with its file:line), which patterns need pcre2, what is
announced and how the app answers where it cannot be exact (403, never looser); the script
hook and register(app) — through Flask's test client."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app as cli
from confmig.convert.flask import convert_docroot
from confmig.convert.flask.regex import python_form
from confmig.servers import make_docroot
from tests.corpus import CORPUS, needs_corpus
from tests.flask.generated import load, ruff
from tests.verify.sites import corpus_site, deep_site, nested_rewrite_site

DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo-site"
CORPUS_PRESENT = CORPUS.is_dir()


@pytest.fixture
def site() -> Iterator[object]:
    made: list[Path] = []

    def build(files: dict[str, str]) -> Path:
        root = make_docroot(prefix="confmig-flask-", files=files)
        made.append(root)
        return root

    yield build
    for root in made:
        shutil.rmtree(root, ignore_errors=True)


def test_demo_module_is_clean_deterministic_standalone_and_sourced(tmp_path: Path) -> None:
    first = convert_docroot(DEMO)
    text = first.result.text
    assert text == convert_docroot(DEMO).result.text
    assert ruff(text, tmp_path) == []
    assert not re.search(r"^\s*(import|from)\s+confmig", text, re.M)
    # no pattern of the demo needs pcre2 (imported only by a pattern that does)
    assert "pcre2 for" not in text and not first.output.uses_pcre2
    assert "from flask import" in text and "def create_app(" in text
    assert "def register(" in text and "\napp = create_app(" in text
    # every rule, condition, header, <Files> and ErrorDocument names its file:line
    root = first.plan.document_root
    for scope in first.plan.scopes:
        rw = scope.settings.rewrite
        for rule in rw.rules if rw is not None else ():
            d = rule.directive
            assert d is not None
            assert f"# {d.file[len(root) + 1:]}:{d.line} RewriteRule" in text
            for cond in rule.conditions:
                assert f"{cond.directive.file[len(root) + 1:]}:{cond.directive.line} " \
                       "RewriteCond" in text
    for needle in (".htaccess:8 Header always set X-Content-Type-Options",
                   ".htaccess:22 <FilesMatch", ".htaccess:5 ErrorDocument 404",
                   "old/.htaccess:1 Redirect 301", "old/.htaccess:2 RedirectMatch 302",
                   "private/.htaccess:3: denied for every client"):
        assert needle in text
    assert first.result.untranslatable == []


def test_nested_and_deep_modules_are_ruff_clean(tmp_path: Path) -> None:
    for make in (nested_rewrite_site, deep_site):
        root = make()
        try:
            text = convert_docroot(root).result.text
        finally:
            shutil.rmtree(root, ignore_errors=True)
        assert ruff(text, tmp_path) == []


@needs_corpus
@pytest.mark.corpus
def test_corpus_module_is_ruff_clean_and_imports(tmp_path: Path) -> None:
    root, _ = corpus_site()
    try:
        conversion = convert_docroot(root)
        module = load(conversion.result.text, tmp_path)
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert ruff(conversion.result.text, tmp_path) == []
    assert conversion.output.uses_pcre2  # grav's "(?i)…" FilesMatch
    assert "pcre2 for (?i)" in conversion.result.text
    assert len(module.SCOPES) > 30


@pytest.mark.parametrize(("pattern", "python"), [
    ("^index\\.html$", "^index\\.html\\Z"),
    ("(^|/)\\.(?!well-known/)", "(^|/)\\.(?!well-known/)"),
    ("^([a-z]+)/(\\d{2,4})/?$", "^([a-z]+)/(\\d{2,4})/?\\Z"),
    ("[$]x$", "[$]x\\Z"),  # a $ in a class is a dollar
    ("^a\\$", "^a\\$"),
    ("(?<=/)x", "(?<=/)x"),
    ("(?i)\\.(jpe?g|png)$", None),  # inline options: pcre2
    ("x\\Z", None),  # \Z also matches before a final newline in PCRE
    ("[[:alpha:]]+", None),  # POSIX class
    ("a{,3}", None),  # a literal in Apache's PCRE2, a quantifier in re
    ("a++", None),
    ("(?<name>x)", None),
    ("\\x{41}", None),
    ("\\Qa.b\\E", None),
    ("(?>a)", None),
])
def test_python_or_pcre2_per_pattern(pattern: str, python: str | None) -> None:
    assert python_form(pattern)[0] == python


def test_dollar_means_the_end_only_as_in_apache(site: object, tmp_path: Path) -> None:
    """Apache's DOLLAR_ENDONLY: ^a$ does not match "a\\n" (a %0A at the end of the URL)."""
    root = site({".htaccess": "RewriteEngine On\nRewriteRule ^a$ b.html [L]\n",  # type: ignore[operator]
                 "b.html": "b\n"})
    module = load(convert_docroot(root).result.text, tmp_path)
    client = module.create_app(str(root)).test_client()
    assert client.get("/a").get_data() == b"b\n"
    assert client.get("/a%0a").status_code == 404


UNTRANSLATABLE = {
    ".htaccess": "RewriteEngine On\n"
                 "RewriteRule ^cookie$ ok.html [CO=seen:1:example.com,L]\n"
                 "SetEnvIf User-Agent bot IS_BOT\n"
                 "RewriteCond %{ENV:IS_BOT} =1\n"
                 "RewriteRule ^bot$ ok.html [L]\n"
                 "RewriteRule ^plain$ ok.html [L]\n",
    "ok.html": "ok\n", "cookie": "the file itself\n", "other.html": "other\n",
}


def test_untranslatable_is_a_comment_a_stderr_line_and_exit_1(site: object,
                                                             tmp_path: Path) -> None:
    root = site(UNTRANSLATABLE)  # type: ignore[operator]
    result = CliRunner().invoke(cli, ["convert", "--to", "flask", str(root)])
    assert result.exit_code == 1
    htaccess = f"{root}/.htaccess"
    assert f"{htaccess}:2: RewriteRule: the flag(s) CO" in result.stderr
    assert f"{htaccess}:5: RewriteRule: %{{ENV:IS_BOT}}" in result.stderr
    assert f"{htaccess}:3: SetEnvIf" in result.stderr
    assert "untranslatable: .htaccess:2 RewriteRule: the flag(s) CO" in result.stdout
    out = tmp_path / "app.py"
    strict = CliRunner().invoke(cli, ["convert", "--to", "flask", "--strict", str(root),
                                      "-o", str(out)])
    assert strict.exit_code == 1 and not out.exists() and strict.stdout == ""


def test_an_untranslatable_rule_denies_where_it_applies(site: object, tmp_path: Path) -> None:
    """Never looser: where a rule cannot be reproduced, the app answers 403 — and only
    there."""
    root = site(UNTRANSLATABLE)  # type: ignore[operator]
    module = load(convert_docroot(root).result.text, tmp_path)
    client = module.create_app(str(root)).test_client()
    assert client.get("/cookie").status_code == 403
    assert client.get("/bot", headers={"User-Agent": "bot"}).status_code == 403
    assert client.get("/bot").status_code == 403  # the condition is not evaluated: denied
    assert client.get("/plain").get_data() == b"ok\n"
    assert client.get("/other.html").get_data() == b"other\n"


FRONT = {
    ".htaccess": "RewriteEngine On\nRewriteCond %{REQUEST_FILENAME} !-f\n"
                 "RewriteCond %{REQUEST_FILENAME} !-d\nRewriteRule . index.php [L]\n",
    "index.php": "<?php echo 'front';\n", "static.txt": "static\n",
}


def test_the_script_hook_gets_what_apache_gives_the_script(site: object,
                                                           tmp_path: Path) -> None:
    root = site(FRONT)  # type: ignore[operator]
    module = load(convert_docroot(root).result.text, tmp_path)
    seen: list[dict[str, str]] = []

    def hook(filename: str, environ: dict[str, str]) -> object:
        seen.append(environ)
        return module.Answer(200, [("Content-Type", "text/plain")], b"from the app")

    client = module.create_app(str(root), hook).test_client()
    response = client.get("/blog/post?id=3")
    assert response.get_data() == b"from the app"
    env = seen[-1]
    assert env["SCRIPT_FILENAME"] == f"{root}/index.php"
    assert env["SCRIPT_NAME"] == "/index.php" and env["PATH_INFO"] == ""
    assert env["REDIRECT_URL"] == "/blog/post" and env["REDIRECT_STATUS"] == "200"
    assert env["QUERY_STRING"] == "id=3" and env["REQUEST_URI"] == "/blog/post?id=3"
    assert client.get("/static.txt").get_data() == b"static\n"  # not the script
    # by default the hook answers as Apache without a PHP handler: the file itself
    default = module.create_app(str(root)).test_client()
    assert default.get("/blog/post").get_data() == FRONT["index.php"].encode()
    head = default.head("/static.txt")
    assert head.status_code == 200 and head.get_data() == b""
    assert head.headers["Content-Type"] == "text/plain"


def test_register_puts_the_rules_in_front_of_an_application(site: object,
                                                             tmp_path: Path) -> None:
    from flask import Flask

    root = site(FRONT)  # type: ignore[operator]
    module = load(convert_docroot(root).result.text, tmp_path)
    application = Flask("user_app")

    def hook(filename: str, environ: dict[str, str]) -> object:
        return module.Answer(201, [("Content-Type", "text/plain")],
                             f"app sees {environ['REDIRECT_URL']}".encode())

    module.register(application, module.Site(str(root), hook))
    client = application.test_client()
    assert client.get("/orders/7").get_data() == b"app sees /orders/7"
    assert client.get("/orders/7").status_code == 201
    assert client.get("/static.txt").get_data() == b"static\n"
    assert client.get("/.htaccess").status_code == 403


def test_the_readme_shows_what_convert_writes_for_the_demo() -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    section = readme.split("## `confmig convert --to flask`", 1)[1]
    blocks = [b.split("```", 1)[0] for b in section.split("```python\n")[1:]]
    block = next(b for b in blocks if "REWRITE_BLOG = Rewrite(" in b)
    assert block in convert_docroot(DEMO).result.text


def test_the_module_is_typed(tmp_path: Path) -> None:
    """``mypy --strict`` accepts the module: the corpus's (every kind of table entry, pcre2
    patterns included), or the demo's without the corpus."""
    pytest.importorskip("mypy", reason="mypy (the test extra) is not installed")
    import subprocess
    import sys

    texts = [] if CORPUS_PRESENT else [convert_docroot(DEMO).result.text]
    if CORPUS_PRESENT:
        root, _ = corpus_site()
        try:
            texts.append(convert_docroot(root).result.text)
        finally:
            shutil.rmtree(root, ignore_errors=True)
    for n, text in enumerate(texts):
        path = tmp_path / f"typed_{n}.py"
        path.write_text(text)
        proc = subprocess.run([sys.executable, "-m", "mypy", "--strict", "--no-incremental",
                               "--ignore-missing-imports", str(path)],
                              capture_output=True, text=True, check=False, timeout=600)
        assert proc.returncode == 0, proc.stdout + proc.stderr


def test_a_types_config_of_its_own_is_carried_as_a_table(site: object, tmp_path: Path) -> None:
    """The module reads /etc/mime.types at start-up as Apache does; a configuration with
    another TypesConfig gets that table written into the module."""
    assert "TYPES: dict[str, str] | None = None" in convert_docroot(DEMO).result.text
    root = site({"x.cfm": "cfm\n", "y.txt": "y\n"})  # type: ignore[operator]
    types = tmp_path / "types"
    types.write_text("text/x-confmig cfm\n# text/html txt\n")
    config = tmp_path / "httpd.conf"
    config.write_text(f"TypesConfig {types}\nDocumentRoot {root}\n"
                      f"<Directory {root}>\n    AllowOverride All\n</Directory>\n")
    text = convert_docroot(root, config).result.text
    assert '    "cfm": "text/x-confmig",\n}' in text
    assert ruff(text, tmp_path) == []
    client = load(text, tmp_path).create_app(str(root)).test_client()
    assert client.get("/x.cfm").headers["Content-Type"] == "text/x-confmig"
    assert "Content-Type" not in client.get("/y.txt").headers  # no type: Apache sends none


def test_a_wsgi_application_as_the_script(site: object, tmp_path: Path) -> None:
    """The README's recipe: the user's own WSGI application behind the rules, seeing what a
    script under Apache would see."""
    root = site(FRONT)  # type: ignore[operator]
    module = load(convert_docroot(root).result.text, tmp_path)

    def legacy(environ: dict[str, object], start_response: object) -> list[bytes]:
        start_response("200 OK", [("Content-Type", "text/plain")])  # type: ignore[operator]
        seen = " ".join(f"{k}={environ.get(k)}" for k in
                        ("SCRIPT_NAME", "PATH_INFO", "QUERY_STRING", "REDIRECT_URL"))
        return [seen.encode()]

    client = module.create_app(str(root), module.wsgi_script(legacy)).test_client()
    response = client.get("/shop/cart?id=2")
    assert response.get_data() == (b"SCRIPT_NAME=/index.php PATH_INFO= QUERY_STRING=id=2 "
                                   b"REDIRECT_URL=/shop/cart")
    assert response.headers["Content-Type"] == "text/plain"
    assert client.get("/static.txt").get_data() == b"static\n"  # Apache serves it itself
    head = client.head("/shop/cart")
    assert head.status_code == 200 and head.get_data() == b""
