"""Run one docroot on real Apache (the .htaccess tree) and real nginx (the converted server)
through confmig.verify.nginx, and ask both the same requests."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from confmig.servers import Response, http_get
from confmig.verify import VerifyRequest
from confmig.verify.nginx import prepare
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
    setup = prepare(VerifyRequest(target="nginx", docroot=docroot))
    with contextlib.ExitStack() as stack:
        for target in (setup.original, setup.converted):
            stack.callback(target.stop)
            target.start()
        yield Pair(setup)


@contextlib.contextmanager
def both_config(config: Path) -> Iterator[Pair]:
    """Real Apache running *config* (made runnable privately) and real nginx running its
    conversion, as ``verify --to nginx --config`` starts them; ask with a ``Host`` header."""
    setup = prepare(VerifyRequest(target="nginx", config=config))
    with contextlib.ExitStack() as stack:
        for target in (setup.original, setup.converted):
            stack.callback(target.stop)
            target.start()
        yield Pair(setup)
