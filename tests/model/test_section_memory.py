"""Finishing a section copies none of its builder's per-line lists (issue 10).

A 1 MB ``.htaccess`` of 40,445 ``Header set X-<i> "b c"`` lines peaked inside the build of its
section: the builder's header lists (0.70 MB) and ``directives`` list (0.35 MB) were copied
into tuples (0.97 MB) while they were alive.  The lists are now handed over.
"""

from __future__ import annotations

import tracemalloc

import pytest

from confmig.model.merge import SectionBuilder, merge_headers
from confmig.model.sections import SectionCollector, finish_section
from confmig.syntax import parse_text

LINES = 20_000


def _fed(text: str) -> SectionBuilder:
    builder = SectionBuilder("htaccess", "/srv/www/")
    SectionCollector(builder, "htaccess", None, []).feed(parse_text(text).nodes)
    return builder


def test_finishing_a_section_of_header_lines_copies_no_list_of_them() -> None:
    text = "".join(f'Header set X-{i} "b c"\n' for i in range(LINES // 2))
    text += "".join(f'Header always set X-{i} "b c"\n' for i in range(LINES // 2))
    builder = _fed(text)
    assert not builder.errors
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        section = finish_section("htaccess", "/srv/www/.htaccess", None, builder, [],
                                 file="/srv/www/.htaccess")
        peak = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    # (the old code: 16 bytes a line for the header tables' tuples + 8 for the directives')
    assert peak / LINES < 4, f"{peak / LINES:.1f} bytes a line"
    headers = section.config["headers"]
    assert len(headers.onsuccess_lines) == len(headers.always_lines) == LINES // 2
    assert headers.onsuccess_lines[5].args[1] == "X-5"
    assert [h.name for h in headers.always[:2]] == ["X-0", "X-1"]
    assert len(section.directives) == LINES
    assert section.directives[LINES // 2].args[0] == "always"


def test_a_builder_builds_once_and_keeps_nothing_it_handed_over() -> None:
    builder = _fed('Header set X-A "b"\nHeader always set X-B c\n')
    section = finish_section("htaccess", "/srv/www/.htaccess", None, builder, [])
    assert [d.args[-1] for d in section.directives] == ["b", "c"]
    assert builder.directives == [] and builder.header_lines == ([], [])
    with pytest.raises(RuntimeError):
        builder.build()


def test_merged_header_tables_keep_both_in_order() -> None:
    base = finish_section("htaccess", "a", None, _fed("Header set X-A 1\nHeader set X-B 2\n"),
                          []).config["headers"]
    new = finish_section("htaccess", "b", None, _fed("Header set X-C 3\n"), []).config["headers"]
    merged = merge_headers(base, new)
    assert [h.name for h in merged.onsuccess] == ["X-A", "X-B", "X-C"]
    assert merged.always_lines == () and merged.always == ()
    # a table one side leaves empty is the other's, not a copy
    always = finish_section("htaccess", "c", None, _fed("Header always set X-D 4\n"), [])
    assert merge_headers(base, always.config["headers"]).onsuccess_lines is base.onsuccess_lines
