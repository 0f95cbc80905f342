"""The parsed form of an ``ap_expr``: the node kinds of ``util_expr_private.h`` that the
evaluator needs, as small immutable classes."""

from __future__ import annotations

from dataclasses import dataclass

from confmig.model.rewrite.regex import Regex

# -- words (string-valued) -------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Literal:
    """``op_String``/``op_Digit``: constant text (``digit`` marks a bare number)."""

    text: str
    digit: bool = False


@dataclass(frozen=True, slots=True)
class Concat:
    """``op_Concat``: the parts joined (``.``, or the pieces of a quoted string)."""

    parts: tuple[Word, ...]


@dataclass(frozen=True, slots=True)
class Variable:
    """``%{NAME}``, a variable some provider knows (checked when parsing)."""

    name: str


@dataclass(frozen=True, slots=True)
class Call:
    """``name(word)`` or ``%{name:string}``: a string function (name lower-cased)."""

    name: str
    arg: Word


@dataclass(frozen=True, slots=True)
class Backref:
    """``$0``–``$9``: a group of the last successful regex match with groups."""

    index: int


Word = Literal | Concat | Variable | Call | Backref


# -- conditions ------------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Const:
    value: bool


@dataclass(frozen=True, slots=True)
class Not:
    operand: Cond


@dataclass(frozen=True, slots=True)
class And:
    left: Cond
    right: Cond


@dataclass(frozen=True, slots=True)
class Or:
    left: Cond
    right: Cond


@dataclass(frozen=True, slots=True)
class Compare:
    """``-eq``… (``numeric``: compared as ``apr_atoi64`` numbers) or ``==``… (bytes)."""

    op: str  # "eq", "ne", "lt", "le", "gt", "ge"
    numeric: bool
    left: Word
    right: Word


@dataclass(frozen=True, slots=True)
class Match:
    """``=~`` / ``!~`` against a regex compiled when parsing."""

    negate: bool
    subject: Word
    regex: Regex
    groups: int  # capturing groups: only a regex with groups sets $0-$9


@dataclass(frozen=True, slots=True)
class In:
    """``-in``: the word equals an item of the list (``{…}`` or a list function)."""

    needle: Word
    items: tuple[Word, ...] = ()
    list_function: Call | None = None


@dataclass(frozen=True, slots=True)
class Unary:
    """``-n``, ``-f``, ``-R`` …; ``subnet`` is ``-R``'s network, parsed when parsing."""

    op: str
    arg: Word
    subnet: str | None = None


@dataclass(frozen=True, slots=True)
class Binary:
    """``-ipmatch`` (``subnet`` parsed when parsing), ``-strmatch``, ``-strcmatch``,
    ``-fnmatch``."""

    op: str
    left: Word
    right: Word
    subnet: str | None = None


Cond = Const | Not | And | Or | Compare | Match | In | Unary | Binary
