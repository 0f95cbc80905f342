"""What a lint rule reports."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum


class Severity(StrEnum):
    error = "error"        # Apache fails (500, refuses to start) or does other than written
    warning = "warning"    # works, but wrong, insecure or deprecated
    info = "info"          # a better way exists (performance, hoisting)


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

    @property
    def location(self) -> str:
        """``file:line:col``, or the file alone for a finding about the whole file."""
        if self.line <= 0:
            return self.file
        return f"{self.file}:{self.line}:{self.column}"
