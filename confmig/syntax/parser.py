"""Parse Apache configuration into the typed tree of :mod:`confmig.syntax.ast`.

Apache does not read its configuration with a grammar: ``ap_build_config`` (server/config.c)
takes one logical line at a time from ``ap_varbuf_cfg_getline`` and keeps a pointer to the
innermost open section.  This module does the same, with a stack instead of recursion:

* :class:`~confmig.syntax.reader.ConfigReader` gives the logical lines exactly as Apache
  reads them (line length limit, continuation, NUL, buffer sizes — see its docstring);
* a line whose first character is ``#``, or an empty line, is skipped; ``<Name …>`` opens a
  section, ``</Name>`` closes the innermost one, anything else is a directive.

Errors are collected as :class:`~confmig.syntax.ast.ParseError` with Apache's own wording,
never raised; the one exception is :class:`~confmig.syntax.ast.ReadLimitError` for input
beyond confmig's own limit (sections nested deeper than :data:`MAX_SECTION_DEPTH`).
"""

from __future__ import annotations

import os
import re
import stat
import sys
from pathlib import Path

from confmig.syntax.ast import (
    BLOCK_ROWS,
    Blank,
    Comment,
    ConfigFile,
    Directive,
    DirectivePlace,
    Node,
    ParseError,
    ReadLimitError,
    Section,
    SectionShape,
    Source,
    block_of,
)
from confmig.syntax.reader import (
    HTACCESS_MAX_LINE,
    SERVER_MAX_LINE,
    ConfigReader,
    LineTooLong,
    logical_bytes,
)
from confmig.syntax.words import (
    SHARED_ENTRIES,
    SHARED_LENGTH,
    SharedWords,
    WordTable,
    first_word,
)

# Sections Apache evaluates while reading (EXEC_ON_READ); their body is read by
# ap_build_cont_config, which stops quietly at the end of the file.
CONDITIONAL_SECTIONS = frozenset(
    {"ifmodule", "ifdefine", "ifversion", "iffile", "ifdirective", "ifsection"})

# confmig's own limit on section nesting: every consumer of the tree (printer, JSON, merge,
# lint rules) stays far from Python's recursion limit.  Apache has no limit of its own: it
# reads conditional sections by C recursion and crashes (stack overflow) between 5,000 and
# 10,000 nested <IfModule>, and between 10,000 and 20,000 nested <If>
# (tests/test_syntax_reader_apache.py).  No real configuration comes close to 128 — the
# figure Apache uses for its own Include and directory nesting limits.
MAX_SECTION_DEPTH = 128

_SPACE = " \t\n\r\f\v"
# White space before the first word of a line; a continuation there is white space too.
_LEAD = re.compile(r"(?:[ \t\f\v\r]|\\\r?\n)*")
_LEAD_CHARS = frozenset(" \t\f\v\r\\")
# The first word of a line without quotes or backslashes (Apache's white space: apr_isspace).
_FIRST_WORD = re.compile(r"[^ \t\n\r\f\v]+")


def decode(data: bytes) -> str:
    """Config bytes to text that encodes back to the very same bytes."""
    return data.decode("utf-8", errors="surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def logical_text(raw: str) -> str:
    """The logical line Apache reads from one node's ``raw`` text: continuations joined,
    cut at a NUL byte, trimmed (``ap_cfg_getline``)."""
    if "\\" not in raw and "\0" not in raw:
        return raw.strip(_SPACE)
    return decode(logical_bytes(encode(raw)))


def depth_error(file: str, line: int, column: int) -> ParseError:
    """The error for a section opened :data:`MAX_SECTION_DEPTH` levels deep (the loader
    uses it too, for sections nested through Include)."""
    return ParseError(
        file, line, column,
        f"sections nested more than {MAX_SECTION_DEPTH} deep: confmig reads at most "
        f"{MAX_SECTION_DEPTH} levels (Apache has no set limit; it crashes at a few thousand)")


class _Stop(Exception):
    """The first error Apache stops at."""

    def __init__(self, error: ParseError) -> None:
        super().__init__(str(error))
        self.error = error


class _Frame:
    __slots__ = ("children", "conditional", "section")

    def __init__(self, section: Section | None, conditional: bool) -> None:
        self.section = section
        self.conditional = conditional
        self.children: list[Node] = section.children if section is not None else []


class _Builder:
    """``ap_build_config`` over the reader's lines, with a stack of open sections."""

    def __init__(self, data: bytes, filename: str, max_len: int,
                 warnings: list[ParseError]) -> None:
        self.data = data
        self.file = filename
        self.reader = ConfigReader(data, max_len)
        self.warnings = warnings
        self.stack = [_Frame(None, False)]
        # Lines, names, words and word lists repeat from line to line: one shared object
        # each keeps a large file's tree small.  Lines have a table of their own, so that
        # the words split after the parse (Directive.args) still find room in theirs.  A
        # one-line node whose line is not shared (a long one, or once the table is full)
        # reads it from the file's bytes when asked (Source), and sections written alike
        # share one SectionShape.  Places and shapes hold the first line of a block of
        # lines (ast.BLOCK_ROWS), so those shared are the current block's: they are
        # forgotten when a new block starts.
        self.table = WordTable(len(data))
        self._share = self.table.share
        self._again = self.table.again
        self._lines: dict[str, str] = {}
        self.source = Source(data)
        self.conditional = False  # a conditional section was read
        self._shapes: dict[tuple[object, ...], SectionShape] = {}
        self._places: dict[tuple[int, int], DirectivePlace] = {}
        self._places_base = 0
        self._last_place = DirectivePlace(filename, -1, -1, 0)  # matches no node
        self._shapes_base = 0
        self._lnames: dict[str, str] = {}

    def build(self) -> list[Node]:
        """The file's nodes.  Consecutive blank lines that are each one whole physical line
        are one :class:`Blank` node, and consecutive comment lines that are each one whole
        physical line one :class:`Comment` node (see there): a run is noted (its first and
        last line, and a comment run's first column) while it lasts, and its node added when
        another line, or the end of the file, comes."""
        reader, data, file, stack = self.reader, self.data, self.file, self.stack
        lines, source, seen_before = self._lines, self.source, self.table.seen_before
        blank, comment = Blank.parsed, Comment.parsed
        run_first = run_last = 0  # the blank lines not added yet (none: 0)
        notes_first = notes_last = 0  # the comment lines not added yet (none: 0)
        notes_column = 1
        while True:
            try:
                line = reader.next_line()
            except LineTooLong as exc:
                raise _Stop(ParseError(
                    file, exc.line, 1,
                    f"Error reading {file} at line {exc.line}: Line too long")) from None
            if line is None:
                break
            text = line.text
            if line.single:
                if not text:
                    if notes_first:
                        self._run(Comment, notes_first, notes_last, notes_column)
                        notes_first = 0
                    run_last = line.first
                    if not run_first:
                        run_first = run_last
                    continue
                if text[0] == 0x23:  # '#'
                    if run_first:
                        self._run(Blank, run_first, run_last, 1)
                        run_first = 0
                    notes_last = line.first
                    if not notes_first:
                        notes_first = notes_last
                        # only white space before the '#' (no continuation: one line)
                        notes_column = data.find(b"#", line.start) - line.start + 1
                    continue
            if run_first or notes_first:  # one run at most is open
                if run_first:
                    self._run(Blank, run_first, run_last, 1)
                    run_first = 0
                else:
                    self._run(Comment, notes_first, notes_last, notes_column)
                    notes_first = 0
            written = data[line.start:line.end].decode("utf-8", "surrogateescape")
            raw: str | Source
            raw = lines.get(written) or written
            shared = raw is not written  # met before (then its argument text too)
            if not shared:
                if len(lines) < SHARED_ENTRIES and seen_before(written):
                    shared = True
                    if len(written) < SHARED_LENGTH:
                        lines[written] = written  # met twice: shared from now on
                    elif line.single:
                        raw = source
                elif line.single:
                    raw = source  # the physical line line.first: read when asked
            if not text:
                row = line.first
                place = self._last_place  # _place's common case, inline: a line in three
                if not (row - place.base < BLOCK_ROWS and place.column == 1
                        and place.end_delta == 0):
                    place = self._place(1, 0, row)
                stack[-1].children.append(blank(row - place.base, raw, place))
                continue
            row, col = self._position(written, line.first)
            first = text[:1]
            if first == b"#":
                place = self._last_place
                if not (row - place.base < BLOCK_ROWS and place.column == col
                        and place.end_delta == 0):
                    place = self._place(col, 0, row)
                stack[-1].children.append(comment(row - place.base, raw, place))
            elif first == b"<" and text[1:2] == b"/":
                self._close(decode(text), raw, row, col)
            elif first == b"<":
                self._open(decode(text), raw, row, col, line.last, shared)
            else:
                reader.allocated()
                stack[-1].children.append(self._directive(decode(text), raw, written, row,
                                                          col, line.last, shared))
        if run_first:
            self._run(Blank, run_first, run_last, 1)
        if notes_first:
            self._run(Comment, notes_first, notes_last, notes_column)
        self._end_of_file()
        return stack[0].children

    def _run(self, kind: type[Blank] | type[Comment], first: int, last: int,
             column: int) -> None:
        """The node of blank or comment lines ``first`` to ``last`` (each one whole physical
        line; the first at ``column``), in the innermost open section: its text is read from
        the file's bytes when asked."""
        place = self._place(column, last - first, first)
        self.stack[-1].children.append(kind.parsed(first - place.base, self.source, place))

    @staticmethod
    def _position(raw: str, line: int) -> tuple[int, int]:
        """Line and column of the first non-blank character of ``raw``."""
        if raw[:1] not in _LEAD_CHARS:  # the common case: nothing before the first word
            return line, 1
        lead = _LEAD.match(raw).end()  # type: ignore[union-attr]
        if not lead:
            return line, 1
        skipped = raw[:lead]
        before = skipped.count("\n")
        if not before:
            return line, lead + 1
        return line + before, lead - skipped.rfind("\n")

    def _place(self, column: int, end_delta: int, row: int) -> DirectivePlace:
        """The place of a node on line ``row`` (of the current block of lines: rows only
        grow) at ``column``, shared with the block's other nodes there; the node's row in
        the block is ``row - place.base``."""
        place = self._last_place  # most lines are where the one before them was
        if row - place.base < BLOCK_ROWS and place.column == column \
                and place.end_delta == end_delta:
            return place
        base = row - row % BLOCK_ROWS
        if base != self._places_base:
            self._places.clear()
            self._places_base = base
        key = (column, end_delta)
        place = self._places.get(key)  # type: ignore[assignment]
        if place is None:
            place = DirectivePlace(self.file, column, end_delta, base)
            if len(self._places) < SHARED_ENTRIES:
                self._places[key] = place
        self._last_place = place
        return place

    def _directive(self, text: str, raw: str | Source, written: str, row: int, col: int,
                   last: int, shared: bool) -> Directive:
        if '"' in text or "'" in text or "\\" in text:
            name, rest = first_word(text)
        else:  # the common case: plain words
            name = _FIRST_WORD.match(text).group()  # type: ignore[union-attr]
            rest = text[len(name):].lstrip(_SPACE)
        name = self._share(name)
        place = self._place(col, last - row, row)
        if "\\" in written or "\0" in written or not name or not text.startswith(name):
            # a continuation, a NUL or a quoted name: the argument text is kept as read
            rest = self._share(rest)
            return Directive(line=row, _raw=raw, _place=place, name=name,
                             args=self.table.split(rest), args_text=rest)
        # The argument text is the end of raw (Directive.args_text), and the words are split
        # when first read — at once when a line with the same text was split already.
        found = self.table.lists.get(rest)
        if shared and found is None and rest not in self._again:
            self.table.sight(rest)  # its line was met before: its words will be shared
        lname = self._lnames.get(name)
        if lname is None:
            lname = sys.intern(name.lower())
            if len(self._lnames) < SHARED_ENTRIES:
                self._lnames[name] = lname
        return Directive.parsed(row - place.base, raw, place, name, lname,
                                self.table if found is None else found)

    def _open(self, text: str, raw: str | Source, row: int, col: int, last: int,
              shared: bool) -> None:
        word, rest = first_word(text)
        # ap_build_config_sub: '<Name>' with no arguments is the name with its '>' cut off
        # and the argument string '>'.
        if word.endswith(">"):
            word = word[:-1]
            rest = rest or ">"
        name = word[1:]
        bracket = rest.rfind(">")
        if bracket < 0:
            raise _Stop(ParseError(self.file, row, col,
                                   f"<{name}> directive missing closing '>'"))
        if len(self.stack) > MAX_SECTION_DEPTH:
            raise ReadLimitError(depth_error(self.file, row, col))
        args_text = rest[:bracket].strip(_SPACE)
        args_text = self._share(args_text)
        # The words of an opening line met before are the table's, shared; those of a line
        # met once are split when read (Section's docstring).
        words: SharedWords | str = args_text
        if shared or args_text in self.table.lists:
            split = self.table.split(args_text)
            if type(split) is SharedWords:
                words = split
        section = Section(self.file, row, col, raw, name=self._share(name),
                          end_line=row if last == row else last, _args=words)
        self.stack[-1].children.append(section)
        conditional = section.lname in CONDITIONAL_SECTIONS
        self.reader.allocated()
        if conditional:
            self.conditional = True
            self.reader.open_buffer()  # ap_build_cont_config / ap_soak_end_container
        self.stack.append(_Frame(section, conditional))

    def _close(self, text: str, raw: str | Source, row: int, col: int) -> None:
        word, _ = first_word(text)
        error = ""
        frame = self.stack[-1]
        section = frame.section
        if section is None:
            raise _Stop(ParseError(self.file, row, col,
                                   f"{word} without matching <{word[2:]} section"))
        name = section.name
        if frame.conditional:
            self.reader.close_buffer()
            if text.lower() != f"</{name.lower()}>":
                # ap_build_cont_config ends a true conditional only at a line that is
                # exactly </Name>; any other closing line is a stray end of section there.
                # ap_soak_end_container, skipping a false one, cuts the word's last
                # character and compares the name.
                message = f"{word} without matching <{word[2:]} section"
                if word[2:-1].lower() != name.lower():
                    raise _Stop(ParseError(self.file, row, col, message))
                error = message
        else:
            if not word.endswith(">"):
                raise _Stop(ParseError(self.file, row, col,
                                       f"{word}> directive missing closing '>'"))
            if word[2:-1].lower() != name.lower():
                raise _Stop(ParseError(self.file, row, col,
                                       f"Expected </{name}> but saw {word}"))
        base = block_of(section.line)[0]  # its opening line's block (its shape's)
        if base != self._shapes_base:
            self._shapes.clear()
            self._shapes_base = base
        section.close_at(raw, row, error, self._shapes, SHARED_ENTRIES)
        # An exact-size copy: a list grown by appends keeps room for more (3 more words for
        # one child: 24 bytes a section).
        section.children = section.children[:]
        self.stack.pop()

    def _end_of_file(self) -> None:
        """Sections still open: a conditional one is read to the end of the file (Apache
        rejects it later if its condition is false); any other is an error."""
        for frame in reversed(self.stack[1:]):
            section = frame.section
            assert section is not None
            section.closed = False
            if not frame.conditional:
                raise _Stop(ParseError(self.file, section.line, section.column,
                                       f"<{section.name}> was not closed."))
            self.warnings.append(ParseError(
                self.file, section.line, section.column,
                f"<{section.name}> was not closed: Apache reads it to the end of the file "
                f"when its condition is true and refuses the file when it is false"))


def parse_bytes(data: bytes, filename: str = "<string>", *, htaccess: bool = False
                ) -> ConfigFile:
    """Parse configuration ``data`` as Apache reads a server config file (``htaccess``:
    an ``.htaccess`` file, whose lines are limited to 8,192 bytes).  Errors are collected in
    the result; :class:`ReadLimitError` is raised for input beyond confmig's own limits."""
    # A UTF-8 byte order mark is not skipped: on Unix Apache reads it as part of the first
    # word (Invalid command '\xef\xbb\xbfOptions'), and so does confmig.
    result = ConfigFile(path=filename, line_count=data.count(b"\n") + 1,
                        variables=b"${" in data, conditional=False)
    if not data:
        return result
    builder = _Builder(data, filename, HTACCESS_MAX_LINE if htaccess else SERVER_MAX_LINE,
                       result.warnings)
    try:
        result.nodes = builder.build()
    except _Stop as exc:
        result.errors.append(exc.error)
    result.conditional = builder.conditional
    return result


def parse_text(text: str, filename: str = "<string>", *, htaccess: bool = False
               ) -> ConfigFile:
    """Parse configuration ``text`` (see :func:`parse_bytes`)."""
    return parse_bytes(encode(text), filename, htaccess=htaccess)


def regular_file_error(path: str | Path) -> str | None:
    """Apache's refusal of anything but a regular file (``ap_pcfg_openfile``), or None.

    Checked with ``stat`` before opening: a FIFO would block the read, ``/dev/zero`` would
    never end.  ``/dev/null`` is allowed, as Apache allows it.
    """
    name = str(path)
    try:
        mode = os.stat(name).st_mode
    except OSError:
        return None  # reading it reports the error
    if stat.S_ISREG(mode) or name == "/dev/null":
        return None
    return (f"Could not open configuration file {name}: Access to file {name} denied by "
            f"server: not a regular file")


def parse_file(path: str | Path, display_name: str | None = None, *,
               htaccess: bool = False) -> ConfigFile:
    """Read and parse one file. An unreadable file is a collected error too."""
    name = display_name or str(path)
    refused = regular_file_error(path)
    if refused is not None:
        result = ConfigFile(path=name)
        result.errors.append(ParseError(name, 0, 0, refused))
        return result
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        result = ConfigFile(path=name)
        result.errors.append(ParseError(name, 0, 0, f"cannot read file: {exc.strerror or exc}"))
        return result
    return parse_bytes(data, name, htaccess=htaccess)
