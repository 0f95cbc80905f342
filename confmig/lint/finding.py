"""What a lint rule reports."""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from enum import StrEnum
from itertools import islice
from operator import attrgetter, eq
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


_BATCH = 512           # findings of a generator made into columns at a time
_line, _column, _message = attrgetter("line"), attrgetter("column"), attrgetter("message")
_hint, _file = attrgetter("hint"), attrgetter("file")
_code, _severity = attrgetter("code"), attrgetter("severity")

# An integer column's array types, smallest first: the first that holds every value of the
# column is used.  A line or column fits 32 bits signed (as in Apache); a stored end column
# is one more than the column (0: none), so it may need the 64-bit type for 2**31 - 1.
_TYPES = ("B", "b", "H", "h", "i")
_END_TYPES = (*_TYPES, "q")
_TYPE_RANGE = {code: (array(code, [0]).itemsize, code.islower()) for code in _END_TYPES}


def _fits(code: str, low: int, high: int) -> bool:
    size, signed = _TYPE_RANGE[code]
    bits = 8 * size
    if signed:
        return -(1 << (bits - 1)) <= low and high < 1 << (bits - 1)
    return low >= 0 and high < 1 << bits


def _end_value(finding: Finding) -> int:
    """The stored end column: 0 for none, else one more than it when it is not negative."""
    end = finding.end_column
    if end is None:
        return 0
    if not -2 ** 31 < end < 2 ** 31:  # (what a 32-bit end column with a sentinel held)
        raise OverflowError(f"end column {end} out of range")
    return end + 1 if end >= 0 else end


def _end_of(stored: int) -> int | None:
    if stored == 0:
        return None
    return stored - 1 if stored > 0 else stored


class _Ints:
    """A column of integers in the smallest array type that holds them all: one byte a
    value while they stay under 256 (a finding's kind, its column, most lines of a file of
    a few thousand lines), two under 65,536."""

    __slots__ = ("types", "values")

    def __init__(self, types: tuple[str, ...] = _TYPES) -> None:
        self.types = types
        self.values = array(types[0])

    def extend(self, new: Sequence[int] | array) -> None:
        """Add ``new``: all of it or, when a value fits no type of the column (OverflowError)
        or is not an integer (TypeError), none of it."""
        values = self.values
        size = len(values)
        if isinstance(new, array) and (new.typecode == values.typecode or not values) \
                and new.typecode in self.types:
            if new.typecode != values.typecode:
                self.values = values = array(new.typecode)
            values.extend(new)
            return
        if not isinstance(new, array):
            try:
                values.extend(new)
                return
            except OverflowError:
                del values[size:]
            except BaseException:
                del values[size:]
                raise
        if not new:
            return
        low, high = min(new), max(new)
        if values:
            low, high = min(low, min(values)), max(high, max(values))
        code = next((c for c in self.types if _fits(c, low, high)), None)
        if code is None:
            raise OverflowError(f"{low}..{high} out of range")
        if code != values.typecode:
            self.values = values = array(code, values)
        values.extend(new if isinstance(new, array) and new.typecode == code
                      else array(code, new))

    def truncate(self, size: int) -> None:
        del self.values[size:]

    def __len__(self) -> int:
        return len(self.values)


# A string column remembers where this many distinct values are in its table (past that a
# new value gets a new place, unless it is the last one placed): equal messages, hints and
# files (a rule repeats a message on every repeated line) are one place and one byte each.
_INDEXED = 256


class _Strings:
    """A column of strings (or None) as places in a table of the values (:class:`_Ints`)."""

    __slots__ = ("index", "places", "table")

    def __init__(self) -> None:
        self.table: list[str | None] = []
        self.index: dict[str | None, int] = {}
        self.places = _Ints()

    def extend(self, new: Iterable[str | None]) -> None:
        values = new if isinstance(new, list) else list(new)
        places = list(map(self.index.get, values))
        if None in places:
            for row, place in enumerate(places):
                if place is None:
                    places[row] = self._place(values[row])
        self.places.extend(places)

    def extend_from(self, other: _Strings) -> None:
        """Add the values of ``other`` (its places mapped to places here)."""
        if not self.table:
            self.table, self.index = list(other.table), dict(other.index)
            self.places.extend(other.places.values)
            return
        mapping = list(map(self.index.get, other.table))
        for place, value in enumerate(other.table):
            if mapping[place] is None:
                mapping[place] = self._place(value)
        self.places.extend(array("i", map(mapping.__getitem__, other.places.values)))

    def _place(self, value: str | None) -> int:
        table = self.table
        place = self.index.get(value)
        if place is not None:
            return place
        if len(self.index) < _INDEXED:
            place = self.index[value] = len(table)
        elif table and table[-1] == value:
            return len(table) - 1
        else:
            place = len(table)
        table.append(value)
        return place

    def truncate(self, size: int) -> None:
        """Keep the first ``size`` values (the table keeps its places: they are unused)."""
        self.places.truncate(size)

    def values(self) -> Iterator[str | None]:
        return map(self.table.__getitem__, self.places.values)

    def ranks(self) -> array:
        """Each row's value's rank among the column's values (equal values, equal ranks)."""
        return _ranks(self.table, self.places.values)

    def __getitem__(self, row: int) -> str | None:
        return self.table[self.places.values[row]]


class Findings(Sequence[Finding]):
    """Findings kept a field per column: ~8 to 20 bytes a finding, where a list of `Finding`
    objects costs ~104 (the object 96, its place in the list 8).

    A lint can report a finding on every line (DUP002 on 47,620 equal lines of a 1 MB file:
    4.4 MB of objects, kept from the rule that makes them to the reporter that writes them).
    Here the message, hint and file are places in a table of the column's values (equal
    messages are one string and one place, a file's findings share its name), the line,
    column and end column integers in the smallest array type that holds the column (32-bit
    signed at most: Apache counts lines in an ``unsigned int``), and the code with the
    severity a place in the container's small table of the pairs it has seen.  A finding
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
        self._messages = _Strings()
        self._hints = _Strings()
        self._files = _Strings()
        self._lines = _Ints()
        self._columns = _Ints()
        self._ends = _Ints(_END_TYPES)
        self._kinds = _Ints()
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

    def _int_columns(self) -> tuple[_Ints, ...]:
        return (self._lines, self._columns, self._ends, self._kinds)

    def _add(self, batch: Sequence[Finding]) -> None:
        """Add ``batch``, a column at a time; all of it or, when a value does not fit a
        column (OverflowError, TypeError), none of it."""
        if not batch:
            return
        size = len(self)
        try:
            self._lines.extend(list(map(_line, batch)))
            self._columns.extend(list(map(_column, batch)))
            self._ends.extend(list(map(_end_value, batch)))
            keys = list(zip(map(_code, batch), map(id, map(_severity, batch)), strict=True))
            if not self._kind_index.keys() >= set(keys):
                for finding in batch:
                    self._kind_of(finding.code, finding.severity)
            self._kinds.extend(list(map(self._kind_index.__getitem__, keys)))
        except BaseException:
            for column in self._int_columns():
                column.truncate(size)
            raise
        self._messages.extend(list(map(_message, batch)))
        self._hints.extend(list(map(_hint, batch)))
        self._files.extend(list(map(_file, batch)))

    def _add_columns(self, other: Findings) -> None:
        """Add every finding of ``other`` (its columns copied, no finding made)."""
        if other is self:
            other = Findings()
            other._add_columns(self)
        remap = [self._kind_of(code, severity) for code, severity in other._kind_table]
        kinds = other._kinds.values
        if remap != list(range(len(remap))):
            kinds = array("i", map(remap.__getitem__, kinds))
        self._kinds.extend(kinds)
        self._lines.extend(other._lines.values)
        self._columns.extend(other._columns.values)
        self._ends.extend(other._ends.values)
        self._messages.extend_from(other._messages)
        self._hints.extend_from(other._hints)
        self._files.extend_from(other._files)

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
        code, severity = self._kind_table[self._kinds.values[row]]
        return _made(code, self._messages[row], self._files[row], self._lines.values[row],
                     self._columns.values[row], severity, self._hints[row],
                     _end_of(self._ends.values[row]))

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
                self._kinds.values, self._messages.values(), self._files.values(),
                self._lines.values, self._columns.values, self._ends.values,
                self._hints.values(), strict=True):
            code, severity = table[kind]
            yield _made(code, message, file, line, column, severity, hint,  # type: ignore[arg-type]
                        _end_of(end))

    def codes(self) -> Iterator[str]:
        """Each finding's code, in order (no finding made)."""
        table = self._kind_table
        return (table[kind][0] for kind in self._kinds.values)

    def severities(self) -> Iterator[Severity]:
        """Each finding's severity, in order (no finding made)."""
        table = self._kind_table
        return (table[kind][1] for kind in self._kinds.values)

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
        keys = (self._messages.ranks, lambda: _ranks([code for code, _ in self._kind_table],
                                                     self._kinds.values),
                lambda: self._columns.values, lambda: self._lines.values, self._files.ranks)
        for key in keys:
            column = key()
            if len(column) and min(column) != max(column):  # (else: the same for all rows)
                order.sort(key=column.__getitem__)
            del column
        _drop_repeats(self, order)
        if len(order) == len(self) and all(map(eq, order, range(len(order)))):
            return  # (in order already)
        for ints in (*self._int_columns(), self._messages.places, self._hints.places,
                     self._files.places):
            old = ints.values
            ints.values = array(old.typecode, map(old.__getitem__, order))
            del old


def _ranks(table: Sequence[str], places: array) -> array:
    """For each of ``places``, the rank of its value in ``table`` among the values
    ``table`` holds (equal values: equal ranks): what a sort by the values sorts by."""
    rank = [0] * len(table)
    last: str | None = None
    now = -1
    for place in sorted(range(len(table)), key=table.__getitem__):
        if now < 0 or table[place] != last:
            now += 1
            last = table[place]
        rank[place] = now
    if rank == list(range(len(table))):
        return places  # (the table's values are distinct and in order)
    return array("i", map(rank.__getitem__, places))


def _drop_repeats(findings: Findings, order: list[int]) -> None:
    """Remove from ``order`` (in place) the rows equal to a row before them in their run of
    equal (file, line, column, code, message) — a run is a finding or a few."""
    f = findings
    # (equal places hold equal values; different places may too: the values are compared)
    message_table, messages = f._messages.table, f._messages.places.values
    hint_table, hints = f._hints.table, f._hints.places.values
    file_table, files = f._files.table, f._files.places.values
    lines, columns = f._lines.values, f._columns.values
    ends, kinds = f._ends.values, f._kinds.values
    codes = [code for code, _ in f._kind_table]
    kept = 0        # order[:kept] are the rows kept (written over what was read)
    run_start = 0
    for row in order:
        if kept:
            last = order[kept - 1]
            if (lines[last] != lines[row] or columns[last] != columns[row]
                    or (messages[last] != messages[row]
                        and message_table[messages[last]] != message_table[messages[row]])
                    or codes[kinds[last]] != codes[kinds[row]]
                    or (files[last] != files[row]
                        and file_table[files[last]] != file_table[files[row]])):
                run_start = kept
            elif any(kinds[other] == kinds[row]
                     and hint_table[hints[other]] == hint_table[hints[row]]
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
