"""How many ``.htaccess`` files Apache tries to open for one request.

``ap_directory_walk`` walks the file's path from ``/`` one component at a time; in
every directory where the merged AllowOverride/AllowOverrideList is not None it
calls ``ap_parse_htaccess``, which tries to open the access file (ENOENT when it is
missing).  The last component — the file itself — is walked as a directory too, so
one more open fails with ENOTDIR.  For a file ``k`` directories below the first
directory that allows overrides, that makes ``k + 2`` open attempts (measured with
strace on Apache 2.4: depth 10 below the DocumentRoot → 12 opens).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

from confmig.lint.context import ServerLayout


def parts(path: str) -> list[str]:
    return [p for p in os.path.normpath(path).split("/") if p]


def ancestors(path: str) -> list[str]:
    """``/``, ``/a``, ``/a/b`` … up to and including ``path``."""
    out = ["/"]
    for i, _ in enumerate(parts(path)):
        out.append("/" + "/".join(parts(path)[: i + 1]))
    return out


@dataclass(frozen=True)
class Lookups:
    first: str          # the shallowest directory that allows overrides
    directory: str      # the directory the request's file is in
    opens: int          # open attempts for one request for a file in ``directory``


def lookups(directory: str, layout: ServerLayout | None, docroot: str | None) -> Lookups | None:
    """Open attempts for a file in ``directory``; None when no directory allows overrides.

    Without a server config (``layout`` None) overrides are assumed from ``docroot`` down.
    """
    chain = ancestors(directory)
    if layout is None:
        allowed = [d for d in chain if docroot is not None and
                   (d == docroot or d.startswith(docroot.rstrip("/") + "/"))]
    else:
        allowed = [d for d in chain if not layout.overrides_for(d).none]
    if not allowed:
        return None
    # The file itself is tried as a directory only when its own directory allows overrides.
    opens = sum(1 for d in chain if d in allowed) + (1 if chain[-1] in allowed else 0)
    return Lookups(allowed[0], directory, opens)
