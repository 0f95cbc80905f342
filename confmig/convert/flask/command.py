"""What ``confmig convert --to flask`` runs (see :mod:`confmig.convert.registry`)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from confmig.convert.flask import convert_docroot
from confmig.convert.result import ConversionResult, ConvertError

if TYPE_CHECKING:
    from confmig.convert import ConvertRequest


def convert_request(request: ConvertRequest) -> ConversionResult:
    if request.docroot is None:
        raise ConvertError("--to flask converts a DOCROOT (the --config mode without a "
                           "DOCROOT is not available yet for flask)")
    if request.write:
        raise ConvertError("--write rewrites an Apache configuration; use -o FILE for flask")
    return convert_docroot(request.docroot, request.config, request.options.defines).result
