"""What a request whose file name the ``<FilesMatch>`` of an access file match keeps of
them (issue 10): the sections built (:class:`~confmig.model.sections.FilesSections`), each
with the pattern the walk compared — not a second copy compiled for the section, nor the
search function a pattern keeps once searched (``Regex.search``: the walk only asks whether
the name matches) — no empty lists for a section's errors, and its ``Require`` provider's
name shared.  1,263 bytes a section before, 1,042 after (the 1 MB ``templates`` bench file's
SEC002 samples match 1,199 of them); 1,029 at 582cbc2.  That is asserted by what the sections
hold; the bound on the bytes leaves a clear margin over the measure, for a large regression."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from confmig.load import load_path
from confmig.model.evaluate import evaluate, site_for
from confmig.model.request import Request
from confmig.model.walk import walk_file

BLOCKS = 400
# distinct patterns, as in a real file: nothing shared between the sections' patterns
BLOCK = '<FilesMatch "\\.(bak|sql)$|^n{i}\\.txt$">\nRequire all denied\n</FilesMatch>\n'


def _site(root: Path):
    (root / ".htaccess").write_text("".join(BLOCK.format(i=i) for i in range(BLOCKS)))
    for name in ("a.bak", "n7.txt", "c.txt"):
        (root / name).write_text(name)
    return site_for(load_path(root))


def test_the_matched_sections_keep_little(tmp_path: Path) -> None:
    site = _site(tmp_path)
    assert evaluate(site, Request.from_url("/c.txt"), trace=False).status == 200
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        answer = evaluate(site, Request.from_url("/a.bak"), trace=False, headers=False)
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert answer.status == 403
    _, sections, _ = walk_file(site, site.main, str(tmp_path / "a.bak"))
    matched = [s for s in sections if s.kind == "filesmatch"]
    assert len(matched) == BLOCKS
    (htaccess,) = [s for s in sections if s.kind == "htaccess"]
    (group,) = htaccess.core.file_groups
    assert sorted(group.built) == list(range(BLOCKS))
    for i in group.built:
        section = group.section(i)
        assert section.regex is group.tests[i]  # (not a second copy compiled)
        assert section.errors == () and section.nonfatal == ()  # (no list of its own)
    assert kept / BLOCKS < 1300, f"{kept / BLOCKS:.0f} bytes a matched <FilesMatch>"


def test_a_built_section_has_the_pattern_the_walk_compared(tmp_path: Path) -> None:
    site = _site(tmp_path)
    assert evaluate(site, Request.from_url("/n7.txt"), trace=False).status == 403
    _, sections, _ = walk_file(site, site.main, str(tmp_path / "n7.txt"))
    (htaccess,) = [s for s in sections if s.kind == "htaccess"]
    (group,) = htaccess.core.file_groups
    assert group.built == [7]
    section = group.section(7)
    assert section.regex is group.tests[7]
    assert section.match == "\\.(bak|sql)$|^n7\\.txt$"
    assert section.errors == () and section.nonfatal == ()
