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
    assert code == (1 if "stopped by --timeout" in out else 0), out  # a cut run never passes
    assert "requests to both servers" in out


def test_a_run_cut_by_timeout_is_incomplete_not_ok(apache_binary: object,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """Agreement on the first requests is no pass when --timeout stops the rest: the verdict
    is INCOMPLETE and the exit 1 (it was "OK" and 0).  The converted server answers the first
    probe at once, then takes each request's whole time budget, as a stalled server would."""
    real_send = session._send
    calls = []

    def slow_after_the_first_probe(target: object, probe: object, timeout: float) -> object:
        calls.append(probe)
        if len(calls) > 2:
            time.sleep(timeout)
        return real_send(target, probe, timeout)  # type: ignore[arg-type]

    monkeypatch.setattr(session, "_send", slow_after_the_first_probe)
    report = verify(VerifyRequest(docroot=FIXTURES / "demo-site", timeout=10))
    assert report.out_of_time and 1 <= report.sent < report.planned, report.summary()
    assert report.incomplete and report.exit_code == 1
    assert report.summary().startswith("INCOMPLETE: "), report.summary()
    assert "raise --timeout" in report.summary()
    assert report.to_json()["ok"] is False


def test_report_verdicts() -> None:
    from confmig.convert.result import ConversionResult
    from confmig.verify.report import VerifyReport

    def report(**fields: object) -> VerifyReport:
        return VerifyReport("httpd", "site", ConversionResult("httpd", "site", ""),
                            **fields)  # type: ignore[arg-type]

    assert report(sent=3, planned=3).summary().startswith("OK: ")
    assert report(sent=3, planned=3).exit_code == 0
    assert report(sent=3, planned=3, truncated=5).exit_code == 0  # a sample the user sized
    cut = report(sent=3, planned=9, out_of_time=True)
    assert cut.exit_code == 1 and cut.summary().startswith("INCOMPLETE: ")
    generation_cut = report(sent=3, planned=3, generation_out_of_time=True)
    assert generation_cut.exit_code == 1
    assert generation_cut.summary().startswith("INCOMPLETE: ")
