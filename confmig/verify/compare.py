"""Reduce a response to what the configuration decides, and compare two of them.

Compared: the status, ``Location``, a hash of the body, and every header the configuration can
set (``Content-Type``, ``Cache-Control``, ``Vary``, custom ``Header`` names…).  Left out as
noise: ``Date``, ``Server``, ``Connection``/``Keep-Alive``, ``Transfer-Encoding`` and
``Content-Length`` (the body hash covers it); ``ETag`` only for being there or not; ``Expires``
as its distance from ``Date`` (mod_expires' max-age), within two seconds.  Each server's own
port is replaced by ``PORT`` in ``Location`` and in the body (error pages and redirects name
it), since the two servers listen on different ports.
"""

from __future__ import annotations

import hashlib
import zlib
from dataclasses import dataclass, field
from email.utils import parsedate_to_datetime

from confmig.servers import Response

NOISE = frozenset({"date", "server", "connection", "keep-alive", "transfer-encoding",
                   "content-length"})
PRESENCE_ONLY = frozenset({"etag"})
EXPIRES_TOLERANCE = 2


@dataclass(frozen=True)
class Observed:
    """One response, normalised."""

    status: int
    location: str | None = None
    body_sha256: str = ""
    body_preview: str = ""
    headers: dict[str, str] = field(default_factory=dict)
    expires_in: int | None = None  # Expires - Date, seconds
    error: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"status": self.status, "location": self.location,
                "body_sha256": self.body_sha256, "headers": self.headers,
                "expires_in": self.expires_in, "error": self.error}


#: How a field one answer does not have is shown (a header it did not send, an empty body).
ABSENT = "(absent)"
EMPTY = "(empty)"


@dataclass(frozen=True)
class FieldDiff:
    field: str
    original: str
    converted: str

    @property
    def added(self) -> bool:
        """Apache's answer had nothing there and the converted one has something."""
        return self.original in (ABSENT, EMPTY) and self.converted not in (ABSENT, EMPTY)


def wider(original: Observed, converted: Observed) -> bool:
    """Whether the converted answer lets through what Apache refused — the one difference
    no note excuses (README "Safety": never looser than Apache).

    Wider: Apache refused or failed (4xx/5xx, 401 included) and the converted server
    answered 2xx or 3xx — served something, or sent the client on.  Not wider: any other
    pair, in particular a stricter answer (Apache 200, converted 403/500) and one refusal
    for another (Apache 401, converted 403: the deny-and-announce a converter uses for a
    login it cannot check; a 401 without ``WWW-Authenticate`` lets nobody in either).  A
    request either server did not answer (status 0) is an error, compared on its own.
    """
    if original.error or converted.error:
        return False
    return original.status >= 400 and 100 <= converted.status < 400


def observe(response: Response, port: int, hosts: tuple[str, ...] = ()) -> Observed:
    body = _unport(_decoded(response).decode("latin-1"), port, hosts)
    headers: dict[str, str] = {}
    location = None
    for name in response.headers:
        lower = name.lower()
        value = response.headers[name]
        if lower in NOISE or lower == "expires":
            continue
        if lower == "location":
            location = _unport(value, port, hosts)
            continue
        headers[lower] = "(present)" if lower in PRESENCE_ONLY else _unport(value, port, hosts)
    return Observed(
        status=response.status,
        location=location,
        body_sha256=hashlib.sha256(body.encode("latin-1")).hexdigest(),
        body_preview=" ".join(body[:120].split()),
        headers=headers,
        expires_in=_expires_in(response),
    )


#: At most this much of a compressed body is decompressed for the comparison.
MAX_DECODED = 64 * 1024 * 1024


def _decoded(response: Response) -> bytes:
    """The body a ``Content-Encoding: gzip`` answer carries, decompressed: two servers
    compress the same bytes differently (level, header fields), so the content is compared
    and the header on its own.  A body that does not decompress is compared as sent."""
    if response.headers.get("content-encoding", "").strip().lower() != "gzip":
        return response.body
    inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
    try:
        data = inflater.decompress(response.body, MAX_DECODED)
    except zlib.error:
        return response.body
    return data if inflater.eof else response.body


def failed(error: BaseException) -> Observed:
    return Observed(status=0, error=f"{type(error).__name__}: {error}")


def differences(original: Observed, converted: Observed) -> list[FieldDiff]:
    out: list[FieldDiff] = []
    if original.error or converted.error:
        if original.error != converted.error:
            out.append(FieldDiff("error", str(original.error), str(converted.error)))
        return out
    if original.status != converted.status:
        out.append(FieldDiff("status", str(original.status), str(converted.status)))
    if original.location != converted.location:
        out.append(FieldDiff("location", str(original.location), str(converted.location)))
    if original.body_sha256 != converted.body_sha256:
        out.append(FieldDiff("body", original.body_preview or EMPTY,
                             converted.body_preview or EMPTY))
    for name in sorted(set(original.headers) | set(converted.headers)):
        a, b = original.headers.get(name), converted.headers.get(name)
        if a != b:
            out.append(FieldDiff(name, str(a) if a is not None else ABSENT,
                                 str(b) if b is not None else ABSENT))
    a_exp, b_exp = original.expires_in, converted.expires_in
    if (a_exp is None) != (b_exp is None) or (
            a_exp is not None and b_exp is not None and abs(a_exp - b_exp) > EXPIRES_TOLERANCE):
        out.append(FieldDiff("expires", _expires(a_exp), _expires(b_exp)))
    return out


def _expires(value: int | None) -> str:
    return ABSENT if value is None else f"Date + {value}s"


def _expires_in(response: Response) -> int | None:
    if "expires" not in response.headers:
        return None
    try:
        expires = parsedate_to_datetime(response.headers["expires"])
        date = parsedate_to_datetime(response.headers.get("date", ""))
    except (TypeError, ValueError):
        return -1  # present but not a date (Apache sends "0" sometimes): compare presence
    return int((expires - date).total_seconds())


def _unport(text: str, port: int, hosts: tuple[str, ...]) -> str:
    if str(port) not in text:
        return text
    for host in ("127.0.0.1", "localhost", *hosts):
        text = text.replace(f"{host}:{port}", f"{host}:PORT")
    return text.replace(f"Port {port}", "Port PORT")
