"""``Options FollowSymLinks`` / ``SymLinksIfOwnerMatch`` and symlinks (to a file of the same
owner, of another owner, to a directory, to nothing), with and without per-directory
rewrite rules (which need one of the two options), on real Apache and nginx."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.servers import make_docroot
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

OPTIONS = {"follow": "", "none": "Options -FollowSymLinks\n",
           "owner": "Options -FollowSymLinks +SymLinksIfOwnerMatch\n"}
RULES = "RewriteEngine On\nRewriteRule ^x$ a.html [L]\n"
#: nobody: a user other than the one owning the docroot's files (the tests run as root in CI)
OTHER_UID = 65534


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-ngsym-", files={"a.html": "a\n", "d/b.html": "b\n",
                                                         "c.html": "c\n"})
    os.symlink(made / "a.html", made / "own.html")
    os.symlink(made / "d", made / "ld")
    os.symlink(made / "gone.html", made / "dangling.html")
    os.symlink(made / "d" / "gone", made / "d" / "dangling")
    os.symlink(made / "c.html", made / "other.html")
    if os.geteuid() == 0:
        os.chown(made / "c.html", OTHER_UID, -1)  # served by both; linked across owners
    yield made
    shutil.rmtree(made, ignore_errors=True)


def _write(root: Path, text: str) -> None:
    (root / ".htaccess").write_text(text)
    (root / ".htaccess").chmod(0o644)


def _expected(options: str, rules: bool) -> dict[str, int]:
    """What Apache answers (asserted, so a change on either side shows)."""
    follow = {"/a.html": 200, "/own.html": 200, "/ld/b.html": 200, "/other.html": 200,
              "/dangling.html": 403, "/dangling.html/x": 403, "/d/dangling": 403,
              "/missing.html": 404, "/d/b.html": 200}
    if options == "none":
        return {url: 403 if rules else (403 if url in ("/own.html", "/ld/b.html",
                                                      "/other.html") else status)
                for url, status in follow.items()}
    if options == "owner":
        other = 403 if os.geteuid() == 0 else 200
        return {**follow, "/other.html": other}
    return follow


@pytest.mark.parametrize("rules", [False, True], ids=["static", "rules"])
@pytest.mark.parametrize("options", sorted(OPTIONS))
def test_symlinks_answer_as_apache(root: Path, options: str, rules: bool,
                                   apache_binary: object, nginx_binary: object) -> None:
    _write(root, OPTIONS[options] + (RULES if rules else ""))
    converted = convert_docroot(root)
    text = converted.output.body
    assert converted.result.untranslatable == [], converted.result.untranslatable
    assert ("disable_symlinks on;" in text) == (options == "none")
    assert ("disable_symlinks if_not_owner;" in text) == (options == "owner")
    urls = _expected(options, rules)
    if rules:
        urls["/x"] = 403 if options == "none" else 200
    with both(root) as pair:
        for url, status in urls.items():
            a, b = pair.ask(url)
            assert (a.status, b.status) == (status, status), url


def test_rules_without_either_option_are_403_in_the_output(root: Path) -> None:
    _write(root, OPTIONS["none"] + RULES)
    output = convert_docroot(root).output
    assert "mod_rewrite forbids every request (403)" in output.body
    lines = [line.strip() for line in output.body.splitlines()]
    assert "return 403;" in lines and not any(line.endswith(" last;") for line in lines)
    # a file test on a map that matched nothing must not ask nginx about "" (with
    # disable_symlinks nginx opens an empty name as its working directory: -d is true)
    assert "if (-d $confmig_map" in output.body
    assert 'default "/dev/null/confmig-none";' in output.http
