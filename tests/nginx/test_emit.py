"""The nginx output itself: nginx -t accepts it, it is deterministic, it names its sources,
and it avoids the emission traps of ../shared/docs/traps.md by construction (the behaviour
is then checked on real servers in test_verify_nginx.py)."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pcre2
import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.convert.nginx import convert_docroot
from confmig.convert.nginx.regex import Untranslatable, basename, per_directory
from confmig.servers import NginxServer, make_docroot
from tests.corpus import needs_corpus
from tests.nginx.fronts import assert_front_controller
from tests.verify.sites import corpus_site

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
DEMO = FIXTURES / "demo-site"
IF_BODY = re.compile(r"\bif \((?P<cond>[^{}]*)\) \{(?P<body>[^{}]*)\}")


@pytest.fixture
def site() -> Iterator[object]:
    made: list[Path] = []

    def build(files: dict[str, str]) -> Path:
        root = make_docroot(prefix="confmig-emit-", files=files)
        made.append(root)
        return root

    yield build
    for root in made:
        shutil.rmtree(root, ignore_errors=True)


def nginx_accepts(conversion: object, binary: object) -> None:
    out = conversion.output  # type: ignore[attr-defined]
    ok, message = NginxServer(out.body, conversion.plan.document_root,  # type: ignore[attr-defined]
                              http_config=out.http, binary=binary).config_test()
    assert ok, message
    assert "[warn]" not in message, message


def locations(text: str, direct: bool = True) -> list[tuple[str, str]]:
    """(match, body) of every location block, nested ones included; *direct*: only the
    body's own level (not what nested blocks hold)."""
    out = []
    for m in re.finditer(r"location ([^{\n]*)\{", text):
        depth, i, body = 1, m.end(), []
        while depth:
            ch = text[i]
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
            if (depth == 1 or not direct) and depth:
                body.append(ch)
            i += 1
        out.append((m.group(1).strip(), "".join(body)))
    return out


def test_demo_site_passes_nginx_t_and_is_deterministic(nginx_binary: object) -> None:
    first = convert_docroot(DEMO)
    nginx_accepts(first, nginx_binary)
    assert convert_docroot(DEMO).result.text == first.result.text
    text = first.result.text
    assert text.count("\nserver {") == 1 and "listen 127.0.0.1:8080;" in text
    # the whole file, as Debian's stock nginx.conf includes it in http { }
    ok, message = NginxServer("", http_config=text, binary=nginx_binary).config_test()
    assert ok and "[warn]" not in message, message
    for rel in ("blog/.htaccess:8", "private/.htaccess:3", "old/.htaccess:1", ".htaccess:22"):
        assert f"{DEMO}/{rel}" in text, rel  # every block names its source file:line
    assert_front_controller(text, "/blog/index.html")


def test_cli_listen_server_name_and_output_file(tmp_path: Path) -> None:
    target = tmp_path / "site.conf"
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(DEMO), "--listen",
                                      "0.0.0.0:80", "--server-name", "example.org",
                                      "-o", str(target)])
    assert result.exit_code == 1  # the demo's assets/ Cache-Control is announced
    assert result.stdout == ""
    text = target.read_text()
    assert "listen 0.0.0.0:80;" in text and "server_name example.org;" in text
    assert f"wrote: {target}" in result.stderr
    again = CliRunner().invoke(app, ["convert", "--to", "nginx", str(DEMO), "-o", str(target)])
    assert again.exit_code == 2 and "--force" in again.stderr  # never overwritten silently


def test_add_header_is_complete_in_every_location_that_has_one() -> None:
    """Trap: a level with its own add_header drops every inherited one."""
    text = convert_docroot(DEMO).result.text
    with_headers = [(m, body) for m, body in locations(text) if "add_header" in body]
    assert len(with_headers) >= 6
    for match, body in with_headers:
        assert "add_header X-Content-Type-Options" in body, match
        assert "add_header X-Frame-Options" in body, match


def test_types_block_is_the_whole_map_plus_addtype(site: object,
                                                   nginx_binary: object) -> None:
    """Trap: types { } replaces the inherited map."""
    root = site({"t/.htaccess": "AddType application/x-confmig .cfm\n", "t/a.cfm": "x\n"})
    conversion = convert_docroot(root)
    nginx_accepts(conversion, nginx_binary)
    body = dict(locations(conversion.result.text, direct=False))['^~ "/t/"']
    assert "application/x-confmig cfm;" in body
    assert re.search(r"text/html [^;]*\bhtml\b", body) and "image/png png;" in body


def test_file_denials_hold_in_every_regex_location(site: object) -> None:
    """Trap: only the first matching regex location is used — so the <Files> denials are
    not locations of their own but the first lines of every location, the nested one for
    another <FilesMatch> included (in a location of their own inside each, for the URLs
    they can deny: tests/nginx/test_files_denial_candidates.py)."""
    root = site({".htaccess": '<FilesMatch "\\.txt$">\nHeader set X-T 1\n</FilesMatch>\n'
                              '<Files "secret.txt">\nRequire all denied\n</Files>\n'})
    text = convert_docroot(root).result.text
    blocks = [b for b in text.split("map $uri ")[1:] if "secret\\.txt\\z" in b.split("}")[0]]
    denial = blocks[0].split()[0]
    nested = dict(locations(text, direct=False))['~ "(?s)/(?=[^/]*\\z)[^/]*?(?:\\.txt\\z)"']
    candidate = [body for match, body in locations(nested, direct=False) if "secret" in match]
    assert len(candidate) == 1 and f"if (-d {denial})" not in nested.split("location")[0]
    assert candidate[0].index(f"if (-d {denial}) {{ return 403; }}") < \
        candidate[0].index("add_header")


def test_if_blocks_only_hold_what_nginx_allows_there() -> None:
    """Trap: `if` inside location is safe only with return/rewrite (and set/break)."""
    text = convert_docroot(DEMO).result.text
    bodies = [m.group("body") for m in IF_BODY.finditer(text)]
    assert bodies
    for body in bodies:
        for statement in filter(None, (s.strip() for s in body.split(";"))):
            assert statement.split()[0] in ("set", "return", "rewrite", "break"), statement


@pytest.mark.parametrize(("pattern", "prefix", "nocase", "stripped"), [
    ("^index\\.php$", "/blog/", False, ["index.php", "xindex.php", "index.php/x", "Index.php"]),
    ("(^|/)\\.(?!well-known/)", "/", False, [".git/x", "a/.env", ".well-known/a", "a.b"]),
    ("^(.*)\\.htm$", "/a b/", True, ["x.htm", "x.HTM", "d/x.htm", "x.html"]),
    ("^$", "/sub/", False, ["", "x"]),
    ("x$", "/", False, ["x", "x\n", "ax"]),
    ("^a|^b", "/p/", False, ["a", "b", "ca", "cb"]),
])
def test_per_directory_prefix_is_applied_exactly(pattern: str, prefix: str, nocase: bool,
                                                 stripped: list[str]) -> None:
    """Trap: in .htaccess the pattern never sees the directory prefix; the nginx regex
    matches the whole $uri with the same result and the same captures."""
    apache = pcre2.compile(pattern, pcre2.DOTALL | 0x10 | (pcre2.IGNORECASE if nocase else 0))
    nginx = pcre2.compile(per_directory(pattern, prefix, nocase))
    for rest in stripped:
        a, b = apache.search(rest), nginx.search(prefix + rest)
        assert (a is None) == (b is None), (rest, nginx.pattern)
        if a is not None and b is not None:
            groups = apache.groups
            assert [a.group(i) for i in range(1, groups + 1)] == \
                [b.group(i) for i in range(1, groups + 1)], rest


def test_files_patterns_see_only_the_last_component() -> None:
    regex = pcre2.compile(basename("^\\.ht"))
    assert regex.search("/a/.htaccess") and regex.search("/.htpasswd")
    assert not regex.search("/.ht/x") and not regex.search("/a.htaccess")
    with pytest.raises(Untranslatable):
        basename("(?<!robots)\\.txt")


def test_untranslatable_is_a_comment_a_stderr_line_and_exit_1(site: object,
                                                              tmp_path: Path) -> None:
    root = site({"m/.htaccess": "RewriteEngine On\n"
                                "RewriteRule ^x$ y.html [B,L]\n"
                                # a variable mod_deflate reads (one only scripts read
                                # is a note without --php-fpm: test_policy_requestheader)
                                "SetEnvIf User-Agent bot no-gzip\n"})
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 1
    where = f"{root}/m/.htaccess"
    assert f"untranslatable: {where}:2: RewriteRule: [B]/[BNP]" in result.stderr
    assert f"untranslatable: {where}:3: SetEnvIf" in result.stderr
    text = result.stdout
    assert f"# untranslatable: {where}:2 RewriteRule" in text  # a comment at its place
    assert 'if ($uri ~ "(?s)^/m/x\\z") { return 403; }' in text  # denied, never looser
    target = tmp_path / "out.conf"
    strict = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root), "--strict",
                                      "-o", str(target)])
    assert strict.exit_code == 1 and strict.stdout == "" and not target.exists()
    assert "untranslatable:" in strict.stderr


@needs_corpus
@pytest.mark.corpus
def test_every_corpus_htaccess_converts_and_passes_nginx_t(nginx_binary: object) -> None:
    root, used = corpus_site()
    try:
        conversion = convert_docroot(root)
        nginx_accepts(conversion, nginx_binary)
        bodies = [m.group("body") for m in IF_BODY.finditer(conversion.result.text)]
        for body in bodies:
            for statement in filter(None, (s.strip() for s in body.split(";"))):
                assert statement.split()[0] in ("set", "return", "rewrite", "break")
        for note in conversion.result.untranslatable:
            assert note.file and note.reason and note.scope  # file:line and why, scoped
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert len(used) >= 30
