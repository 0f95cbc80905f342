"""Python source for the tables of a generated module, laid out as ``ruff format`` lays it out
(double quotes, one item per line with a trailing comma when a call does not fit on one line),
so that the output passes ``ruff format --check`` as it is written."""

from __future__ import annotations

from dataclasses import dataclass, field

LINE_LENGTH = 88
INDENT = "    "


def pystr(text: str) -> str:
    """A string literal: double quotes unless the text holds ``"`` and no ``'`` (as ruff)."""
    quote = "'" if '"' in text and "'" not in text else '"'
    out = []
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == quote:
            out.append("\\" + ch)
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) == 0x7F:
            out.append(f"\\x{ord(ch):02x}")
        elif 0xD800 <= ord(ch) <= 0xDFFF:
            out.append(f"\\u{ord(ch):04x}")
        else:
            out.append(ch)
    return quote + "".join(out) + quote


def raw_or_plain(text: str) -> str:
    """A raw string where one reads better and means the same (regexes), else :func:`pystr`."""
    printable = all(0x20 <= ord(ch) < 0x7F or 0xA0 <= ord(ch) < 0xD800 for ch in text)
    odd_tail = (len(text) - len(text.rstrip("\\"))) % 2 == 1
    if "\\" in text and printable and not odd_tail:
        if '"' not in text:
            return f'r"{text}"'
        if "'" not in text:
            return f"r'{text}'"
    return pystr(text)


def comment(text: str) -> str:
    """One comment line (a newline in the source text would end it early)."""
    return "# " + " ".join(text.split())


@dataclass
class Item:
    """One argument or element: ``key=value`` (key None: positional), with comment lines
    written above it."""

    value: Code
    key: str | None = None
    comments: list[str] = field(default_factory=list)


class Code:
    """A Python expression that can be written on one line or exploded."""

    def inline(self) -> str:
        raise NotImplementedError

    def lines(self, indent: int, prefix: str = "", suffix: str = "") -> list[str]:
        """The expression at *indent* (levels), after *prefix* and before *suffix*."""
        text = prefix + self.inline() + suffix
        return [INDENT * indent + text]


@dataclass
class Lit(Code):
    text: str

    def inline(self) -> str:
        return self.text


@dataclass
class Call(Code):
    """``name(items)``; a tuple display when *name* is ``""``."""

    name: str
    items: list[Item] = field(default_factory=list)
    exploded: bool = False  # always one item per line (a table)

    def inline(self) -> str:
        inner = ", ".join((f"{i.key}=" if i.key else "") + i.value.inline() for i in self.items)
        if not self.name and len(self.items) == 1:
            inner += ","
        return f"{self.name}({inner})"

    def lines(self, indent: int, prefix: str = "", suffix: str = "") -> list[str]:
        flat = INDENT * indent + prefix + self.inline() + suffix
        must = self.exploded or any(i.comments for i in self.items)
        if self.items and not must and len(flat) <= LINE_LENGTH:
            return [flat]
        if not self.items:
            return [flat]
        out = [INDENT * indent + prefix + self.name + "("]
        for item in self.items:
            out += [INDENT * (indent + 1) + comment(c) for c in item.comments]
            key = f"{item.key}=" if item.key else ""
            out += item.value.lines(indent + 1, key, ",")
        out.append(INDENT * indent + ")" + suffix)
        return out


def tup(values: list[Code], exploded: bool = False) -> Call:
    return Call("", [Item(v) for v in values], exploded)
