"""mod_filter's directives as Apache reads them (``modules/filters/mod_filter.c``), for the
lines it refuses — a 500 in an ``.htaccess``: a provider no loaded module registered
(``FilterProvider``, ``AddOutputFilterByType``: "Unknown filter provider X"), an expression
``FilterProvider`` cannot parse, and ``FilterProtocol`` naming a filter this section did not
declare or a provider that filter does not have.  The model runs no filter (they change a
body, not who may read it); which filters a section declares, with their providers, is kept
on the builder (``SectionBuilder.filters``: a section's ``live_filters`` start empty, an
``.htaccess`` does not see its parent's).  Checked on Apache by
tests/model/test_filter_providers_apache.py.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from confmig.apache.filters import provider_known
from confmig.model.merge.handlers import handles, takes
from confmig.syntax import Directive

if TYPE_CHECKING:
    from confmig.model.merge.builder import SectionBuilder


def _add_provider(b: SectionBuilder, fname: str, pname: str) -> str | None:
    """``add_filter``: the provider must be registered; an undeclared filter is declared."""
    if provider_known(pname, b.has_module) is False:
        return f"Unknown filter provider {pname}"
    b.filters.setdefault(fname, set()).add(pname.lower())
    return None


@handles("filterdeclare")
def _filter_declare(b: SectionBuilder, d: Directive, _methods: frozenset[str] | None
                    ) -> str | None:
    problem = takes(d)
    if problem is None:
        b.filters[d.args[0]] = set()  # declared again: a new filter, without providers
    return problem


@handles("filterprovider")
def _filter_provider(b: SectionBuilder, d: Directive, _methods: frozenset[str] | None
                     ) -> str | None:
    problem = takes(d)
    if problem is not None:
        return problem
    fname, pname, expr = d.args[:3]
    problem = _add_provider(b, fname, pname)
    if problem is not None:
        return problem
    from confmig.model.expr import ExprError, parse_cached

    try:
        parse_cached(expr, restricted=b.restricted)
    except ExprError as exc:
        return f"Error parsing FilterProvider expression:{exc}"
    return None


@handles("addoutputfilterbytype")
def _add_output_filter_by_type(b: SectionBuilder, d: Directive,
                               _methods: frozenset[str] | None) -> str | None:
    problem = takes(d)
    if problem is not None:
        return problem
    for pname in (p for p in d.args[0].split(";") if p):  # apr_strtok: empty ones skipped
        problem = _add_provider(b, "BYTYPE:" + pname, pname)
        if problem is not None:
            return problem
    return None


@handles("filterprotocol")
def _filter_protocol(b: SectionBuilder, d: Directive, _methods: frozenset[str] | None
                     ) -> str | None:
    problem = takes(d)
    if problem is not None:
        return problem
    providers = b.filters.get(d.args[0])
    if providers is None:
        return "FilterProtocol: No such filter"
    if len(d.args) == 3 and d.args[1].lower() not in providers:
        return "FilterProtocol: No such provider for this filter"
    return None
