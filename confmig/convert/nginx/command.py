"""What ``confmig convert --to nginx`` and ``--to plan`` run (see
:mod:`confmig.convert.registry`)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from confmig.convert.nginx import NginxOptions, convert_docroot
from confmig.convert.result import ConversionResult, ConvertError
from confmig.model.plan import PlanError, plan_docroot
from confmig.model.plan.json import plan_json

if TYPE_CHECKING:
    from confmig.convert import ConvertRequest


def convert_request(request: ConvertRequest) -> ConversionResult:
    if request.docroot is None:
        raise ConvertError("--to nginx converts a DOCROOT (the --config mode without a "
                           "DOCROOT is not available yet for nginx)")
    if request.write:
        raise ConvertError("--write rewrites an Apache configuration; use -o FILE for nginx")
    options = NginxOptions(listen=request.listen or NginxOptions.listen,
                           server_name=request.server_name)
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
