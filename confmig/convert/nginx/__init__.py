"""``confmig convert --to nginx``: a document root's Apache configuration as one nginx
``server { }``, rendered from the model's site plan (:mod:`confmig.model.plan`).

* :mod:`~confmig.convert.nginx.regex` — Apache patterns as nginx regexes with the same meaning;
* :mod:`~confmig.convert.nginx.rewrite` — a per-directory ruleset as nginx directives;
* :mod:`~confmig.convert.nginx.render` — the plan as locations, through the templates next to
  this module.

Never silent, never looser: what is not reproduced faithfully is a comment at its place and an
untranslatable note (stderr, exit 1); where exactness is impossible the output denies (403).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

from confmig.convert.nginx.render import EmitNote, NginxOptions, NginxOutput, render_plan
from confmig.convert.result import ConversionResult, ConvertError, Note, NoteKind
from confmig.model.plan import PlanError, SitePlan, plan_docroot


@dataclass
class NginxConversion:
    """A conversion's result (notes, text) with the plan and the output's parts."""

    result: ConversionResult
    plan: SitePlan
    output: NginxOutput


def convert_docroot(docroot: str | os.PathLike[str], config: str | os.PathLike[str] | None = None,
                    options: NginxOptions | None = None,
                    defines: Iterable[str] = ()) -> NginxConversion:
    """Plan *docroot* and render it for nginx."""
    try:
        plan = plan_docroot(docroot, config, defines)
    except PlanError as exc:
        raise ConvertError(str(exc)) from exc
    output = render_plan(plan, options)
    result = ConversionResult("nginx", str(docroot), output.text,
                              docroots=[plan.document_root])
    seen: set[tuple[str, int, str, str]] = set()
    for note in output.notes:
        key = (note.source.file, note.source.line, note.directive, note.reason)
        if key in seen:
            continue
        seen.add(key)
        converted = _note(note)
        (result.untranslatable if note.changes_behaviour else result.warnings).append(converted)
    return NginxConversion(result, plan, output)


def _note(note: EmitNote) -> Note:
    return Note(note.source.file, note.source.line, note.directive, note.reason,
                NoteKind.UNTRANSLATABLE if note.changes_behaviour else NoteKind.INFO,
                note.scope)


__all__ = ["NginxConversion", "NginxOptions", "NginxOutput", "convert_docroot"]
