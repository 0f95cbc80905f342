"""How Apache merges mod_rewrite configurations (``config_perdir_merge`` and
``config_server_merge`` in mod_rewrite.c, ``ap_merge_per_dir_configs`` and
``merge_server_configs`` in server/config.c).

Facts (source-read; those marked † are verified against httpd by tests/test_rewrite_apache.py):

* † a child section with *no* Rewrite* directive at all gets no rewrite config, so the parent's
  applies unchanged — its rules *and its directory*: a subdirectory ``.htaccess`` without
  rewrite directives does not disable the parent's rules, and they still match against the
  path relative to the *parent's* directory;
* † otherwise the child's rules replace the parent's — a child holding only
  ``RewriteEngine On`` switches the parent's rules off;
* † ``RewriteEngine`` and ``RewriteOptions`` are inherited when the child does not set them
  (a child with rules but no ``RewriteEngine On`` still runs them when the parent is on), and a
  child's ``RewriteOptions`` replaces the parent's options as a whole;
* † ``Inherit`` appends the parent's rules *after* the child's, ``InheritBefore`` puts them
  before; either way they run with the *child's* directory prefix and RewriteBase;
  ``InheritDown``/``InheritDownBefore`` in the parent act as if every child said
  ``Inherit``/``InheritBefore``, unless the child says ``IgnoreInherit``;
* ``RewriteBase`` is not inherited unless the merged options contain ``MergeBase``;
* server-context rules never take part in the per-directory chain; only the server's
  ``RewriteEngine``/``RewriteOptions`` do (they also set the per-directory defaults);
* a ``<VirtualHost>`` without any Rewrite* directive runs no server-context rules at all,
  even when the main server has ``RewriteEngine On`` and rules (mod_rewrite declines when the
  server config is not the vhost's own); rules of the main server reach a vhost only with
  ``RewriteOptions Inherit``/``InheritBefore`` in the vhost or ``InheritDown*`` in the main
  server, and RewriteMaps likewise.
"""

from __future__ import annotations

from dataclasses import replace

from confmig.model.rewrite.parse import RewriteConfig


def merge(parent: RewriteConfig, child: RewriteConfig) -> RewriteConfig:
    """The per-directory config in effect for *child*'s context below *parent*'s.

    *parent* may be a per-directory config (a ``<Directory>``, an ``.htaccess``, or an earlier
    merge result) or the server/vhost config (only its engine state and options count).
    """
    if not child.has_directives:
        return parent
    parent_rules = parent.rules if parent.context == "directory" else []
    engine = child.engine if child.engine_set else parent.engine
    options = child.options if child.options_set else parent.options
    if "MergeBase" in options:
        base = child.base if child.base_set else parent.base
        base_set = child.base_set or parent.base_set
    else:
        base, base_set = child.base, child.base_set
    ignore = "IgnoreInherit" in options
    if "Inherit" in options or ("InheritDown" in parent.options and not ignore):
        rules = [*child.rules, *parent_rules]
    elif "InheritBefore" in options or ("InheritDownBefore" in parent.options and not ignore):
        rules = [*parent_rules, *child.rules]
    else:
        rules = list(child.rules)
    return RewriteConfig(
        context="directory", directory=child.directory, engine=engine,
        engine_set=child.engine_set or parent.engine_set, options=options,
        options_set=child.options_set or parent.options_set, base=base, base_set=base_set,
        rules=rules, maps={}, problems=[*parent.problems, *child.problems],
        errors=[*parent.errors, *child.errors], has_directives=True,
        dangling_conditions=list(child.dangling_conditions),
    )


def merge_server(base: RewriteConfig, vhost: RewriteConfig) -> RewriteConfig:
    """The server-context config a ``<VirtualHost>`` runs (``config_server_merge``)."""
    if not vhost.has_directives:
        return replace(base, engine=False, rules=[], maps={}, problems=[], errors=[],
                       has_directives=False)
    engine = vhost.engine if vhost.engine_set else base.engine
    options = vhost.options if vhost.options_set else base.options
    ignore = "IgnoreInherit" in options
    if "Inherit" in options or ("InheritDown" in base.options and not ignore):
        rules = [*vhost.rules, *base.rules]
        maps = {**base.maps, **vhost.maps}
    elif "InheritBefore" in options or ("InheritDownBefore" in base.options and not ignore):
        rules = [*base.rules, *vhost.rules]
        maps = {**vhost.maps, **base.maps}
    else:
        rules, maps = list(vhost.rules), dict(vhost.maps)
    return RewriteConfig(
        context="server", directory=None, engine=engine,
        engine_set=vhost.engine_set or base.engine_set, options=options,
        options_set=vhost.options_set or base.options_set, rules=rules, maps=maps,
        problems=list(vhost.problems), errors=list(vhost.errors), has_directives=True,
        dangling_conditions=list(vhost.dangling_conditions),
    )


def server_dir_defaults(base: RewriteConfig, vhost: RewriteConfig) -> RewriteConfig:
    """The root of a virtual host's per-directory chain: engine state and options as the
    vhost's per-directory defaults hold them (inherited from the main server when unset)."""
    if not vhost.has_directives:
        return replace(base, rules=[])
    return RewriteConfig(
        context="server", engine=vhost.engine if vhost.engine_set else base.engine,
        engine_set=vhost.engine_set or base.engine_set,
        options=vhost.options if vhost.options_set else base.options,
        options_set=vhost.options_set or base.options_set, has_directives=True,
    )
