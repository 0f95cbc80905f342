"""``confmig convert --to flask``: a document root's Apache configuration as one Python module
(Flask), rendered from the model's site plan (:mod:`confmig.model.plan`).

* :mod:`~confmig.convert.flask.regex` — which patterns Python's ``re`` can match with Apache's
  meaning, and which need ``pcre2``;
* :mod:`~confmig.convert.flask.literals` — the tables as ``ruff format`` writes them;
* :mod:`~confmig.convert.flask.listing` — mod_autoindex's directives a server configuration
  sets (the module writes the plain listing only);
* :mod:`~confmig.convert.flask.render` — the plan as tables plus the engine in the templates
  next to this module.
"""

from __future__ import annotations

import keyword
import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from confmig.convert.flask.listing import server_listing_notes
from confmig.convert.flask.render import DEFAULT_APP_MODULE, FlaskOutput, render_plan
from confmig.convert.result import ConversionResult, ConvertError, Note
from confmig.model.plan import PlanError, SitePlan, plan_config, plan_docroot


@dataclass
class FlaskConversion:
    result: ConversionResult
    plan: SitePlan
    output: FlaskOutput


def convert_docroot(docroot: str | os.PathLike[str], config: str | os.PathLike[str] | None = None,
                    defines: Iterable[str] = (),
                    app_module: str = DEFAULT_APP_MODULE) -> FlaskConversion:
    """Plan *docroot* and render it as a Flask module, to be imported as *app_module*."""
    try:
        plan = plan_docroot(docroot, config, defines)
    except PlanError as exc:
        raise ConvertError(str(exc)) from exc
    return _conversion(plan, str(docroot), app_module, config, defines)


def convert_config(config: str | os.PathLike[str], defines: Iterable[str] = (),
                   docroot: str | os.PathLike[str] | None = None, prelude: str = "",
                   app_module: str = DEFAULT_APP_MODULE) -> FlaskConversion:
    """The site a server configuration serves, its document root taken from the config
    (``DocumentRoot``, per ``<VirtualHost>``): the only one, or the one whose
    ``DocumentRoot`` is *docroot* — a module serves one document root, so a config with
    several virtual hosts needs *docroot* to say which.  *prelude*: see
    :func:`confmig.model.plan.plan_config`."""
    plans = _config_plans(config, defines, prelude)
    if docroot is not None:
        wanted = _root(docroot)
        plans = [p for p in plans if _root(p.document_root) == wanted]
        if not plans:
            raise ConvertError(f"{config}: no virtual host has DocumentRoot {wanted}")
    if len(plans) != 1:
        roots = ", ".join(f"{p.server_name or p.label} ({p.document_root})" for p in plans)
        raise ConvertError(f"{config}: {len(plans)} virtual hosts ({roots}); a Flask module "
                           "serves one document root: give its DOCROOT with --config")
    return _conversion(plans[0], str(config), app_module, config, defines)


def convert_site(docroot: str | os.PathLike[str], config: str | os.PathLike[str],
                 defines: Iterable[str] = (),
                 app_module: str = DEFAULT_APP_MODULE) -> FlaskConversion:
    """DOCROOT with --config: the virtual host whose DocumentRoot it is (its ServerName and
    its own directives), else DOCROOT under the config's main server."""
    plans = [p for p in _config_plans(config, defines, "")
             if _root(p.document_root) == _root(docroot)]
    if len(plans) == 1:
        return _conversion(plans[0], str(docroot), app_module, config, defines)
    return convert_docroot(docroot, config, defines, app_module)


def _config_plans(config: str | os.PathLike[str], defines: Iterable[str],
                  prelude: str) -> list[SitePlan]:
    try:
        return plan_config(config, defines, prelude)
    except PlanError as exc:
        raise ConvertError(str(exc)) from exc


def _root(path: str | os.PathLike[str]) -> str:
    return str(Path(path).resolve()).rstrip("/") or "/"


def check_app_module(name: str, output: str | os.PathLike[str] | None = None) -> str:
    """*name* as ``import`` takes it (dotted identifiers), and the file *output* must be
    for that import to find it; :class:`ConvertError` otherwise."""
    parts = name.split(".")
    if not all(p.isidentifier() and not keyword.iskeyword(p) for p in parts):
        raise ConvertError(f"--app-module {name!r}: not a Python module name (identifiers "
                           "separated by dots)")
    if output is not None and Path(output).name != parts[-1] + ".py":
        raise ConvertError(f"--app-module {name}: the module is imported from a file named "
                           f"{parts[-1]}.py, not {Path(output).name}")
    return name


def _conversion(plan: SitePlan, source: str, app_module: str,
                config: str | os.PathLike[str] | None = None,
                defines: Iterable[str] = ()) -> FlaskConversion:
    if config is not None:  # what the plan does not carry of the server configuration
        plan.notes.extend(server_listing_notes(config, defines, plan.document_root))
    output = render_plan(plan, app_module)
    result = ConversionResult("flask", source, output.text, docroots=[plan.document_root])
    seen: set[tuple[str, int, str, str]] = set()
    for note in output.notes:
        key = (note.file, note.line, note.directive, note.reason)
        if key in seen:
            continue
        seen.add(key)
        (result.untranslatable if note.changes_behaviour else result.warnings).append(note)
    return FlaskConversion(result, plan, output)


__all__ = ["DEFAULT_APP_MODULE", "FlaskConversion", "FlaskOutput", "Note", "check_app_module",
           "convert_config", "convert_docroot", "convert_site"]
