"""URL helpers of mod_rewrite and httpd's ``server/util.c``, byte for byte.

Strings are Python ``str``; functions that work on bytes in C (escaping, lengths) work on the
UTF-8 bytes here, so a non-ASCII character becomes several ``%XX`` as it would in Apache.
"""

from __future__ import annotations

from confmig.model.rewrite.regex import from_bytes, to_bytes

# (prefix, length, supports query string) as in is_absolute_uri(); matched case-insensitively.
_SCHEMES: tuple[tuple[str, int, bool], ...] = (
    ("ajp://", 6, True), ("balancer://", 11, True), ("ftp://", 6, False),
    ("fcgi://", 7, True), ("gopher://", 9, False), ("http://", 7, True),
    ("https://", 8, True), ("h2://", 5, True), ("h2c://", 6, True), ("ldap://", 7, False),
    ("mailto:", 7, True), ("news:", 5, False), ("nntp://", 7, False), ("scgi://", 7, True),
    ("ws://", 5, True), ("wss://", 6, True),
)

_ALNUM = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789")
# T_OS_ESCAPE_PATH is set for everything but alnum and these (gen_test_char.c).
_PATH_SAFE = _ALNUM | frozenset(b"$-_.+!*'(),:;@&=/~")
_PATH_SAFE_BYTES = bytes(sorted(_PATH_SAFE))


def is_absolute_uri(uri: str) -> tuple[int, bool]:
    """``(length of "scheme://", scheme supports a query)``; ``(0, False)`` when not absolute."""
    if not uri or uri[0] == "/" or len(uri) <= 5 or ":" not in uri[:12]:
        return 0, False
    low = uri[:12].lower()
    for prefix, length, sqs in _SCHEMES:
        if low.startswith(prefix):
            return length, sqs
    if low.startswith("unix:"):
        return (7 if uri[5:7] == "//" else 5), True
    return 0, False


def escape_uri(text: str) -> str:
    """``ap_escape_uri`` (``ap_os_escape_path(p, s, 1)``): %-escape all but the path-safe set."""
    raw = to_bytes(text)
    if not raw.translate(None, _PATH_SAFE_BYTES):  # nothing outside the safe set
        return text
    return "".join(chr(c) if c in _PATH_SAFE else f"%{c:02x}" for c in raw)


def escape_backref(text: str, escapes: str | None, noescapes: str | None, *, noplus: bool,
                   ctls: bool) -> str:
    """``escape_backref`` for the ``[B]`` family of flags (php-``urlencode``-like)."""
    esc = to_bytes(escapes) if escapes is not None else None
    noesc = to_bytes(noescapes) if noescapes is not None else None
    out: list[str] = []
    for c in to_bytes(text):
        # [BCTLS] selects what is not VCHAR/obs-text: NUL, controls and space.
        selected = (c <= 0x20 or c == 0x7F) if ctls else esc is None
        if (selected or (esc is not None and c in esc)) and not (noesc is not None and c in noesc):
            if c in _ALNUM or c == 0x5F:
                out.append(chr(c))
            elif c == 0x20 and not noplus:
                out.append("+")
            else:
                out.append(f"%{c:02x}")
        else:
            out.append(chr(c))
    return from_bytes("".join(out).encode("latin-1"))


def escape_absolute_uri(uri: str, scheme_len: int) -> str:
    """``escape_absolute_uri``: escape the path (and ldap's ``?`` parts) of a redirect URL."""
    if not scheme_len or len(uri) < scheme_len:
        return uri
    cp = scheme_len
    if uri[cp - 1] == "/":
        slash = uri.find("/", cp)
        if slash < 0 or slash + 1 >= len(uri):
            return uri
        cp = slash + 1
        if uri[:4].lower() == "ldap":
            tokens = uri[cp:].split("?", 4)
            return uri[:cp] + "?".join(escape_uri(t) for t in tokens)
    return uri[:cp] + escape_uri(uri[cp:])


def unescape_url(text: str) -> tuple[str, bool, bool]:
    """``ap_unescape_url``: decode ``%XX``; returns (decoded, bad escape seen, bad path seen).

    A bad path is an encoded NUL or slash (Apache answers 404 for those when decoding a URI
    with ``AllowEncodedSlashes Off``); a bad escape is a ``%`` not followed by two hex digits
    (Apache answers 400).  The decoded text keeps bad escapes verbatim.
    """
    if "%" not in text:
        return text, False, False
    raw = to_bytes(text)
    out = bytearray()
    i, n = 0, len(raw)
    bad_esc = bad_path = False
    hexdigits = b"0123456789abcdefABCDEF"
    while i < n:
        c = raw[i]
        if c == 0x25:
            if i + 2 < n and raw[i + 1] in hexdigits and raw[i + 2] in hexdigits:
                decoded = int(raw[i + 1:i + 3], 16)
                if decoded in (0, 0x2F):
                    bad_path = True
                out.append(decoded)
                i += 3
                continue
            bad_esc = True
        out.append(c)
        i += 1
    return from_bytes(bytes(out)), bad_esc, bad_path


def subst_prefix_path(text: str, match: str, subst: str) -> str:
    """``subst_prefix_path``: replace the directory prefix *match* of *text* by *subst*."""
    length = len(match)
    if length and match[-1] == "/":
        length -= 1
    if text[:length] == match[:length] and text[length:length + 1] == "/":
        rest = text[length + 1:]
        if subst and subst[-1] != "/":
            subst += "/"
        return subst + rest
    return text


def atoi(text: str) -> int:
    """C ``atoi``: optional blanks and sign, then leading digits; anything else gives 0."""
    s = text.lstrip(" \t\n\v\f\r")
    sign = 1
    if s[:1] in ("+", "-"):
        sign = -1 if s[0] == "-" else 1
        s = s[1:]
    digits = 0
    for ch in s:
        if not "0" <= ch <= "9":
            break
        digits += 1
    return sign * int(s[:digits]) if digits else 0


def compare_lexicography(a: str, b: str) -> int:
    """mod_rewrite's "lexicographic" compare: the LONGER string is greater; equal lengths
    compare byte by byte.  (So ``"9" < "10"`` holds for ``RewriteCond ... <``.)"""
    ab, bb = to_bytes(a), to_bytes(b)
    if len(ab) != len(bb):
        return 1 if len(ab) > len(bb) else -1
    return (ab > bb) - (ab < bb)


def casecmp(a: str, b: str) -> int:
    """``strcasecmp`` (ASCII case folding, byte order)."""
    al, bl = to_bytes(a).lower(), to_bytes(b).lower()
    return (al > bl) - (al < bl)


def has_ctl_or_space(text: str) -> bool:
    """True when ``ap_scan_vchar_obstext`` stops early: a control character or a space."""
    return any(ch <= " " or ch == "\x7f" for ch in text)
