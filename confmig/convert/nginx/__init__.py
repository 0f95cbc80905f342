"""``confmig convert --to nginx``: a document root's Apache configuration as one nginx
``server { }``, rendered from the model's site plan (:mod:`confmig.model.plan`).

* :mod:`~confmig.convert.nginx.regex` — Apache patterns as nginx regexes with the same meaning;
* :mod:`~confmig.convert.nginx.rewrite` — a per-directory ruleset as nginx directives;
* :mod:`~confmig.convert.nginx.headers` — mod_headers and mod_expires; :mod:`~.mime` — content
  types and charsets; :mod:`~.maps` — the ``map``/``geo`` blocks of the ``http { }`` context;
* :mod:`~confmig.convert.nginx.render` — the plan as locations, through the templates next to
  this module.

Never silent, never looser: what is not reproduced faithfully is a comment at its place and an
untranslatable note (stderr, exit 1); where exactness is impossible the output denies (403).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass, replace

from confmig.convert.nginx.render import EmitNote, NginxOptions, NginxOutput, render_plan
from confmig.convert.result import ConversionResult, ConvertError, Note, NoteKind
from confmig.model.plan import PlanError, SitePlan, plan_config, plan_docroot


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
    return _conversion(plan, options, str(docroot))


def _conversion(plan: SitePlan, options: NginxOptions | None, source: str) -> NginxConversion:
    output = render_plan(plan, options)
    result = ConversionResult("nginx", source, output.text, docroots=[plan.document_root])
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
                note.scope, note.fields, note.adds_only, note.answer)




@dataclass
class NginxConfigConversion:
    """A whole configuration: one server per ``<VirtualHost>``."""

    result: ConversionResult
    conversions: list[NginxConversion]

    @property
    def http(self) -> str:
        """Every server's maps, each distinct block once (shared ones are identical)."""
        blocks: list[str] = []
        for conversion in self.conversions:
            for block in conversion.output.http.split("}\n"):
                if block.strip() and block + "}\n" not in blocks:
                    blocks.append(block + "}\n")
        return "".join(blocks)


def convert_config(config: str | os.PathLike[str], options: NginxOptions | None = None,
                   defines: Iterable[str] = (), prelude: str = "") -> NginxConfigConversion:
    """One nginx server per virtual host of *config*; ``files`` maps a file name per server
    (``<ServerName>.conf``) to its text.  *prelude*: see :func:`plan_config`."""
    try:
        plans = plan_config(config, defines, prelude)
    except PlanError as exc:
        raise ConvertError(str(exc)) from exc
    base = options or NginxOptions()
    result = ConversionResult("nginx", str(config), "")
    conversions = []
    for index, plan in enumerate(plans, 1):
        opts = replace(base, map_prefix=f"confmig_s{index}_map")
        conversion = _conversion(plan, opts, str(config))
        conversions.append(conversion)
        name = f"{index:02d}-{plan.server_name or 'server'}.conf"
        result.files[name] = conversion.result.text
        result.docroots.append(plan.document_root)
        result.untranslatable += conversion.result.untranslatable
        result.warnings += conversion.result.warnings
    result.text = "\n".join(c.result.text for c in conversions)
    return NginxConfigConversion(result, conversions)


__all__ = ["NginxConfigConversion", "NginxConversion", "NginxOptions", "NginxOutput",
           "convert_config", "convert_docroot"]
