"""``parse --format json`` reads every directive's words without keeping them on the nodes
(issue 10): the JSON of a file leaves its tree the size the parse made it (1 MB of
distinct lines: 9.2x the file after the parse, 17.6x once the JSON had read every word).
That ``Directive.args_unkept`` gives the words Apache reads, as ``args`` does, is checked with
the other readings in tests/syntax/test_node_text.py."""

from __future__ import annotations

import tracemalloc

from confmig.syntax import parse_text
from confmig.syntax.jsonform import parsed_chunks


def test_words_read_once_are_shared_as_before() -> None:
    a, b = parse_text("Header set X-A b\nHeader set X-A b\n").directives()
    words = a.args
    assert b.args_unkept() is words  # an equal line split already: its list, not a new one


def test_the_json_of_a_file_leaves_its_tree_as_the_parse_made_it() -> None:
    text = "".join(f'Header set X-{i} "b c"\n' for i in range(3000))
    tracemalloc.start()
    try:
        config = parse_text(text, "t/.htaccess")
        tree = tracemalloc.get_traced_memory()[0]
        written = sum(map(len, parsed_chunks(config, {})))
        grown = tracemalloc.get_traced_memory()[0] - tree
    finally:
        tracemalloc.stop()
    assert written > len(text)
    # keeping each line's words and argument text took ~210 bytes a line (~90 % of the tree)
    assert grown < tree * 0.05, (grown, tree)
    assert [d.args for d in config.directives()][-1] == ["set", "X-2999", "b c"]
