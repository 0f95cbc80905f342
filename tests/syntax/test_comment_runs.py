"""A run of consecutive comment lines is one :class:`~confmig.syntax.ast.Comment` node, from
its first line to its ``end_line`` (issue 10: a node and its list slot a line cost 64 bytes,
33x a file of ``#`` lines).  The tree stays lossless, every other node keeps its line, and
:meth:`Comment.lines` gives each line of a run as the one-line node the parser made before
(its line, its column, its text as written)."""

from __future__ import annotations

import copy
import dataclasses
import pickle

from confmig.syntax import Blank, Comment, Directive, Node, Section, parse_bytes, print_file
from confmig.syntax.ast import BLOCK_ROWS
from tests.syntax.peak import parse_with_peak

# one comment line as written, and its column (the '#'), cycled through by the runs
_LINES = ((b"#\n", 1), (b"  # two\n", 3), (b"\t#three\r\n", 2), (b"# four \x0c five\x1c\n", 1),
          (b" \x0b#\n", 3), (b"#  # not a second comment \\ \n", 1))


def _file_and_expected() -> tuple[bytes, list[tuple[str, int, int, int]], list[tuple[int, int,
                                                                                     bytes]]]:
    """Runs of comment lines of many lengths and indents (CRLF, form feeds, across blocks of
    lines, in sections, next to blank lines, at the end of the file) between other lines;
    the expected (kind, line, column, end line) of each node, and (line, column, text) of
    each comment line, counted while writing them."""
    out: list[bytes] = []
    expected: list[tuple[str, int, int, int]] = []
    each: list[tuple[int, int, bytes]] = []
    line = 1

    def add(kind: str, text: bytes, lines: int = 1, column: int = 1) -> None:
        nonlocal line
        out.append(text)
        expected.append((kind, line, column, line + lines - 1))
        line += lines

    def run(n: int, start: int = 0) -> None:
        first = line
        for i in range(n):
            text, column = _LINES[(start + i) % len(_LINES)]
            each.append((first + i, column, text))
        add("Comment", b"".join(t for t, _ in (_LINES[(start + i) % len(_LINES)]
                                               for i in range(n))), n, _LINES[start][1])

    for k, n in enumerate((1, 2, 3, 7, BLOCK_ROWS - 1, BLOCK_ROWS, BLOCK_ROWS + 1,
                           2 * BLOCK_ROWS + 5, 1)):
        run(n, k % len(_LINES))
        add("Directive", b"Header set X-%d b\n" % n)
        add("Blank", b"\n\n", 2)
        run(2, 1)
        add("Blank", b"  \n", 1)
    add("Section", b"<Files a>\n")
    run(3, 2)
    add("Directive", b"\tRequire all denied\n", column=2)
    run(1)
    out.append(b"</Files>\n")
    line += 1
    # a comment line that is not one whole physical line is a node of its own, and ends the
    # run before it: continued by a backslash (it swallows the next line), or cut at a NUL
    run(2)
    each.append((line, 1, b"# cont \\\nHeader set X-No x\n"))
    add("Comment", b"# cont \\\nHeader set X-No x\n", 1)
    line += 1  # the continued line's second physical line
    run(1, 1)
    each.append((line, 1, b"# a\0 NUL\n"))
    add("Comment", b"# a\0 NUL\n", 1)
    run(300, 3)
    each.append((line, 1, b"# the last line, no newline"))
    add("Comment", b"# the last line, no newline", 1)
    return b"".join(out), expected, each


def _position(node: Node) -> tuple[str, int, int, int]:
    end = node.end_line if isinstance(node, Blank | Comment | Directive | Section) \
        else node.line  # type: ignore[attr-defined]
    return (type(node).__name__, node.line, node.column, end)  # type: ignore[attr-defined]


def _each(nodes: list[Node]) -> list[tuple[int, int, bytes]]:
    return [(one.line, one.column, one.raw.encode("utf-8", "surrogateescape"))
            for node in nodes if isinstance(node, Comment) for one in node.lines()]


def test_a_run_of_comment_lines_is_one_node_and_the_file_prints_back() -> None:
    data, expected, each = _file_and_expected()
    config = parse_bytes(data, "t/.htaccess", htaccess=True)
    assert config.ok
    assert [_position(n) for n in config.walk()] == expected
    assert print_file(config).encode("utf-8", "surrogateescape") == data
    # each line of a run is the one-line node the parser made for it before
    assert _each(list(config.walk())) == each
    for node in config.walk():
        if isinstance(node, Comment):
            assert node.location == f"t/.htaccess:{node.line}:{node.column}"
            for one in node.lines():
                assert one.end_line == one.line and one.lines() == [one]
                assert one.file == "t/.htaccess"
                assert one.text == one.raw.strip()[1:].strip()
            assert node.text == "\n".join(one.text for one in node.lines())


def test_a_run_keeps_its_lines_and_text_when_copied_pickled_or_moved() -> None:
    data, _, _ = _file_and_expected()
    nodes = [n for n in parse_bytes(data, "t/.htaccess", htaccess=True).walk()
             if isinstance(n, Comment)]
    for node in nodes:
        for other in (copy.copy(node), pickle.loads(pickle.dumps(node)),
                      dataclasses.replace(node)):
            assert _position(other) == _position(node)
            assert other.raw == node.raw
            assert _each([other]) == _each([node])
        for line in (1, BLOCK_ROWS + 1, node.line + 1, 10 * len(data)):
            moved = dataclasses.replace(node, line=line)
            kind, _, column, end = _position(node)
            assert _position(moved) == (kind, line, column, end - node.line + line)
            assert moved.raw == node.raw  # the text it was read from, not the file's there
            assert [r for _, _, r in _each([moved])] == [r for _, _, r in _each([node])]


def test_a_run_made_by_hand() -> None:
    run = Comment("f", 300, 1, "# a\n  # b\n#\n", end_line=302)
    assert (run.line, run.end_line, run.raw) == (300, 302, "# a\n  # b\n#\n")
    assert [(c.line, c.column, c.raw, c.text) for c in run.lines()] == [
        (300, 1, "# a\n", "a"), (301, 3, "  # b\n", "b"), (302, 1, "#\n", "")]
    single = Comment("f", 7, 3, "  # x\n")
    assert (single.end_line, single.lines(), single.text) == (7, [single], "x")
    assert _position(dataclasses.replace(run, line=5)) == ("Comment", 5, 1, 7)


def test_a_file_of_comment_lines_parses_in_a_few_bytes_a_line() -> None:
    # one node a line: 64 bytes a line (the node and its slot in the list); a run: 0.2
    data = b"#\n" * 10_000 + b"Options -Indexes\n" + b"  # x\r\n#\n" * 5_000
    config, peak = parse_with_peak(data)
    assert [_position(n) for n in config.nodes] == [
        ("Comment", 1, 1, 10_000), ("Directive", 10_001, 1, 10_001),
        ("Comment", 10_002, 3, 20_001)]
    assert peak / 20_001 < 2, f"{peak:,} bytes"
