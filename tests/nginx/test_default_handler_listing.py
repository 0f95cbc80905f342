"""``SetHandler default-handler`` on a directory without an index file: mod_autoindex only
lists for the directory handler (``httpd/unix-directory``) or an empty handler name
(``handle_autoindex``: ``AP_IS_DEFAULT_HANDLER_NAME`` is the empty string, not
"default-handler"), so the core's default handler answers 404 ("Attempt to serve directory")
even under ``Options Indexes``; mod_dir still serves an index file.  Checked on real Apache
against the model (explain) and against the converted nginx, which must not list (nginx
answers 403 for a directory it does not list: stricter, and the SetHandler is announced)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.model.explain import explain_request
from confmig.model.plan import plan_docroot
from confmig.servers import make_docroot
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

FILES = {
    "h/.htaccess": "Options +Indexes\nSetHandler default-handler\n",
    "h/f.txt": "f\n", "h/sub/g.txt": "g\n", "h/withindex/index.html": "i\n",
    "n/.htaccess": "Options +Indexes\nSetHandler none\n", "n/f.txt": "f\n",
    "l/.htaccess": "Options +Indexes\n", "l/f.txt": "f\n",
}
PATHS = ("/h/", "/h/sub/", "/h/withindex/", "/h/f.txt", "/n/", "/l/")
#: what Apache answers (asserted, so that a change on either side shows)
APACHE = {"/h/": 404, "/h/sub/": 404, "/h/withindex/": 200, "/h/f.txt": 200, "/n/": 200,
          "/l/": 200}


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-defhandler-", files=FILES)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_default_handler_does_not_list(root: Path, apache_binary: object,
                                       nginx_binary: object) -> None:
    with both(root) as pair:
        seen = {path: pair.ask(path) for path in PATHS}
    apache = {path: a.status for path, (a, _) in seen.items()}
    assert apache == APACHE, apache
    model = {path: explain_request(path, root=root).status for path in PATHS}
    assert model == APACHE, model
    nginx = {path: b.status for path, (_, b) in seen.items()}
    assert nginx == {**APACHE, "/h/": 403, "/h/sub/": 403}, nginx
    notes = [(str(n.source), n.directive) for n in convert_docroot(root).output.notes
             if n.changes_behaviour]
    assert (f"{root}/h/.htaccess:2", "SetHandler") in notes, notes
    plan = plan_docroot(root)
    listed = {s.url: s.settings.indexes for s in plan.scopes}
    assert (listed["/h/"], listed["/n/"], listed["/l/"]) == (False, True, True)
