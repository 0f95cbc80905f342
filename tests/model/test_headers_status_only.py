"""A caller that reads only an answer's status (SEC002) gets the same status, Location and
file without the response's header table being built, when the model can tell that no
header can fail ``check_headers``; the ``Header`` lines that differ only in the name they
set share one parsed entry (issue 10: a 1 MB file of distinct ``Header set X-<i>`` lines).

The differential suite holds every case's ``headers=False`` answer to the explained one (and
so to Apache), with cases where a header does fail (tests/differential/sites_expr.py,
``headerctl``).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.load import load_path
from confmig.model.evaluate import evaluate, site_for
from confmig.model.request import Request
from confmig.model.walk import walk_file

PLAIN = ('Header set X-A "b c"\nHeader always set X-B one\nHeader add X-C "%t %{X}s"\n'
         "Header append X-A d\nHeader unset X-Z\nHeader merge Vary Accept\n"
         "Header set X-E e env=NOPE\n")
# each can put a field that fails check_headers in a response (or make a 500)
MAY_FAIL = {
    "control": 'Header set X-T "a\x1cb"\n',
    "name": 'Header set "X(T)" v\n',
    "env": 'SetEnv V "a\x01b"\nHeader set X-T %{V}e\n',
    "expr": "Header set X-T v \"expr=%{REQUEST_URI} =~ /x/\"\n",
    "value-expr": "Header set X-T \"expr=%{REQUEST_URI}\"\n",
    "echo": "Header echo ^X-\n",
    "edit": 'Header set X-T "a b"\nHeader edit X-T "a" "\\x"\n',
}


def _answers(root: Path, text: str, url: str = "/a.txt"):
    root.mkdir(parents=True, exist_ok=True)
    (root / ".htaccess").write_text(text)
    (root / "a.txt").write_text("a")
    site = site_for(load_path(root))
    full = evaluate(site, Request.from_url(url), trace=False)
    bare = evaluate(site, Request.from_url(url), trace=False, headers=False)
    return full, bare


def _same(full, bare) -> None:
    assert (bare.status, bare.location, bare.file, bare.filename) == (
        full.status, full.location, full.file, full.filename)


def test_plain_headers_are_not_built_for_a_status(tmp_path: Path) -> None:
    full, bare = _answers(tmp_path, PLAIN)
    _same(full, bare)
    assert full.status == 200 and full.headers["X-A"] == "b c, d"
    assert bare.headers == {}  # nothing could fail: the table was not built


@pytest.mark.parametrize("kind", sorted(MAY_FAIL))
def test_headers_that_may_fail_are_worked_out(tmp_path: Path, kind: str) -> None:
    full, bare = _answers(tmp_path, PLAIN + MAY_FAIL[kind])
    _same(full, bare)
    if full.status != 500:  # (worked out: the same headers, but %t's time)
        assert bare.headers.keys() == full.headers.keys() and bare.headers["X-A"] == "b c, d"
    if kind in ("control", "name", "env"):
        assert full.status == 500


def test_a_cookie_with_a_control_character_is_checked(tmp_path: Path) -> None:
    """mod_rewrite's cookies are set before mod_headers runs: one that fails makes a 500 even
    when every Header line is plain (test_headers_status_only_apache: so does Apache)."""
    rules = "RewriteEngine On\nRewriteRule ^c/(.*)$ - [CO=n:$1:.test]\n"
    full, bare = _answers(tmp_path / "bad", PLAIN + rules, "/c/a%01b")
    _same(full, bare)
    assert full.status == 500
    full, bare = _answers(tmp_path / "ok", PLAIN + rules, "/c/ab")
    _same(full, bare)
    assert full.status == 404 and bare.headers == {}


def test_lines_setting_other_names_share_one_entry(tmp_path: Path) -> None:
    """1,000 lines ``Header set X-<i> "b c"`` keep one parsed entry, not 1,000; each line
    still sets its own name."""
    lines = [f'Header set X-{i} "b c"\n' for i in range(1000)]
    text = "".join(lines) + 'Header set X-Last: "b c"\nHeader onsuccess set X-On "b c"\n'
    (tmp_path / ".htaccess").write_text(text)
    (tmp_path / "a.txt").write_text("a")
    site = site_for(load_path(tmp_path))
    _, _, config = walk_file(site, site.main, str(tmp_path / "a.txt"))
    conf = config["headers"]
    assert len({id(h) for h in conf.onsuccess_parsed}) == 2  # (onsuccess written: another)
    assert [h.name for h in conf.onsuccess][-3:] == ["X-999", "X-Last", "X-On"]
    assert [h.directive.line for h in conf.onsuccess][:2] == [1, 2]
    answer = evaluate(site, Request.from_url("/a.txt"), trace=False)
    assert answer.headers["X-0"] == answer.headers["X-999"] == answer.headers["X-Last"] == "b c"
    assert answer.headers["X-On"] == "b c" and "X-Last:" not in answer.headers


def test_a_name_that_fails_shares_no_entry_with_one_that_passes(tmp_path: Path) -> None:
    """Lines that differ only in the name they set share an entry only when their names pass
    ``check_header`` alike: ``X(T)`` is no token (a 500 under HttpProtocolOptions Strict,
    sent under Unsafe), ``X-A`` is one."""
    # (a value no other test sets: the parsed entries are cached for the process)
    text = 'Header set X-A kinds\nHeader set "X(T)" kinds\n'
    full, bare = _answers(tmp_path, text)
    _same(full, bare)
    assert full.status == 500
    site = site_for(load_path(tmp_path))
    conf = walk_file(site, site.main, str(tmp_path / "a.txt"))[2]["headers"]
    assert [h.name for h in conf.onsuccess] == ["X-A", "X(T)"]
    assert not conf.cannot_fail(strict=True) and conf.cannot_fail(strict=False)
