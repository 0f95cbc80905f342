"""Jinja2 environment for the generated server configs (``templates/*.j2``)."""

from __future__ import annotations

import os
from functools import lru_cache
from typing import Any

import jinja2


def apache_quote(value: str | os.PathLike[str]) -> str:
    """Quote one Apache directive argument. Inside quotes only ``\\"`` is an escape."""
    return '"' + os.fspath(value).replace('"', '\\"') + '"'


def nginx_quote(value: str | os.PathLike[str]) -> str:
    """Quote one nginx directive argument."""
    text = os.fspath(value).replace("\\", "\\\\").replace('"', '\\"')
    return f'"{text}"'


@lru_cache(maxsize=1)
def environment() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.PackageLoader("confmig.servers", "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # server configs, not HTML
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters["aq"] = apache_quote
    env.filters["nq"] = nginx_quote
    return env


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
