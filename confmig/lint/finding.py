"""What a lint rule reports."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import islice
from operator import attrgetter
from typing import overload


class Severity(StrEnum):
    error = "error"        # Apache fails (500, refuses to start) or does other than written
    warning = "warning"    # works, but wrong, insecure or deprecated
    info = "info"          # a better way exists (performance, hoisting)


# Equal messages share one string, remembered up to this many (a bounded table, emptied by
# forget_messages at the end of a lint: the strings do not outlive the findings).
_SHARED_ENTRIES = 4096
_messages: dict[str, str] = {}


def _share(message: str) -> str:
    found = _messages.get(message)
    if found is not None:
        return found
    if len(_messages) < _SHARED_ENTRIES:
        _messages[message] = message
    return message


def forget_messages() -> None:
    """Empty the table of shared messages (what the findings hold stays)."""
    _messages.clear()


@dataclass(frozen=True, slots=True)
class Finding:
    code: str
    message: str
    file: str
    line: int
    column: int
    severity: Severity
    hint: str | None = None       # how to fix it, one line
    end_column: int | None = None

    def __post_init__(self) -> None:
        # A rule repeats a message for every repeated line (DUP002 on 47,620 equal lines):
        # one string for equal messages keeps the findings of a large file small.
        object.__setattr__(self, "message", _share(self.message))

    @property
    def location(self) -> str:
        """``file:line:col``, or the file alone for a finding about the whole file."""
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.column}"


_new = object.__new__
# The slots' own setters (a frozen dataclass refuses setattr; these are what its __init__
# ends up calling, without the lookups).
_set_code, _set_message, _set_file, _set_line, _set_column, _set_severity, _set_hint, \
    _set_end = (getattr(Finding, name).__set__ for name in (
        "code", "message", "file", "line", "column", "severity", "hint", "end_column"))


def _made(code: str, message: str, file: str, line: int, column: int, severity: Severity,
          hint: str | None, end_column: int | None) -> Finding:
    """A finding from its fields as they are (its message is not looked up in the table of
    shared messages, which a lint empties at its end: reading a lint's findings afterwards
    must not fill it again)."""
    finding = _new(Finding)
    _set_code(finding, code)
    _set_message(finding, message)
    _set_file(finding, file)
    _set_line(finding, line)
    _set_column(finding, column)
    _set_severity(finding, severity)
    _set_hint(finding, hint)
    _set_end(finding, end_column)
    return finding


_NO_END = -2 ** 31     # end_column None (a column is never that low)
_BATCH = 512           # findings of a generator made into columns at a time
_line, _column, _message = attrgetter("line"), attrgetter("column"), attrgetter("message")
_hint, _file = attrgetter("hint"), attrgetter("file")
_code, _severity = attrgetter("code"), attrgetter("severity")


def _end_value(finding: Finding) -> int:
    end = finding.end_column
    if end is None:
        return _NO_END
    if end == _NO_END:
        raise OverflowError(f"end column {end} out of range")
    return end


class Findings(Sequence[Finding]):
    """Findings kept a field per column: ~40 bytes a finding, where a list of `Finding`
    objects costs ~104 (the object 96, its place in the list 8).

    A lint can report a finding on every line (DUP002 on 47,620 equal lines of a 1 MB file:
    4.4 MB of objects, kept from the rule that makes them to the reporter that writes them).
    Here the message, hint and file are references (8 bytes each: equal messages are one
    string already, a file's findings share its name), the line, column and end column
    32-bit integers (Apache counts lines in an ``unsigned int`` too), and the code with the
    severity an index into the container's small table of the pairs it has seen.  A finding
    read (indexing, iterating) is made again from its fields, equal to the one added.
    """

    __slots__ = (
        "_columns",
        "_ends",
        "_files",
        "_hints",
        "_kind_index",
        "_kind_table",
        "_kinds",
        "_lines",
        "_messages",
    )

    def __init__(self, findings: Iterable[Finding] = ()) -> None:
        self._messages: list[str] = []
        self._hints: list[str | None] = []
        self._files: list[str] = []
        self._lines = array("i")
        self._columns = array("i")
        self._ends = array("i")
        self._kinds = array("I")
        self._kind_table: list[tuple[str, Severity]] = []
        # (code, id of the severity): a Severity hashes in Python, its id in C
        self._kind_index: dict[tuple[str, int], int] = {}
        self.extend(findings)

    # -- adding ---------------------------------------------------------------------------

    def append(self, finding: Finding) -> None:
        self._add([finding])

    def extend(self, findings: Iterable[Finding]) -> None:
        if isinstance(findings, Findings):
            self._add_columns(findings)
        elif isinstance(findings, list | tuple):
            self._add(findings)
        else:  # a rule's generator: a batch at a time (not all its findings as objects)
            found = iter(findings)
            size = _BATCH
            while size == _BATCH:
                batch: list[Finding] = []
                try:  # (list.extend keeps what came before a rule raised: so does this)
                    batch.extend(islice(found, _BATCH))
                finally:
                    self._add(batch)
                size = len(batch)

    def __iadd__(self, findings: Iterable[Finding]) -> Findings:
        self.extend(findings)
        return self

    def _add(self, batch: Sequence[Finding]) -> None:
        """Add ``batch``, a column at a time; all of it or, when a value does not fit a
        column (OverflowError, TypeError), none of it."""
        if not batch:
            return
        size = len(self._kinds)
        try:
            self._lines.extend(map(_line, batch))
            self._columns.extend(map(_column, batch))
            self._ends.extend(map(_end_value, batch))
            keys = list(zip(map(_code, batch), map(id, map(_severity, batch)), strict=True))
            if not self._kind_index.keys() >= set(keys):
                for finding in batch:
                    self._kind_of(finding.code, finding.severity)
            self._kinds.extend(map(self._kind_index.__getitem__, keys))
        except BaseException:
            for column in (self._lines, self._columns, self._ends, self._kinds):
                del column[size:]
            raise
        self._messages.extend(map(_message, batch))
        self._hints.extend(map(_hint, batch))
        self._files.extend(map(_file, batch))

    def _add_columns(self, other: Findings) -> None:
        """Add every finding of ``other`` (its columns copied, no finding made)."""
        if other is self:
            other = Findings()
            other._add_columns(self)
        remap = [self._kind_of(code, severity) for code, severity in other._kind_table]
        kinds = other._kinds
        if remap != list(range(len(remap))):
            kinds = array("I", map(remap.__getitem__, kinds))
        self._kinds.extend(kinds)
        self._lines.extend(other._lines)
        self._columns.extend(other._columns)
        self._ends.extend(other._ends)
        self._messages.extend(other._messages)
        self._hints.extend(other._hints)
        self._files.extend(other._files)

    def _kind_of(self, code: str, severity: Severity) -> int:
        key = (code, id(severity))  # (the table keeps the severity: its id is not reused)
        kind = self._kind_index.get(key)
        if kind is None:
            kind = self._kind_index[key] = len(self._kind_table)
            self._kind_table.append((code, severity))
        return kind

    # (a pool worker sends its findings pickled: the index, keyed by ids, is made again)
    _STATE = ("_messages", "_hints", "_files", "_lines", "_columns", "_ends", "_kinds",
              "_kind_table")

    def __getstate__(self) -> tuple[object, ...]:
        return tuple(getattr(self, name) for name in self._STATE)

    def __setstate__(self, state: tuple[object, ...]) -> None:
        for name, value in zip(self._STATE, state, strict=True):
            setattr(self, name, value)
        self._kind_index = {(code, id(severity)): kind
                            for kind, (code, severity) in enumerate(self._kind_table)}

    # -- reading --------------------------------------------------------------------------

    def __len__(self) -> int:
        return len(self._kinds)

    def _row(self, row: int) -> Finding:
        code, severity = self._kind_table[self._kinds[row]]
        end = self._ends[row]
        return _made(code, self._messages[row], self._files[row], self._lines[row],
                     self._columns[row], severity, self._hints[row],
                     None if end == _NO_END else end)

    @overload
    def __getitem__(self, index: int) -> Finding: ...

    @overload
    def __getitem__(self, index: slice) -> list[Finding]: ...

    def __getitem__(self, index: int | slice) -> Finding | list[Finding]:
        if isinstance(index, slice):
            return [self._row(row) for row in range(len(self))[index]]
        return self._row(range(len(self))[index])

    def __iter__(self) -> Iterator[Finding]:
        table = self._kind_table
        for kind, message, file, line, column, end, hint in zip(
                self._kinds, self._messages, self._files, self._lines, self._columns,
                self._ends, self._hints, strict=True):
            code, severity = table[kind]
            yield _made(code, message, file, line, column, severity, hint,
                        None if end == _NO_END else end)

    def codes(self) -> Iterator[str]:
        """Each finding's code, in order (no finding made)."""
        table = self._kind_table
        return (table[kind][0] for kind in self._kinds)

    def severities(self) -> Iterator[Severity]:
        """Each finding's severity, in order (no finding made)."""
        table = self._kind_table
        return (table[kind][1] for kind in self._kinds)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Findings | list | tuple):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other,
                                                                      strict=True))

    __hash__ = None  # type: ignore[assignment]  # (mutable, as a list)

    def __repr__(self) -> str:
        return f"Findings({list(self)!r})"

    def sorted(self) -> Findings:
        """A sorted copy (:meth:`sort`)."""
        out = Findings()
        out._add_columns(self)
        out.sort()
        return out

    def sort(self) -> None:
        """Sort by file, line, column, code and message, each equal finding kept once.

        One stable sort per field, the least significant first, of the rows' numbers (a
        key tuple per finding would cost ~100 bytes each); equal findings have equal
        fields, so they end up in one run of equal keys, where the duplicates are dropped.
        The columns are put in the new order one at a time (no second set of columns).
        """
        order = list(range(len(self)))
        table = self._kind_table
        codes = list(map([code for code, _ in table].__getitem__, self._kinds))
        for column in (self._messages, codes, self._columns, self._lines, self._files):
            order.sort(key=column.__getitem__)
        del codes
        _drop_repeats(self, order)
        for name in ("_kinds", "_lines", "_columns", "_ends"):
            old = getattr(self, name)
            setattr(self, name, array(old.typecode, map(old.__getitem__, order)))
            del old
        for name in ("_messages", "_hints", "_files"):
            old = getattr(self, name)
            setattr(self, name, list(map(old.__getitem__, order)))
            del old


def _drop_repeats(findings: Findings, order: list[int]) -> None:
    """Remove from ``order`` (in place) the rows equal to a row before them in their run of
    equal (file, line, column, code, message) — a run is a finding or a few."""
    f = findings
    messages, hints, files = f._messages, f._hints, f._files
    lines, columns, ends, kinds = f._lines, f._columns, f._ends, f._kinds
    codes = [code for code, _ in f._kind_table]
    kept = 0        # order[:kept] are the rows kept (written over what was read)
    run_start = 0
    for row in order:
        if kept:
            last = order[kept - 1]
            if (lines[last] != lines[row] or columns[last] != columns[row]
                    or messages[last] != messages[row]
                    or codes[kinds[last]] != codes[kinds[row]] or files[last] != files[row]):
                run_start = kept
            elif any(kinds[other] == kinds[row] and hints[other] == hints[row]
                     and ends[other] == ends[row] for other in order[run_start:kept]):
                continue  # equal to one kept: same place, code, message, severity, hint
        order[kept] = row
        kept += 1
    del order[kept:]


def codes_of(findings: Iterable[Finding]) -> Iterator[str]:
    """Each finding's code (from the columns of :class:`Findings`, none made)."""
    if isinstance(findings, Findings):
        return findings.codes()
    return (f.code for f in findings)


def severities_of(findings: Iterable[Finding]) -> Iterator[Severity]:
    """Each finding's severity (from the columns of :class:`Findings`, none made)."""
    if isinstance(findings, Findings):
        return findings.severities()
    return (f.severity for f in findings)


def sort_findings(findings: Iterable[Finding]) -> Findings:
    """``findings`` by file, line, column, code and message, each equal finding once
    (:meth:`Findings.sorted`)."""
    if not isinstance(findings, Findings):
        findings = Findings(findings)
    return findings.sorted()
