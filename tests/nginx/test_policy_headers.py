"""Header values as Apache sends them (issue 12): mod_headers resolves ``\\n``, ``\\t``,
``\\r``, ``\\\\`` and ``%%`` in a value, ``check_headers`` undoes a folded line and refuses a
control character or a name that is not a token (the response becomes a 500).  The plan
carries the value Apache sends and the refusal (the model's ``check_headers``); the nginx and
Flask emitters render that, not the value as written.  Real Apache against real nginx and the
generated Flask module under gunicorn."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.model.plan import plan_docroot
from confmig.verify import VerifyRequest, verify
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

FILES = {
    "ok/.htaccess": 'Header set X-Tab "tab\\there"\n'
                    'Header always set X-Quote "say \\"hi\\" and \\q"\n'
                    'Header set X-Dollar "cost $5 ${x} $uri"\n'
                    'Header set X-Pct "100%% sure"\n'
                    'Header set X-Fold "a\\r\\n\\tb"\n'
                    'Header append X-Dollar "$host"\n',
    "ok/f.txt": "ok\n",
    "bad/.htaccess": 'Header set X-Bad "a\\nb"\n',
    "bad/f.txt": "bad\n",
    "badname/.htaccess": 'Header always set "X Bad" v\n',
    "badname/f.txt": "badname\n",
}
NAMES = ("X-Tab", "X-Quote", "X-Dollar", "X-Pct", "X-Fold", "X-Bad")


@pytest.fixture
def root() -> Iterator[Path]:
    from confmig.servers import make_docroot

    made = make_docroot(prefix="confmig-nghd-", files=FILES)
    yield made
    shutil.rmtree(made, ignore_errors=True)


def test_the_plan_carries_what_apache_sends(root: Path) -> None:
    plan = plan_docroot(root)
    sent = {h.entry.name: (h.value, h.refused) for s in plan.scopes for h in s.settings.headers}
    assert sent["X-Tab"] == ("tab\there", "")
    assert sent["X-Pct"] == ("100% sure", "")
    assert sent["X-Fold"][1] == "" and "\n" not in (sent["X-Fold"][0] or "")
    assert sent["X-Bad"][0] == "a\nb" and "invalid characters" in sent["X-Bad"][1]
    assert "invalid characters" in sent["X Bad"][1]


def test_nginx_sends_what_apache_sends_and_fails_where_apache_fails(
        root: Path, apache_binary: object, nginx_binary: object) -> None:
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 1
    # only the two refused headers are announced
    assert result.stderr.count("Apache answers 500") == 2, result.stderr
    with both(root) as pair:
        for path, status in [("/ok/f.txt", 200), ("/bad/f.txt", 500), ("/badname/f.txt", 500)]:
            a, b = pair.ask(path)
            assert a.status == b.status == status, (path, a.status, b.status)
            for name in NAMES:
                assert a.headers.get(name) == b.headers.get(name), (path, name)
        a, _ = pair.ask("/ok/f.txt")
        assert a.headers["X-Dollar"].startswith("cost $5 ${x} $uri")
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0, report.summary()
    # what differs (a 404 below bad/ is a 500 in nginx) is announced
    assert all(r.announced for r in report.differing), report.summary()


def test_flask_sends_what_apache_sends_and_fails_where_apache_fails(
        root: Path, apache_binary: object) -> None:
    report = verify(VerifyRequest(target="flask", docroot=root))
    assert report.exit_code == 0 and not report.differing, report.summary()
    assert {200, 500} <= set(report.statuses)
