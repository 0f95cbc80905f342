"""The requests of a replay file: one per line, either a URL (``[METHOD] URL``) or an access
log line in Common, Combined or vhost_combined Log Format (method, path, ``Host`` from the
vhost field, ``User-Agent`` from Combined).  A line that is neither is a :class:`BadLine`
with its number and why; reading never stops on one.

The patterns here are confmig's own fixed shapes of log lines, so they use Python's ``re``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

MAX_LINE = 64 * 1024  # longer lines are reported, not read (LimitRequestLine is 8190)
_METHODS = re.compile(r"[A-Z][A-Z_-]{0,19}")
# [vhost[:port] ]host ident user [time] "request" status bytes ["referer" "user-agent"]
_LOG = re.compile(
    r'^(?:(?P<vhost>[^\s:]+)(?::\d+)? )?\S+ \S+ \S+ \[[^\]]*\] '
    r'"(?P<request>[^"\\]*(?:\\.[^"\\]*)*)" (?:\d{3}|-) (?:\d+|-)'
    r'(?: "(?P<referer>[^"\\]*(?:\\.[^"\\]*)*)" "(?P<agent>[^"\\]*(?:\\.[^"\\]*)*)")?')


@dataclass(frozen=True)
class LoggedRequest:
    """One request to evaluate: where it came from (line number) and what it asks."""

    line: int
    method: str
    url: str
    headers: tuple[tuple[str, str], ...] = field(default=())

    @property
    def key(self) -> tuple[str, str, tuple[tuple[str, str], ...]]:
        """Requests with equal keys get equal answers (one evaluation for all of them)."""
        return self.method, self.url, self.headers


@dataclass(frozen=True)
class BadLine:
    line: int
    why: str


def read_requests(path: Path) -> Iterator[LoggedRequest | BadLine]:
    """Every line of *path* as a request or a bad line (blank lines and ``#`` comments are
    skipped)."""
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if len(raw) > MAX_LINE:
                yield BadLine(number, f"longer than {MAX_LINE} bytes")
                continue
            text = raw.decode("utf-8", errors="surrogateescape").rstrip("\r\n")
            if not text.strip() or text.lstrip().startswith("#"):
                continue
            yield parse_line(number, text)


def parse_line(number: int, text: str) -> LoggedRequest | BadLine:
    """One line: an access log line if it has the shape of one, else ``[METHOD] URL``."""
    m = _LOG.match(text)
    if m is not None:
        return _from_log(number, m)
    words = text.split()
    if len(words) == 1:
        return _checked(number, "GET", words[0], ())
    if len(words) == 2 and _METHODS.fullmatch(words[0]):
        return _checked(number, words[0], words[1], ())
    return BadLine(number, "neither a URL ([METHOD] URL) nor an access log line")


def _from_log(number: int, m: re.Match[str]) -> LoggedRequest | BadLine:
    parts = _unescape(m.group("request")).split(" ")
    if len(parts) not in (2, 3) or not _METHODS.fullmatch(parts[0]):
        return BadLine(number, f"the logged request {m.group('request')[:60]!r} is not "
                               "METHOD TARGET [PROTOCOL]")
    headers: list[tuple[str, str]] = []
    if m.group("vhost"):
        headers.append(("Host", m.group("vhost")))
    agent = m.group("agent")
    if agent and agent != "-":
        headers.append(("User-Agent", _unescape(agent)))
    referer = m.group("referer")
    if referer and referer != "-":
        headers.append(("Referer", _unescape(referer)))
    return _checked(number, parts[0], parts[1], tuple(headers))


def _checked(number: int, method: str, url: str, headers: tuple[tuple[str, str], ...]
             ) -> LoggedRequest | BadLine:
    if not (url.startswith("/") or url.startswith(("http://", "https://")) or url == "*"):
        return BadLine(number, f"{url[:60]!r} is not a path or an http(s) URL")
    return LoggedRequest(number, method, url, headers)


def _unescape(text: str) -> str:
    """mod_log_config escapes ``"`` and ``\\`` (and control bytes as ``\\xhh``)."""
    if "\\" not in text:
        return text
    return re.sub(r"\\x([0-9a-fA-F]{2})|\\(.)",
                  lambda m: _byte(int(m.group(1), 16)) if m.group(1) else m.group(2), text)


def _byte(value: int) -> str:
    """A byte as confmig's text carries it (``surrogateescape`` above 0x7f)."""
    return chr(value) if value < 0x80 else chr(0xDC00 + value)
