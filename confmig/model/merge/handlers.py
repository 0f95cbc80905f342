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


def takes(d: Directive) -> str | None:
    """Apache's error for the number of arguments of *d* (its message as measured on Apache:
    ``confmig.apache.arity``, the table lint's SYN002 reads too), or None when Apache takes
    them (or only drops some, as a FLAG does)."""
    from confmig.apache.arity import arity_problem  # its table is read on first use

    problem = arity_problem(d.name, d.args)
    return problem[1] if problem is not None and problem[0] == "error" else None


def on_off(d: Directive) -> bool | None:
    """A ``FLAG`` directive's value (On → True, Off → False); None when it is neither.  Apache
    reads a FLAG's first word and ignores the rest (``DirectorySlash Off extra`` is Off:
    tests/lint/test_apache_truth.py, SYN002 warns)."""
    if d.args and d.args[0].lower() in ("on", "off"):
        return d.args[0].lower() == "on"
    return None

