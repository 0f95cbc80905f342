"""A node reads its line from its file's bytes when the parser shares no string for it, and
sections written alike share one shape (issue 10: a 1 MB file of distinct lines kept each line
as a string besides the file's bytes; a file of ``<Files>`` blocks a 136-byte section and a
line number more each).  What a node says must not depend on it: every node of every corpus
file reads the same text, position, name, arguments and closing line with the line table off
(every one-line node reading from the file) as with it, and prints back byte for byte."""

from __future__ import annotations

import copy
import dataclasses
import pickle
from pathlib import Path

import pytest

import confmig.syntax.parser as parser_module
from confmig.load import load_htaccess
from confmig.syntax import Directive, Node, Section, parse_bytes, print_file
from confmig.syntax.ast import BLOCK_ROWS, Source
from confmig.syntax.words import SharedWords
from tests.corpus import apache_corpus_files, needs_corpus


def _describe(node: Node) -> tuple[object, ...]:
    """Everything a reader may ask of ``node`` (children excluded)."""
    out: tuple[object, ...] = (type(node).__name__, node.file, node.line, node.column,
                               node.raw, node.location)
    if isinstance(node, Directive):
        out += (node.name, node.lname, node.end_line, node.args_text, node.args)
    if isinstance(node, Section):
        out += (node.name, node.lname, node.end_line, node.args_text, node.args,
                node.closed, node.close_raw, node.close_line, node.close_error,
                len(node.children))
    return out


def _parse_without_line_table(data: bytes, monkeypatch: pytest.MonkeyPatch,
                              name: str = "t/.htaccess"):
    with monkeypatch.context() as patch:
        patch.setattr(parser_module, "SHARED_ENTRIES", 0)
        return parse_bytes(data, name, htaccess=True)


EDGES = [
    b"<Files a>\nHeader set A b\n  # c\n\n</Files>\n",
    b"Options x\0" + b"y" * 300 + b"\nHeader set A b\n",    # the rest of a NUL line
    b"Header set X \\\n  Y\n\tOptions \\\r\n -Indexes\r\nA b\n",   # continuations
    b"  \\\n  Options None\nA b\n",                       # a continuation before the name
    b"<IfModule x>\nA b\n</IfModule> junk\n<IfModule y>\nB c\n",  # close error, not closed
    b"RewriteRule " + b"^a" * 200 + b" - [L]\nlast line without a newline",
    b"Header set \xe9\xff \xc3\xa9\n# \xff\n",
]


@pytest.mark.parametrize("data", EDGES)
def test_a_node_reads_the_same_from_the_file_as_from_its_own_string(
        data: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    shared = parse_bytes(data, "t/.htaccess", htaccess=True)
    derived = _parse_without_line_table(data, monkeypatch)
    assert [_describe(n) for n in derived.walk()] == [_describe(n) for n in shared.walk()]
    assert print_file(derived).encode("utf-8", "surrogateescape") == data
    assert any(isinstance(n._raw, Source) for n in derived.walk())


@needs_corpus
def test_every_corpus_file_reads_the_same_with_and_without_the_line_table(
        monkeypatch: pytest.MonkeyPatch) -> None:
    files = 0
    for path in apache_corpus_files():
        data = path.read_bytes()
        shared = parse_bytes(data, str(path), htaccess=True)
        derived = _parse_without_line_table(data, monkeypatch, str(path))
        assert [_describe(n) for n in derived.walk()] == [_describe(n) for n in shared.walk()]
        assert [str(e) for e in derived.errors] == [str(e) for e in shared.errors]
        if derived.ok:
            assert print_file(derived).encode("utf-8", "surrogateescape") == data, path
        files += 1
    assert files > 80


def test_a_large_file_keeps_no_string_per_distinct_line_and_shares_section_shapes() -> None:
    data = b"".join(b"Header set X-%d b\n<Files a>\nOptions -Indexes\n</Files>\n" % i
                    for i in range(5000))
    config = parse_bytes(data, "t/.htaccess", htaccess=True)
    headers = [n for n in config.nodes if isinstance(n, Directive)]
    sections = [n for n in config.nodes if isinstance(n, Section)]
    assert isinstance(headers[-1]._raw, Source)
    assert headers[-1].raw == "Header set X-4999 b\n"
    # a line met once is read from the file, even the first ones (the table of lines shares
    # a line from its second sight on: it kept the first 4,096 lines, none repeated); the
    # lines met again are one string (issue 10)
    assert isinstance(headers[0]._raw, Source)
    options = [s.children[0] for s in sections]
    assert isinstance(options[0]._raw, Source) and isinstance(options[1]._raw, str)
    assert all(o._raw is options[1]._raw for o in options[1:])
    # one shape a block of lines (the block's first line is the shape's: BLOCK_ROWS), and one
    # for the first section, whose closing line, met once then, is read from the file
    assert len({id(s._shape) for s in sections}) == len({s.line // BLOCK_ROWS
                                                          for s in sections}) + 1
    assert [s.close_line for s in sections[:2]] == [4, 8]
    assert print_file(config).encode() == data


def test_a_node_read_from_its_file_is_pickled_and_copied_with_its_line_only(
        monkeypatch: pytest.MonkeyPatch) -> None:
    data = b"<Files a>\nHeader set A b\n</Files>\n" + b"# " + b"x" * 5000 + b"\n"
    config = _parse_without_line_table(data, monkeypatch)
    section = config.nodes[0]
    assert isinstance(section._raw, Source) and isinstance(section._shape.close_raw, Source)
    sent = pickle.loads(pickle.dumps(section))
    assert _describe(sent) == _describe(section)
    assert _describe(sent.children[0]) == _describe(section.children[0])
    assert len(pickle.dumps(section)) < 1000  # not the file's 5 KB
    for node in config.walk():
        assert _describe(copy.copy(node)) == _describe(node)


def test_reading_an_access_file_with_nothing_to_change_keeps_the_parsed_nodes(
        tmp_path: Path) -> None:
    plain = tmp_path / "plain.htaccess"
    plain.write_bytes(b"<Files a>\nHeader set A b\n</Files>\nOptions -Indexes\n")
    loaded = load_htaccess(plain)
    assert loaded.nodes is loaded.files[str(plain)].nodes
    for text in (b"<IfDefine !X>\nHeader set A b\n</IfDefine>\n",
                 b"Header set A ${HOME}\n"):
        other = tmp_path / "other.htaccess"
        other.write_bytes(text)
        loaded = load_htaccess(other, environ={"HOME": "/h"})
        assert loaded.nodes is not loaded.files[str(other)].nodes
        assert [n.args for n in loaded.nodes if isinstance(n, Directive)] == [
            ["set", "A", "b"] if b"IfDefine" in text else ["set", "A", "/h"]]


def test_directives_at_one_column_share_their_place_and_replace_gets_its_own() -> None:
    config = parse_bytes(b"A 1\nB 2\n  C \\\n 3\nD 4\n", "t/.htaccess", htaccess=True)
    a, b, c, d = config.directives()
    assert a._place is b._place is d._place and c._place is not a._place
    assert [(n.file, n.line, n.column, n.end_line) for n in (a, b, c, d)] == [
        ("t/.htaccess", 1, 1, 1), ("t/.htaccess", 2, 1, 2), ("t/.htaccess", 3, 3, 4),
        ("t/.htaccess", 5, 1, 5)]
    moved = dataclasses.replace(b, column=7, end_line=9)
    assert (moved.file, moved.line, moved.column, moved.end_line, moved.args) == (
        "t/.htaccess", 2, 7, 9, ["2"])
    assert (a.column, a.end_line, b.column, b.end_line) == (1, 1, 1, 2)
    renamed = dataclasses.replace(d, name="E", args=["5"])
    assert (renamed.name, renamed.lname, renamed.args, renamed._place) == (
        "E", "e", ["5"], d._place)


def test_sections_that_differ_only_in_their_words_share_a_shape_and_keep_their_own_words(
) -> None:
    # issue 10: a 1 MB file of <If "…qN…"> blocks kept a shape, a line number and a list of
    # words a section (240 bytes each); the words are now the section's own, split when read
    data = b"".join(b'<If "%%{QUERY_STRING} =~ /q%d/">\nHeader set Y %d\n</If>\n' % (i, i)
                    for i in range(600)) + b"<If \"-z %{HTTPS}\">\nA b\n</If>\n" * 3
    config = parse_bytes(data, "t/.htaccess", htaccess=True)
    sections = [n for n in config.nodes if isinstance(n, Section)]
    assert len({id(s._shape) for s in sections}) <= len({s.line // BLOCK_ROWS
                                                          for s in sections}) + 2
    assert [(s.line, s.args, s.args_text, s.close_line) for s in sections[:2]] == [
        (1, ["%{QUERY_STRING} =~ /q0/"], '"%{QUERY_STRING} =~ /q0/"', 3),
        (4, ["%{QUERY_STRING} =~ /q1/"], '"%{QUERY_STRING} =~ /q1/"', 6)]
    assert sections[599].args == ["%{QUERY_STRING} =~ /q599/"]
    # a line met once keeps its text (split on each read); equal lines share one word list
    assert type(sections[0]._args) is str
    first, second, third = sections[-3:]
    assert [type(s._args) for s in (first, second, third)] == [str, SharedWords, SharedWords]
    assert first.args == second.args == ["-z %{HTTPS}"] and second.args is third.args
    # replace() keeps the words it is not given, and gives the node its own
    renamed = dataclasses.replace(sections[1], args=["-n %{HTTPS}"])
    assert (renamed.args, renamed.args_text, renamed.line, renamed.name) == (
        ["-n %{HTTPS}"], '"%{QUERY_STRING} =~ /q1/"', 4, "If")
    retexted = dataclasses.replace(sections[1], args_text="x y")
    assert (retexted.args, retexted.args_text) == (["%{QUERY_STRING} =~ /q1/"], "x y")
    moved = dataclasses.replace(sections[1], line=2000)
    assert (moved.args, moved.args_text, moved.line, moved.close_line) == (
        sections[1].args, sections[1].args_text, 2000, 2002)
    assert sections[1].line == 4
    assert _describe(pickle.loads(pickle.dumps(sections[1]))) == _describe(sections[1])
    assert print_file(config).encode() == data
