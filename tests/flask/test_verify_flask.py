"""confmig verify --to flask: real Apache with the .htaccess tree against the generated module
under real gunicorn (and under Apache's mod_wsgi, --server mod_wsgi), on the fixtures, the
nested-rules site, the depth-10 tree and a site around every .htaccess of the corpus
(WordPress, Laravel, h5bp… — with what is announced recorded), and verify failing on a
difference nobody announced."""

from __future__ import annotations

import json
import shutil
from collections import Counter
from dataclasses import replace
from pathlib import Path

import pytest
from typer.testing import CliRunner

import confmig.verify.flask as flask_verify
from confmig.cli import app
from confmig.verify import VerifyRequest, verify
from tests.corpus import needs_corpus
from tests.verify.sites import corpus_site, deep_site, nested_rewrite_site

pytestmark = [pytest.mark.apache]
DEMO = Path(__file__).resolve().parents[2] / "fixtures" / "demo-site"

#: What the corpus's .htaccess files hold that the module does not reproduce (each announced
#: with file:line): output filters, encodings, listings' IndexIgnore, request headers, SetEnv*,
#: handlers, ETag policy, Header conditions.
ANNOUNCED = {"AddOutputFilterByType", "AddEncoding", "IndexIgnore", "Header",
             "RequestHeader", "SetHandler", "SetEnvIf", "SetEnvIfNoCase", "SetEnv",
             "FileETag", "RewriteRule"}


def run_cli(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["verify", "--to", "flask", *args])
    assert "Traceback" not in result.output, result.output
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.parametrize("server", ["gunicorn", "mod_wsgi"])
def test_demo_site(apache_binary: object, server: str) -> None:
    code, out, _err = run_cli(str(DEMO), "--format", "json", "--server", server)
    report = json.loads(out)
    assert code == 0 and report["ok"], report["summary"]
    assert report["compared"] >= 100 and report["differences"] == []
    assert {"200", "301", "302", "403", "404"} <= set(report["statuses"])


@pytest.mark.parametrize("make", [nested_rewrite_site, deep_site], ids=["nested", "deep"])
def test_nested_rules_and_the_deep_tree(apache_binary: object, make: object) -> None:
    root = make()  # type: ignore[operator]
    try:
        report = verify(VerifyRequest(target="flask", docroot=root, max_requests=3000))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert report.exit_code == 0, report.summary()
    assert not report.differing, report.summary()  # nothing even announced
    assert {200, 301, 302, 403, 404} <= set(report.statuses)


@needs_corpus
@pytest.mark.corpus
@pytest.mark.parametrize("server", ["gunicorn", "mod_wsgi"])
def test_every_corpus_htaccess(apache_binary: object, server: str) -> None:
    root, used = corpus_site()
    try:
        report = verify(VerifyRequest(target="flask", docroot=root, max_requests=4000,
                                      timeout=600, server=server))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    assert len(used) >= 30
    assert report.exit_code == 0, report.summary()
    assert report.compared > 1500
    assert {200, 301, 403, 404, 500} <= set(report.statuses)
    announced = Counter(n.directive for n in report.conversion.untranslatable)
    assert set(announced) <= ANNOUNCED, announced
    for note in report.conversion.untranslatable:
        assert note.file and note.line and note.reason and note.scope
    # announced or not, the app never serves (200) what Apache refuses
    for result in report.differing:
        assert not (result.converted.status == 200 and result.original.status != 200), \
            result.probe.describe()


def test_verify_fails_on_a_difference_nobody_announced(apache_binary: object,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    real = flask_verify.convert_docroot

    def lose_the_denials(*args: object, **kwargs: object) -> object:
        conversion = real(*args, **kwargs)  # type: ignore[arg-type]
        text = conversion.result.text.replace("access=403,", "")
        return replace(conversion, result=replace(conversion.result, text=text))

    monkeypatch.setattr(flask_verify, "convert_docroot", lose_the_denials)
    code, out, _err = run_cli(str(DEMO), "--format", "json")
    report = json.loads(out)
    assert code == 1 and not report["ok"]
    assert any(d["path"] == "/private/data.txt" and not d["announced"]
               for d in report["differences"])
