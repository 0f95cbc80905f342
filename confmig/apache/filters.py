"""The output filters Apache 2.4's own modules register (``ap_register_output_filter``), by
module: what mod_filter's ``FilterProvider`` and ``AddOutputFilterByType`` accept as a
provider.  ``add_filter`` looks the name up with ``ap_get_output_filter_handle`` and refuses
one nobody registered ("Unknown filter provider X": 500 in an ``.htaccess``); the lookup
ignores case.

Read from httpd's 2.4.x branch (``server/core.c``, ``modules/http/http_core.c`` and each
module's ``register_hooks``); checked on Debian's Apache by
tests/model/test_filter_providers_apache.py.  mod_ext_filter (``ExtFilterDefine``) and
mod_lua (``LuaOutputFilter``) register names the server configuration chooses, and a module
outside httpd may register any: :func:`provider_known` answers None (cannot tell) for a name
none of these lists when one of the former is loaded.
"""

from __future__ import annotations

from collections.abc import Callable

#: Registered whatever is loaded: the core and the HTTP protocol module (always compiled in).
CORE_OUTPUT_FILTERS = ("CONTENT_LENGTH", "CORE", "SUBREQ_CORE", "OLD_WRITE", "HTTP_HEADER",
                       "CHUNK", "HTTP_OUTERROR", "BYTERANGE")

#: module (manual name) → the output filters it registers when loaded
MODULE_OUTPUT_FILTERS: dict[str, tuple[str, ...]] = {
    "mod_brotli": ("BROTLI_COMPRESS",),
    "mod_bucketeer": ("BUCKETEER",),
    "mod_buffer": ("BUFFER",),
    "mod_cache": ("CACHE", "CACHE_SAVE", "CACHE_SAVE_SUBREQ", "CACHE_OUT", "CACHE_OUT_SUBREQ",
                  "CACHE_REMOVE_URL", "CACHE_INVALIDATE"),
    "mod_case_filter": ("CaseFilter",),  # httpd's example module, which Debian ships
    "mod_charset_lite": ("XLATEOUT",),
    "mod_data": ("DATA",),
    "mod_deflate": ("DEFLATE", "INFLATE"),
    "mod_dumpio": ("DUMPIO_OUT",),
    "mod_expires": ("MOD_EXPIRES",),
    "mod_headers": ("FIXUP_HEADERS_OUT", "FIXUP_HEADERS_ERR"),
    "mod_http2": ("H2_C2_NET_OUT", "H2_C2_NOTES_OUT", "H2_C2_NET_CATCH_H1",
                  "H2_C2_RESPONSE_OUT", "H2_C2_TRAILERS_OUT", "H2_C2_WS_OUT"),
    "mod_include": ("INCLUDES",),
    "mod_logio": ("LOGIO_TTFB_OUT",),
    "mod_proxy_ftp": ("PROXY_SEND_DIR",),
    "mod_proxy_html": ("proxy-html",),
    "mod_ratelimit": ("RATE_LIMIT",),
    "mod_reqtimeout": ("reqtimeout",),
    "mod_sed": ("Sed",),
    "mod_session": ("MOD_SESSION_OUT",),
    "mod_ssl": ("SSL/TLS Coalescing Filter", "SSL/TLS Filter"),
    "mod_substitute": ("SUBSTITUTE",),
    "mod_xml2enc": ("xml2enc",),
}

#: modules whose output filters are named by the server configuration
CONFIGURED_NAMES = ("mod_ext_filter", "mod_lua")

_OWNER: dict[str, str | None] = {name.lower(): None for name in CORE_OUTPUT_FILTERS}
for _module, _names in MODULE_OUTPUT_FILTERS.items():
    for _name in _names:
        _OWNER.setdefault(_name.lower(), _module)


def provider_known(name: str, has_module: Callable[[str], bool]) -> bool | None:
    """Is *name* a registered output filter with the modules *has_module* says are loaded?
    None: not one of httpd's, but a loaded module may register names the configuration
    chooses (:data:`CONFIGURED_NAMES`)."""
    lowered = name.lower()
    if lowered in _OWNER:
        module = _OWNER[lowered]
        if module is None or has_module(module):
            return True
    if any(has_module(module) for module in CONFIGURED_NAMES):
        return None
    return False

