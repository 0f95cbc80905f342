"""IndexIgnore and mod_autoindex's other directives (issue 12) change only a listing: where
nothing at or below their directory is listed (``Options -Indexes``), they change nothing a
client sees — a note, not an untranslatable line; where a listing is made there, nginx's
autoindex would show what Apache hides: still announced.  Real Apache against real nginx."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.verify import VerifyRequest, verify
from tests.conftest import SiteMaker
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

FILES = {"a.txt": "a\n", "b.html": "<p>\n", "sub/c.txt": "c\n", "sub/deeper/d.txt": "d\n"}
PATHS = ["/", "/sub/", "/sub/deeper/", "/a.txt", "/sub/c.txt"]


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
        case: str, make_site: SiteMaker, apache_binary: object, nginx_binary: object) -> None:
    root = make_site({**FILES, ".htaccess": UNLISTED[case]})
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


def test_indexignore_where_apache_lists_stays_announced(make_site: SiteMaker, apache_binary: object,
                                                       nginx_binary: object) -> None:
    """Debian's ``Options Indexes`` in /var/www: Apache's listing leaves out the names,
    nginx's autoindex would show them."""
    root = make_site({**FILES, ".htaccess": "IndexIgnore *.txt\n"})
    code, stderr = convert(root)
    assert code == 1
    assert any(line.startswith("untranslatable:") and "IndexIgnore" in line
               for line in stderr.splitlines()), stderr
    with both(root) as pair:
        a, b = pair.ask("/sub/")
        assert a.status == b.status == 200
        assert "c.txt" not in a.text and "c.txt" in b.text  # what it changes


def test_a_listing_below_keeps_it_announced(make_site: SiteMaker) -> None:
    """``Options -Indexes`` where the line is, ``+Indexes`` in a subdirectory, which
    inherits the IndexIgnore: still announced."""
    root = make_site({**FILES, ".htaccess": "Options -Indexes\nIndexIgnore *.txt\n",
                 "sub/.htaccess": "Options +Indexes\n"})
    code, stderr = convert(root)
    assert code == 1
    assert any(line.startswith("untranslatable:") and "IndexIgnore" in line
               for line in stderr.splitlines()), stderr
