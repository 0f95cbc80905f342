"""What Apache refuses while it reads a request, before any configuration section is asked.

``read_request_line``/``ap_parse_request_line`` and ``ap_get_mime_headers_core``
(``server/protocol.c``) and ``fix_hostname`` (``server/vhost.c``), with Apache's default
``HttpProtocolOptions Strict``:

* a request line longer than LimitRequestLine + 1 bytes (``ap_rgetline`` is given the limit
  + 2, the CRLF included) → 414;
* a method that is not a token, or a target with a control character (anything but VCHAR
  and obs-text) → 400;
* a header line (``Name: value``) longer than LimitRequestFieldSize + 1 bytes, more than
  LimitRequestFields headers, a name that is not a token, a value with a control character
  other than HT → 400;
* a Host that is empty, has a bad port, is purely numeric, a dotted quad that is not one, a
  name with anything but letters, digits, ``-``, ``_`` and ``.`` (no ``..``, ``/``, ``\\``,
  the top-level label starting with a letter), or a bad IPv6 literal → 400.

With ``HttpProtocolOptions Unsafe`` the legacy checks apply instead (whitespace in a header
name, CR/LF/VT/FF in a value).  A header given to the model is one header line: a CR or LF
in it is a control character in the value (Apache answers 400 both for a bare CR and for a
bare LF in a header line).  Each answer was checked on Apache with raw requests
(``tests/model/test_hostile_apache.py``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

__all__ = ["ProtocolLimits", "refusal"]


@dataclass(frozen=True, slots=True)
class ProtocolLimits:
    """The server's LimitRequestLine, LimitRequestFieldSize, LimitRequestFields and
    HttpProtocolOptions Strict|Unsafe (read from the main server config)."""

    request_line: int = 8190
    field_size: int = 8190
    fields: int = 100
    strict: bool = True


DEFAULT_LIMITS = ProtocolLimits()

# RFC 7230 tchar; VCHAR / obs-text (ap_scan_vchar_obstext); field-content (VCHAR, obs-text,
# SP, HT).  Text here is str with non-UTF-8 bytes as lone surrogates (surrogateescape):
# everything from U+0080 up is obs-text.
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")
_BAD_TARGET = re.compile(r"[\x00-\x20\x7f]")
_BAD_VALUE_STRICT = re.compile(r"[\x00-\x08\x0a-\x1f\x7f]")
_BAD_VALUE_UNSAFE = re.compile(r"[\n\v\f\r]")
_BAD_NAME_UNSAFE = re.compile(r"[\t\n\v\f\r ]")
_BLANKS = " \t"


def _size(text: str) -> int:
    """Length in bytes (a non-ASCII character is 2-4 bytes, a lone surrogate one)."""
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogateescape"))


def refusal(method: str, target: str, protocol: str, headers: Iterable[tuple[str, str]],
            limits: ProtocolLimits = DEFAULT_LIMITS) -> tuple[int, str] | None:
    """(status, why) when Apache refuses the request while reading it, else None."""
    line = _size(method) + _size(target) + _size(protocol) + 2
    if line > limits.request_line + 1:
        return 414, (f"the request line is {line} bytes, over LimitRequestLine "
                     f"({limits.request_line}) → 414")
    if not _TOKEN.fullmatch(method):
        return 400, "the method is not a token → 400"
    if not target or _BAD_TARGET.search(target):
        return 400, "the request target contains a control character or blank → 400"
    host: str | None = None
    for count, (name, value) in enumerate(headers, 1):
        if limits.fields and count > limits.fields:
            return 400, f"more than LimitRequestFields ({limits.fields}) header lines → 400"
        size = _size(name) + 2 + _size(value)
        if size > limits.field_size + 1:
            return 400, (f"header {_shown(name)} is {size} bytes, over "
                         f"LimitRequestFieldSize ({limits.field_size}) → 400")
        if limits.strict:
            if not _TOKEN.fullmatch(name):
                return 400, f"header name {_shown(name)} is not a token → 400"
            if _BAD_VALUE_STRICT.search(value):
                return 400, f"header {_shown(name)} has a control character in its value → 400"
        else:
            if not name or _BAD_NAME_UNSAFE.search(name):
                return 400, f"header name {_shown(name)} has whitespace → 400"
            if _BAD_VALUE_UNSAFE.search(value):
                return 400, f"header {_shown(name)} has a line break in its value → 400"
        if name.lower() == "host":
            value = value.strip(_BLANKS)
            host = value if host is None else f"{host}, {value}"
    if host is not None:
        why = host_refusal(host, limits.strict)
        if why:
            return 400, f"Host {_shown(host)}: {why} → 400"
    return None


def _shown(text: str) -> str:
    """*text* quoted for a message: control characters escaped, a long one cut."""
    cut = text if len(text) <= 60 else text[:40] + "…" + text[-10:]
    return repr(cut)


@lru_cache(maxsize=512)
def host_refusal(host: str, strict: bool = True) -> str:
    """Why ``fix_hostname`` refuses a Host header value ("" when it does not)."""
    if not host:
        return "empty (an HTTP/1.1 request needs a host name)"
    if host.isascii() and host.isdigit():
        return "a purely numeric host name" if strict else ""
    name, port, ok = _split_addr_port(host)
    if not ok:
        return "not a host[:port]"
    if port is not None and not 0 < port < 65536:
        return "bad port"
    if host.startswith("["):
        return "" if _v6_ok(name) else "bad IPv6 literal"
    if ".." in name or "/" in name or "\\" in name:
        return "'..', '/' or '\\' in the name"
    name = name.lower().removesuffix(".")
    if not strict:
        return ""
    return "" if _strict_name_ok(name) else "not a valid host name (HttpProtocolOptions Strict)"


def _split_addr_port(text: str) -> tuple[str, int | None, bool]:
    """``apr_parse_addr_port``: (host, port or None, parsed)."""
    if text.startswith("["):
        end = text.find("]")
        if end < 0:
            return text, None, False
        name, rest = text[1:end], text[end + 1:]
        if "%" in name:  # a scope id: fix_hostname refuses it
            return name, None, False
    else:
        name, sep, rest = text.partition(":")
        rest = sep + rest
        if ":" in rest[1:]:
            return name, None, False
    if not rest:
        return name, None, bool(name)
    if not rest.startswith(":") or not rest[1:].isdigit() or not rest[1:].isascii():
        return name, None, False
    return name, int(rest[1:]), bool(name)


def _v6_ok(name: str) -> bool:
    """``fix_hostname_v6_literal`` (after ``apr_parse_addr_port`` checked it is an address)."""
    import ipaddress

    try:
        ipaddress.IPv6Address(name)
    except ValueError:
        return False
    return True


def _strict_name_ok(host: str) -> bool:
    """``strict_hostname_check`` on the lower-cased name without its trailing dot."""
    dotted_decimal = True
    dots = 0
    leading_zeroes = False
    for i, ch in enumerate(host):
        if ch.isascii() and (ch.isalpha() or ch in "-_"):
            dotted_decimal = False
        elif ch == ".":
            dots += 1
            if host[i + 1:i + 2] == "0" and host[i + 2:i + 3].isdigit():
                leading_zeroes = True
        elif not (ch.isascii() and ch.isdigit()):
            return False
    if dotted_decimal:
        if host.startswith(".") or (host[:1] == "0" and host[1:2].isdigit()):
            leading_zeroes = True
        return not leading_zeroes and dots == 3
    last = host.rfind(".")
    return last < 0 or last + 1 >= len(host) or (host[last + 1].isascii()
                                                  and host[last + 1].isalpha())
