"""Strings that match — and strings that just miss — a PCRE pattern from a configuration.

Candidates come from :mod:`confmig.verify.strgen`, which reads the common subset of PCRE syntax
and walks it with a seeded generator, bounded in size and work, so two runs probe the same URLs
and no pattern can make the generation explode.  Every candidate is then checked with PCRE2
compiled as Apache compiles it (:class:`confmig.model.rewrite.regex.Regex`): Python's ``re``
is never the judge.  "Misses" are
small edits of matching strings that PCRE2 says no longer match.
"""

from __future__ import annotations

import string
from functools import lru_cache

import pcre2

from confmig.model.rewrite.regex import Regex, RegexError
from confmig.verify.strgen import strings

# Characters a probe URL may carry unescaped in a path segment.
PATH_ALPHABET = string.ascii_letters + string.digits + "-._~/"
HOST_ALPHABET = string.ascii_lowercase + string.digits + "-."
MAX_LENGTH = 80


@lru_cache(maxsize=4096)
def samples(pattern: str, nocase: bool = False, count: int = 6,
            alphabet: str = PATH_ALPHABET) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """``(matches, misses)`` for *pattern*, each at most *count* strings, deterministic."""
    regex = _compiled(pattern, nocase)
    if regex is None:
        return (), ()
    candidates = _literal_guesses(pattern) + _generated(pattern, count * 3, alphabet)
    matches: list[str] = []
    for text in candidates:
        if text not in matches and len(text) <= MAX_LENGTH \
                and all(c in alphabet for c in text) and _hits(regex, text):
            matches.append(text)
    misses: list[str] = []
    for text in matches:
        for edit in _edits(text, alphabet):
            if edit not in misses and edit not in matches and _hits(regex, edit) is False:
                misses.append(edit)
                break
    if not misses:
        for text in ("confmig-miss", "", "x"):
            if _hits(regex, text) is False:
                misses.append(text)
                break
    return tuple(matches[:count]), tuple(misses[:count])


@lru_cache(maxsize=1024)
def _compiled(pattern: str, nocase: bool) -> Regex | None:
    try:
        return Regex(pattern, nocase)
    except RegexError:
        return None


def matches_pattern(pattern: str, nocase: bool, text: str) -> bool:
    """Does PCRE2 (as Apache compiles it) match *text*?  False when it cannot tell."""
    regex = _compiled(pattern, nocase)
    return regex is not None and bool(_hits(regex, text))


def _hits(regex: Regex, text: str) -> bool | None:
    """Does *regex* match *text*?  None when PCRE2 gives up (match limit): such a string
    tells nothing reliable about the pattern and is not used."""
    try:
        return regex.search(text) is not None
    except pcre2.LibraryError:
        return None


def _generated(pattern: str, count: int, alphabet: str) -> list[str]:
    return strings(pattern, count, alphabet, MAX_LENGTH)


def _literal_guesses(pattern: str) -> list[str]:
    """The pattern read as text: anchors dropped, ``\\.`` unescaped, up to the first
    metacharacter — often the one string the author had in mind."""
    text = pattern.removeprefix("^").removesuffix("$")
    out, i = [], 0
    while i < len(text):
        ch = text[i]
        if ch == "\\" and i + 1 < len(text) and not text[i + 1].isalnum():
            out.append(text[i + 1])
            i += 2
            continue
        if ch in "()[]{}*+?|^$.\\":
            break
        out.append(ch)
        i += 1
    literal = "".join(out)
    return [literal] if literal else []


def _edits(text: str, alphabet: str) -> list[str]:
    filler = "q" if "q" in alphabet else alphabet[0]
    edits = [text + filler, text[:-1], filler + text]
    if text:
        edits.append(text[:-1] + ("z" if text[-1] != "z" else "y"))
    edits.append(text + "/" + filler if "/" in alphabet else text + filler + filler)
    return [e for e in edits if all(c in alphabet for c in e)]
