"""Strings built from a regular expression: candidates that probably match it.

``confmig verify`` needs URLs that match each ``RewriteRule``/``RedirectMatch``/``<FilesMatch>``
pattern.  This module reads the common subset of PCRE syntax (literals, escapes, classes
with ranges and POSIX names, groups, alternation, quantifiers, back-references; anchors and
lookarounds generate nothing) into a small tree and walks it with a seeded random generator,
so two runs produce the same strings.  It only *proposes*: the caller keeps a candidate only
when PCRE2, compiled as Apache compiles it, matches it.

Everything is bounded whatever the pattern: its length (:data:`MAX_PATTERN`), its nesting
(:data:`MAX_DEPTH`), the length of a candidate (a caller's ``max_length``) and the work spent
on one candidate (:data:`MAX_STEPS`).  ``^(.*a){40}$`` is forty repetitions, not a search.
"""

from __future__ import annotations

import random
import zlib
from dataclasses import dataclass

MAX_PATTERN = 2000
MAX_DEPTH = 40
MAX_STEPS = 4000
#: Extra repetitions an unbounded quantifier may take above its minimum.
MAX_EXTRA = 3


class Unsupported(ValueError):
    """A construct this reader does not generate from (recursion, conditionals…)."""


# -- the tree ------------------------------------------------------------------------------

@dataclass(frozen=True)
class Lit:
    text: str


@dataclass(frozen=True)
class CharClass:
    """``[...]``, ``.``, ``\\d``…: *items* are ``(low, high)`` code point ranges or a
    category letter (``d w s h v`` and their upper-case negations)."""

    items: tuple[tuple[int, int] | str, ...]
    negated: bool = False

    def __contains__(self, char: str) -> bool:
        inside = any(_in_item(item, char) for item in self.items)
        return inside != self.negated


@dataclass(frozen=True)
class Seq:
    items: tuple[Node, ...]


@dataclass(frozen=True)
class Alt:
    options: tuple[Node, ...]


@dataclass(frozen=True)
class Repeat:
    item: Node
    low: int
    high: int | None  # None: unbounded


@dataclass(frozen=True)
class Group:
    item: Node
    index: int | None  # capturing group number, None for (?:…)


@dataclass(frozen=True)
class BackRef:
    ref: int | str  # number or name


EMPTY = Seq(())
ANY = CharClass((), negated=True)  # "." under DOTALL, as Apache compiles
Node = Lit | CharClass | Seq | Alt | Repeat | Group | BackRef

_CATEGORIES = {
    "d": "0123456789",
    "w": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_",
    "s": " \t\n\r\f\v",
    "h": " \t",
    "v": "\n\r\f\v",
}
_POSIX = {
    "alpha": "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "digit": "0123456789", "upper": "ABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "lower": "abcdefghijklmnopqrstuvwxyz", "xdigit": "0123456789abcdefABCDEF",
    "space": " \t\n\r\f\v", "blank": " \t", "word": _CATEGORIES["w"],
    "punct": "!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~",
}
_POSIX["alnum"] = _POSIX["alpha"] + _POSIX["digit"]
_POSIX["graph"] = _POSIX["alnum"] + _POSIX["punct"]
_POSIX["print"] = _POSIX["graph"] + " "
_CONTROL = {"n": "\n", "t": "\t", "r": "\r", "f": "\f", "e": "\x1b", "a": "\x07"}
_ZERO_WIDTH = frozenset("bBAzZGK")


def _in_item(item: tuple[int, int] | str, char: str) -> bool:
    if isinstance(item, tuple):
        return item[0] <= ord(char) <= item[1]
    if item in _POSIX:
        return char in _POSIX[item]
    if item.islower():
        return char in _CATEGORIES[item]
    return char not in _CATEGORIES[item.lower()]


# -- reading -------------------------------------------------------------------------------

class _Reader:
    """Recursive descent over the pattern; depth is capped, so no Python limit is reachable."""

    def __init__(self, pattern: str) -> None:
        if len(pattern) > MAX_PATTERN:
            raise Unsupported("pattern too long to generate from")
        self.text = pattern
        self.pos = 0
        self.groups = 0
        self.names: dict[str, int] = {}

    def peek(self, ahead: int = 0) -> str:
        index = self.pos + ahead
        return self.text[index] if index < len(self.text) else ""

    def take(self) -> str:
        char = self.peek()
        if not char:
            raise Unsupported("unexpected end of pattern")
        self.pos += 1
        return char

    def alternation(self, depth: int) -> Node:
        if depth > MAX_DEPTH:
            raise Unsupported("nested too deeply")
        options = [self.sequence(depth)]
        while self.peek() == "|":
            self.pos += 1
            options.append(self.sequence(depth))
        return options[0] if len(options) == 1 else Alt(tuple(options))

    def sequence(self, depth: int) -> Node:
        items: list[Node] = []
        while self.peek() and self.peek() not in "|)":
            atom = self.atom(depth)
            items.append(self.quantified(atom))
        return items[0] if len(items) == 1 else Seq(tuple(items))

    def quantified(self, atom: Node) -> Node:
        while True:
            char = self.peek()
            if char == "*":
                low, high = 0, None
            elif char == "+":
                low, high = 1, None
            elif char == "?":
                low, high = 0, 1
            elif char == "{" and (bounds := self.braces()) is not None:
                low, high = bounds
                atom = Repeat(atom, low, high)
                self.lazy_or_possessive()
                continue
            else:
                return atom
            self.pos += 1
            atom = Repeat(atom, low, high)
            self.lazy_or_possessive()

    def lazy_or_possessive(self) -> None:
        if self.peek() in ("?", "+"):
            self.pos += 1

    def braces(self) -> tuple[int, int | None] | None:
        """``{n}``, ``{n,}``, ``{n,m}`` at the current position (consumed), or None when the
        brace is a literal, as PCRE reads it."""
        end = self.text.find("}", self.pos)
        if end < 0:
            return None
        inner = self.text[self.pos + 1:end]
        low_text, comma, high_text = inner.partition(",")
        if not low_text.isdigit() or (high_text and not high_text.isdigit()):
            return None
        low = int(low_text)
        high = low if not comma else (int(high_text) if high_text else None)
        if high is not None and high < low:
            raise Unsupported("numbers out of order in {} quantifier")
        self.pos = end + 1
        return low, high

    def atom(self, depth: int) -> Node:
        char = self.take()
        if char == "(":
            return self.group(depth)
        if char == "[":
            return self.char_class()
        if char == ".":
            return ANY
        if char in "^$":
            return EMPTY
        if char == "\\":
            return self.escape()
        if char in "*+?":
            raise Unsupported("quantifier does not follow a repeatable item")
        return Lit(char)

    def group(self, depth: int) -> Node:
        if self.peek() == "*":  # (*VERB) / (*UTF): changes nothing generated here
            end = self.text.find(")", self.pos)
            if end < 0:
                raise Unsupported("unterminated verb")
            self.pos = end + 1
            return EMPTY
        index: int | None = None
        zero_width = False
        if self.peek() == "?":
            self.pos += 1
            kind = self.peek()
            if kind in ":>|":
                self.pos += 1
            elif kind in "=!":
                self.pos += 1
                zero_width = True
            elif kind == "<" and self.peek(1) in "=!":
                self.pos += 2
                zero_width = True
            elif kind == "#":
                end = self.text.find(")", self.pos)
                if end < 0:
                    raise Unsupported("unterminated comment")
                self.pos = end + 1
                return EMPTY
            elif kind == "P" and self.peek(1) == "=":
                end = self.text.find(")", self.pos)
                if end < 0:
                    raise Unsupported("unterminated back-reference")
                name = self.text[self.pos + 2:end]
                self.pos = end + 1
                return BackRef(name)
            elif kind in "<'" or (kind == "P" and self.peek(1) == "<"):
                if kind == "P":
                    self.pos += 1
                close = ">" if self.take() == "<" else "'"
                end = self.text.find(close, self.pos)
                if end < 0:
                    raise Unsupported("unterminated group name")
                name = self.text[self.pos:end]
                self.pos = end + 1
                self.groups += 1
                index = self.groups
                self.names[name] = index
            else:
                return self.flags(depth)
        else:
            self.groups += 1
            index = self.groups
        inner = self.alternation(depth + 1)
        if self.take() != ")":
            raise Unsupported("missing )")
        return EMPTY if zero_width else Group(inner, index)

    def flags(self, depth: int) -> Node:
        """``(?i)`` / ``(?i:…)``; recursion and conditionals are not generated from."""
        start = self.pos
        while self.peek().isalpha() or self.peek() == "-" or self.peek() == "^":
            self.pos += 1
        end = self.take()
        if end == ")" and self.pos - 1 > start:
            return EMPTY
        if end == ":":
            inner = self.alternation(depth + 1)
            if self.take() != ")":
                raise Unsupported("missing )")
            return Group(inner, None)
        raise Unsupported("recursion or conditional group")

    def escape(self) -> Node:
        char = self.take()
        if char in _ZERO_WIDTH:
            return EMPTY
        if char.lower() in _CATEGORIES:
            return CharClass((char,))
        if char == "N":
            return CharClass(((10, 10),), negated=True)
        if char in ("X", "C"):
            return ANY
        if char == "R":
            return Lit("\n")
        if char == "Q":
            end = self.text.find("\\E", self.pos)
            end = len(self.text) if end < 0 else end
            literal = self.text[self.pos:end]
            self.pos = min(len(self.text), end + 2)
            return Seq(tuple(Lit(c) for c in literal)) if len(literal) != 1 else Lit(literal)
        if char == "E":
            return EMPTY
        if char in ("p", "P"):
            self.property_name()
            return CharClass(("w",), negated=char == "P")
        if char in "gk":
            return BackRef(self.reference_name(char))
        if char.isdigit() and char != "0":
            digits = char
            while self.peek().isdigit() and int(digits + self.peek()) <= max(self.groups, 9):
                digits += self.take()
            return BackRef(int(digits))
        return Lit(self.character(char))

    def character(self, char: str) -> str:
        """The character of an escape that stands for one (``\\x41``, ``\\t``, ``\\.``)."""
        if char in _CONTROL:
            return _CONTROL[char]
        if char == "x":
            if self.peek() == "{":
                end = self.text.find("}", self.pos)
                digits = self.text[self.pos + 1:end] if end > 0 else ""
                self.pos = end + 1 if end > 0 else self.pos
            else:
                digits = ""
                while len(digits) < 2 and self.peek() in "0123456789abcdefABCDEF" \
                        and self.peek():
                    digits += self.take()
            try:
                return chr(int(digits or "0", 16))
            except (ValueError, OverflowError) as exc:
                raise Unsupported("bad \\x escape") from exc
        if char == "0":
            digits = ""
            while len(digits) < 2 and self.peek() in "01234567" and self.peek():
                digits += self.take()
            return chr(int(digits or "0", 8))
        if char == "c":
            return chr(ord(self.take().upper()) ^ 0x40)
        if char.isalnum():
            raise Unsupported(f"escape \\{char}")
        return char

    def property_name(self) -> None:
        if self.peek() == "{":
            end = self.text.find("}", self.pos)
            if end < 0:
                raise Unsupported("unterminated \\p{")
            self.pos = end + 1
        else:
            self.take()

    def reference_name(self, kind: str) -> int | str:
        opener = self.peek()
        closer = {"{": "}", "<": ">", "'": "'"}.get(opener)
        if closer is None:
            digits = ""
            if kind == "g" and self.peek() == "-":
                raise Unsupported("relative back-reference")
            while self.peek().isdigit():
                digits += self.take()
            if not digits:
                raise Unsupported(f"\\{kind} without a reference")
            return int(digits)
        end = self.text.find(closer, self.pos + 1)
        if end < 0:
            raise Unsupported("unterminated reference")
        name = self.text[self.pos + 1:end]
        self.pos = end + 1
        if name.lstrip("+-") != name:
            raise Unsupported("relative back-reference")
        return int(name) if name.isdigit() else name

    def char_class(self) -> CharClass:
        negated = self.peek() == "^"
        if negated:
            self.pos += 1
        items: list[tuple[int, int] | str] = []
        first = True
        while True:
            char = self.take()
            if char == "]" and not first:
                break
            first = False
            if char == "[" and self.peek() == ":":
                end = self.text.find(":]", self.pos)
                name = self.text[self.pos + 1:end] if end > 0 else ""
                negate_posix = name.startswith("^")
                name = name.lstrip("^")
                if name in _POSIX:
                    self.pos = end + 2
                    if negate_posix:
                        raise Unsupported("negated POSIX class")
                    items.append(name)
                    continue
            if char == "\\":
                escaped = self.take()
                if escaped.lower() in _CATEGORIES:
                    items.append(escaped)
                    continue
                if escaped == "b":
                    low = "\b"
                elif escaped in ("p", "P"):
                    self.property_name()
                    items.append("w" if escaped == "p" else "W")
                    continue
                else:
                    low = self.character(escaped)
            else:
                low = char
            if self.peek() == "-" and self.peek(1) not in ("]", ""):
                self.pos += 1
                high = self.take()
                if high == "\\":
                    high = self.character(self.take())
                if ord(high) < ord(low):
                    raise Unsupported("range out of order in character class")
                items.append((ord(low), ord(high)))
            else:
                items.append((ord(low), ord(low)))
        return CharClass(tuple(items), negated)


def parse(pattern: str) -> tuple[Node, dict[str, int]]:
    """The tree of *pattern* and its named groups; :class:`Unsupported` when it cannot."""
    reader = _Reader(pattern)
    tree = reader.alternation(0)
    if reader.pos != len(pattern):
        raise Unsupported("unmatched )")
    return tree, reader.names


# -- generating ----------------------------------------------------------------------------

class _GiveUp(Exception):
    """This candidate grew past a bound."""


class _Walker:
    def __init__(self, names: dict[str, int], alphabet: str, rng: random.Random | None,
                 max_length: int) -> None:
        self.names = names
        self.alphabet = alphabet
        self.rng = rng  # None: the smallest string (every minimum, every first choice)
        self.max_length = max_length
        self.captured: dict[int, str] = {}
        self.steps = 0
        self.length = 0

    def emit(self, out: list[str], text: str) -> None:
        self.length += len(text)
        if self.length > self.max_length:
            raise _GiveUp
        out.append(text)

    def walk(self, node: Node, out: list[str]) -> None:
        self.steps += 1
        if self.steps > MAX_STEPS:
            raise _GiveUp
        if isinstance(node, Lit):
            self.emit(out, node.text)
        elif isinstance(node, CharClass):
            self.emit(out, self.pick(node))
        elif isinstance(node, Seq):
            for item in node.items:
                self.walk(item, out)
        elif isinstance(node, Alt):
            option = node.options[0] if self.rng is None else self.rng.choice(node.options)
            self.walk(option, out)
        elif isinstance(node, Repeat):
            for _ in range(self.times(node)):
                self.walk(node.item, out)
        elif isinstance(node, Group):
            start = len(out)
            self.walk(node.item, out)
            if node.index is not None:
                self.captured[node.index] = "".join(out[start:])
        else:
            ref = node.ref if isinstance(node.ref, int) else self.names.get(node.ref, 0)
            self.emit(out, self.captured.get(ref, ""))

    def times(self, node: Repeat) -> int:
        if node.low > self.max_length:
            raise _GiveUp
        if self.rng is None:
            return node.low
        top = node.low + MAX_EXTRA if node.high is None else min(node.high, node.low + MAX_EXTRA)
        return self.rng.randint(node.low, top)

    def pick(self, cls: CharClass) -> str:
        chars = [c for c in self.alphabet if c in cls]
        if not chars:
            raise _GiveUp
        if self.rng is None:
            return chars[0]
        return self.rng.choice(chars)


def strings(pattern: str, count: int, alphabet: str, max_length: int) -> list[str]:
    """Up to *count* distinct candidates for *pattern*, from *alphabet*, each at most
    *max_length* long; the same every run.  Empty when the pattern cannot be read."""
    try:
        tree, names = parse(pattern)
    except (Unsupported, RecursionError):
        return []
    rng = random.Random(zlib.crc32(f"{pattern}\0{alphabet}".encode("utf-8", "replace")))
    # Apache's matching is unanchored: where the pattern does not pin an end, some candidates
    # get a few characters of context there too ("image.png" for \.png$, not only ".png").
    filler = [c for c in alphabet if c.isalnum()] or list(alphabet)
    open_start, open_end = not pattern.startswith("^"), not pattern.endswith("$")
    out: list[str] = []
    for attempt in range(count * 4):
        walker = _Walker(names, alphabet, None if attempt == 0 else rng, max_length)
        parts: list[str] = []
        try:
            walker.walk(tree, parts)
        except _GiveUp:
            continue
        text = "".join(parts)
        if attempt % 2 == 1 and (open_start or open_end):
            context = "".join(rng.choice(filler) for _ in range(rng.randint(1, 6)))
            text = context + text if open_start else text + context
            if len(text) > max_length:
                continue
        if text not in out:
            out.append(text)
            if len(out) >= count:
                break
    return out
