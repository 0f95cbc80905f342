"""nginx's limit on the length of one parameter of its configuration.

nginx reads its configuration through a buffer of 4096 bytes (``NGX_CONF_BUFFER``,
src/core/ngx_conf_file.c): a token — a word, a quoted string with its quotes, a comment —
that fills the buffer before it ends is refused, ``too long parameter`` (``nginx -t`` exits
1), wherever it stands in the file. Measured with nginx 1.22.1 at every offset of a 4 KiB
window: a quoted string of 4095 bytes with its quotes loads, one of 4096 does not; a bare
word of 4094 bytes loads, one of 4095 does not (the character after it must be read too);
a comment line of 4095 bytes loads, one of 4096 does not. Apache takes a line of up to
8,191 bytes, so a ``Header`` value it sends may be twice what nginx can hold.
"""

from __future__ import annotations

from collections.abc import Iterator

#: The most bytes a parameter (as written, quotes included) or a comment may hold in any
#: form (the bare word's bound, the smallest of the three).
PARAMETER_MAX = 4094


def token_bytes(token: str) -> int:
    """The bytes *token* takes in the file (UTF-8; the bytes of a surrogate escape)."""
    return len(token.encode("utf-8", "surrogateescape"))


def fits(token: str) -> bool:
    """Whether nginx reads *token*, a parameter as written, as one parameter."""
    return len(token) <= PARAMETER_MAX // 4 or token_bytes(token) <= PARAMETER_MAX


def long_tokens(text: str) -> Iterator[tuple[int, int]]:
    """(line number, bytes) of each token of *text*, an nginx configuration, too long for
    nginx to read (:data:`PARAMETER_MAX`): quoted strings (with backslash escapes),
    comments to the end of their line, and bare words, as ngx_conf_read_token splits
    them. Lines no longer than the bound are skipped without being split."""
    for number, line in enumerate(text.split("\n"), 1):
        if fits(line):
            continue
        at, end = 0, len(line)
        while at < end:
            char = line[at]
            if char in " \t\r;{}":
                at += 1
                continue
            start = at
            if char == "#":
                at = end
            elif char in "\"'":
                at += 1
                while at < end and line[at] != char:
                    at += 2 if line[at] == "\\" else 1
                at = min(at + 1, end)
            else:
                while at < end and line[at] not in " \t\r;{}\"'":
                    at += 2 if line[at] == "\\" else 1
                at = min(at, end)
            if not fits(line[start:at]):
                yield number, token_bytes(line[start:at])
