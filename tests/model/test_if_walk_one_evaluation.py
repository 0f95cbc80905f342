"""The ``<If>`` walk asks one :class:`~confmig.model.expr.Evaluation` for all its conditions
(issue 10): each condition is run afresh (:meth:`Evaluation.test`), so the walk answers as
one :meth:`Expr.evaluate <confmig.model.expr.Expr.evaluate>` a condition did: ``$0``-``$9``
do not carry over from one ``<If>`` to the next, a condition that raises adds nothing to
Vary, and the recursion limit (``AP_EXPR_MAX_RECURSION``) is reached at the same depth."""

from __future__ import annotations

import pytest

from confmig.model.expr import Evaluation, Expr, ExprEvalError, ExprUnsupported
from confmig.model.walk import if_walk


class _If:
    """What if_walk reads of an <If>/<ElseIf>/<Else> (an IfSection without a node)."""

    def __init__(self, kind: str, condition: str | None = None) -> None:
        self.kind = kind
        self.condition = Expr.parse(condition) if condition is not None else None
        self.label = f"<{kind}>"
        self.where = "test:1"
        self.core = self  # (core.ifs: no nested <If>)
        self.ifs = ()


_ENV = {"QUERY_STRING": "x", "HTTP:User-Agent": "ua", "HTTP:Referer": "r"}


def _walk(entries: list[_If], env: dict[str, str] = _ENV
          ) -> tuple[list[int], list[str], list[str]]:
    unsupported: list[str] = []
    vary: list[str] = []
    chosen = if_walk(entries, env.get, unsupported, 0.0, vary)  # type: ignore[arg-type]
    return [entries.index(e) for e in chosen], vary, unsupported  # type: ignore[arg-type]


def _one_by_one(conditions: list[str], env: dict[str, str] = _ENV
                ) -> tuple[list[bool | None], list[str]]:
    """Each condition evaluated by its own Expr.evaluate (None: it raised)."""
    vary: list[str] = []
    answers: list[bool | None] = []
    for text in conditions:
        try:
            answers.append(Expr.parse(text).evaluate(env.get, 0.0, vary))
        except (ExprUnsupported, ExprEvalError):
            answers.append(None)
    return answers, vary


def test_backreferences_start_afresh_for_each_condition() -> None:
    conditions = ["%{QUERY_STRING} =~ /(x)/", "'$1' == 'x'", "'$1' == ''"]
    assert _one_by_one(conditions)[0] == [True, False, True]
    chosen, _, _ = _walk([_If("if", c) for c in conditions])
    assert chosen == [0, 2]


def test_a_condition_that_raises_adds_nothing_to_vary() -> None:
    conditions = ["%{HTTP_USER_AGENT} == 'ua'",
                  "%{HTTP_REFERER} == 'r' && %{REMOTE_PORT} == '1'",  # not known: raises
                  "%{HTTP_REFERER} == 'r'"]
    answers, vary = _one_by_one(conditions)
    assert answers == [True, None, True] and vary == ["User-Agent", "Referer"]
    chosen, walked_vary, unsupported = _walk([_If("if", c) for c in conditions])
    assert chosen == [0, 2] and walked_vary == vary
    assert len(unsupported) == 1 and "REMOTE_PORT" in unsupported[0]


def test_else_chains() -> None:
    def chain(query: str) -> list[int]:
        entries = [_If("if", "%{QUERY_STRING} == 'a'"),
                   _If("elseif", "%{QUERY_STRING} == 'b'"),
                   _If("elseif", "%{REMOTE_PORT} == '1'"),  # unsupported: false
                   _If("else"),
                   _If("else"),  # (after an <Else> taken: taken too, as before)
                   _If("elseif", "%{QUERY_STRING} == 'c'")]
        return _walk(entries, {**_ENV, "QUERY_STRING": query})[0]

    assert chain("a") == [0]
    assert chain("b") == [1]
    assert chain("c") == [3, 4, 5]
    assert chain("d") == [3, 4]


def _nested(count: int) -> str:
    """A condition whose =~ is *count* && deep."""
    return "true && (" * count + "%{QUERY_STRING} =~ /x/" + ")" * count


@pytest.mark.parametrize("count", [17, 18, 19, 20])
def test_the_recursion_limit_is_met_at_the_same_depth(count: int) -> None:
    # cond at each && and at the =~, word at its subject: 18 && are 20 levels, the limit
    (answer,), _ = _one_by_one([_nested(count)])
    assert answer is (True if count <= 18 else None)
    run = Evaluation(_ENV.get)
    tree = Expr.parse(_nested(count)).tree
    for _ in range(2):  # (and again: the level starts afresh)
        if count <= 18:
            assert run.test(tree) is True
        else:
            with pytest.raises(ExprEvalError, match="Recursion limit"):
                run.test(tree)
    chosen, _, _ = _walk([_If("if", _nested(count)), _If("else")])
    assert chosen == ([0] if count <= 18 else [1])
