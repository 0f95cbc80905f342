"""A minimal asyncio HTTP/1.1 load generator, for machines without wrk or ab.

One Python process on one core tops out at a few thousand requests per second, far below what
Apache serves here, so with this client every result says more about Python than about the
server. The runner prints that warning and the ceiling check flags the results as client-bound.
It runs as its own process (``python -m confmig.bench.clients.builtin SPEC.json``) so that it
can be pinned to the client core like wrk.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import time
from dataclasses import asdict
from pathlib import Path
from urllib.parse import urlsplit

from confmig.bench.clients.base import ClientError, LoadClient, LoadResult, LoadSpec
from confmig.bench.stats import latency_summary

MARK = "CONFMIG_JSON "


class BuiltinClient(LoadClient):
    name = "builtin"
    warning = ("built-in Python client: it will be the bottleneck for any real server, so "
               "these figures measure the client; install wrk (apt-get install wrk)")

    @classmethod
    def available(cls) -> bool:
        return True

    @classmethod
    def version(cls) -> str:
        return f"python {sys.version.split()[0]}"

    def command(self, spec: LoadSpec, workdir: Path) -> list[str]:
        spec_file = workdir / "builtin-spec.json"
        data = asdict(spec)
        data["cpus"] = sorted(spec.cpus) if spec.cpus is not None else None
        spec_file.write_text(json.dumps(data))
        return [sys.executable, "-m", "confmig.bench.clients.builtin", str(spec_file)]

    def env(self) -> dict[str, str]:
        # The child imports confmig too, from wherever this process found it.
        package_parent = str(Path(__file__).resolve().parents[3])
        path = os.environ.get("PYTHONPATH")
        return {**os.environ, "PYTHONPATH": f"{package_parent}{os.pathsep}{path}" if path
                else package_parent}

    def parse(self, stdout: str, stderr: str, spec: LoadSpec) -> LoadResult:
        line = next((ln for ln in stdout.splitlines() if ln.startswith(MARK)), None)
        if line is None:
            raise ClientError(f"built-in client printed no result: {stderr.strip()[-500:]}")
        data = json.loads(line[len(MARK):])
        return LoadResult(requests=data["requests"], duration_s=data["duration_s"],
                          latency_ms=data["latency_ms"], errors=data["errors"],
                          bytes=data["bytes"], raw={"tool": "builtin"})


class _Shared:
    def __init__(self, spec: LoadSpec) -> None:
        self.spec = spec
        self.next_index = 0
        self.started = 0
        self.latencies: list[float] = []
        self.errors: dict[str, int] = {}
        self.bytes = 0
        self.deadline = time.monotonic() + (spec.duration_s or spec.time_limit_s)

    def take(self) -> str | None:
        """The next path to request, or None when the run is over."""
        if time.monotonic() >= self.deadline:
            return None
        if self.spec.requests is not None and self.started >= self.spec.requests:
            return None
        self.started += 1
        path = self.spec.paths[self.next_index % len(self.spec.paths)]
        self.next_index += 1
        return path

    def error(self, kind: str) -> None:
        self.errors[kind] = self.errors.get(kind, 0) + 1


async def _read_response(reader: asyncio.StreamReader) -> tuple[int, int, bool]:
    """Read one response; return (status, bytes, server wants to close)."""
    head = await reader.readuntil(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ", 2)[1])
    length = 0
    close = lines[0].startswith("HTTP/1.0")
    for line in lines[1:]:
        name, _, value = line.partition(":")
        name = name.strip().lower()
        if name == "content-length":
            length = int(value.strip())
        elif name == "connection":
            close = value.strip().lower() == "close"
    if length:
        await reader.readexactly(length)
    return status, len(head) + length, close


async def _worker(shared: _Shared, host: str, port: int) -> None:
    spec = shared.spec
    reader: asyncio.StreamReader | None = None
    writer: asyncio.StreamWriter | None = None
    connection = b"keep-alive" if spec.keepalive else b"close"
    try:
        while (path := shared.take()) is not None:
            begin = time.perf_counter()
            try:
                if writer is None:
                    reader, writer = await asyncio.open_connection(host, port)
                assert reader is not None
                writer.write(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: " + host.encode()
                             + b"\r\nConnection: " + connection + b"\r\n\r\n")
                status, size, close = await asyncio.wait_for(_read_response(reader),
                                                             spec.timeout_s)
            except (OSError, asyncio.IncompleteReadError, asyncio.LimitOverrunError,
                    TimeoutError, ValueError, IndexError):
                shared.error("socket")
                writer, reader = _close(writer), None
                continue
            shared.latencies.append((time.perf_counter() - begin) * 1000.0)
            shared.bytes += size
            if status >= 400:
                shared.error("status")
            if close or not spec.keepalive:
                writer, reader = _close(writer), None
    finally:
        _close(writer)


def _close(writer: asyncio.StreamWriter | None) -> None:
    if writer is not None:
        writer.close()
    return None


async def run_load(spec: LoadSpec) -> dict[str, object]:
    """Drive *spec* and return the result as JSON-ready data."""
    parts = urlsplit(spec.base_url)
    shared = _Shared(spec)
    begin = time.perf_counter()
    await asyncio.gather(*(_worker(shared, parts.hostname or "127.0.0.1", parts.port or 80)
                           for _ in range(spec.concurrency)))
    elapsed = time.perf_counter() - begin
    return {
        "requests": len(shared.latencies),
        "duration_s": elapsed,
        "latency_ms": latency_summary(shared.latencies),
        "errors": shared.errors,
        "bytes": shared.bytes,
    }


def main(argv: list[str]) -> int:
    data = json.loads(Path(argv[0]).read_text())
    data["paths"] = tuple(data["paths"])
    data["cpus"] = frozenset(data["cpus"]) if data["cpus"] is not None else None
    spec = LoadSpec(**data)
    result = asyncio.run(run_load(spec))
    sys.stdout.write(MARK + json.dumps(result) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
