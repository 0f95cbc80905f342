"""Apache's word splitting (``ap_getword_conf`` in server/util.c), in Python.

Rules, as httpd 2.4 applies them to one logical line:

* words are separated by white space;
* a word starting with ``"`` or ``'`` runs to the next unescaped quote of the
  same kind, or to the end of the line when there is none (Apache tolerates
  an unbalanced trailing quote); inside it ``\\<quote>`` and ``\\\\`` are escapes;
* right after a closing quote a new word may start with no space between, so
  ``"a""b"`` is the two words ``a`` and ``b``;
* an unquoted word runs to the next white space; ``\\\\`` inside it is one backslash.
"""

from __future__ import annotations

import re

# These are confmig's own fixed lexical patterns, not patterns taken from a config.
_WORD = re.compile(
    r"""[ \t\n\r\f\v]*(?:
        "((?:[^"\\]|\\["\\]?)*)"?      # double quoted, closing quote optional
      | '((?:[^'\\]|\\['\\]?)*)'?      # single quoted, closing quote optional
      | ([^ \t\n\r\f\v]+)              # bare word
    )""",
    re.VERBOSE,
)
_UNESCAPE_DQ = re.compile(r'\\(["\\])')
_UNESCAPE_SQ = re.compile(r"\\(['\\])")
_UNESCAPE_BARE = re.compile(r"\\(\\)")
_SPACE = frozenset(" \t\n\r\f\v")
# A run of characters that are not white space to Apache (apr_isspace: the C locale's six);
# str.split() would also split at \x1c-\x1f, \x85, \xa0 and other Unicode spaces.
_PLAIN_WORD = re.compile(r"[^ \t\n\r\f\v]+")


def plain_words(text: str) -> list[str]:
    """The words of a line without quotes or backslashes, split where Apache splits."""
    return _PLAIN_WORD.findall(text)


def split_words(text: str) -> list[str]:
    """Split ``text`` into arguments exactly as Apache's config reader does."""
    if not text:
        return []
    if "\\" not in text and '"' not in text and "'" not in text:
        return plain_words(text)
    words: list[str] = []
    pos, end = 0, len(text)
    match = _WORD.match
    while pos < end:
        m = match(text, pos)
        if m is None or m.end() == pos:  # only trailing white space is left
            break
        dq, sq, bare = m.groups()
        if dq is not None:
            words.append(_UNESCAPE_DQ.sub(r"\1", dq) if "\\" in dq else dq)
        elif sq is not None:
            words.append(_UNESCAPE_SQ.sub(r"\1", sq) if "\\" in sq else sq)
        elif bare is not None:
            words.append(_UNESCAPE_BARE.sub(r"\1", bare) if "\\" in bare else bare)
        else:
            break
        pos = m.end()
    return words


def first_word(text: str) -> tuple[str, str]:
    """Return (first word, the rest with leading white space removed)."""
    stripped = text.lstrip(" \t\n\r\f\v")
    if not stripped:
        return "", ""
    if stripped[0] not in "\"'\\":
        for i, ch in enumerate(stripped):
            if ch in _SPACE:
                return stripped[:i], stripped[i:].lstrip(" \t\n\r\f\v")
        return stripped, ""
    m = _WORD.match(stripped)
    assert m is not None
    word = split_words(m.group(0))
    return (word[0] if word else ""), stripped[m.end():].lstrip(" \t\n\r\f\v")


def quote_word(word: str) -> str:
    """Quote ``word`` if Apache would otherwise split or unescape it."""
    if word and not any(c in _SPACE or c in "\"'\\" for c in word):
        return word
    return '"' + word.replace("\\", "\\\\").replace('"', '\\"') + '"'


# Words, lines and argument texts shorter than this are shared within one file: a large file
# repeats them (closing lines, the same directive in many blocks), and its tree then holds one
# copy of each.  A table per parse, not sys.intern: interned strings outlive the parse, and
# the interpreter's table of them only grows (3.8 MB left behind by 20,000 distinct lines).
SHARED_LENGTH = 80
# At most this many distinct strings (and argument lists) are remembered per file, so that a
# file of distinct lines pays a bounded table (~0.5 MB) and not one entry per line.
SHARED_ENTRIES = 4096
# The first this many distinct lines and argument texts a parse meets are kept to tell when
# one is met again (WordTable.seen_before); past them, bits of their hashes.
EXACT_SIGHTS = 1024


class SharedWords(list[str]):
    """The words of one argument text that a :class:`WordTable` shares between the lines of
    its file that have that text, with the text (``text``): a directive holding them needs
    no slot of its own for its argument text.  A list like any other, never modified in
    place."""

    __slots__ = ("text",)

    def __init__(self, words: list[str], text: str) -> None:
        super().__init__(words)
        self.text = text


class WordTable:
    """The strings and word lists of one file, shared: equal short strings are one object,
    and directives with equal argument texts share one word list (never modified in place).

    A parsed directive keeps the table until it is first asked for its words
    (:attr:`~confmig.syntax.ast.Directive.args`), so that the words of a file are split only
    when something reads them, and still shared with those of equal lines.  Both tables are
    bounded (:data:`SHARED_ENTRIES`).

    Only what repeats is worth a shared entry: a file of distinct lines filled both tables
    (and the parser's table of lines) with 4,096 entries met once (~1.3 MB of a 1 MB file's
    lint).  So the parser tells the table each line it meets (:meth:`seen_before`), and the
    argument texts of the lines met twice (:meth:`sight`), kept in ``again``; a text is
    split into a shared list only if its line was met twice by the end of the parse
    (:meth:`repeated`) — the first of equal lines shares too, as the parse is over when
    words are read.  The first :data:`EXACT_SIGHTS` strings met are kept (``first``): a
    file that repeats a few lines pays no more; past them, two bits a string's hash
    (``seen``, one bit a byte of the file: 128 KB for 1 MB).  A string whose bits other
    strings took is taken as met before (~1 % of a 1 MB file of distinct lines): it is
    shared when it need not be, nothing else."""

    __slots__ = ("again", "first", "lists", "mask", "seen", "size", "strings")

    def __init__(self, size: int = 0) -> None:
        """``size``: the file's length in bytes."""
        self.strings: dict[str, str] = {}
        self.lists: dict[str, SharedWords] = {}
        self.again: set[str] = set()
        self.first: set[str] = set()
        self.size = size
        self.mask = 0
        self.seen: bytearray | None = None

    def seen_before(self, text: str) -> bool:
        """Whether ``text`` (or, past the first strings, strings whose hashes take its two
        bits) was met before in this file; it is met now."""
        seen = self.seen
        if seen is None:
            first = self.first
            if text in first:
                return True
            first.add(text)
            if len(first) >= EXACT_SIGHTS:
                self._to_bits()
            return False
        code = hash(text)
        mask = self.mask
        one, two = code & mask, (code >> 32) & mask
        bit_one, bit_two = 1 << (one & 7), 1 << (two & 7)
        one >>= 3
        two >>= 3
        if seen[one] & bit_one and seen[two] & bit_two:
            return True
        seen[one] |= bit_one
        seen[two] |= bit_two
        return False

    def _to_bits(self) -> None:
        """From the strings met kept to the bits of their hashes."""
        bits = 1 << max(10, (self.size - 1).bit_length())
        self.mask = bits - 1
        self.seen = bytearray(bits >> 3)
        first, self.first = self.first, set()
        for text in first:
            self.seen_before(text)

    def sight(self, text: str) -> None:
        """The argument text ``text`` of a directive whose line was met before: it is
        :meth:`repeated` (the line met first too, when its words are read)."""
        again = self.again
        if len(again) < SHARED_ENTRIES:
            again.add(text)

    def repeated(self, text: str) -> bool:
        """Whether the argument text ``text`` was met twice or more (:meth:`sight`)."""
        return text in self.again

    def share(self, text: str) -> str:
        """One object for equal short strings of this file."""
        if len(text) < SHARED_LENGTH:
            strings = self.strings
            found = strings.get(text)
            if found is not None:
                return found
            if len(strings) < SHARED_ENTRIES:
                strings[text] = text
        return text

    def split(self, args_text: str) -> list[str]:
        """The words of ``args_text`` (:func:`split_words`), shared with equal ones."""
        found = self.lists.get(args_text)
        if found is not None:
            return found
        words = split_words(args_text)
        strings = self.strings
        for index, word in enumerate(words):  # self.share, inlined: ~400,000 calls a tree
            if len(word) < SHARED_LENGTH:
                found_word = strings.get(word)
                if found_word is not None:
                    words[index] = found_word
                elif len(strings) < SHARED_ENTRIES:
                    strings[word] = word
        if len(self.lists) < SHARED_ENTRIES:
            words = self.lists[args_text] = SharedWords(words, args_text)
        return words

    def words(self, args_text: str) -> list[str]:
        """The words of ``args_text`` as :meth:`split` gives them, remembering nothing: the
        list an equal text was split into already, else a new split that only the caller
        keeps (a reader passing once over each line, ``parse --format json``, would
        otherwise fill the table with lines it never meets again)."""
        found = self.lists.get(args_text)
        return found if found is not None else split_words(args_text)

    def __reduce__(self) -> tuple[type, tuple[()]]:
        # A node sent to another process takes an empty table along, not this file's.
        return (WordTable, ())
