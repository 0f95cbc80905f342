"""Every docroot site of the model's differential suite (tests/differential), converted to a
Flask module and verified on real Apache and real gunicorn: the generated probes plus the
site's own cases, with no difference that convert did not announce (the sites and their
requests files are the nginx suite's)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify
from tests.differential.harness import SiteSpec, auto_body
from tests.nginx.test_differential_sites import docroot_sites, requests_file

pytestmark = [pytest.mark.apache]


@pytest.mark.parametrize("spec", docroot_sites(), ids=lambda s: s.name)
def test_site(spec: SiteSpec, tmp_path: Path, apache_binary: object) -> None:
    files = {k: (auto_body(k) if v is None else v) for k, v in spec.files.items()}
    root = make_docroot(prefix="confmig-df-", files=files)
    try:
        report = verify(VerifyRequest(target="flask", docroot=root, max_requests=600,
                                      requests=requests_file(spec, tmp_path / "requests.txt")))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert report.compared > 0
    assert report.unannounced == [], report.summary()
    for result in report.differing:  # announced: a refusal at most, never a 200 more
        assert result.converted.status != 200 or result.original.status == 200, \
            result.probe.describe()
