"""Building one section's config vector from its directives (``ap_walk_config`` over a section:
each directive's handler fills its module's part; :meth:`SectionBuilder.build` makes the
immutable per-module configs)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from types import MappingProxyType
from typing import Any, Literal, TypeVar

import confmig.model.merge.filters  # noqa: F401  (registers the mod_filter directives)
from confmig.model.mapping import AliasEntry
from confmig.model.merge.access_compat import AccessDir
from confmig.model.merge.alias import AliasDir
from confmig.model.merge.authbasic import AuthBasicDir, AuthnFileDir, GroupFileDir
from confmig.model.merge.authz import (
    AuthnDir,
    AuthzDir,
    AuthzNode,
    AuthzOp,
    group_node,
    union_methods,
)
from confmig.model.merge.checks import unhandled_problem
from confmig.model.merge.core import (
    OPT_ALL,
    OPT_MULTI,
    OPT_SERVER_DEFAULT,
    OPT_SYM_OWNER,
    OPT_UNSET,
    CoreDir,
)
from confmig.model.merge.dir import DirDir
from confmig.model.merge.env import EnvDir, SetEnvIfDir, SetEnvIfEntry
from confmig.model.merge.expires import ExpiresDir
from confmig.model.merge.handlers import HANDLERS, ConfigError, handles
from confmig.model.merge.headers import HeaderEntry, HeadersDir
from confmig.model.merge.mime import ExtInfo, MimeDir
from confmig.model.rewrite import RewriteConfig
from confmig.syntax import Directive, Node, Section

Context = Literal["server", "directory", "htaccess", "files", "location", "if"]

# The manual's module names → this builder's config keys (what ``touch`` creates).
MODULE_KEYS = {
    "mod_mime": "mime", "mod_headers": "headers", "mod_dir": "dir", "mod_expires": "expires",
    "mod_authz_core": "authz", "mod_authn_core": "authn", "mod_access_compat": "access",
    "mod_alias": "alias", "mod_setenvif": "setenvif", "mod_env": "env",
    "mod_rewrite": "rewrite", "mod_auth_basic": "auth_basic", "mod_authn_file": "authn_file",
    "mod_authz_groupfile": "authz_groupfile",
}
# Modules whose whole config one section holds (no merger): their empty config.
NO_MERGER_CONFIGS = {"authn_file": AuthnFileDir, "authz_groupfile": GroupFileDir}
# What most sections' core config holds: one shared empty value each, not one per section
# (an empty frozenset is 216 bytes; a 1 MB file of <Files> blocks has 30,000 sections).
_NO_NAMES: frozenset[str] = frozenset()
_NO_DOCUMENTS: Mapping[int, tuple[str, Directive]] = MappingProxyType({})
_DEFAULT_CORE: dict[int, CoreDir] = {}  # the core config of a section that sets none of it


class SectionBuilder:
    """Collects one section's directives into per-module configs (Apache's ``ap_walk_config``
    over a section, each directive's handler filling its module's entry).

    ``override_opts`` restricts which ``Options`` an ``.htaccess`` may set
    (``AllowOverride Options=…``); ``loaded_modules`` tells whether a module (manual name,
    ``mod_authz_groupfile``) is loaded, for the Require providers.  In server context the
    ``Redirect*`` lines go to ``server_redirects`` (mod_alias checks those at translate time).
    """

    def __init__(self, context: Context, path: str | None, *,
                 override_opts: int = OPT_ALL | OPT_SYM_OWNER | OPT_MULTI,
                 loaded_modules: Callable[[str], bool] | None = None) -> None:
        self.context = context
        # Read from an .htaccess (inherited by its nested sections): ap_expr refuses the
        # "restricted" functions there.
        self.restricted = context == "htaccess"
        self.path = path
        self.override_opts = override_opts
        self.has_module = loaded_modules or (lambda name: True)
        # Methods the server config registered (beyond http_protocol.c's): what an
        # .htaccess <Limit> and ``Require method`` may name (merge.checks).
        self.known_methods: frozenset[str] = frozenset()
        self.errors: list[ConfigError] = []
        self.directives: list[Directive] = []
        self.core: dict[str, Any] = {}
        self.mime_exts: dict[str, dict[str, str]] = {}
        self.mime_removals: list[tuple[str, str]] = []
        self.mime_lang: str | None = None
        # (onsuccess, always): each line's parsed entry (shared by equal lines), and in step
        # the lines themselves
        self.header_entries: tuple[list[HeaderEntry], list[HeaderEntry]] = ([], [])
        self.header_lines: tuple[list[Directive], list[Directive]] = ([], [])
        self.dir_fields: dict[str, Any] = {}
        self.expires: dict[str, Any] = {}
        self.authz_stack: list[list[AuthzNode]] = [[]]
        self.authz: dict[str, Any] = {}
        self.authn: dict[str, Any] = {}
        # Modules whose whole config one directive sets (no merger: the section replaces).
        self.module_configs: dict[str, Any] = {}
        # Modules built from fields at the end, by name (mod_auth_basic).
        self.module_fields: dict[str, dict[str, Any]] = {}
        self.access: dict[str, Any] = {}
        self.alias: dict[str, Any] = {}
        self.setenvif: list[SetEnvIfEntry] = []
        self.env: tuple[dict[str, str], set[str]] = ({}, set())
        self.rewrite: list[Directive] = []
        self.touched: set[str] = set()
        self.authz_groups: list[AuthzNode] = [AuthzNode(op="or")]
        self.server_redirects: list[AliasEntry] = []
        self.files: list[Any] = []
        self.ifs: list[Any] = []
        # mod_filter's live_filters: declared filter → its providers (lower case)
        self.filters: dict[str, set[str]] = {}
        self._built = False

    # -- feeding --------------------------------------------------------------------------

    def error(self, node: Node, message: str) -> None:
        self.errors.append((node, message))

    def touch(self, d: Directive | Section) -> None:
        """``ap_set_config_vectors``: before Apache checks whether a directive is allowed
        here, its module gets a (default) config for this section — so a directive an
        ``.htaccess`` may not use under ``AllowOverride … Nonfatal=Override`` still gives
        its module an empty config, which for a module that keeps the child's config (no
        merger: mod_access_compat, mod_authn_file; mod_rewrite's rules without Inherit)
        drops the parent's.  Checked on Apache (tests/differential/sites_access.py)."""
        from confmig.apache.registry import registry  # the registry imports the merge package

        for info in registry().get_exact(d.name):
            for module in info.modules:
                key = MODULE_KEYS.get(module)
                if key in NO_MERGER_CONFIGS:
                    self.module_configs.setdefault(key, NO_MERGER_CONFIGS[key]())
                elif key == "auth_basic":
                    self.module_fields.setdefault(key, {})
                elif key is not None:
                    self.touched.add(key)

    def directive(self, d: Directive, methods: frozenset[str] | None = None) -> None:
        """Apply one directive (already known to be allowed in this context)."""
        self.directives.append(d)
        handler = HANDLERS.get(d.lname)
        message = handler(self, d, methods) if handler is not None else unhandled_problem(d)
        if message:
            self.error(d, message)

    def authz_group(self, section: Section, methods: frozenset[str] | None,
                    feed: Callable[[list[Node], frozenset[str] | None], None]) -> None:
        """``<RequireAll>``/``<RequireAny>``/``<RequireNone>``: collect the children into a
        group and attach it to the enclosing one (``add_authz_section``)."""
        name = section.lname
        op: AuthzOp = "and" if name in ("requireall", "requirenotall") else "or"
        negate = name in ("requirenone", "requirenotall")
        if section.args:
            self.error(section, f"<{section.name}> directive doesn't take additional arguments")
            return
        self.touched.add("authz")
        group = AuthzNode(op=op, negate=negate, methods=methods, directive=section)
        self.authz_stack.append([])
        self.authz_groups.append(group)
        feed(section.children, methods)
        self.authz_groups.pop()
        children = self.authz_stack.pop()
        if not children:
            self.error(section, f"{group.describe()} directive contains no authorization "
                                "directives")
            return
        parent = self.authz_groups[-1]
        if negate and parent.op == "or":
            self.error(section, f"{group.describe()} directive has no effect in "
                                f"{parent.describe()} directive")
            return
        if not negate and op == parent.op:
            self.authz_stack[-1].extend(children)
        else:
            self.authz_stack[-1].append(group_node(section, op, negate, children))

    # -- result ---------------------------------------------------------------------------

    def build(self) -> dict[str, Any]:
        """The section's config vector: an entry only for the modules its directives touch
        (core always has one, as in Apache).  The builder's last step: its header lists are
        handed over to the config, not copied (see :class:`HeadersDir`), so it is built once."""
        if self._built:
            raise RuntimeError("a SectionBuilder builds its section once")
        self._built = True
        core = dict(self.core)
        unset = OPT_SERVER_DEFAULT if self.context == "server" else OPT_UNSET
        if not core and not self.files and not self.ifs:
            # nothing of core's set here: one shared CoreDir (it is immutable)
            default = _DEFAULT_CORE.get(unset)
            if default is None:
                default = _DEFAULT_CORE[unset] = CoreDir(
                    opts=unset, nonfatal=_NO_NAMES, error_documents=_NO_DOCUMENTS)
            core_dir = default
        else:
            core_dir = CoreDir(
                opts=core.get("opts", unset), opts_add=core.get("opts_add", 0),
                opts_remove=core.get("opts_remove", 0), override=core.get("override"),
                nonfatal=frozenset(core["nonfatal"]) if core.get("nonfatal") else _NO_NAMES,
                override_opts=core.get("override_opts"), override_list=core.get("override_list"),
                mime_type=core.get("mime_type"), handler=core.get("handler"),
                default_charset=core.get("default_charset"),
                error_documents=core.get("error_documents") or _NO_DOCUMENTS,
                accept_path_info=core.get("accept_path_info"),
                file_groups=tuple(self.files), ifs=tuple(self.ifs))
        modules: dict[str, Any] = {"core": core_dir}
        t = self.touched
        if "mime" in t:
            maps = {ext: ExtInfo(**vals) for ext, vals in self.mime_exts.items()}
            modules["mime"] = MimeDir(maps if self.mime_exts else None, tuple(self.mime_removals),
                                      self.mime_lang)
        if "headers" in t:
            (onsuccess, always), (onsuccess_lines, always_lines) = \
                self.header_entries, self.header_lines
            self.header_entries, self.header_lines = ([], []), ([], [])  # (handed over)
            modules["headers"] = HeadersDir(handed_over(onsuccess), handed_over(onsuccess_lines),
                                            handed_over(always), handed_over(always_lines))
        if "dir" in t:
            fields = dict(self.dir_fields)
            if "index_names" in fields:  # (a list while read)
                fields["index_names"] = tuple(fields["index_names"])
            modules["dir"] = DirDir(**fields)
        if "expires" in t:
            modules["expires"] = ExpiresDir(**self.expires)
        if "authz" in t:
            top = tuple(self.authz_stack[0])
            section = AuthzNode(op="or", children=top, methods=union_methods(top)) \
                if top else None
            modules["authz"] = AuthzDir(section, self.authz.get("merging"),
                                        self.authz.get("fof"))
        if "authn" in t:
            modules["authn"] = AuthnDir(**self.authn)
        modules.update(self.module_configs)
        if "auth_basic" in self.module_fields:
            modules["auth_basic"] = AuthBasicDir(**self.module_fields["auth_basic"])
        if "access" in t:
            access = dict(self.access)
            for key in ("allows", "denies", "directives"):  # (lists while read)
                if key in access:
                    access[key] = tuple(access[key])
            modules["access"] = AccessDir(**access)
        if "alias" in t:
            alias = dict(self.alias)
            alias["redirects"] = tuple(alias.get("redirects", ()))  # (a list while read)
            modules["alias"] = AliasDir(**alias)
        if "setenvif" in t:
            modules["setenvif"] = SetEnvIfDir(tuple(self.setenvif),
                                              server=self.context == "server")
        if "env" in t:
            modules["env"] = EnvDir(dict(self.env[0]), frozenset(self.env[1]))
        if self.rewrite or "rewrite" in t:
            ctx = "server" if self.context == "server" else "directory"
            rw = RewriteConfig.from_directives(self.rewrite, ctx, self.path)
            if not self.rewrite:  # touched: the module has a config here, with no rules
                rw = replace(rw, has_directives=True)
            for node, message in rw.errors:
                self.error(node, message)
            modules["rewrite"] = rw
        return modules


_T = TypeVar("_T")
# A finished builder's list up to this long is copied into a tuple (held, a tuple is smaller:
# no spare room, no array of its own); a longer one is handed over as it is - copying it
# held it twice at once, the peak of a big file's lint (issue 10).
_COPIED_UP_TO = 16


def handed_over(items: list[_T]) -> Sequence[_T]:
    """What a finished builder's list *items* becomes in the section it built (read only
    from then on: the builder no longer holds it)."""
    return tuple(items) if len(items) <= _COPIED_UP_TO else items


# mod_rewrite: collected here, parsed by the engine's own parser in build()


@handles("rewriteengine", "rewriteoptions", "rewritebase", "rewritecond", "rewriterule",
          "rewritemap")


def _rewrite(b: SectionBuilder, d: Directive, _m: frozenset[str] | None) -> str | None:
    b.rewrite.append(d)
    return None

