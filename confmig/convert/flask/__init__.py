"""``confmig convert --to flask``: a document root's Apache configuration as one Python module
(Flask), rendered from the model's site plan (:mod:`confmig.model.plan`).

* :mod:`~confmig.convert.flask.regex` — which patterns Python's ``re`` can match with Apache's
  meaning, and which need ``pcre2``;
* :mod:`~confmig.convert.flask.literals` — the tables as ``ruff format`` writes them;
* :mod:`~confmig.convert.flask.render` — the plan as tables plus the engine in the templates
  next to this module.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from confmig.convert.flask.render import FlaskOutput, render_plan
from confmig.convert.result import ConversionResult, ConvertError, Note
from confmig.model.plan import PlanError, SitePlan, plan_docroot


@dataclass
class FlaskConversion:
    result: ConversionResult
    plan: SitePlan
    output: FlaskOutput


def convert_docroot(docroot: str | os.PathLike[str], config: str | os.PathLike[str] | None = None,
                    defines: Iterable[str] = ()) -> FlaskConversion:
    """Plan *docroot* and render it as a Flask module."""
    try:
        plan = plan_docroot(docroot, config, defines)
    except PlanError as exc:
        raise ConvertError(str(exc)) from exc
    output = render_plan(plan)
    result = ConversionResult("flask", str(docroot), output.text, docroots=[plan.document_root])
    seen: set[tuple[str, int, str, str]] = set()
    for note in output.notes:
        key = (note.file, note.line, note.directive, note.reason)
        if key in seen:
            continue
        seen.add(key)
        (result.untranslatable if note.changes_behaviour else result.warnings).append(note)
    return FlaskConversion(result, plan, output)


__all__ = ["FlaskConversion", "FlaskOutput", "Note", "convert_docroot"]
