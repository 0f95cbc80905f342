"""SEC007 reads ``Options`` with the model's ``set_options`` (confmig.model.merge.core.
read_options) instead of its own keyword list, which lacked ``RunScripts`` (MultiViews|ExecCGI
in core.c): ``Options +RunScripts`` in an upload directory went unreported.  Checked on
Apache: with a cgi-script handler, +RunScripts runs an uploaded script, +MultiViews does not."""

from __future__ import annotations

from pathlib import Path

import pytest

from confmig.lint.engine import lint_paths
from confmig.lint.testing import ApacheCases, HtaccessCase, finds
from confmig.servers import ApacheBinary, default_modules

SCRIPT = "#!/bin/sh\necho 'Content-Type: text/plain'\necho\necho ran\n"


def test_runscripts_enables_cgi_for_sec007() -> None:
    text = ("<Directory /var/www/html/uploads>\n    Options +RunScripts\n"
            "    AddHandler cgi-script .pl\n</Directory>\n")
    found = finds("SEC007", text, kind="server", filename="httpd.conf")
    assert [f.line for f in found] == [2, 3]
    assert finds("SEC007", "Options +MultiViews\n", filename="uploads/.htaccess") == []
    assert [f.line for f in finds("SEC007", "Options RunScripts\n",
                                  filename="uploads/.htaccess")] == [1]


@pytest.mark.apache
def test_on_apache(apache_binary: ApacheBinary) -> None:
    cases = [HtaccessCase("uploads", "Options +RunScripts\nAddHandler cgi-script .pl\n",
                          files={"x.pl": SCRIPT}),
             HtaccessCase("uploads2", "Options +MultiViews\nAddHandler cgi-script .pl\n",
                          files={"x.pl": SCRIPT})]
    modules = sorted({*(m for m in default_modules(apache_binary)
                        if not m.startswith("mpm_")), "mpm_prefork", "cgi"})
    with ApacheCases(cases, modules=modules) as apache:
        assert apache.root is not None
        for case in cases:
            (apache.root / case.name / "x.pl").chmod(0o755)
        statuses = {c.name: apache.status(c.name, "x.pl") for c in cases}
        result = lint_paths([apache.root], config=apache.conf_path, use_cache=False)
    assert statuses == {"uploads": 200, "uploads2": 403}
    lines = {(Path(f.file).parent.name, f.line) for f in result.findings if f.code == "SEC007"}
    assert lines == {("uploads", 1), ("uploads", 2), ("uploads2", 2)}
