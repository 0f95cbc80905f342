"""A node's line is its block's first line (kept by the place or shape it shares with the
block's other nodes) plus its row in the block (syntax.ast.BLOCK_ROWS): every position a
reader may ask stays what the file says across block boundaries, through
``dataclasses.replace``, copies and pickles."""

from __future__ import annotations

import copy
import dataclasses
import pickle

from confmig.syntax import Directive, Section, parse_bytes, print_file
from confmig.syntax.ast import BLOCK_ROWS, Blank, Comment, Node


def _file_and_expected() -> tuple[bytes, list[tuple[str, int, int, int]]]:
    """About 3.5 blocks of lines of every kind; the expected (kind, line, column, end line)
    of each node, counted while writing it."""
    out: list[bytes] = []
    expected: list[tuple[str, int, int, int]] = []
    line = 1
    for i in range(450):
        kind = i % 6
        if kind == 0:
            out.append(b"\n")
            expected.append(("Blank", line, 1, line))
            line += 1
        elif kind == 1:
            out.append(b"  # note %d\n" % i)
            expected.append(("Comment", line, 3, line))
            line += 1
        elif kind == 2:
            out.append(b"Header set X-%d b\n" % i)
            expected.append(("Directive", line, 1, line))
            line += 1
        elif kind == 3:  # continued: its end line is the next one
            out.append(b"   Options \\\n  -Indexes\n")
            expected.append(("Directive", line, 4, line + 1))
            line += 2
        else:  # a section; its directive one line below
            out.append(b"<Files a%d>\n\tRequire all denied\n</Files>\n" % i)
            expected.append(("Section", line, 1, line))
            expected.append(("Directive", line + 1, 2, line + 1))
            line += 3
    return b"".join(out), expected


def _position(node: Node) -> tuple[str, int, int, int]:
    end = node.end_line if isinstance(node, Directive | Section) else node.line
    return (type(node).__name__, node.line, node.column, end)  # type: ignore[attr-defined]


def test_positions_are_the_file_s_across_blocks_of_lines() -> None:
    data, expected = _file_and_expected()
    assert expected[-1][1] > 3 * BLOCK_ROWS
    config = parse_bytes(data, "t/.htaccess", htaccess=True)
    assert config.ok
    assert [_position(n) for n in config.walk()] == expected
    sections = [n for n in config.walk() if isinstance(n, Section)]
    assert [s.close_line for s in sections] == [s.line + 2 for s in sections]
    assert all(n.file == "t/.htaccess" for n in config.walk())
    assert all(n.location == f"t/.htaccess:{n.line}:{n.column}"  # type: ignore[attr-defined]
               for n in config.walk())
    assert print_file(config).encode() == data


def test_nodes_copied_pickled_or_replaced_keep_or_take_their_lines() -> None:
    data, _ = _file_and_expected()
    nodes = list(parse_bytes(data, "t/.htaccess", htaccess=True).walk())
    for node in nodes:
        for other in (copy.copy(node), pickle.loads(pickle.dumps(node)),
                      dataclasses.replace(node)):
            assert _position(other) == _position(node)
            assert other.raw == node.raw
    for node in nodes[::7]:
        for line in (1, BLOCK_ROWS - 1, BLOCK_ROWS, BLOCK_ROWS + 1, node.line + 1000):
            moved = dataclasses.replace(node, line=line)
            kind, _, column, end = _position(node)
            assert _position(moved) == (kind, line, column, end - node.line + line)
            assert _position(node) == (kind, node.line, column, end)  # the original unchanged
    directive = next(n for n in nodes if isinstance(n, Directive) and n.line > BLOCK_ROWS)
    renamed = dataclasses.replace(directive, name="RequestHeader")
    assert (renamed.line, renamed.column, renamed.lname) == (
        directive.line, directive.column, "requestheader")


def test_nodes_made_by_hand_have_the_line_given() -> None:
    for line in (0, 1, 255, 256, 257, 100_000):
        assert Blank("f", line, 1, "\n").line == line
        assert Comment("f", line, 5, "    # x\n").location == f"f:{line}:5"
        directive = Directive("f", line, 2, " A b\n", name="A", args=["b"], end_line=line + 3)
        assert (directive.line, directive.end_line, directive.column) == (line, line + 3, 2)
        section = Section("f", line, 1, "<Files a>\n", name="Files", args=["a"],
                          args_text="a", end_line=line, close_raw="</Files>\n",
                          close_line=line + 9)
        assert (section.line, section.end_line, section.close_line) == (line, line, line + 9)
