"""IndexIgnore and mod_autoindex's other directives (issue 12) change only a listing: where
nothing at or below their directory is listed (``Options -Indexes``), they change nothing a
client sees — a note, not an untranslatable line; where a listing is made there, nginx's
autoindex would show what Apache hides: still announced.  Real Apache against real nginx."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.verify import VerifyRequest, verify
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

FILES = {"a.txt": "a\n", "b.html": "<p>\n", "sub/c.txt": "c\n", "sub/deeper/d.txt": "d\n"}
PATHS = ["/", "/sub/", "/sub/deeper/", "/a.txt", "/sub/c.txt"]


@pytest.fixture
def site() -> Iterator[object]:
    from confmig.servers import make_docroot

    made: list[Path] = []

    def build(files: dict[str, str]) -> Path:
        root = make_docroot(prefix="confmig-ngidx-", files=files)
        made.append(root)
        return root

    yield build
    for root in made:
        shutil.rmtree(root, ignore_errors=True)


def convert(root: Path) -> tuple[int, str]:
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    return result.exit_code, result.stderr


UNLISTED = {
    "opencart": "<IfModule mod_autoindex.c>\n  IndexIgnore *\n</IfModule>\n"
                "Options -Indexes\n",
    "options-too": "Options -Indexes\nIndexIgnore *.txt\nIndexOptions FancyIndexing\n"
                   "HeaderName HEADER.html\n",
}


@pytest.mark.parametrize("case", list(UNLISTED))
def test_listing_directives_where_nothing_is_listed_are_notes(
        case: str, site: object, apache_binary: object, nginx_binary: object) -> None:
    root = site({**FILES, ".htaccess": UNLISTED[case]})  # type: ignore[operator]
    code, stderr = convert(root)
    assert code == 0, stderr
    assert not any(line.startswith("untranslatable:") for line in stderr.splitlines())
    assert any(line.startswith("note:") and "IndexIgnore" in line and "listing" in line
               for line in stderr.splitlines()), stderr
    with both(root) as pair:
        for path in PATHS:
            a, b = pair.ask(path)
            assert a.status == b.status, (path, a.status, b.status)
        assert pair.ask("/sub/")[0].status == 403  # no listing anywhere
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0 and not report.differing, report.summary()


def test_indexignore_where_apache_lists_stays_announced(site: object, apache_binary: object,
                                                       nginx_binary: object) -> None:
    """Debian's ``Options Indexes`` in /var/www: Apache's listing leaves out the names,
    nginx's autoindex would show them."""
    root = site({**FILES, ".htaccess": "IndexIgnore *.txt\n"})  # type: ignore[operator]
    code, stderr = convert(root)
    assert code == 1
    assert any(line.startswith("untranslatable:") and "IndexIgnore" in line
               for line in stderr.splitlines()), stderr
    with both(root) as pair:
        a, b = pair.ask("/sub/")
        assert a.status == b.status == 200
        assert "c.txt" not in a.text and "c.txt" in b.text  # what it changes


def test_a_listing_below_keeps_it_announced(site: object) -> None:
    """``Options -Indexes`` where the line is, ``+Indexes`` in a subdirectory, which
    inherits the IndexIgnore: still announced."""
    root = site({**FILES, ".htaccess": "Options -Indexes\nIndexIgnore *.txt\n",  # type: ignore[operator]
                 "sub/.htaccess": "Options +Indexes\n"})
    code, stderr = convert(root)
    assert code == 1
    assert any(line.startswith("untranslatable:") and "IndexIgnore" in line
               for line in stderr.splitlines()), stderr
