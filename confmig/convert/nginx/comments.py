"""Text of the site in the output's comments, kept in them.

Comments name their Apache source — file names, directories, URL paths, lines of the
configuration — and an nginx comment ends at the end of its line: a directory named
``x\\nreturn 200; #`` quoted in a comment would make ``return 200;`` a directive of the
converted site. Every line of the output goes through :func:`line` (every comment line
through :func:`comment`), which escapes the control characters of its comment part
(``\\x0a`` for a newline, as the text reports do: confmig.console.printable). A quoted
parameter keeps its newline: inside quotes it is one character of the value, as nginx reads
it.
"""

from __future__ import annotations

from confmig.console import printable

_WORD_END = " \t\r\n;{}"


def comment(text: str) -> str:
    """*text* as the rest of a comment line (after ``# ``)."""
    return printable(text)


def line(text: str) -> str:
    """*text*, a line of the output, with the comment it may hold escaped (from a ``#``
    that starts a token outside quotes to the end, as ngx_conf_read_token reads it)."""
    if text.isprintable():
        return text
    quote = ""
    at = 0
    start = True  # at the start of a token
    while at < len(text):
        char = text[at]
        if quote:
            if char == "\\":
                at += 1
            elif char == quote:
                quote = ""
        elif char == "#" and start:
            return text[:at] + printable(text[at:])
        elif char in "\"'" and start:
            quote = char
        elif char == "\\":
            at += 1
        start = not quote and char in _WORD_END
        at += 1
    return text
