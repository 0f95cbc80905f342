"""The ``confmig-lint`` pre-commit hook, run by pre-commit itself.

The hook repository is a snapshot of this checkout committed to a temporary git repo, so
the test sees the working tree whatever is committed; pre-commit installs it into its own
virtualenv (from PyPI or the local wheel cache) as a user's machine would.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]
SNAPSHOT = ("pyproject.toml", "README.md", ".pre-commit-hooks.yaml", "confmig", "grammars")

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def git(cwd: Path, *args: str) -> None:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env=env)


def hook_repo(tmp: Path) -> Path:
    repo = tmp / "hook-repo"
    repo.mkdir()
    for name in SNAPSHOT:
        source = PROJECT / name
        if source.is_dir():
            shutil.copytree(source, repo / name,
                            ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        else:
            shutil.copy2(source, repo / name)
    git(repo, "init", "-q")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "snapshot")
    return repo


def _requirements() -> tuple[str, ...]:
    """The package's dependencies and build requirements, read from pyproject.toml."""
    project = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    return (*project["project"]["dependencies"], *project["build-system"]["requires"])


REQUIREMENTS = _requirements()


def wheelhouse() -> dict[str, str]:
    """pip settings for pre-commit's install: a local wheelhouse of the project's
    dependencies (filled once per machine), so the hook installs in seconds."""
    house = Path(os.environ.get("CONFMIG_WHEELHOUSE",
                                Path.home() / ".cache" / "confmig" / "wheelhouse"))
    marker = house / ("ready-" + "-".join(sorted(REQUIREMENTS)).replace(">=", "_")
                      .replace("/", "_"))
    if not marker.exists():
        house.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, "-m", "pip", "download", "-q", "-d", str(house),
                        *REQUIREMENTS], check=True, capture_output=True, timeout=600)
        marker.touch()
    return {"PIP_NO_INDEX": "1", "PIP_FIND_LINKS": str(house)}


def start_try_repo(repo: Path, cwd: Path, pip_env: dict[str, str]) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "pre_commit", "try-repo", str(repo), "confmig-lint",
         "--all-files", "--color", "never"],
        cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, **pip_env, "PRE_COMMIT_HOME": str(cwd.parent / "pc-home")},
    )


def site_repo(root: Path, htaccess: str) -> Path:
    """A project with an access file and a file the hook must not touch."""
    (root / "public").mkdir(parents=True)
    (root / "public" / ".htaccess").write_text(htaccess)
    (root / "README.txt").write_text("not linted\n")
    git(root, "init", "-q")
    git(root, "add", "-A")
    return root


def test_hook_fails_on_a_bad_htaccess_and_passes_once_fixed(tmp_path: Path) -> None:
    pytest.importorskip("pre_commit")
    pip_env = wheelhouse()
    repo = hook_repo(tmp_path)
    # Sequential: two try-repo runs side by side contend for virtualenv's app-data lock and
    # take longer than one after the other.
    site = site_repo(tmp_path / "site", "RewriteEngin On\n")
    bad_run = start_try_repo(repo, site, pip_env)
    bad_out, _ = bad_run.communicate(timeout=600)
    assert bad_run.returncode == 1, bad_out
    assert "SYN003" in bad_out and "did you mean RewriteEngine" in bad_out
    (site / "public" / ".htaccess").write_text("RewriteEngine On\n")
    git(site, "add", "-A")
    good_run = start_try_repo(repo, site, pip_env)
    good_out, _ = good_run.communicate(timeout=600)
    assert good_run.returncode == 0, good_out
    assert "Passed" in good_out
