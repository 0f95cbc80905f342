"""An internal rewrite's new path is parsed and %-decoded again by Apache: ``$1`` of
``/plain/a%253Fb`` is ``a%3Fb`` and Apache serves the file ``a?b``; ``/plain/a%252Fb`` is an
encoded slash again (AllowEncodedSlashes Off): 404.  nginx needed a 403 there; the Flask
module's rewrite engine decodes the new path again itself (``unescape_path``), so it answers
as Apache — checked request by request on real Apache and real gunicorn, with the files
``a?b``, ``a%3Fb`` and ``a%2Fb`` all present (a module serving the undecoded name would
answer with another file's body)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify
from tests.flask.pair import both

pytestmark = [pytest.mark.apache]

FILES = {".htaccess": "RewriteEngine On\nRewriteRule ^plain/(.*)$ /files/$1 [L]\n",
         "files/a?b": "question\n", "files/a%3Fb": "escaped question\n",
         "files/a%2Fb": "escaped slash\n", "files/ab": "plain\n", "files/a b": "space\n",
         "files/a%20b": "escaped space\n"}
#: request -> Apache's status and, for a 200, the file it serves
CASES: dict[str, tuple[int, str | None]] = {
    "/plain/ab": (200, "plain\n"),
    "/plain/a%3Fb": (403, None),  # $1 is a?b: real Apache answers 403 (seen, both)
    "/plain/a%253Fb": (200, "question\n"),  # decoded again: a?b, not a%3Fb
    "/plain/a%252Fb": (404, None),  # decoded again: an encoded slash
    "/plain/a%2520b": (200, "space\n"),  # decoded again: "a b", not a%20b
    "/plain/a%2562": (200, "plain\n"),  # decoded again: ab
    "/plain/a%25b": (400, None),  # $1 is a%b: a bad %-escape once decoded again
}


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-flask-dec-", files=FILES)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_the_module_decodes_the_new_path_again(root: Path, apache_binary: object) -> None:
    with both(root) as pair:
        for path, (status, body) in CASES.items():
            a, b = pair.ask(path)
            where = (path, a.status, a.body[:30], b.status, b.body[:30])
            assert a.status == status, where  # Apache, as the docstring says
            if body is not None:
                assert a.body.decode() == body, where
            assert b.status == a.status, where
            if a.status == 200:
                assert b.body == a.body, where


def test_verify_finds_no_difference(root: Path, apache_binary: object) -> None:
    report = verify(VerifyRequest(target="flask", docroot=root, max_requests=300))
    assert report.exit_code == 0, report.summary()
    assert not report.differing, report.summary()
