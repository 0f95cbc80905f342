"""The converters confmig knows: one place that ``convert``, ``verify``, ``bench`` and the
command line's help read.

A converter names its functions as ``module:function`` and is imported only when used (the
command line starts without loading every target):

* ``convert`` — ``(ConvertRequest) -> ConversionResult`` (``None`` for httpd, whose docroot
  and whole-configuration modes :func:`confmig.convert.run` drives itself);
* ``verify`` — ``(VerifyRequest) -> Setup``: the two servers a verification compares
  (``None`` for httpd: :func:`confmig.verify.session.prepare`);
* ``bench`` — the ``confmig bench`` target that measures it, if any.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Converter:
    name: str
    summary: str
    convert: str | None = None
    verify: str | None = None
    bench: str | None = None
    planned: bool = False

    def function(self, which: str) -> Callable[..., Any] | None:
        """The ``convert`` or ``verify`` function, imported now (None when built in)."""
        ref = getattr(self, which)
        if ref is None:
            return None
        module, _, name = ref.partition(":")
        return getattr(importlib.import_module(module), name)  # type: ignore[no-any-return]


CONVERTERS: tuple[Converter, ...] = (
    Converter("httpd", "fold .htaccess files into <Directory> blocks", bench="apache-httpd"),
    Converter("nginx", "one nginx server { } that answers like Apache",
              convert="confmig.convert.nginx.command:convert_request",
              verify="confmig.verify.nginx:prepare"),
    Converter("plan", "the target-neutral site plan as JSON (what the emitters render)",
              convert="confmig.convert.nginx.command:plan_request"),
    Converter("flask", "one Python module (Flask) that answers like Apache",
              convert="confmig.convert.flask.command:convert_request",
              verify="confmig.verify.flask:prepare"),
)
BY_NAME = {c.name: c for c in CONVERTERS}


def names(*, planned: bool = True) -> list[str]:
    return [c.name for c in CONVERTERS if planned or not c.planned]


def available() -> list[str]:
    return [c.name for c in CONVERTERS if not c.planned]


def planned() -> list[str]:
    return [c.name for c in CONVERTERS if c.planned]


def verifiable() -> list[str]:
    return [c.name for c in CONVERTERS if not c.planned and (c.verify or c.name == "httpd")]


def lookup(name: str) -> Converter | None:
    return BY_NAME.get(name)
