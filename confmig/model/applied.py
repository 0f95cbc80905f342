"""A directive as the explanation lists it: name, arguments, where it was written, and the
section it came from."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from confmig.syntax import Directive


@dataclass(frozen=True, slots=True)
class AppliedDirective:
    """A directive that takes part in a request's configuration, in merge order."""

    directive: str
    args: tuple[str, ...]
    file: str
    line: int
    section: str = ""

    @classmethod
    def of(cls, d: Directive, section: str) -> AppliedDirective:
        return cls(d.name, tuple(d.args), d.file, d.line, section)

    def as_json(self) -> dict[str, Any]:
        return {"directive": self.directive, "args": list(self.args), "file": self.file,
                "line": self.line, "section": self.section}
