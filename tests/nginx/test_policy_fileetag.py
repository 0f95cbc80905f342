"""FileETag (issue 12): ``FileETag None`` is Apache sending no ETag for a file, nginx's
``etag off;`` — where it is in force, and nowhere else (a subdirectory that names components
again sends one, so its location says ``etag on;``).  A FileETag that names components sends
an ETag, as nginx does by default (the value differs: each server makes its own, and a
client only hands it back).  An incremental ``+MTime``/``-INode`` line stays announced.
Real Apache against real nginx."""

from __future__ import annotations

import pytest
from typer.testing import CliRunner

from confmig.cli import app
from confmig.verify import VerifyRequest, verify
from tests.conftest import SiteMaker
from tests.nginx.servers import both

pytestmark = [pytest.mark.apache]

PATHS = ["/a.txt", "/b.html", "/plain/c.txt", "/sub/d.txt", "/sub/deeper/e.txt",
         "/none/f.txt"]
#: conditional requests: without an ETag, If-None-Match decides nothing for Apache's "x",
#: everything for "*"; If-Modified-Since with a date far ahead is a 304
CONDITIONS: list[dict[str, str]] = [
    {}, {"If-None-Match": '"x"'}, {"If-None-Match": "*"},
    {"If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"},
    {"If-None-Match": '"x"', "If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"},
]


FILES = {"a.txt": "a\n", "b.html": "<p>\n", "plain/c.txt": "c\n", "sub/d.txt": "d\n",
         "sub/deeper/e.txt": "e\n", "none/f.txt": "f\n"}
CASES = {
    # the whole site without, a subdirectory with again (and one below it inheriting that)
    "none-then-on": {".htaccess": "FileETag None\n",
                     "sub/.htaccess": "FileETag MTime Size\n"},
    # the default at the top, None in one subdirectory only
    "none-below": {"none/.htaccess": "FileETag None\n",
                   "sub/.htaccess": "FileETag INode MTime Size\n"},
    # h5bp's form, with other policy beside it
    "h5bp": {".htaccess": "<IfModule mod_headers.c>\n    Header unset ETag\n</IfModule>\n"
                          "FileETag None\nAddDefaultCharset utf-8\n"},
}


@pytest.mark.parametrize("case", list(CASES))
def test_fileetag_presence_is_apaches(case: str, make_site: SiteMaker, apache_binary: object,
                                      nginx_binary: object) -> None:
    root = make_site({**FILES, **CASES[case]})
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 0, result.stderr
    assert "FileETag" not in result.stderr
    assert "etag off;" in result.stdout
    with both(root) as pair:
        sent = set()
        for path in PATHS:
            for headers in CONDITIONS:
                a, b = pair.ask(path, headers)
                assert a.status == b.status, (path, headers, a.status, b.status)
                assert ("ETag" in a.headers) == ("ETag" in b.headers), (path, headers)
                sent.add("ETag" in a.headers)
        # both kinds of answer were asked for (h5bp's site sends no ETag anywhere)
        assert sent == ({False} if case == "h5bp" else {True, False})
    report = verify(VerifyRequest(target="nginx", docroot=root))
    assert report.exit_code == 0 and not report.differing, report.summary()


def test_an_incremental_fileetag_stays_announced(make_site: SiteMaker) -> None:
    """``FileETag -INode`` adds to or takes from what is inherited (core's merge): not
    carried, announced as before."""
    root = make_site({**FILES, ".htaccess": "FileETag -INode\n"})
    result = CliRunner().invoke(app, ["convert", "--to", "nginx", str(root)])
    assert result.exit_code == 1
    assert "FileETag" in result.stderr and "etag off" not in result.stdout


def test_flask_still_announces_fileetag_none(make_site: SiteMaker) -> None:
    """The Flask target sends its own ETag and does not express ``Settings.etag``: it keeps
    announcing the line."""
    root = make_site({**FILES, ".htaccess": "FileETag None\n"})
    result = CliRunner().invoke(app, ["convert", "--to", "flask", str(root)])
    assert result.exit_code == 1
    assert "FileETag" in result.stderr
