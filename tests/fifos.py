"""A request Apache answers, or one it leaves hanging in ``open()`` on a FIFO named
``.htaccess`` — told apart by the FIFO's reader, not by how long the answer takes: on a busy
machine a slow answer is not a hang, and a timeout would call it one."""

from __future__ import annotations

import os
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from confmig.servers import http_get

HANGS = "hangs"
POLL_S = 0.05


def status_or_hang(base_url: str, path: str, fifos: Iterable[Path]) -> int | str:
    """The status of ``GET path``, or :data:`HANGS` when Apache was found blocked opening one
    of *fifos*: a reader is waiting in ``open()`` for a writer, and would wait forever. Each
    time one is found the FIFO is opened for writing once, which lets that ``open()`` return
    (an empty file), so the request still finishes and the server stays usable."""
    fifos = list(fifos)
    hung = False
    with ThreadPoolExecutor(max_workers=1) as pool:
        answer = pool.submit(http_get, base_url, path, timeout=120)
        while True:
            try:
                status = answer.result(timeout=POLL_S).status
                break
            except TimeoutError:
                pass
            for fifo in fifos:
                try:  # ENXIO unless a reader has it open
                    fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
                except OSError:
                    continue
                os.close(fd)
                hung = True
    return HANGS if hung else status
