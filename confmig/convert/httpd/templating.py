"""Jinja2 environment for the converter's templates (``templates/*.j2``)."""

from __future__ import annotations

from functools import cache
from typing import Any

import jinja2


@cache
def environment() -> jinja2.Environment:
    return jinja2.Environment(
        loader=jinja2.PackageLoader("confmig.convert.httpd", "templates"),
        undefined=jinja2.StrictUndefined,
        autoescape=False,  # Apache configuration, not HTML
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )


def render(template: str, **context: Any) -> str:
    return environment().get_template(template).render(**context)
