"""What a lint rule reports."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from operator import attrgetter


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


# The order findings are reported in, most significant first.
_ORDER = ("file", "line", "column", "code", "message")
_KEYS = tuple(attrgetter(name) for name in reversed(_ORDER))


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    """``findings`` by file, line, column, code and message, each equal finding once.

    One stable sort per field, the least significant first, rather than one sort on a tuple
    of the five: a key tuple per finding is ~100 bytes, and a 1 MB file can have a finding on
    every line (DUP002 on 47,620 repeated lines: 4.5 MB of keys, the peak of the whole lint);
    each pass here holds one reference per finding.  Equal findings have equal fields, so
    they end up in one run of equal keys, where the duplicates are dropped.
    """
    out = list(findings)
    for key in _KEYS:
        out.sort(key=key)
    kept = 0
    run_start = 0
    for finding in out:
        if kept > run_start:
            last = out[kept - 1]
            if (last.line != finding.line or last.column != finding.column
                    or last.message != finding.message or last.code != finding.code
                    or last.file != finding.file):
                run_start = kept
        if finding not in out[run_start:kept]:  # a run is a finding or a few
            out[kept] = finding
            kept += 1
    del out[kept:]
    return out
