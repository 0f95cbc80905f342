"""Promise: a converted site never answers 200 where the original did not.

Generated hostile ``.htaccess`` trees (denials, 500s, odd bytes; see :mod:`tests.safety.trees`)
are converted with ``convert --to httpd`` defaults and both configurations run on real Apache;
every generated probe plus every file under encoded spellings is sent to both. Announced or
not, the converted site may never serve (2xx) what the original refused.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify
from tests.safety.trees import draw_tree, probe_paths, write_tree

pytestmark = pytest.mark.apache
SEEDS = range(12)


@pytest.fixture
def workdir() -> Iterator[Path]:
    root = make_docroot(prefix="confmig-safety-")
    yield root
    shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("seed", SEEDS)
def test_converted_site_never_serves_what_apache_refused(seed: int, workdir: Path,
                                                         apache_binary: object) -> None:
    tree = draw_tree(seed)
    site = workdir / "site"
    write_tree(tree, site)
    requests = workdir / "requests.txt"
    requests.write_text("".join(f"{path}\n" for path in probe_paths(tree)))
    report = verify(VerifyRequest(docroot=site, requests=requests, max_requests=600,
                                  timeout=120.0))
    assert report.sent > 0, tree.describe()
    widened = [r for r in report.differing
               if 200 <= r.converted.status < 300 and not 200 <= r.original.status < 300]
    assert not widened, (
        tree.describe() + "\n" + "\n".join(
            f"{r.probe.path}: original {r.original.status}, converted {r.converted.status}"
            for r in widened))
