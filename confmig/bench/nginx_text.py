"""Just enough of nginx's configuration syntax to run a hand-written configuration privately:
statements and blocks, quoted strings and comments, and ``include`` expanded in place.

``confmig bench --nginx-config FILE`` serves the site with a person's nginx configuration
(the ``nginx-handwritten`` target). FILE is a whole ``nginx.conf`` (its ``http { }`` is used)
or the text of an ``http { }`` (``map``, ``types``, ``gzip``… and one ``server { }``).
:func:`split_handwritten` turns it into what :class:`confmig.servers.NginxServer` takes — the
``server { }`` body and the ``http { }`` text — leaving the process-wide parts (``user``,
``worker_processes``, ``pid``, logs) and the ``listen``/``server_name``/``root`` of the
server to confmig: the server listens on 127.0.0.1 with the site's docroot as its root, and
nothing is written outside its temp dir.
"""

from __future__ import annotations

import glob
from dataclasses import dataclass, field
from pathlib import Path

#: ``include`` nesting and total size bounds (a loop or a huge tree is refused).
MAX_INCLUDE_DEPTH = 16
MAX_TOTAL_BYTES = 4 * 1024 * 1024
#: Directives of the server block confmig supplies itself.
SERVER_OWNED = ("listen", "server_name", "root")
#: http-level directives dropped: logs would go to the system's files.
HTTP_DROPPED = ("access_log", "error_log")
#: http-level directives moved into the server block, where they replace what confmig's
#: ``http { }`` sets (a second ``default_type`` or ``sendfile`` at http level is an error,
#: and a ``types { }`` there would be merged with the system's ``mime.types`` instead of
#: replacing it).
HTTP_MOVED = ("types", "default_type", "sendfile")


class NginxTextError(ValueError):
    """The configuration cannot be read (the message names ``file:line``)."""


@dataclass
class Statement:
    """``name arg …;`` or ``name arg … { children }``; *args* keep their quotes."""

    name: str
    args: list[str]
    where: str
    children: list[Statement] | None = None

    def render(self, indent: int = 0) -> str:
        pad = "    " * indent
        head = " ".join([self.name, *self.args])
        if self.children is None:
            return f"{pad}{head};  # {self.where}\n"
        body = "".join(child.render(indent + 1) for child in self.children)
        return f"{pad}{head} {{  # {self.where}\n{body}{pad}}}\n"


@dataclass
class _Reader:
    total: int = 0
    seen: list[Path] = field(default_factory=list)


def _tokens(text: str, source: str) -> list[tuple[str, int]]:
    """(token, line) pairs: words, quoted strings (quotes kept), ``{``, ``}``, ``;``."""
    out: list[tuple[str, int]] = []
    i, line, n = 0, 1, len(text)
    while i < n:
        ch = text[i]
        if ch == "\n":
            line += 1
            i += 1
        elif ch.isspace():
            i += 1
        elif ch == "#":
            while i < n and text[i] != "\n":
                i += 1
        elif ch in "{};":
            out.append((ch, line))
            i += 1
        elif ch in "\"'":
            start, start_line = i, line
            i += 1
            while i < n and text[i] != ch:
                if text[i] == "\\":
                    i += 1
                elif text[i] == "\n":
                    line += 1
                i += 1
            if i >= n:
                raise NginxTextError(f"{source}:{start_line}: unterminated string")
            i += 1
            out.append((text[start:i], start_line))
        else:
            start = i
            while i < n and not text[i].isspace() and text[i] not in "{};\"'":
                if text[i] == "\\":
                    i += 1
                i += 1
            out.append((text[start:i], line))
    return out


def parse_file(path: Path, prefix: Path, reader: _Reader | None = None,
               depth: int = 0) -> list[Statement]:
    """The statements of *path*, ``include`` (relative to *prefix*, with globs) expanded."""
    reader = reader or _Reader()
    if depth > MAX_INCLUDE_DEPTH:
        raise NginxTextError(f"{path}: includes nested deeper than {MAX_INCLUDE_DEPTH}")
    try:
        text = path.read_text(encoding="utf-8", errors="surrogateescape")
    except OSError as exc:
        raise NginxTextError(f"{path}: {exc.strerror or exc}") from exc
    reader.total += len(text)
    if reader.total > MAX_TOTAL_BYTES:
        raise NginxTextError(f"{path}: the configuration exceeds "
                             f"{MAX_TOTAL_BYTES // 1024 // 1024} MB with its includes")
    tokens = _tokens(text, str(path))
    pos = 0

    def block(closing: bool) -> list[Statement]:
        nonlocal pos
        out: list[Statement] = []
        words: list[tuple[str, int]] = []
        while pos < len(tokens):
            tok, line = tokens[pos]
            pos += 1
            if tok == "}":
                if words or not closing:
                    raise NginxTextError(f"{path}:{line}: unexpected }}")
                return out
            if tok in ";{":
                if not words:
                    raise NginxTextError(f"{path}:{line}: unexpected {tok}")
                name, args = words[0][0], [w for w, _ in words[1:]]
                where = f"{path}:{words[0][1]}"
                words = []
                if tok == "{":
                    out.append(Statement(name, args, where, block(True)))
                elif name == "include":
                    out += _include(args, where, prefix, reader, depth)
                else:
                    out.append(Statement(name, args, where))
            else:
                words.append((tok, line))
        if closing:
            raise NginxTextError(f"{path}: a block is not closed (missing }})")
        if words:
            raise NginxTextError(f"{path}:{words[0][1]}: missing ; after {words[0][0]}")
        return out

    return block(False)


def _include(args: list[str], where: str, prefix: Path, reader: _Reader,
             depth: int) -> list[Statement]:
    if len(args) != 1:
        raise NginxTextError(f"{where}: include takes one path")
    pattern = args[0].strip("\"'")
    full = pattern if pattern.startswith("/") else str(prefix / pattern)
    names = sorted(glob.glob(full)) if glob.has_magic(full) else [full]
    out: list[Statement] = []
    for name in names:
        out += parse_file(Path(name), prefix, reader, depth + 1)
    return out


@dataclass(frozen=True)
class Handwritten:
    """A hand-written configuration split for :class:`confmig.servers.NginxServer`."""

    server_body: str
    http_config: str
    #: What confmig left out or moved, ``file:line`` each (shown as the target's notes).
    notes: tuple[str, ...]


def split_handwritten(path: Path) -> Handwritten:
    """Read *path* (includes relative to its directory) and split it; raises
    :class:`NginxTextError` unless its ``http`` text holds exactly one ``server { }``."""
    top = parse_file(path, path.parent)
    http_blocks = [s for s in top if s.name == "http" and s.children is not None]
    http = (http_blocks[0].children or []) if http_blocks else top
    servers = [s for s in http if s.name == "server" and s.children is not None]
    if len(servers) != 1:
        raise NginxTextError(f"{path}: {len(servers)} server {{ }} blocks; give a file whose "
                             "http text has the one server that serves the site")
    notes: list[str] = []
    moved = [s for s in http if s.name in HTTP_MOVED]
    body: list[Statement] = list(moved)
    for stmt in moved:
        notes.append(f"{stmt.where}: {stmt.name} moved into the server block")
    for stmt in servers[0].children or []:
        if stmt.name in SERVER_OWNED:
            notes.append(f"{stmt.where}: {stmt.name} left out (confmig listens on 127.0.0.1 "
                         "with the site's docroot as root)")
        else:
            body.append(stmt)
    rest: list[Statement] = []
    for stmt in http:
        if stmt is servers[0] or any(stmt is m for m in moved):
            continue
        if stmt.name in HTTP_DROPPED:
            notes.append(f"{stmt.where}: {stmt.name} left out (logs stay in confmig's temp "
                         "dir)")
            continue
        rest.append(stmt)
    return Handwritten("".join(s.render() for s in body), "".join(s.render() for s in rest),
                       tuple(notes))
