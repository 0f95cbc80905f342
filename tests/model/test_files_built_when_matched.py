"""A ``<Files>`` section's configuration is built for the requests it matches (issue 10).

Apache merges a ``<Files>``/``<FilesMatch>`` section only into the requests whose file name
it matches (``ap_file_walk``); the model builds a section when the walk first matches it, so
an access file of thousands of ``<Files>`` blocks costs little more than their nodes when few
are asked about.  The answers are those of the sections built up front: the errors of a
section no request matches still make every request of the directory answer 500.
"""

from __future__ import annotations

from pathlib import Path

from confmig.load import load_path
from confmig.model.evaluate import evaluate, site_for
from confmig.model.request import Request
from confmig.model.sections import FilesSections
from confmig.model.walk import walk_file


def _site(root: Path, htaccess: str, names: list[str]):
    (root / ".htaccess").write_text(htaccess)
    for name in names:
        (root / name).write_text(name)
    return site_for(load_path(root))


def _htaccess(site, root: Path):
    """The access file's section as the walk of a file in *root* merges it."""
    _, sections, _ = walk_file(site, site.main, str(root / "any"))
    (section,) = [s for s in sections if s.kind == "htaccess"]
    return section


def _groups(site, root: Path) -> list[FilesSections]:
    return list(_htaccess(site, root).core.file_groups)


def test_only_the_matched_sections_are_built(tmp_path: Path) -> None:
    blocks = "".join(f"<Files n{i}.txt>\nHeader set X-N {i}\n</Files>\n" for i in range(200))
    site = _site(tmp_path, blocks + '<FilesMatch "^n7\\.">\nHeader set X-M m\n</FilesMatch>\n',
                 ["n7.txt", "other.txt"])
    answer = evaluate(site, Request.from_url("/n7.txt"), trace=False)
    assert answer.status == 200
    assert answer.headers["X-N"] == "7" and answer.headers["X-M"] == "m"
    assert evaluate(site, Request.from_url("/other.txt"), trace=False).headers.get("X-N") is None
    (group,) = _groups(site, tmp_path)
    assert len(group) == 201
    assert group.built == [7, 200]  # n7.txt's <Files> and the <FilesMatch>
    # built once: a second request gets the same sections (merges are cached by identity)
    first = group.section(7)
    evaluate(site, Request.from_url("/n7.txt"), trace=True)
    assert group.section(7) is first


def test_all_sections_in_order_for_the_plan(tmp_path: Path) -> None:
    site = _site(tmp_path, "<Files a>\nHeader set A a\n</Files>\n"
                           '<FilesMatch "b$">\nHeader set B b\n</FilesMatch>\n', [])
    (group,) = _groups(site, tmp_path)
    assert group.built == []
    sections = _htaccess(site, tmp_path).core.files  # what the plan reads: every section
    assert [s.label for s in sections] == ["<Files a>", "<FilesMatch b$>"]
    assert [s.kind for s in sections] == ["files", "filesmatch"]
    assert [s.config["headers"].onsuccess[0].name for s in sections] == ["A", "B"]
    assert group.built == [0, 1] and list(sections) == group.all()


def test_an_error_in_a_section_no_request_matches_is_still_a_500(tmp_path: Path) -> None:
    site = _site(tmp_path, "<Files never>\nHeader bogus X-A b\n</Files>\n", ["a.txt"])
    answer = evaluate(site, Request.from_url("/a.txt"), trace=True)
    assert answer.status == 500
    assert any("first argument must be" in step.message for step in answer.steps)
