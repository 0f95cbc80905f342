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
from confmig.model.merge.env import EnvDir, SetEnvIfDir, SetEnvIfEntry, merge_env, merge_setenvif
from confmig.model.merge.expires import ExpiresDir, expires_code, merge_expires
from confmig.model.merge.handlers import METHODS, ConfigError
from confmig.model.merge.headers import HeaderAction, HeaderEntry, HeadersDir, merge_headers
from confmig.model.merge.mime import ExtInfo, MimeDir, merge_mime
from confmig.model.merge.vector import MERGERS, DirConfig, merge_configs
from confmig.model.netmatch import ip_matches

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
