"""Text helpers for moving lossless nodes into ``<Directory>`` blocks.

Re-indenting only ever touches the *first* physical line of a node: the lines after a
backslash continuation are part of the same logical line, and adding white space there would
change the value of a quoted argument that spans them.
"""

from __future__ import annotations

_FNMATCH = "*?["


def directory_arg(path: str) -> str:
    """The argument of ``<Directory …>`` that matches exactly the directory *path*.

    ``<Directory>`` treats ``*``, ``?`` and ``[`` as ``fnmatch`` wildcards, so a directory whose
    name contains one of them is written with each such character in a one-character class
    (``[[]``), and ``\\`` doubled (fnmatch's escape character once the path has a wildcard).
    The word is then quoted for Apache's config reader (``\\`` and ``\"`` inside quotes).
    """
    if needs_fnmatch_escape(path):
        path = "".join(f"[{c}]" if c in _FNMATCH else "\\\\" if c == "\\" else c
                       for c in path)
    return '"' + path.replace("\\", "\\\\").replace('"', '\\"') + '"'


def needs_fnmatch_escape(path: str) -> bool:
    return any(c in path for c in _FNMATCH)


def as_read(raw: str) -> str:
    """*raw* (a node's text as it was read) as Apache read it, when it holds a NUL byte.

    Apache measures a line with ``strlen``: a physical line ends at its first NUL, and what
    that read returned after it is dropped, newline included (``confmig/syntax/reader.py``) —
    so a NUL never leaves a continuation behind, and the bytes past the read buffer are
    already a node of their own.  Each physical line is cut at its NUL and ended with a
    newline; one that then ends in ``\\`` gets a space, so that it does not continue onto
    the next line where Apache did not continue it.  Without a NUL, *raw* comes back as is.
    (For several nodes' text, e.g. a section commented out whole, each line is cut alike.)
    """
    if "\0" not in raw:
        return raw
    out: list[str] = []
    for line in raw.split("\n"):
        nul = line.find("\0")
        if nul < 0:
            out.append(line)
            continue
        kept = line[:nul]
        out.append(kept + " " if kept.endswith("\\") else kept)
    text = "\n".join(out)
    return text if text.endswith("\n") else text + "\n"


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
    raw = ensure_newline(as_read(raw) if "\0" in raw else raw)
    lines = raw.splitlines(keepends=True)
    out = []
    for index, line in enumerate(lines):
        text = line.lstrip(" \t") if index == 0 else line
        out.append(f"{prefix}# {text}" if line.strip() else f"{prefix}#\n")
    return "".join(out)


def comment_lines(text: str, prefix: str) -> str:
    """Free text as ``# confmig:`` comment lines."""
    return "".join(f"{prefix}# confmig: {line}\n" for line in text.splitlines() or [""])
