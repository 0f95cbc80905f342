"""A URL-path as the core reads and maps it — one implementation each, below the rest of the
model (mod_rewrite's engine, the request model and the mapping phase import them):

* :func:`normalize_path` — ``ap_normalize_path`` (``server/util.c``): decodes %-escapes of
  unreserved characters, removes ``.``/``..`` segments (refusing to climb above ``/``), merges
  ``//`` (MergeSlashes On); a malformed escape or ``..`` above the root → 400 (None).
* :func:`core_translate` — ``ap_core_translate``: DocumentRoot + URL-path through
  ``apr_filepath_merge(..., APR_FILEPATH_SECUREROOT)``, which mod_rewrite also calls for a
  server-context rewrite to a URL-path.
* :func:`url_base` — ``ap_construct_url`` without the path: ``scheme://host[:port]``, for the
  redirects of mod_alias, mod_dir and mod_rewrite alike.
"""

from __future__ import annotations

_HEX = frozenset("0123456789abcdefABCDEF")
# T_URI_UNRESERVED (gen_test_char.c): ALPHA / DIGIT / "-" / "." / "_" / "~"
_UNRESERVED = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")


def normalize_path(path: str, *, merge_slashes: bool = True) -> str | None:
    """``ap_normalize_path(path, NOT_ABOVE_ROOT | DECODE_UNRESERVED [| MERGE_SLASHES])``.

    Returns the normalised path, or None where Apache answers 400 ("invalid URI path"): the
    path does not start with ``/``, has a ``%`` not followed by two hex digits, or a ``..``
    segment would climb above the root.
    """
    if not path.startswith("/"):
        return None
    if "%" not in path and "/." not in path and (not merge_slashes or "//" not in path):
        return path
    ok = True
    src = list(path)
    out: list[str] = ["/"]
    i, n = 1, len(src)
    while i < n:
        if src[i] == "%":
            if i + 2 < n and src[i + 1] in _HEX and src[i + 2] in _HEX:
                char = chr(int(src[i + 1] + src[i + 2], 16))
                if char in _UNRESERVED:
                    i += 2
                    src[i] = char
            else:
                ok = False
        if not out or out[-1] == "/":
            if merge_slashes and src[i] == "/":
                while i < n and src[i] == "/":
                    i += 1
                continue
            if src[i] == ".":
                nxt = src[i + 1] if i + 1 < n else ""
                if nxt in ("/", ""):
                    i += 2 if nxt else 1
                    continue
                j = i + 1
                dotdot = nxt == "."
                if not dotdot and nxt == "%" and src[i + 2:i + 4] in (["2", "e"], ["2", "E"]):
                    j = i + 3
                    dotdot = True
                if dotdot and (j + 1 >= n or src[j + 1] == "/"):
                    if len(out) > 1:
                        out.pop()
                        while out and out[-1] != "/":
                            out.pop()
                    else:
                        ok = False
                    i = j + 1
                    if i < n:
                        i += 1
                    continue
        out.append(src[i])
        i += 1
    return "".join(out) if ok else None


def core_translate(document_root: str, uri: str) -> str | None:
    """``ap_core_translate``: the URL-path's leading slashes dropped, merged onto the
    DocumentRoot (``.`` segments dropped, ``..`` resolved); None when the path would climb
    above the DocumentRoot (``APR_EABOVEROOT``: Apache answers 403 "Cannot map ... to file").
    A normalised URL-path has no dot segments: it is simply appended."""
    root = document_root.rstrip("/")
    if "/." not in uri and not uri.startswith("//"):
        return root + uri if uri.startswith("/") else root + "/" + uri
    path = uri.lstrip("/")
    parts: list[str] = []
    for seg in path.split("/"):
        if seg == "..":
            if not parts:
                return None
            parts.pop()
        elif seg != ".":
            parts.append(seg)
    return root + "/" + "/".join(parts) if parts or path else root + "/"


def url_base(https: bool, host: str, port: int) -> str:
    """``ap_construct_url`` without the path: ``scheme://host[:port]``.  An IPv6 *host* is put
    in brackets (``ap_get_server_name_for_url``); the port is left out when it is the scheme's
    default (``ap_default_port``).  Choosing *host* and *port* (``UseCanonicalName``) is the
    caller's job."""
    if ":" in host and not host.startswith("["):
        host = f"[{host}]"
    scheme = "https" if https else "http"
    suffix = "" if port == (443 if https else 80) else f":{port}"
    return f"{scheme}://{host}{suffix}"
