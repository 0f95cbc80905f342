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
           "SubRequest", "parse_cached", "parse_string_cached"]


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
        run = Evaluation(lookup, now, subrequest=subrequest)
        result = run.cond(self.tree)
        if vary is not None:
            vary.extend(run.vary)
        return result


_PARSED: dict[tuple[str, bool], Expr] = {}
_PARSED_STRINGS: dict[tuple[str, bool], Word] = {}


def parse_string_cached(text: str, *, restricted: bool = False) -> Word:
    """A string expression (``AP_EXPR_FLAG_STRING_RESULT``: ``Header … "expr=…"``), parsed
    once per text and context; evaluate it with :meth:`Evaluation.word`."""
    key = (text, restricted)
    found = _PARSED_STRINGS.get(key)
    if found is None:
        from confmig.model.expr.parse import parse_string

        found = _PARSED_STRINGS[key] = parse_string(text, restricted=restricted)
    return found


def parse_cached(text: str, *, restricted: bool = False) -> Expr:
    """``Expr.parse(text)``, parsed once per text and context (expressions come from the
    configuration)."""
    key = (text, restricted)
    found = _PARSED.get(key)
    if found is None:
        found = _PARSED[key] = Expr.parse(text, restricted=restricted)
    return found
