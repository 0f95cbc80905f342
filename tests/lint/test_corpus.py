"""Lint the shared corpus of stock Apache files (WordPress, Laravel, Drupal, h5bp…).

* no *error* finding that Apache itself does not have (the few it has are listed below,
  each checked on a real Apache);
* every finding is recorded in ``snapshots/corpus.txt``, so a change is visible in review.
  Regenerate with ``CONFMIG_UPDATE_SNAPSHOTS=1 pytest tests/lint/test_corpus.py``.

Access files are linted as ``.htaccess`` with Debian's defaults (AllowOverride All);
h5bp's ``h5bp/**/*.conf`` partials are what its ``dist/.htaccess`` is assembled from, so
they are linted as ``.htaccess`` too (the stricter context).  h5bp's server configs are
linted from a copy whose ``ServerRoot`` is the copy, as its Includes expect.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from confmig.lint.config import Settings
from confmig.lint.engine import LintResult, lint_paths
from confmig.lint.finding import Severity
from tests.corpus import CORPUS, apache_corpus_files, needs_corpus

pytestmark = [needs_corpus, pytest.mark.corpus]

SNAPSHOT = Path(__file__).parent / "snapshots" / "corpus.txt"
H5BP = "h5bp-server-configs-apache"
# Build manifests of h5bp's .htaccess generator ("enable"/"omit" lines): not Apache files.
NOT_APACHE = {f"{H5BP}/bin/htaccess.conf", f"{H5BP}/test/build/htaccess_fixture.conf"}

# Errors Apache has too — (file, code, what real Apache 2.4 says).
APACHE_HAS_THEM: dict[tuple[str, str], str] = {}


def _rel(path: str | Path, base: Path) -> str:
    return str(Path(path).relative_to(base)) if str(path).startswith(str(base)) else str(path)


def _htaccess_partials() -> set[str]:
    """The h5bp partials its generator puts into dist/.htaccess (enabled or commented out)."""
    manifest = (CORPUS / H5BP / "bin" / "htaccess.conf").read_text()
    return {f"{H5BP}/{m}" for m in re.findall(r'(?m)^\s*(?:enable|disable)\s+"([^"]+)"',
                                              manifest)}


def _classify() -> tuple[list[Path], list[str]]:
    """(access files, h5bp server configs relative to its root)."""
    access, servers = [], []
    partials = _htaccess_partials()
    for path in apache_corpus_files():
        rel = str(path.relative_to(CORPUS))
        if rel in NOT_APACHE:
            continue
        if rel.startswith(f"{H5BP}/") and path.suffix == ".conf" and rel not in partials:
            if not rel.startswith(f"{H5BP}/h5bp/"):  # partials: read through httpd.conf
                servers.append(rel.removeprefix(f"{H5BP}/"))
        else:
            access.append(path)
    return access, servers


@pytest.fixture(scope="module")
def corpus_lint(tmp_path_factory: pytest.TempPathFactory) -> Iterator[list[tuple[str, object]]]:
    settings = Settings(cache=False)
    access, servers = _classify()
    findings: list[tuple[str, object]] = []
    # Access files, each alone (as .htaccess): copy under its own name so it is read as one.
    tmp = tmp_path_factory.mktemp("corpus")
    for path in access:
        rel = str(path.relative_to(CORPUS))
        target = tmp / "access" / rel.replace("/", "__") / ".htaccess"
        target.parent.mkdir(parents=True)
        shutil.copyfile(path, target)
        result = lint_paths([target], settings=settings)
        findings += [(rel, f) for f in result.findings]
    # h5bp's server configs, from a copy whose ServerRoot is the copy (a wrapper sets it for
    # the vhost files, which expect to be included from httpd.conf).
    root = tmp / "h5bp"
    shutil.copytree(CORPUS / H5BP, root)
    for conf in root.rglob("*.conf"):
        text = conf.read_text()
        conf.write_text(re.sub(r'(?m)^ServerRoot .*$', f'ServerRoot "{root}"', text))
    for rel in servers:
        wrapper = tmp / f"wrap-{rel.replace('/', '__')}"
        wrapper.write_text(f'ServerRoot "{root}"\nInclude "{root / rel}"\n')
        result = lint_paths([wrapper], settings=settings)
        findings += [(f"{H5BP}/{_rel(f.file, root)}", f) for f in result.findings
                     if str(f.file).startswith(str(root))]
    yield findings


def test_corpus_files_were_found() -> None:
    access, servers = _classify()
    assert len(access) > 40 and "httpd.conf" in servers


def test_no_error_that_apache_does_not_have(corpus_lint: list[tuple[str, LintResult]]) -> None:
    errors = [(rel, f) for rel, f in corpus_lint
              if f.severity is Severity.error and (rel, f.code) not in APACHE_HAS_THEM]
    assert not errors, "\n".join(f"{rel}:{f.line}: {f.code} {f.message}" for rel, f in errors)


def _snapshot_lines(findings: list[tuple[str, object]]) -> list[str]:
    lines = {f"{rel}:{f.line}:{f.column}: {f.code} [{f.severity.value}] {f.message}"
             for rel, f in findings}
    return sorted(lines)


def test_snapshot_of_every_finding(corpus_lint: list[tuple[str, object]]) -> None:
    lines = _snapshot_lines(corpus_lint)
    text = "".join(f"{line}\n" for line in lines)
    if os.environ.get("CONFMIG_UPDATE_SNAPSHOTS"):
        SNAPSHOT.write_text(text)
    assert SNAPSHOT.is_file(), "no snapshot yet: run with CONFMIG_UPDATE_SNAPSHOTS=1"
    expected = SNAPSHOT.read_text().splitlines()
    added = sorted(set(lines) - set(expected))
    removed = sorted(set(expected) - set(lines))
    assert not added and not removed, (
        "corpus findings changed (CONFMIG_UPDATE_SNAPSHOTS=1 to accept):\n"
        + "\n".join([f"+ {x}" for x in added] + [f"- {x}" for x in removed]))
