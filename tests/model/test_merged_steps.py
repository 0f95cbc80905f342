"""Site.merged keeps the merged config of each list of sections a caller asked for, not the
configs in between (issue 10): a file that the 1,199 ``<FilesMatch>`` of the 1 MB
``templates`` bench file match kept 1,199 merged configs for one answer."""

from __future__ import annotations

import tracemalloc
from pathlib import Path

from confmig.load import load_path
from confmig.model.evaluate import evaluate, site_for
from confmig.model.merge import merge_configs
from confmig.model.request import Request
from confmig.model.walk import walk_file

BLOCK = ('<FilesMatch "\\.(bak|sql)$">\nRequire all denied\nHeader set X-N {i}\n'
         "Options -Indexes\n</FilesMatch>\n")


def _site(root: Path, blocks: int):
    (root / ".htaccess").write_text("".join(BLOCK.format(i=i) for i in range(blocks)))
    for name in ("a.bak", "b.sql", "c.txt"):
        (root / name).write_text(name)
    return site_for(load_path(root))


def _fold(sections):
    result = sections[0].config
    for section in sections[1:]:
        result = merge_configs(result, section.config)
    return result


def test_merged_equals_the_fold_and_is_cached(tmp_path: Path) -> None:
    site = _site(tmp_path, 30)
    _, sections, config = walk_file(site, site.main, str(tmp_path / "a.bak"))
    assert len([s for s in sections if s.kind == "filesmatch"]) == 30
    assert config == _fold(sections)
    assert site.merged(sections) is config
    for end in (1, 2, len(sections) - 5, len(sections) - 1):  # prefixes asked afterwards
        assert site.merged(sections[:end]) == _fold(sections[:end])
        assert site.merged(sections[:end]) is site.merged(list(sections[:end]))
    assert site.merged(sections) is config
    other = walk_file(site, site.main, str(tmp_path / "b.sql"))[2]
    assert other is config  # the same sections: the same merged config
    answer = evaluate(site, Request.from_url("/a.bak"), trace=False)
    assert answer.status == 403
    assert evaluate(site, Request.from_url("/c.txt"), trace=False).status == 200


def test_the_configs_in_between_are_not_kept(tmp_path: Path) -> None:
    site = _site(tmp_path, 400)
    assert evaluate(site, Request.from_url("/c.txt"), trace=False).status == 200
    _, sections, _ = walk_file(site, site.main, str(tmp_path / "a.bak"))  # (sections built)
    matched = sections[-400:]
    assert [s.kind for s in matched] == ["filesmatch"] * 400
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        config = site.merged([*sections[:-400], *reversed(matched)])  # a list not asked yet
        kept = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert config == _fold([*sections[:-400], *reversed(matched)])
    # the steps' keys: ~230 bytes a section; with every merged config in between, ~4,000
    assert kept < 600 * 400, f"{kept / 400:.0f} bytes kept a merged section"
