"""Every docroot site of the model's differential suite (tests/differential), converted to
nginx and verified on real Apache and real nginx: the generated probes plus the site's own
cases.  Sites that need their own server configuration (Options, AllowOverride, <VirtualHost>
text, symlinks, modes) wait for the --config mode; rw-rounds' and bad-requests' file names are
longer than a file system allows (that is what they test): their trees cannot be written."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify
from tests.differential.harness import SiteSpec, auto_body
from tests.differential.sites import all_sites

pytestmark = [pytest.mark.apache]
UNWRITABLE = {"rw-rounds", "bad-requests"}


def docroot_sites() -> list[SiteSpec]:
    return [s for s in all_sites()
            if s.options == "Indexes FollowSymLinks" and s.allow_override == "All"
            and not (s.directory_extra or s.vhost_extra or s.symlinks or s.modes)
            and s.name not in UNWRITABLE]


def requests_file(spec: SiteSpec, path: Path) -> Path:
    lines = []
    for case in spec.cases:
        if any(ch in case.path for ch in " \t|") or any("|" in v for v in case.headers.values()):
            continue  # not expressible in a --requests line
        headers = "".join(f" | {k}: {v}" for k, v in case.headers.items())
        lines.append(f"{'' if case.method == 'GET' else case.method + ' '}{case.path}{headers}")
    path.write_text("\n".join(lines) + "\n")
    return path


@pytest.mark.parametrize("spec", docroot_sites(), ids=lambda s: s.name)
def test_site(spec: SiteSpec, tmp_path: Path, apache_binary: object,
              nginx_binary: object) -> None:
    files = {k: (auto_body(k) if v is None else v) for k, v in spec.files.items()}
    root = make_docroot(prefix="confmig-dn-", files=files)
    try:
        report = verify(VerifyRequest(target="nginx", docroot=root, max_requests=600,
                                      requests=requests_file(spec, tmp_path / "requests.txt")))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert report.compared > 0
    # What nginx itself decides before any configuration: a NUL in the path is its own 400
    # (Apache: 404), a POST to a static file its own 405 (Apache serves the file), and its
    # 405 has no Allow header (Apache's core lists the methods); never a 200.
    # An encoded control character that an [NE] redirect would put into Location: Apache
    # refuses to send it (500), nginx's rewrite escapes it (a redirect, never a page).
    limits = [r for r in report.unannounced
              if "%00" in r.probe.path or r.probe.method == "POST"
              or re.search(r"%(?:[01][0-9a-fA-F]|7[fF])", r.probe.path)
              or (r.original.status == r.converted.status == 405
                  and [d.field for d in r.diffs] == ["allow"])]
    assert [r for r in report.unannounced if r not in limits] == [], report.summary()
    for result in limits:
        assert result.converted.status in (302, 400, 405, 500), result.probe.describe()
        assert result.original.status != 200 or result.probe.method == "POST"
