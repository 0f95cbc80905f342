"""``<Files>``/``<FilesMatch>`` denials test the file system only for the URLs they can deny.

Apache matches a section against the name where its walk stops, so confmig's nginx output
tests that name with a stat (``-d`` of its directory, ``-f`` of a file followed by PATH_INFO)
through maps whose regexes try every position of the URL.  nginx runs every ``if`` of a
location, so those tests sit in a nested location for the URLs the sections' patterns can
match at all (issue 12: h5bp's site made 4 more file-system calls per request than h5bp's own
nginx config, and spent microseconds in those regexes).  Real Apache and real nginx answer the
same requests here — denied names, PATH_INFO after them, a directory named like one, a name
below a missing directory, a section with headers of its own — and strace shows that a URL no
denial can match costs nginx no file-system call for them.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.bench.syscalls import SyscallSummary, trace_requests
from confmig.bench.targets import TargetContext
from confmig.bench.targets.nginx import NginxTarget
from confmig.servers import make_docroot
from tests.nginx.servers import Pair, both

pytestmark = [pytest.mark.apache]

HEADERS = '<FilesMatch "\\.txt$">\nHeader set X-Txt 1\n</FilesMatch>\n'
DENIALS = ('<Files ".ht*">\nRequire all denied\n</Files>\n'
           '<FilesMatch "(^#.*#|\\.(bak|sql)|~)$">\nRequire all denied\n</FilesMatch>\n')
FILES = {
    ".htaccess": HEADERS + DENIALS,
    "index.html": "index\n", "a.txt": "a\n", "db.sql": "secret\n", "notes.txt.bak": "old\n",
    "a.txt~": "backup\n", "#x#": "hash\n", "css/s.css": "p{}\n",
    "sub/.htaccess": '<Files "secret.txt">\nRequire all denied\n</Files>\n',
    "sub/db.sql": "secret\n", "sub/a.txt": "sub a\n", "sub/secret.txt": "secret\n",
    "dir.sql/inner.txt": "inner\n", ".ht-dir/f.txt": "f\n",
}
PATHS = ["/", "/index.html", "/a.txt", "/db.sql", "/db.sql/x", "/notes.txt.bak", "/a.txt~",
         "/%23x%23", "/a.txt/x", "/css/s.css", "/sub/db.sql", "/sub/db.sql/more/path",
         "/sub/a.txt", "/sub/secret.txt", "/sub/secret.txt/x", "/missing/db.sql",
         "/dir.sql/inner.txt", "/.ht-dir/f.txt", "/.htaccess", "/sub/.htaccess"]
#: URLs no section's pattern can match: nginx must not stat anything for the denials.
PLAIN = ["/index.html", "/a.txt", "/css/s.css", "/sub/a.txt"]


@pytest.fixture(scope="module")
def pair(apache_binary: object, nginx_binary: object) -> Iterator[Pair]:
    root = make_docroot(prefix="confmig-files-denials-", files=FILES)
    try:
        with both(root) as started:
            yield started
    finally:
        shutil.rmtree(root, ignore_errors=True)


@pytest.mark.parametrize("path", PATHS)
def test_apache_and_nginx_answer_alike(pair: Pair, path: str) -> None:
    a, b = pair.ask(path)
    assert a.status == b.status, (path, a.status, b.status)
    if a.status == 200:
        assert a.body == b.body, path
    assert a.headers.get("X-Txt") == b.headers.get("X-Txt"), path


def test_the_cases_that_make_the_tests_necessary(pair: Pair) -> None:
    """The answers that need the file tests (so a converter without them fails)."""
    assert [pair.ask(p)[0].status for p in ("/db.sql/x", "/sub/db.sql/more/path",
                                             "/missing/db.sql", "/dir.sql/inner.txt")] \
        == [403, 403, 404, 200]


def _fs_calls(files: dict[str, str], workdir: Path) -> SyscallSummary:
    root = make_docroot(prefix="confmig-files-denials-", files=files)
    target = NginxTarget(TargetContext(root, "event", None, workdir))
    try:
        target.start()
        summary = trace_requests(target.process_ids, target.base_url, PLAIN, requests=40,
                                 workdir=workdir)
    finally:
        target.stop()
        shutil.rmtree(root, ignore_errors=True)
    assert summary.available, summary.reason
    return summary


def test_a_url_no_denial_can_match_costs_no_file_test(nginx_binary: object) -> None:
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed (apt-get install strace)")
    workdir = Path(tempfile.mkdtemp(prefix="confmig-files-denials-trace-"))
    workdir.chmod(0o755)
    try:
        with_denials = _fs_calls(FILES, workdir)
        without = _fs_calls({**FILES, ".htaccess": HEADERS, "sub/.htaccess": "\n"}, workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    assert with_denials.fs_syscalls == without.fs_syscalls, (with_denials, without)
