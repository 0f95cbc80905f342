"""Helpers for rule tests: lint a rule's examples or a snippet, and run one real Apache over
many small .htaccess cases at once (one server per test module keeps the suite fast)."""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Self

from confmig.lint.engine import lint_text
from confmig.lint.finding import Finding
from confmig.lint.rule import Rule


def lint_example(rule: type[Rule], which: str) -> list[Finding]:
    """Lint ``rule.bad`` or ``rule.good`` with what the rule says is in force."""
    text = rule.bad if which == "bad" else rule.good
    filename = ".htaccess" if rule.example_kind == "htaccess" else "httpd.conf"
    return lint_text(text, kind=rule.example_kind, allow_override=rule.example_allow_override,
                     allow_override_list=rule.example_allow_override_list,
                     modules=rule.example_modules, filename=filename,
                     files=rule.example_files)


def write_tree(root: Path, files: Mapping[str, str]) -> None:
    """Write files (relative path → text) below ``root``, readable by a server's worker
    user (directories 0755, files 0644), for tests that lint a tree and serve it."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    for directory, _, names in os.walk(root):
        os.chmod(directory, 0o755)
        for name in names:
            os.chmod(os.path.join(directory, name), 0o644)


def codes(findings: Iterable[Finding]) -> list[str]:
    return [f.code for f in findings]


def finds(code: str, text: str, **kwargs: object) -> list[Finding]:
    """The findings with ``code`` for ``text`` (``kwargs`` go to :func:`lint_text`)."""
    return [f for f in lint_text(text, **kwargs) if f.code == code]  # type: ignore[arg-type]


@dataclass
class HtaccessCase:
    """One directory of the test docroot: its .htaccess and the server's <Directory> for it."""

    name: str
    htaccess: str
    allow_override: str = "All"
    allow_override_list: str = ""
    files: dict[str, str] = field(default_factory=lambda: {"index.html": "ok\n"})


class ApacheCases:
    """One real Apache serving ``/<case.name>/`` for every case (context manager)."""

    def __init__(self, cases: Iterable[HtaccessCase], modules: Iterable[str] | None = None,
                 extra_config: str = "") -> None:
        self.cases = {c.name: c for c in cases}
        self.modules = list(modules) if modules is not None else None
        self.extra_config = extra_config
        self.root: Path | None = None
        self._server = None

    def __enter__(self) -> Self:
        from confmig.servers import ApacheServer, make_docroot

        self.root = root = make_docroot(prefix="confmig-lint-")
        blocks = [self.extra_config]
        for case in self.cases.values():
            directory = root / case.name
            directory.mkdir(parents=True)
            directory.chmod(0o755)
            for name, text in {".htaccess": case.htaccess, **case.files}.items():
                (directory / name).write_text(text)
                (directory / name).chmod(0o644)
            lines = [f'<Directory "{directory}">', f"    AllowOverride {case.allow_override}"]
            if case.allow_override_list:
                lines.append(f"    AllowOverrideList {case.allow_override_list}")
            blocks.append("\n".join([*lines, "</Directory>"]))
        kwargs = {} if self.modules is None else {"modules": self.modules}
        self._server = ApacheServer(root, allow_override="None", extra_config="\n".join(blocks),
                                    **kwargs)
        try:
            self._server.start()
        except BaseException:
            shutil.rmtree(root, ignore_errors=True)
            raise
        return self

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        if self._server is not None:
            self._server.stop()
        if self.root is not None:
            shutil.rmtree(self.root, ignore_errors=True)

    @property
    def conf_path(self) -> Path:
        """The running server's main config (lint with ``config=`` this to get its
        AllowOverride and modules)."""
        assert self._server is not None
        return self._server.conf_path

    def status(self, name: str, path: str = "index.html") -> int:
        from confmig.servers import http_get

        assert self._server is not None
        return http_get(self._server.base_url, f"/{name}/{path}").status

    def error_log(self, name: str) -> list[str]:
        """Error-log lines about this case's directory."""
        assert self._server is not None and self.root is not None
        marker = f"{self.root / name}/"
        return [line for line in self._server.error_log_text().splitlines() if marker in line]

    def htaccess_path(self, name: str) -> Path:
        assert self.root is not None
        return self.root / name / ".htaccess"
