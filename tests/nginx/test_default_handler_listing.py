"""``SetHandler default-handler`` on a directory without an index file: mod_autoindex only
lists for the directory handler (``httpd/unix-directory``) or an empty handler name
(``handle_autoindex``: ``AP_IS_DEFAULT_HANDLER_NAME`` is the empty string, not
"default-handler"), so the core's default handler answers 404 ("Attempt to serve directory")
even under ``Options Indexes``; mod_dir still serves an index file.  Checked on real Apache
against the model (explain) and against the converted nginx, which answers the same 404: its
``index`` ends with a URI whose exact location (nested in the directory's, so with its
``error_page`` and ``add_header``) returns 404 — ``ErrorDocument 404`` and ``Header always``
of the directory included, with ``DirectoryIndex disabled`` and for ``<Files *>`` too."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.model.explain import explain_request
from confmig.model.plan import plan_docroot
from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

FILES = {
    "h/.htaccess": "Options +Indexes\nSetHandler default-handler\n",
    "h/f.txt": "f\n", "h/sub/g.txt": "g\n", "h/withindex/index.html": "i\n",
    "n/.htaccess": "Options +Indexes\nSetHandler none\n", "n/f.txt": "f\n",
    "l/.htaccess": "Options +Indexes\n", "l/f.txt": "f\n",
    "e/.htaccess": "SetHandler default-handler\nErrorDocument 404 /e/missing.html\n"
                   "Header always set X-Scope e\nDirectoryIndex disabled\n",
    "e/missing.html": "e's 404 page\n", "e/index.html": "not an index here\n",
    "e/sub/f.txt": "f\n",
    "w/.htaccess": "Options -Indexes\n<Files *>\nSetHandler default-handler\n</Files>\n",
    "w/f.txt": "f\n",
}
PATHS = ("/h/", "/h/sub/", "/h/withindex/", "/h/f.txt", "/n/", "/l/", "/e/", "/e/sub/",
         "/e/index.html", "/w/", "/h/sub/?q=1")
#: what Apache answers (asserted, so that a change on either side shows)
APACHE = {"/h/": 404, "/h/sub/": 404, "/h/withindex/": 200, "/h/f.txt": 200, "/n/": 200,
          "/l/": 200, "/e/": 404, "/e/sub/": 404, "/e/index.html": 200, "/w/": 404,
          "/h/sub/?q=1": 404}


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-defhandler-", files=FILES)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_default_handler_does_not_list(root: Path, apache_binary: object,
                                       nginx_binary: object) -> None:
    with both(root) as pair:
        seen = {path: pair.ask(path) for path in PATHS}
        posted = pair.ask("/h/sub/", method="POST")
    apache = {path: a.status for path, (a, _) in seen.items()}
    assert apache == APACHE, apache
    model = {path: explain_request(path, root=root).status for path in PATHS}
    assert model == APACHE, model
    nginx = {path: b.status for path, (_, b) in seen.items()}
    assert nginx == APACHE, nginx
    assert [r.status for r in posted] == [404, 404]
    for path in ("/e/", "/e/sub/"):  # the directory's ErrorDocument and Header always
        a, b = seen[path]
        assert a.body == b.body == b"e's 404 page\n", path
        assert a.headers.get("X-Scope") == b.headers.get("X-Scope") == "e", path
    notes = [(str(n.source), n.directive) for n in convert_docroot(root).output.notes
             if n.changes_behaviour]
    assert not [n for n in notes if n[1] == "SetHandler"], notes
    plan = plan_docroot(root)
    listed = {s.url: s.settings.indexes for s in plan.scopes}
    assert (listed["/h/"], listed["/n/"], listed["/l/"]) == (False, True, True)


def test_verify_finds_no_difference(root: Path, apache_binary: object,
                                    nginx_binary: object) -> None:
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0 and not report.differing, report.summary()
    assert report.statuses[404] > 10


def test_the_404_location_answers_only_inside(root: Path, apache_binary: object,
                                              nginx_binary: object) -> None:
    """The URI `index` ends with is internal: asked for, it is a miss on both servers."""
    with both(root) as pair:
        a, b = pair.ask("/h/.confmig-directory-404")
    assert a.status == b.status == 404
