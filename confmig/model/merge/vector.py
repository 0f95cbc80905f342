"""The config vector of a section (module name → that module's config) and
``ap_merge_per_dir_configs``: each module's own merger when both sides configure it, else the
side that does."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from confmig.model.merge.alias import merge_alias
from confmig.model.merge.authbasic import merge_auth_basic
from confmig.model.merge.authz import merge_authn, merge_authz
from confmig.model.merge.core import merge_core
from confmig.model.merge.dir import merge_dir
from confmig.model.merge.env import merge_env, merge_setenvif
from confmig.model.merge.expires import merge_expires
from confmig.model.merge.headers import merge_headers
from confmig.model.merge.mime import merge_mime
from confmig.model.rewrite import merge as merge_rewrite

MERGERS: dict[str, Callable[[Any, Any], Any]] = {
    "core": merge_core, "mime": merge_mime, "headers": merge_headers, "dir": merge_dir,
    "expires": merge_expires, "authz": merge_authz, "authn": merge_authn,
    "alias": merge_alias, "rewrite": merge_rewrite, "setenvif": merge_setenvif,
    "env": merge_env, "auth_basic": merge_auth_basic,
}

DirConfig = Mapping[str, Any]


def merge_configs(base: DirConfig, new: DirConfig) -> dict[str, Any]:
    """``ap_merge_per_dir_configs``: for each module *new* configures, merge with *base*'s
    entry when both exist and the module has a merger, else take *new*'s."""
    out = dict(base)
    for module, conf in new.items():
        old = out.get(module)
        merger = MERGERS.get(module)
        out[module] = merger(old, conf) if old is not None and merger is not None else conf
    return out

