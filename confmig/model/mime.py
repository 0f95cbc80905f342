"""The type_checker phase: mod_mime's ``find_ct`` (every extension after the base name, the
last with a type winning; TypesConfig unless AddType/RemoveType say otherwise) and
mod_negotiation's MultiViews for a path with nothing at it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from confmig.model.merge import OPT_MULTI, ExtInfo, MimeDir
from confmig.model.rewrite.uri import escape_uri
from confmig.model.round import DIR_MAGIC_TYPE, Round

if TYPE_CHECKING:
    from confmig.model.evaluate import Evaluation


def type_checker(ev: Evaluation, rnd: Round) -> None:
    """``find_ct``: every extension after the base name is looked up, left to right (the
    last with a type wins; TypesConfig unless an AddType/RemoveType says otherwise)."""
    modules = ev.site.state.modules
    if rnd.kind is None and rnd.filename and rnd.config["core"].options & OPT_MULTI \
            and modules.has_module("mod_negotiation"):
        multiviews(ev, rnd)
    if rnd.kind == "dir":
        rnd.content_type = DIR_MAGIC_TYPE
    elif rnd.filename is not None and modules.has_module("mod_mime"):
        # without mod_mime no type comes from a file's name: Apache sends no Content-Type
        key = (id(rnd.config), rnd.filename)
        found = ev.site.content_types.get(key)
        if found is None:
            found = ev.site.content_types[key] = mime_type(ev, rnd.config.get("mime"),
                                                           rnd.filename)
        ctype, handler = found
        rnd.content_type = ctype
        if handler:
            rnd.handler = handler


def multiviews(ev: Evaluation, rnd: Round) -> None:
    """mod_negotiation's ``handle_multi`` (Options MultiViews, nothing at the path): the
    files ``<name>.<ext>…`` whose extensions mod_mime all knows are the variants, ranked by
    the Accept type quality, ties going to the smallest file."""
    assert rnd.filename is not None
    directory, _, base = rnd.filename.rpartition("/")
    if not base or rnd.path_info:
        return
    mime: MimeDir | None = rnd.config.get("mime")
    mappings = mime.mappings if mime is not None and mime.mappings else {}
    variants = []
    for entry in ev.site.listdir(directory):
        if not entry.startswith(base + ".") or not ev.site.stat.is_file(
                f"{directory}/{entry}"):
            continue
        exts = [e.lower() for e in entry[len(base) + 1:].split(".") if e]
        if all(_negotiable(mappings.get(e), e in ev.site.types) for e in exts):
            variants.append(entry)
    if not variants:
        return
    accept = _accept_ranges(ev.request.headers.get("Accept"))
    scored = []
    for variant in variants:
        ctype = mime_type(ev, rnd.config.get("mime"), f"{directory}/{variant}")[0]
        quality = _type_quality(accept, (ctype or "").split(";", 1)[0].strip())
        if quality > 0:
            size = ev.site.stat.size(f"{directory}/{variant}") or 0
            scored.append((-quality, size, variant))
    if not scored:
        rnd.status = 406
        ev.step("type", f"MultiViews: no variant of {base} is acceptable → 406")
        return
    if len(scored) > 1:
        ev.note(f"MultiViews: {len(scored)} variants of {base}; chosen by the Accept "
                "type quality, then the smallest (languages, charsets and encodings "
                "are not negotiated by the model)")
    chosen = min(scored)[2]
    parent = rnd.uri[:rnd.uri.rfind("/") + 1]
    sub = ev.subrequest(escape_uri(parent) + escape_uri(chosen), rnd.query, "GET", rnd.env,
                        filename=f"{directory}/{chosen}")
    ev.step("type", f"MultiViews: {base} → {chosen}")
    if sub.status:
        rnd.status = sub.status
        return
    ev.fast_redirect(rnd, sub)
    rnd.uri = parent + base


def mime_type(ev: Evaluation, mime: MimeDir | None, filename: str) -> tuple[str | None, str | None]:
    """(content type with AddCharset's charset, handler) of *filename* under *mime*."""
    mappings = mime.mappings if mime is not None and mime.mappings else {}
    return find_ct(filename.rsplit("/", 1)[-1], ev.site.types, mappings)


def find_ct(name: str, types: Mapping[str, str], mappings: Mapping[str, ExtInfo]
            ) -> tuple[str | None, str | None]:
    """mod_mime's ``find_ct`` for a file *name*: (content type with AddCharset's charset,
    handler).  Every extension after the base name counts, left to right: *types*
    (TypesConfig) gives one unless *mappings* (AddType, AddCharset, AddHandler…) does, and the
    last extension with a type wins — ``x.sql.php`` is ``application/sql`` where ``.php`` has
    no type."""
    stripped = name.lstrip(".")
    dot = stripped.find(".")
    exts = stripped[dot + 1:].split(".") if dot >= 0 else []
    ctype = charset = handler = None
    for ext in exts:
        if not ext:
            continue
        low = ext.lower()
        info = mappings.get(low)
        if info is None or info.type is None:
            found = types.get(low)
            if found is not None:
                ctype = found
        if info is not None:
            if info.type:
                ctype = info.type
            if info.charset:
                charset = info.charset
            if info.handler:
                handler = info.handler
    if ctype is not None and charset:
        base, _, params = ctype.partition(";")
        kept = [p.strip() for p in params.split(";")
                if p.strip() and not p.strip().lower().startswith("charset=")]
        ctype = "; ".join([base.strip(), *kept, f"charset={charset}"])
    return ctype, handler


# -- helpers ----------------------------------------------------------------------------------


def _negotiable(info: ExtInfo | None, typed: bool) -> bool:
    """An extension mod_negotiation counts (MultiviewsMatch NegotiatedOnly): it gives a type
    (*typed*: TypesConfig has one, unless a RemoveType hid it), a language, a charset or an
    encoding."""
    if info is None:
        return typed
    return bool(info.type or info.language or info.charset or info.encoding) or (
        typed and info.type is None)


def _accept_ranges(header: str | None) -> list[tuple[str, float]]:
    """``Accept`` as (media range, q) pairs; no header accepts everything."""
    if not header:
        return [("*/*", 1.0)]
    out = []
    for item in header.split(","):
        media, *params = (p.strip() for p in item.split(";"))
        q = 1.0
        for param in params:
            name, _, value = param.partition("=")
            if name.strip().lower() == "q":
                try:
                    q = float(value)
                except ValueError:
                    q = 0.0
        if media:
            out.append((media.lower(), q))
    return out


def _type_quality(ranges: list[tuple[str, float]], ctype: str) -> float:
    """The q of the most specific range matching *ctype* (0 when none does)."""
    ctype = ctype.lower()
    major = ctype.split("/", 1)[0] + "/*"
    best = (-1, 0.0)
    for media, q in ranges:
        rank = 2 if media == ctype else 1 if media == major else 0 if media == "*/*" else -1
        if rank > best[0]:
            best = (rank, q)
    return best[1] if best[0] >= 0 else 0.0

