"""A file's tables share only what repeats (issue 10): the word lists and strings of the
:class:`~confmig.syntax.words.WordTable` and the parser's table of lines kept the first 4,096
distinct argument texts and lines of a file although none was met twice (~1.3 MB of a 1 MB
file of distinct lines at the peak of its lint).  A line (and a text) is shared from its
second sight on, and the first of equal lines shares too."""

from __future__ import annotations

import tracemalloc

from confmig.syntax import Directive, parse_bytes
from confmig.syntax.ast import Source
from confmig.syntax.words import SharedWords

LINES = 8_000


def _kept_after_a_lint_like_read(data: bytes) -> tuple[list[Directive], float]:
    """The nodes of ``data`` and the bytes a line that the parse and a read of every
    directive's text and words (twice, as the lint does) left allocated."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tree = parse_bytes(data, "big.htaccess")
        nodes = [n for n in tree.nodes if isinstance(n, Directive)]
        for _ in range(2):
            for node in nodes:
                assert node.args and node.args_text
        kept = tracemalloc.get_traced_memory()[0] - before - len(data)
    finally:
        tracemalloc.stop()
    return nodes, kept / LINES


def test_a_file_of_distinct_lines_keeps_no_table_entry_a_line() -> None:
    data = b"".join(b"RewriteRule ^/p%d/(.*)$ /q%d/$1 [L]\n" % (i, i) for i in range(LINES))
    nodes, per_line = _kept_after_a_lint_like_read(data)
    # The old tables: 226 bytes a line (each of the first 4,096 lines as a string, its list,
    # words and table entries).  Now the node (80 bytes), its text (~76), its list of nodes
    # slot and the hash bits.
    assert per_line < 185, f"{per_line:.1f} bytes a line"
    # a hash's two bits taken by other lines share a few lines, never many
    shared = sum(type(n._words) is SharedWords for n in nodes)
    assert shared < LINES // 50, shared
    assert sum(isinstance(n._raw, str) for n in nodes) < LINES // 50


def test_equal_lines_share_one_list_and_one_line_the_first_too() -> None:
    line = b"RewriteRule ^/a/(.*)$ /b/$1 [L]\n"
    data = b"".join(b"RewriteRule ^/p%d/(.*)$ /q%d/$1 [L]\n" % (i, i) if i % 3 else line
                    for i in range(LINES))
    nodes, _ = _kept_after_a_lint_like_read(data)
    equal = nodes[::3]
    assert all(n.args is equal[0].args and n.args_text is equal[0].args_text for n in equal)
    assert type(equal[0]._words) is SharedWords
    # the first line was read from the file (met once then), the others share one string
    assert isinstance(equal[0]._raw, Source)
    assert all(n._raw is equal[1]._raw for n in equal[1:]) and isinstance(equal[1]._raw, str)
