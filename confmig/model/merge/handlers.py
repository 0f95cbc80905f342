"""The directive handler table: one function per directive name fills its module's part of a
:class:`~confmig.model.merge.builder.SectionBuilder` and returns Apache's error text (or None).
Each per-module file registers its handlers with :func:`handles`."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from confmig.syntax import Directive, Node

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder

Handler = Callable[["SectionBuilder", Directive, "frozenset[str] | None"], "str | None"]
HANDLERS: dict[str, Handler] = {}
ConfigError = tuple[Node, str]  # a node and Apache's message about it

# The methods <Limit>/<LimitExcept> and ``Require method`` know.
METHODS = ("GET", "HEAD", "PUT", "POST", "DELETE", "CONNECT", "OPTIONS", "TRACE", "PATCH",
           "PROPFIND", "PROPPATCH", "MKCOL", "COPY", "MOVE", "LOCK", "UNLOCK")


def handles(*names: str) -> Callable[[Handler], Handler]:
    """Register the decorated function as the handler of the (lower-case) directive *names*."""
    def register(fn: Handler) -> Handler:
        for name in names:
            HANDLERS[name] = fn
        return fn
    return register


def takes(d: Directive, low: int, high: int) -> str | None:
    """Apache's arity error for *d* unless it has *low* to *high* arguments (else None)."""
    n = len(d.args)
    if low <= n <= high:
        return None
    if low == high:
        return f"{d.name} takes {count_text(low)}"
    return f"{d.name} takes {count_text(low)} or {count_text(high)}" if high - low == 1 else \
        f"{d.name} takes from {low} to {high} arguments"


def count_text(n: int) -> str:
    return {0: "no arguments", 1: "one argument", 2: "two arguments",
            3: "three arguments"}.get(n, f"{n} arguments")


def on_off(d: Directive) -> bool | None:
    """A ``FLAG`` directive's value (On → True, Off → False); None when it is neither."""
    if len(d.args) == 1 and d.args[0].lower() in ("on", "off"):
        return d.args[0].lower() == "on"
    return None

