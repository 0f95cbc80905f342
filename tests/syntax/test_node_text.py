"""A parsed directive holds its line once (issue 10): ``args_text`` is read from ``raw``, and
``args`` split on first use — with the same values as the text Apache reads after the name
and its words (``ap_getword_conf``), whether read kept or not (``args_text_unkept``,
``args_unkept``), shared between equal lines, and surviving a pickle (the lint pool sends
nodes between processes)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from confmig.syntax import Directive, logical_text, parse_bytes, parse_text, split_words
from confmig.syntax.words import SHARED_ENTRIES, SharedWords, WordTable, first_word
from tests.corpus import apache_corpus_files, needs_corpus


def expected(d: Directive) -> tuple[str, list[str]]:
    """What Apache reads after the name, computed from the line as written."""
    _, rest = first_word(logical_text(d.raw))
    return rest, split_words(rest)


def kept_as_text(d: Directive) -> bool:
    """The node keeps its argument text and splits it at single spaces for its words."""
    return type(d._words) is str and d._words == d.args_text


def check_file(data: bytes) -> int:
    config = parse_bytes(data, "t/.htaccess", htaccess=True)
    count = 0
    for d in config.directives():
        text, words = expected(d)
        # read without keeping first (parse --format json, the parse tree), then kept (lint)
        assert (d.args_text_unkept(), d.args_unkept()) == (text, words), d.raw
        assert (d.args_text, d.args) == (text, words), d.raw
        assert (d.args_text_unkept(), d.args_unkept()) == (text, words), d.raw
        count += 1
    return count


@needs_corpus
def test_every_corpus_directive_reads_the_text_and_words_after_its_name() -> None:
    assert sum(check_file(path.read_bytes()) for path in apache_corpus_files()) > 500


@pytest.mark.parametrize("line", [
    'Header set X-A "b c"\n', "  \tHeader  set   X-A b \t \n", "Header\n", "Header \n",
    '"Header" set X\n', "'Opt ions' -Indexes\n", "Head\\er x\n", "Header set \\\n  X\n",
    "Options -Indexes\0junk\n", "Opt\0ions x\n", "Options\r\n", "Options a\rb\r\n",
    "Header set X \\", "Option\xe9 \xff x\n", "Header set X # c\n", '""" x\n', '"" a b\n',
    "'' x\n", "\"a\"b c\n", "Header set 'a\\'b' \"c\\\\\"\n",
])
def test_lines_with_quotes_continuations_nul_and_odd_bytes(line: str) -> None:
    assert check_file(line.encode("utf-8", "surrogateescape")) == 1


@settings(max_examples=300, deadline=None)
@given(st.lists(st.text(alphabet=st.sampled_from('ab "\'\\\t\r\0#<>\xe9'), max_size=30),
                min_size=1, max_size=8))
def test_random_lines(lines: list[str]) -> None:
    check_file(("\n".join(lines) + "\n").encode("utf-8", "surrogateescape"))


def test_equal_lines_share_one_word_list_and_distinct_ones_split_on_first_use() -> None:
    config = parse_text("Header set X-A b\nHeader set X-B b\nHeader set X-A b\n")
    a, b, again = config.directives()
    assert a.args is again.args
    assert b.args == ["set", "X-B", "b"] and b.args is not a.args
    # a line met once keeps its text, not a shared list and words (issue 10: 4,096 of them
    # filled the file's tables)
    assert kept_as_text(b) and isinstance(a._words, SharedWords)


@pytest.mark.parametrize("words_first", [True, False])
def test_equal_lines_share_their_text_whichever_is_read_first(words_first: bool) -> None:
    nodes = list(parse_text("Header set X-A b\n" * 3).directives())
    for d in nodes:
        if words_first:
            assert d.args == ["set", "X-A", "b"]
        assert d.args_text == "set X-A b"
    assert nodes[0].args_text is nodes[2].args_text
    assert nodes[0].args is nodes[2].args


def test_the_word_list_is_not_made_until_it_is_read() -> None:
    d = next(parse_text("Header set X-A b\n").directives())
    assert isinstance(d._words, WordTable)
    assert d.args == ["set", "X-A", "b"]
    assert kept_as_text(d)  # met once: its text (issue 10)
    a, b = parse_text("Header set X-A b\n" * 2).directives()
    assert isinstance(a._words, WordTable)
    assert a.args == ["set", "X-A", "b"] and a._words is b.args


def test_a_file_of_distinct_lines_keeps_a_bounded_table() -> None:
    # each line twice: lines met once share nothing (test_a_file_of_distinct_lines_shares...)
    text = "".join(f"Header set X-{i} b{i}\n" * 2 for i in range(SHARED_ENTRIES * 2))
    nodes = list(parse_text(text).directives())
    table = nodes[0]._words
    assert isinstance(table, WordTable)
    assert [d.args[1] for d in nodes] == [f"X-{i // 2}" for i in range(SHARED_ENTRIES * 4)]
    assert len(table.lists) == len(table.strings) == SHARED_ENTRIES
    assert nodes[0].args is nodes[1].args
    assert nodes[0].args[0] is nodes[2].args[0]  # "set", seen first, is in the table
    last = SHARED_ENTRIES * 2 - 1
    # past the table, words that are the text split at single spaces are not kept (issue 10)
    assert kept_as_text(nodes[-1]) and nodes[-1].args == ["set", f"X-{last}", f"b{last}"]


def test_a_pickled_node_keeps_its_text_and_words_not_its_file_table() -> None:
    first, second = parse_text("Header set X-A b\nHeader set X-B b\n").directives()
    assert first.args == ["set", "X-A", "b"]
    copy = pickle.loads(pickle.dumps(second))
    assert (copy.raw, copy.args_text, copy.args) == (second.raw, "set X-B b",
                                                     ["set", "X-B", "b"])
    assert len(pickle.dumps(second)) < len(pickle.dumps(second.raw)) + 400


def test_replace_keeps_or_replaces_the_argument_text_and_words() -> None:
    d = next(parse_text("Header set ${X} b\n").directives())
    same = dataclasses.replace(d, end_line=5)
    assert (same.args_text, same.args, same.end_line) == ("set ${X} b", ["set", "${X}", "b"], 5)
    changed = dataclasses.replace(d, args=["set", "v", "b"], args_text="set v b")
    assert (changed.args_text, changed.args, changed.raw) == ("set v b", ["set", "v", "b"],
                                                              d.raw)


def test_a_directive_made_by_hand_has_no_argument_text_unless_given() -> None:
    d = Directive("t", 1, 1, "Header set X\n", name="Header", args=["set", "X"])
    assert (d.args_text, d.args, d.lname) == ("", ["set", "X"], "header")
    assert Directive("t", 1, 1, "", name="Options").args == []
    assert Directive("t", 1, 1, "", name="A", args_text="b c").args == []


def test_only_words_made_again_alike_are_left_unkept() -> None:
    """Issue 10: a directive kept its words once read (a list and its strings: ~2x its text);
    words that are the text split at single spaces are made again on each read instead —
    and only those: quotes, tabs or two spaces keep the split Apache makes."""
    # lines met once: the file's table shares none of them (issue 10)
    lines = ['Header set X-P "a b"', "Header set X-T\tb", "Header set  X-S b", "Header set X-K b"]
    nodes = list(parse_text("\n".join(lines) + "\n").directives())
    assert [d.args for d in nodes] == [["set", "X-P", "a b"], ["set", "X-T", "b"],
                                      ["set", "X-S", "b"], ["set", "X-K", "b"]]
    assert [kept_as_text(d) for d in nodes] == [False, False, False, True]
    # the other lines keep their words, and cut their text from the line again when read
    quoted = nodes[0]
    assert quoted._words == "set\0X-P\0a b" and quoted.args_text == 'set X-P "a b"'
    assert pickle.loads(pickle.dumps(quoted)).args_text == 'set X-P "a b"'
    assert dataclasses.replace(quoted, end_line=9).args == ["set", "X-P", "a b"]
    plain = nodes[-1]
    copy = pickle.loads(pickle.dumps(plain))
    assert kept_as_text(copy) and copy.args == ["set", "X-K", "b"]
    moved = dataclasses.replace(plain, end_line=9)
    assert (moved.args, moved.args_text, moved.end_line) == (["set", "X-K", "b"], "set X-K b", 9)
    assert plain.args_unkept() == ["set", "X-K", "b"]
