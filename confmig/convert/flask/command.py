"""What ``confmig convert --to flask`` runs (see :mod:`confmig.convert.registry`)."""

from __future__ import annotations

import keyword
from typing import TYPE_CHECKING

from confmig.convert.flask import (
    DEFAULT_APP_MODULE,
    check_app_module,
    convert_config,
    convert_docroot,
    convert_site,
)
from confmig.convert.result import ConversionResult, ConvertError

if TYPE_CHECKING:
    from confmig.convert import ConvertRequest


def convert_request(request: ConvertRequest) -> ConversionResult:
    """A DOCROOT (AllowOverride as --config sets it, if given), or with --config alone the
    site the config serves (its DocumentRoot; one virtual host, or give its DOCROOT)."""
    if request.write:
        raise ConvertError("--write rewrites an Apache configuration; use -o FILE for flask")
    name = app_module(request)
    if request.docroot is None:
        if request.config is None:
            raise ConvertError("give a DOCROOT, or --config httpd.conf")
        return convert_config(request.config, request.options.defines,
                              app_module=name).result
    if request.config is not None:
        return convert_site(request.docroot, request.config, request.options.defines,
                            name).result
    return convert_docroot(request.docroot, None, request.options.defines, name).result


def app_module(request: ConvertRequest) -> str:
    """--app-module (checked against -o FILE), else the name -o FILE is imported by, else
    :data:`DEFAULT_APP_MODULE`."""
    if request.app_module is not None:
        return check_app_module(request.app_module, request.output)
    output = request.output
    if output is not None and output.suffix == ".py" and output.stem.isidentifier() \
            and not keyword.iskeyword(output.stem):
        return output.stem
    return DEFAULT_APP_MODULE
