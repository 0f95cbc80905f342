"""What ``confmig convert --to nginx`` and ``--to plan`` run (see
:mod:`confmig.convert.registry`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from confmig.convert.nginx import NginxOptions, convert_config, convert_docroot
from confmig.convert.result import ConversionResult, ConvertError
from confmig.model.plan import PlanError, plan_docroot
from confmig.model.plan.json import plan_json

if TYPE_CHECKING:
    from confmig.convert import ConvertRequest


def convert_request(request: ConvertRequest) -> ConversionResult:
    """A DOCROOT (AllowOverride as --config sets it, if given), or with --config alone one
    server per <VirtualHost> (all in one text, each with its own maps)."""
    if request.write:
        raise ConvertError("--write rewrites an Apache configuration; use -o FILE for nginx")
    options = NginxOptions(listen=request.listen or NginxOptions.listen,
                           server_name=request.server_name)
    if request.docroot is None:
        if request.config is None:
            raise ConvertError("give a DOCROOT, or --config httpd.conf")
        return convert_config(request.config, options, request.options.defines).result
    return convert_docroot(request.docroot, request.config, options,
                           request.options.defines).result


def plan_request(request: ConvertRequest) -> ConversionResult:
    if request.docroot is None:
        raise ConvertError("--to plan needs a DOCROOT")
    try:
        plan = plan_docroot(request.docroot, request.config, request.options.defines)
    except PlanError as exc:
        raise ConvertError(str(exc)) from exc
    text = json.dumps(plan_json(plan), indent=2) + "\n"
    return ConversionResult("plan", str(request.docroot), text,
                            docroots=[plan.document_root])
