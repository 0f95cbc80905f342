"""CTX002 and CTX007 ask the model (confmig.apache.registry) instead of keeping their own
copies, and where the copies had drifted the answer is checked on real Apache:

* CTX007's own list of Options keywords lacked ``RunScripts`` (core.c set_options knows
  it: MultiViews|ExecCGI), so ``Options +RunScripts`` under ``AllowOverride
  Options=Indexes`` went unreported while Apache answers 500.
* For a third-party directive whose override class confmig does not know, CTX002 said
  nothing while the model (explain, convert) said 500.  One decision now: the model's
  ``overrides_permit`` — refused unless ``AllowOverride All`` (which grants every class)
  or ``AllowOverrideList`` names it.  With the machine's mod_wsgi, a directive whose class
  is made unknown to confmig is refused by Apache under AuthConfig and accepted under All.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest

import confmig.apache.registry as registry_module
from confmig.apache.modules import debian_default_modules
from confmig.apache.registry import Registry, overrides_permit
from confmig.lint.engine import lint_paths
from confmig.lint.finding import Severity
from confmig.lint.rules.ctx import ctx002_forbidden_by_allowoverride as ctx002
from confmig.lint.testing import ApacheCases, HtaccessCase, codes, finds
from confmig.servers import ApacheBinary, default_modules

WSGI = [*sorted(debian_default_modules()), "wsgi_module"]
UNKNOWN = "WSGIPassAuthorization"      # FileInfo in Apache; made unknown to confmig below


@pytest.fixture
def class_unknown(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The registry as it would be if the override class of UNKNOWN were not recorded."""
    real = registry_module.registry()
    patched = Registry(dataclasses.replace(i, override_classes=frozenset())
                       if i.name == UNKNOWN else i for i in real)
    monkeypatch.setattr(registry_module, "registry", lambda: patched)
    ctx002._permits.cache_clear()   # CTX002 remembers the model's answers per run
    yield
    ctx002._permits.cache_clear()


def test_ctx007_knows_runscripts() -> None:
    found = finds("CTX007", "Options +RunScripts\n", allow_override=["Options=Indexes"])
    assert len(found) == 1 and "Option RunScripts not allowed here" in found[0].message
    assert finds("CTX007", "Options +RunScripts\n",
                 allow_override=["Options=MultiViews,ExecCGI"]) == []


def test_ctx002_and_the_model_decide_alike_for_an_unknown_class(class_unknown: None) -> None:
    text = f"{UNKNOWN} On\n"
    for granted, refused in ((["AuthConfig"], True), (["FileInfo", "Limit"], True),
                             (["All"], False), (["None"], True)):
        model = not overrides_permit(UNKNOWN, granted)
        found = finds("CTX002", text, modules=WSGI, allow_override=granted)
        assert model == refused, granted
        if granted == ["None"]:
            continue  # the file is never read: CTX003
        assert bool(found) == refused, (granted, found)
    listed = finds("CTX002", text, modules=WSGI, allow_override=["AuthConfig"],
                   allow_override_list=[UNKNOWN])
    assert listed == [] and overrides_permit(UNKNOWN, ["AuthConfig"], [UNKNOWN])
    found = finds("CTX002", text, modules=WSGI, allow_override=["AuthConfig"])
    assert found[0].severity is Severity.error and "does not know" in found[0].message


@pytest.mark.apache
def test_on_apache(apache_binary: ApacheBinary, class_unknown: None) -> None:
    cases = [HtaccessCase("runscripts", "Options +RunScripts\n",
                          allow_override="Options=Indexes"),
             HtaccessCase("runscripts_granted", "Options +RunScripts\n",
                          allow_override="Options=MultiViews,ExecCGI")]
    wsgi = (apache_binary.modules_dir / "mod_wsgi.so").is_file()
    if wsgi:
        cases += [HtaccessCase("unknown_authconfig", f"{UNKNOWN} On\n",
                               allow_override="AuthConfig"),
                  HtaccessCase("unknown_all", f"{UNKNOWN} On\n", allow_override="All")]
    modules = sorted({*default_modules(apache_binary), *(["wsgi"] if wsgi else [])})
    with ApacheCases(cases, modules=modules) as apache:
        statuses = {c.name: apache.status(c.name) for c in cases}
        logs = {c.name: apache.error_log(c.name) for c in cases}
        result = lint_paths([apache.root], config=apache.conf_path, use_cache=False)
    by_case: dict[str, list[str]] = {c.name: [] for c in cases}
    for f in result.findings:
        if f.severity is Severity.error:
            by_case[Path(f.file).parent.name].append(f.code)
    assert statuses["runscripts"] == 500, logs["runscripts"]
    assert any("Option RunScripts not allowed here" in line for line in logs["runscripts"])
    assert by_case["runscripts"] == ["CTX007"]
    assert statuses["runscripts_granted"] == 200 and by_case["runscripts_granted"] == []
    if not wsgi:
        pytest.skip("mod_wsgi is not installed (apt-get install libapache2-mod-wsgi-py3): "
                    "the unknown-class half was not checked")
    assert statuses["unknown_authconfig"] == 500, logs["unknown_authconfig"]
    assert by_case["unknown_authconfig"] == ["CTX002"]
    assert statuses["unknown_all"] == 200 and by_case["unknown_all"] == []
    assert codes(f for f in result.findings
                 if Path(f.file).parent.name == "unknown_all" and f.code == "CTX002") == []
