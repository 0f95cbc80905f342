"""A server configuration ready for requests: the main server and its ``<VirtualHost>``s
(:class:`VirtualServer`, vhosts already merged with the main server), name-based vhost
selection (``server/vhost.c``), and the per-site caches request processing relies on — stats,
access files, merged section configs, walks — all valid because neither the configuration nor
the filesystem changes while a site is in use.  :func:`~confmig.model.site_builder.build_site`
makes one from a loaded configuration."""

from __future__ import annotations

import itertools
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

from confmig.load import LoadedConfig, ReadState
from confmig.model.htaccess import AccessFiles, HtaccessResult
from confmig.model.mapping import AliasEntry, StatCache
from confmig.model.merge import CoreDir, DirConfig, OptsState, merge_configs
from confmig.model.protocol import DEFAULT_LIMITS, ProtocolLimits
from confmig.model.rewrite import RewriteConfig
from confmig.model.sections import ConfigSection
from confmig.model.wildcard import fnmatch_regex, is_fnmatch
from confmig.syntax import Directive, Node

if TYPE_CHECKING:
    from confmig.model.walk import DirWalk

DEFAULT_DOCUMENT_ROOT = "/var/www/html"


@dataclass(eq=False)
class VirtualServer:
    """The main server or one ``<VirtualHost>``, as request processing sees it (vhosts
    already merged with the main server: ``merge_core_server_configs`` & co)."""

    name: str
    aliases: tuple[str, ...] = ()
    # s->port: ServerName's port (0: none), else the first <VirtualHost> address's, else the
    # main server's.  It decides ap_matches_request_vhost and %{SERVER_PORT} without a Host port.
    name_port: int = 0
    addresses: tuple[tuple[str, str], ...] = ()  # (host or "*", port or "*")
    label: str = "main server"
    document_root: str = DEFAULT_DOCUMENT_ROOT
    defaults: ConfigSection = field(default_factory=lambda: ConfigSection(
        "server", "server config", "", 0, config={"core": CoreDir()}))
    directories: list[ConfigSection] = field(default_factory=list)
    locations: list[ConfigSection] = field(default_factory=list)
    aliases_list: list[AliasEntry] = field(default_factory=list)
    redirects: list[AliasEntry] = field(default_factory=list)
    rewrite: RewriteConfig | None = None
    access_names: tuple[str, ...] = (".htaccess",)
    encoded_slashes: Literal["off", "on", "nodecode"] = "off"
    merge_slashes: bool = True
    recursion_limit: int = 10
    server_admin: str = "[no address given]"  # ServerAdmin (DEFAULT_ADMIN without one)
    # LimitRequestLine/FieldSize/Fields, HttpProtocolOptions: the main server's (the request
    # is read before a name-based virtual host is chosen)
    protocol: ProtocolLimits = DEFAULT_LIMITS
    server_directives: list[Directive] = field(default_factory=list)
    # filename → the walks' result (confmig.model.walk.walk_file); a server belongs to one site.
    walks: dict[str, tuple[DirWalk, list[ConfigSection], DirConfig]] = field(
        default_factory=dict, repr=False)

    # What request processing asks of the server on every request, computed on first use (a
    # site does not change once requests are evaluated).

    @cached_property
    def plain_translate(self) -> bool:
        """No server-context rewrite rules, Redirect or Alias: translate_name is DocumentRoot
        plus the URL-path (unless a ``<Location>`` Redirect applies)."""
        rw = self.rewrite
        return ((rw is None or not rw.has_directives or not rw.rules) and not self.redirects
                and not self.aliases_list)

    @cached_property
    def root_prefix(self) -> str:
        """``ap_core_translate``'s DocumentRoot, without its trailing slash (except ``/``)."""
        root = self.document_root
        return root[:-1] if root.endswith("/") and len(root) > 1 else root

    @cached_property
    def root_slash(self) -> str:
        """The DocumentRoot with one trailing slash: what a served file's path starts with."""
        return self.root_prefix.rstrip("/") + "/"

    @cached_property
    def rewrite_maps(self) -> dict[str, Any]:
        """The RewriteMaps the rules of this server can use (name → map)."""
        return self.rewrite.maps if self.rewrite is not None else {}

    @cached_property
    def early_setenvif(self) -> Any:
        """The server-level SetEnvIf entries that run at post_read_request (None: none)."""
        return self.defaults.config.get("setenvif")

    @cached_property
    def walks_locations(self) -> bool:
        """Are there ``<Location>`` sections or server-level ``<If>`` to walk?"""
        return bool(self.locations) or bool(self.defaults.core.ifs)

    def name_matches(self, host: str) -> bool:
        """Is *host* (lower-cased) this server's ServerName or one of its ServerAliases?"""
        if host == self.name.lower():
            return True
        for alias in self.aliases:
            if is_fnmatch(alias):
                if fnmatch_regex(alias.lower()).search(host) is not None:
                    return True
            elif host == alias.lower():
                return True
        return False


class Site:
    """A whole server configuration ready for requests (see the module docstring)."""

    def __init__(self, main: VirtualServer, vhosts: list[VirtualServer], state: ReadState,
                 types: dict[str, str], errors: list[tuple[Node, str]] | None = None,
                 filesystem: StatCache | None = None) -> None:
        self.main = main
        self.vhosts = vhosts
        self.state = state
        self.types = types
        self.errors = errors or []
        # What requests see on disk: the real one (cached), or e.g. model.listed_files.
        self.stat = filesystem if filesystem is not None else StatCache()
        self.access_files = AccessFiles(self.stat, state)
        # Site.merged's cache: (state, id(section)) -> the state after merging that section,
        # and the merged config of each state a caller asked for.
        self._merge_steps: dict[tuple[int, int], int] = {}
        self._merged: dict[int, DirConfig] = {}
        self._merge_states = itertools.count(-1, -1)  # (negative: never an id())
        # What the evaluation works out once (config results keyed by id() of a merged config,
        # which the merge cache keeps alive): the vhost for (Host, address, port), a file's
        # content type and handler, static access decisions, configured response headers.
        self.servers_for: dict[tuple[str | None, str, int], VirtualServer] = {}
        self.content_types: dict[tuple[int, str], tuple[str | None, str | None]] = {}
        self.access_decisions: dict[tuple[int, str, str], int] = {}
        self.header_sets: dict[tuple[Any, ...], tuple[dict[str, str], int | None]] = {}
        self.memo: dict[tuple[Any, ...], Any] = {}  # anything else (keys start with a name)

    # -- virtual host selection (server/vhost.c) ---------------------------------------------

    def select(self, host: str | None, local_addr: str, port: int) -> VirtualServer:
        """Name-based selection among the vhosts listening on the connection's address and
        port: the first whose ServerName/ServerAlias matches the Host, else the first of
        them; the main server when no vhost listens there."""
        port_text = str(port)

        def addr_match(addr: tuple[str, str], exact: bool) -> bool:
            ip, p = addr
            if p not in ("*", port_text):
                return False
            return ip == local_addr if exact else ip in ("*", "_default_")

        for exact in (True, False):
            candidates = [v for v in self.vhosts
                          if any(addr_match(a, exact) for a in v.addresses)]
            if candidates:
                if host:
                    for vhost in candidates:
                        if vhost.name_matches(host):
                            return vhost
                return candidates[0]
        return self.main

    # -- merging with a cache -----------------------------------------------------------------

    def merged(self, sections: Sequence[ConfigSection]) -> DirConfig:
        """The config vector of *sections* merged in order (cached by identity).

        Cached a step at a time: a state (the first section's config, then a number per
        merge) and the next section are the key of the next state, and the config of each
        state a caller asked for is kept — not the configs in between, which no one asks
        for: a walk that the 1,199 ``<FilesMatch>`` of one access file match kept 1,199
        merged configs for one answer (issue 10).  A key of every prefix's section ids (as
        before that) cost memory quadratic in the number of sections, and a recursion per
        section: for that walk, 27.6 MB of keys, then RecursionError.  A list that extends
        one asked before merges on from that one's config."""
        result = sections[0].config
        if len(sections) == 1:
            return result
        steps, configs = self._merge_steps, self._merged
        # Every section stays reachable from the site (its lists, the .htaccess cache, the
        # configs of its parents), so the ids in a key stay unique.
        state = id(result)
        merged_to = 0  # result is the config of sections[:merged_to + 1]
        for at in range(1, len(sections)):
            key = (state, id(sections[at]))
            found_state = steps.get(key)
            if found_state is None:
                found_state = steps[key] = next(self._merge_states)
            state = found_state
            found = configs.get(state)
            if found is not None:
                result, merged_to = found, at
        if merged_to < len(sections) - 1:
            for at in range(merged_to + 1, len(sections)):
                result = merge_configs(result, sections[at].config)
            configs[state] = result
        return result

    def listdir(self, directory: str) -> tuple[str, ...]:
        """The names in *directory* (cached; empty when it cannot be read)."""
        key = ("listdir", directory)
        found = self.memo.get(key)
        if found is None:
            try:
                found = tuple(sorted(os.listdir(directory)))
            except OSError:
                found = ()
            self.memo[key] = found
        return found

    # -- .htaccess --------------------------------------------------------------------------

    def preload(self, access: dict[str, LoadedConfig]) -> None:
        """Use access files a Workspace already read (keyed by path)."""
        self.access_files.preload(access)

    def htaccess(self, directory: str, names: Sequence[str], opts: OptsState
                 ) -> HtaccessResult:
        """``ap_parse_htaccess`` for *directory* under *opts* (cached)."""
        return self.access_files.lookup(directory, names, opts)
