"""Run one docroot on real Apache (the .htaccess tree) and the generated module under real
gunicorn, as ``verify --to flask`` sets them up, and ask both the same requests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from confmig.servers import Response, http_get
from confmig.verify import VerifyRequest
from confmig.verify.flask import prepare
from confmig.verify.session import Setup


@dataclass
class Pair:
    setup: Setup

    def ask(self, path: str, headers: dict[str, str] | None = None,
            method: str = "GET") -> tuple[Response, Response]:
        a = http_get(self.setup.original.base_url, path, headers or {}, method)
        b = http_get(self.setup.converted.base_url, path, headers or {}, method)
        return a, b


@contextlib.contextmanager
def both(docroot: Path) -> Iterator[Pair]:
    setup = prepare(VerifyRequest(target="flask", docroot=docroot))
    with contextlib.ExitStack() as stack:
        for target in (setup.original, setup.converted):
            stack.callback(target.stop)
            target.start()
        yield Pair(setup)
