"""Per-module configuration of one section, and how Apache merges it, module by module.

Apache keeps one config vector per section (``<Directory>``, ``.htaccess``, ``<Files>``, …);
a module gets an entry in a section only when one of its directives appears there, and
``ap_merge_per_dir_configs`` calls the module's own merger only when both sides have an entry —
otherwise the side that has one wins (a module with no merger, like mod_access_compat, is
simply replaced by the most specific section that mentions it).  This package mirrors that:

* one file per module — its config type, its directives' handlers (with Apache's error texts)
  and its merger, as read from ``server/core.c`` (:mod:`.core`), ``mod_mime.c`` (:mod:`.mime`),
  ``mod_headers.c`` (:mod:`.headers`), ``mod_dir.c`` (:mod:`.dir`), ``mod_expires.c``
  (:mod:`.expires`), ``mod_authz_core.c``/``mod_authn_core.c`` (:mod:`.authz`),
  ``mod_access_compat.c`` (:mod:`.access_compat`), ``mod_alias.c`` (:mod:`.alias`),
  ``mod_setenvif.c``/``mod_env.c`` (:mod:`.env`), ``mod_auth_basic.c``/``mod_authn_file.c``/
  ``mod_authz_groupfile.c`` (:mod:`.authbasic`); mod_rewrite's is
  :func:`confmig.model.rewrite.merge`;
* :class:`SectionBuilder` (:mod:`.builder`) turns the directives of one section into module
  configs, collecting the errors Apache reports for bad arguments;
* :func:`merge_configs` (:mod:`.vector`) merges two config vectors with each module's merger.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from confmig.apache.registry import OVERRIDE_CLASSES
    from confmig.model.applied import AppliedDirective
    from confmig.model.merge.access_compat import AccessDir, AllowDeny
    from confmig.model.merge.alias import AliasDir, merge_alias, parse_redirect
    from confmig.model.merge.authbasic import AuthBasicDir, AuthnFileDir, GroupFileDir
    from confmig.model.merge.authz import (
        AUTHZ_PROVIDERS,
        AuthnDir,
        AuthzDir,
        AuthzNode,
        AuthzOp,
        merge_authn,
        merge_authz,
        union_methods,
    )
    from confmig.model.merge.builder import Context, SectionBuilder
    from confmig.model.merge.core import (
        DEFAULT_CHARSET,
        OPT_ALL,
        OPT_EXECCGI,
        OPT_INC_WITH_EXEC,
        OPT_INCLUDES,
        OPT_INDEXES,
        OPT_MULTI,
        OPT_NONE,
        OPT_SERVER_DEFAULT,
        OPT_SYM_LINKS,
        OPT_SYM_OWNER,
        OPT_UNSET,
        OPTION_BITS,
        CoreDir,
        OptsState,
        error_document_kind,
        merge_core,
        options_text,
    )
    from confmig.model.merge.dir import DirDir, merge_dir
    from confmig.model.merge.env import (
        EnvDir,
        SetEnvIfDir,
        SetEnvIfEntry,
        merge_env,
        merge_setenvif,
    )
    from confmig.model.merge.expires import ExpiresDir, expires_code, merge_expires
    from confmig.model.merge.handlers import METHODS, ConfigError
    from confmig.model.merge.headers import HeaderAction, HeaderEntry, HeadersDir, merge_headers
    from confmig.model.merge.mime import ExtInfo, MimeDir, merge_mime
    from confmig.model.merge.vector import MERGERS, DirConfig, merge_configs
    from confmig.model.netmatch import ip_matches

# The names above, each imported from its module when first used (PEP 562): a caller that needs
# one module's config (lint's SEC002 asks mod_authz_core's merge, CTX007 core's Options) does
# not load every module's (issue 17). tests/model/test_lazy_exports.py checks the table.
EXPORTS = {
    "OVERRIDE_CLASSES": "confmig.apache.registry",
    "AppliedDirective": "confmig.model.applied",
    "AccessDir": "confmig.model.merge.access_compat",
    "AllowDeny": "confmig.model.merge.access_compat",
    "AliasDir": "confmig.model.merge.alias",
    "merge_alias": "confmig.model.merge.alias",
    "parse_redirect": "confmig.model.merge.alias",
    "AuthBasicDir": "confmig.model.merge.authbasic",
    "AuthnFileDir": "confmig.model.merge.authbasic",
    "GroupFileDir": "confmig.model.merge.authbasic",
    "AUTHZ_PROVIDERS": "confmig.model.merge.authz",
    "AuthnDir": "confmig.model.merge.authz",
    "AuthzDir": "confmig.model.merge.authz",
    "AuthzNode": "confmig.model.merge.authz",
    "AuthzOp": "confmig.model.merge.authz",
    "merge_authn": "confmig.model.merge.authz",
    "merge_authz": "confmig.model.merge.authz",
    "union_methods": "confmig.model.merge.authz",
    "Context": "confmig.model.merge.builder",
    "SectionBuilder": "confmig.model.merge.builder",
    "DEFAULT_CHARSET": "confmig.model.merge.core",
    "OPT_ALL": "confmig.model.merge.core",
    "OPT_EXECCGI": "confmig.model.merge.core",
    "OPT_INC_WITH_EXEC": "confmig.model.merge.core",
    "OPT_INCLUDES": "confmig.model.merge.core",
    "OPT_INDEXES": "confmig.model.merge.core",
    "OPT_MULTI": "confmig.model.merge.core",
    "OPT_NONE": "confmig.model.merge.core",
    "OPT_SERVER_DEFAULT": "confmig.model.merge.core",
    "OPT_SYM_LINKS": "confmig.model.merge.core",
    "OPT_SYM_OWNER": "confmig.model.merge.core",
    "OPT_UNSET": "confmig.model.merge.core",
    "OPTION_BITS": "confmig.model.merge.core",
    "CoreDir": "confmig.model.merge.core",
    "OptsState": "confmig.model.merge.core",
    "error_document_kind": "confmig.model.merge.core",
    "merge_core": "confmig.model.merge.core",
    "options_text": "confmig.model.merge.core",
    "DirDir": "confmig.model.merge.dir",
    "merge_dir": "confmig.model.merge.dir",
    "EnvDir": "confmig.model.merge.env",
    "SetEnvIfDir": "confmig.model.merge.env",
    "SetEnvIfEntry": "confmig.model.merge.env",
    "merge_env": "confmig.model.merge.env",
    "merge_setenvif": "confmig.model.merge.env",
    "ExpiresDir": "confmig.model.merge.expires",
    "expires_code": "confmig.model.merge.expires",
    "merge_expires": "confmig.model.merge.expires",
    "METHODS": "confmig.model.merge.handlers",
    "ConfigError": "confmig.model.merge.handlers",
    "HeaderAction": "confmig.model.merge.headers",
    "HeaderEntry": "confmig.model.merge.headers",
    "HeadersDir": "confmig.model.merge.headers",
    "merge_headers": "confmig.model.merge.headers",
    "ExtInfo": "confmig.model.merge.mime",
    "MimeDir": "confmig.model.merge.mime",
    "merge_mime": "confmig.model.merge.mime",
    "MERGERS": "confmig.model.merge.vector",
    "DirConfig": "confmig.model.merge.vector",
    "merge_configs": "confmig.model.merge.vector",
    "ip_matches": "confmig.model.netmatch",
}
__all__ = [
    "AUTHZ_PROVIDERS", "DEFAULT_CHARSET", "MERGERS", "METHODS", "OPTION_BITS", "OPT_ALL",
    "OPT_EXECCGI", "OPT_INCLUDES", "OPT_INC_WITH_EXEC", "OPT_INDEXES", "OPT_MULTI", "OPT_NONE",
    "OPT_SERVER_DEFAULT", "OPT_SYM_LINKS", "OPT_SYM_OWNER", "OPT_UNSET", "OVERRIDE_CLASSES",
    "AccessDir", "AliasDir", "AllowDeny", "AppliedDirective", "AuthBasicDir", "AuthnDir",
    "AuthnFileDir", "AuthzDir", "AuthzNode", "AuthzOp", "ConfigError", "Context", "CoreDir",
    "DirConfig", "DirDir", "EnvDir", "ExpiresDir", "ExtInfo", "GroupFileDir", "HeaderAction",
    "HeaderEntry", "HeadersDir", "MimeDir",
    "OptsState", "SectionBuilder", "SetEnvIfDir", "SetEnvIfEntry", "error_document_kind",
    "expires_code", "ip_matches", "merge_alias", "merge_authn", "merge_authz", "merge_configs",
    "merge_core", "merge_dir", "merge_env", "merge_expires", "merge_headers", "merge_mime",
    "merge_setenvif", "options_text", "parse_redirect",
    "union_methods",
]


def __getattr__(name: str) -> object:
    module = EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value
