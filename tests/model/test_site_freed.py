"""A site the request model answered from is freed by reference counting once no one holds
it (issue 10).

The rewrite engine's per-vhost request template lives in the site's memo and names the
evaluation that last ran the engine as its look-ahead; an evaluation holds its site.  While
the template kept that evaluation, site -> memo -> template -> evaluation -> site was a cycle
only the cycle collector freed: lint's SEC002 site, and with it the access file's tree and
every merged config, stayed alive through the findings' sort (1 MB ``templates`` bench file:
16.2x the file's size at the peak, 14.8x without the cycle).
"""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

from confmig.load import load_path
from confmig.model.evaluate import evaluate, site_for
from confmig.model.request import Request

FRONT_CONTROLLER = ("RewriteEngine On\n"
                    "RewriteCond %{REQUEST_FILENAME} !-f\n"
                    "RewriteRule ^ index.html [L]\n")


def _answered_site(root: Path, urls: list[str]) -> tuple[weakref.ref, list[tuple[int, str]]]:
    (root / ".htaccess").write_text(FRONT_CONTROLLER)
    (root / "index.html").write_text("index")
    (root / "a.txt").write_text("a")
    site = site_for(load_path(root))
    answers = [evaluate(site, Request.from_url(url), trace=True) for url in urls]
    return weakref.ref(site), [(a.status, a.filename or "") for a in answers]


def test_site_freed_by_reference_counting_after_a_rewrite(tmp_path: Path) -> None:
    gc.collect()
    gc.disable()  # only reference counting frees from here on
    try:
        site, answers = _answered_site(tmp_path, ["/no/such/page", "/a.txt"])
        assert [status for status, _ in answers] == [200, 200]
        assert answers[0][1].endswith("/index.html") and answers[1][1].endswith("/a.txt")
        assert site() is None, "the site is kept alive by a reference cycle"
    finally:
        gc.enable()


def test_a_second_evaluation_still_runs_the_look_ahead(tmp_path: Path) -> None:
    """The template's look-ahead is set again by each evaluation that runs the engine (a
    ``-U`` condition is a sub-request through it; without one it is not modelled)."""
    (tmp_path / ".htaccess").write_text(
        "RewriteEngine On\n"
        "RewriteCond /a.txt -U\n"
        "RewriteRule ^x$ found.html [L]\n")
    for name in ("found.html", "a.txt"):
        (tmp_path / name).write_text(name)
    site = site_for(load_path(tmp_path))
    answers = [evaluate(site, Request.from_url("/x"), trace=False) for _ in range(3)]
    assert [a.filename for a in answers] == [str(tmp_path / "found.html")] * 3
    assert [a.unsupported for a in answers] == [[]] * 3
