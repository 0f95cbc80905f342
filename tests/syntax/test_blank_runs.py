"""A run of consecutive blank lines is one :class:`~confmig.syntax.ast.Blank` node, from its
first line to its ``end_line`` (issue 10: a node and its list slot a line cost 64 bytes, 65x
a file of blank lines).  The tree stays lossless, every other node keeps its line, and a run
keeps its lines and its text through copies, pickles and ``dataclasses.replace``."""

from __future__ import annotations

import copy
import dataclasses
import pickle

from confmig.syntax import Blank, Comment, Directive, Node, Section, parse_bytes, print_file
from confmig.syntax.ast import BLOCK_ROWS
from tests.syntax.peak import parse_with_peak


def _file_and_expected() -> tuple[bytes, list[tuple[str, int, int]]]:
    """Runs of blank lines of many lengths (CRLF, white space, across blocks of lines, in
    sections, at the end of the file) between other lines; the expected (kind, line, end line)
    of each node, counted while writing it."""
    out: list[bytes] = []
    expected: list[tuple[str, int, int]] = []
    line = 1

    def add(kind: str, text: bytes, lines: int = 1) -> None:
        nonlocal line
        out.append(text)
        expected.append((kind, line, line + lines - 1))
        line += lines

    for n in (1, 2, 3, 7, BLOCK_ROWS - 1, BLOCK_ROWS, BLOCK_ROWS + 1, 2 * BLOCK_ROWS + 5, 1):
        add("Blank", b"".join((b"\n", b"  \n", b"\t\r\n", b"\r\n")[i % 4] for i in range(n)),
            n)
        add("Directive", b"Header set X-%d b\n" % n)
        add("Comment", b"# note\n")
    add("Section", b"<Files a>\n")
    add("Blank", b"\n" * 3, 3)
    add("Directive", b"\tRequire all denied\n")
    add("Blank", b"\n", 1)
    out.append(b"</Files>\n")
    line += 1
    # a blank logical line that is not one whole physical line is a node of its own, and
    # ends the run before it: continued by a backslash, or a NUL byte in it
    add("Blank", b"\n\n", 2)
    add("Blank", b" \\\n\n", 1)
    line += 1  # the continued line's second physical line
    add("Blank", b"\n", 1)
    add("Blank", b"\0 x\n", 1)
    add("Blank", b"\n" * 300, 300)  # the file ends with a run
    return b"".join(out), expected


def _position(node: Node) -> tuple[str, int, int]:
    end = node.end_line if isinstance(node, Blank | Directive | Section) else node.line
    return (type(node).__name__, node.line, end)  # type: ignore[attr-defined]


def test_a_run_of_blank_lines_is_one_node_and_the_file_prints_back() -> None:
    data, expected = _file_and_expected()
    config = parse_bytes(data, "t/.htaccess", htaccess=True)
    assert config.ok
    assert [_position(n) for n in config.walk()] == expected
    assert print_file(config).encode() == data
    for node in config.walk():
        if isinstance(node, Blank):
            assert node.raw.count("\n") >= node.end_line - node.line + 1
            assert not node.raw.strip(" \t\r\n\\\0x")
            assert node.column == 1 and node.location == f"t/.htaccess:{node.line}:1"


def test_a_run_keeps_its_lines_and_text_when_copied_pickled_or_moved() -> None:
    data, _ = _file_and_expected()
    nodes = [n for n in parse_bytes(data, "t/.htaccess", htaccess=True).walk()
             if isinstance(n, Blank | Comment)]
    for node in nodes:
        for other in (copy.copy(node), pickle.loads(pickle.dumps(node)),
                      dataclasses.replace(node)):
            assert _position(other) == _position(node)
            assert other.raw == node.raw
        for line in (1, BLOCK_ROWS + 1, node.line + 1, 10 * len(data)):
            moved = dataclasses.replace(node, line=line)
            assert _position(moved) == (type(node).__name__, line,
                                        _position(node)[2] - node.line + line)
            assert moved.raw == node.raw  # the text it was read from, not the file's there


def test_a_run_made_by_hand() -> None:
    run = Blank("f", 300, 1, "\n\n\n", end_line=302)
    assert (run.line, run.end_line, run.raw) == (300, 302, "\n\n\n")
    assert Blank("f", 7, 1, "\n").end_line == 7
    assert _position(dataclasses.replace(run, line=5)) == ("Blank", 5, 7)


def test_a_file_of_blank_lines_parses_in_a_few_bytes_a_line() -> None:
    # one node a line: 64 bytes a line (the node and its slot in the list); a run: 0.2
    data = b"\n" * 10_000 + b"Options -Indexes\n" + b"\r\n  \n" * 5_000
    config, peak = parse_with_peak(data)
    assert [_position(n) for n in config.nodes] == [
        ("Blank", 1, 10_000), ("Directive", 10_001, 10_001), ("Blank", 10_002, 20_001)]
    assert peak / 20_001 < 2, f"{peak:,} bytes"
