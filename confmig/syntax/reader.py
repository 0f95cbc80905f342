"""Apache's configuration line reader, byte for byte.

Apache reads a configuration file with ``ap_varbuf_cfg_getline`` (server/util.c), which
calls ``apr_file_gets`` into a growing buffer (``struct ap_varbuf``).  What it does, and
what this module does the same way (each point is checked against real Apache in
``tests/test_syntax_reader_apache.py``):

* **Line length.**  A logical line (continuations joined, its final newline counted) longer
  than ``max_len`` is an error, ``Error reading FILE at line N: Line too long``, where N is
  the last physical line read.  ``max_len`` is ``HUGE_STRING_LEN`` (8,192) for an
  ``.htaccess`` file and ``VARBUF_MAX_LEN`` (16 MiB) for the server configuration
  (server/config.c).  So an ``.htaccess`` line of 8,192 bytes before its newline fails;
  8,191 is read, and so is a last line of 8,192 bytes with no newline.
* **Continuation.**  A backslash right before the newline (``\\\\\\n`` or ``\\\\\\r\\n``) is
  removed with the newline and the next physical line is appended.  A backslash at the very
  end of the file (no newline after it) is kept; ``\\\\\\n`` then the end of the file ends
  the line.
* **CR.**  Only LF ends a line: a file with CR-only line endings is one line (a CR is
  white space between words; trailing CRs are trimmed).
* **NUL.**  ``apr_file_gets`` stores the bytes, but Apache measures them with ``strlen``:
  a NUL byte ends the logical line there, and the rest of what that read returned is
  dropped — never a continuation.  ``Options -Indexes<NUL>junk`` is ``Options -Indexes``;
  ``Opt<NUL>ions`` is the command ``Opt``.  One read returns at most the buffer size minus
  one byte, so when a physical line with a NUL is longer than the buffer, its remainder is
  read as the next line.  The buffer starts at 207 usable bytes (``VARBUF_INIT_LEN`` 200,
  aligned) for each file and for the body of each read-time conditional section
  (``ap_build_cont_config`` / ``ap_soak_end_container`` open their own buffer), and grows
  when a longer line is read.  A growth is contiguous (the pool hands out the memory right
  after the buffer, so it keeps its old bytes too) when nothing else was allocated since the
  buffer was: here, when no directive was read since; growths past 2,048 bytes come from the
  allocator in 4 KiB pages.  Only a NUL inside a long line depends on these sizes.
* **Line numbers.**  Apache counts one line per read, and takes one back per buffer growth;
  so a NUL line longer than the buffer counts twice.

Bytes in, bytes out: the caller decodes each line (``surrogateescape``), so any byte
round-trips unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

HTACCESS_MAX_LINE = 8192  # HUGE_STRING_LEN: ap_build_config's limit for .htaccess files
SERVER_MAX_LINE = 16 * 1024 * 1024  # VARBUF_MAX_LEN: the limit for the server config

_INITIAL_AVAIL = 207  # ap_varbuf_init(VARBUF_INIT_LEN = 200): 201 aligned to 208, minus the NUL
_SMALL_SIZE = 2048  # VARBUF_SMALL_SIZE: larger buffers come from the allocator
_PAGE = 4096  # APR's allocator BOUNDARY_SIZE
_MIN_NODE = 8192  # APR's allocator MIN_ALLOC
_NODE_OVERHEAD = 40 + 16  # APR_MEMNODE_T_SIZE + the aligned struct ap_varbuf_info

_SPACE = b" \t\n\r\f\v"  # apr_isspace


class LineTooLong(Exception):
    """``ap_varbuf_cfg_getline`` returned APR_ENOSPC."""

    def __init__(self, line: int) -> None:
        super().__init__(f"Line too long (line {line})")
        self.line = line


@dataclass(slots=True)
class RawLine:
    """One logical line: ``data[start:end]`` is everything read for it (so consecutive lines
    tile the file), ``text`` the line as Apache sees it (joined, cut at a NUL, trimmed),
    ``first`` the physical line it starts on and ``last`` Apache's line number after it.
    ``single``: what was read is the whole physical line ``first`` with its newline (not the
    rest of a line cut at a NUL), and holds no NUL and no continuation."""

    start: int
    end: int
    first: int
    last: int
    text: bytes
    single: bool = False


def _grow(avail: int, contiguous: bool) -> int:
    """The usable size after ``ap_varbuf_grow(vb, 2 * avail)``."""
    wanted = 2 * avail + 1
    if wanted <= _SMALL_SIZE:
        aligned = (wanted + 7) & ~7
        return avail + aligned if contiguous else aligned - 1
    node = max(_MIN_NODE, (wanted + _NODE_OVERHEAD + _PAGE - 1) // _PAGE * _PAGE)
    return node - _NODE_OVERHEAD - 1


class _Buffer:
    """One ``struct ap_varbuf``: its usable size, and whether it was the pool's last
    allocation (so that its next growth is contiguous)."""

    __slots__ = ("avail", "last_allocation")

    def __init__(self) -> None:
        self.avail = _INITIAL_AVAIL
        self.last_allocation = True


class ConfigReader:
    """Reads ``data`` as ``ap_varbuf_cfg_getline`` does; see the module docstring.

    :meth:`open_buffer` / :meth:`close_buffer` bracket the body of a read-time conditional
    section; :meth:`allocated` tells that a directive was processed (the pool moved on).
    """

    def __init__(self, data: bytes, max_len: int) -> None:
        self.data = data
        self.max_len = max_len
        self.pos = 0
        self.line_number = 0
        self.physical = 0  # newlines consumed so far
        self._buffers = [_Buffer()]

    def open_buffer(self) -> None:
        self._buffers.append(_Buffer())

    def close_buffer(self) -> None:
        if len(self._buffers) > 1:
            self._buffers.pop()
        self._buffers[-1].last_allocation = False

    def allocated(self) -> None:
        self._buffers[-1].last_allocation = False

    def next_line(self) -> RawLine | None:
        """The next logical line, or None at the end of the file; raises LineTooLong."""
        data, start = self.data, self.pos
        if start >= len(data):
            return None
        first = self.physical + 1
        buffer = self._buffers[-1]
        lf = data.find(b"\n", start)
        if lf >= 0 and lf - start + 1 < buffer.avail:
            # Fast path: one physical line that one read returns whole, with no NUL and
            # no continuation.
            end = lf - 1 if lf > start and data[lf - 1] == 0x0D else lf
            if not (end > start and data[end - 1] == 0x5C) and data.find(b"\0", start, lf) < 0:
                if lf - start + 1 > self.max_len:
                    raise LineTooLong(self.line_number + 1)
                self.pos = lf + 1
                self.physical += 1
                self.line_number += 1
                return RawLine(start, lf + 1, first, self.line_number,
                               data[start:lf].strip(_SPACE),
                               start == 0 or data[start - 1] == 0x0A)
        return self._slow_line(start, first, buffer)

    def _slow_line(self, start: int, first: int, buffer: _Buffer) -> RawLine:
        """``ap_varbuf_cfg_getline`` step by step (growth, continuation, NUL)."""
        buf = bytearray()
        while True:
            status = self._getline_core(buf, buffer.avail)
            if status != "ENOSPC":
                break
            if buffer.avail >= self.max_len:
                raise LineTooLong(self.line_number)
            buffer.avail = _grow(buffer.avail, buffer.last_allocation)
            buffer.last_allocation = True
            self.line_number -= 1
        data, end = self.data, self.pos
        newlines = data.count(b"\n", start, end)
        self.physical += newlines
        if len(buf) > self.max_len:
            raise LineTooLong(self.line_number)
        # EOF right after a growth (a last line with no newline, exactly one byte short of
        # the buffer): ap_varbuf_cfg_getline returns APR_EOF and the line is not read.
        text = b"" if status == "EOF" else bytes(buf).strip(_SPACE)
        # a long line read in several reads is still one physical line; the rest of a line
        # cut at a NUL (read as the next line) is not
        single = (newlines == 1 and data[end - 1] == 0x0A
                  and (start == 0 or data[start - 1] == 0x0A)
                  and data.find(b"\0", start, end) < 0
                  and data.find(b"\\\n", start, end) < 0
                  and data.find(b"\\\r\n", start, end) < 0)
        return RawLine(start, end, first, self.line_number, text, single)

    def _getline_core(self, buf: bytearray, bufsize: int) -> str:
        """``ap_cfg_getline_core`` with ``apr_file_gets``: append to ``buf`` (which holds
        ``strlen`` bytes); returns "OK", "EOF" or "ENOSPC"."""
        data, n = self.data, len(self.data)
        offset = cbuf = len(buf)
        while True:
            self.line_number += 1
            limit = bufsize - cbuf - 1  # apr_file_gets stores at most len - 1 bytes
            pos = self.pos
            if pos >= n:
                if cbuf != offset:
                    del buf[cbuf:]
                    return "OK"
                return "EOF"
            lf = data.find(b"\n", pos, pos + limit)
            stop = min(n, pos + limit) if lf < 0 else lf + 1
            chunk = data[pos:stop]
            self.pos = stop
            nul = chunk.find(b"\0")
            del buf[cbuf:]
            buf += chunk if nul < 0 else chunk[:nul]
            cp = len(buf)
            if cp > 0 and buf[cp - 1] == 0x0A:
                cp -= 1
                if cp > 0 and buf[cp - 1] == 0x0D:
                    cp -= 1
                if cp > 0 and buf[cp - 1] == 0x5C:  # a backslash: line continuation
                    cbuf = cp - 1
                    continue
            elif cp >= bufsize - 1:
                return "ENOSPC"
            return "OK"


def logical_bytes(raw: bytes) -> bytes:
    """The logical line Apache reads from ``raw`` (the bytes of one line as read: joined
    continuations, cut at a NUL, trimmed) — without the buffer sizes, which only decide
    where the *next* line starts."""
    out = bytearray()
    pos, n = 0, len(raw)
    while pos < n:
        lf = raw.find(b"\n", pos)
        stop = n if lf < 0 else lf + 1
        chunk = raw[pos:stop]
        pos = stop
        nul = chunk.find(b"\0")
        if nul >= 0:
            out += chunk[:nul]
            break
        out += chunk
        end = len(out)
        if end and out[end - 1] == 0x0A:
            end -= 1
            if end and out[end - 1] == 0x0D:
                end -= 1
            if end and out[end - 1] == 0x5C:
                del out[end - 1:]
                continue
        break
    return bytes(out).strip(_SPACE)
