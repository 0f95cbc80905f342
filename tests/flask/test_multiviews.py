"""Options +MultiViews: a name with nothing at it and exactly one variant (`page` →
`page.html`) is answered as Apache answers it — the variant, with Content-Location, Vary and
TCN — on real Apache and real gunicorn; where Apache chooses among several variants, or finds
none acceptable (406), the module refuses (403) and convert announces it."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from confmig.cli import app as cli
from confmig.servers import Response, make_docroot
from tests.flask.pair import both

pytestmark = [pytest.mark.apache]

FILES = {
    "m/.htaccess": "Options +MultiViews\n<Files hidden.html>\nRequire all denied\n</Files>\n",
    "m/page.html": "<p>page</p>\n", "m/pic.png": "png\n", "m/data.tar.gz": "gz\n",
    "m/hidden.html": "no\n", "m/two.html": "two html\n", "m/two.txt": "two\n",
    "m/odd.qqqq": "unknown extension\n", "m/exact": "a file of its own\n",
    "m/sub/index.html": "sub\n",
    "fc/.htaccess": "Options +MultiViews\nRewriteEngine On\n"
                    "RewriteCond %{REQUEST_FILENAME} !-f\nRewriteRule ^ index.php [L]\n",
    "fc/index.php": "front\n", "fc/about.html": "about\n",
    "plain/page.html": "not negotiated\n",
}
SAME = ["/m/page", "/m/page?x=1", "/m/pic", "/m/data", "/m/data.tar", "/m/hidden",
        "/m/page/extra", "/m/exact", "/m/sub", "/m/none", "/fc/about", "/fc/anything",
        "/plain/page"]


def seen(response: Response, port: int) -> tuple[object, ...]:
    """Status, body and the headers compared, each server's port written PORT."""
    keep = ("Content-Type", "Content-Location", "Vary", "TCN", "Location")
    headers = {h: (response.headers.get(h) or "").replace(f":{port}/", ":PORT/") for h in keep}
    return response.status, response.body.replace(f":{port}/".encode(), b":PORT/"), headers


@pytest.fixture
def site() -> Iterator[Path]:
    root = make_docroot(prefix="confmig-flask-mv-", files=FILES)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def test_one_variant_is_negotiated_as_apache_does(site: Path, apache_binary: object) -> None:
    with both(site) as pair:
        ports = (pair.setup.original.port, pair.setup.converted.port)
        for path in SAME:
            for method in ("GET", "HEAD"):
                a, b = pair.ask(path, method=method)
                assert seen(a, ports[0]) == seen(b, ports[1]), (method, path)
        a, b = pair.ask("/m/page", {"Accept": "text/html,*/*;q=0.8"})
        assert (a.status, b.status) == (200, 200) and a.body == b.body == b"<p>page</p>\n"
        assert b.headers.get("Content-Location") == "page.html"
        assert b.headers.get("TCN") == "choice" and b.headers.get("Vary") == "negotiate"
        # what Apache decides among several variants, or by Accept alone: refused
        for path, headers, apache in (("/m/two", {}, 200), ("/m/page", {"Accept": "text/plain"},
                                                           406), ("/m/odd", {}, 404)):
            a, b = pair.ask(path, headers)
            assert (a.status, b.status) == (apache, 403), path


def test_verify_announces_what_it_refuses(site: Path, apache_binary: object,
                                          tmp_path: Path) -> None:
    requests = tmp_path / "requests.txt"
    requests.write_text("\n".join(SAME) + "\n/m/two\n/m/page | Accept: text/plain\n")
    result = CliRunner().invoke(cli, ["verify", "--to", "flask", str(site), "--requests",
                                      str(requests), "--format", "json"])
    report = json.loads(result.stdout)
    assert result.exit_code == 0 and report["ok"], report["summary"]
    assert {d["path"] for d in report["differences"]} >= {"/m/two", "/m/page"}
    assert all(d["announced"] for d in report["differences"])
    result = CliRunner().invoke(cli, ["convert", "--to", "flask", str(site)])
    assert result.exit_code == 1 and "MultiViews" in result.stderr
    assert "m/.htaccess" in result.stderr and "fc/.htaccess" in result.stderr
