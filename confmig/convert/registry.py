"""The converters confmig knows: one place that ``convert``, ``verify``, ``bench`` and the
command line's help read.

A converter names its functions as ``module:function`` and is imported only when used (the
command line starts without loading every target):

* ``convert`` — ``(ConvertRequest) -> ConversionResult`` (``None`` for httpd, whose docroot
  and whole-configuration modes :func:`confmig.convert.run` drives itself);
* ``verify`` — ``(VerifyRequest) -> Setup``: the two servers a verification compares
  (``None`` for httpd: :func:`confmig.verify.session.prepare`);
* ``bench`` — the ``confmig bench`` targets that measure it, as ``module:Class`` (a
  :class:`confmig.bench.targets.Target`): ``--targets`` accepts exactly these and the baseline.
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
    bench: tuple[str, ...] = ()
    planned: bool = False

    def function(self, which: str) -> Callable[..., Any] | None:
        """The ``convert`` or ``verify`` function, imported now (None when built in)."""
        ref = getattr(self, which)
        if ref is None:
            return None
        return _load(ref)  # type: ignore[no-any-return]

    def bench_targets(self) -> list[Any]:
        """The ``confmig bench`` target classes of :attr:`bench`, imported now."""
        return [_load(ref) for ref in self.bench]


def _load(ref: str) -> Any:
    """``module:name`` → the object."""
    module, _, name = ref.partition(":")
    return getattr(importlib.import_module(module), name)


CONVERTERS: tuple[Converter, ...] = (
    Converter("httpd", "fold .htaccess files into <Directory> blocks",
              bench=("confmig.bench.targets.apache:ApacheHttpdTarget",)),
    Converter("nginx", "one nginx server { } that answers like Apache",
              convert="confmig.convert.nginx.command:convert_request",
              verify="confmig.verify.nginx:prepare",
              bench=("confmig.bench.targets.nginx:NginxTarget",
                     "confmig.bench.targets.nginx:NginxHandwrittenTarget")),
    Converter("plan", "the target-neutral site plan as JSON (what the emitters render)",
              convert="confmig.convert.nginx.command:plan_request"),
    Converter("flask", "one Python module (Flask) that answers like Apache",
              convert="confmig.convert.flask.command:convert_request",
              verify="confmig.verify.flask:prepare",
              bench=("confmig.bench.targets.flask:FlaskGunicornTarget",
                     "confmig.bench.targets.flask:FlaskModWsgiTarget",
                     "confmig.bench.targets.flask:FlaskWaitressTarget")),
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
