"""What the Apache-backed convert tests share: a docroot of one directory per case (its
``.htaccess``, an index page and a file in a subdirectory) and the CLI's ``convert --to
httpd``."""

from __future__ import annotations

import shutil
from collections.abc import Iterator, Mapping
from pathlib import Path

from click.testing import Result
from typer.testing import CliRunner

from confmig.cli import app
from confmig.servers import make_docroot


def case_docroot(cases: Mapping[str, tuple[str | bytes, object]], prefix: str
                 ) -> Iterator[Path]:
    """A docroot with ``NAME/.htaccess`` (the case's text), ``NAME/index.html`` and
    ``NAME/sub/x.txt`` for each case; removed when the fixture that yields it ends."""
    files: dict[str, str | bytes] = {"index.html": "top\n"}
    for name, (htaccess, _) in cases.items():
        files[f"{name}/.htaccess"] = htaccess
        files[f"{name}/index.html"] = f"{name}\n"
        files[f"{name}/sub/x.txt"] = "x\n"
    root = make_docroot(prefix=prefix, files=files)
    yield root
    shutil.rmtree(root, ignore_errors=True)


def convert_httpd(*args: str) -> Result:
    """``confmig convert --to httpd ARGS`` through the CLI."""
    return CliRunner().invoke(app, ["convert", "--to", "httpd", *args])
