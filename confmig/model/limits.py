"""Apache's own limits that a request ran into, collected for the explanation.

Some limits are hit deep inside code that has no handle on the request being evaluated (the
PCRE match limit inside :class:`~confmig.model.rewrite.regex.Regex`, used by mod_rewrite, the
``<*Match>`` sections, mod_alias, mod_setenvif and ``ap_expr``).  The answer does not depend
on this record — each place already answers as Apache does when the limit is hit — it only
lets ``explain`` say which limit decided.  :func:`begin` opens a record for one request and
:func:`end` closes it; :func:`record` adds to the open one (nothing happens when none is open).
"""

from __future__ import annotations

MAX_RECORDED = 20  # distinct messages kept per request (a limit hit every round says it once)

_current: list[str] | None = None


def begin() -> list[str] | None:
    """Open a fresh record; returns what :func:`end` needs to restore the enclosing one."""
    global _current
    saved, _current = _current, []
    return saved


def end(saved: list[str] | None) -> list[str]:
    """Close the record :func:`begin` opened and return it."""
    global _current
    found, _current = _current or [], saved
    return found


def record(message: str) -> None:
    """Note that a limit was hit (once per distinct message, at most :data:`MAX_RECORDED`)."""
    found = _current
    if found is not None and message not in found and len(found) < MAX_RECORDED:
        found.append(message)
