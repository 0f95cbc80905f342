"""The map_to_storage phase: the directory and file walks (cached per file by the site),
then the ``<Location>`` and ``<If>`` walks merged on top (``walk_location_and_if``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from confmig.model.merge import DirConfig, options_text
from confmig.model.round import Round
from confmig.model.sections import ConfigSection
from confmig.model.variables import lookup_for
from confmig.model.walk import if_walk, location_walk, walk_file

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation


def location_and_if(ev: Evaluation, rnd: Round, sections: list[ConfigSection], config: DirConfig
                    ) -> tuple[list[ConfigSection], DirConfig]:
    """``walk_location_and_if``: the matching ``<Location>``s, then the ``<If>``s of the
    result, merged onto *sections* (whose merged config is *config*)."""
    if ev.server.locations:
        locs = location_walk(ev.server.locations, rnd.uri, ev.server.merge_slashes, rnd.env)
        if locs:
            sections = [*sections, *locs]
            config = ev.site.merged(sections)
    ifs = config["core"].ifs
    if ifs:
        chosen = if_walk(ifs, lookup_for(ev, rnd), ev.unsupported, ev.now, rnd.vary,
                         ev.expr_subrequest(rnd))
        if chosen:
            sections = [*sections, *chosen]
            config = ev.site.merged(sections)
    return sections, config


def map_to_storage(ev: Evaluation, rnd: Round) -> None:
    """The directory and file walks (cached per file by the site), then the location and
    ``<If>`` walks."""
    assert rnd.filename is not None
    found = ev.server.walks.get(rnd.filename)  # walk_file's cache, looked up first
    walk, sections, config = found if found is not None else walk_file(ev.site, ev.server,
                                                                         rnd.filename)
    if ev.trace:
        for level in walk.htaccess_skipped:
            ev.step("walk", f"{level} has an access file that is not read: "
                            "AllowOverride None and no AllowOverrideList in force there")
        for s in walk.sections:
            ev.step("walk", s.label if s.kind != "htaccess" else f".htaccess {s.file}",
                    s if s.kind != "htaccess" else None)
            for node, message in s.nonfatal:
                ev.step("walk", f"ignored (AllowOverride Nonfatal): {message}", node)
    if walk.status:
        ev.step("walk", f"{walk.message} → {walk.status}")
        if walk.hangs:
            ev.note(f"Apache never answers this request (it waits on the FIFO); {walk.status} "
                    "is confmig's answer in its place, the one its conversions give")
        rnd.status, rnd.config, rnd.sections = walk.status, config, sections
        return
    if walk.match_env:  # the named groups of <DirectoryMatch>/<FilesMatch>: MATCH_*
        rnd.env.update(walk.match_env)
    rnd.filename, rnd.path_info, rnd.kind = walk.filename, walk.path_info, walk.kind
    if ev.server.locations or config["core"].ifs:
        rnd.sections, rnd.config = location_and_if(ev, rnd, sections, config)
    else:
        rnd.sections, rnd.config = sections, config
    if ev.trace:
        for s in rnd.sections[len(walk.sections) + 1:]:
            ev.step("walk", s.label, s)
        what = {"file": "a file", "dir": "a directory"}.get(rnd.kind or "", "nothing")
        info = f" + PATH_INFO {rnd.path_info}" if rnd.path_info else ""
        ev.step("walk", f"{rnd.filename}{info} is {what}; Options in force: "
                        f"{options_text(rnd.config['core'].options)}")
