"""Equal ``Header`` lines share one parsed entry; each line keeps its own place (issue 10).

mod_headers' configuration keeps, per table, the parsed entries (one per distinct argument
list, shared by the lines that repeat it) and the lines in step with them, instead of an
entry per line: what an explanation, a note or a converted configuration names is still the
line itself.
"""

from __future__ import annotations

from pathlib import Path

from confmig.load import load_path
from confmig.model.evaluate import evaluate, site_for
from confmig.model.request import Request
from confmig.model.walk import walk_file

HTACCESS = (
    'Header set X-A "b c"\n'
    "Header always set X-B one\n"
    'Header set X-A "b c"\n'
    "Header set X-C v \"expr=%{REMOTE_PORT} == '1'\"\n"
    "Header set X-C v \"expr=%{REMOTE_PORT} == '1'\"\n"
    'Header append X-D "d"\n'
    'Header append X-D "d"\n'
)


def _site(root: Path):
    (root / ".htaccess").write_text(HTACCESS)
    (root / "a.txt").write_text("a")
    return site_for(load_path(root))


def test_equal_lines_share_one_parsed_entry(tmp_path: Path) -> None:
    site = _site(tmp_path)
    _, _, config = walk_file(site, site.main, str(tmp_path / "a.txt"))
    conf = config["headers"]
    parsed = conf.onsuccess_parsed
    assert [d.line for d in conf.onsuccess_lines] == [1, 3, 4, 5, 6, 7]
    assert parsed[0] is parsed[1] and parsed[2] is parsed[3] and parsed[4] is parsed[5]
    assert parsed[0] is not parsed[2] and parsed[0].directive is None
    assert [d.line for d in conf.always_lines] == [2]
    # what the plan and the converters read: each line's entry with its own directive
    assert [(h.directive.line, h.name) for h in conf.onsuccess] == [
        (1, "X-A"), (3, "X-A"), (4, "X-C"), (5, "X-C"), (6, "X-D"), (7, "X-D")]
    assert [(h.directive.line, h.always) for h in conf.always] == [(2, True)]


def test_each_line_is_applied_and_named(tmp_path: Path) -> None:
    site = _site(tmp_path)
    for trace in (False, True):
        answer = evaluate(site, Request.from_url("/a.txt"), trace=trace)
        assert answer.status == 200
        assert answer.headers["X-A"] == "b c" and answer.headers["X-B"] == "one"
        assert answer.headers["X-D"] == "d, d"  # appended twice: each line applied
        notes = [n for n in answer.unsupported if "REMOTE_PORT" in n]
        assert [n.split(": cannot")[0].rsplit(":", 1)[1] for n in notes] == ["4", "5"]


def test_a_large_header_set_is_not_memoised(tmp_path: Path) -> None:
    """The memo of a configuration's headers keeps sets of up to MEMO_FIELDS fields; a
    larger one is worked out for each request, with the same answer."""
    from confmig.model.response_headers import MEMO_FIELDS

    for count, kept in ((3, True), (MEMO_FIELDS + 1, False)):
        root = tmp_path / str(count)
        root.mkdir()
        (root / ".htaccess").write_text("".join(f"Header set X-{i} v{i}\n"
                                                for i in range(count)))
        (root / "a.txt").write_text("a")
        site = site_for(load_path(root))
        first = evaluate(site, Request.from_url("/a.txt"), trace=False)
        again = evaluate(site, Request.from_url("/a.txt"), trace=False)
        assert first.headers == again.headers
        assert first.headers[f"X-{count - 1}"] == f"v{count - 1}"
        assert len(first.headers) >= count
        assert bool(site.header_sets) is kept
