"""The requests of a URL list or an access log as verify's probes: what ``explain --requests
FILE --against TARGET`` sends to the original Apache and to the converted target, to say which
of them would answer differently after ``convert --to TARGET`` — compared exactly as
``verify --requests`` compares its requests (:func:`confmig.verify.session.verify`).

The file is read as ``explain --requests`` reads it (:mod:`confmig.replay.logs`): one request
per line, a URL list or Common/Combined Log Format; a bad line is skipped here (the replay
counts and reports it).  An absolute URL is sent as its path, with its authority as the Host
header unless the line names one."""

from __future__ import annotations

from pathlib import Path

from confmig.replay.logs import BadLine, read_requests
from confmig.verify.probes import Probe, ProbeSite


def log_probes(path: Path, site: ProbeSite | None) -> list[Probe]:
    """One probe per request line of *path* (bad lines skipped); ``why`` is ``FILE:LINE``."""
    probes = []
    for item in read_requests(path):
        if isinstance(item, BadLine):
            continue
        split = split_url(item.url)
        if split is None:
            continue
        target, authority = split
        headers = item.headers
        if authority and not any(name.lower() == "host" for name, _ in headers):
            headers = (("Host", authority), *headers)
        probes.append(Probe(target, item.method, site.headers(headers) if site else headers,
                            f"{path.name}:{item.line}",
                            site.directory_of(target) if site else None))
    return probes


def split_url(url: str) -> tuple[str, str | None] | None:
    """``http://host[:port]/path?q`` → (``/path?q``, ``host[:port]``); a bare ``/path?q`` →
    (itself, None); None for anything else."""
    if url.startswith("/"):
        return url, None
    scheme, sep, rest = url.partition("://")
    if not sep or scheme.lower() not in ("http", "https"):
        return None
    slash = rest.find("/")
    authority, target = (rest, "/") if slash < 0 else (rest[:slash], rest[slash:])
    authority = authority.rpartition("@")[2]
    return target, authority or None
