"""Text helpers for moving lossless nodes into ``<Directory>`` blocks.

Re-indenting only ever touches the *first* physical line of a node: the lines after a
backslash continuation are part of the same logical line, and adding white space there would
change the value of a quoted argument that spans them.
"""

from __future__ import annotations

from confmig.console import printable
from confmig.convert.result import ConvertError

_FNMATCH = "*?["
# LF ends a line in Apache's reader (confmig.syntax.reader, checked against Apache by
# tests/test_syntax_reader_apache.py): a directory name holding one cannot be written in a
# <Directory> line.  A CR is refused too, as the safe choice, not because Apache was seen to
# end a line there (it does not: a CR-only file is one line).
_LINE_BREAKS = "\n\r"


def directory_arg(path: str) -> str:
    """The argument of ``<Directory …>`` that matches exactly the directory *path*.

    ``<Directory>`` treats ``*``, ``?`` and ``[`` as ``fnmatch`` wildcards, so a directory whose
    name contains one of them is written with each such character in a one-character class
    (``[[]``), and ``\\`` doubled (fnmatch's escape character once the path has a wildcard).
    The word is then quoted for Apache's config reader (``\\`` and ``\"`` inside quotes).

    A name holding a line break cannot be written in one line: the conversion stops with
    :class:`ConvertError` rather than write a block whose second line Apache would read as
    directives of their own (a directory named ``x\nRequire all granted`` put that line,
    live, in the output, and quotes in the name could close the section early).
    """
    if any(c in path for c in _LINE_BREAKS):
        raise ConvertError(f"{printable(path)}: a directory name holding a line break "
                           "cannot be named in Apache's configuration (a <Directory> line "
                           "is one line); not converted")
    if needs_fnmatch_escape(path):
        path = "".join(f"[{c}]" if c in _FNMATCH else "\\\\" if c == "\\" else c
                       for c in path)
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def needs_fnmatch_escape(path: str) -> bool:
    return any(c in path for c in _FNMATCH)


def as_read(raw: str) -> str:
    """*raw* (a node's text as it was read) as Apache read it, in a form Apache reads the same
    way wherever it is put.

    Apache measures a line with ``strlen``: a physical line ends at its first NUL, and what
    that read returned after it is dropped, newline included (``confmig/syntax/reader.py``) —
    so a NUL never leaves a continuation behind, and the bytes past the read buffer are
    already a node of their own.  Each physical line is cut at its NUL and ended with a
    newline; one that then ends in ``\\`` gets a space, so that it does not continue onto
    the next line where Apache did not continue it.  (For several nodes' text, e.g. a section
    commented out whole, each line is cut alike.)  Then the end of the text is kept where the
    end of its file put it (:func:`ended`).  Otherwise *raw* comes back as is.
    """
    if "\0" not in raw:
        return ended(raw)
    out: list[str] = []
    for line in raw.split("\n"):
        nul = line.find("\0")
        if nul < 0:
            out.append(line)
            continue
        kept = line[:nul]
        out.append(kept + " " if kept.endswith("\\") else kept)
    text = ended("\n".join(out))
    return text if text.endswith("\n") else text + "\n"


def ended(text: str) -> str:
    """*text* — lines read from a file, which may have stopped where the file did — with what
    makes Apache end its last line where the end of the file ended it, whatever comes after.

    The end of a file ends a line whatever precedes it (``ap_cfg_getline_core``, checked on
    Apache in ``tests/convert/test_trailing_backslash_apache.py``): a backslash right before
    the file's last newline joins nothing (``Options -Indexes \\`` and a newline read as
    ``Options -Indexes``), and a backslash with no newline after it stays a character of
    the line.  Moved before another line, the first would swallow that line (a closing
    ``</Directory>``: the configuration no longer loads) and the second would become such a
    continuation once a newline is added.  So: a line left in a continuation gets an empty
    line to join (as the end of the file gave it nothing), or a line holding one space where
    the line joined so far ends in a backslash itself (an empty line would continue it again);
    a last line without a newline whose backslash a newline would turn into a continuation
    gets a space (white space Apache trims).  Any other text comes back as is.
    """
    if "\\" not in text:
        return text
    joined = ""  # the logical line read so far, as Apache's buffer holds it
    pending = False
    pos, n = 0, len(text)
    while pos < n:
        lf = text.find("\n", pos)
        if lf < 0:
            joined = (joined if pending else "") + text[pos:]
            return text + " " if _continues(joined) else text
        joined = (joined if pending else "") + text[pos:lf]
        pos = lf + 1
        pending = _continues(joined)
        if pending:
            joined = joined[:len(joined) - (2 if joined.endswith("\r") else 1)]
    if not pending:
        return text
    return text + (" \n" if _continues(joined) else "\n")


def _continues(line: str) -> bool:
    """Would *line* (without its newline) continue onto the next one, a newline after it?
    (A backslash before the newline, or before a CR before it.)"""
    end = len(line) - 1 if line.endswith("\r") else len(line)
    return end > 0 and line[end - 1] == "\\"


def ensure_newline(text: str) -> str:
    return text if not text or text.endswith("\n") else text + "\n"


def indent_first_line(raw: str, prefix: str) -> str:
    """*raw* with *prefix* before its first line (blank lines stay empty)."""
    raw = ensure_newline(raw)
    if not raw.strip(" \t\r\n"):
        return "\n"
    return prefix + raw


def comment_out(raw: str, prefix: str) -> str:
    """*raw* as comment lines: every physical line gets ``# `` after *prefix*.

    Commenting every line (not only the first, which would already swallow continuation lines
    the way Apache reads comments) keeps the text readable and makes it easy to restore.
    """
    raw = ensure_newline(as_read(raw))
    lines = raw.splitlines(keepends=True)
    out = []
    for index, line in enumerate(lines):
        text = line.lstrip(" \t") if index == 0 else line
        out.append(f"{prefix}# {text}" if line.strip() else f"{prefix}#\n")
    return "".join(out)


def comment_lines(text: str, prefix: str) -> str:
    """Free text as ``# confmig:`` comment lines."""
    return "".join(f"{prefix}# confmig: {line}\n" for line in text.splitlines() or [""])
