"""``ap_expr``, Apache's expression language (``<If>``, ``Require expr``, ``Header … expr=``,
``SetEnvIfExpr``, ``RewriteCond expr``), parsed and evaluated as ``server/util_expr_*.c``
(2.4.x) do it: :mod:`.scan` (the flex scanner), ``grammars/ap_expr.lark`` and :mod:`.parse`
(the yacc grammar, names looked up), :mod:`.evaluate` (the evaluator).

:meth:`Expr.evaluate` raises :class:`ExprUnsupported` when it needs something the model does
not know for this request (callers report it), :class:`ExprEvalError` where Apache's own
evaluation fails; :class:`ExprError` is an expression Apache refuses to parse.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from confmig.model.expr.evaluate import (
    Evaluation,
    ExprEvalError,
    ExprUnsupported,
    Lookup,
    SubRequest,
)
from confmig.model.expr.nodes import Cond, Word
from confmig.model.expr.scan import ExprError

__all__ = ["Evaluation", "Expr", "ExprError", "ExprEvalError", "ExprUnsupported", "Lookup",
           "SubRequest", "forget_parsed", "parse_cached", "parse_string_cached"]


@dataclass(frozen=True, slots=True)
class Expr:
    """A parsed boolean ``ap_expr``."""

    source: str
    tree: Cond

    @classmethod
    def parse(cls, text: str, *, restricted: bool = False, ssl_loaded: bool = False) -> Expr:
        """*restricted*: read from an ``.htaccess``, where Apache refuses ``file()`` and
        ``filesize()`` ("not available in restricted context")."""
        # Imported here: Lark is loaded only by commands that meet an expression.
        from confmig.model.expr.parse import parse_condition

        return cls(text, parse_condition(text, restricted=restricted, ssl_loaded=ssl_loaded))

    def evaluate(self, lookup: Lookup, now: float | None = None,
                 vary: list[str] | None = None, subrequest: SubRequest | None = None) -> bool:
        """The condition's value; *now* is the clock (seconds since the epoch, default the
        current time), *vary* receives the request headers Apache adds to ``Vary``,
        *subrequest* answers ``-F``/``-U``/``-A``."""
        run = Evaluation(lookup, now, subrequest=subrequest,
                         vary=vary if vary is not None else [])
        return run.test(self.tree)


# Parsed expressions by text, a table per context (not restricted, restricted): the lint's
# SYN008 and the request model parse each expression of a file, and configurations repeat
# them.  Bounded (the oldest parse goes first; a table the size of a file's distinct
# expressions keeps one parse each) and emptied when a lint ends (forget_parsed): it kept
# every expression a process had met, 17,037 of a 1 MB file of <If> blocks after its lint
# (issue 10).
_PARSED: tuple[dict[str, Expr], dict[str, Expr]] = ({}, {})
_PARSED_STRINGS: tuple[dict[str, Word], dict[str, Word]] = ({}, {})
_MAX_PARSED = 1 << 16


def parse_string_cached(text: str, *, restricted: bool = False) -> Word:
    """A string expression (``AP_EXPR_FLAG_STRING_RESULT``: ``Header … "expr=…"``), parsed
    once per text and context; evaluate it with :meth:`Evaluation.word`."""
    table = _PARSED_STRINGS[restricted]
    found = table.get(text)
    if found is None:
        from confmig.model.expr.parse import parse_string

        found = parse_string(text, restricted=restricted)
        _keep(table, text, found)
    return found


def parse_cached(text: str, *, restricted: bool = False) -> Expr:
    """``Expr.parse(text)``, parsed once per text and context (expressions come from the
    configuration)."""
    table = _PARSED[restricted]
    found = table.get(text)
    if found is None:
        found = Expr.parse(text, restricted=restricted)
        _keep(table, text, found)
    return found


def _keep(table: dict[str, Any], text: str, parsed: object) -> None:
    if len(table) >= _MAX_PARSED:
        del table[next(iter(table))]  # (the oldest)
    table[text] = parsed


def forget_parsed() -> None:
    """Let go of the parsed expressions (a lint calls it when it ends)."""
    for table in (*_PARSED, *_PARSED_STRINGS):
        table.clear()
