"""What a conversion produces, for every target (httpd today; nginx and Flask later).

A :class:`ConversionResult` holds the generated text (or, when a whole configuration is
rewritten, the new text of each file it changes) and every :class:`Note` the converter has to
tell the user: directives it could not carry over faithfully (``untranslatable``) and things
worth knowing that do not change any answer (``warnings``).

Each note names the directory whose requests it may affect (``scope``), so ``confmig verify``
can tell a difference the converter announced from one it did not.  A note may also say what
it is about (``fields``: the compared fields it may change, ``adds_only``: only by adding
them): it then excuses only those fields; and what the converted server answers instead
(``answer``, a denial's 403): it then excuses only a difference in such an answer.  No note
excuses an answer wider than Apache's (:func:`confmig.verify.compare.wider`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path


class NoteKind(StrEnum):
    """Why a note was written."""

    #: Apache answered 500 for the directory (forbidden or unknown directive, bad syntax);
    #: the converted configuration does not (unless asked to keep the 500).
    FATAL = "fatal"
    #: No equivalent in the target; answers below ``scope`` may differ.
    UNTRANSLATABLE = "untranslatable"
    #: Apache ignored it (AllowOverride None, ``Nonfatal=``); carried as a comment, no change.
    IGNORED = "ignored"
    #: The converter rewrote it so that it keeps its meaning; no change expected.
    TRANSFORMED = "transformed"
    #: Worth knowing; no change expected.
    INFO = "info"


#: Kinds whose notes announce that answers below their scope may change.
BEHAVIOUR_CHANGING = frozenset({NoteKind.FATAL, NoteKind.UNTRANSLATABLE})


@dataclass(frozen=True)
class Note:
    """One message about one place in a source file."""

    file: str
    line: int
    directive: str
    reason: str
    kind: NoteKind = NoteKind.UNTRANSLATABLE
    #: Absolute directory whose requests (it and everything below) the note may affect.
    scope: str | None = None
    #: The compared fields the note may change (``"status"``, ``"location"``, ``"body"``,
    #: ``"expires"``, lower-case header names); None: any of them.
    fields: frozenset[str] | None = None
    #: Only where Apache's answer has no such field (a header it does not send, an empty
    #: body): e.g. nginx compresses more than mod_deflate, never less.
    adds_only: bool = False
    #: The status the converted server answers instead of Apache's (a denial's 403, the
    #: 500 of a ruleset written out for fewer rounds): the note excuses a difference only in
    #: such an answer, where Apache answered something else — every field of it when
    #: ``fields`` is None (the whole answer is the denial's), else those named.
    answer: int = 0

    @property
    def location(self) -> str:
        return f"{self.file}:{self.line}" if self.line else self.file

    @property
    def changes_behaviour(self) -> bool:
        return self.kind in BEHAVIOUR_CHANGING

    def excuses(self, field: str, added: bool,
                statuses: tuple[int, int] | None = None) -> bool:
        """Whether this note explains a difference in *field* (*added*: Apache's answer had
        no value there, the converted one has) between answers with *statuses* (Apache's,
        the converted server's; None: not known, which a note with an ``answer`` never
        excuses).  A note that changes no behaviour excuses nothing — but for one that
        names what the converted server answers instead (the announced denial of a rare
        request, which leaves the exit code as it is)."""
        if not self.changes_behaviour and not self.answer:
            return False
        if self.answer and (statuses is None or statuses[1] != self.answer
                            or statuses[0] == self.answer):
            return False
        if self.fields is None:
            return True
        return field.lower() in self.fields and (added or not self.adds_only)

    def serves_500(self) -> bool:
        """The user asked for Apache's 500 to be served (``--serve-500``): the one wider
        answer a note excuses, and only for a request Apache answered 500."""
        return self.kind is NoteKind.FATAL

    def __str__(self) -> str:
        what = f"{self.directive}: " if self.directive else ""
        return f"{self.location}: {what}{self.reason}"

    def to_json(self) -> dict[str, object]:
        return {"file": self.file, "line": self.line, "directive": self.directive,
                "reason": self.reason, "kind": self.kind.value, "scope": self.scope,
                **({"fields": sorted(self.fields), "adds_only": self.adds_only}
                   if self.fields is not None else {}),
                **({"answer": self.answer} if self.answer else {})}


@dataclass
class ConversionResult:
    """The output of one conversion.

    ``text`` is the primary output: the fragment to paste (docroot mode) or the new main
    configuration file (config mode).  ``files`` maps every file a config-mode conversion
    changes to its new text (the main file included); it is empty for a fragment.
    """

    target: str
    source: str
    text: str
    files: dict[str, str] = field(default_factory=dict)
    untranslatable: list[Note] = field(default_factory=list)
    warnings: list[Note] = field(default_factory=list)
    #: The document roots the conversion covered (absolute paths as the server sees them).
    docroots: list[str] = field(default_factory=list)
    #: Every file the conversion read (the configuration, its Includes, each access file):
    #: an output never goes over one of them.
    inputs: list[str] = field(default_factory=list)
    #: Document roots confmig had converted before, with nothing left to fold: left alone.
    already_converted: list[str] = field(default_factory=list)
    #: ``apache2 -t`` refused a line confmig wrote itself (its message, one line): the
    #: configuration would not load, so ``--write`` writes nothing.
    rejected: str = ""

    @property
    def nothing_to_do(self) -> bool:
        """Every tree was converted before: there is nothing to write."""
        return bool(self.already_converted) and not self.docroots and not self.files

    @property
    def notes(self) -> list[Note]:
        return [*self.untranslatable, *self.warnings]

    def announced_scopes(self) -> list[str]:
        """Directories below which the converter said answers may differ."""
        scopes = {n.scope for n in self.untranslatable if n.changes_behaviour and n.scope}
        return sorted(scopes)

    def announces(self, directory: str | Path) -> bool:
        """Whether some behaviour-changing note covers a request walking *directory*."""
        return bool(self._covering(directory))

    def excuses(self, directory: str | Path, field: str, added: bool = False,
                statuses: tuple[int, int] | None = None) -> bool:
        """Whether a note covering *directory* explains a difference in *field* (*added*:
        Apache's answer had no value there) between answers with *statuses* (Apache's, the
        converted one's).  A note that says which fields it is about excuses only those,
        one that says what the converted server answers instead only in such an answer; a
        wider answer is for the caller to refuse first."""
        answering = [n for n in self.warnings if n.answer and n.scope]
        return any(note.excuses(field, added, statuses)
                   for note in [*self._covering(directory),
                                *_below(directory, answering)])

    def serves_500(self, directory: str | Path) -> bool:
        """Whether ``--serve-500`` was asked for a directory covering *directory*."""
        return any(note.serves_500() for note in self._covering(directory))

    def _covering(self, directory: str | Path) -> list[Note]:
        return _below(directory, [n for n in self.untranslatable
                                  if n.changes_behaviour and n.scope])

    def to_json(self) -> dict[str, object]:
        return {
            "target": self.target, "source": self.source, "docroots": self.docroots,
            "files": sorted(self.files), "already_converted": self.already_converted,
            "untranslatable": [n.to_json() for n in
                                                            self.untranslatable],
            "warnings": [n.to_json() for n in self.warnings],
        }


class ConvertError(Exception):
    """Input the converter cannot work with; the message is one line, ``file:line:`` first
    where there is one."""


def _below(directory: str | Path, notes: list[Note]) -> list[Note]:
    """The *notes* whose scope is *directory* or a directory above it."""
    path = str(directory).rstrip("/") or "/"
    out = []
    for note in notes:
        root = note.scope.rstrip("/") or "/"
        if path == root or path.startswith(root + "/") or root == "/":
            out.append(note)
    return out
