"""``RewriteRule … [T=type]`` with a substitution (issue 12), on real Apache and nginx.

In a per-directory context a substitution is an internal redirect, and the new request does
not carry the type (mod_rewrite keeps it in ``r->notes``): the file it lands on gets its own
type.  Only a URL rewritten to the file it already maps to makes no redirect, and then the
type applies.  With ``[R]``, ``[F]`` or ``[G]`` the answer is Apache's own page and the type
changes nothing."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.convert.nginx.rewrite import TYPE_DIRECTORY_NOTE
from confmig.model.explain import explain_request
from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

RULES = ("RewriteEngine On\n"
         "RewriteRule ^a$ b.txt [T=image/png,L]\n"
         "RewriteRule ^(c\\.txt)$ $1 [T=image/png,L]\n"
         "RewriteRule ^(e\\.txt)$ /$1 [T=image/png,L]\n"
         "RewriteRule ^r$ /b.txt [T=image/png,R=302,L]\n"
         "RewriteRule ^f$ - [T=image/png,F]\n"
         "RewriteRule ^(.*)\\.pic$ $1.txt [T=image/gif,L]\n")
FILES = {".htaccess": RULES, "b.txt": "b\n", "c.txt": "c\n", "e.txt": "e\n", "x.txt": "x\n",
         "y.pic": "y pic\n", "y.txt": "y\n"}
#: path → (status, Content-Type) Apache answers (asserted)
APACHE = {"/a": (200, "text/plain"), "/c.txt": (200, "image/png"),
          "/e.txt": (500, "text/html; charset=iso-8859-1"),
          "/r": (302, "text/html; charset=iso-8859-1"),
          "/f": (403, "text/html; charset=iso-8859-1"), "/y.pic": (200, "text/plain"),
          "/x.txt": (200, "text/plain"), "/z.pic": (404, "text/html; charset=iso-8859-1")}


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-ntype-", files=FILES)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_type_with_a_substitution(root: Path, apache_binary: object,
                                  nginx_binary: object) -> None:
    with both(root) as pair:
        seen = {path: pair.ask(path) for path in APACHE}
    apache = {p: (a.status, a.headers.get("Content-Type")) for p, (a, _) in seen.items()}
    assert apache == APACHE, apache
    model = {p: explain_request(p, root=root).status for p in APACHE}
    assert model == {p: s for p, (s, _) in APACHE.items()}, model
    for path, (a, b) in seen.items():
        assert a.status == b.status, (path, a.status, b.status)
        if a.status == 200:
            assert (a.body, a.headers.get("Content-Type")) == \
                (b.body, b.headers.get("Content-Type")), path
    notes = {n.reason for n in convert_docroot(root).output.notes if n.changes_behaviour}
    assert notes == {TYPE_DIRECTORY_NOTE}, notes  # only the directory of the c.txt rule
    report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=600))
    assert report.exit_code == 0 and not report.unannounced, report.summary()
