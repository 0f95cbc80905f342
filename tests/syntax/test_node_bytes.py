"""What a parsed directive costs once a lint has read it (issue 10): the node keeps its
argument text and words in one slot, not two (80 bytes a node, not 88), and what it keeps of
them, per line of a large file, stays at what the text or its joined words cost."""

from __future__ import annotations

import sys
import tracemalloc

from confmig.syntax import Directive, parse_bytes, parse_text
from confmig.syntax.words import SHARED_ENTRIES

LINES = 20_000


def _tree_bytes_a_line(line: str) -> float:
    """Traced bytes a line of a file of ``LINES`` numbered lines (the file's bytes left out),
    after reading every node's ``args`` and ``args_text`` twice, as the rules of a lint do."""
    data = "".join(line.format(i=i) for i in range(LINES)).encode()
    tracemalloc.start()
    try:
        tree = parse_bytes(data, "big.htaccess", htaccess=True)
        for _ in range(2):
            for node in tree.nodes:
                assert isinstance(node, Directive)
                assert node.args and node.args_text
        kept = tracemalloc.get_traced_memory()[0]
    finally:
        tracemalloc.stop()
    del tree
    return (kept - len(data)) / LINES


def test_a_read_directive_node_has_six_slots() -> None:
    node = parse_bytes(b"RewriteRule ^a$ /b [L]\n").nodes[0]
    assert isinstance(node, Directive)
    assert node.args == ["^a$", "/b", "[L]"] and node.args_text == "^a$ /b [L]"
    # object header 16, GC header 16, and six slots: raw, row, place, name, lname, words
    # (a slot for the argument text besides the words made it 88)
    assert sys.getsizeof(node) == 16 + 16 + 6 * 8


def test_a_read_rewrite_rule_line_keeps_under_197_bytes() -> None:
    # 200.5 bytes a line with a slot for the text and one for the words; 194.4 with one
    cost = _tree_bytes_a_line("RewriteRule ^p{i}/(.*)$ /x{i}.php?q=$1 [L,QSA]\n")
    assert cost < 197, f"{cost:.1f} bytes a line"


def test_a_read_quoted_line_keeps_under_181_bytes() -> None:
    # 184.6 bytes a line with a slot for the text and one for the words; 178.4 with one
    cost = _tree_bytes_a_line('Header set X-{i} "b c"\n')
    assert cost < 181, f"{cost:.1f} bytes a line"


def test_the_text_of_a_quoted_line_past_the_table_is_read_first_time() -> None:
    # The argument text read before the words, on a line whose text the full table does not
    # share, was None (the node kept the joined words only and answered its empty text slot)
    filler = "".join(f"Header set F-{i} v\n" for i in range(SHARED_ENTRIES))
    nodes = list(parse_text(filler + 'Header set X-P "a b"\nAuthName "x y"\n').directives())
    for node in nodes[:-2]:
        assert node.args  # fills the file's table
    quoted, one_word = nodes[-2:]
    assert quoted.args_text == 'set X-P "a b"' and quoted.args == ["set", "X-P", "a b"]
    assert quoted.args_text == 'set X-P "a b"'
    assert one_word.args_text == '"x y"' and one_word.args == ["x y"]
    assert one_word.args_text == '"x y"' and one_word.args_unkept() == ["x y"]
