"""The engine: contexts, AllowOverride in force, parse errors, crashing rules, exit status."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.lint import rule as rule_module
from confmig.lint.config import Settings
from confmig.lint.context import FileContext, ServerLayout
from confmig.lint.engine import INTERNAL_CODE, lint_paths, lint_text
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule
from confmig.lint.testing import codes
from confmig.syntax import parse_text

NO_CACHE = Settings(cache=False)


def layout(text: str) -> ServerLayout:
    return ServerLayout.from_nodes(parse_text(text, "httpd.conf").nodes, "/etc/apache2")


SERVER = """
<Directory />
    AllowOverride None
</Directory>
<Directory /var/www>
    AllowOverride FileInfo
    AllowOverrideList Redirect
</Directory>
<Directory /var/www/html/blog>
    AllowOverride AuthConfig Options=Indexes
</Directory>
<Directory /var/www/*/shop>
    AllowOverride Limit
</Directory>
<DirectoryMatch "^/var/www/html/regex">
    AllowOverride All
</DirectoryMatch>
<Directory ~ "^/var/www/html/tilde">
    AllowOverride All
</Directory>
<VirtualHost *:80>
    DocumentRoot /srv/site
    <Directory /srv/site/app>
        AllowOverride All
    </Directory>
</VirtualHost>
<Directory /srv>
    AllowOverride Indexes
</Directory>
"""


@pytest.mark.parametrize(("directory", "words", "listed"), [
    ("/", ("None",), ()),
    ("/tmp", ("None",), ()),
    ("/var/www", ("FileInfo",), ("Redirect",)),
    ("/var/www/html", ("FileInfo",), ("Redirect",)),
    ("/var/www/html/blog/2024", ("AuthConfig", "Options=Indexes"), ("Redirect",)),
    ("/var/www/html/shop", ("Limit",), ("Redirect",)),
    ("/var/www/html/regex", ("FileInfo",), ("Redirect",)),  # DirectoryMatch: not for .htaccess
    ("/var/www/html/tilde", ("FileInfo",), ("Redirect",)),
    ("/srv/site", ("Indexes",), ()),
    ("/srv/site/app/x", ("All",), ()),  # the vhost's section: its DocumentRoot holds the dir
    ("/srv/other", ("Indexes",), ()),
])
def test_allow_override_in_force(directory: str, words: tuple[str, ...],
                                 listed: tuple[str, ...]) -> None:
    found = layout(SERVER).overrides_for(directory)
    assert found.words == words and found.list_words == listed


def test_vhost_sections_apply_only_under_its_document_root() -> None:
    text = ("<VirtualHost *:80>\n DocumentRoot /srv/a\n <Directory /srv/b>\n"
            "  AllowOverride All\n </Directory>\n</VirtualHost>\n")
    assert layout(text).overrides_for("/srv/b").words == ()


def test_relative_directory_is_taken_from_slash_not_server_root() -> None:
    # dirsection merges it with the working directory, / once daemonised (see CTX008 and
    # tests/lint/test_relative_directory_env.py); DocumentRoot is the one ServerRoot-relative
    found = layout("<Directory www>\n AllowOverride All\n</Directory>\n")
    assert found.overrides_for("/www/x").words == ("All",)
    assert found.overrides_for("/etc/apache2/www/x").words == ()


def test_later_section_of_equal_depth_wins() -> None:
    text = ("<Directory /a/b>\n AllowOverride All\n</Directory>\n"
            "<Directory /a/b>\n AllowOverride None\n</Directory>\n")
    assert layout(text).overrides_for("/a/b").words == ("None",)
    assert layout(text).overrides_for("/a/b").none


def write(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


def test_lint_docroot_with_config_uses_its_overrides(tmp_path: Path) -> None:
    site = write(tmp_path / "site", {".htaccess": "RewriteEngine On\n",
                                     "blog/.htaccess": "Header set X-A 1\n",
                                     "open/.htaccess": "Header set X-A 1\n"})
    conf = tmp_path / "httpd.conf"
    conf.write_text(f"LoadModule rewrite_module modules/mod_rewrite.so\n"
                    f"LoadModule headers_module modules/mod_headers.so\n"
                    f"DocumentRoot {site}\n<Directory {site}>\n AllowOverride AuthConfig\n"
                    f"</Directory>\n<Directory {site}/open>\n AllowOverride FileInfo\n"
                    f"</Directory>\n<Directory {site}/blog>\n AllowOverride None\n"
                    "</Directory>\n")
    result = lint_paths([site], conf, settings=NO_CACHE)
    by_file = {(Path(f.file).parent.name, f.code) for f in result.findings}
    assert ("site", "CTX002") in by_file
    assert ("blog", "CTX003") in by_file
    assert not any(d == "open" for d, _ in by_file)
    assert result.exit_code == 1
    assert any("server config" in n for n in result.notes)


def test_checkout_linted_as_the_configs_document_root(tmp_path: Path) -> None:
    site = write(tmp_path / "checkout", {".htaccess": "Header set X-A 1\n"})
    conf = tmp_path / "httpd.conf"
    conf.write_text("LoadModule headers_module modules/mod_headers.so\n"
                    "DocumentRoot /var/www/html\n<Directory /var/www/html>\n"
                    " AllowOverride AuthConfig\n</Directory>\n")
    result = lint_paths([site], conf, settings=NO_CACHE)
    assert codes(result.findings) == ["CTX002"]
    assert any("read as DocumentRoot /var/www/html" in n for n in result.notes)


def test_without_config_the_header_says_what_is_assumed(tmp_path: Path) -> None:
    site = write(tmp_path, {".htaccess": "Options -Indexes\n"})
    result = lint_paths([site], settings=NO_CACHE)
    assert result.findings == [] and result.exit_code == 0
    assert "assuming Debian's defaults with AllowOverride All" in result.notes[0]


def test_parse_error_is_a_finding_never_no_issues(tmp_path: Path) -> None:
    site = write(tmp_path, {".htaccess": "<Files x>\nRequire all denied\n"})
    result = lint_paths([site], settings=Settings(select=("RW",), cache=False))
    assert codes(result.findings) == ["SYN001"]
    assert "<Files> was not closed" in result.findings[0].message
    assert result.exit_code == 1


def test_missing_path_is_exit_2(tmp_path: Path) -> None:
    result = lint_paths([tmp_path / "nope"], settings=NO_CACHE)
    assert result.exit_code == 2 and "no such file" in result.errors[0]


def test_server_config_path_is_linted_with_its_includes(tmp_path: Path) -> None:
    write(tmp_path, {"httpd.conf": "Include conf.d/*.conf\nRequire all granted\n",
                     "conf.d/a.conf": "<Directory /x>\n ServerName a\n</Directory>\n"})
    result = lint_paths([tmp_path / "httpd.conf"], settings=NO_CACHE)
    found = {(Path(f.file).name, f.code) for f in result.findings}
    assert found == {("httpd.conf", "CTX005"), ("a.conf", "CTX004")}
    assert len(result.files) == 2


class Boom(Rule):
    code = "ZZZ999"
    name = "boom"
    summary = "always raises"
    rationale = bad = good = "x"

    def check_file(self, ctx: FileContext) -> Iterator[Finding]:
        raise RuntimeError("kaput")


@pytest.fixture
def boom() -> Iterator[None]:
    rule_module._RULES[Boom.code] = Boom
    yield
    del rule_module._RULES[Boom.code]


def test_a_crashing_rule_is_an_internal_error_not_a_crash(tmp_path: Path, boom: None) -> None:
    site = write(tmp_path, {".htaccess": "FooBar on\n"})
    result = lint_paths([site], settings=NO_CACHE)
    internal = [f for f in result.findings if f.code == INTERNAL_CODE]
    assert len(internal) == 1 and "ZZZ999 (boom)" in internal[0].message
    assert "RuntimeError: kaput" in internal[0].message
    assert "SYN003" in codes(result.findings)  # the other rules still ran
    assert result.exit_code == 2


def test_lint_text_server_kind_and_modules() -> None:
    assert codes(lint_text("RewriteEngine On\n", modules=["mod_rewrite"])) == []
    found = lint_text("RewriteEngine On\n", modules=["mod_mime"])
    assert codes(found) == ["SYN003"] and "needs mod_rewrite (not loaded)" in found[0].message
    assert codes(lint_text("Require all granted\n", kind="server",
                           filename="httpd.conf")) == ["CTX005"]


def test_process_pool_gives_the_same_findings(tmp_path: Path) -> None:
    for i in range(420):
        text = ("RewriteEngin On\n" if i % 7 == 0 else "Options -Indexes\n") + f"# {i}\n"
        write(tmp_path / f"d{i // 20}" / f"n{i}", {".htaccess": text})
    # DUP: a tree rule, so the workers also send back the loaded files
    settings = Settings(select=("SYN", "CTX", "DUP"), cache=False)
    serial = lint_paths([tmp_path], settings=settings, jobs=1)
    pooled = lint_paths([tmp_path], settings=settings, jobs=2)
    assert pooled.findings == serial.findings and len(pooled.files) == 420
    assert codes(serial.findings).count("SYN003") == 60
