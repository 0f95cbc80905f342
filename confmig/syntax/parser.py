"""Parse Apache configuration text into the typed tree of :mod:`confmig.syntax.ast`.

The Lark grammar (``grammars/apache.lark``) gives the line structure; the
callbacks below turn each line token into a node while the LALR parser runs
(no intermediate parse tree is built, which keeps parsing fast).  Errors are
collected as :class:`~confmig.syntax.ast.ParseError` with Apache's own wording
where Apache has one, never raised to the caller.
"""

from __future__ import annotations

import functools
import re
from importlib import resources
from pathlib import Path

from lark import Lark, Token, Transformer
from lark.exceptions import UnexpectedInput, VisitError

from confmig.syntax.ast import Blank, Comment, ConfigFile, Directive, Node, ParseError, Section
from confmig.syntax.words import first_word, split_words

# Sections Apache evaluates while reading (EXEC_ON_READ); their body is read by
# ap_build_cont_config, which stops quietly at the end of the file.
CONDITIONAL_SECTIONS = frozenset(
    {"ifmodule", "ifdefine", "ifversion", "iffile", "ifdirective", "ifsection"})
_SPACE = " \t\n\r\f\v"


def _grammar_text() -> str:
    """The grammar lives in the top-level ``grammars/`` folder of a checkout and is
    packaged as ``confmig/_grammars`` in a wheel."""
    source_tree = Path(__file__).resolve().parents[2] / "grammars" / "apache.lark"
    if source_tree.is_file():
        return source_tree.read_text(encoding="utf-8")
    return resources.files("confmig").joinpath("_grammars/apache.lark").read_text("utf-8")


def logical_text(raw: str) -> str:
    """Join continuation lines (backslash right before the newline) and trim, as
    Apache's ``ap_cfg_getline`` does."""
    if "\\" in raw:
        raw = raw.replace("\\\r\n", "").replace("\\\n", "")
    return raw.strip(_SPACE)


# Inside a LINES token: one logical line (continuations included), and the blank
# run in front of its first character.  Same shapes as the grammar's _REST and _WS.
_LOGICAL_LINE = re.compile(r"[^\n\\]*(?:\\(?:\r?\n)?[^\n\\]*)*(?:\n|\Z)")
_LEAD = re.compile(r"(?:[ \t\f\v\r]|\\\r?\n)*")


class _SectionMismatch(Exception):
    def __init__(self, error: ParseError) -> None:
        super().__init__(str(error))
        self.error = error


class _Builder(Transformer):
    """Rule callbacks run by the LALR parser; ``file`` is set per parse."""

    file = "<string>"
    warnings: list[ParseError] = []  # noqa: RUF012  (reset per parse)

    def _position(self, token: Token) -> tuple[int, int]:
        """Line and column of the first non-blank character of ``token``."""
        text = token.value
        offset = len(text) - len(text.lstrip(" \t\f\v\r\\\n"))
        if offset == 0:
            return token.line, token.column
        newlines = text.count("\n", 0, offset)
        if newlines == 0:
            return token.line, token.column + offset
        return token.line + newlines, offset - text.rfind("\n", 0, offset)

    def _end_line(self, token: Token) -> int:
        return token.line + token.value.count("\n", 0, len(token.value.rstrip("\n")) or 0)

    def _lines(self, token: Token, out: list[Node]) -> None:
        """Split a LINES token into Blank, Comment and Directive nodes."""
        line = token.line
        file = self.file
        lead_match = _LEAD.match
        for m in _LOGICAL_LINE.finditer(token.value):
            raw = m.group(0)
            if not raw:
                continue
            lead = lead_match(raw).end()
            first = raw[lead:lead + 1]
            newlines = raw.count("\n")
            if first in ("", "\n"):
                out.append(Blank(file, line, 1, raw))
            else:
                skipped = raw[:lead]
                before = skipped.count("\n")
                col = lead - skipped.rfind("\n") if before else lead + 1
                if first == "#":
                    out.append(Comment(file, line + before, col, raw))
                else:
                    text = logical_text(raw)
                    if '"' in text or "'" in text or "\\" in text:
                        name, rest = first_word(text)
                        args = split_words(rest)
                    else:  # the common case: plain words
                        args = text.split()
                        name = args.pop(0)
                        rest = text[len(name):].lstrip(_SPACE)
                    out.append(Directive(file, line + before, col, raw, name, args, rest,
                                         line + newlines - (raw[-1] == "\n")))
            line += newlines

    def _nodes(self, children: list) -> list[Node]:
        out: list[Node] = []
        for child in children:
            if isinstance(child, Token):
                self._lines(child, out)
            else:
                out.append(child)
        return out

    def start(self, children: list) -> list[Node]:
        return self._nodes(children)

    def section(self, children: list) -> Node:
        open_tok: Token = children[0]
        last = children[-1]
        closed = isinstance(last, Token) and last.type == "SECTION_CLOSE"
        body = children[1:-1] if closed else children[1:]
        line, col = self._position(open_tok)
        word, rest = first_word(logical_text(open_tok.value))
        # ap_build_config_sub: '<Name>' with no arguments is the name with its '>' cut off
        # and the argument string '>'.
        if word.endswith(">"):
            word = word[:-1]
            rest = rest or ">"
        name = word[1:]
        bracket = rest.rfind(">")
        if bracket < 0:
            raise _SectionMismatch(ParseError(
                self.file, line, col, f"<{name}> directive missing closing '>'"))
        args_text = rest[:bracket].strip(_SPACE)
        if closed:
            self._check_close(last, name)
        elif name.lower() in CONDITIONAL_SECTIONS:
            self.warnings.append(ParseError(
                self.file, line, col,
                f"<{name}> was not closed: Apache reads it to the end of the file when its "
                f"condition is true and refuses the file when it is false"))
        else:
            raise _SectionMismatch(ParseError(self.file, line, col, f"<{name}> was not closed."))
        return Section(
            self.file, line, col, open_tok.value,
            name=name, args=split_words(args_text), args_text=args_text,
            end_line=self._end_line(open_tok), children=self._nodes(body),
            close_raw=last.value if closed else "",
            close_line=self._position(last)[0] if closed else 0, closed=closed,
        )

    def _check_close(self, close_tok: Token, name: str) -> None:
        line, col = self._position(close_tok)
        text = logical_text(close_tok.value)
        word, _ = first_word(text)
        if name.lower() in CONDITIONAL_SECTIONS and text.lower() != f"</{name.lower()}>":
            # ap_build_cont_config ends a conditional body only at a line that is exactly
            # </Name>; any other closing line is read as a stray end of section.
            raise _SectionMismatch(ParseError(
                self.file, line, col,
                f"{word} without matching {word.replace('/', '', 1)} section"))
        if not word.endswith(">"):
            raise _SectionMismatch(ParseError(
                self.file, line, col, f"{word}> directive missing closing '>'"))
        if word[2:-1].lower() != name.lower():
            raise _SectionMismatch(ParseError(
                self.file, line, col, f"Expected </{name}> but saw {word}"))


@functools.cache
def _parser() -> tuple[Lark, _Builder]:
    builder = _Builder()
    lark = Lark(
        _grammar_text(),
        parser="lalr",
        lexer="contextual",
        transformer=builder,
        maybe_placeholders=False,
        cache=True,
    )
    return lark, builder


def parse_text(text: str, filename: str = "<string>") -> ConfigFile:
    """Parse configuration ``text``; errors are collected in the result."""
    # A UTF-8 byte order mark is not skipped: on Unix Apache reads it as part of the
    # first word (Invalid command '\xef\xbb\xbfOptions'), and so does confmig.
    result = ConfigFile(path=filename, line_count=text.count("\n") + 1)
    if not text:
        return result
    lark, builder = _parser()
    builder.file = filename
    builder.warnings = result.warnings
    try:
        nodes = lark.parse(text)
    except _SectionMismatch as exc:
        result.errors.append(exc.error)
        return result
    except VisitError as exc:  # an error raised inside a callback, wrapped by Lark
        if isinstance(exc.orig_exc, _SectionMismatch):
            result.errors.append(exc.orig_exc.error)
            return result
        raise
    except UnexpectedInput as exc:
        result.errors.append(_structure_error(text, filename, exc))
        return result
    result.nodes = nodes
    return result


def _structure_error(text: str, filename: str, exc: UnexpectedInput) -> ParseError:
    """Explain a grammar failure in Apache's words: a stray ``</X>`` or an
    unclosed ``<X>`` (reported at its opening line, as Apache does)."""
    lark, builder = _parser()
    stack: list[tuple[str, int, int]] = []
    for tok in lark.lex(text, dont_ignore=True):
        if tok.type == "SECTION_OPEN":
            word, _ = first_word(logical_text(tok.value))
            line, col = builder._position(tok)
            stack.append((word.rstrip(">")[1:], line, col))
        elif tok.type == "SECTION_CLOSE":
            word, _ = first_word(logical_text(tok.value))
            if not stack:
                line, col = builder._position(tok)
                name = word[2:].rstrip(">")
                return ParseError(filename, line, col,
                                  f"{word.rstrip('>')}> without matching <{name}> section")
            stack.pop()
    if stack:
        name, line, col = stack[-1]
        return ParseError(filename, line, col, f"<{name}> was not closed.")
    line = getattr(exc, "line", 0) or 0
    col = getattr(exc, "column", 0) or 0
    return ParseError(filename, max(line, 1), max(col, 1), "syntax error")


def decode(data: bytes) -> str:
    """Config bytes to text that encodes back to the very same bytes."""
    return data.decode("utf-8", errors="surrogateescape")


def encode(text: str) -> bytes:
    return text.encode("utf-8", errors="surrogateescape")


def parse_file(path: str | Path, display_name: str | None = None) -> ConfigFile:
    """Read and parse one file. An unreadable file is a collected error too."""
    name = display_name or str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        result = ConfigFile(path=name)
        result.errors.append(ParseError(name, 0, 0, f"cannot read file: {exc.strerror or exc}"))
        return result
    return parse_text(decode(data), name)
