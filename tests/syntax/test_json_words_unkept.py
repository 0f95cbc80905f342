"""``parse --format json`` reads every directive's words without keeping them on the nodes
(issue 10): ``Directive.args_unkept`` gives the words Apache reads (``ap_getword_conf``) as
``args`` does, and the JSON of a file leaves its tree the size the parse made it (1 MB of
distinct lines: 9.2x the file after the parse, 17.6x once the JSON had read every word)."""

from __future__ import annotations

import tracemalloc

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from confmig.syntax import Directive, logical_text, parse_bytes, parse_text, split_words
from confmig.syntax.jsonform import parsed_chunks
from confmig.syntax.words import first_word
from tests.corpus import apache_corpus_files, needs_corpus


def apache_words(d: Directive) -> list[str]:
    """The words Apache reads after the name, from the line as written."""
    return split_words(first_word(logical_text(d.raw))[1])


def check_file(data: bytes) -> int:
    config = parse_bytes(data, "t/.htaccess", htaccess=True)
    count = 0
    for d in config.directives():
        assert d.args_unkept() == apache_words(d), d.raw
        assert d.args == apache_words(d) == d.args_unkept(), d.raw  # read either way round
        count += 1
    return count


@needs_corpus
def test_every_corpus_directive_gives_the_words_after_its_name() -> None:
    assert sum(check_file(path.read_bytes()) for path in apache_corpus_files()) > 500


@pytest.mark.parametrize("line", [
    'Header set X-A "b c"\n', "  \tHeader  set   X-A b \t \n", "Header\n", "Header \n",
    '"Header" set X\n', "'Opt ions' -Indexes\n", "Head\\er x\n", "Header set \\\n  X\n",
    "Options -Indexes\0junk\n", "Opt\0ions x\n", "Options a\rb\r\n", "Header set X \\",
    "Option\xe9 \xff x\n", '""" x\n', "\"a\"b c\n", "Header set 'a\\'b' \"c\\\\\"\n",
])
def test_lines_with_quotes_continuations_nul_and_odd_bytes(line: str) -> None:
    assert check_file(line.encode("utf-8", "surrogateescape")) == 1


@settings(max_examples=200, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from('ab "\'\\\t\r\0#<>\xe9'), max_size=30),
                min_size=1, max_size=8))
def test_random_lines(lines: list[str]) -> None:
    check_file(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))


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
