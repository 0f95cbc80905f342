"""Where an unquoted ``#`` starts a word of a directive's arguments (Apache reads it as one)."""

from __future__ import annotations

import functools


def _words(text: str) -> list[tuple[int, str, bool]]:
    """(offset, word, quoted) as ``ap_getword_conf`` splits ``text``; an unclosed quote runs
    to the end of the line."""
    out: list[tuple[int, str, bool]] = []
    i, n = 0, len(text)
    while i < n:
        while i < n and text[i] in " \t\r\n\f\v":
            i += 1
        if i >= n:
            break
        start = i
        if text[i] in "\"'":
            quote = text[i]
            i += 1
            while i < n and text[i] != quote:
                i += 2 if text[i] == "\\" and i + 1 < n else 1
            closed = i < n
            i += 1
            out.append((start, text[start:i], closed))
            continue
        while i < n and text[i] not in " \t\r\n\f\v":
            i += 1
        out.append((start, text[start:i], False))
    return out


def comment_start(args_text: str) -> int | None:
    """Offset in ``args_text`` of the first unquoted word starting with ``#``."""
    if "#" not in args_text:
        return None
    return _comment_start(args_text)


@functools.lru_cache(maxsize=1024)
def _comment_start(args_text: str) -> int | None:
    """(:func:`comment_start`, once per text: a tree repeats the same lines.)"""
    for offset, word, quoted in _words(args_text):
        if not quoted and word.startswith("#") and not word.startswith(("#{", "#%")):
            return offset
    return None


def unclosed_quote(args_text: str) -> int | None:
    """Offset of a word that opens a quote and never closes it."""
    if '"' not in args_text and "'" not in args_text:
        return None
    return _unclosed_quote(args_text)


@functools.lru_cache(maxsize=1024)
def _unclosed_quote(args_text: str) -> int | None:
    """(:func:`unclosed_quote`, once per text.)"""
    for offset, word, closed in _words(args_text):
        if word[:1] in "\"'" and not closed:
            return offset
    return None
