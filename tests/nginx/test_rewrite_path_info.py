"""A rewrite without ``[L]`` followed by more rules, outside ``[C]``/``[S]``/``[N]`` jumps
(issue 12), on real Apache and nginx.  In a per-directory context Apache matches every rule
against the file name plus the request's PATH_INFO, and a rewrite changes only the file name:
for a URL whose walk stopped before its last part (``/a/x/y`` with no directory ``a``) the
next rules see the new path *with* ``/x/y`` after it again.  nginx's next rules see the new
``$uri`` alone, so such URLs are denied (403, announced) where the rule applies; URLs without
PATH_INFO are translated as they are."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.convert.nginx import convert_docroot
from confmig.convert.nginx.rewrite import DECODED_AGAIN_CAPTURE_NOTE, PATH_INFO_NOTE
from confmig.model.explain import explain_request
from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

RULES = ("RewriteEngine On\n"
         "RewriteRule ^(a|d)/(.*)$ b/$2\n"
         "RewriteRule ^b/x/y$ t.html [L]\n"
         "RewriteRule ^b/x/y/x/y$ u.html [L]\n"
         "RewriteRule ^b/z$ t.html [L]\n")
FILES = {".htaccess": RULES, "t.html": "t\n", "u.html": "u\n", "d/keep.txt": "k\n"}
#: path → (status, body) Apache answers (asserted): /a/… has PATH_INFO (no directory a)
APACHE = {"/a/x/y": (200, b"u\n"), "/d/z": (200, b"t\n"), "/b/x/y": (200, b"t\n"),
          "/t.html": (200, b"t\n")}


@pytest.fixture
def root() -> Iterator[Path]:
    made = make_docroot(prefix="confmig-npi-", files=FILES)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_path_info_after_a_rewrite_without_last(root: Path, apache_binary: object,
                                                nginx_binary: object) -> None:
    with both(root) as pair:
        seen = {path: pair.ask(path) for path in APACHE}
    apache = {p: (a.status, a.body) for p, (a, _) in seen.items()}
    assert apache == APACHE, apache
    model = {p: explain_request(p, root=root).status for p in APACHE}
    assert model == {p: s for p, (s, _) in APACHE.items()}, model
    nginx = {p: (b.status, b.body if b.status == 200 else None) for p, (_, b) in seen.items()}
    assert nginx == {**APACHE, "/a/x/y": (403, None)}, nginx
    notes = [(str(n.source), n.reason) for n in convert_docroot(root).output.notes]
    # (and the denial of a $2 holding a %-escape, which Apache decodes again: a note)
    assert notes == [(f"{root}/.htaccess:2", DECODED_AGAIN_CAPTURE_NOTE.format(what="$2")),
                     (f"{root}/.htaccess:2", PATH_INFO_NOTE)], notes
    report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=600))
    assert report.exit_code == 0 and not report.unannounced, report.summary()
    for result in report.differing:
        assert result.converted.status == 403, report.summary()
