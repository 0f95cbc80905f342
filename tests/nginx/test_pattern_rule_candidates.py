"""A rewrite rule that only answers and tests the file system (h5bp's hidden-file rule:
``RewriteCond %{SCRIPT_FILENAME} -d [OR] -f`` + ``RewriteRule "(^|/)\\." - [F]``) is in force
only in a nested location for the URLs its pattern can match.

Apache evaluates a rule's conditions only once its pattern matched; nginx runs every ``if``
of a location, so the ``-e`` was a stat for every request (issue 12).  Real Apache and real
nginx answer the same requests — existing and missing dot files and directories, the
``.well-known`` exception, a front controller after the rule, a ``<FilesMatch>`` location —
and strace shows that a URL the pattern cannot match costs nginx what it costs without the
rule.  A ruleset where an earlier rule rewrites and goes on keeps the rule everywhere.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pcre2
import pytest

from confmig.bench.syscalls import SyscallSummary, trace_requests
from confmig.bench.targets import TargetContext
from confmig.bench.targets.nginx import NginxTarget
from confmig.convert.nginx import convert_docroot
from confmig.convert.nginx.regex import per_directory, per_directory_candidate
from confmig.servers import make_docroot
from tests.nginx.servers import Pair, both

pytestmark = [pytest.mark.apache]

HIDDEN = ('RewriteCond %{REQUEST_URI} "!(^|/)\\.well-known/([^./]+./?)+$" [NC]\n'
          "RewriteCond %{SCRIPT_FILENAME} -d [OR]\n"
          "RewriteCond %{SCRIPT_FILENAME} -f\n"
          'RewriteRule "(^|/)\\." - [F]\n')
FRONT = ("RewriteCond %{REQUEST_FILENAME} !-f\nRewriteCond %{REQUEST_FILENAME} !-d\n"
         "RewriteRule ^ index.html [L]\n")
HEADERS = '<FilesMatch "\\.txt$">\nHeader set X-Txt 1\n</FilesMatch>\n'
FILES = {
    ".htaccess": HEADERS + "RewriteEngine On\n" + HIDDEN + FRONT,
    "index.html": "index\n", "a.txt": "a\n", ".hidden.txt": "hidden\n", ".git/config": "[c]\n",
    ".well-known/acme-challenge/tok": "token\n", "sub/.env": "env\n", "css/s.css": "p{}\n",
    ".hiddendir/f.html": "f\n",
}
PATHS = ["/", "/index.html", "/a.txt", "/.hidden.txt", "/.git/config", "/.git/",
         "/.well-known/acme-challenge/tok", "/sub/.env", "/css/s.css", "/.missing",
         "/.missing.txt", "/nothing", "/sub/.nothing", "/.hiddendir/", "/.hiddendir/f.html",
         "/.hiddendir"]
#: URLs the hidden-file rule's pattern cannot match.
PLAIN = ["/index.html", "/a.txt", "/css/s.css", "/nothing"]


@pytest.fixture(scope="module")
def pair(apache_binary: object, nginx_binary: object) -> Iterator[Pair]:
    root = make_docroot(prefix="confmig-pattern-rule-", files=FILES)
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


def test_the_rule_answers_where_it_should(pair: Pair) -> None:
    assert [pair.ask(p)[0].status for p in ("/.hidden.txt", "/.git/config", "/.missing",
                                             "/.well-known/acme-challenge/tok")] \
        == [403, 403, 200, 200]


@pytest.mark.parametrize(("pattern", "prefix", "nocase"), [
    ("(^|/)\\.", "/", False), ("^index\\.php$", "/blog/", False), ("x$", "/", True),
    ("^a|^b", "/p/", False), ("\\.(bak|sql)$", "/d/", True)])
def test_the_location_regex_matches_whatever_the_rule_matches(pattern: str, prefix: str,
                                                              nocase: bool) -> None:
    rule = pcre2.compile(per_directory(pattern, prefix, nocase))
    where = pcre2.compile(per_directory_candidate(pattern, prefix, nocase))
    for rest in ["", "x", ".git/x", "a/.env", "index.php", "b", "ab", "X", "d.SQL",
                 "a/b.bak", ".", "a.b/c"]:
        for uri in (prefix + rest, "/other/" + rest):
            if rule.search(uri):
                assert where.search(uri), (uri, where.pattern)


def test_a_rule_that_rewrites_and_goes_on_keeps_it_everywhere(tmp_path: Path) -> None:
    (tmp_path / ".htaccess").write_text("RewriteEngine On\nRewriteRule ^old$ new\n" + HIDDEN)
    text = convert_docroot(tmp_path).result.text
    assert "(?s)(?:((?<=^/)|/)\\.)" not in text  # no location for the pattern
    assert text.count("-e $request_filename") >= text.count("location ")  # in every one


def _fs_calls(files: dict[str, str], workdir: Path) -> SyscallSummary:
    root = make_docroot(prefix="confmig-pattern-rule-", files=files)
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


def test_a_url_the_pattern_cannot_match_costs_no_stat(nginx_binary: object) -> None:
    if shutil.which("strace") is None:
        pytest.skip("strace is not installed (apt-get install strace)")
    workdir = Path(tempfile.mkdtemp(prefix="confmig-pattern-rule-trace-"))
    workdir.chmod(0o755)
    try:
        with_rule = _fs_calls(FILES, workdir)
        without = _fs_calls({**FILES, ".htaccess": HEADERS + "RewriteEngine On\n" + FRONT},
                            workdir)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    assert with_rule.fs_syscalls == without.fs_syscalls, (with_rule, without)
