"""A ``<Files>`` of ``Header`` lines is read for its errors without a builder (issue 10).

The model reads each ``<Files>``/``<FilesMatch>`` of a section once, for its pattern and the
errors its lines give (they are the parent's), and builds its section when a request's file
walk first matches it (:class:`confmig.model.sections.FilesSections`).  As for ``<If>``
(tests/model/test_if_read_for_errors.py), when its lines are ``Header`` lines that reading
makes no builder; the errors are those a builder fed them finds, in the same order, and
those of a section that is no section (no argument, a bad regex) are dropped as before.
"""

from __future__ import annotations

import pytest

from confmig.model.merge import SectionBuilder
from confmig.model.sections import FilesSections, _files_check
from confmig.syntax import Section, parse_text
from tests.model.test_if_read_for_errors import _bodies, _permits


def _files(body: str, opening: str) -> Section:
    name = opening.split()[0]
    (node,) = [n for n in parse_text(f"<{opening}>\n{body}</{name}>\n", "t").nodes
               if isinstance(n, Section)]
    return node


@pytest.mark.parametrize("permit_name", ["none", "all", "authconfig", "nonfatal"])
@pytest.mark.parametrize("restricted", [True, False])
def test_the_errors_read_are_a_builders(permit_name: str, restricted: bool) -> None:
    permit = _permits()[permit_name]
    for body in _bodies():
        for opening in ("Files a.txt", "Files *.txt", "FilesMatch \\.txt$", "Files ~ ^a",
                        "Files", "FilesMatch (", "Files ~"):
            node = _files(body, opening)
            parent = SectionBuilder("htaccess" if restricted else "directory", "/d/")
            files = FilesSections(parent, permit)
            expected: list = []
            made = _files_check(node, permit, files._builder(), expected, [])
            files.add(node, parent)
            assert parent.errors == expected, (permit_name, body, opening)
            assert len(files) == (made is not None)
            # (and the section built when matched has them too; mod_rewrite's are its own)
            if made is not None and "RewriteRule" not in body:
                assert list(files.section(0).errors) == [e for e in expected
                                                          if e[0] is not node]


def test_no_builder_reads_a_files_of_header_lines(monkeypatch: pytest.MonkeyPatch) -> None:
    made = []
    builder = FilesSections._builder

    def counted(self: FilesSections) -> SectionBuilder:
        made.append(self)
        return builder(self)

    monkeypatch.setattr(FilesSections, "_builder", counted)
    parent = SectionBuilder("htaccess", "/d/")
    files = FilesSections(parent, None)
    for i in range(20):
        files.add(_files(f"Header set X-N {i}\n# comment\nHeader bogus X\n", f"Files n{i}"),
                  parent)
    assert len(files) == 20 and not made
    assert [message for _, message in parent.errors] == [
        "first argument must be 'add', 'set', 'setifempty', 'append', 'merge', 'unset', "
        "'echo', 'note', 'edit', or 'edit*'."] * 20
    files.add(_files("Header set X-N 1\nExpiresActive On\n", "Files other"), parent)
    assert len(made) == 1  # (another directive: read by a builder)
    assert files.section(3).directives[0].args == ["set", "X-N", "3"] and len(made) == 2
