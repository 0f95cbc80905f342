"""Typed, lossless syntax tree for Apache configuration files.

Every node keeps the exact source text it was parsed from (``raw``), so a file
can be printed back byte for byte (see :mod:`confmig.syntax.printer`), and its
position (file, 1-based line and column of its first non-blank character).

Arguments are split the way Apache's ``ap_getword_conf`` splits them
(:mod:`confmig.syntax.words`); ``args_text`` keeps the unsplit text so the loader
can substitute ``${VAR}`` first and split afterwards, as Apache does.
"""

from __future__ import annotations

import copyreg
import sys
from array import array
from collections.abc import Iterator
from dataclasses import dataclass, field

from confmig.syntax.words import SharedWords, WordTable, split_words

_SPACE = " \t\n\r\f\v"  # apr_isspace
_LEAD = " \t\r\f\v"  # white space before a comment line's '#' (apr_isspace but the newline)
# Joins the words a parsed directive keeps (see Directive._read): the parser leaves no NUL
# in a line it cuts lazily.
_JOIN = "\0"


class Source:
    """The bytes of one parsed file.  A node whose line as written is one whole physical line
    of the file, and not one the parser shares with equal lines, reads it from here when asked
    (:attr:`Node.raw`) instead of keeping a string of its own: a file of distinct lines held
    each of them as a string besides the file's bytes.  The index of where each physical
    line starts is made on the first read (4 bytes a line), not by the parse."""

    __slots__ = ("_data", "_starts")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._starts: array[int] | None = None

    def line(self, number: int) -> str:
        """Physical line ``number`` (1-based, with its newline), decoded as the parser
        decodes (``surrogateescape``: any byte round-trips)."""
        starts = self._starts
        if starts is None or len(starts) <= number:
            starts = self._index(number)
        return self._data[starts[number - 1]:starts[number]].decode("utf-8",
                                                                    "surrogateescape")

    def lines(self, first: int, last: int) -> str:
        """Physical lines ``first`` to ``last`` (1-based, both included, with their
        newlines), decoded as :meth:`line` decodes: a run of blank lines (:class:`Blank`)."""
        starts = self._starts
        if starts is None or len(starts) <= last:
            starts = self._index(last)
        return self._data[starts[first - 1]:starts[last]].decode("utf-8", "surrogateescape")

    def _index(self, number: int) -> array[int]:
        """The index of line starts, made to line ``number`` + 1 at least, and twice as far
        as it was (so that reading each line in turn makes it in a few steps): a file that
        shares its lines reads only the first of equal lines from here, mostly near its
        top, and a whole index (4 bytes a line) was 0.36 MB of a 1 MB file's lint."""
        data = self._data
        starts = self._starts
        if starts is None:
            starts = self._starts = array("I" if len(data) < 1 << 32 else "Q", (0,))
        want = max(number + 1, 2 * len(starts))
        find, append = data.find, starts.append
        at = find(b"\n", starts[-1])
        while at >= 0 and len(starts) < want:
            at += 1
            append(at)
            at = find(b"\n", at)
        return starts

    def __reduce__(self) -> tuple[type, tuple[bytes]]:
        return (Source, (self._data,))

    def __repr__(self) -> str:
        return f"<Source of {len(self._data)} bytes>"


# A directive's or a section's line is its block's first line (``base``, kept by the place or
# shape it shares with the nodes of its block) plus its row in the block (``_row``, 0 to 255):
# CPython keeps one int object for each of -5..256, so the row costs no object of its own,
# where a line number of its own cost 32 bytes a node (a third of a directive).
BLOCK_ROWS = 256


def block_of(line: int) -> tuple[int, int]:
    """``line`` as its block's first line and its row in the block (see :data:`BLOCK_ROWS`)."""
    row = line % BLOCK_ROWS
    return line - row, row


@dataclass(eq=False, slots=True, init=False)
class Node:
    """What every node has: its ``line`` (1-based, of its first non-blank character) and its
    text as written (``raw``).  ``line``, ``file`` and ``column`` are read from the place (or
    shape) a node shares with the others of its block of lines, and its row in the block.

    ``_raw`` is the text, or the file's :class:`Source` when the text is the physical line
    ``line`` of the file (the parser decides; see :class:`Source`).  Giving ``raw`` (to the
    constructor, ``dataclasses.replace`` or by assignment) stores the string."""

    _raw: str | Source = field(repr=False)

    @property
    def raw(self) -> str:
        raw = self._raw
        return raw if type(raw) is str else raw.line(self.line)  # type: ignore[attr-defined]

    @raw.setter
    def raw(self, text: str) -> None:
        self._raw = text

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}:{self.column}"  # type: ignore[attr-defined]

    def __reduce__(self) -> tuple[object, ...]:
        # A node sent to another process (or copied) takes its line, not its file's bytes.
        slots = self._slots()
        slots["_raw"] = self.raw
        return (copyreg.__newobj__, (type(self),), (None, slots))

    def _slots(self) -> dict[str, object]:
        """The values of the node's slots (``object.__getstate__`` of a slotted object)."""
        return dict(self.__getstate__()[1])  # type: ignore[index]


@dataclass(eq=False, slots=True, init=False, repr=False)
class _PlacedNode(Node):
    """A node of one logical line (blank, comment or directive): ``file``, ``column`` and
    ``line`` are read from the :class:`DirectivePlace` it shares with the nodes of its block
    of lines at that column, and its row ``_row`` in the block."""

    _row: int = field(repr=False)
    _place: DirectivePlace = field(repr=False)

    @property
    def line(self) -> int:
        return self._place.base + self._row

    @property
    def file(self) -> str:
        return self._place.file

    @property
    def column(self) -> int:
        return self._place.column


@dataclass(eq=False, slots=True, init=False, repr=False)
class _LineNode(_PlacedNode):
    """A run of blank lines or of comment lines, placed as a directive is: ``line`` to
    ``end_line``, its place's ``end_delta`` the last line's distance from the first (0 for
    a single line), and ``raw`` all of them as written.  A parsed run reads ``raw`` from
    the file's bytes when asked (:class:`Source`)."""

    def __init__(self, file: str | None = None, line: int | None = None,
                 column: int | None = None, raw: str | Source | None = None,
                 _raw: str | Source | None = None, _place: DirectivePlace | None = None,
                 _row: int | None = None, end_line: int | None = None) -> None:
        # What is given wins over _raw, _place and _row (dataclasses.replace passes those,
        # and what it changes).  ``end_line`` is a run's last line (see Blank, Comment); the
        # place's ``end_delta`` is kept when the node moves, and a node read from the file's
        # bytes that moves keeps the text it was read from.
        old = _place
        if line is None:
            line = old.base + _row if old is not None and _row is not None else 0
        elif raw is None and type(_raw) is Source and old is not None and _row is not None:
            # moved: its text is the lines it was read from, not those where it goes
            first = old.base + _row
            if line != first:
                _raw = _raw.lines(first, first + old.end_delta)
        base, self._row = block_of(line)
        self._raw = raw if raw is not None else _raw if _raw is not None else ""
        if old is not None and file is None and column is None and end_line is None \
                and old.base == base:
            self._place = old
        else:
            self._place = DirectivePlace(
                file if file is not None else old.file if old else "",
                column if column is not None else old.column if old else 0,
                end_line - line if end_line is not None else old.end_delta if old else 0,
                base)

    @classmethod
    def parsed(cls, row: int, raw: str | Source, place: DirectivePlace) -> _LineNode:
        """The parser's: the node on line ``place.base + row`` at ``place.column``."""
        node = cls.__new__(cls)
        node._row = row
        node._raw = raw
        node._place = place
        return node

    @property
    def raw(self) -> str:
        raw = self._raw
        if type(raw) is str:
            return raw  # type: ignore[return-value]
        place = self._place
        line = place.base + self._row
        return raw.lines(line, line + place.end_delta)  # type: ignore[union-attr]

    @raw.setter
    def raw(self, text: str) -> None:
        self._raw = text

    @property
    def end_line(self) -> int:
        place = self._place
        return place.base + self._row + place.end_delta

    def __repr__(self) -> str:
        return (f"{type(self).__name__}(line={self.line}, end_line={self.end_line}, "
                f"file={self.file!r}, column={self.column})")


@dataclass(eq=False, slots=True, init=False, repr=False)
class Blank(_LineNode):
    """A run of consecutive lines holding nothing but white space: ``line`` to
    ``end_line``, and ``raw`` all of them as written.

    The parser makes one node for a run of blank lines, not one a line: a node and its slot
    in its list cost 64 bytes, 64 times a line of one byte (issue 10: a file of blank lines
    took 65x its size to parse or lint; a memory bound of 10x the file cannot hold an object
    a line).  No other node's line changes, and what reads blank lines reads the run whole:
    the JSON form and the tree of ``confmig parse`` leave them out, lint rules read
    directives and sections, the printer and the loader pass ``raw`` on.  A writer that
    writes a blank line of its own for each (the httpd converter's blocks) writes
    ``end_line - line + 1`` of them.  The run's last line is its place's ``end_delta`` from
    the first (a one-line node: 0), so a run costs what a single blank line did.  Each line
    of a run is one whole physical line (``RawLine.single``); a blank logical line that is
    not (continued by a backslash, or cut at a NUL) is a node of its own, ``end_line`` its
    ``line`` as for a comment.  A parsed run reads ``raw`` from the file's bytes when asked
    (:class:`Source`)."""


@dataclass(eq=False, slots=True, init=False, repr=False)
class Comment(_LineNode):
    """A run of consecutive lines whose first non-blank character is ``#``: ``line`` to
    ``end_line``, ``raw`` all of them as written, ``column`` the first line's.

    The parser makes one node for a run of comment lines, as for :class:`Blank`, not one a
    line: a node and its slot in its list cost 64 bytes, 32 times a line ``#`` (issue 10: a
    file of such lines took 33x its size to parse or lint).  No other node's line changes.
    Each line of a run is one whole physical line (``RawLine.single``), whatever its
    indentation; a comment line that is not (continued by a backslash, which swallows the
    next line as Apache reads it, or cut at a NUL) is a node of its own, ``end_line`` its
    ``line``.  What reads comments a line at a time (the httpd converter recognising its
    own marker, ``convert/httpd/converted.py``, or writing each line with its indent) reads
    :meth:`lines`: one-line nodes made when asked, each with its line, column and text."""

    @property
    def text(self) -> str:
        """The comment's text without its ``#`` (a run: each line's, joined by newlines)."""
        if self._place.end_delta:
            return "\n".join(c.text for c in self.lines())
        body = self.raw.strip()
        return body[1:].strip() if body.startswith("#") else body

    def lines(self) -> list[Comment]:
        """Each line of the run as a one-line node of its own (its line, its column, its text
        as written); a one-line comment: itself."""
        place = self._place
        if not place.end_delta:
            return [self]
        line, file = place.base + self._row, place.file
        out: list[Comment] = []
        pieces = self.raw.split("\n")  # a line ends at LF only (a CR or FF is text)
        for index, piece in enumerate(pieces):
            if index == len(pieces) - 1 and not piece:
                break  # after the last newline
            text = piece + "\n" if index < len(pieces) - 1 else piece
            column = len(text) - len(text.lstrip(_LEAD)) + 1
            out.append(Comment(file, line + index, column, text))
        return out


class DirectivePlace:
    """Where the directives (and blank and comment lines) of one file at one column in one
    block of lines are, apart from their row in the block: ``file``, ``column``,
    ``end_delta``, the last line's distance from the first (0 for a one-line directive or
    comment), and ``base``, the block's first line (see :data:`BLOCK_ROWS`).  A
    :class:`Blank` or :class:`Comment` run's ``end_delta`` is its last line's distance from
    its first.  Never modified: a node given other values gets a place of its own."""

    __slots__ = ("base", "column", "end_delta", "file")

    def __init__(self, file: str, column: int, end_delta: int, base: int = 0) -> None:
        self.file = file
        self.column = column
        self.end_delta = end_delta
        self.base = base

    def __repr__(self) -> str:
        return f"DirectivePlace({self.file!r}, {self.column}, {self.end_delta}, {self.base})"


@dataclass(eq=False, slots=True, init=False)
class Directive(_PlacedNode):
    """One directive: ``Name arg arg ...``.

    ``name`` is spelt as written; compare with ``lname``.  ``end_line`` is the
    last physical line of a continued directive (Apache reports errors there).
    ``args_text`` is the text after the name (before ``${VAR}`` substitution splits it
    again), ``args`` its words.  The parser gives the nodes of one file that have the same
    argument text one shared ``args`` list (a large file repeats lines): never modify
    ``args`` in place — replace it, or the node (``dataclasses.replace``).

    ``file``, ``column``, ``end_line`` and ``line`` are read from a :class:`DirectivePlace`,
    which the parser shares between the directives of a block of lines at the same column,
    and the node's row in that block (``_row``: no int object of its own for its line);
    ``name`` and ``lname``, read by every rule, stay slots of their own.

    A parsed node holds its line once until more is asked of it: ``args_text`` is cut from
    ``raw`` and ``args`` split when first read (a tree of distinct lines held each line
    three times: as written, after the name, and as words — a parse reads none of them for
    an ``.htaccess`` file, a lint reads all).  What it keeps of them is one slot, ``_words``
    (80 bytes a node; a slot for the text and one for the words made it 88), one of:

    * the file's :class:`~confmig.syntax.words.WordTable`: not read yet;
    * a :class:`~confmig.syntax.words.SharedWords`: the words and the text, which the table
      shares with equal lines;
    * a string without NUL (:data:`_JOIN`): the argument text, whose words are the text
      split at single spaces (made again on each read of ``args``);
    * a string with a NUL: two words or more, joined with NUL; the text is cut from ``raw``
      again on each read;
    * a list: the words (one or none); the text is cut from ``raw`` again on each read;
    * a tuple ``(args_text, args)``: both kept (a node made by hand or by the loader).
    """

    name: str
    lname: str = field(init=False, repr=False)
    _words: SharedWords | list[str] | WordTable | str | tuple[str, list[str]] = field(
        repr=False)

    def __init__(self, file: str | None = None, line: int | None = None,
                 column: int | None = None, raw: str | Source | None = None, name: str = "",
                 args: list[str] | None = None, args_text: str | None = None,
                 end_line: int | None = None,
                 _words: list[str] | WordTable | str | tuple[str, list[str]] | None = None,
                 _raw: str | Source | None = None,
                 _place: DirectivePlace | None = None, _row: int | None = None) -> None:
        # What is given wins over _raw, _place, _row and _words (dataclasses.replace passes
        # those, and what it changes).
        old = _place
        if line is None:
            line = old.base + _row if old is not None and _row is not None else 0
        base, self._row = block_of(line)
        self._raw = raw if raw is not None else _raw if _raw is not None else ""
        if old is not None and file is None and column is None and end_line is None \
                and old.base == base:
            self._place = old
        else:
            self._place = DirectivePlace(
                file if file is not None else old.file if old else "",
                column if column is not None else old.column if old else 0,
                end_line - line if end_line is not None else old.end_delta if old else -line,
                base)
        self.name = name
        # compared by every rule and merger: computed once, and shared by every node
        self.lname = sys.intern(name.lower())
        if args is None and args_text is None:
            self._words = _words if _words is not None else ("", [])
            return
        if _words is not None and (args is None or args_text is None):
            # one of the two replaced: the other is the node's it was made from
            old_text, old_args = self._read_from(_words)
            args = args if args is not None else old_args
            args_text = args_text if args_text is not None else old_text
        if type(args) is SharedWords and args.text == args_text:  # type: ignore[union-attr]
            self._words = args  # the file's table shares both (a continued line)
        else:
            self._words = (args_text if args_text is not None else "",
                           args if args is not None else [])

    def _read_from(self, words: list[str] | WordTable | str | tuple[str, list[str]]
                   ) -> tuple[str, list[str]]:
        """The argument text and words that ``words`` (a ``_words`` value) stands for on
        this node's line."""
        if type(words) is tuple:
            return words  # type: ignore[return-value]
        if type(words) is SharedWords:
            return words.text, words  # type: ignore[union-attr,return-value]
        if type(words) is str and _JOIN not in words:
            return words, words.split(" ")  # type: ignore[return-value]
        text = self.raw.strip(_SPACE)[len(self.name):].lstrip(_SPACE)
        if isinstance(words, WordTable):
            return text, words.words(text)
        return text, (words.split(_JOIN) if type(words) is str  # type: ignore[union-attr]
                      else words)  # type: ignore[return-value]

    @classmethod
    def parsed(cls, row: int, raw: str | Source, place: DirectivePlace, name: str,
               lname: str, words: SharedWords | WordTable) -> Directive:
        """A node on line ``place.base + row`` whose argument text is what follows ``name``
        in ``raw``, cut when first read: the parser checked that ``raw`` has no continuation
        and no NUL, and starts with ``name`` (``lname``: its interned lower case).  Made
        without :meth:`__init__`'s choices: one per line of a parse."""
        node = cls.__new__(cls)
        node._row = row
        node._raw = raw
        node._place = place
        node.name = name
        node.lname = lname
        node._words = words
        return node

    @property
    def end_line(self) -> int:
        return self.line + self._place.end_delta

    def __repr__(self) -> str:
        return (f"Directive(file={self.file!r}, line={self.line}, column={self.column}, "
                f"name={self.name!r}, end_line={self.end_line})")

    @property
    def args_text(self) -> str:
        words = self._words
        if type(words) is SharedWords:
            return words.text  # type: ignore[union-attr]
        if type(words) is str:
            if _JOIN not in words:  # the text (see the class docstring)
                return words  # type: ignore[return-value]
        elif type(words) is tuple:
            return words[0]  # type: ignore[no-any-return]
        elif isinstance(words, WordTable):
            return self._read()
        return self.raw.strip(_SPACE)[len(self.name):].lstrip(_SPACE)

    @property
    def args(self) -> list[str]:
        words = self._words
        if type(words) is SharedWords:
            return words  # type: ignore[return-value]
        if type(words) is str:
            return words.split(_JOIN if _JOIN in words else " ")  # type: ignore[union-attr]
        if type(words) is tuple:
            return words[1]  # type: ignore[no-any-return]
        if isinstance(words, WordTable):
            self._read()
            return self.args
        return words  # type: ignore[return-value]

    def arg(self, index: int) -> str:
        """``args[index]`` (IndexError past the last word), without making the list of words
        where the node keeps its text: a parsed RewriteRule reads its pattern and substitution
        here on each use (issue 10)."""
        words = self._words
        if type(words) is str and _JOIN not in words:
            return words.split(" ", index + 1)[index]  # type: ignore[union-attr]
        return self.args[index]

    def args_unkept(self) -> list[str]:
        """The words, as :attr:`args`, without keeping them (nor the argument text) on a node
        not read yet: a reader that passes over each node once (``parse --format json``)
        leaves the tree as the parse made it."""
        words = self._words
        if isinstance(words, WordTable):
            return words.words(self.args_text_unkept())
        return self.args

    def args_text_unkept(self) -> str:
        """The argument text, as :attr:`args_text`, without keeping it on a node not read
        yet (``confmig parse`` prints each node's text once: keeping it would double the
        tree of a large file, as reading :attr:`args_text` also splits and keeps the words)."""
        if isinstance(self._words, WordTable):
            return self.raw.strip(_SPACE)[len(self.name):].lstrip(_SPACE)
        return self.args_text

    def _read(self) -> str:
        """Cut the argument text from ``raw`` (see :meth:`parsed`), split it, and keep what
        the class docstring says (both shared with equal lines of the file); returns the
        text.  Kept once read: a lint reads them several times a directive, and cutting
        costs five times a read.  Words the file's table shares with equal lines are kept
        as its list.  Words that are the text split at single spaces are kept as the text: a
        list and its strings cost about twice the text, and ``str.split`` makes them again
        faster than the lint reads them.  Other words (quoted, or split at other white
        space), two or more, are kept as one string, joined with NUL (:data:`_JOIN`, which
        no line the parser cuts lazily holds), and split again on each read: a list and a
        string a word cost ~130 bytes a line of ``Header set X-1 "b c"``, the joined string
        ~60, and a split at NUL costs no more than the lint saves on garbage collection of
        the lists.  One such word, or none, is kept as a list."""
        table = self._words
        assert isinstance(table, WordTable)
        text = self.raw.strip(_SPACE)[len(self.name):].lstrip(_SPACE)
        if text in table.again:  # table.repeated(text), inline: a line of the file repeats
            text = table.share(text)
            words = table.split(text)
        else:
            words = table.words(text)
        if type(words) is SharedWords or (len(words) < 2 and words != [text]):
            self._words = words  # shared, or one word (or none) that is not the text
        elif words == text.split(" "):
            self._words = text
        else:
            self._words = _JOIN.join(words)
        return text


class SectionShape:
    """What a section's opening and closing lines say, apart from where it is and its
    arguments: its file, column and name, and its closing line (``close_raw``, or the file's
    :class:`Source` when that is the physical line it is on) and error.  Lines are kept as
    distances from the opening line (``end_delta``, ``close_delta``), and the opening line as
    a row in the block of lines that starts at ``base`` (see :data:`BLOCK_ROWS`), so that the
    sections of one block written alike share one shape (the parser shares them: a file of
    ``<Files a>`` blocks repeats the same section; one shape each cost 136 bytes and a line
    number a section).  The arguments are the section's own (:attr:`Section.args`), so that
    sections that differ only in them share a shape too (a file of ``<If "…qN…">`` blocks
    kept a shape, a line number and a word list each: 240 bytes a section, issue 10).
    ``end`` is None for a section not closed, else the closing line's error ("" for none).
    Never modified: a section given other values gets a shape of its own."""

    __slots__ = ("base", "close_delta", "close_raw", "column", "end", "end_delta", "file",
                 "lname", "name")

    def __init__(self, file: str, column: int, name: str, end_delta: int,
                 close_raw: str | Source, close_delta: int, end: str | None,
                 base: int = 0) -> None:
        self.file = file
        self.column = column
        self.name = name
        # compared by every rule and merger: computed once, and shared by every section
        self.lname = sys.intern(name.lower())
        self.end_delta = end_delta
        self.close_raw = close_raw
        self.close_delta = close_delta
        self.end = end
        self.base = base

    def closed_by(self, close_raw: str | Source, close_delta: int, end: str | None
                  ) -> SectionShape:
        return SectionShape(self.file, self.column, self.name, self.end_delta, close_raw,
                            close_delta, end, self.base)

    def key(self) -> tuple[object, ...]:
        """Equal for shapes that say the same."""
        return (self.file, self.column, self.name, self.end_delta, self.close_raw,
                self.close_delta, self.end, self.base)

    def __repr__(self) -> str:
        return f"SectionShape({self.file!r}, {self.column}, {self.name!r}, end={self.end!r})"


@dataclass(eq=False, slots=True, init=False)
class Section(Node):
    """``<Name args>`` … ``</Name>``; ``raw`` is the opening line, ``close_raw`` the closing one.

    ``closed`` is False for a conditional section left open at the end of its file:
    Apache reads a true one to the end of the file, and rejects a false one.
    ``close_error`` is Apache's error for a conditional section's closing line that only a
    true section rejects (``</IfModule> x``: ``ap_build_cont_config`` wants the exact line,
    ``ap_soak_end_container`` skipping a false one does not); the loader reports it.

    A section keeps its row in its block of lines, opening text, arguments and children;
    everything else (``line``, ``file``, ``column``, ``name``, ``lname``, ``end_line``,
    ``close_raw``, ``close_line``, ``closed``, ``close_error``) is read from its
    :class:`SectionShape`, which sections of a block written alike share.  Never modify
    ``args`` in place.

    The arguments (``_args``) are one of:

    * a :class:`~confmig.syntax.words.SharedWords`: the words and the text, shared by the
      sections of the file whose opening lines are equal;
    * a string: the argument text, split into words on each read of ``args`` (a section met
      once: its words are read a few times by a lint, and a list of them kept cost 88 bytes
      a section besides its words);
    * a tuple ``(args_text, args)``: both kept (a node made by hand or by the loader).
    """

    _row: int = field(repr=False)
    _shape: SectionShape
    _args: SharedWords | str | tuple[str, list[str]] = field(repr=False)
    children: list[Node]

    def __init__(self, file: str | None = None, line: int | None = None,
                 column: int | None = None,
                 raw: str | Source | None = None, name: str | None = None,
                 args: list[str] | None = None, args_text: str | None = None,
                 end_line: int | None = None, children: list[Node] | None = None,
                 close_raw: str | None = None, close_line: int | None = None,
                 _raw: str | Source | None = None, _shape: SectionShape | None = None,
                 _row: int | None = None,
                 _args: SharedWords | str | tuple[str, list[str]] | None = None) -> None:
        # What is given wins over _raw, _row, _shape and _args (dataclasses.replace passes
        # those, and what it changes).
        old = _shape
        if line is None:
            line = old.base + _row if old is not None and _row is not None else 0
        base, self._row = block_of(line)
        self._raw = raw if raw is not None else _raw if _raw is not None else ""
        self.children = children if children is not None else []
        if args is None and args_text is None:
            self._args = _args if _args is not None else ""
        else:
            if _args is not None and (args is None or args_text is None):
                # one of the two replaced: the other is the node's it was made from
                old_text, old_words = _section_args(_args)
                args = args if args is not None else old_words
                args_text = args_text if args_text is not None else old_text
            if type(args) is SharedWords and args.text == args_text:  # type: ignore[union-attr]
                self._args = args  # type: ignore[assignment]
            else:
                self._args = (args_text if args_text is not None else "",
                              args if args is not None else [])
        if old is not None and file is None and column is None and name is None \
                and end_line is None and close_raw is None and close_line is None \
                and old.base == base:
            self._shape = old
            return
        self._shape = SectionShape(
            file if file is not None else old.file if old else "",
            column if column is not None else old.column if old else 0,
            name if name is not None else old.name if old else "",
            end_line - line if end_line is not None else old.end_delta if old else -line,
            close_raw if close_raw is not None else old.close_raw if old else "",
            close_line - line if close_line is not None else old.close_delta if old else -line,
            old.end if old else "", base)

    def _slots(self) -> dict[str, object]:
        slots = Node._slots(self)
        shape = self._shape
        if type(shape.close_raw) is not str:  # the closing line, not the file's bytes
            slots["_shape"] = shape.closed_by(self.close_raw, shape.close_delta, shape.end)
        return slots

    def close_at(self, raw: str | Source, line: int, error: str,
                 shapes: dict[tuple[object, ...], SectionShape], limit: int) -> None:
        """The parser's: the section is closed by ``raw`` on ``line`` (with the error only a
        true conditional section gives, or ""); ``shapes`` are the file's (the parser's
        choice of which), at most ``limit`` of them kept for sharing."""
        shape = self._shape.closed_by(raw, line - self.line, error)
        key = shape.key()
        found = shapes.get(key)
        if found is None:
            found = shape
            if len(shapes) < limit:
                shapes[key] = shape
        self._shape = found

    @property
    def line(self) -> int:
        return self._shape.base + self._row

    @property
    def file(self) -> str:
        return self._shape.file

    @property
    def column(self) -> int:
        return self._shape.column

    @property
    def name(self) -> str:
        return self._shape.name

    @property
    def lname(self) -> str:
        return self._shape.lname

    @property
    def args(self) -> list[str]:
        found = self._args
        if type(found) is str:
            return split_words(found)  # type: ignore[arg-type]
        if type(found) is tuple:
            return found[1]  # type: ignore[no-any-return]
        return found  # type: ignore[return-value]

    @property
    def args_text(self) -> str:
        found = self._args
        if type(found) is str:
            return found  # type: ignore[return-value]
        if type(found) is tuple:
            return found[0]  # type: ignore[no-any-return]
        return found.text  # type: ignore[union-attr]

    @property
    def end_line(self) -> int:
        return self.line + self._shape.end_delta

    @property
    def close_line(self) -> int:
        return self.line + self._shape.close_delta

    @property
    def close_raw(self) -> str:
        raw = self._shape.close_raw
        return raw if type(raw) is str else raw.line(self.close_line)  # type: ignore[union-attr]

    @property
    def closed(self) -> bool:
        return self._shape.end is not None

    @closed.setter
    def closed(self, value: bool) -> None:
        shape = self._shape
        end = (shape.end or "") if value else None
        self._shape = shape.closed_by(shape.close_raw, shape.close_delta, end)

    @property
    def close_error(self) -> str:
        return self._shape.end or ""

    @close_error.setter
    def close_error(self, message: str) -> None:
        shape = self._shape
        self._shape = shape.closed_by(shape.close_raw, shape.close_delta, message)

    def __repr__(self) -> str:
        return (f"Section(file={self.file!r}, line={self.line}, column={self.column}, "
                f"name={self.name!r}, args={self.args!r}, children={self.children!r})")

    def walk(self) -> Iterator[Node]:
        """Every node below this section, depth first, in file order."""
        return walk_nodes(self.children)


def _section_args(found: SharedWords | str | tuple[str, list[str]]) -> tuple[str, list[str]]:
    """The argument text and words a section's ``_args`` stands for."""
    if type(found) is str:
        return found, split_words(found)  # type: ignore[arg-type]
    if type(found) is tuple:
        return found  # type: ignore[return-value]
    return found.text, found  # type: ignore[union-attr,return-value]


def walk_nodes(nodes: list[Node]) -> Iterator[Node]:
    """Every node of ``nodes`` and below, depth first, in file order — without recursion,
    so that no nesting depth reaches Python's recursion limit."""
    stack: list[Iterator[Node]] = [iter(nodes)]
    while stack:
        for node in stack[-1]:
            yield node
            if isinstance(node, Section) and node.children:
                stack.append(iter(node.children))
                break
        else:
            stack.pop()


@dataclass(eq=False, slots=True)
class ParseError:
    """A syntax error, collected rather than thrown (crossplane style)."""

    file: str
    line: int
    column: int
    message: str

    def __str__(self) -> str:
        if self.line <= 0:  # about the file as a whole (not found, not readable…)
            return f"{self.file}: {self.message}"
        return f"{self.file}:{self.line}:{self.column}: {self.message}"


class ReadLimitError(Exception):
    """Input beyond a limit of confmig's own (not an error Apache would give): commands stop
    with this one-line ``file:line:col: message`` and exit 2."""

    def __init__(self, error: ParseError) -> None:
        super().__init__(str(error))
        self.error = error

    def __reduce__(self) -> tuple[type, tuple[ParseError]]:
        return (type(self), (self.error,))


@dataclass(eq=False, slots=True)
class ConfigFile:
    """One parsed file: its nodes, and any parse error (the nodes are then empty).

    ``warnings`` are constructs Apache accepts but that are almost certainly
    mistakes (a conditional section never closed).  ``variables`` is False when the file has
    no ``${`` (no line for the loader to substitute), ``conditional`` False when it has no
    conditional section (``<IfModule>``…): then reading it as Apache does keeps the nodes as
    parsed.
    """

    path: str
    nodes: list[Node] = field(default_factory=list)
    errors: list[ParseError] = field(default_factory=list)
    warnings: list[ParseError] = field(default_factory=list)
    line_count: int = 0
    variables: bool = True
    conditional: bool = True

    @property
    def ok(self) -> bool:
        return not self.errors

    def walk(self) -> Iterator[Node]:
        return walk_nodes(self.nodes)

    def directives(self) -> Iterator[Directive]:
        return (n for n in self.walk() if isinstance(n, Directive))
