"""verify never passes without checking, and its time budget bounds everything it does:
zero requests compared is a failure, and a pattern that makes candidate generation explode
(``^(.*a){40}$``) is cut by --timeout like the requests are."""

from __future__ import annotations

import shutil
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import confmig.verify.session as session
from confmig.cli import app
from confmig.servers import make_docroot
from confmig.verify import VerifyRequest, verify

pytestmark = pytest.mark.apache
FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"
CATASTROPHIC = "RewriteEngine On\nRewriteRule ^(.*a){40}$ - [F]\n"


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["verify", "--to", "httpd", *args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout, result.stderr


@pytest.fixture
def catastrophic_site(apache_binary: object) -> Iterator[Path]:
    root = make_docroot(files={"index.html": "<h1>i</h1>\n", "sub/.htaccess": CATASTROPHIC,
                               "sub/page.html": "<p>p</p>\n"})
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_timeout_0_compares_nothing_and_fails(apache_binary: object) -> None:
    code, out, _err = run_cli(str(FIXTURES / "demo-site"), "--timeout", "0")
    assert code == 1, out
    assert not out.startswith("OK"), out
    assert "no request was compared" in out


def test_every_request_failing_is_not_a_pass(apache_binary: object,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(*args: object, **kwargs: object) -> None:
        raise ConnectionRefusedError(111, "Connection refused")

    monkeypatch.setattr(session, "http_get", refused)
    report = verify(VerifyRequest(docroot=FIXTURES / "demo-site", max_requests=5))
    assert report.sent == 5 and report.errored == 5
    assert report.exit_code == 1
    assert "no request was compared" in report.summary()


def test_timeout_bounds_probe_generation(catastrophic_site: Path) -> None:
    """The bug took more than 60 s; the bound is generous so a busy machine cannot fail it."""
    started = time.monotonic()
    code, out, _err = run_cli(str(catastrophic_site), "--timeout", "5")
    elapsed = time.monotonic() - started
    assert elapsed < 30, f"verify --timeout 5 took {elapsed:.1f}s"
    assert code in (0, 1), out
    assert "requests to both servers" in out
