"""``confmig convert``: move a site's ``.htaccess`` configuration somewhere faster.

Targets: ``httpd`` (``<Directory>`` blocks in the server configuration).  nginx and Flask
will plug in here with the same :class:`~confmig.convert.result.ConversionResult`.

:func:`run` is what the command line calls: it converts, then prints nothing but writes what
was asked (``-o FILE`` atomically, ``--write`` in place with numbered backups
``NAME.~N~``), never over a file it read, never over anything but a regular file, and over an
existing ``-o`` file only with ``force`` (:mod:`confmig.fs`); ``--write`` never writes a
configuration ``apache2 -t`` rejects (:attr:`ConversionResult.rejected`: the server would not
start).  A configuration converted before is recognised: nothing to do, nothing written, exit 0.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from rich.console import Console

from confmig.convert import registry
from confmig.convert.options import Options
from confmig.convert.result import ConversionResult, ConvertError, Note, NoteKind
from confmig.fs import WriteRefused, atomic_write, check_output, rewrite_in_place

TARGETS = tuple(registry.available())
PLANNED_TARGETS = tuple(registry.planned())


@dataclass
class ConvertRequest:
    """The command line's arguments."""

    target: str
    docroot: Path | None = None
    config: Path | None = None
    output: Path | None = None
    write: bool = False
    force: bool = False
    options: Options = field(default_factory=Options)
    listen: str | None = None  # nginx: --listen
    server_name: str | None = None  # nginx: --server-name
    strict: bool = False  # anything untranslatable: write nothing
    app_module: str | None = None  # flask: --app-module (the module's import name)
    php_fpm: str | None = None  # nginx: --php-fpm ADDR (.php to php-fpm)


@dataclass
class ConvertOutcome:
    result: ConversionResult
    written: list[Path] = field(default_factory=list)
    backups: list[Path] = field(default_factory=list)
    #: Neither ``-o`` nor ``--write``: the text is for stdout.
    to_stdout: bool = True

    @property
    def printed(self) -> bool:
        """True when the text goes to stdout."""
        return self.to_stdout and not self.result.nothing_to_do

    @property
    def exit_code(self) -> int:
        """1 when something could not be carried over faithfully, else 0."""
        return 1 if self.result.untranslatable else 0

    def print(self, out: Console, err: Console) -> None:
        """The text on *out* (unless it was written), every note and a summary on *err*;
        one line when there was nothing to do."""
        if self.result.nothing_to_do:
            err.print(f"confmig convert --to {self.result.target}: {self.result.source}: "
                      f"already converted ({', '.join(self.result.already_converted)}: "
                      "confmig's blocks are there and Apache reads no .htaccess); nothing to do",
                      markup=False, highlight=False)
            return
        if self.printed:
            out.file.write(self.result.text)
            out.file.flush()
        for path in self.backups:
            err.print(f"backup: {path}", markup=False)
        for path in self.written:
            err.print(f"wrote: {path}", markup=False)
        for note in self.result.untranslatable:
            err.print(f"untranslatable: {note}", markup=False)
        for note in self.result.warnings:
            label = "warning" if note.kind is NoteKind.TRANSFORMED else "note"
            err.print(f"{label}: {note}", markup=False)
        err.print(summary(self.result), markup=False)


def summary(result: ConversionResult) -> str:
    count = len(result.untranslatable)
    what = "nothing untranslatable" if not count else f"{count} untranslatable (see above)"
    return (f"confmig convert --to {result.target}: {result.source}: "
            f"{len(result.docroots)} document root(s), {what}")


def convert_docroot(docroot: str | os.PathLike[str],
                    config: str | os.PathLike[str] | None = None,
                    options: Options | None = None) -> ConversionResult:
    """:func:`confmig.convert.httpd.convert_docroot`, imported when first called (importing
    ``confmig.convert`` — as the command line does for every command — loads no converter)."""
    from confmig.convert.httpd import convert_docroot as httpd_convert_docroot

    return httpd_convert_docroot(docroot, config, options)


def convert_config(config: str | os.PathLike[str], docroot: str | os.PathLike[str] | None = None,
                   options: Options | None = None) -> ConversionResult:
    """:func:`confmig.convert.httpd.convert_config`, imported when first called."""
    from confmig.convert.httpd import convert_config as httpd_convert_config

    return httpd_convert_config(config, docroot, options)


def convert(target: str, docroot: str | os.PathLike[str] | None = None,
            config: str | os.PathLike[str] | None = None,
            options: Options | None = None) -> ConversionResult:
    """Convert without writing: a fragment for *docroot* (AllowOverride as *config* sets it,
    if given), or without *docroot* the whole *config* rewritten."""
    _check_target(target)
    if docroot is not None:
        return convert_docroot(docroot, config, options)
    if config is None:
        raise ConvertError("give a DOCROOT, or --config httpd.conf to rewrite a whole config")
    return convert_config(config, None, options)


def run(request: ConvertRequest) -> ConvertOutcome:
    """Convert and write as asked.  Raises :class:`ConvertError` for bad input and
    :class:`~confmig.fs.WriteRefused` when a write would lose something or failed."""
    _check_target(request.target)
    if request.write and request.output is not None:
        raise ConvertError("--write rewrites the configuration in place; -o writes a new file: "
                           "give one of them")
    if request.output is not None and not request.output.is_dir():
        # what can be known before the work; all of it at the end
        check_output(request.output, force=True,
                     inputs=[request.config] if request.config is not None else [])
    converter = registry.lookup(request.target)
    own = converter.function("convert") if converter is not None else None
    whole_config = request.write or request.docroot is None
    if own is not None:
        result = own(request)
    elif whole_config:
        if request.config is None:
            raise ConvertError("--write and whole-configuration mode need --config httpd.conf"
                               if request.write else
                               "give a DOCROOT, or --config httpd.conf to rewrite a whole config")
        result = convert_config(request.config, request.docroot, request.options)
    else:
        assert request.docroot is not None
        result = convert_docroot(request.docroot, request.config, request.options)
    if request.strict and result.untranslatable:
        return ConvertOutcome(result, to_stdout=False)  # --strict: nothing printed or written
    outcome = ConvertOutcome(result, to_stdout=not request.write and request.output is None)
    if result.nothing_to_do:
        return outcome
    if request.write:
        if result.rejected:
            # the server would not start with it: keep what is there (nothing written)
            raise WriteRefused(f"{request.config}: not rewritten (nothing written): apache2 -t "
                               f"rejects the converted configuration: {result.rejected}")
        report = rewrite_in_place(result.files)
        outcome.written, outcome.backups = report.written, report.backups
    elif request.output is not None and request.output.is_dir() and _plain_names(result):
        outcome.written += write_into(request.output, result, request.force,
                                      read_files(request, result))
    elif request.output is not None:
        outcome.written.append(atomic_write(request.output, result.text, force=request.force,
                                            inputs=read_files(request, result)))
    return outcome


def _plain_names(result: ConversionResult) -> bool:
    """The conversion's ``files`` are names for a directory (nginx: one per virtual host),
    not the paths of the files it rewrites (httpd): then ``-o DIR`` writes them."""
    return bool(result.files) and not any("/" in name or name in (".", "..")
                                          for name in result.files)


def write_into(directory: Path, result: ConversionResult, force: bool,
               inputs: list[str]) -> list[Path]:
    """``-o DIR``: each of ``result.files`` (plain names: one per virtual host for nginx) as
    a file in *directory*, every one checked before the first is written (a refusal writes
    nothing), each written atomically."""
    targets = [(directory / name, text) for name, text in sorted(result.files.items())]
    for path, _ in targets:
        check_output(path, force=force, inputs=inputs)
    return [atomic_write(path, text, force=force, inputs=inputs) for path, text in targets]


def read_files(request: ConvertRequest, result: ConversionResult) -> list[str]:
    """The files the conversion read, which ``-o`` must never write over: the converter's
    own list, plus what every conversion reads at least (a converter that keeps no list is
    still covered): ``--config`` and the ``.htaccess`` files under DOCROOT."""
    from confmig.load import scan_docroot

    files = list(result.inputs)
    if request.config is not None:
        files.append(str(request.config))
    if not result.inputs and request.docroot is not None and Path(request.docroot).is_dir():
        files += [str(p) for p in scan_docroot(request.docroot).access_files]
    return files


def _check_target(target: str) -> None:
    if target in PLANNED_TARGETS:
        raise ConvertError(f"--to {target} is not available yet (planned); available: "
                           + ", ".join(TARGETS))
    if target not in TARGETS:
        raise ConvertError(f"unknown target {target!r}; available: {', '.join(TARGETS)}")


__all__ = [
    "PLANNED_TARGETS", "TARGETS", "ConversionResult", "ConvertError", "ConvertOutcome",
    "ConvertRequest", "Note", "NoteKind", "Options", "WriteRefused", "convert",
    "convert_config", "convert_docroot", "run",
]
